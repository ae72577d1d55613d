// hostinfo: the virtual machine — hosts and their daemons, processes per host and job, load,
// and every host of each job (mpirun's host table: state, daemon, ranks, spares, heartbeat).
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "client.h"
#include "render.h"
#include "tui.h"
#include "view_options.h"

using namespace ftmpi::tools;

namespace {

void help(FILE* out) {
    std::fprintf(out,
                 "usage: hostinfo [--once | --json | --watch] [--color=auto|always|never] [--socket PATH]\n"
                 "                [--width N] [--interval MS]\n"
                 "  (default)   live full-screen view; q quits\n"
                 "  --once      print one plain-text snapshot\n"
                 "  --json      print one JSON snapshot\n"
                 "  --watch     print a new snapshot at every change (uptime, load and CPU aside)\n"
                 "  --help, --version\n");
}

const ftmpi::cli::Tool kTool{"hostinfo",
                             "usage: hostinfo [--once | --json | --watch] [--color=auto|always|never] "
                             "[--socket PATH] [--width N] [--interval MS]",
                             help};

int terminal_width() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 100;
}

// What --watch compares: everything but the values that change by themselves.
std::string stable(std::vector<DaemonAnswer> answers) {
    for (auto& a : answers) {
        a.snap.host.now_ms = a.snap.host.start_ms;
        for (auto& l : a.snap.host.load_x100) l = 0;
        for (auto& j : a.snap.jobs) {
            for (auto& p : j.procs) p.cpu_ms = 0;
            for (auto& h : j.hosts) h.last_heard_ms = h.last_heard_ms ? 1 : 0;  // every heartbeat moves it
        }
    }
    return hostinfo_json(answers);
}

}  // namespace

int main(int argc, char** argv) {
    ViewOptions opt;
    opt.interval_ms = 200;
    if (auto exit_code = parse_view_options(kTool, argc, argv, opt)) return *exit_code;
    const bool use_color = opt.color == "always" || (opt.color == "auto" && isatty(STDOUT_FILENO));
    if (opt.width <= 0) opt.width = terminal_width();
    if (opt.once || opt.json || opt.watch || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        std::string last;
        for (;;) {
            auto answers = query_all(opt.socket, true);
            std::string out = opt.json ? hostinfo_json(answers) : hostinfo_text(answers, opt.width, use_color);
            if (!opt.watch) {
                std::fputs(out.c_str(), stdout);
                return 0;
            }
            std::string key = stable(answers);
            if (key != last) {
                if (!opt.json) std::printf("---\n");
                std::fputs(out.c_str(), stdout);
                std::fflush(stdout);
                last = std::move(key);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(opt.interval_ms));
        }
    }
    return run_live(
        [&](ViewState& v, int w, int h) {
            return render_page("hostinfo", hostinfo_lines(query_all(opt.socket, true), w), v, w, h, "");
        },
        nullptr, opt.interval_ms);
}
