#!/bin/bash
# tests/bench/startup.sh — start-up time of `mpirun -n N ./hello` (MPI_Init, rank, MPI_Finalize)
# next to MPICH's `mpiexec.mpich -n N ./hello`, in one session.
#
# Rounds interleave the implementations (ftmpi then MPICH, the next round the other way round),
# because this shared machine's speed drifts over minutes; each figure is the wall time of one
# whole launch, from before mpirun starts to after it exits. Prints per process count the
# median of each and two ratios: of the medians, and the median of the per-round ratios.
#
# usage: tests/bench/startup.sh [--rounds K] [--np "2 8"] [--build DIR]
#   --build DIR  ftmpi's build tree (default $FTMPI_BUILD or build/); its mpicc and mpirun are
#                called by path. MPICH (Debian's mpich package, mpicc.mpich/mpiexec.mpich) is
#                optional: without it only ftmpi's times are printed.
# Per-phase breakdown of one ftmpi launch: FTMPI_DEBUG=1 mpirun -n 2 ./hello (see README).
# Not a test: ctest never runs it.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
build=${FTMPI_BUILD:-$root/build}
rounds=15
nps="2 8"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --np) nps=$2; shift ;;
    --build) build=$(readlink -f "$2"); shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "startup.sh: unknown option $1" >&2
       echo "usage: tests/bench/startup.sh [--rounds K] [--np \"2 8\"] [--build DIR]" >&2; exit 2 ;;
  esac
  shift
done
case "$rounds" in ''|*[!0-9]*) echo "startup.sh: --rounds needs a number" >&2; exit 2 ;; esac

work=$(mktemp -d /tmp/ftmpi-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 "$root/tests/bench/hello.c" -o "$work/hello-ftmpi"
impls="ftmpi"
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
  mpicc.mpich -O2 "$root/tests/bench/hello.c" -o "$work/hello-mpich"
  impls="ftmpi mpich"
else
  echo "startup.sh: mpiexec.mpich not found (apt-get install mpich): ftmpi only" >&2
fi

# One launch; prints its wall time in ms, or fails the script.
launch() {
  local impl=$1 np=$2 t0 t1
  t0=$(date +%s%N)
  if [ "$impl" = ftmpi ]; then
    "$build/bin/mpirun" -n "$np" --timeout 60 "$work/hello-ftmpi" >/dev/null
  else
    timeout 60 mpiexec.mpich -n "$np" "$work/hello-mpich" >/dev/null
  fi
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

results=$work/results.tsv
for np in $nps; do
  for impl in $impls; do launch "$impl" "$np" >/dev/null; done  # warm the page cache
  for r in $(seq 1 "$rounds"); do
    order=$impls
    [ $((r % 2)) = 0 ] && order=$(echo "$impls" | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}')
    for impl in $order; do
      printf '%s\t%s\t%s\t%s\n' "$np" "$r" "$impl" "$(launch "$impl" "$np")" >>"$results"
    done
  done
done

echo "start-up: wall time of one launch of hello (ms), $rounds interleaved rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' -v order="$nps" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { v[$1, $3] = v[$1, $3] " " $4 / 1000; t[$1, $2, $3] = $4; nps[$1] = 1; rounds[$2] = 1 }
  END {
    print "| ranks | ftmpi median (ms) | MPICH median (ms) | ftmpi/MPICH (medians) | ftmpi/MPICH (median of per-round ratios) |"
    print "|---|--:|--:|--:|--:|"
    n = split(order, npl, " ")
    for (k = 1; k <= n; k++) {
      np = npl[k]
      mf = median(v[np, "ftmpi"])
      if (v[np, "mpich"] == "") { printf "| %s | %.1f | - | - | - |\n", np, mf; continue }
      mm = median(v[np, "mpich"]); rl = ""
      for (r in rounds) if ((np, r, "mpich") in t) rl = rl " " t[np, r, "ftmpi"] / t[np, r, "mpich"]
      printf "| %s | %.1f | %.1f | %.2f | %.2f |\n", np, mf, mm, mf / mm, median(rl)
    }
  }' "$results"
