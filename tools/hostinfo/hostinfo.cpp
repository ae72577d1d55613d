// hostinfo: the virtual machine — hosts and their daemons, processes per host and job, load,
// and every host of each job (mpirun's host table: state, daemon, ranks, spares, heartbeat).
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "cli_args.h"
#include "client.h"
#include "render.h"
#include "tui.h"

using namespace ftmpi::tools;

namespace {

void usage(FILE* out) {
    std::fprintf(out,
                 "usage: hostinfo [--once | --json | --watch] [--color=auto|always|never] [--socket PATH]\n"
                 "                [--width N] [--interval MS]\n"
                 "  (default)   live full-screen view; q quits\n"
                 "  --once      print one plain-text snapshot\n"
                 "  --json      print one JSON snapshot\n"
                 "  --watch     print a new snapshot at every change (uptime, load and CPU aside)\n");
}

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
    bool once = false, json = false, watch = false;
    std::string color = "auto", socket;
    int width = 0, interval = 200;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "hostinfo: %s needs a value\n", a.c_str());
                usage(stderr);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--once") once = true;
        else if (a == "--json") json = true;
        else if (a == "--watch") watch = true;
        else if (a.rfind("--color=", 0) == 0) color = a.substr(8);
        else if (a == "--socket") socket = value();
        else if (a == "--width") width = static_cast<int>(int_option("hostinfo", a, value(), 1, kMaxWidth, usage));
        else if (a == "--interval")
            interval = static_cast<int>(int_option("hostinfo", a, value(), kMinIntervalMs, kMaxIntervalMs, usage));
        else if (a == "-h" || a == "--help") { usage(stdout); return 0; }
        else {
            std::fprintf(stderr, "hostinfo: unknown option '%s'\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    const bool use_color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO));
    if (width <= 0) width = terminal_width();
    if (once || json || watch || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        std::string last;
        for (;;) {
            auto answers = query_all(socket, true);
            std::string out = json ? hostinfo_json(answers) : hostinfo_text(answers, width, use_color);
            if (!watch) {
                std::fputs(out.c_str(), stdout);
                return 0;
            }
            std::string key = stable(answers);
            if (key != last) {
                if (!json) std::printf("---\n");
                std::fputs(out.c_str(), stdout);
                std::fflush(stdout);
                last = std::move(key);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(interval));
        }
    }
    return run_live(
        [&](ViewState& v, int w, int h) {
            return render_page("hostinfo", hostinfo_lines(query_all(socket, true), w), v, w, h, "");
        },
        nullptr, interval);
}
