// cominfo: the communicators of the running MPI jobs, their states and their processes.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
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
                 "usage: cominfo [--once | --json | --watch] [--color=auto|always|never] [--socket PATH]\n"
                 "               [--width N] [--interval MS]\n"
                 "  (default)   live full-screen view; q quits, ? helps\n"
                 "  --once      print one plain-text snapshot\n"
                 "  --json      print one JSON snapshot\n"
                 "  --watch     print a new snapshot (text, or JSON with --json) at every change\n"
                 "  --socket    ask only this daemon (default: $FTMPI_DAEMON_SOCKET, else every\n"
                 "              daemon of this user, private ones included)\n"
                 "  --help, --version\n");
}

const ftmpi::cli::Tool kTool{"cominfo",
                             "usage: cominfo [--once | --json | --watch] [--color=auto|always|never] "
                             "[--socket PATH] [--width N] [--interval MS]",
                             help};

int terminal_width() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* c = std::getenv("COLUMNS"); c != nullptr && std::atoi(c) > 0)
        return static_cast<int>(std::min<long>(std::atoi(c), kMaxWidth));
    return 80;
}

std::string now_text() {
    auto now = std::chrono::system_clock::now();
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
    char buf[32];
    std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
    return std::string(buf) + "." + (ms < 100 ? (ms < 10 ? "00" : "0") : "") + std::to_string(ms);
}

// A snapshot (--once, --json, or not on a terminal) with no job to show says so and fails, so
// a script can tell "nothing runs" from "here it is".
// JSON says it with its empty job list (and stays parseable when stderr is captured with it).
int print_snapshot(const std::string& out, const std::vector<DaemonAnswer>& answers, bool json) {
    std::fputs(out.c_str(), stdout);
    if (!jobs_of(answers).empty()) return 0;
    if (json) return 1;
    bool any_daemon = false;
    for (const auto& a : answers) any_daemon = any_daemon || a.ok;
    std::fprintf(stderr, "cominfo: no MPI job is running (%s)\n",
                 any_daemon ? "the daemons have no jobs" : "no ftmpid daemon answered");
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    ViewOptions opt;
    opt.interval_ms = 50;
    if (auto exit_code = parse_view_options(kTool, argc, argv, opt)) return *exit_code;
    const bool use_color = opt.color == "always" || (opt.color == "auto" && isatty(STDOUT_FILENO));
    if (opt.width <= 0) opt.width = terminal_width();

    if (opt.once || opt.json || opt.watch) {
        std::string last;
        for (;;) {
            auto answers = query_all(opt.socket, false);
            std::string out = opt.json ? cominfo_json(answers) : cominfo_text(answers, opt.width, use_color);
            if (!opt.watch) return print_snapshot(out, answers, opt.json);
            if (out != last) {
                if (!opt.json) std::printf("--- %s\n", now_text().c_str());
                std::fputs(out.c_str(), stdout);
                std::fflush(stdout);
                last = std::move(out);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(opt.interval_ms));
        }
    }
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        auto answers = query_all(opt.socket, false);
        return print_snapshot(cominfo_text(answers, opt.width, use_color), answers, false);
    }
    return run_live(
        [&](ViewState& v, int w, int h) {
            auto answers = query_all(opt.socket, false);
            std::string status;
            for (const auto& a : answers)
                if (!a.ok) status = "daemon " + a.socket + ": " + a.error;
            if (status.empty()) status = now_text();
            return render_cominfo(jobs_of(answers), v, w, h, status);
        },
        [](int key, ViewState& v) {
            if (key == 'j') { ++v.job; v.scroll = 0; }
            else if (key == 'J') { v.job = v.job > 0 ? v.job - 1 : 0; v.scroll = 0; }
            else if (key == 'd') v.details = !v.details;
        },
        opt.interval_ms);
}
