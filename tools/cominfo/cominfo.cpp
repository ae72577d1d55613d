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

#include "cli_args.h"
#include "client.h"
#include "render.h"
#include "tui.h"

using namespace ftmpi::tools;

namespace {

void usage(FILE* out) {
    std::fprintf(out,
                 "usage: cominfo [--once | --json | --watch] [--color=auto|always|never] [--socket PATH]\n"
                 "               [--width N] [--interval MS]\n"
                 "  (default)   live full-screen view; q quits, ? helps\n"
                 "  --once      print one plain-text snapshot\n"
                 "  --json      print one JSON snapshot\n"
                 "  --watch     print a new snapshot (text, or JSON with --json) at every change\n"
                 "  --socket    ask only this daemon (default: $FTMPI_DAEMON_SOCKET, else every\n"
                 "              daemon of this user, private ones included)\n");
}

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
    bool once = false, json = false, watch = false;
    std::string color = "auto", socket;
    int width = 0, interval = 50;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cominfo: %s needs a value\n", a.c_str());
                usage(stderr);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--once") once = true;
        else if (a == "--json") json = true;
        else if (a == "--watch") watch = true;
        else if (a == "--color" || a == "--colour") color = "always";
        else if (a.rfind("--color=", 0) == 0) color = a.substr(8);
        else if (a == "--socket") socket = value();
        else if (a == "--width") width = static_cast<int>(int_option("cominfo", a, value(), 1, kMaxWidth, usage));
        else if (a == "--interval")
            interval = static_cast<int>(int_option("cominfo", a, value(), kMinIntervalMs, kMaxIntervalMs, usage));
        else if (a == "-h" || a == "--help") { usage(stdout); return 0; }
        else {
            std::fprintf(stderr, "cominfo: unknown option '%s'\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    if (color != "auto" && color != "always" && color != "never") {
        std::fprintf(stderr, "cominfo: --color must be auto, always or never\n");
        return 2;
    }
    const bool use_color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO));
    if (width <= 0) width = terminal_width();

    if (once || json || watch) {
        std::string last;
        for (;;) {
            auto answers = query_all(socket, false);
            std::string out = json ? cominfo_json(answers) : cominfo_text(answers, width, use_color);
            if (!watch) return print_snapshot(out, answers, json);
            if (out != last) {
                if (!json) std::printf("--- %s\n", now_text().c_str());
                std::fputs(out.c_str(), stdout);
                std::fflush(stdout);
                last = std::move(out);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(interval));
        }
    }
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        auto answers = query_all(socket, false);
        return print_snapshot(cominfo_text(answers, width, use_color), answers, false);
    }
    return run_live(
        [&](ViewState& v, int w, int h) {
            auto answers = query_all(socket, false);
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
        interval);
}
