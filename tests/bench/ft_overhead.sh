#!/bin/bash
# Failure-free cost of fault tolerance: the same benchmarks against the normal library and
# against one configured with -DFTMPI_WITHOUT_FT=ON (the FT checks compiled out of the
# point-to-point path), alternating between the two so that machine noise hits both alike.
# Prints the median of each figure per library and the ratio (with FT / without).
#
#   tests/bench/ft_overhead.sh [rounds]        (default 5)
# Environment: FTMPI_BUILD (default build), FTMPI_NOFT_BUILD (default build-noft),
#              FT_OVERHEAD_NP (default "2 8"), FT_OVERHEAD_MODE (mpirun --comm-mode, default
#              abort; "shrink" adds the ATOMIC agreement to every collective).
# When valgrind is installed it first counts instructions of the same software path in both
# libraries (ft_cost.c under callgrind): deterministic, unlike the timings.
# Not a test: ctest never runs it.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
rounds=${1:-5}
ft=${FTMPI_BUILD:-$root/build}
noft=${FTMPI_NOFT_BUILD:-$root/build-noft}
nps=${FT_OVERHEAD_NP:-2 8}
mode=${FT_OVERHEAD_MODE:-abort}
targets="ftmpi mpirun ftmpid bench_pingpong bench_collbench"
cmake -S "$root" -B "$ft" -DFTMPI_BUILD_BENCH=ON >/dev/null
cmake --build "$ft" -j2 --target $targets >/dev/null
cmake -S "$root" -B "$noft" -DFTMPI_BUILD_BENCH=ON -DFTMPI_WITHOUT_FT=ON >/dev/null
cmake --build "$noft" -j2 --target $targets >/dev/null

raw=$(mktemp)
cg=$(mktemp -d)
trap 'rm -rf "$raw" "$cg"' EXIT
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  echo "| instructions per round (ft_cost.c, 1 rank, callgrind) | with FT | without FT | ratio |"
  echo "|---|---|---|---|"
  n=20000
  for lib in ft noft; do
    dir=$ft
    [ "$lib" = noft ] && dir=$noft
    "$dir/bin/mpicc" -O2 -g -o "$cg/ft_cost_$lib" "$root/tests/bench/ft_cost.c"
    timeout 600 "$dir/bin/mpirun" -n 1 valgrind --tool=callgrind --callgrind-out-file="$cg/out.$lib" \
      --toggle-collect=p2p_rounds --toggle-collect=send_rounds --toggle-collect=coll_rounds "$cg/ft_cost_$lib" "$n" >/dev/null 2>&1 || true
  done
  for fn in p2p_rounds send_rounds coll_rounds; do
    what="8 B Isend + Recv + Wait to itself"
    [ "$fn" = send_rounds ] && what="8 B Send + Recv to itself"
    [ "$fn" = coll_rounds ] && what="8 B Allreduce + Bcast on one rank"
    # Inclusive cost of the function itself (the line naming it as a function, not a call);
    # awk reads to the end, so that pipefail does not see callgrind_annotate die of SIGPIPE.
    count() { callgrind_annotate --inclusive=yes "$cg/out.$1" 2>/dev/null |
              awk -v f="ft_cost.c:$fn" '!done && index($0, f) && !/=>/ { gsub(",", "", $1); print $1; done = 1 }'; }
    a=$(count ft) b=$(count noft)
    if [ -n "$a" ] && [ -n "$b" ]; then
      awk -v f="$what" -v a="$a" -v b="$b" -v n="$n" \
        'BEGIN { printf "| %s | %.0f | %.0f | %.4f |\n", f, a / n, b / n, a / b }'
    fi
  done
  echo
fi
for round in $(seq "$rounds"); do
  for lib in ft noft; do
    dir=$ft
    [ "$lib" = noft ] && dir=$noft
    { timeout 120 "$dir/bin/mpirun" -n 2 --comm-mode "$mode" "$dir/bin/ftmpi-pingpong" -r 5 -t 0.05 || true
      for np in $nps; do
        timeout 300 "$dir/bin/mpirun" -n "$np" --comm-mode "$mode" "$dir/bin/ftmpi-collbench" -r 5 -t 0.05 || true
      done
    } 2>/dev/null | awk -v lib="$lib" -v round="$round" '/^BENCH/ {
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        if (v["test"] == "pingpong" && v["bytes"] + 0 > 8) next
        print lib, v["test"] "/" v["bytes"] "B/np" v["np"], v["median_us"], round }' >> "$raw"
  done
done
# Two views of the same runs: the ratio of the medians over all rounds, and the median of the
# per-round ratios (each round runs both libraries back to back, so slow drifts of the load
# cancel in it); the spread of the per-round ratios shows what this machine can resolve.
echo "| benchmark (comm mode $mode) | with FT (µs) | without FT (µs) | ratio of medians | median of per-round ratios (min–max) |"
echo "|---|---|---|---|---|"
awk '{ key[$2] = 1; n = ++cnt[$1, $2]; val[$1, $2, n] = $3; per[$1, $2, $4] = $3; rounds[$4] = 1 }
  function median_of(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  function median(lib, k,   m, i, a) {
    m = cnt[lib, k]; for (i = 1; i <= m; i++) a[i] = val[lib, k, i]
    return median_of(a, m) }
  END { for (k in key) if (cnt["ft", k] && cnt["noft", k]) {
          f = median("ft", k); g = median("noft", k)
          m = 0; lo = 1e9; hi = 0; delete r
          for (x in rounds) if ((("ft", k, x) in per) && (("noft", k, x) in per) && per["noft", k, x] > 0) {
            q = per["ft", k, x] / per["noft", k, x]; r[++m] = q
            if (q < lo) lo = q; if (q > hi) hi = q }
          printf "| %s | %.3f | %.3f | %.3f | %.3f (%.2f–%.2f) |\n", k, f, g, (g > 0 ? f / g : 0),
                 (m ? median_of(r, m) : 0), lo, hi } }' "$raw" | sort
