#!/bin/bash
# FTMPI_DEBUG=1 prints the start-up phases of mpirun, the daemon and every rank, one clock for
# all (docs/MEASUREMENTS.md "Start-up"); unset, nothing. usage: startup_phases.sh MPIRUN PROGRAM
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: startup_phases.sh MPIRUN PROGRAM" >&2; exit 2; }
mpirun=$1 prog=$2
log=$(mktemp /tmp/ftmpi-phases.XXXXXX)
trap 'rm -f "$log"' EXIT

FTMPI_DEBUG=1 "$mpirun" -n 2 --timeout 60 "$prog" >/dev/null 2>"$log" || {
  echo "FAIL: the job failed"; cat "$log"; exit 1; }
# The phases in the order they must happen (by their CLOCK_MONOTONIC stamps).
expected=(
  "mpirun: options parsed"
  "ftmpid: loading the hwloc topology"
  "ftmpid: PMIx server ready"
  "mpirun: daemon ready, launching 2 ranks"
  "ftmpid: job [^ ]*: 2 ranks forked"
  "rank 0 pid [0-9]* startup: MPI_Init: transport shm open"
  "rank 0 pid [0-9]* startup: MPI_Init: done"
  "rank 0 pid [0-9]* startup: MPI_Finalize: done"
  "mpirun: job ended \\(exit 0\\)"
)
sorted=$(grep '^ftmpi-debug .* startup: ' "$log" | sort -k2 -n)
last=0
for phase in "${expected[@]}"; do
  line=$(echo "$sorted" | grep -n -E "$phase" | head -1 | cut -d: -f1)
  if [ -z "$line" ]; then echo "FAIL: no line for '$phase'"; cat "$log"; exit 1; fi
  if [ "$line" -le "$last" ]; then echo "FAIL: '$phase' out of order"; echo "$sorted"; exit 1; fi
  last=$line
done
for r in 0 1; do
  echo "$sorted" | grep -q "rank $r pid [0-9]* startup: MPI_Init: done" || {
    echo "FAIL: rank $r has no MPI_Init line"; echo "$sorted"; exit 1; }
done
# Off by default: not a line.
env -u FTMPI_DEBUG "$mpirun" -n 2 --timeout 60 "$prog" >/dev/null 2>"$log" || {
  echo "FAIL: the job failed without FTMPI_DEBUG"; cat "$log"; exit 1; }
if grep -q '^ftmpi-debug' "$log"; then echo "FAIL: debug lines without FTMPI_DEBUG"; exit 1; fi
echo "startup_phases: OK"
