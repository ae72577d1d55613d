// Daemon logging: one line per event with a timestamp, to stderr or to the --log file.
#pragma once

namespace ftmpi::daemon {

enum class LogLevel { debug, info, warn, error };

// Opens `path` for appending (0600) and sends all later lines there; false if it cannot.
bool log_to_file(const char* path);
void log_set_verbose(bool verbose);
// Only errors (used by a private daemon whose stderr is the user's terminal).
void log_set_quiet(bool quiet);

void log_line(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#define FTMPID_DEBUG(...) ::ftmpi::daemon::log_line(::ftmpi::daemon::LogLevel::debug, __VA_ARGS__)
#define FTMPID_INFO(...) ::ftmpi::daemon::log_line(::ftmpi::daemon::LogLevel::info, __VA_ARGS__)
#define FTMPID_WARN(...) ::ftmpi::daemon::log_line(::ftmpi::daemon::LogLevel::warn, __VA_ARGS__)
#define FTMPID_ERROR(...) ::ftmpi::daemon::log_line(::ftmpi::daemon::LogLevel::error, __VA_ARGS__)

}  // namespace ftmpi::daemon
