// Reports communicators and their states to the local daemon, for the cominfo tool (issue 6).
//
// Off the hot path: it is called only where a communicator is created, named, freed, changes
// mode or state, or sees a process state change. Each call encodes one small record and sends
// it as a single datagram, non-blocking, to the socket the daemon names in
// $FTMPI_MONITOR_SOCKET. If the daemon's queue is full the latest record per communicator is
// kept and retried on the next call (coalesced); if there is no daemon, monitoring switches
// itself off. It never blocks and never fails an MPI call.
//
// Wire format: ftmpi_proto/state.h (CommReport); the daemon decodes it with decode_report().
// Called on the MPI main thread only (like the rest of the library's state changes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ftmpi {

struct Comm;

class Monitor {
 public:
  // Created, renamed, modes changed, state changed, process states changed: all the same call.
  void comm_changed(const Comm& c);
  // Before the communicator is destroyed.
  void comm_freed(const Comm& c);
  // MPI_Finalize: last retry of anything still queued, then the `finalized` record that tells
  // the daemon this rank exits normally (at most ~50 ms in all), then close.
  void finalize();
  // In a job launched in ABORT mode the application left ABORT mode (FTMPI_Comm_set_mode): the
  // `traps_failures` record, so the daemon stops ending the job at a death. Like finalize(),
  // delivered before it returns (at most ~50 ms of retries); sent once.
  void failures_trapped();

  bool enabled() const { return state_ == State::on; }

  // Encoding, exposed for unit tests: the datagram for communicator `c` as reported by world
  // rank `reporter` of `jobid`, named in the job by (key_context, leader).
  static std::vector<std::uint8_t> encode_update(const std::string& jobid, std::uint32_t reporter,
                                                 std::uint32_t key_context, std::uint32_t leader,
                                                 const Comm& c);
  static std::vector<std::uint8_t> encode_finalized(const std::string& jobid, std::uint32_t reporter);
  static std::vector<std::uint8_t> encode_freed(const std::string& jobid, std::uint32_t reporter,
                                                std::uint32_t key_context, std::uint32_t leader);

 private:
  enum class State { unknown, on, off };
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // (context at creation, leader world rank)
  bool ready();
  Key key_of(const Comm& c);
  void send_or_queue(const Key& k, std::vector<std::uint8_t> bytes);
  bool try_send(const std::vector<std::uint8_t>& bytes);  // false: daemon busy, keep it
  void retry_pending();
  void deliver_now(const Key& k, std::vector<std::uint8_t> bytes);  // queue it, retry ~50 ms

  State state_ = State::unknown;
  bool trapped_sent_ = false;
  int fd_ = -1;
  std::string jobid_;
  std::uint32_t rank_ = 0;
  std::map<int, Key> keys_;                        // communicator handle -> key
  std::map<Key, std::vector<std::uint8_t>> pending_;  // latest unsent record per communicator
};

// The process's monitor (never destroyed; safe to call before MPI_Init and after finalize).
Monitor& monitor();

}  // namespace ftmpi
