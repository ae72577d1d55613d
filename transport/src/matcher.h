// The one matching engine of a process (MPICH ch4's shm/netmod split: both endpoints deliver
// into it), so MPI's order and MPI_ANY_SOURCE span peers reached by shared memory and peers
// reached through libfabric.
//
// Narrow interface: the user's receives, probes and cancels come in from above (transport.cpp);
// each endpoint hands in the messages of its streams, in each sender's order, as Arrivals
// (arrive()). A small message carries its bytes and is copied here; a large one is only
// announced, and once it matched a receive the endpoint that announced it moves the payload
// (LargeMessageChannel::deliver_large). Matching follows MPI: a message takes the oldest posted
// receive that accepts it, a receive the oldest unexpected message it accepts; a receive
// accepts a message when (tag & ~ignore) agree and the source is its peer or kAnyPeer.
// Unexpected messages wait in one queue per source (Open MPI ob1's per-peer lists), each
// stamped with its arrival number: a receive naming its source scans that source's messages
// only, however many other senders have queued ahead of it (a reduce root fed by a leaf that
// runs ahead was 34 µs per 8 B operation at 4 ranks with one queue for all, scanning the
// leaf's backlog for every message of its other child); a wildcard receive takes, among the
// first accepted message of each source, the one with the lowest arrival number. Posted
// receives stay one list in posting order (linear scans, like MPICH's queues).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <vector>

#include "completion_backlog.h"
#include "ftmpi/transport/endpoint.h"
#include "op_record.h"

namespace ftmpi::transport {

class LargeMessageChannel;

// What an announcement says about the payload; meaningful only to the channel that made it.
struct Rendezvous {
  std::uint64_t info = 0;  // wire::Header::info (protocol bits and sequence number)
  std::uint64_t addr = 0;
  std::uint64_t pid = 0;
  std::uint64_t token = 0;
};

// One message as the matcher sees it.
struct Arrival {
  PeerId source = kAnyPeer;  // kAnyPeer: a sender the endpoint cannot name (not inserted yet)
  std::uint64_t tag = 0;
  std::uint32_t seq = 0;     // the sender's number for it (shm), which withdraw() names
  std::size_t len = 0;
  const unsigned char* data = nullptr;   // a small message's bytes (valid during arrive())
  LargeMessageChannel* channel = nullptr;  // set for an announced (large) message
  Rendezvous rndv;
};

// What an endpoint does for its announced messages.
class LargeMessageChannel {
 public:
  // A receive (op: buf, len, user_context) matched the announced message a. Either finish it
  // (fill *c, free op, return true) or keep op until the payload is in and return false.
  virtual bool deliver_large(OpRecord* op, const Arrival& a, Completion* c) = 0;
  // The announced message will never be received (discard_unexpected): let its sender finish.
  virtual void drop_large(const Arrival& a) = 0;
  // A receive being posted (MPI_Irecv, MPI_Imrecv) matched the announced message a, which had
  // waited unexpected: like deliver_large, but the channel may keep op and move the payload in
  // its next poll instead. A payload moved by the receiver's own copy (shm's CMA read) would
  // otherwise be moved inside MPI_Irecv: in an exchange (osu_bibw) the side that posts its
  // receives second copied its whole window before posting its sends, so the other side sat
  // idle and the two directions took turns.
  virtual bool accept_large(OpRecord* op, const Arrival& a, Completion* c) {
    return deliver_large(op, a, c);
  }

 protected:
  ~LargeMessageChannel() = default;
};

class Matcher {
 public:
  Matcher(OpPool& pool, CompletionBacklog& backlog) : pool_(pool), backlog_(backlog) {}
  ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // A receive: takes the oldest unexpected message it accepts (its completion goes to the
  // backlog when it finishes at once), else waits, in posting order, for arrive().
  void post_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
                 void* context, bool standing = false);
  // A receive over before it starts (Endpoint::recv_now): the oldest unexpected message it
  // accepts, when that one is small (its bytes are here) and fits len, is copied into buf and
  // described in *out (context nullptr); nothing is posted. False, with nothing done, when no
  // such message waits (none, or the first accepted one is announced or too long):
  // post_recv then does what MPI asks.
  bool take(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
            Completion* out);
  // Whether a receive of at least min_len bytes is posted and unmatched (standing ones aside:
  // post_recv's `standing`, Endpoint::recv_standing): a large send now is then half of an
  // exchange (ShmEndpoint::send_by_cma). Any source: the library posts a collective's
  // receives as wildcards and names the source in the tag bits.
  bool expects_large(std::size_t min_len) const {
    for (const OpRecord* op = posted_.head(); op != nullptr; op = op->next) {
      if (op->len >= min_len && !op->standing) return true;
    }
    return false;
  }
  // One message of a sender's stream, in that sender's order. True when *out now holds a
  // completion (a small message delivered, or a large one finished at once).
  bool arrive(const Arrival& a, Completion* out);
  // Non-blocking probe of what has arrived; its one completion goes to the backlog.
  void probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context);
  // A matched probe (MPI_Mprobe): the oldest unexpected message a (src, tag, ignore) receive
  // accepts leaves the queues, so no later receive or probe can match it, and waits aside
  // until receive_claimed names it. *out describes it (status ok, tag, source, message_len)
  // and *id names it. False, nothing done, when no such message waits.
  bool claim(PeerId src, std::uint64_t tag, std::uint64_t ignore, Completion* out,
             std::uint64_t* id);
  // The receive of a claimed message: what post_recv does when it finds one (a small one is
  // copied and its completion goes to the backlog; a large one is handed to its channel).
  // False when id names no claimed message.
  bool receive_claimed(std::uint64_t id, void* buf, std::size_t len, void* context);
  std::size_t claimed_count() const { return claimed_.size(); }
  // Removes a posted, unmatched receive (its completion says canceled); false when none.
  bool cancel(void* context);
  // Drops source's message number seq if it still waits unexpected (the sender cancels it);
  // false when it is not there (matched already).
  bool withdraw(PeerId source, std::uint32_t seq);
  // Receives directed at peer complete with peer_failed (wildcard receives stay).
  void fail_peer(PeerId peer);
  // Drops every unexpected message, now and from now on (MPI_Finalize).
  void discard_unexpected();
  // Drops the unexpected messages a (kAnyPeer, tag, ignore) receive would accept, now only (a
  // context id given back: Endpoint::discard_matching); returns how many.
  std::size_t discard_matching(std::uint64_t tag, std::uint64_t ignore);

  // Unexpected messages examined by receives, probes and withdrawals so far: what a unit test
  // reads to check that a directed receive does not walk other sources' messages.
  std::uint64_t examined() const { return examined_; }
  std::size_t unexpected_count() const { return unexpected_count_; }

 private:
  struct Unexpected {
    Arrival arrival;  // data points into bytes
    std::uint64_t order = 0;  // arrival number over all sources: wildcards take the lowest
    std::vector<unsigned char> bytes;
  };
  using Queue = std::list<Unexpected>;
  // The oldest unexpected message a (src, tag, ignore) receive or probe accepts.
  struct Found {
    Queue* queue = nullptr;
    Queue::iterator it;
  };
  // The queue of a source's unexpected messages (kAnyPeer: senders not named yet); nullptr if
  // that source has never had one.
  Queue* queue_of(PeerId source);
  bool find(PeerId src, std::uint64_t tag, std::uint64_t ignore, Found* f);
  // Its first message that a (tag, ignore) receive accepts, or q.end().
  Queue::iterator first_accepted(Queue& q, std::uint64_t tag, std::uint64_t ignore);
  void recycle(const Found& f);
  // A receive matched a: its completion into *c (true), or the channel took it (false).
  // posting: matched while the receive is posted (accept_large), not in progress.
  bool deliver(OpRecord* op, const Arrival& a, Completion* c, bool posting = false);
  // A fresh record for a receive (post_recv, receive_claimed).
  OpRecord* receive_record(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                           std::uint64_t ignore, void* context);

  OpPool& pool_;
  CompletionBacklog& backlog_;
  OpList posted_;                  // user receives not matched yet, in posting order
  std::vector<Queue> by_source_;   // unexpected messages of source i, in arrival order
  Queue unnamed_;                  // ... of senders the endpoint could not name (kAnyPeer)
  Queue spare_;                    // recycled nodes (keep their byte capacity)
  Queue claimed_;                  // taken by claim(), not received yet; named by `order`
  std::size_t unexpected_count_ = 0;
  std::uint64_t next_order_ = 0;
  std::uint64_t examined_ = 0;
  bool discard_ = false;
};

}  // namespace ftmpi::transport
