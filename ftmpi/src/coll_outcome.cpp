// ATOMIC outcome of collectives (coll_outcome.h). The reasoning behind the settled path, and
// why it keeps SPEC 4.4's promise, is in ftmpi/CONSENSUS.md ("Settled collectives").
#include "coll_outcome.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <ftmpi/debug_log.h>

#include "consensus.h"
#include "library.h"

namespace ftmpi {
namespace {

// The outcome read from a decision, the same at every member: success if some member settled
// (its result is copied to `result` when given and of the expected size), else success only
// if every member voted "worked here", none was in a construction (a member that skipped this
// collective to repair the communicator, Consensus::Kind), and nobody failed apart from the
// gaps a BLANK repair left (those are failed everywhere, and a gap was never entered in
// Comm::failed, where declaring a new failure puts it).
bool read_outcome(Comm* c, const Decision& d, void* result, std::size_t bytes) {
  lib().engine.failures().mark_ranks_failed(*c, d.failed, FailureSource::agreement);
  for (const auto& contribution : d.contributions) {
    const auto& vote = contribution.second;
    if (!vote.empty() && vote[0] == Consensus::kSettledVote) {
      // The sizes differ only in an erroneous program (counts that disagree): refuse, here.
      if (vote.size() - 1 != bytes) return false;
      if (bytes > 0 && result != nullptr) {
        std::memcpy(result, vote.data() + 1, bytes);
      }
      FTMPI_DLOG("failure", "%s: collective outcome: success, settled by rank %d (%zu result bytes taken)",
                 c->name.c_str(), contribution.first, bytes);
      return true;
    }
  }
  bool ok = !d.mixed;
  for (int r : d.failed) {
    ok = ok && std::find(c->failed.begin(), c->failed.end(), r) == c->failed.end();
  }
  for (const auto& contribution : d.contributions) {
    ok = ok && !contribution.second.empty() && contribution.second[0] == 1;
  }
  return ok;
}

bool vote(Comm* c, bool ok_here, bool solicit, void* result, std::size_t bytes) {
  Decision d;
  if (lib().consensus.agree(c, Consensus::Kind::vote,
                            {static_cast<std::uint8_t>(ok_here ? 1 : 0)}, &d,
                            solicit) != Err::ok) {
    return false;
  }
  return read_outcome(c, d, result, bytes);
}

}  // namespace

bool agree_outcome(Comm* c, bool ok_here) { return vote(c, ok_here, false, nullptr, 0); }

bool settle_outcome(Comm* c, const coll::View& v, bool ok_here, const UniformResult& r) {
  // Every member decides "may settle" from the same facts (the call and the communicator's
  // membership), so a member in the agreement knows when others may have settled.
  if (!r.from_everyone || !may_settle(c, v, r.bytes)) return vote(c, ok_here, false, nullptr, 0);
  // Settle only when nothing failed as far as this member knows: then the failure-free path
  // sends nothing, and a failure seen during the call goes through the agreement as before.
  if (ok_here && c->state == FTMPI_COMM_OK && lib().consensus.settle(c, r.data, r.bytes)) {
    return true;
  }
  return vote(c, ok_here, true, r.data, r.bytes);
}

void confirm_settled(Comm* c) {
  if (!lib().consensus.settle_open(c->context)) return;
  Decision unused;
  (void)lib().consensus.agree(c, Consensus::Kind::vote, {1}, &unused);
  lib().consensus.close_settled(c->context);
}

void confirm_all_settled() {
  // One ticket per communicator, all under way at once: the members of different
  // communicators may reach MPI_Finalize in any order, and each ticket advances from the
  // progress engine whatever the others do.
  std::vector<std::unique_ptr<Consensus::Ticket>> tickets;
  lib().comms.for_each([&](Comm& c) {
    if (c.inter || !lib().consensus.settle_open(c.context)) return;
    tickets.push_back(std::make_unique<Consensus::Ticket>());
    lib().consensus.begin(&c, Consensus::Kind::vote, {1}, tickets.back().get());
  });
  for (auto& t : tickets) {
    lib().engine.wait_until([&] { return lib().consensus.step(t.get()); });
    Decision unused;
    Err e = Err::ok;
    (void)lib().consensus.collect(t.get(), &unused, &e);
  }
  lib().comms.for_each([&](Comm& c) { lib().consensus.close_settled(c.context); });
}

}  // namespace ftmpi
