// The daemon's side of PMIx: server initialisation, per-job registration, client set-up and
// failure events. Module upcalls arrive through the UpcallQueue (pmix_module.cpp); everything
// here is called from the loop thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "daemon_status.h"
#include "upcall_queue.h"

namespace ftmpi::daemon {

// Where every process of a job runs, as PMIx tells each client (host name, node id, local rank
// and local peers per process; node and process maps of all hosts). One host: one name, all 0.
struct JobMap {
    std::vector<std::string> host_names;      // real host names, index = node id
    std::vector<std::uint32_t> host_of_rank;  // index = rank; size = the job's process count
    std::uint32_t my_host = 0;                // this daemon's node id

    static JobMap one_host(const std::string& hostname, std::uint32_t nprocs) {
        return JobMap{{hostname}, std::vector<std::uint32_t>(nprocs, 0), 0};
    }
    // Index of each process among the processes of its host.
    std::vector<std::uint32_t> local_ranks() const;
};

class PmixHost {
public:
    explicit PmixHost(UpcallQueue& queue) : queue_(queue) {}
    ~PmixHost();

    // `tmpdir` must be a private directory; PMIx puts its rendezvous files there instead of
    // the shared /tmp (matters when running as root or beside other PMIx servers).
    // hwloc_topology: the daemon's loaded topology (or nullptr), handed to PMIx so that it does
    // not discover the machine a second time.
    Status init(const std::string& tmpdir, void* hwloc_topology, std::string& why);
    void finalize();

    // Registers the namespace with everything clients query (job/universe size, local peers,
    // node map, and per-process rank/local rank/node rank/hostname).
    Status register_job(const std::string& nspace, const JobMap& map, std::string& why);
    // Fills `env` (NAME=value) with the variables a client needs to find this server, and
    // registers the client so that its connection is accepted.
    Status prepare_client(const std::string& nspace, std::uint32_t rank, uid_t uid, gid_t gid,
                          std::vector<std::string>& env, std::string& why);
    void deregister_job(const std::string& nspace);
    // A client process that ended: PMIx purges its data, so its rank can be registered again
    // (a hot spare that died is restarted on its own process index).
    void forget_client(const std::string& nspace, std::uint32_t rank);

    // Tells every other process of `nspace` that `dead_rank` died (PMIX_ERR_PROC_ABORTED with
    // PMIX_EVENT_AFFECTED_PROC, range namespace), sealed with the job's `seal` (info "ftmpi.seal").
    Status notify_proc_aborted(const std::string& nspace, std::uint32_t dead_rank, const std::string& seal);
    // The same for several processes that died together (every rank of a lost host): ONE
    // event naming all of them in PMIX_EVENT_AFFECTED_PROCS (an array of pmix_proc_t), with
    // PMIX_EVENT_AFFECTED_PROC = the first for readers that know only one. The library marks
    // them in one transition, so the application repairs once.
    Status notify_procs_aborted(const std::string& nspace, const std::vector<std::uint32_t>& dead_ranks,
                                const std::string& seal);

    // Several hosts: PMIx's packed data of our process `rank` (waiting until it committed it),
    // for another host. The answer comes back through the queue as a modex_answer upcall
    // carrying `request` (in base) and `origin_host` (in count).
    void request_local_modex(const std::string& nspace, std::uint32_t rank, std::uint32_t request,
                             std::uint32_t origin_host);

private:
    UpcallQueue& queue_;
    bool initialized_ = false;
};

}  // namespace ftmpi::daemon
