// Parsing and naming of FT-MPI modes, shared so mpirun and ftmpid cannot disagree.
#include "ftmpi_proto/modes.h"

#include <algorithm>
#include <cctype>

namespace ftmpi::proto {

namespace {
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}
}  // namespace

std::optional<CommMode> parse_comm_mode(const std::string& s) {
    const std::string v = lower(s);
    for (std::uint8_t i = 0; i < static_cast<std::uint8_t>(CommMode::count_); ++i) {
        auto m = static_cast<CommMode>(i);
        if (v == to_string(m)) return m;
    }
    return std::nullopt;
}

std::optional<MsgMode> parse_msg_mode(const std::string& s) {
    const std::string v = lower(s);
    if (v == "nop" || v == "reset") return MsgMode::nop;
    if (v == "cont") return MsgMode::cont;
    return std::nullopt;
}

const char* to_string(CommMode m) noexcept {
    switch (m) {
        case CommMode::abort: return "abort";
        case CommMode::shrink: return "shrink";
        case CommMode::blank: return "blank";
        case CommMode::rebuild: return "rebuild";
        case CommMode::rebuild_append: return "rebuild_append";
        case CommMode::ulfm: return "ulfm";
        case CommMode::count_: break;
    }
    return "?";
}

const char* to_string(MsgMode m) noexcept {
    switch (m) {
        case MsgMode::nop: return "nop";
        case MsgMode::cont: return "cont";
        case MsgMode::count_: break;
    }
    return "?";
}

}  // namespace ftmpi::proto
