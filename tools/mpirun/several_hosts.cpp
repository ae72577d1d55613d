// See several_hosts.h.
#include "several_hosts.h"

#include <unistd.h>

#include <cstdio>
#include <optional>

#include "daemon_link.h"
#include "ftmpi/debug_log.h"
#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/host_table.h"
#include "ftmpi_proto/unix_socket.h"
#include "ftmpi_proto/hub_messages.h"
#include "output_relay.h"
#include "remote_daemons.h"

namespace ftmpi::mpirun {

namespace {

int fail(const std::string& why) {
    const std::string s = "ftmpi: " + why + "\n";
    write_fd(STDERR_FILENO, s.data(), s.size());
    return 1;
}

std::string own_hostname() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

}  // namespace

int run_on_several_hosts(const Options& opts, const Placement& plan, const LauncherChoice& launcher,
                         const proto::LaunchJob& launch, JobMonitor& monitor) {
    std::string why;
    std::vector<RemoteHost> remote;
    for (std::uint32_t i = 0; i < plan.hosts.size(); ++i)
        if (!plan.hosts[i].local) remote.push_back(RemoteHost{i, plan.hosts[i].name});

    RemoteOptions ropts;
    if (connect_back_address(opts.iface, remote.front().name, ropts.listen_addr, why) != HostStatus::ok)
        return fail(why);
    ropts.interrupt_fd = monitor.signal_fd();
    ropts.heartbeat_period_ms = static_cast<int>(opts.heartbeat.period.count());
    ropts.heartbeat_timeout_ms = static_cast<int>(opts.heartbeat.timeout.count());
    RemoteDaemons daemons;
    DaemonLink local;
    // The remote daemons start while the local one is reached: their start-ups overlap.
    if (daemons.launch(remote, [&](const std::string& host, const std::vector<std::string>& words) {
            return launcher_argv(launcher, host, words);
        }, ropts, why) != LinkStatus::ok)
        return fail("cannot start the remote daemons: " + why);
    const std::optional<std::uint32_t> local_index = plan.local_index();
    if (local_index && local.connect_or_start(why) != LinkStatus::ok) return fail(why);
    // No rank here: the local daemon still carries the job for the tools (a mirror entry),
    // so that hostinfo/cominfo on mpirun's host find it. The job does not depend on it.
    bool mirror = false;
    if (!local_index) {
        mirror = local.connect_or_start(why) == LinkStatus::ok;
        if (!mirror) FTMPI_DLOG("startup", "mpirun: no local daemon for the tools: %s", why.c_str());
    }
    if (daemons.wait_connected(why) != LinkStatus::ok) return fail(why);
    FTMPI_DLOG("startup", "mpirun: every daemon of %zu hosts connected", plan.hosts.size());

    // One job, the same on every host: id, PMIx namespace (id + 128 secret bits), event seal.
    proto::JobSlice common;
    common.jobid = "ftmpi-" + std::to_string(getpid()) + "-hosts";
    std::string nspace_secret;
    if (proto::token_generate(common.event_seal) != proto::ProtoStatus::ok ||
        proto::token_generate(nspace_secret) != proto::ProtoStatus::ok)
        return fail("cannot generate the job's secrets");
    common.nspace = common.jobid + "-" + nspace_secret.substr(0, 32);
    common.host_of_rank = plan.host_of_rank;
    common.host_names.resize(plan.hosts.size());
    if (local_index) common.host_names[*local_index] = own_hostname();

    std::vector<Spoke> spokes;
    std::vector<proto::JobSlice> slices;
    for (RemoteLink& l : daemons.links()) {
        common.host_names[l.host_index] = l.hostname;
        Spoke s;
        s.fd = l.fd;
        s.decoder = l.decoder.get();
        s.host = l.host_index;
        s.host_name = l.hostname;
        s.daemon_pid = l.pid;
        s.remote = true;
        spokes.push_back(s);
        proto::JobSlice slice;
        slice.host_index = l.host_index;
        slice.net_addr = l.net_addr;
        slices.push_back(slice);
    }
    if (local_index) {
        Spoke s;
        s.fd = local.fd();
        s.decoder = &local.decoder();
        s.host = *local_index;
        s.host_name = common.host_names[*local_index];
        s.daemon_pid = local.daemon_pid();
        spokes.push_back(s);
        proto::JobSlice slice;
        slice.host_index = *local_index;
        slice.net_addr = ropts.listen_addr;  // the address the other hosts reach this one at
        slices.push_back(slice);
    }
    for (proto::JobSlice& slice : slices) {
        const std::uint32_t index = slice.host_index;
        const std::string addr = slice.net_addr;
        slice = common;
        slice.host_index = index;
        slice.net_addr = addr;
    }
    FTMPI_DLOG("startup", "mpirun: launching %u ranks on %zu hosts", launch.nprocs, plan.hosts.size());
    monitor.set_heartbeat(opts.heartbeat);
    if (local_index) monitor.set_host_table_sink(local.fd());
    if (mirror) {
        proto::JobMirror m;
        m.jobid = common.jobid;
        m.program = launch.argv.empty() ? std::string() : launch.argv[0];
        m.nprocs = launch.nprocs;
        m.comm_mode = launch.comm_mode;
        m.msg_mode = launch.msg_mode;
        if (proto::write_all(local.fd(), proto::encode(m)) == proto::ProtoStatus::ok) monitor.set_host_table_sink(local.fd());
    }
    const int code = monitor.run(std::move(spokes), slices, launch);
    daemons.close_and_reap();
    local.close_and_reap();
    return code;
}

}  // namespace ftmpi::mpirun
