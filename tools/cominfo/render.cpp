#include "render.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "render_hosts.h"

namespace ftmpi::tools {

using proto::CommStateV;
using proto::ProcStateV;

namespace {
// ordered_json keeps the keys in the documented order (scripts and tests read them in that order).
using Json = nlohmann::ordered_json;

// Compact, one line. Names come from the daemon and may hold bytes that are not UTF-8: they are
// replaced with U+FFFD instead of throwing, so a strange program name cannot abort the tool.
std::string json_text(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}
}  // namespace

Color color_of(CommStateV s) {
    switch (s) {
        case CommStateV::ok: return Color::comm_ok;
        case CommStateV::detected: return Color::comm_detected;
        case CommStateV::recover: return Color::comm_recover;
        case CommStateV::recovered: return Color::comm_recovered;
        default: return Color::comm_failed;
    }
}

Color color_of(ProcStateV s) {
    switch (s) {
        case ProcStateV::ok: return Color::proc_ok;
        case ProcStateV::unavailable: return Color::proc_unavailable;
        case ProcStateV::joining: return Color::proc_joining;
        default: return Color::proc_failed;
    }
}

const char* ansi_of(Color c) {
    switch (c) {
        case Color::comm_ok: case Color::proc_ok: return "\033[32m";              // green
        case Color::comm_detected: return "\033[33m";                              // yellow
        case Color::comm_recover: return "\033[35m";                               // magenta
        case Color::comm_recovered: case Color::proc_joining: return "\033[36m";  // cyan
        case Color::comm_failed: case Color::proc_failed: return "\033[31m";      // red
        case Color::proc_unavailable: return "\033[34m";                           // blue
        case Color::title: return "\033[1m";
        case Color::dim: return "\033[2m";
        default: return "";
    }
}

namespace {
char proc_mark(ProcStateV s) {
    switch (s) {
        case ProcStateV::ok: return ' ';
        case ProcStateV::unavailable: return '-';
        case ProcStateV::joining: return '+';
        default: return 'x';
    }
}
std::string repeat(char c, int n) { return n > 0 ? std::string(static_cast<std::size_t>(n), c) : std::string(); }
int line_width(const Line& l) {
    std::size_t n = 0;
    for (const auto& s : l) n += s.text.size();
    return static_cast<int>(n);
}
}  // namespace

std::string plain(const Line& l) {
    std::string o;
    for (const auto& s : l) o += s.text;
    return o;
}

std::string ansi(const Line& l) {
    std::string o;
    for (const auto& s : l) {
        const char* a = ansi_of(s.color);
        if (*a) {
            o += a;
            o += s.text;
            o += "\033[0m";
        } else {
            o += s.text;
        }
    }
    return o;
}

std::string sanitize(const std::string& s) {
    std::string o;
    for (unsigned char c : s) o += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    return o;
}

std::string fit(const std::string& s, std::size_t width) {
    if (s.size() <= width) return s;
    if (width == 0) return "";
    return s.substr(0, width - 1) + "~";
}

std::vector<JobView> jobs_of(const std::vector<DaemonAnswer>& answers) {
    std::vector<JobView> out;
    for (const auto& a : answers) {
        if (!a.ok) continue;
        for (const auto& j : a.snap.jobs) out.push_back({a.snap.host, j});
    }
    return out;
}

std::vector<Line> comm_box(const proto::JobInfo& job, const proto::CommInfo& c, int width, bool details) {
    width = std::max(width, 12);
    const int inner = width - 4;  // "| " ... " |"
    const Color bc = color_of(c.state);
    std::vector<Line> out;
    // Top border: name on the left, state on the right.
    std::string state = proto::to_string(c.state);
    int name_room = width - static_cast<int>(state.size()) - 8;
    std::string name = fit(sanitize(c.name.empty() ? "(unnamed)" : c.name), static_cast<std::size_t>(std::max(name_room, 1)));
    if (name_room < 1) {
        state = fit(state, static_cast<std::size_t>(std::max(width - 6, 1)));
        name.clear();
    }
    Line top;
    top.push_back({"+-", bc});
    if (!name.empty()) top.push_back({" " + name + " ", Color::title});
    int used = 2 + (name.empty() ? 0 : static_cast<int>(name.size()) + 2) + static_cast<int>(state.size()) + 4;
    top.push_back({repeat('-', width - used) + " ", bc});
    top.push_back({state, bc});
    top.push_back({" -+", bc});
    out.push_back(top);
    auto framed = [&](Line content) {
        int w = line_width(content);
        Line l;
        l.push_back({"| ", bc});
        if (w > inner) {
            // cut the segments to fit
            Line cut;
            int left = inner;
            for (auto& s : content) {
                if (left <= 0) break;
                if (static_cast<int>(s.text.size()) > left) s.text = fit(s.text, static_cast<std::size_t>(left));
                left -= static_cast<int>(s.text.size());
                cut.push_back(s);
            }
            content = cut;
            w = line_width(content);
        }
        for (auto& s : content) l.push_back(s);
        l.push_back({repeat(' ', inner - w) + " |", bc});
        out.push_back(l);
    };
    char info[200];
    std::snprintf(info, sizeof info, "ctx %u  %s/%s  state %s  size %u  valid %u", c.context_id,
                  proto::to_string(c.comm_mode), proto::to_string(c.msg_mode), proto::to_string(c.state), c.size(),
                  c.valid());
    framed({{info, Color::normal}});
    auto host_pid = [&](std::uint32_t wr, std::string& host, int& pid) {
        host = sanitize(host_of_rank(job, wr));
        if (host.empty()) host = "?";
        const proto::ProcInfo* p = proc_of(job, wr);
        pid = p ? p->pid : 0;
    };
    if (details) {
        for (const auto& p : c.procs) {
            std::string host;
            int pid;
            host_pid(p.world_rank, host, pid);
            char buf[256];
            std::snprintf(buf, sizeof buf, "rank %-4u %-11s world %-4u pid %-7d host %s", p.rank,
                          proto::to_string(p.state), p.world_rank, pid, host.c_str());
            framed({{buf, color_of(p.state)}});
        }
    } else if (!c.procs.empty()) {
        const int digits = static_cast<int>(std::to_string(c.procs.size() - 1).size());
        const int cell = digits + 4;           // "|" + number + mark + "|"... see below
        const int per_row = std::max(1, (inner + 1) / (cell + 1));
        for (std::size_t first = 0; first < c.procs.size(); first += static_cast<std::size_t>(per_row)) {
            std::size_t last = std::min(c.procs.size(), first + static_cast<std::size_t>(per_row));
            Line a, b, d;
            for (std::size_t i = first; i < last; ++i) {
                const auto& p = c.procs[i];
                Color pc = color_of(p.state);
                std::string sep = i == first ? "" : " ";
                char num[32];
                std::snprintf(num, sizeof num, "|%*u%c|", digits + 1, p.rank, proc_mark(p.state));
                std::string edge = "+" + repeat('-', cell - 2) + "+";
                a.push_back({sep, Color::normal});
                a.push_back({edge, pc});
                b.push_back({sep, Color::normal});
                b.push_back({num, pc});
                d.push_back({sep, Color::normal});
                d.push_back({edge, pc});
            }
            framed(a);
            framed(b);
            framed(d);
        }
    }
    out.push_back({{"+" + repeat('-', width - 2) + "+", bc}});
    return out;
}

std::vector<Line> job_lines(const JobView& j, int width, bool details) {
    std::vector<Line> out;
    char head[512];
    std::snprintf(head, sizeof head, "job %s  %s  %u procs  %s/%s  host %s", sanitize(j.job.id).c_str(),
                  sanitize(j.job.program).c_str(), j.job.nprocs, proto::to_string(j.job.comm_mode),
                  proto::to_string(j.job.msg_mode), sanitize(j.host.hostname).c_str());
    out.push_back({{fit(head, static_cast<std::size_t>(std::max(width, 1))), Color::title}});
    for (auto& l : job_hosts_summary(j.job, static_cast<std::size_t>(std::max(width, 1)))) out.push_back(std::move(l));
    if (j.job.comms.empty()) out.push_back({{"  (no communicator reported yet)", Color::dim}});
    for (const auto& c : j.job.comms) {
        auto box = comm_box(j.job, c, width, details);
        out.insert(out.end(), box.begin(), box.end());
    }
    return out;
}

std::string cominfo_json(const std::vector<DaemonAnswer>& answers) {
    Json jobs = Json::array();
    for (const auto& jv : jobs_of(answers)) {
        const auto& j = jv.job;
        Json comms = Json::array();
        for (const auto& c : j.comms) {
            Json procs = Json::array();
            for (const auto& p : c.procs) {
                const std::string host = host_of_rank(j, p.world_rank);
                const proto::ProcInfo* pr = proc_of(j, p.world_rank);
                const int pid = pr ? pr->pid : 0;
                procs.push_back({{"rank", p.rank}, {"state", proto::to_string(p.state)}, {"host", host}, {"pid", pid}});
            }
            comms.push_back({{"name", c.name},
                             {"context_id", c.context_id},
                             {"state", proto::to_string(c.state)},
                             {"comm_mode", proto::to_string(c.comm_mode)},
                             {"msg_mode", proto::to_string(c.msg_mode)},
                             {"size", c.size()},
                             {"valid", c.valid()},
                             {"procs", std::move(procs)}});
        }
        jobs.push_back({{"id", j.id}, {"comms", std::move(comms)}});
    }
    return json_text(Json{{"jobs", std::move(jobs)}});
}

std::string cominfo_text(const std::vector<DaemonAnswer>& answers, int width, bool color) {
    std::string o;
    for (const auto& a : answers)
        if (!a.ok) o += "daemon at " + a.socket + ": " + a.error + "\n";
    auto jobs = jobs_of(answers);
    if (jobs.empty()) o += "no jobs running\n";
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (i) o += "\n";
        for (const auto& l : job_lines(jobs[i], width, false)) o += (color ? ansi(l) : plain(l)) + "\n";
    }
    return o;
}

namespace {
std::string uptime_text(std::uint64_t ms) {
    std::uint64_t s = ms / 1000;
    char buf[64];
    if (s >= 86400)
        std::snprintf(buf, sizeof buf, "%llud%02lluh", (unsigned long long)(s / 86400), (unsigned long long)(s % 86400 / 3600));
    else if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lluh%02llum", (unsigned long long)(s / 3600), (unsigned long long)(s % 3600 / 60));
    else
        std::snprintf(buf, sizeof buf, "%llum%02llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
    return buf;
}
Color run_color(proto::RunStateV s) {
    switch (s) {
        case proto::RunStateV::running: return Color::proc_ok;
        case proto::RunStateV::starting: return Color::proc_joining;
        case proto::RunStateV::failed: return Color::proc_failed;
        default: return Color::proc_unavailable;
    }
}
}  // namespace

std::string hostinfo_json(const std::vector<DaemonAnswer>& answers) {
    Json hosts = Json::array();
    for (const auto& a : answers) {
        const auto& h = a.snap.host;
        Json host = {{"host", a.ok ? h.hostname : ""},
                     {"state", a.ok ? "up" : "FAILED"},
                     {"address", a.socket},
                     {"daemon_pid", a.ok ? h.daemon_pid : a.pid},
                     {"private", h.private_daemon}};
        if (!a.ok) {
            host["error"] = a.error;
            host["jobs"] = Json::array();
            hosts.push_back(std::move(host));
            continue;
        }
        host["uptime_s"] = (h.now_ms - std::min(h.start_ms, h.now_ms)) / 1000;
        host["load"] = {h.load_x100[0] / 100.0, h.load_x100[1] / 100.0, h.load_x100[2] / 100.0};
        host["ncores"] = h.ncores;
        Json jobs = Json::array();
        for (const auto& j : a.snap.jobs) {
            Json procs = Json::array();
            for (const auto& pr : j.procs)
                procs.push_back({{"rank", pr.rank},
                                 {"pid", pr.pid},
                                 {"host", pr.host},
                                 {"state", proto::to_string(pr.state)},
                                 {"exit_code", pr.exit_code},
                                 {"cpu_ms", pr.cpu_ms}});
            // mpirun's host table (one row on one host); heartbeat_age_ms null for mpirun's host.
            Json job_hosts = Json::array();
            for (const auto& jh : j.hosts) {
                const std::int64_t age = heartbeat_age_ms(jh, h.now_ms);
                job_hosts.push_back({{"name", jh.name},
                                     {"state", proto::to_string(jh.state)},
                                     {"daemon_pid", jh.daemon_pid},
                                     {"ranks", jh.ranks},
                                     {"spares", jh.spares},
                                     {"heartbeat_age_ms", age < 0 ? Json(nullptr) : Json(age)}});
            }
            jobs.push_back({{"id", j.id},
                            {"program", j.program},
                            {"nprocs", j.nprocs},
                            {"procs", std::move(procs)},
                            {"hosts", std::move(job_hosts)}});
        }
        host["jobs"] = std::move(jobs);
        hosts.push_back(std::move(host));
    }
    return json_text(Json{{"hosts", std::move(hosts)}});
}

std::vector<Line> hostinfo_lines(const std::vector<DaemonAnswer>& answers, int width) {
    std::vector<Line> out;
    const auto w = static_cast<std::size_t>(std::max(width, 1));
    if (answers.empty()) out.push_back({{"no daemons running", Color::dim}});
    for (const auto& a : answers) {
        const auto& h = a.snap.host;
        if (!a.ok) {
            char buf[512];
            std::snprintf(buf, sizeof buf, "daemon pid %d  FAILED  %s  (%s)", a.pid, sanitize(a.socket).c_str(),
                          sanitize(a.error).c_str());
            out.push_back({{fit(buf, w), Color::proc_failed}});
            continue;
        }
        char buf[512];
        std::snprintf(buf, sizeof buf, "host %s  daemon pid %d (%s)  up  uptime %s  load %.2f %.2f %.2f  cores %u",
                      sanitize(h.hostname).c_str(), h.daemon_pid, h.private_daemon ? "private" : "shared",
                      uptime_text(h.now_ms - std::min(h.start_ms, h.now_ms)).c_str(), h.load_x100[0] / 100.0,
                      h.load_x100[1] / 100.0, h.load_x100[2] / 100.0, h.ncores);
        out.push_back({{fit(buf, w), Color::title}});
        out.push_back({{fit("  address " + sanitize(h.address), w), Color::normal}});
        if (a.snap.jobs.empty()) out.push_back({{"  no jobs", Color::dim}});
        for (const auto& j : a.snap.jobs) {
            std::snprintf(buf, sizeof buf, "  job %s  %s  %u procs  %s/%s", sanitize(j.id).c_str(),
                          sanitize(j.program).c_str(), j.nprocs, proto::to_string(j.comm_mode),
                          proto::to_string(j.msg_mode));
            out.push_back({{fit(buf, w), Color::normal}});
            for (const auto& p : j.procs) {
                std::snprintf(buf, sizeof buf, "    rank %-4u pid %-7d %-9s cpu %6.2fs%s", p.rank, p.pid,
                              proto::to_string(p.state), p.cpu_ms / 1000.0,
                              p.state == proto::RunStateV::failed || p.state == proto::RunStateV::exited
                                  ? ("  exit " + std::to_string(p.exit_code)).c_str()
                                  : "");
                out.push_back({{fit(buf, w), run_color(p.state)}});
            }
            for (auto& l : job_host_lines(j, h.now_ms, w)) out.push_back(std::move(l));
        }
    }
    return out;
}

std::string hostinfo_text(const std::vector<DaemonAnswer>& answers, int width, bool color) {
    std::string o;
    for (const auto& l : hostinfo_lines(answers, width)) o += (color ? ansi(l) : plain(l)) + "\n";
    return o;
}

Screen::Screen(int width, int height) : w(std::max(width, 0)), h(std::max(height, 0)) {
    rows.assign(static_cast<std::size_t>(h), std::string(static_cast<std::size_t>(w), ' '));
    colors.assign(static_cast<std::size_t>(h), std::vector<Color>(static_cast<std::size_t>(w), Color::normal));
}

void Screen::put(int y, int x, const std::string& s, Color c) {
    if (y < 0 || y >= h) return;
    for (std::size_t i = 0; i < s.size(); ++i) {
        int xx = x + static_cast<int>(i);
        if (xx < 0) continue;
        if (xx >= w) break;
        rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(xx)] = s[i];
        colors[static_cast<std::size_t>(y)][static_cast<std::size_t>(xx)] = c;
    }
}

void Screen::put_line(int y, const Line& l) {
    int x = 0;
    for (const auto& s : l) {
        put(y, x, s.text, s.color);
        x += static_cast<int>(s.text.size());
    }
}

std::string Screen::text() const {
    std::string o;
    for (const auto& r : rows) o += r + "\n";
    return o;
}

namespace {

const char* const kHelp[] = {
    "cominfo: communicators of the running MPI jobs",
    "",
    "  q            quit",
    "  Up/Down      scroll one line",
    "  PgUp/PgDn    scroll one page",
    "  j            next job (J: previous)",
    "  d            show host and pid of every rank",
    "  ?            this help (any key returns)",
    "",
    "communicator box colour = state:",
    "  OK green  DETECTED yellow  RECOVER magenta  RECOVERED cyan  FAILED red",
    "rank box colour = process state (mark after the rank):",
    "  OK green ' '  UNAVAILABLE blue '-'  JOINING cyan '+'  FAILED red 'x'",
};

Screen frame(const std::string& head, const std::vector<Line>& content, ViewState& v, int w, int h,
             const std::string& status, const std::string& keys) {
    Screen s(w, h);
    if (w < 10 || h < 3) {
        s.put(0, 0, "too small", Color::normal);
        return s;
    }
    s.put(0, 0, fit(head, static_cast<std::size_t>(w)), Color::title);
    const int rows = h - 2;
    const std::vector<Line>* shown = &content;
    std::vector<Line> help;
    if (v.help) {
        for (const char* l : kHelp) help.push_back({{l, Color::normal}});
        shown = &help;
    }
    const int max_scroll = std::max(0, static_cast<int>(shown->size()) - rows);
    v.scroll = std::clamp(v.scroll, 0, max_scroll);
    for (int i = 0; i < rows && v.scroll + i < static_cast<int>(shown->size()); ++i)
        s.put_line(1 + i, (*shown)[static_cast<std::size_t>(v.scroll + i)]);
    std::string foot = keys;
    if (max_scroll > 0) foot += "  [" + std::to_string(v.scroll + 1) + "-" +
                                std::to_string(std::min<int>(v.scroll + rows, static_cast<int>(shown->size()))) + "/" +
                                std::to_string(shown->size()) + "]";
    if (!status.empty()) foot += "  " + status;
    s.put(h - 1, 0, fit(foot, static_cast<std::size_t>(w)), Color::dim);
    return s;
}

}  // namespace

Screen render_cominfo(const std::vector<JobView>& jobs, ViewState& v, int w, int h, const std::string& status) {
    if (jobs.empty()) {
        v.job = 0;
        Screen s = frame("cominfo", {}, v, w, h, status, "q quit  ? help");
        if (!v.help && w >= 10 && h >= 3) {
            const std::string msg = "no jobs running";
            int x = std::max(0, (w - static_cast<int>(msg.size())) / 2);
            s.put(std::max(1, h / 2), x, msg, Color::title);
        }
        return s;
    }
    if (v.job >= jobs.size()) v.job = 0;  // j past the last job wraps
    const JobView& j = jobs[v.job];
    std::vector<Line> lines = job_lines(j, w, v.details);
    lines.erase(lines.begin());  // the heading goes to row 0
    char head[512];
    std::snprintf(head, sizeof head, "cominfo  job %zu/%zu %s  %s  %u procs  %s/%s  host %s", v.job + 1, jobs.size(),
                  sanitize(j.job.id).c_str(), sanitize(j.job.program).c_str(), j.job.nprocs,
                  proto::to_string(j.job.comm_mode), proto::to_string(j.job.msg_mode),
                  sanitize(j.host.hostname).c_str());
    return frame(head, lines, v, w, h, status, "q quit  arrows/PgUp/PgDn scroll  j job  d details  ? help");
}

Screen render_page(const std::string& title, const std::vector<Line>& lines, ViewState& v, int w, int h,
                   const std::string& status) {
    return frame(title, lines, v, w, h, status, "q quit  arrows/PgUp/PgDn scroll");
}

}  // namespace ftmpi::tools
