// mpirun's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ftmpi_proto/heartbeat.h"
#include "ftmpi_proto/modes.h"
#include "host_plan.h"

namespace ftmpi::mpirun {

struct Options {
    std::optional<std::uint32_t> nprocs;
    std::vector<std::string> hosts;     // --host entries, "name[:slots]"
    std::string hostfile;
    MapBy map_by = MapBy::slot;
    std::optional<LauncherKind> launcher;  // --launcher ssh|slurm (see choose_launcher)
    std::string launcher_exec;              // --launcher-exec PATH
    std::string iface;                      // --iface NAME|CIDR
    bool display_map = false;               // --display-map: print the placement first
    // -x VAR (forward as is) or -x VAR=value (set); applied on top of the environment.
    std::vector<std::pair<std::string, std::optional<std::string>>> exports;
    std::optional<proto::CommMode> comm_mode;  // from the flag only; see resolve_modes()
    std::optional<proto::MsgMode> msg_mode;
    bool tag_output = false;
    double timeout_s = 0;  // 0: none
    // --spares K, else FTMPI_SPARES (resolve_spares): hot spares for REBUILD (daemon/src/job_spares.cpp).
    std::optional<std::uint32_t> spares;
    // --heartbeat-period/--heartbeat-timeout, else FTMPI_HEARTBEAT_*_MS, else the defaults;
    // checked by heartbeat_config_valid (a bad pair is a usage error).
    proto::HeartbeatConfig heartbeat;
    // --bind-to auto|core|none, else FTMPI_BIND (resolve_binding); the daemon applies it
    // (daemon/src/bind_policy.h). --report-bindings: each process's binding on stderr.
    std::optional<std::string> bind_to;
    bool report_bindings = false;
    bool help = false;
    bool version = false;
    std::vector<std::string> program;  // program and its arguments
};

enum class [[nodiscard]] ParseStatus { ok, usage_error };

// `why` explains a usage_error in one line.
ParseStatus parse_options(int argc, char** argv, Options& out, std::string& why);

// Flags beat FTMPI_COMM_MODE / FTMPI_MSG_MODE, which beat ABORT/NOP (SPEC 4.7).
ParseStatus resolve_modes(const Options& opts, proto::CommMode& comm, proto::MsgMode& msg, std::string& why);

// --spares beats FTMPI_SPARES, which beats 0; an invalid value is a usage error.
ParseStatus resolve_spares(const Options& opts, std::uint32_t& spares, std::string& why);

// --bind-to beats FTMPI_BIND, which beats auto; an invalid value is a usage error. Sets `bind`
// to the lower-case policy name the job's environment carries.
ParseStatus resolve_binding(const Options& opts, std::string& bind, std::string& why);

void print_usage(const char* prog);

}  // namespace ftmpi::mpirun
