// MPI_Init's address exchange, which must survive a process that dies before or during it.
//
// The fast path is the PMIx fence with data collection: every process puts its address, the
// fence completes when all have, and every address is then in the local cache. But a process
// that died before it connected to the daemon never joins the fence, so a blocking fence
// waited forever (every survivor of a non-ABORT job hung in MPI_Init), and one that died
// after joining leaves no address behind (the survivors aborted: "no fabric address
// published"). So the fence is waited for only until it completes or the daemon reports a
// death; then each address is fetched on its own, non-blocking, until it arrives or its process
// is reported dead. A dead process gets an empty address, which Engine::add_peers marks failed
// (FailureSource::startup): the job goes on without it (SHRINK, BLANK, REBUILD), or ends
// (ABORT: the daemon ends the job, and MPI_COMM_WORLD's failure path aborts).
#include <pmix.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>

#include <ftmpi/debug_log.h>

#include "runtime.h"

namespace ftmpi {
namespace {

// One non-blocking PMIx call's result. PMIx may call back after we stopped waiting (a fence a
// dead process never joins, a get of its address): a Pending whose callback has not run is left
// to PMIx (one per dead process at most), never freed under it.
struct Pending {
  explicit Pending(Runtime* rt) : runtime(rt) {}
  Runtime* runtime;
  pmix_proc_t proc{};
  pmix_info_t info{};
  std::atomic<bool> done{false};
  pmix_status_t status = PMIX_SUCCESS;
  std::vector<std::uint8_t> bytes;
};

void on_fence(pmix_status_t status, void* cbdata) {
  auto* p = static_cast<Pending*>(cbdata);
  Runtime* rt = p->runtime;  // p may be freed as soon as done is seen
  p->status = status;
  p->done.store(true, std::memory_order_release);
  rt->wake();
}

void on_value(pmix_status_t status, pmix_value_t* value, void* cbdata) {
  auto* p = static_cast<Pending*>(cbdata);
  if (status == PMIX_SUCCESS && value != nullptr && value->type == PMIX_BYTE_OBJECT) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(value->data.bo.bytes);
    p->bytes.assign(b, b + value->data.bo.size);
  } else if (status == PMIX_SUCCESS) {
    status = PMIX_ERR_BAD_PARAM;  // not what we put there
  }
  Runtime* rt = p->runtime;  // p may be freed as soon as done is seen
  p->status = status;
  p->done.store(true, std::memory_order_release);
  rt->wake();
}

}  // namespace

bool Runtime::exchange_addresses(const std::vector<std::uint8_t>& mine,
                                 std::vector<std::vector<std::uint8_t>>* all, std::string* err) {
  all->assign(static_cast<size_t>(size_), {});
  (*all)[static_cast<size_t>(rank_)] = mine;
  if (!connected_) return true;
  if (!publish_address(mine, err)) return false;

  auto* fence = new Pending(this);
  bool yes = true;
  PMIX_INFO_LOAD(&fence->info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence_nb(nullptr, 0, &fence->info, 1, on_fence, fence);
  if (rc != PMIX_SUCCESS) {
    *err = std::string("address exchange failed: ") + PMIx_Error_string(rc);
    return false;
  }
  wait_until_event([&] { return fence->done.load(std::memory_order_acquire) || reported_count() > 0; });
  const bool fenced = fence->done.load(std::memory_order_acquire) && fence->status == PMIX_SUCCESS;
  FTMPI_DLOG("startup", "address fence %s", fenced ? "complete"
             : "abandoned: a process died before joining it; fetching each address");
  if (fence->done.load(std::memory_order_acquire)) delete fence;

  // Each address: from the fence's data when it completed (in the local cache at once), else
  // from the daemon as each process publishes it.
  std::vector<Pending*> gets(static_cast<size_t>(size_), nullptr);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    auto* g = new Pending(this);
    PMIX_LOAD_PROCID(&g->proc, nspace_.c_str(), static_cast<pmix_rank_t>(r));
    gets[static_cast<size_t>(r)] = g;
    if (PMIx_Get_nb(&g->proc, kAddressKey, nullptr, 0, on_value, g) != PMIX_SUCCESS) {
      g->status = PMIX_ERR_NOT_FOUND;
      g->done.store(true, std::memory_order_release);
    }
  }
  // Done when every address arrived or its process was reported dead. A get that failed for a
  // process not (yet) reported dead waits for that report, but not forever.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool timed_out = false;
  auto resolved = [&](int r) {
    const Pending* g = gets[static_cast<size_t>(r)];
    if (g == nullptr) return true;
    if (g->done.load(std::memory_order_acquire) && g->status == PMIX_SUCCESS) return true;
    return was_reported(r);
  };
  wait_until_event([&] {
    bool all_in = true;
    bool failed_get = false;
    for (int r = 0; r < size_ && all_in; ++r) {
      all_in = resolved(r);
      const Pending* g = gets[static_cast<size_t>(r)];
      failed_get = failed_get || (g != nullptr && g->done.load(std::memory_order_acquire) &&
                                  g->status != PMIX_SUCCESS);
    }
    if (!all_in && failed_get && std::chrono::steady_clock::now() > give_up) timed_out = true;
    return all_in || timed_out;
  });
  bool ok = true;
  for (int r = 0; r < size_; ++r) {
    Pending* g = gets[static_cast<size_t>(r)];
    if (g == nullptr) continue;
    const bool got = g->done.load(std::memory_order_acquire) && g->status == PMIX_SUCCESS;
    if (got) {
      (*all)[static_cast<size_t>(r)] = std::move(g->bytes);
    } else if (was_reported(r)) {
      FTMPI_DLOG("startup", "process %d died before publishing its address", r);
    } else if (ok) {
      ok = false;
      *err = "no fabric address published by process " + std::to_string(r) + " (" +
             PMIx_Error_string(g->status) + ")";
    }
    if (g->done.load(std::memory_order_acquire)) delete g;  // else PMIx still holds it
  }
  return ok;
}

}  // namespace ftmpi
