// The library's only view of its runtime: a PMIx client. Whoever launched us (ftmpid, or any
// PMIx-capable launcher) answers these calls.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace ftmpi {

class Runtime {
 public:
  // Connects to the PMIx server. Returns false (with *err) when not launched by one, in which
  // case the caller runs as a singleton.
  bool init(std::string* err);
  void finalize();
  // A process that exits without MPI_Finalize destroys the library (static destructors) while
  // PMIx's event thread lives on: the failure handler is taken out first, so it never runs on
  // a destroyed Runtime (runtime.cpp, release_event_handler).
  ~Runtime();
  // Ends the job: `reason` says why, without rank or code (they are added once, here or by
  // mpirun, which receives it through PMIx_Abort).
  [[noreturn]] void abort(int code, const std::string& reason);

  int rank() const { return rank_; }
  int size() const { return size_; }
  int universe_size() const { return universe_size_; }
  int local_size() const { return local_size_; }
  const std::string& hostname() const { return hostname_; }
  bool connected() const { return connected_; }

  // Publishes our fabric address and collects everybody's (put, commit, fence, get;
  // runtime_startup.cpp). A process the daemon reports dead before its address could be had
  // (it died before or during MPI_Init) gets an empty address: the engine marks it failed.
  bool exchange_addresses(const std::vector<std::uint8_t>& mine,
                          std::vector<std::vector<std::uint8_t>>* all, std::string* err);

  // REBUILD (rebuild.cpp). A replacement process finds its instructions in its environment
  // (FTMPI_REBUILD_PLAN, put there by the survivor that asked for it); its PMIx rank is its
  // process index, which may exceed size().
  bool is_replacement() const { return !rebuild_plan_.empty(); }
  // A hot spare (spare_wait.cpp): started by ftmpid ahead of any failure with a process index
  // of its own; MPI_Init publishes its address, then blocks in wait_for_assignment() until the
  // daemon hands it a failed rank (it returns as that rank's REBUILD replacement) or the job
  // ends (the process exits quietly).
  bool is_spare() const;
  // Once every original rank's address is here (and before it blocks), the wait calls
  // while_waiting(fd, addresses): the spare's background work (spare_connect.h), which must
  // return when fd (the assignment's descriptor) becomes readable.
  using SpareWork = std::function<void(int fd, const std::vector<std::vector<std::uint8_t>>& addresses)>;
  bool wait_for_assignment(std::string* err, const SpareWork& while_waiting);
  const std::string& rebuild_plan() const { return rebuild_plan_; }
  // Asks the launcher for `count` processes of this job's program with process indices
  // base..base+count-1 and `plan` in their environment. Blocks until they were started.
  // `ranks` (the world ranks they take) is only for the launcher's reports.
  bool spawn(std::uint32_t count, std::uint32_t base, const std::string& plan,
             const std::vector<int>& ranks, std::string* err);
  // Publishes our fabric address without a fence (a replacement joins a running job).
  bool publish_address(const std::vector<std::uint8_t>& mine, std::string* err);
  // The address process `index` published; waits up to timeout_ms for it to appear. A hot
  // spare answers from the addresses it fetched while it waited (spare_wait.cpp).
  bool lookup_address(std::uint32_t index, int timeout_ms, std::vector<std::uint8_t>* out,
                      std::string* err);

  // Failure notifications arrive on PMIx's thread; they are only queued here. The progress
  // engine checks `has_failures()` (one relaxed load) and drains them on its own thread.
  // The processes of one notification (a lost host names all of its ranks) are queued
  // together and handed out by the same take_failures call, so they are marked together.
  bool has_failures() const { return pending_failures_.load(std::memory_order_relaxed); }
  std::vector<int> take_failures();
  void push_failures(const std::vector<int>& ranks);  // called from the PMIx event thread
  // Whether the daemon ever reported `rank` dead (held-back test events included).
  bool was_reported(int rank);
  std::size_t reported_count();
  // Wakes wait_until_event (a failure report or a PMIx completion arrived; any thread).
  void wake();

 private:
  bool connected_ = false;
  long event_handler_ = -1;  // PMIx's reference for on_proc_failure; -1 none
  void release_event_handler();
  int rank_ = 0;
  int size_ = 1;
  int universe_size_ = 1;
  int local_size_ = 1;
  std::string hostname_;
  std::string nspace_;
  std::string rebuild_plan_;
  // A hot spare's copy of the original ranks' addresses (index < size_; empty = not fetched),
  // taken while it waits so that its join does not look them up one by one through the daemon.
  std::vector<std::vector<std::uint8_t>> prefetched_;
  bool prefetch_addresses();  // true once every original rank's address is here
  // Set while failures_ is not empty (held-back events included).
  std::atomic<bool> pending_failures_{false};
  std::mutex failures_mutex_;
  struct PendingFailure {
    int rank;
    std::chrono::steady_clock::time_point due;  // when take_failures may hand it out
  };
  std::vector<PendingFailure> failures_;
  std::vector<int> reported_;  // every rank ever reported dead, in order (never cleared)
  // MPI_Init's waits for PMIx completions and failure reports (runtime_startup.cpp).
  static constexpr const char* kAddressKey = "ftmpi.addr";
  std::mutex wait_mutex_;
  std::condition_variable wait_cv_;
  template <typename Done>
  void wait_until_event(Done&& done) {
    std::unique_lock<std::mutex> lock(wait_mutex_);
    // The timeout only guards against a lost wake-up; every event calls wake().
    while (!done()) wait_cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  // TEST ONLY (FTMPI_TEST_DELAY_FAILURE_EVENTS_MS, read in init): failure events are held back
  // this long before take_failures hands them out, so that a test can see what a process does
  // before the runtime's report arrives (a transport error noticed first: the peer is only
  // suspected, FTMPI_PROC_UNAVAILABLE; tests/e2e/ft/ft_suspect.c). Never set it in production:
  // it delays every failure notification. 0 (the default): no delay, no cost.
  std::chrono::milliseconds failure_delay_{0};
};

}  // namespace ftmpi
