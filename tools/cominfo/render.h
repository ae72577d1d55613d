// Rendering of the state tables, independent of the terminal: lines of coloured segments that
// --once prints (with or without ANSI colours) and the live view paints with ncurses. Pure
// functions of their inputs, so they are unit-tested with fake tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client.h"
#include "ftmpi_proto/state.h"

namespace ftmpi::tools {

enum class Color : std::uint8_t {
    normal,
    // communicator states
    comm_ok, comm_detected, comm_recover, comm_recovered, comm_failed,
    // process states
    proc_ok, proc_unavailable, proc_joining, proc_failed,
    title, dim, count_
};
Color color_of(proto::CommStateV s);
Color color_of(proto::ProcStateV s);
const char* ansi_of(Color c);  // escape sequence, "" for normal

struct Seg {
    std::string text;
    Color color = Color::normal;
};
using Line = std::vector<Seg>;

std::string plain(const Line& l);                 // text only
std::string ansi(const Line& l);                  // with colour escapes
std::string sanitize(const std::string& s);       // printable ASCII only
std::string fit(const std::string& s, std::size_t width);  // cut with '~' if too long

// One job as shown: which daemon runs it and its table.
struct JobView {
    proto::HostInfo host;
    proto::JobInfo job;
};
std::vector<JobView> jobs_of(const std::vector<DaemonAnswer>& answers);

// The box of one communicator, `width` columns wide (at least 12). With `details`, one line per
// rank with host and pid instead of the small rank boxes.
std::vector<Line> comm_box(const proto::JobInfo& job, const proto::CommInfo& c, int width, bool details);
// A job's heading line and every communicator box.
std::vector<Line> job_lines(const JobView& j, int width, bool details);

// cominfo --json / --once.
std::string cominfo_json(const std::vector<DaemonAnswer>& answers);
std::string cominfo_text(const std::vector<DaemonAnswer>& answers, int width, bool color);

// hostinfo --json / --once.
std::string hostinfo_json(const std::vector<DaemonAnswer>& answers);
std::vector<Line> hostinfo_lines(const std::vector<DaemonAnswer>& answers, int width);
std::string hostinfo_text(const std::vector<DaemonAnswer>& answers, int width, bool color);

// The live view's screen: a grid of characters and colours.
struct Screen {
    int w = 0, h = 0;
    std::vector<std::string> rows;
    std::vector<std::vector<Color>> colors;
    Screen(int width, int height);
    void put(int y, int x, const std::string& s, Color c);
    void put_line(int y, const Line& l);
    std::string text() const;  // rows joined with '\n', trailing blanks kept
};

struct ViewState {
    std::size_t job = 0;  // index into the jobs
    int scroll = 0;       // first content line shown
    bool details = false;
    bool help = false;
};

// Clamps `v` to what exists and draws: line 0 heading, lines 1..h-2 content, line h-1 keys.
Screen render_cominfo(const std::vector<JobView>& jobs, ViewState& v, int w, int h, const std::string& status);
// A scrolling page of lines (hostinfo's live view).
Screen render_page(const std::string& title, const std::vector<Line>& lines, ViewState& v, int w, int h,
                   const std::string& status);

}  // namespace ftmpi::tools
