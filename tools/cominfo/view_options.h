// The command line cominfo and hostinfo share (both show a daemon table the same ways), parsed by
// the tools' one option parser (ftmpi_cli). A bad value is a usage error (exit 2 and the usage
// line), never a silently clamped or wrapped number (--width 2147483647 once allocated 9 GB).
#pragma once

#include <optional>
#include <string>

#include "ftmpi_cli/cli.h"

namespace ftmpi::tools {

// Screen widths beyond this are no terminal; a rendering line is allocated per column.
constexpr long kMaxWidth = 10000;
// Refresh period in ms: at least 10 (a daemon query each time), at most an hour.
constexpr long kMinIntervalMs = 10;
constexpr long kMaxIntervalMs = 3600 * 1000;

struct ViewOptions {
    bool once = false;   // one plain-text snapshot
    bool json = false;   // one JSON snapshot (or JSON snapshots with watch)
    bool watch = false;  // a new snapshot at every change
    std::string color = "auto";  // auto|always|never
    std::string socket;          // ask only this daemon
    int width = 0;               // 0: the terminal's
    int interval_ms;             // refresh period
};

// Parses argv into `out` (whose interval_ms holds the tool's default). Returns nullopt to go on,
// else the exit status (0 after --help, 2 after a bad command line).
[[nodiscard]] std::optional<int> parse_view_options(const cli::Tool& tool, int argc, char** argv, ViewOptions& out);

}  // namespace ftmpi::tools
