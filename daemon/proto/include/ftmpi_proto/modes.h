// FT-MPI communicator and message modes as the launcher and the daemon name them (SPEC 4.7).
// The names here are also the values the daemon puts in FTMPI_COMM_MODE / FTMPI_MSG_MODE.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ftmpi::proto {

enum class CommMode : std::uint8_t { abort, shrink, blank, rebuild, rebuild_append, ulfm, count_ };
// RESET is a synonym of NOP (SPEC 4.7), so it has no value of its own.
enum class MsgMode : std::uint8_t { nop, cont, count_ };

// Case-insensitive; "reset" parses as nop. nullopt for anything else.
std::optional<CommMode> parse_comm_mode(const std::string& s);
std::optional<MsgMode> parse_msg_mode(const std::string& s);

// Lower-case canonical names: "abort", "shrink", "blank", "rebuild", "rebuild_append", "ulfm"; "nop", "cont".
const char* to_string(CommMode m) noexcept;
const char* to_string(MsgMode m) noexcept;

}  // namespace ftmpi::proto
