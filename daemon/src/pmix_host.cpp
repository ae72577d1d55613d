// PMIx server set-up and per-job registration.
#include "pmix_host.h"

#include <pmix.h>
#include <pmix_server.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ftmpi_proto/tcp_nodelay.h"
#include "log.h"
#include "pmix_module.h"

namespace ftmpi::daemon {

namespace {

// Registration calls complete on PMIx's thread; the daemon must not fork a client before its
// registration is done, so the loop waits here briefly (PMIx never waits on the loop).
struct Completion {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t status = PMIX_SUCCESS;

    static void callback(pmix_status_t st, void* cbdata) noexcept {
        auto* c = static_cast<Completion*>(cbdata);
        std::lock_guard<std::mutex> lock(c->mu);
        c->status = st;
        c->done = true;
        c->cv.notify_all();
    }
    pmix_status_t wait() {
        std::unique_lock<std::mutex> lock(mu);
        if (!cv.wait_for(lock, std::chrono::seconds(10), [this] { return done; })) return PMIX_ERR_TIMEOUT;
        return status;
    }
};

// PMIx may still call back after we gave up waiting, so a Completion lives on the heap and is
// deliberately leaked in that (never observed) case rather than freed under PMIx's feet.
class CompletionRef {
public:
    CompletionRef() : c_(new Completion) {}
    ~CompletionRef() {
        if (c_ != nullptr) delete c_;
    }
    CompletionRef(const CompletionRef&) = delete;
    CompletionRef& operator=(const CompletionRef&) = delete;
    void* cbdata() { return c_; }
    pmix_status_t wait() {
        pmix_status_t st = c_->wait();
        if (st == PMIX_ERR_TIMEOUT) c_ = nullptr;
        return st;
    }

private:
    Completion* c_;
};

// Owns an info list and the array it was converted to.
class InfoArray {
public:
    InfoArray() : list_(PMIx_Info_list_start()) { std::memset(&array_, 0, sizeof array_); }
    ~InfoArray() {
        PMIx_Info_list_release(list_);
        PMIx_Data_array_destruct(&array_);
    }
    InfoArray(const InfoArray&) = delete;
    InfoArray& operator=(const InfoArray&) = delete;

    void add(const char* key, const void* value, pmix_data_type_t type) {
        if (PMIx_Info_list_add(list_, key, value, type) != PMIX_SUCCESS) ok_ = false;
    }
    void add_u32(const char* key, std::uint32_t v) { add(key, &v, PMIX_UINT32); }
    void add_u16(const char* key, std::uint16_t v) { add(key, &v, PMIX_UINT16); }
    void add_str(const char* key, const std::string& v) { add(key, v.c_str(), PMIX_STRING); }
    void add_rank(const char* key, pmix_rank_t v) { add(key, &v, PMIX_PROC_RANK); }
    void add_bool(const char* key, bool v) { add(key, &v, PMIX_BOOL); }

    // Valid until destruction; nullptr if anything failed.
    pmix_data_array_t* convert() {
        if (!ok_ || PMIx_Info_list_convert(list_, &array_) != PMIX_SUCCESS) return nullptr;
        return &array_;
    }
    static pmix_info_t* infos(pmix_data_array_t* a) { return static_cast<pmix_info_t*>(a->array); }

private:
    void* list_;
    pmix_data_array_t array_;
    bool ok_ = true;
};

pmix_proc_t make_proc(const std::string& nspace, pmix_rank_t rank) {
    pmix_proc_t p;
    std::memset(&p, 0, sizeof p);
    std::strncpy(p.nspace, nspace.c_str(), PMIX_MAX_NSLEN);
    p.rank = rank;
    return p;
}

// Frees what PMIx_Notify_event needed to keep alive until it was done with it.
struct NotifyHold {
    pmix_info_t* info = nullptr;
    size_t ninfo = 0;
    static void release(pmix_status_t, void* cbdata) noexcept {
        auto* h = static_cast<NotifyHold*>(cbdata);
        PMIX_INFO_FREE(h->info, h->ninfo);
        delete h;
    }
};

}  // namespace

PmixHost::~PmixHost() { finalize(); }

Status PmixHost::init(const std::string& tmpdir, void* hwloc_topology, std::string& why) {
    // The shared-memory key/value store (gds ds21/ds12) can deadlock the server when clients
    // are killed during start-up (openpmix issues 1233, 4269), which fault tests do all the
    // time; the hash store is slower for huge jobs but safe. A user setting wins.
    setenv("PMIX_MCA_gds", "hash", 0);
    InfoArray info;
    info.add_str(PMIX_SERVER_TMPDIR, tmpdir);
    info.add_str(PMIX_SYSTEM_TMPDIR, tmpdir);
    info.add_str(PMIX_SERVER_NSPACE, "ftmpid-" + std::to_string(getpid()));
    info.add_rank(PMIX_SERVER_RANK, 0);
    pmix_topology_t topo;
    if (hwloc_topology != nullptr) {
        // Start-up: without it PMIx_server_init loads its own topology (tens of ms).
        topo.source = const_cast<char*>("hwloc");
        topo.topology = hwloc_topology;
        info.add(PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
    }
    pmix_data_array_t* a = info.convert();
    if (a == nullptr) {
        why = "cannot build PMIx server info";
        return Status::pmix_failed;
    }
    pmix_status_t rc = PMIx_server_init(pmix_module_bind(&queue_), InfoArray::infos(a), a->size);
    if (rc != PMIX_SUCCESS) {
        why = std::string("PMIx_server_init failed: ") + PMIx_Error_string(rc);
        return Status::pmix_failed;
    }
    initialized_ = true;
    // The PMIx listener is open now; the clients' sockets accepted from it inherit this.
    (void)proto::disable_nagle_on_tcp_sockets();
    return Status::ok;
}

void PmixHost::finalize() {
    if (!initialized_) return;
    initialized_ = false;
    PMIx_server_finalize();
}

std::vector<std::uint32_t> JobMap::local_ranks() const {
    std::vector<std::uint32_t> seen(host_names.size(), 0);
    std::vector<std::uint32_t> out;
    out.reserve(host_of_rank.size());
    for (std::uint32_t h : host_of_rank) out.push_back(h < seen.size() ? seen[h]++ : 0);
    return out;
}

Status PmixHost::register_job(const std::string& nspace, const JobMap& map, std::string& why) {
    const auto nprocs = static_cast<std::uint32_t>(map.host_of_rank.size());
    const auto nhosts = static_cast<std::uint32_t>(map.host_names.size());
    const std::vector<std::uint32_t> local_rank = map.local_ranks();
    // PMIx's maps: host names comma-separated; ranks per host comma-separated, hosts ';'.
    std::vector<std::string> ranks_of_host(nhosts);
    std::uint32_t local_size = 0;
    for (std::uint32_t r = 0; r < nprocs; ++r) {
        std::string& list = ranks_of_host[map.host_of_rank[r]];
        list += (list.empty() ? "" : ",") + std::to_string(r);
        if (map.host_of_rank[r] == map.my_host) ++local_size;
    }
    std::string hosts, ppn;
    for (std::uint32_t h = 0; h < nhosts; ++h) {
        hosts += (h ? "," : "") + map.host_names[h];
        ppn += (h ? ";" : "") + ranks_of_host[h];
    }
    const std::string& my_name = map.host_names[map.my_host];
    const std::string& ranks = ranks_of_host[map.my_host];
    char* node_map = nullptr;
    char* proc_map = nullptr;
    if (PMIx_generate_regex(hosts.c_str(), &node_map) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ppn.c_str(), &proc_map) != PMIX_SUCCESS) {
        std::free(node_map);
        why = "PMIx cannot encode the node/process map";
        return Status::pmix_failed;
    }

    InfoArray job;
    job.add_u32(PMIX_UNIV_SIZE, nprocs);
    job.add_u32(PMIX_JOB_SIZE, nprocs);
    job.add_u32(PMIX_MAX_PROCS, nprocs);
    job.add_u32(PMIX_LOCAL_SIZE, local_size);
    job.add_u32(PMIX_NODE_SIZE, local_size);
    job.add_u32(PMIX_NUM_NODES, nhosts);
    job.add_u32(PMIX_NODEID, map.my_host);
    job.add_str(PMIX_JOBID, nspace);
    job.add_str(PMIX_LOCAL_PEERS, ranks);
    job.add_str(PMIX_HOSTNAME, my_name);
    job.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
    job.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    job.add_u32(PMIX_APPNUM, 0);
    job.add_bool(PMIX_SPAWNED, false);
    std::free(node_map);
    std::free(proc_map);

    // Per-process data: one PMIX_PROC_DATA array per rank, PMIX_RANK first (PMIx's rule).
    for (std::uint32_t r = 0; r < nprocs; ++r) {
        InfoArray proc;
        proc.add_rank(PMIX_RANK, r);
        proc.add_rank(PMIX_GLOBAL_RANK, r);
        proc.add_u16(PMIX_LOCAL_RANK, static_cast<std::uint16_t>(local_rank[r]));
        proc.add_u16(PMIX_NODE_RANK, static_cast<std::uint16_t>(local_rank[r]));
        proc.add_u32(PMIX_APPNUM, 0);
        proc.add_u32(PMIX_NODEID, map.host_of_rank[r]);
        proc.add_str(PMIX_HOSTNAME, map.host_names[map.host_of_rank[r]]);
        pmix_data_array_t* pa = proc.convert();
        if (pa == nullptr) {
            why = "cannot build PMIx per-process info";
            return Status::pmix_failed;
        }
        job.add(PMIX_PROC_DATA, pa, PMIX_DATA_ARRAY);
    }
    pmix_data_array_t* ja = job.convert();
    if (ja == nullptr) {
        why = "cannot build PMIx job info";
        return Status::pmix_failed;
    }
    CompletionRef done;
    // The second argument is the number of LOCAL clients PMIx should expect on this server.
    pmix_status_t rc = PMIx_server_register_nspace(nspace.c_str(), static_cast<int>(local_size), InfoArray::infos(ja),
                                                   ja->size, Completion::callback, done.cbdata());
    if (rc == PMIX_SUCCESS) rc = done.wait();
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        why = std::string("PMIx_server_register_nspace failed: ") + PMIx_Error_string(rc);
        return Status::pmix_failed;
    }
    return Status::ok;
}

Status PmixHost::prepare_client(const std::string& nspace, std::uint32_t rank, uid_t uid, gid_t gid,
                                std::vector<std::string>& env, std::string& why) {
    pmix_proc_t proc = make_proc(nspace, rank);
    CompletionRef done;
    pmix_status_t rc = PMIx_server_register_client(&proc, uid, gid, nullptr, Completion::callback, done.cbdata());
    if (rc == PMIX_SUCCESS) rc = done.wait();
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        why = std::string("PMIx_server_register_client failed: ") + PMIx_Error_string(rc);
        return Status::pmix_failed;
    }
    char** penv = nullptr;
    rc = PMIx_server_setup_fork(&proc, &penv);
    if (rc != PMIX_SUCCESS) {
        why = std::string("PMIx_server_setup_fork failed: ") + PMIx_Error_string(rc);
        return Status::pmix_failed;
    }
    for (char** p = penv; p != nullptr && *p != nullptr; ++p) {
        env.emplace_back(*p);
        std::free(*p);
    }
    std::free(penv);
    return Status::ok;
}

void PmixHost::forget_client(const std::string& nspace, std::uint32_t rank) {
    if (!initialized_) return;
    pmix_proc_t proc = make_proc(nspace, rank);
    CompletionRef done;
    PMIx_server_deregister_client(&proc, Completion::callback, done.cbdata());
    if (done.wait() != PMIX_SUCCESS) FTMPID_WARN("deregistering process %u did not complete", rank);
}

void PmixHost::deregister_job(const std::string& nspace) {
    if (!initialized_) return;
    CompletionRef done;
    PMIx_server_deregister_nspace(nspace.c_str(), Completion::callback, done.cbdata());
    if (done.wait() != PMIX_SUCCESS) FTMPID_WARN("deregistering namespace %s did not complete", nspace.c_str());
}

namespace {
struct ModexAsk {
    UpcallQueue* queue;
    Upcall answer;
};
void on_local_modex(pmix_status_t status, char* data, size_t size, void* cbdata) noexcept {
    auto* ask = static_cast<ModexAsk*>(cbdata);
    try {
        ask->answer.status = status;
        if (data != nullptr) ask->answer.data.assign(data, data + size);
        ask->queue->push(std::move(ask->answer));
    } catch (...) {
        // The asking host times out on its own (PMIx_Get's timeout).
    }
    delete ask;
}
}  // namespace

void PmixHost::request_local_modex(const std::string& nspace, std::uint32_t rank, std::uint32_t request,
                                   std::uint32_t origin_host) {
    auto* ask = new ModexAsk{&queue_, Upcall{}};
    ask->answer.kind = UpcallKind::modex_answer;
    ask->answer.nspace = nspace;
    ask->answer.rank = rank;
    ask->answer.base = request;
    ask->answer.count = origin_host;
    pmix_proc_t proc = make_proc(nspace, rank);
    pmix_status_t rc = PMIx_server_dmodex_request(&proc, on_local_modex, ask);
    if (rc != PMIX_SUCCESS) on_local_modex(rc, nullptr, 0, ask);  // the callback will not run
}

Status PmixHost::notify_proc_aborted(const std::string& nspace, std::uint32_t dead_rank, const std::string& seal) {
    return notify_procs_aborted(nspace, std::vector<std::uint32_t>{dead_rank}, seal);
}

Status PmixHost::notify_procs_aborted(const std::string& nspace, const std::vector<std::uint32_t>& dead_ranks,
                                      const std::string& seal) {
    if (dead_ranks.empty()) return Status::ok;
    pmix_proc_t first = make_proc(nspace, dead_ranks[0]);
    auto* hold = new NotifyHold;
    hold->ninfo = dead_ranks.size() > 1 ? 3 : 2;
    PMIX_INFO_CREATE(hold->info, hold->ninfo);
    PMIx_Info_load(&hold->info[0], PMIX_EVENT_AFFECTED_PROC, &first, PMIX_PROC);
    PMIx_Info_load(&hold->info[1], "ftmpi.seal", seal.c_str(), PMIX_STRING);
    if (dead_ranks.size() > 1) {
        // Info_load copies the array (and its procs) into the info; ours is freed below.
        std::vector<pmix_proc_t> procs;
        procs.reserve(dead_ranks.size());
        for (std::uint32_t r : dead_ranks) procs.push_back(make_proc(nspace, r));
        pmix_data_array_t darray;
        darray.type = PMIX_PROC;
        darray.size = procs.size();
        darray.array = procs.data();
        PMIx_Info_load(&hold->info[2], PMIX_EVENT_AFFECTED_PROCS, &darray, PMIX_DATA_ARRAY);
    }
    // The source must belong to the job's namespace for PMIX_RANGE_NAMESPACE to reach it.
    pmix_status_t rc = PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &first, PMIX_RANGE_NAMESPACE, hold->info,
                                         hold->ninfo, NotifyHold::release, hold);
    if (rc != PMIX_SUCCESS) {
        // OPERATION_SUCCEEDED also means the callback will not run.
        NotifyHold::release(rc, hold);
        if (rc != PMIX_OPERATION_SUCCEEDED) {
            FTMPID_WARN("PMIx_Notify_event(%s, %zu process(es) from rank %u) failed: %s", nspace.c_str(),
                        dead_ranks.size(), dead_ranks[0], PMIx_Error_string(rc));
            return Status::pmix_failed;
        }
    }
    return Status::ok;
}

}  // namespace ftmpi::daemon
