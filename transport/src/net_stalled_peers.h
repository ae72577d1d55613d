// Is a peer on this host whose sends have stalled still alive? (net_endpoint.h)
//
// tcp;ofi_rxm tells us of a dead peer only through an operation in flight when its connection
// breaks: that operation completes with an error. If nothing of ours was in flight, rxm drops
// the connection quietly and our next send makes it connect again; the dead peer's listening
// socket refuses, rxm only logs that ("connection failure (sockerr -111)"), answers -FI_EAGAIN
// and tries again every 2 s. Our send stays deferred until the runtime's report of the death
// arrives: ft.suspect.tcp failed 7 runs in 35 at load 15 that way (a send blocked the 3 s the
// test holds the report back), where the transport error should have come at once.
//
// So a peer on this host (its pid is in its transport address, and shares our pid namespace)
// whose deferred sends made no progress for kStallMs is looked up: once its process no longer
// exists, its deferred sends fail as a transport error would have failed them (the engine
// then suspects it, SPEC 4.6). Peers on other hosts are left to the runtime, as before. A
// connect of our own to the peer's listening address would tell the same across hosts, but
// a live tcp provider 1.17 that accepts such a connection and reads no header from it spins
// logging "Failed to read cm header" (seen here: 13 s of it in a stalled peer). Nothing runs
// unless a send has stalled: the message path pays nothing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <vector>

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport {

class StalledPeers {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kStallMs = 10;  // no deferred send accepted this long: look the peer up
  static constexpr int kEveryMs = 10;  // and again this often while the stall lasts

  // pid: the peer's process when it runs on this host, else 0 (never looked up).
  void add(PeerId id, pid_t pid);
  // The peer's deferred sends made progress (or none are left): its stall is over.
  void progressed(PeerId id);
  // The peer's deferred sends made no progress on this poll. True when its process is gone;
  // the stall then starts over (later sends are judged afresh).
  bool stalled_and_gone(PeerId id, Clock::time_point now);

 private:
  struct Peer {
    pid_t pid = 0;
    bool stalled = false;
    Clock::time_point next_check{};
  };
  std::vector<Peer> peers_;  // by PeerId
};

}  // namespace ftmpi::transport
