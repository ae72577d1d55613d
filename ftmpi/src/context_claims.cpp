#include "context_claims.h"

namespace ftmpi {

ContextClaims::Key ContextClaims::enter(Comm* parent) {
  const Key key{parent->context, parent->constructions++};
  pending_.insert(key);
  return key;
}

void ContextClaims::leave(Key key) {
  release(key);
  pending_.erase(key);
}

bool ContextClaims::try_offer(Key key) {
  if (offered_) return offerer_ == key;
  if (pending_.empty() || *pending_.begin() != key) return false;
  offered_ = true;
  offerer_ = key;
  return true;
}

void ContextClaims::release(Key key) {
  if (offered_ && offerer_ == key) offered_ = false;
}

}  // namespace ftmpi
