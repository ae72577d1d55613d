#!/usr/bin/env bash
# The racy ULFM scenarios again and again: a revoke while everybody is blocked, the agreement's
# coordinator dying inside a shrink, a failure inside an agreement, the revoke -> shrink ->
# retry loop with three failures. Stops at the first failure and prints its output.
#   ulfm_stress.sh BUILD_DIR ITERATIONS      (CI runs 10; `ulfm_stress.sh build 100` by hand)
set -u
build=$1 iters=${2:-100}
mpirun=$build/bin/mpirun bin=$build/tests/bin
run() {  # name, mpirun arguments...
  local name=$1
  shift
  local out rc piddir
  piddir=$(mktemp -d)   # the victims' kill times (killtime.h): one per run, removed after it
  out=$(PIDDIR=$piddir timeout -k 5 60 "$mpirun" --timeout 45 "$@" 2>&1)
  rc=$?
  rm -rf "$piddir"
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$out"
    echo "ulfm_stress: FAIL: $name, iteration $i (exit $rc)"
    exit 1
  fi
}
for i in $(seq "$iters"); do
  run revoke -n 8 --with-ft ulfm "$bin/ulfm_calls" revoke
  run shrink_during -n 8 --with-ft ulfm "$bin/ulfm_calls" shrink_during
  run agree -n 5 --with-ft ulfm "$bin/ulfm_calls" agree
  run loop -n 6 --with-ft ulfm "$bin/ulfm_loop" 30 $((i % 6))@$((i % 7)) $(((i + 2) % 6))@12 $(((i + 4) % 6))@13
done
echo "ulfm_stress: $iters iterations OK"
