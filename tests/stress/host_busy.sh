#!/usr/bin/env bash
# No false host failure under load (issue 15 item 4): 16 ranks spin on the machine's cores for a
# full minute across 3 namespace hosts with the default heartbeats (period 100 ms, timeout 1 s);
# no host may be declared lost and no rank may get a failure event. CI runs the same case for
# 20 s (netns.hostfail.busy). Needs root.
# Usage: tests/stress/host_busy.sh [build-dir] [seconds]
set -euo pipefail
build=$(readlink -f "${1:-build}")
secs=${2:-60}
here=$(dirname "$(readlink -f "$0")")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
bash "$here/../netns/hostfail_hosts.sh" busy "$build/bin" "$build/tests/netns/host_loss_rank" "$secs"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
