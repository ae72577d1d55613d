// The one owner of "process P failed" in the MPI library (SPEC 4; design and rules:
// ftmpi/FAILURE_STATE.md). Every report of a death goes IN through mark_failed (the runtime's
// notifications, an agreement's decision, a REBUILD replacement that never joined); it is
// recorded once, the transport purges what is addressed to the process, then the listeners
// (communicators and their requests, the agreement's decision forwarding) are told, in that
// order, on our own thread. Communicators, requests and tools read it OUT with is_failed /
// failed_procs. Nothing clears a mark: a process index is never reused (a REBUILD replacement
// gets a new one), so "failed" is forever.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ftmpi {

struct Comm;
class Runtime;

// Who reported a failure (for the FTMPI_DEBUG log and the note; the path is the same).
enum class FailureSource : std::uint8_t {
  runtime,    // the daemon's PMIx notification (the failure detector, CONSENSUS.md)
  agreement,  // another member's knowledge, in an agreement's decision
  rebuild,    // a REBUILD replacement that died or never joined
  startup,    // a process that never published its address at MPI_Init
};
const char* failure_source_name(FailureSource s);

class FailureState {
 public:
  // ---- in ----
  // Process `proc` is dead. Idempotent: the first call records it, runs the purge hook (the
  // transport completes every operation addressed to proc with peer_failed) and then every
  // failure listener; later calls do nothing. Returns whether this call recorded it.
  bool mark_failed(std::uint32_t proc, FailureSource why);
  // Several processes died together (one daemon report naming every rank of a lost host): all
  // are recorded first, then purged, then the listeners hear of each, so no listener (a
  // communicator's repair, ABORT mode's message, the agreement) ever sees only part of them and
  // the application repairs once. Already failed or impossible indices are skipped. Returns
  // how many this call recorded.
  std::size_t mark_all_failed(const std::vector<std::uint32_t>& procs, FailureSource why);
  // The ranks of `comm` that an agreement decided failed: the one decision -> declare loop.
  void mark_ranks_failed(const Comm& comm, const std::vector<int>& ranks, FailureSource why);
  // A transport error points at proc, not confirmed (SPEC 4.7, FTMPI_PROC_UNAVAILABLE): the
  // suspect listeners hear it once; ignored for a process already failed or suspected.
  void suspect(std::uint32_t proc);
  // Moves the runtime's queued notifications in (progress thread), everything queued so far as
  // one mark_all_failed. Cheap when none are queued.
  void drain(Runtime* runtime);

  // ---- out ----
  bool is_failed(std::uint32_t proc) const {
    return proc < state_.size() && state_[proc] == kFailed;
  }
  bool is_suspected(std::uint32_t proc) const {
    return proc < state_.size() && state_[proc] == kSuspected;
  }
  // Every failed process index, in the order marked; only ever appended to. Its size is a
  // cheap "anything new since I last looked?" for pollers (ULFM's failure acknowledgement).
  const std::vector<std::uint32_t>& failed_procs() const { return order_; }
  std::size_t failed_count() const { return order_.size(); }

  // ---- wiring (Engine::init, MPI_Init) ----
  // Called first, once per newly failed process: the transport-level purge.
  void set_purge(std::function<void(std::uint32_t)> f) { purge_ = std::move(f); }
  void add_failure_listener(std::function<void(std::uint32_t)> f) {
    on_failure_.push_back(std::move(f));
  }
  void add_suspect_listener(std::function<void(std::uint32_t)> f) {
    on_suspect_.push_back(std::move(f));
  }
  // Process indices at or above this are not processes of the job (the match-bit limit).
  void set_limit(std::uint32_t limit) { limit_ = limit; }

 private:
  static constexpr unsigned char kOk = 0, kSuspected = 1, kFailed = 2;
  void grow(std::uint32_t proc) {
    if (proc >= state_.size()) state_.resize(proc + 1, kOk);
  }

  std::vector<unsigned char> state_;   // by process index; may reach beyond the known peers
  std::vector<std::uint32_t> order_;   // failed processes in the order marked
  std::uint32_t limit_ = UINT32_MAX;
  std::function<void(std::uint32_t)> purge_;
  std::vector<std::function<void(std::uint32_t)>> on_failure_;
  std::vector<std::function<void(std::uint32_t)>> on_suspect_;
};

}  // namespace ftmpi
