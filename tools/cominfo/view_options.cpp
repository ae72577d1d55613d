// cominfo's and hostinfo's options on CLI11 (see view_options.h).
#include "view_options.h"

#include <cstdio>

namespace ftmpi::tools {

std::optional<int> parse_view_options(const cli::Tool& tool, int argc, char** argv, ViewOptions& out) {
    CLI::App app{tool.name};
    app.add_flag("--once", out.once);
    app.add_flag("--json", out.json);
    app.add_flag("--watch", out.watch);
    // "--color" alone means always; "--color=WHEN" chooses.
    app.add_flag("--color{always},--colour{always}", out.color)
        ->check(CLI::IsMember({"auto", "always", "never"}));
    app.add_option("--socket", out.socket);
    app.add_option("--width", out.width)->check(cli::integer_in(1, kMaxWidth));
    app.add_option("--interval", out.interval_ms)->check(cli::integer_in(kMinIntervalMs, kMaxIntervalMs));
    // Like every other tool of ftmpi (mpirun, ftmpid, ftckpt-plan, ftmpi-info).
    bool version = false;
    app.add_flag("--version", version);
    if (auto done = cli::parse(app, tool, argc, argv)) return done;
    if (version) {
        std::printf("%s\n", cli::version_line(tool.name).c_str());
        return 0;
    }
    return std::nullopt;
}

}  // namespace ftmpi::tools
