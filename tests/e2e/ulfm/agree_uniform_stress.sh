#!/usr/bin/env bash
# MPIX_Comm_agree's uniformity, again and again (ulfm_agree_uniform.c): the processes that
# return first die right after the agreement, the coordinator among them. Stops at the first
# failure and prints its output.
#   agree_uniform_stress.sh BUILD_DIR ITERATIONS   (CI runs 10; 100 by hand)
set -u
build=$1 iters=${2:-100}
mpirun=$build/bin/mpirun prog=$build/tests/bin/ulfm_agree_uniform
run() {  # name, pattern, mpirun arguments...
  local name=$1 pattern=$2
  shift 2
  local out rc
  out=$(timeout -k 5 60 "$mpirun" --timeout 45 "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "$pattern"; then
    printf '%s\n' "$out"
    echo "agree_uniform_stress: FAIL: $name, iteration $i (exit $rc)"
    exit 1
  fi
}
for i in $(seq "$iters"); do
  run killing_set "OK: 1 rounds, 2 survivors" -n 6 --with-ft ulfm "$prog" 1 0,1,2,4
  run lowest_two "OK: 3 rounds, 2 survivors" -n 8 --with-ft ulfm "$prog" 3 0,1
  run all_but_one "OK: 1 rounds, 1 survivors" -n 5 --with-ft ulfm "$prog" 1 0,1,2,3
done
echo "agree_uniform_stress: $iters iterations OK"
