// Hot spares in a job on several hosts (issue 17 item 5; one host: job_spares.cpp, mpirun's
// side: tools/mpirun/spare_hub.h). mpirun alone decides which process index each spare sits on
// and on which host, because the indices are the job's (every host's replacements take them in
// order) and only mpirun sees every host. A daemon starts, owns and restarts the spares it was
// told to keep (spare_indices), and a spawn_place that puts one of their indices on this host
// hands that spare the rank (JobSupervisor::spawn_place), exactly as on one host. A spare's
// index that went elsewhere or was skipped retires it. Nothing here tops up by itself: mpirun
// sends the new indices (after a repair, or when a host with spares is lost).
#include <chrono>

#include "ftmpi/debug_log.h"
#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

void JobSupervisor::spare_indices(std::uint64_t client, const proto::SpareIndices& m) {
    Job* job = job_for_client(client);
    if (job == nullptr || !job->slice || job->phase != JobPhase::running || job->spares_wanted == 0) return;
    if (m.delay_ms == 0) return start_spares_at(job->id, m.indices);
    const std::string id = job->id;
    loop_.add_timer(std::chrono::milliseconds(m.delay_ms),
                    [this, id, indices = m.indices] { start_spares_at(id, indices); });
}

void JobSupervisor::start_spares_at(const std::string& job_id, const std::vector<std::uint32_t>& indices) {
    Job* job = job_by_id(job_id);
    if (job == nullptr || job->phase != JobPhase::running || job->spares_wanted == 0 || job->released) return;
    for (std::uint32_t index : indices) {
        // Taken by a process meanwhile (a repair came before a delayed top-up), or kept already.
        if (index < job->ranks.size() || job->spares.count(index) != 0 || index >= kMaxSpareIndex) continue;
        std::string why;
        if (start_spare(*job, index, why) != Status::ok)
            FTMPID_WARN("job %s: cannot start a hot spare on process index %u: %s", job->id.c_str(), index,
                        why.c_str());
    }
}

}  // namespace ftmpi::daemon
