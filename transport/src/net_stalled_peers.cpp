// Stalled sends to a peer on this host: is its process still there? (net_stalled_peers.h)
#include "net_stalled_peers.h"

#include <errno.h>
#include <signal.h>

namespace ftmpi::transport {

void StalledPeers::add(PeerId id, pid_t pid) {
  if (peers_.size() <= id) peers_.resize(id + std::size_t{1});
  peers_[id] = Peer{pid, false, {}};
}

void StalledPeers::progressed(PeerId id) {
  if (id < peers_.size()) peers_[id].stalled = false;
}

bool StalledPeers::stalled_and_gone(PeerId id, Clock::time_point now) {
  if (id >= peers_.size() || peers_[id].pid <= 0) return false;
  Peer& p = peers_[id];
  if (!p.stalled) {
    p.stalled = true;
    p.next_check = now + std::chrono::milliseconds(kStallMs);
    return false;
  }
  if (now < p.next_check) return false;
  p.next_check = now + std::chrono::milliseconds(kEveryMs);
  // A zombie still counts as there: its parent (the daemon) reaps it and reports it at once.
  if (kill(p.pid, 0) == 0 || errno != ESRCH) return false;
  p.stalled = false;
  return true;
}

}  // namespace ftmpi::transport
