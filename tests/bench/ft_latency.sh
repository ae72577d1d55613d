#!/usr/bin/env bash
# Detection and repair latency at several job sizes: median over REPS runs of the per-run
# median over survivors, for SHRINK and for REBUILD (where the repair includes starting the
# replacement process; its own start-up time is shown next to it). The victim dies right after
# a barrier; the "idle" column lets it wait 50 ms first, so the survivors are deep in their wait.
# Usage: tests/bench/ft_latency.sh [build-dir] [reps] [sizes...]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
shift 2 2>/dev/null || true
sizes=${*:-4 8 16}
prog=$build/bin/ftmpi-ft_latency
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ft_latency)" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| ranks | detection median (ms) | detection max (ms) | detection, survivors idle (ms) | SHRINK repair median (ms) | repair max (ms) | REBUILD repair median (ms) | replacement start-up median (ms) |\n|---|---|---|---|---|---|---|---|\n'
for np in $sizes; do
  run() {  # MODE [IDLE_MS]
    for i in $(seq "$reps"); do
      timeout 60 "$build/bin/mpirun" -n "$np" --comm-mode "$1" "$prog" $((np - 1)) "${2:-0}" 2>/dev/null |
        grep '^ft_latency:' || true
    done
  }
  out=$(run shrink)
  idle=$(run shrink 50)
  reb=$(run rebuild)
  [ -n "$out" ] || { echo "| $np | failed | | | | | | |"; continue; }
  col() { printf '%s\n' "$2" | awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}' | median; }
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$np" "$(col detect_median_ms "$out")" \
    "$(col detect_max_ms "$out")" "$(col detect_median_ms "$idle")" "$(col repair_median_ms "$out")" \
    "$(col repair_max_ms "$out")" "$(col repair_median_ms "$reb")" "$(col replacement_start_ms "$reb")"
done
