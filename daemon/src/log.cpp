// Timestamped log lines. Called only from the event-loop thread, except for early start-up.
#include "log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace ftmpi::daemon {

namespace {
int g_fd = STDERR_FILENO;
bool g_verbose = false;
bool g_quiet = false;
}  // namespace

bool log_to_file(const char* path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    g_fd = fd;
    return true;
}

void log_set_verbose(bool verbose) { g_verbose = verbose; }
void log_set_quiet(bool quiet) { g_quiet = quiet; }

void log_line(LogLevel level, const char* fmt, ...) {
    if (level == LogLevel::debug && !g_verbose) return;
    if (g_quiet && level != LogLevel::error) return;
    static const char* const names[] = {"debug", "info", "warn", "error"};
    char line[2048];
    timeval tv{};
    gettimeofday(&tv, nullptr);
    tm t{};
    localtime_r(&tv.tv_sec, &t);
    int n = std::snprintf(line, sizeof line, "ftmpid[%d] %02d:%02d:%02d.%03d %s: ", static_cast<int>(getpid()),
                          t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(tv.tv_usec / 1000),
                          names[static_cast<int>(level)]);
    va_list ap;
    va_start(ap, fmt);
    int m = std::vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n) - 1, fmt, ap);
    va_end(ap);
    std::size_t len = static_cast<std::size_t>(n) + (m < 0 ? 0 : static_cast<std::size_t>(m));
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    // One write per line keeps lines whole when several daemons share a log file.
    ssize_t ignored = write(g_fd, line, len);
    (void)ignored;
}

}  // namespace ftmpi::daemon
