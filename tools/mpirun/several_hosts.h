// A job whose placement names other hosts (issue 15, design in daemon/README.md "Several
// hosts"): mpirun starts a daemon on each remote host through the launcher, reaches the local
// daemon as usual when ranks run here, gives every daemon the same job (id, PMIx namespace,
// event seal) and its slice, and then serves them all as the hub (JobMonitor).
#pragma once

#include <string>

#include "ftmpi_proto/messages.h"
#include "host_plan.h"
#include "job_monitor.h"
#include "options.h"

namespace ftmpi::mpirun {

// Returns mpirun's exit code (1 when the daemons cannot be started; `launch` as for one host).
int run_on_several_hosts(const Options& opts, const Placement& plan, const LauncherChoice& launcher,
                         const proto::LaunchJob& launch, JobMonitor& monitor);

}  // namespace ftmpi::mpirun
