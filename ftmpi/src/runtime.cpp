#include "runtime.h"

#include <pmix.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/tcp_nodelay.h"

namespace ftmpi {
namespace {

// Read by PMIx's event thread (on_proc_failure), set by the thread that initializes and
// finalizes.
std::atomic<Runtime*> g_runtime_for_events{nullptr};

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

// What a believable failure event must carry; written before the handler is registered and
// only read by it afterwards. Never destroyed: a process that exits without MPI_Finalize runs
// the static destructors while PMIx's event thread may still be in the handler (ASan saw it
// read a freed seal under MPICH's ft/multi_isendalive, whose ranks call exit(1)).
// g_event_seal: FTMPI_EVENT_SEAL from our daemon; empty under another launcher.
std::string& g_event_seal = *new std::string;
std::string& g_nspace = *new std::string;

// The largest process index a job can have (the daemon's limit: 16-bit PMIx local ranks).
constexpr pmix_rank_t kMaxProcIndex = 65535;

bool same_nspace(const pmix_proc_t& p) {
  return g_nspace == std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

// Only our own daemon may declare a process dead (SPEC 5.2). Any client of the PMIx server
// can call PMIx_Notify_event, and PMIx hands its event to every process of the namespace
// exactly like the daemon's, so an event counts only if it carries the job's seal (ftmpid puts
// it in every failure event and in our environment, nowhere else) and names plausible
// processes of our own job. Under another PMIx launcher (no seal) the source checks still apply.
// One event may name several processes (PMIX_EVENT_AFFECTED_PROCS: every rank of a lost host);
// they are returned together so that the library marks them in one transition. A name that is
// not a process of our job (other namespace, wildcard, out of range) is ignored on its own.
std::vector<int> believable_failures(const pmix_proc_t* source, const pmix_info_t info[], size_t ninfo) {
  const pmix_proc_t* affected = nullptr;
  const pmix_proc_t* many = nullptr;
  size_t nmany = 0;
  bool sealed = false;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC &&
        info[i].value.data.proc != nullptr) {
      affected = info[i].value.data.proc;
    } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
               info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != nullptr &&
               info[i].value.data.darray->type == PMIX_PROC &&
               info[i].value.data.darray->array != nullptr) {
      many = static_cast<const pmix_proc_t*>(info[i].value.data.darray->array);
      nmany = info[i].value.data.darray->size;
    } else if (PMIX_CHECK_KEY(&info[i], "ftmpi.seal") && info[i].value.type == PMIX_STRING &&
               info[i].value.data.string != nullptr) {
      sealed = !g_event_seal.empty() && g_event_seal == info[i].value.data.string;
    }
  }
  std::vector<int> out;
  if (!g_event_seal.empty() && !sealed) return out;
  auto take = [&out](const pmix_proc_t& p) {
    if (p.rank > kMaxProcIndex || !same_nspace(p)) return;  // also wildcard/undef
    for (int r : out) {
      if (r == static_cast<int>(p.rank)) return;
    }
    out.push_back(static_cast<int>(p.rank));
  };
  if (many != nullptr) {
    for (size_t i = 0; i < nmany && i <= kMaxProcIndex; ++i) take(many[i]);
  }
  if (affected != nullptr) {
    take(*affected);  // the first of the list again for old senders; dropped as a duplicate
  } else if (many == nullptr && source != nullptr) {
    take(*source);  // older runtimes name the dead process as source
  }
  return out;
}

// Runs on PMIx's event thread: check, record and return at once.
void on_proc_failure(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void* cbdata) {
  std::vector<int> failed = believable_failures(source, info, ninfo);
  Runtime* runtime = g_runtime_for_events.load(std::memory_order_acquire);
  if (!failed.empty() && runtime != nullptr) runtime->push_failures(failed);
  if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

// libfabric's psm provider pulls in the InfiniPath library, whose load-time constructor
// installs handlers for SIGSEGV, SIGTERM, ... that exit 1, hiding how a rank died (issue 16
// item 6). ftmpid sets these in the environment of its ranks; this covers other launchers when
// libfabric is loaded after MPI_Init starts (a library linked at start-up has read them already).
void keep_vendor_signal_handlers_out() {
  if (knobs::text(knobs::Id::vendor_backtrace) == "1") return;
  setenv("IPATH_NO_BACKTRACE", "1", 0);
  setenv("HFI_NO_BACKTRACE", "1", 0);
}

}  // namespace

bool Runtime::init(std::string* err) {
  keep_vendor_signal_handlers_out();
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
  // Requests to the daemon (fence, spawn, get) are small writes on a loopback TCP socket.
  if (int port = proto::pmix_server_port(); port != 0) {
    (void)proto::disable_nagle_on_tcp_sockets(port);
  }
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

  rebuild_plan_ = knobs::text(knobs::Id::rebuild_plan);
  // Test only: see failure_delay_.
  if (long long ms = knobs::integer(knobs::Id::test_delay_failure_events_ms); ms > 0) {
    failure_delay_ = std::chrono::milliseconds(ms);
  }

  g_nspace = nspace_;
  if (auto seal = knobs::raw(knobs::Id::event_seal)) {
    g_event_seal = *seal;  // left in the environment: unsetenv races PMIx's threads' getenv
  }
  g_runtime_for_events.store(this, std::memory_order_release);
  pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
  // Without a callback the registration blocks and returns the handler's reference (>= 0).
  const pmix_status_t ref =
      PMIx_Register_event_handler(codes, 1, nullptr, 0, on_proc_failure, nullptr, nullptr);
  if (ref >= 0) event_handler_ = ref;
  return true;
}

Runtime::~Runtime() {
  if (connected_) release_event_handler();
}

// PMIx's event thread runs the handlers one at a time, and it is the thread that removes one:
// once the removal's callback has run, on_proc_failure is not running and never will again.
// Waited for at most 2 s (a wedged event thread must not hang the exit).
void Runtime::release_event_handler() {
  g_runtime_for_events.store(nullptr, std::memory_order_release);
  if (event_handler_ < 0) return;
  static std::atomic<bool> removed;  // static: a callback later than the 2 s writes somewhere valid
  removed.store(false, std::memory_order_relaxed);
  auto done = [](pmix_status_t, void* flag) {
    static_cast<std::atomic<bool>*>(flag)->store(true, std::memory_order_release);
  };
  if (PMIx_Deregister_event_handler(static_cast<size_t>(event_handler_), done, &removed) ==
      PMIX_SUCCESS) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!removed.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) {
      usleep(200);
    }
  }
  event_handler_ = -1;
}

// exchange_addresses: runtime_startup.cpp.

bool Runtime::publish_address(const std::vector<std::uint8_t>& mine, std::string* err) {
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = reinterpret_cast<char*>(const_cast<std::uint8_t*>(mine.data()));
  value.data.bo.size = mine.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, kAddressKey, &value);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    *err = std::string("publishing the fabric address failed: ") + PMIx_Error_string(rc);
    return false;
  }
  return true;
}

bool Runtime::lookup_address(std::uint32_t index, int timeout_ms, std::vector<std::uint8_t>* out,
                             std::string* err) {
  if (index < prefetched_.size() && !prefetched_[index].empty()) {
    *out = prefetched_[index];
    return true;
  }
  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, nspace_.c_str(), static_cast<pmix_rank_t>(index));
  pmix_info_t info[1];
  size_t ninfo = 0;
  int seconds = (timeout_ms + 999) / 1000;
  if (timeout_ms > 0) {
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &seconds, PMIX_INT);
    ninfo = 1;
  }
  pmix_value_t* got = nullptr;
  pmix_status_t rc = PMIx_Get(&peer, kAddressKey, ninfo > 0 ? info : nullptr, ninfo, &got);
  if (ninfo > 0) PMIX_INFO_DESTRUCT(&info[0]);
  if (rc != PMIX_SUCCESS || got == nullptr || got->type != PMIX_BYTE_OBJECT) {
    *err = "no fabric address published by process " + std::to_string(index) + " (" +
           PMIx_Error_string(rc) + ")";
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
    return false;
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(got->data.bo.bytes);
  out->assign(bytes, bytes + got->data.bo.size);
  PMIX_VALUE_RELEASE(got);
  return true;
}

bool Runtime::spawn(std::uint32_t count, std::uint32_t base, const std::string& plan,
                    const std::vector<int>& ranks, std::string* err) {
  if (!connected_) {
    *err = "not started by a launcher that can start processes";
    return false;
  }
  pmix_app_t app;
  PMIX_APP_CONSTRUCT(&app);
  app.cmd = strdup("ftmpi-replacement");  // the launcher runs the job's own program
  app.maxprocs = static_cast<int>(count);
  std::string entry = "FTMPI_REBUILD_PLAN=" + plan;
  std::string replaces = "FTMPI_REPLACES=";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    replaces += (i > 0 ? "," : "") + std::to_string(ranks[i]);
  }
  app.env = static_cast<char**>(calloc(3, sizeof(char*)));  // PMIX_APP_DESTRUCT frees it
  app.env[0] = strdup(entry.c_str());
  app.env[1] = strdup(replaces.c_str());
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, "ftmpi.base", &base, PMIX_UINT32);
  pmix_nspace_t child;
  pmix_status_t rc = PMIx_Spawn(&info, 1, &app, 1, child);
  PMIX_INFO_DESTRUCT(&info);
  PMIX_APP_DESTRUCT(&app);
  if (rc != PMIX_SUCCESS) {
    *err = std::string("starting replacement processes failed: ") + PMIx_Error_string(rc);
    return false;
  }
  return true;
}

void Runtime::push_failures(const std::vector<int>& ranks) {
  {
    std::lock_guard<std::mutex> lock(failures_mutex_);
    const auto due = std::chrono::steady_clock::now() + failure_delay_;
    for (int rank : ranks) {
      failures_.push_back({rank, due});
      reported_.push_back(rank);
    }
    pending_failures_.store(true, std::memory_order_release);
  }
  wake();  // MPI_Init may be waiting for a process that will now never publish its address
}

bool Runtime::was_reported(int rank) {
  std::lock_guard<std::mutex> lock(failures_mutex_);
  for (int r : reported_) {
    if (r == rank) return true;
  }
  return false;
}

std::size_t Runtime::reported_count() {
  std::lock_guard<std::mutex> lock(failures_mutex_);
  return reported_.size();
}

void Runtime::wake() {
  std::lock_guard<std::mutex> lock(wait_mutex_);
  wait_cv_.notify_all();
}

std::vector<int> Runtime::take_failures() {
  std::lock_guard<std::mutex> lock(failures_mutex_);
  std::vector<int> out;
  if (failure_delay_.count() == 0) {
    for (const PendingFailure& f : failures_) out.push_back(f.rank);
    failures_.clear();
  } else {  // test hook: only what has been held back long enough, in arrival order
    const auto now = std::chrono::steady_clock::now();
    std::size_t kept = 0;
    for (const PendingFailure& f : failures_) {
      if (f.due <= now) {
        out.push_back(f.rank);
      } else {
        failures_[kept++] = f;
      }
    }
    failures_.resize(kept);
  }
  pending_failures_.store(!failures_.empty(), std::memory_order_relaxed);
  return out;
}

void Runtime::finalize() {
  if (!connected_) return;
  g_runtime_for_events.store(nullptr, std::memory_order_release);
  event_handler_ = -1;  // PMIx_Finalize ends its event thread, handlers and all
  PMIx_Finalize(nullptr, 0);
  connected_ = false;
}

void Runtime::abort(int code, const std::string& reason) {
  std::fflush(stdout);
  if (connected_) {
    // mpirun prints "ftmpi: rank R aborted the job with code C: reason" and kills the job.
    PMIx_Abort(code, reason.c_str(), nullptr, 0);
    // If nobody kills us within a few seconds, nobody printed it either: leave on our own.
    sleep(5);
  }
  std::fprintf(stderr, "ftmpi: rank %d aborted the job with code %d: %s\n", rank_, code,
               reason.c_str());
  _exit(code == 0 ? 1 : code);
}

}  // namespace ftmpi
