#!/usr/bin/env bash
# What ATOMIC costs next to RELAXED (issue 17 item 4), for the README: runs atomic_cost.c
# (both modes taking turns inside each repetition of one run) RUNS times per process count
# and prints, per case, the median over runs of atomic time, relaxed time and their ratio.
#   tests/bench/atomic_cost.sh [build-dir] [runs] [process counts...]    (default: build 3 2 4 8)
# Environment: MPIRUN, PROG to measure another installation (default: the build dir's).
set -euo pipefail
build=${1:-build}
runs=${2:-3}
shift 2 2>/dev/null || shift $#
nps=${*:-2 4 8}
mpirun=${MPIRUN:-$build/bin/mpirun}
prog=${PROG:-$build/bin/ftmpi-atomic_cost}
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_atomic_cost)" >&2; exit 1; }
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || { echo "usage: $0 [build-dir] [runs] [np...]" >&2; exit 2; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| ranks | case | ATOMIC (us) | RELAXED (us) | ATOMIC / RELAXED |\n|---|---|---|---|---|\n'
for np in $nps; do
  out=$(for i in $(seq "$runs"); do
          timeout 300 "$mpirun" -n "$np" --comm-mode shrink "$prog" -r 7 -t 0.05 2>/dev/null |
            grep '^atomic_cost:' || true
        done)
  [ -n "$out" ] || { echo "| $np | failed | | | |"; continue; }
  for c in $(printf '%s\n' "$out" | awk '{print $5}' | awk '!seen[$0]++'); do
    col() { printf '%s\n' "$out" | awk -v c="$c" -v k="$1" '$5 == c {for (i=1;i<NF;i++) if ($i==k) print $(i+1)}' | median; }
    printf '| %s | %s | %s | %s | %s |\n' "$np" "$c" "$(col atomic_us)" "$(col relaxed_us)" "$(col ratio)"
  done
done
