#include "context_claims.h"

namespace ftmpi {

ContextClaims::Ticket ContextClaims::enter(Key key) { return {key, serial_++}; }

void ContextClaims::leave(Ticket t) {
  release(t);
  pending_.erase(t);
}

ContextClaims::Offer ContextClaims::try_offer(Ticket t, bool first_round) {
  if (main_.held && main_.by == t) return Offer::main;
  if (eager_.held && eager_.by == t) return Offer::eager;
  if (first_round) {
    if (eager_.held) return Offer::none;
    eager_ = {true, t};
    return Offer::eager;
  }
  // A later round: every member has come (the first round's exchange is complete), so from
  // now on every member's rounds go on until the construction is done.
  pending_.insert(t);
  if (main_.held || *pending_.begin() != t) return Offer::none;
  main_ = {true, t};
  return Offer::main;
}

void ContextClaims::release(Ticket t) {
  if (main_.held && main_.by == t) main_.held = false;
  if (eager_.held && eager_.by == t) eager_.held = false;
}

ContextClaims::Ticket ContextClaims::rekey(Ticket t, Key key) {
  const Ticket moved = enter(key);
  if (main_.held && main_.by == t) main_.by = moved;
  if (eager_.held && eager_.by == t) eager_.by = moved;
  if (pending_.erase(t) > 0) pending_.insert(moved);
  return moved;
}

}  // namespace ftmpi
