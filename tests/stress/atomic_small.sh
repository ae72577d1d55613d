#!/usr/bin/env bash
# Small ATOMIC collectives under failure (issue 17 item 4), run N times with a random victim
# and size: tests/e2e/ft/ft_atomic_small.c (a rank SIGKILLs itself at a random moment of a
# loop of 8 B allreduce/barrier/allgather/bcast/reduce; every survivor must see the same
# outcome and right results).
#   tests/stress/atomic_small.sh N [NP...]      (default NP: 3 4 7 8; N >= 100 for a stress run)
# Each run has the run_mpi.sh watchdog (a hang fails the run). Environment: FTMPI_BUILD_DIR
# (default build). Prints one line per failed run and a summary; exit 1 if any run failed.
set -u
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
usage() { echo "usage: $0 N [NP...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
n=$1; shift
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 100000 ] || usage
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(3 4 7 8)
for np in "${sizes[@]}"; do [[ $np =~ ^[0-9]+$ ]] && [ "$np" -ge 2 ] && [ "$np" -le 16 ] || usage; done
failed=0 where=()
for i in $(seq "$n"); do
  np=${sizes[$((RANDOM % ${#sizes[@]}))]}
  victim=$((RANDOM % np))
  out=$("$root/tests/e2e/mpi/run_mpi.sh" "$build/bin/mpirun" 0 'ft_atomic_small OK' -- \
        -n "$np" --comm-mode shrink "$build/tests/bin/ft_atomic_small" "$victim" 2>&1)
  if [ $? -ne 0 ]; then
    failed=$((failed + 1))
    echo "run $i FAILED: -n $np victim $victim"
    printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
  else
    where+=("$(printf '%s\n' "$out" | sed -n 's/.*(call [0-9]* is \(.*\))$/\1/p')")
  fi
done
echo "atomic_small: $((n - failed))/$n runs OK; first failing collective of the passing runs:"
printf '%s\n' "${where[@]}" | sort | uniq -c | sed 's/^/  /'
[ "$failed" -eq 0 ]
