// The command-line policy every ftmpi tool shares (SPEC: a bad command line is exit 2 and a usage
// line on stderr): options are declared on a CLI11 App (Debian's libcli11-dev, the one option
// parser of the tools), and parse() turns CLI11's outcome into that policy.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ftmpi::cli {

// Exit status of a bad command line, for every tool.
constexpr int kUsageExit = 2;

// What a tool says about itself. `usage_line` is one line starting "usage: NAME"; `help` prints
// the full text of --help (the usage line first) to the stream it is given.
struct Tool {
    const char* name;
    const char* usage_line;
    void (*help)(std::FILE* out);
};

// Parses `args` (argv without argv[0]) with `app`. Returns nullopt when the tool should go on,
// else the exit status to return at once: 0 after --help (help printed to stdout), kUsageExit
// after a bad command line ("NAME: why" and the usage line printed to stderr). The App's help
// flag is -h/--help unless the tool set another; CLI11's own help text is never printed.
[[nodiscard]] std::optional<int> parse(CLI::App& app, const Tool& tool, std::vector<std::string> args);

// Same, from main()'s argc/argv.
[[nodiscard]] std::optional<int> parse(CLI::App& app, const Tool& tool, int argc, char** argv);

// For a check done after parsing: prints "NAME: why" and the usage line to stderr, returns kUsageExit.
int usage_error(const Tool& tool, const std::string& why);

// "NAME (ftmpi) VERSION", what every tool's --version prints.
std::string version_line(const char* name);

// A CLI11 check that the value is a whole decimal number in [min, max], with the message users of
// the tools know ("needs an integer in [min, max], got 'x'").
CLI::Validator integer_in(long min, long max);

}  // namespace ftmpi::cli
