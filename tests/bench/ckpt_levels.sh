#!/usr/bin/env bash
# Recovery latency per failure pattern, level chosen from the failure topology vs validated
# level by level (ftmpi-ckpt-levels, one recovery per run): median over REPS runs, runs of the
# two strategies interleaved. Usage: tests/bench/ckpt_levels.sh [build-dir] [reps] [MiB]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
mib=${3:-64}
prog=$build/bin/ftmpi-ckpt-levels
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ckpt_levels)" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| pattern | level | rounds | select µs topology | select µs rounds | Recover ms topology | Recover ms rounds | Recover+Fetch ms topology | Recover+Fetch ms rounds |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for p in L1 L2 L3 L4; do
  out0='' out1=''
  for i in $(seq "$reps"); do
    for r in 0 1; do
      line=$(timeout 120 "$build/bin/mpirun" -n 4 --comm-mode shrink "$prog" --pattern "$p" --rounds "$r" -m "$mib" 2>/dev/null \
             | grep '^ckpt_levels: pattern' | grep -v FAILED || true)
      [ -n "$line" ] || continue
      if [ "$r" = 0 ]; then out0+="$line"$'\n'; else out1+="$line"$'\n'; fi
    done
  done
  col() { printf '%s' "$1" | awk -v k="$2" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}' | median; }
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$(col "$out0" level)" \
    "$(col "$out1" validation_rounds)" "$(col "$out0" select_us)" "$(col "$out1" select_us)" \
    "$(col "$out0" recover_ms)" "$(col "$out1" recover_ms)" "$(col "$out0" total_ms)" "$(col "$out1" total_ms)"
done
