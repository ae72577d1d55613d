// The 64-bit tag every message carries, laid out in one place:
//   63..60 kind | 59..44 context id | 43..24 sending process | 23..0 user tag
// The sending process is its index in the job (the transport PeerId), not a communicator rank,
// so matching is by process (what CONT mode needs) and MPI_ANY_SOURCE just ignores the field.
// Each communicator owns an even context id for point-to-point and the next odd one for
// collectives, so the two kinds of traffic never match each other.
#pragma once

#include <cstdint>

namespace ftmpi::match {

constexpr int kTagBits = 24;
constexpr int kSourceBits = 20;
constexpr int kContextBits = 16;
constexpr int kMaxTag = (1 << kTagBits) - 1;
constexpr std::uint32_t kMaxProcesses = 1u << kSourceBits;
constexpr std::uint32_t kMaxContexts = 1u << kContextBits;

constexpr std::uint64_t kTagMask = (std::uint64_t{1} << kTagBits) - 1;
constexpr std::uint64_t kSourceMask = ((std::uint64_t{1} << kSourceBits) - 1) << kTagBits;
constexpr int kContextShift = kTagBits + kSourceBits;
constexpr int kKindShift = kContextShift + kContextBits;

enum class Kind : std::uint64_t {
  user = 0,
  consensus = 1,  // communicator construction / repair agreement (consensus.cpp)
  sync = 2,       // a user message sent with MPI_Ssend: the receiver answers with an ack
  ack = 3,        // that answer
  revoke = 4,     // MPIX_Comm_revoke notice for the communicator of this context (ulfm.cpp)
  retire = 5,     // "I freed my communicator on this context": it may be reused (context_retire.h)
};
// User receives accept user and sync messages: they ignore this bit of the kind.
constexpr std::uint64_t kSyncBit = std::uint64_t{2} << 60;
constexpr std::uint64_t kKindMask = std::uint64_t{0xf} << kKindShift;
constexpr std::uint64_t kContextMask = ((std::uint64_t{1} << kContextBits) - 1) << kContextShift;
constexpr std::uint32_t context_of(std::uint64_t bits) {
  return static_cast<std::uint32_t>((bits & kContextMask) >> kContextShift);
}

constexpr std::uint64_t make(std::uint32_t context, std::uint32_t source, int tag,
                             Kind kind = Kind::user) {
  return (static_cast<std::uint64_t>(kind) << kKindShift) |
         (static_cast<std::uint64_t>(context) << kContextShift) |
         (static_cast<std::uint64_t>(source) << kTagBits) |
         (static_cast<std::uint64_t>(tag) & kTagMask);
}
constexpr int tag_of(std::uint64_t bits) { return static_cast<int>(bits & kTagMask); }
constexpr std::uint32_t source_of(std::uint64_t bits) {
  return static_cast<std::uint32_t>((bits & kSourceMask) >> kTagBits);
}

}  // namespace ftmpi::match
