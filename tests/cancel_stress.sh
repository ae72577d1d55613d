#!/usr/bin/env bash
# Stress for MPI_Cancel of sends (tests/e2e/mpi/cancel_send.c): many iterations of the
# unmatched, matched and racing cases, in several transport configurations.
#   tests/cancel_stress.sh [ITERATIONS]   (default 200 per run)
# Environment: FTMPI_BUILD_DIR (default build). Exit 0 when every run passed.
set -u
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
n=${1:-200}
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] || { echo "usage: $0 [ITERATIONS]" >&2; exit 2; }
fail=0
for conf in "" "-x FTMPI_SHM_RING=0" "-x FTMPI_SHM_BULK_KB=0" \
            "-x FTMPI_SHM_CMA=0 -x FTMPI_SHM_BULK_SLOTS=0"; do
  for np in 2 3; do
    # shellcheck disable=SC2086
    out=$(timeout -k 5 900 "$build/bin/mpirun" -n $np $conf "$build/tests/bin/cancel_send" "$n" 2>&1)
    if [ $? -eq 0 ] && grep -q "cancel_send: OK, $n iterations" <<< "$out"; then
      echo "PASS np=$np $conf ($n iterations)"
    else
      echo "FAIL np=$np $conf"; printf '%s\n' "$out" | tail -20; fail=1
    fi
  done
done
exit $fail
