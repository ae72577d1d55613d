#!/usr/bin/env bash
# Failure detection across 3 namespace hosts (issue 15 item 4), the time until EVERY surviving
# process holds the failure event (the slowest survivor of each round), median and max over
# ROUNDS rounds:
#   host kill   host 3's daemon and ranks SIGKILLed: seen through the closed connection (target < 50 ms)
#   link cut    host 3's link taken down: seen by heartbeats (target <= the 1000 ms timeout)
#   rank kill   one rank on host 3 dies: relayed by its daemon and mpirun to every host (target 5 ms)
# Each round is a case of tests/netns/hostfail_hosts.sh (which also checks the one event, its
# content and that nothing is left behind). Needs root (network namespaces).
# Usage: tests/bench/host_detect.sh [build-dir] [rounds]
set -euo pipefail
build=$(readlink -f "${1:-build}")
rounds=${2:-10}
here=$(dirname "$(readlink -f "$0")")
rank=$build/tests/netns/host_loss_rank
[ -x "$rank" ] || { echo "build $rank first (cmake --build $build --target host_loss_rank)" >&2; exit 1; }
stats() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) {print "failed | failed"; exit}
  m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f | %.1f", m, a[NR]}'; }
measure() {  # CASE: the "in N ms" of every ok line
  bash "$here/../netns/hostfail_hosts.sh" "$1" "$build/bin" "$rank" "$rounds" |
    sed -n 's/^ok \[.*\] .* in \([0-9.]*\) ms.*/\1/p'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| failure (%s rounds) | median (ms) | max (ms) |\n|---|---|---|\n' "$rounds"
printf '| host kill (closed connection) | %s |\n' "$(measure kill_loop | stats)"
printf '| link cut (heartbeat timeout 1000 ms) | %s |\n' "$(measure link_loop | stats)"
printf '| rank kill on another host | %s |\n' "$(measure rank_loop | stats)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
