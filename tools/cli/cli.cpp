// The tools' shared command-line policy on top of CLI11 (see ftmpi_cli/cli.h).
#include "ftmpi_cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>

namespace ftmpi::cli {

int usage_error(const Tool& tool, const std::string& why) {
    std::fprintf(stderr, "%s: %s\n%s\n", tool.name, why.c_str(), tool.usage_line);
    return kUsageExit;
}

std::optional<int> parse(CLI::App& app, const Tool& tool, std::vector<std::string> args) {
    // CLI11 parses a reversed vector (it pops from the back).
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
        return std::nullopt;
    } catch (const CLI::CallForHelp&) {
        tool.help(stdout);
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        tool.help(stdout);
        return 0;
    } catch (const CLI::ParseError& e) {
        // CLI11's messages name the option ("--width: ..."); unknown words are "not expected".
        return usage_error(tool, e.what());
    } catch (const std::exception& e) {
        // A conversion that throws something else (bad_alloc on a huge argument): still bad input.
        return usage_error(tool, e.what());
    }
}

std::optional<int> parse(CLI::App& app, const Tool& tool, int argc, char** argv) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return parse(app, tool, std::move(args));
}

std::string version_line(const char* name) { return std::string(name) + " (ftmpi) " + FTMPI_VERSION; }

CLI::Validator integer_in(long min, long max) {
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    return CLI::Validator(
        [min, max, range](std::string& text) -> std::string {
            errno = 0;
            char* end = nullptr;
            const long v = std::strtol(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max)
                return "needs an integer in " + range + ", got '" + text + "'";
            return {};
        },
        "INT in " + range);
}

}  // namespace ftmpi::cli
