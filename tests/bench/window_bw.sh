#!/bin/bash
# tests/bench/window_bw.sh — windowed bandwidth (window_bw.c: OSU's osu_bw / osu_bibw pattern,
# and with --mode lat osu_latency's ping-pong, as bytes per half round trip)
# of ftmpi next to MPICH and Open MPI, taking turns, medians over rounds.
#
# usage: tests/bench/window_bw.sh [--build DIR] [--out DIR] [--rounds K] [--mode "bw bibw lat"]
#                                 [--sizes MIN:MAX] [--window W] [--reps R] [--target S]
#                                 [--impl "ftmpi mpich openmpi"] [--osu OSU_SRC_DIR]
#   --build DIR   ftmpi build tree (its bin/mpicc, bin/mpirun; default build/, or FTMPI_BUILD)
#   --rounds K    every implementation runs K times per mode, in turns (ftmpi, MPICH, Open MPI,
#                 then again): this machine's speed drifts over minutes, so a ratio is taken
#                 within a round and the table gives medians over rounds (5)
#   --sizes       message sizes, doubling (1:4194304); --window the window (64, OSU's)
#   --reps/--target  window_bw's -r (repetitions per size, median) and -t (seconds each) (3, 0.03)
#   --osu DIR     also run the OSU programs osu_bw and osu_bibw (built from DIR with each
#                 wrapper, never copied here) with `-i 50 -x 5`, their own output parsed the same way
# Output: a table (size, each implementation's median MB/s, ftmpi's ratio to the best peer, the
# median of per-round ratios) per benchmark; raw rows in OUT/results.tsv. Say the load
# (`uptime`) with any figure: the machine is shared. Not a test: ctest never runs it.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
build=${FTMPI_BUILD:-$root/build}
out="" rounds=5 modes="bw bibw" sizes=1:4194304 window=64 reps=3 target=0.03
impls="ftmpi mpich openmpi" osu=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(readlink -f "$2"); shift ;;
    --out) out=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --mode) modes=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --window) window=$2; shift ;;
    --reps) reps=$2; shift ;;
    --target) target=$2; shift ;;
    --impl) impls=$2; shift ;;
    --osu) osu=$(readlink -f "$2"); shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "window_bw.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$(mktemp -d /tmp/ftmpi-window-bw.XXXXXX)}
mkdir -p "$out/bin" "$out/logs"
results=$out/results.tsv  # impl  bench  bytes  MBps  round
: >"$results"
log() { echo "[window_bw] $*" >&2; }

mpicc_of() {
  case $1 in
    ftmpi) echo "$build/bin/mpicc" ;;
    mpich) echo /usr/bin/mpicc.mpich ;;
    openmpi) echo /usr/bin/mpicc.openmpi ;;
  esac
}
launch() {  # IMPL PROGRAM ARGS... at 2 ranks, each implementation's own launcher by path
  local impl=$1; shift
  case $impl in
    ftmpi) timeout 300 "$build/bin/mpirun" -n 2 "$@" ;;
    mpich) timeout 300 /usr/bin/mpirun.mpich -n 2 "$@" ;;
    openmpi) timeout 300 /usr/bin/mpirun.openmpi --allow-run-as-root --oversubscribe \
               --mca btl self,vader -n 2 "$@" ;;
  esac
}

built=""
for impl in $impls; do
  cc=$(mpicc_of "$impl")
  [ -x "$cc" ] || { log "$impl: no $cc, skipped"; continue; }
  if ! "$cc" -O2 -std=c99 -o "$out/bin/window_bw.$impl" "$root/tests/bench/window_bw.c" \
      >"$out/logs/build-$impl.log" 2>&1; then
    log "$impl: building window_bw failed ($out/logs/build-$impl.log)"; continue
  fi
  if [ -n "$osu" ]; then
    for p in osu_bw osu_bibw; do
      "$cc" -O2 -I"$osu/mpi/pt2pt" -o "$out/bin/$p.$impl" "$osu/mpi/pt2pt/$p.c" \
        "$osu/mpi/pt2pt/osu_pt2pt.c" -lm >>"$out/logs/build-$impl.log" 2>&1 ||
        log "$impl: building $p failed"
    done
  fi
  built="$built $impl"
done
[ -n "$built" ] || { log "nothing built"; exit 1; }

# run IMPL BENCH ROUND: one run, its rows appended to the results.
run() {
  local impl=$1 bench=$2 round=$3 logf=$out/logs/$1-$2-r$3.log
  case $bench in
    bw|bibw|lat) launch "$impl" "$out/bin/window_bw.$impl" -m "$bench" -w "$window" -s "$sizes" \
               -r "$reps" -t "$target" >"$logf" 2>&1 || log "$impl $bench failed ($logf)"
             awk -v i="$impl" -v b="$bench" -v r="$round" -v w="$window" '$1 == "BENCH" {
                 for (k = 2; k <= NF; k++) { split($k, kv, "="); f[kv[1]] = kv[2] }
                 per = b == "bibw" ? 2 * w : b == "lat" ? 2 : w
                 printf "%s\t%s\t%d\t%s\t%s\n", i, b, f["bytes"] / per, f["MBps"], r }' "$logf" >>"$results" ;;
    osu_bw|osu_bibw)
             [ -x "$out/bin/$bench.$impl" ] || return 0
             launch "$impl" "$out/bin/$bench.$impl" -i 50 -x 5 >"$logf" 2>&1 || log "$impl $bench failed ($logf)"
             awk -v i="$impl" -v b="$bench" -v r="$round" '$1 ~ /^[0-9]+$/ && NF == 2 {
                 printf "%s\t%s\t%s\t%s\t%s\n", i, b, $1, $2, r }' "$logf" >>"$results" ;;
  esac
}

benches=$modes
[ -n "$osu" ] && benches="$benches osu_bw osu_bibw"
log "load before: $(uptime)"
for r in $(seq "$rounds"); do
  for bench in $benches; do
    for impl in $built; do run "$impl" "$bench" "$r"; done
  done
done
log "load after: $(uptime)"

# Medians per (bench, size, impl); ratio = ftmpi / best peer, per round, then its median.
awk -F'\t' -v impls="$built" '
  function median(s,   n, v, i, j, t) {
    n = split(s, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n == 0 ? "" : n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { key = $2 SUBSEP $3; all[key, $1] = all[key, $1] " " $4; val[key, $1, $5] = $4
    rounds[$5] = 1; if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
  END {
    ni = split(impls, im, " ")
    for (k = 1; k <= nk; k++) {
      split(order[k], kb, SUBSEP)
      if (kb[1] != last) {
        printf "\n| %s size (B) |", kb[1]; for (i = 1; i <= ni; i++) printf " %s MB/s |", im[i]
        print " ftmpi / best peer (median of rounds) |"
        printf "|---:|"; for (i = 1; i <= ni; i++) printf "---:|"; print "---:|"
        last = kb[1]
      }
      printf "| %s |", kb[2]
      for (i = 1; i <= ni; i++) printf " %.1f |", median(all[order[k], im[i]])
      ratios = ""
      for (r in rounds) {
        best = 0
        for (i = 1; i <= ni; i++) if (im[i] != "ftmpi" && val[order[k], im[i], r] + 0 > best) best = val[order[k], im[i], r]
        if (best > 0 && (order[k], "ftmpi", r) in val) ratios = ratios " " val[order[k], "ftmpi", r] / best
      }
      m = median(ratios); printf " %s |\n", m == "" ? "n/a" : sprintf("%.2f", m)
    }
  }' "$results" | tee "$out/table.md"
log "raw rows: $results; logs: $out/logs"
