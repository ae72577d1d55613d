#include "failure_state.h"

#include <ftmpi/debug_log.h>

#include "comm.h"
#include "runtime.h"

namespace ftmpi {

const char* failure_source_name(FailureSource s) {
  switch (s) {
    case FailureSource::runtime: return "daemon report";
    case FailureSource::agreement: return "agreement decision";
    case FailureSource::rebuild: return "replacement lost";
    case FailureSource::startup: return "no address at start-up";
  }
  return "?";
}

bool FailureState::mark_failed(std::uint32_t proc, FailureSource why) {
  if (proc >= limit_ || is_failed(proc)) return false;
  grow(proc);
  state_[proc] = kFailed;  // first, so that a listener asking again finds it recorded
  order_.push_back(proc);
  FTMPI_DLOG("failure", "process %u declared failed (%s)", proc, failure_source_name(why));
  if (purge_) purge_(proc);
  FTMPI_DLOG("failure", "process %u: transport purged", proc);
  for (auto& f : on_failure_) f(proc);
  return true;
}

std::size_t FailureState::mark_all_failed(const std::vector<std::uint32_t>& procs,
                                          FailureSource why) {
  std::vector<std::uint32_t> fresh;
  for (std::uint32_t proc : procs) {
    if (proc >= limit_ || is_failed(proc)) continue;  // a duplicate in `procs` is failed by now
    grow(proc);
    state_[proc] = kFailed;
    order_.push_back(proc);
    fresh.push_back(proc);
    FTMPI_DLOG("failure", "process %u declared failed (%s, %zu in one report)", proc,
               failure_source_name(why), procs.size());
  }
  if (purge_) {
    for (std::uint32_t proc : fresh) purge_(proc);
  }
  if (!fresh.empty()) FTMPI_DLOG("failure", "%zu processes: transport purged", fresh.size());
  for (std::uint32_t proc : fresh) {
    for (auto& f : on_failure_) f(proc);
  }
  return fresh.size();
}

void FailureState::mark_ranks_failed(const Comm& comm, const std::vector<int>& ranks,
                                     FailureSource why) {
  for (int r : ranks) {
    if (r >= 0 && r < comm.size()) mark_failed(comm.procs[static_cast<std::size_t>(r)], why);
  }
}

void FailureState::suspect(std::uint32_t proc) {
  if (proc >= limit_) return;
  grow(proc);
  if (state_[proc] != kOk) return;
  state_[proc] = kSuspected;
  FTMPI_DLOG("failure", "process %u suspected (transport error)", proc);
  for (auto& f : on_suspect_) f(proc);
}

void FailureState::drain(Runtime* runtime) {
  std::vector<std::uint32_t> procs;
  for (int proc : runtime->take_failures()) {
    if (proc < 0) continue;
    FTMPI_DLOG("failure", "process %d detected (daemon report)", proc);
    procs.push_back(static_cast<std::uint32_t>(proc));
  }
  if (procs.size() == 1) {
    mark_failed(procs[0], FailureSource::runtime);
  } else if (!procs.empty()) {
    mark_all_failed(procs, FailureSource::runtime);
  }
}

}  // namespace ftmpi
