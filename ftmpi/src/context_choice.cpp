// The one context-id choice of every constructor (context_choice.h).
#include "context_choice.h"

#include <algorithm>
#include <cstring>

#include <ftmpi/debug_log.h>

namespace ftmpi {

// Both directions visit only the set bits (a mask holds a few ids in use, of 2048): bit by bit
// they were ~22k instructions each, half of a SHRINK repair's MPI_Comm_dup at 2 ranks
// (callgrind: 86k in all), and they run in every construction agreement.
void put_context_mask(const CommTable::ContextMask& m, std::uint8_t* out) {
  std::memset(out, 0, kContextMaskBytes);
  for (std::size_t i = m._Find_first(); i < m.size(); i = m._Find_next(i)) {
    out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | (1u << (i % 8)));
  }
}

std::vector<std::uint8_t> context_mask_bytes(const CommTable::ContextMask& m) {
  std::vector<std::uint8_t> out(kContextMaskBytes);
  put_context_mask(m, out.data());
  return out;
}

void merge_context_mask(const std::uint8_t* bytes, std::size_t n, CommTable::ContextMask* m) {
  const std::size_t end = std::min(n, kContextMaskBytes);
  for (std::size_t b = 0; b < end; ++b) {
    for (unsigned bits = bytes[b]; bits != 0; bits &= bits - 1) {
      const std::size_t i = b * 8 + static_cast<std::size_t>(__builtin_ctz(bits));
      if (i < CommTable::kContextPairs) m->set(i);
    }
  }
}

CommTable::ContextMask local_contexts(const CommTable& comms) {
  CommTable::ContextMask m = comms.used_contexts();
  m.reset(ContextClaims::kNotOffered);
  m.reset(ContextClaims::kNoEagerOffer);
  return m;
}

std::uint32_t take_context(CommTable* comms, Consensus* consensus, CommTable::ContextMask* used,
                           int skip, std::size_t first, std::size_t end) {
  for (std::size_t i = first; i < end; ++i) {
    if (used->test(i)) continue;
    used->set(i);
    if (skip-- > 0) continue;
    const auto context = static_cast<std::uint32_t>(2 * i);
    comms->mark_context_used(context);
    // A freed communicator's agreements went with it (Constructor::release_contexts); this
    // covers every other way an id comes back (undecided instances, which a faster member's
    // first agreement on the new communicator may have started, are kept).
    consensus->reset_context(context);
    return context;
  }
  return 0;
}

ContextChoice::ContextChoice(ContextClaims* claims, CommTable* comms, Consensus* consensus,
                             ContextClaims::Key key)
    : claims_(claims), comms_(comms), consensus_(consensus), ticket_(claims->enter(key)) {
  comms_->settle_contexts();  // ids of freed communicators whose members all let go come back
}

ContextChoice::~ContextChoice() { claims_->leave(ticket_); }

CommTable::ContextMask ContextChoice::contribution() {
  CommTable::ContextMask mine = local_contexts(*comms_);
  const ContextClaims::Offer offer = claims_->try_offer(ticket_, first_round_);
  first_round_ = false;
  mine.set(ContextClaims::kNotOffered, offer != ContextClaims::Offer::main);
  mine.set(ContextClaims::kNoEagerOffer, offer != ContextClaims::Offer::eager);
  return mine;
}

void ContextChoice::rekey(ContextClaims::Key key) { ticket_ = claims_->rekey(ticket_, key); }

Err ContextChoice::pick(CommTable::ContextMask united, const Round& round, std::uint32_t* context,
                        int skip) {
  int rounds = 0;
  for (;;) {
    // Each member flags the offer it lacks, so the union says alike everywhere which range
    // (if any) every member offered.
    const bool main = !united.test(ContextClaims::kNotOffered);
    const bool eager = !united.test(ContextClaims::kNoEagerOffer);
    if (main || eager) {
      CommTable::ContextMask used = local_contexts(*comms_) | united;
      *context = main ? take_context(comms_, consensus_, &used, skip, ContextClaims::kEagerPairs)
                      : take_context(comms_, consensus_, &used, skip, 0, ContextClaims::kEagerPairs);
      if (*context != 0 || main) break;
      // The eager range is full at some member: every member sees it alike; go on as below.
    }
    // Give the offer back (the lowest pending construction may need it) and try again.
    claims_->release(ticket_);
    CommTable::ContextMask mine = contribution();
    ++rounds;
    if (Err e = round(&mine); e != Err::ok) return e;
    united = mine;
    FTMPI_DLOG("construct", "key (%u, %llu): round %d, main usable %d, eager usable %d",
               ticket_.first.first, static_cast<unsigned long long>(ticket_.first.second), rounds,
               united.test(ContextClaims::kNotOffered) ? 0 : 1,
               united.test(ContextClaims::kNoEagerOffer) ? 0 : 1);
  }
  claims_->release(ticket_);
  FTMPI_DLOG("construct", "key (%u, %llu): context %u after %d extra round(s)",
             ticket_.first.first, static_cast<unsigned long long>(ticket_.first.second), *context,
             rounds);
  if (*context == 0) return fail(Err::intern, "out of context ids");
  return Err::ok;
}

bool ContextChoice::pick_private(std::uint32_t* context) {
  claims_->release(ticket_);
  for (std::size_t i = kSharedContextPairs; i < ContextClaims::kNoEagerOffer; ++i) {
    if (!comms_->used_contexts().test(i)) {
      *context = static_cast<std::uint32_t>(2 * i);
      comms_->mark_context_used(*context);
      consensus_->reset_context(*context);
      return true;
    }
  }
  return false;
}

}  // namespace ftmpi
