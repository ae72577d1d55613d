#!/usr/bin/env bash
# FTMPI_DEBUG=1 tells what the failure path did and when (issue 16 item 6): for a SIGKILLed rank
# the daemon logs the reap, and every survivor logs, in this order and with a time each, that
# the process was detected, declared failed, purged from the transport, and that the world was
# repaired (SHRINK, then REBUILD). Without FTMPI_DEBUG not one debug line appears.
#   debug_log.sh MPIRUN BIN
set -u
mpirun=$1 bin=$2
export PIDDIR=$(mktemp -d)
T=$(mktemp -d)
trap 'rm -rf "$PIDDIR" "$T"' EXIT
fail() { echo "debug_log: FAIL: $*"; [ -e "$T/err" ] && tail -n 40 "$T/err"; exit 1; }

# time_of RANK PATTERN: the time (seconds) of RANK's first line matching PATTERN; empty if none.
time_of() {
  awk -v r="$1" -v p="$2" '$1 == "ftmpi-debug" && $4 == r && $0 ~ p { print $2; exit }' "$T/err"
}
# in_order RANK PATTERN...: each pattern logged by RANK, with non-decreasing times.
in_order() {
  local rank=$1 prev=0 t p
  shift
  for p in "$@"; do
    t=$(time_of "$rank" "$p")
    [ -n "$t" ] || fail "rank $rank did not log /$p/"
    [[ $t =~ ^[0-9]+\.[0-9]+$ ]] || fail "rank $rank: /$p/ has no time ($t)"
    awk -v a="$prev" -v b="$t" 'BEGIN { exit !(b >= a) }' || fail "rank $rank: /$p/ at $t, before the step above it ($prev)"
    prev=$t
  done
}

# SHRINK: rank 2 of 4 dies while the others wait in MPI_Recv from it.
FTMPI_DEBUG=1 "$(dirname "$0")/../watchdog.sh" 90 "$mpirun" -n 4 --comm-mode shrink "$bin/ft_repair" 2 recv >"$T/out" 2>"$T/err" ||
  fail "SHRINK job exited $?"
grep -q "ft_repair OK" "$T/out" || fail "SHRINK job: no OK line"
grep -Eq '^ftmpi-debug [0-9.]+ rank -1 pid [0-9]+ failure: ftmpid: reaped process 2 ' "$T/err" ||
  fail "the daemon did not log reaping process 2"
for r in 0 1 3; do
  in_order $r "failure: process 2 detected" "failure: process 2 declared failed" \
           "failure: process 2: transport purged" "failure: MPI_COMM_WORLD repaired \\(SHRINK, 1 agreed failed, size 3"
done

# REBUILD: rank 2 of 3 dies at iteration 3; the survivors log the repair with one replacement.
FTMPI_DEBUG=1 "$(dirname "$0")/../watchdog.sh" 90 "$mpirun" -n 3 --comm-mode rebuild "$bin/ft_rebuild" 10 2@3 >"$T/out" 2>"$T/err" ||
  fail "REBUILD job exited $?"
grep -q "ft_rebuild OK" "$T/out" || fail "REBUILD job: no OK line"
for r in 0 1; do
  in_order $r "failure: process 2 detected" "failure: process 2 declared failed" \
           "failure: process 2: transport purged" "failure: MPI_COMM_WORLD repaired \\(REBUILD, 1 replaced"
done

# Off by default: the same SHRINK job without FTMPI_DEBUG prints no debug line.
env -u FTMPI_DEBUG "$(dirname "$0")/../watchdog.sh" 90 "$mpirun" -n 4 --comm-mode shrink "$bin/ft_repair" 2 recv >"$T/out" 2>"$T/err" ||
  fail "SHRINK job without FTMPI_DEBUG exited $?"
if grep -q 'ftmpi-debug' "$T/err" "$T/out"; then fail "debug lines without FTMPI_DEBUG"; fi
echo "debug_log: PASS (detected, declared, purged, repaired in order at every survivor; silent when off)"
