#include "context_claims.h"

namespace ftmpi {

ContextClaims::Ticket ContextClaims::enter(Key key) {
  const Ticket t{key, serial_++};
  pending_.insert(t);
  return t;
}

void ContextClaims::leave(Ticket t) {
  release(t);
  pending_.erase(t);
}

ContextClaims::Offer ContextClaims::try_offer(Ticket t, bool first_round) {
  if (main_.held && main_.by == t) return Offer::main;
  if (eager_.held && eager_.by == t) return Offer::eager;
  if (first_round && !eager_.held) {
    eager_ = {true, t};
    return Offer::eager;
  }
  if (main_.held) return Offer::none;
  for (const Ticket& p : pending_) {
    if (eager_.held && eager_.by == p) continue;
    if (p != t) return Offer::none;
    main_ = {true, t};
    return Offer::main;
  }
  return Offer::none;
}

void ContextClaims::release(Ticket t) {
  if (main_.held && main_.by == t) main_.held = false;
  if (eager_.held && eager_.by == t) eager_.held = false;
}

ContextClaims::Ticket ContextClaims::rekey(Ticket t, Key key) {
  const Ticket moved = enter(key);
  if (main_.held && main_.by == t) main_.by = moved;
  if (eager_.held && eager_.by == t) eager_.by = moved;
  pending_.erase(t);
  return moved;
}

}  // namespace ftmpi
