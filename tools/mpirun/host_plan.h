// Where a job runs: the hosts (--hostfile, --host, or the Slurm allocation), which rank goes to
// which host (--map-by slot|node), how a daemon is started on a remote host (ssh, a
// launcher-exec program, or srun) and the address remote daemons connect back to.
// Pure decisions: nothing here starts a process or opens a connection that stays open, so every
// function is unit-tested in-process (tests/unit/tools/test_host_plan.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftmpi::mpirun {

struct Options;

// ok, or why the input is refused: bad_syntax/unreadable are usage errors (mpirun exits 2);
// no_launcher (ssh/srun/launcher-exec not executable) and no_address (no connect-back address)
// are errors of the environment (mpirun exits 1).
enum class [[nodiscard]] HostStatus { ok, bad_syntax, unreadable, no_launcher, no_address };

enum class MapBy { slot, node };

struct Host {
    std::string name;            // as the user spelled it (the first spelling, for the local host)
    std::uint32_t slots = 1;
    bool local = false;          // this machine: its ranks run under the local daemon, no launcher
};

struct Placement {
    // Only the hosts that received at least one rank, in the order they were listed; a host
    // index is a position in this vector (one daemon per host).
    std::vector<Host> hosts;
    std::vector<std::uint32_t> host_of_rank;  // rank -> index into hosts

    // Index of this machine's host, if any rank runs here.
    std::optional<std::uint32_t> local_index() const;
    bool has_remote() const;
    // Ranks placed on host `index`, in rank order.
    std::vector<std::uint32_t> ranks_of(std::uint32_t index) const;
};

// ---- hosts -------------------------------------------------------------------------------

// "name[:slots]" entries of --host (already split at commas). Adds to `hosts` (merging).
HostStatus parse_host_list(const std::vector<std::string>& entries, std::vector<Host>& hosts,
                           std::string& why);

// Lines "name [slots=N] [max_slots=N]" (Open MPI) or "name[:N]" (MPICH); '#' starts a comment;
// blank lines are skipped. Adds to `hosts` (merging).
HostStatus parse_hostfile(const std::string& path, std::vector<Host>& hosts, std::string& why);

// Slurm's compressed host list: "n[01-03,7],m5" -> n01 n02 n03 n7 m5 (zero padding kept;
// several bracket groups in one name expand as a product). At most 65536 names.
HostStatus expand_slurm_nodelist(std::string_view list, std::vector<std::string>& names,
                                 std::string& why);

// SLURM_TASKS_PER_NODE: "2(x3),1" -> 2 2 2 1.
HostStatus expand_slurm_tasks(std::string_view list, std::vector<std::uint32_t>& tasks,
                              std::string& why);

// Every host of the job: --hostfile, then --host entries; with neither, the Slurm allocation
// (SLURM_JOB_NODELIST; slots from SLURM_TASKS_PER_NODE, or SLURM_JOB_CPUS_PER_NODE inside a job
// step or when the former does not cover every node; else 1) if mpirun runs inside one;
// else empty (the local host alone). Duplicates merge (slots add); every spelling of this
// machine merges into one local host. `from_slurm` tells whether the Slurm allocation was used.
HostStatus collect_hosts(const Options& opts, std::vector<Host>& hosts, bool& from_slurm,
                         std::string& why);

// True for localhost, this machine's host name (short or full) or one of its addresses.
bool is_local_host(const std::string& name);

// ---- placement ---------------------------------------------------------------------------

// slot: fill each host with its slots, in order; node: one rank per host in turn, skipping
// hosts whose slots are full. Once every slot is taken, further ranks wrap around the same way
// (oversubscription). `hosts` empty means this machine alone.
Placement place_ranks(std::vector<Host> hosts, std::uint32_t nprocs, MapBy map_by);

// Whether some host runs more ranks than it has cores: this machine's host is measured
// (`local_cpus`, the CPUs mpirun may run on), another host has its listed slots. The job's
// collectives choose algorithms with fewer waits then (FTMPI_OVERSUBSCRIBED); the one answer
// goes to every rank, since all members of a collective must choose alike.
bool oversubscribed(const Placement& plan, std::uint32_t local_cpus);

// What --display-map prints: one line per host that got ranks (index, name, this machine or
// not, slots, ranks as ranges "0-3,8").
std::string describe_placement(const Placement& plan);

// ---- launchers ---------------------------------------------------------------------------

enum class LauncherKind { ssh, exec, slurm };

struct LauncherChoice {
    LauncherKind kind = LauncherKind::ssh;
    std::string program;  // absolute path of ssh, of the launcher-exec program, or of srun
};

// --launcher-exec PATH (with --launcher slurm: PATH replaces srun and gets srun's arguments,
// Hydra's convention) > --launcher ssh|slurm > FTMPI_LAUNCHER_EXEC > slurm when the hosts came
// from the Slurm allocation (as Hydra and PRRTE do) > ssh. The program is looked up in PATH when
// it has no '/' and returned as an absolute path; a bad launcher-exec, or slurm outside an
// allocation (no SLURM_JOB_ID), is bad_syntax; a missing ssh/srun no_launcher.
HostStatus choose_launcher(const Options& opts, bool hosts_from_slurm, LauncherChoice& out,
                           std::string& why);

// The argv that starts `remote_words` on `host`:
//   ssh:   ssh -x -o BatchMode=yes HOST quoted-words...
//   exec:  PATH HOST quoted-words...            (exactly like ssh)
//   slurm: srun --nodes=1 --ntasks=1 --nodelist=HOST ... words...   (srun execs them; no shell)
// Words for ssh and exec are quoted for the POSIX shell that runs them on HOST.
std::vector<std::string> launcher_argv(const LauncherChoice& launcher, const std::string& host,
                                       const std::vector<std::string>& remote_words);

// `word` as one POSIX shell word: unchanged if it holds only [A-Za-z0-9_@%+=:,./-] (and is not
// empty), else in single quotes with each embedded ' written as '\''.
std::string shell_quote(std::string_view word);

// ---- connect-back address ----------------------------------------------------------------

// The IPv4 address remote daemons connect back to. `iface_opt` (--iface, else FTMPI_IFACE; may
// be empty) is an interface name (its first IPv4 address) or a CIDR "a.b.c.d/n" (the first
// local address inside it). Without it: the local address a UDP socket connected to
// `first_remote` gets (the route the kernel picks), refused if that is 127.0.0.1 (the loopback
// device cannot be reached from another host).
HostStatus connect_back_address(const std::string& iface_opt, const std::string& first_remote,
                                std::string& ipv4_out, std::string& why);

}  // namespace ftmpi::mpirun
