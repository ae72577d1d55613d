#!/usr/bin/env bash
# ULFM numbers for the README: median over REPS runs of ulfm_bench (see ulfm_bench.c) per size.
# Usage: tests/bench/ulfm_bench.sh [build-dir] [reps] [sizes...]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
shift 2 2>/dev/null || true
sizes=${*:-4 8}
prog=$build/bin/ftmpi-ulfm_bench
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ulfm_bench)" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| ranks | kill -> MPIX_ERR_PROC_FAILED, median survivor (ms) | slowest survivor (ms) | revoke -> last MPIX_ERR_REVOKED (ms) | MPIX_Comm_shrink after a failure (ms) | MPIX_Comm_agree (us) | 8 B MPI_Allreduce (us) | agree / allreduce |\n|---|---|---|---|---|---|---|---|\n'
for np in $sizes; do
  out=$(for i in $(seq "$reps"); do
          piddir=$(mktemp -d)   # one per run, removed after it (nothing left in $TMPDIR)
          PIDDIR=$piddir timeout 60 "$build/bin/mpirun" -n "$np" --with-ft ulfm "$prog" 2>/dev/null |
            grep '^ulfm_bench:' || true
          rm -rf "$piddir"
        done)
  [ -n "$out" ] || { echo "| $np | failed | | | | | | |"; continue; }
  col() { printf '%s\n' "$out" | awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}' | median; }
  ag=$(col agree_us) ar=$(col allreduce_us)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$np" "$(col detect_median_ms)" "$(col detect_max_ms)" \
    "$(col revoke_ms)" "$(col shrink_ms)" "$ag" "$ar" "$(awk -v a="$ag" -v b="$ar" 'BEGIN {printf "%.2f", a / b}')"
done
