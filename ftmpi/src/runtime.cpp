#include "runtime.h"

#include <pmix.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi {
namespace {

Runtime* g_runtime_for_events = nullptr;

bool get_u32(const pmix_proc_t* proc, const char* key, std::uint32_t* out) {
  pmix_value_t* val = nullptr;
  if (PMIx_Get(proc, key, nullptr, 0, &val) != PMIX_SUCCESS || val == nullptr) return false;
  bool ok = true;
  switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_INT: *out = static_cast<std::uint32_t>(val->data.integer); break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    default: ok = false;
  }
  PMIX_VALUE_RELEASE(val);
  return ok;
}

// Runs on PMIx's event thread: record and return at once.
void on_proc_failure(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void* cbdata) {
  int failed = -1;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
      failed = static_cast<int>(info[i].value.data.proc->rank);
    }
  }
  if (failed < 0 && source != nullptr) failed = static_cast<int>(source->rank);
  if (failed >= 0 && g_runtime_for_events != nullptr) g_runtime_for_events->push_failure(failed);
  if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

}  // namespace

bool Runtime::init(std::string* err) {
  // Without a PMIx server in our environment we are a singleton; don't let PMIx go looking.
  if (std::getenv("PMIX_NAMESPACE") == nullptr && std::getenv("PMIX_SERVER_URI41") == nullptr &&
      std::getenv("PMIX_SERVER_URI4") == nullptr && std::getenv("PMIX_SERVER_URI3") == nullptr &&
      std::getenv("PMIX_SERVER_URI2") == nullptr) {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    hostname_ = host;
    *err = "not started by a PMIx launcher";
    return false;
  }
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    *err = std::string("PMIx_Init failed: ") + PMIx_Error_string(rc);
    return false;
  }
  connected_ = true;
  rank_ = static_cast<int>(me.rank);
  nspace_ = me.nspace;
  pmix_proc_t wildcard;
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  std::uint32_t v = 0;
  if (!get_u32(&wildcard, PMIX_JOB_SIZE, &v)) {
    *err = "PMIx server did not provide " PMIX_JOB_SIZE;
    return false;
  }
  size_ = static_cast<int>(v);
  universe_size_ = get_u32(&wildcard, PMIX_UNIV_SIZE, &v) ? static_cast<int>(v) : size_;
  local_size_ = get_u32(&wildcard, PMIX_LOCAL_SIZE, &v) ? static_cast<int>(v) : size_;
  pmix_value_t* val = nullptr;
  if (PMIx_Get(&me, PMIX_HOSTNAME, nullptr, 0, &val) == PMIX_SUCCESS && val != nullptr &&
      val->type == PMIX_STRING) {
    hostname_ = val->data.string;
  } else {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    hostname_ = host;
  }
  if (val != nullptr) PMIX_VALUE_RELEASE(val);

  g_runtime_for_events = this;
  pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
  PMIx_Register_event_handler(codes, 1, nullptr, 0, on_proc_failure, nullptr, nullptr);
  return true;
}

bool Runtime::exchange_addresses(const std::vector<std::uint8_t>& mine,
                                 std::vector<std::vector<std::uint8_t>>* all, std::string* err) {
  all->assign(static_cast<size_t>(size_), {});
  if (!connected_) {
    (*all)[0] = mine;
    return true;
  }
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = reinterpret_cast<char*>(const_cast<std::uint8_t*>(mine.data()));
  value.data.bo.size = mine.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "ftmpi.addr", &value);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc == PMIX_SUCCESS) {
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(nullptr, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
  }
  if (rc != PMIX_SUCCESS) {
    *err = std::string("address exchange failed: ") + PMIx_Error_string(rc);
    return false;
  }
  for (int r = 0; r < size_; ++r) {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, nspace_.c_str(), static_cast<pmix_rank_t>(r));
    pmix_value_t* got = nullptr;
    rc = PMIx_Get(&peer, "ftmpi.addr", nullptr, 0, &got);
    if (rc != PMIX_SUCCESS || got == nullptr || got->type != PMIX_BYTE_OBJECT) {
      *err = "no fabric address published by rank " + std::to_string(r);
      if (got != nullptr) PMIX_VALUE_RELEASE(got);
      return false;
    }
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(got->data.bo.bytes);
    (*all)[static_cast<size_t>(r)].assign(bytes, bytes + got->data.bo.size);
    PMIX_VALUE_RELEASE(got);
  }
  return true;
}

void Runtime::push_failure(int rank) {
  std::lock_guard<std::mutex> lock(failures_mutex_);
  failures_.push_back(rank);
  pending_failures_.store(true, std::memory_order_release);
}

std::vector<int> Runtime::take_failures() {
  std::lock_guard<std::mutex> lock(failures_mutex_);
  std::vector<int> out;
  out.swap(failures_);
  pending_failures_.store(false, std::memory_order_relaxed);
  return out;
}

void Runtime::finalize() {
  if (!connected_) return;
  g_runtime_for_events = nullptr;
  PMIx_Finalize(nullptr, 0);
  connected_ = false;
}

void Runtime::abort(int code, const std::string& msg) {
  if (connected_) {
    PMIx_Abort(code, msg.c_str(), nullptr, 0);
    // The launcher kills us; if it does not within a few seconds, leave on our own.
    sleep(5);
  }
  std::fprintf(stderr, "%s\n", msg.c_str());
  _exit(code == 0 ? 1 : code);
}

}  // namespace ftmpi
