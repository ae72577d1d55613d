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

bool ContextClaims::try_offer(Ticket t) {
  if (offered_) return offerer_ == t;
  if (pending_.empty() || *pending_.begin() != t) return false;
  offered_ = true;
  offerer_ = t;
  return true;
}

void ContextClaims::release(Ticket t) {
  if (offered_ && offerer_ == t) offered_ = false;
}

}  // namespace ftmpi
