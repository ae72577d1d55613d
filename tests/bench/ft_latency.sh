#!/usr/bin/env bash
# Detection and repair latency at several job sizes: median over REPS runs of the per-run
# median over survivors. Usage: tests/bench/ft_latency.sh [build-dir] [reps] [sizes...]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
shift 2 2>/dev/null || true
sizes=${*:-4 8 16}
prog=$build/bin/ftmpi-ft_latency
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ft_latency)" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| ranks | detection median (ms) | detection max (ms) | SHRINK repair median (ms) | repair max (ms) |\n|---|---|---|---|---|\n'
for np in $sizes; do
  out=$(for i in $(seq "$reps"); do
    timeout 60 "$build/bin/mpirun" -n "$np" --comm-mode shrink "$prog" 2>/dev/null | grep '^ft_latency:' || true
  done)
  [ -n "$out" ] || { echo "| $np | failed | | | |"; continue; }
  col() { printf '%s\n' "$out" | awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}' | median; }
  printf '| %s | %s | %s | %s | %s |\n' "$np" "$(col detect_median_ms)" "$(col detect_max_ms)" \
    "$(col repair_median_ms)" "$(col repair_max_ms)"
done
