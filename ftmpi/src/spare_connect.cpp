#include "spare_connect.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <string>

#include <ftmpi/debug_log.h>

#include "consensus.h"
#include "consensus_wire.h"
#include "ftmpi_knobs/knobs.h"
#include "match_bits.h"

namespace ftmpi {
namespace {

// How long a spare drives its connections before it blocks for good: ranks that make no MPI
// call (a long computation) accept the connection only at their next one, and the spare then
// finishes it in its join.
constexpr int kPreconnectMs = 5000;
constexpr int kLongestSleepMs = 50;  // the sleeps go 2, 4, .. 50 ms
// The rebuild hand-shake's channel (Rebuilder::kChannel): no communicator uses this context.
constexpr std::uint32_t kChannel = 0xffff;

// Connect notes not yet completed. A note may complete after preconnect_spare returned (in
// the join's progress), so the count is not on its stack.
std::size_t g_open_notes = 0;

void note_done(Request&, void*) {
  if (g_open_notes > 0) --g_open_notes;
}

int elapsed_ms(std::chrono::steady_clock::time_point since) {
  return static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count());
}

}  // namespace

void preconnect_spare(Engine& engine, const std::vector<std::vector<std::uint8_t>>& ranks, int fd) {
  if (!knobs::flag(knobs::Id::spare_preconnect) || engine.peer_count() != 0 || ranks.empty()) return;
  if (std::any_of(ranks.begin(), ranks.end(), [](const auto& a) { return a.empty(); })) return;
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  if (engine.add_peers(ranks, FailureSource::rebuild, &why) != Err::ok) {
    // The join inserts them again and reports what is wrong; nothing is lost but the head start.
    FTMPI_DLOG("startup", "MPI_Init: hot spare cannot pre-connect: %s", why.c_str());
    return;
  }
  const std::vector<std::uint8_t> note = encode_consensus_message(ConsensusHeader{Consensus::kConnectNote, -1}, {});
  const std::uint64_t bits = match::make(kChannel, engine.my_proc(), 0, match::Kind::consensus);
  std::size_t posted = 0;
  for (std::uint32_t p = 0; p < ranks.size(); ++p) {
    if (engine.send_internal(p, note, bits, &note_done, nullptr)) ++posted;
  }
  g_open_notes += posted;
  int sleep_ms = 1;
  while (g_open_notes > 0 && elapsed_ms(start) < kPreconnectMs) {
    const bool moved = engine.progress();
    sleep_ms = moved ? 1 : std::min(2 * sleep_ms, kLongestSleepMs);
    // Looked at after every step: a failure right after start-up may need this spare now.
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, moved ? 0 : sleep_ms) != 0) break;  // the assignment (or the job's end) is here
  }
  FTMPI_DLOG("startup", "MPI_Init: hot spare's connect notes to %zu ranks: %zu completed in %d ms", ranks.size(),
             posted - std::min(posted, g_open_notes), elapsed_ms(start));
}

}  // namespace ftmpi
