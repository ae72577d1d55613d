// Giving back a freed intracommunicator's context ids once nothing of it can arrive any more
// (context_retire.h).
#include "context_retire.h"

#include <algorithm>

#include <ftmpi/debug_log.h>

#include "match_bits.h"

namespace ftmpi {
namespace {

constexpr std::size_t kNoticeBytes = 16;  // a retire notice carries nothing but its match bits
// settle() drives progress until a call moves nothing; a stream of arrivals that never stops
// leaves the ids for the next construction rather than holding this one up.
constexpr int kMaxSettlePolls = 64;

}  // namespace

Err ContextRetirement::start() { return post_receive(); }

Err ContextRetirement::post_receive() {
  return engine_->recv_internal(kNoticeBytes, match::make(0, 0, 0, match::Kind::retire),
                                ~match::kKindMask, &ContextRetirement::on_notice, this);
}

// Bookkeeping only: giving the ids back here, inside a completion, could leave behind an
// earlier message of the same sender whose completion is still queued (an agreement message
// taken from the unexpected queue when its standing receive was re-posted).
void ContextRetirement::on_notice(Request& r, void* self) {
  auto* t = static_cast<ContextRetirement*>(self);
  const std::uint64_t bits = r.match_bits;
  const bool ok = r.bytes == 0 && bits != 0;  // an error completion comes empty, bits 0
  (void)t->post_receive();
  if (!ok) return;
  const std::uint32_t context = match::context_of(bits);
  const std::uint32_t sender = match::source_of(bits);
  for (Waiting& w : t->waiting_) {
    if (w.context != context) continue;
    auto it = std::find(w.owed.begin(), w.owed.end(), sender);
    if (it == w.owed.end()) break;  // not owed (counted early, or its sender known dead)
    w.owed.erase(it);
    return;
  }
  ++t->early_[{context, sender}];
}

void ContextRetirement::retire(const Comm& c) {
  Waiting w;
  w.context = c.context;
  w.coll_context = c.coll_context;
  const std::uint32_t me = engine_->my_proc();
  const std::uint64_t bits = match::make(c.context, me, 0, match::Kind::retire);
  for (std::uint32_t p : c.procs) {
    if (p == me || engine_->is_failed(p)) continue;
    engine_->send_internal(p, {}, bits);
    auto early = early_.find({c.context, p});
    if (early == early_.end()) {
      w.owed.push_back(p);
    } else if (--early->second == 0) {
      early_.erase(early);
    }
  }
  FTMPI_DLOG("construct", "%s freed: context %u waits for %zu retire notice(s)", c.name.c_str(),
             c.context, w.owed.size());
  waiting_.push_back(std::move(w));
}

void ContextRetirement::settle() {
  if (waiting_.empty() || settling_) return;
  settling_ = true;
  // A member dead before the progress below owes nothing: all it wrote is taken in by it.
  for (Waiting& w : waiting_) {
    w.owed.erase(std::remove_if(w.owed.begin(), w.owed.end(),
                                [&](std::uint32_t p) { return engine_->is_failed(p); }),
                 w.owed.end());
  }
  // Until a call moves nothing: every completion queued before a notice (the transport's
  // backlog) has then been handled, and notices that came meanwhile are counted.
  int polls = 0;
  while (polls < kMaxSettlePolls && engine_->progress()) ++polls;
  const bool quiet = polls < kMaxSettlePolls;
  if (quiet) {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (it->owed.empty()) {
        give_back(*it);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  settling_ = false;
}

void ContextRetirement::give_back(const Waiting& w) {
  std::uint32_t pairs[2] = {w.context & ~1u, w.coll_context & ~1u};
  const int n = pairs[0] == pairs[1] ? 1 : 2;
  std::size_t dropped = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t base = pairs[i];
    for (std::uint32_t id : {base, base + 1}) {
      dropped += engine_->discard_context(id);
      consensus_->forget_context(id);
    }
    if (release_hook_) release_hook_(base);
    comms_->release_context(base);
  }
  FTMPI_DLOG("construct", "context %u given back (%zu leftover message(s) dropped)", w.context,
             dropped);
}

}  // namespace ftmpi
