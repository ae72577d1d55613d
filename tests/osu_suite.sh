#!/usr/bin/env bash
# Builds the OSU micro-benchmarks (5.3, autotools; mvapich.cse.ohio-state.edu/benchmarks) with
# ftmpi's compiler wrappers and runs every point-to-point and collective program, blocking and
# nonblocking (osu_i*), with small limits: the proof that other people's MPI code builds and runs
# unchanged (issue 19 item 7). The sources are given to it, never copied into this repository.
#
#   tests/osu_suite.sh [--short] [--compare] OSU_SRC_DIR
#     OSU_SRC_DIR  the unpacked OSU micro-benchmarks (with configure and mpi/pt2pt/osu_latency.c)
#     --short      a few programs at 2 ranks, tiny limits (what ctest runs: test osu.short)
#     --compare    also build the same sources with mpicc.mpich and mpicc.openmpi and print
#                  osu_latency, osu_bw (2 ranks) and osu_allreduce (4 ranks) side by side, all
#                  measured in this run (ratios are what matter on a shared machine)
#   Environment: FTMPI_BUILD_DIR (default build: its bin/mpicc and bin/mpirun),
#                OSU_SUITE_WORK (default a new temporary directory, removed at the end unless set),
#                OSU_SUITE_TIMEOUT seconds per run (default 120).
#
# A run PASSES when it exits 0 within its time and printed a result row for its largest message
# size (or, for barriers, one row): a benchmark that stops early or prints nothing fails.
# Output: one line per run (program, ranks, verdict, seconds), then the totals; exit 1 if any
# build or run failed, 2 on bad usage.
set -u

usage() { echo "usage: $0 [--short] [--compare] OSU_SRC_DIR" >&2; exit 2; }
short=0; compare=0; src=""
for a in "$@"; do
  case $a in
    --short) short=1 ;;
    --compare) compare=1 ;;
    -*) usage ;;
    *) [ -z "$src" ] || usage; src=$a ;;
  esac
done
[ -n "$src" ] || usage
src=$(cd "$src" 2>/dev/null && pwd) || usage
[ -x "$src/configure" ] && [ -f "$src/mpi/pt2pt/osu_latency.c" ] || {
  echo "$0: $src is not the OSU micro-benchmarks (no configure, mpi/pt2pt/osu_latency.c)" >&2; exit 2; }
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
[ -x "$build/bin/mpicc" ] && [ -x "$build/bin/mpirun" ] || {
  echo "$0: no $build/bin/mpicc or mpirun (build first)" >&2; exit 2; }
limit=${OSU_SUITE_TIMEOUT:-120}
if [ -n "${OSU_SUITE_WORK:-}" ]; then
  work=$OSU_SUITE_WORK; mkdir -p "$work"
else
  work=$(mktemp -d /tmp/osu-suite.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
echo "osu_suite: sources $src, work $work"

# build IMPL CC CXX: configure out of tree (the sources stay untouched) and make; the threaded
# latency test is built by name (configure only adds it when it finds MPI-2 one-sided calls).
build_with() {
  local impl=$1 dir=$work/$1
  mkdir -p "$dir"
  if ! (cd "$dir" && "$src/configure" CC="$2" CXX="$3" >configure.log 2>&1 &&
        make -j2 >make.log 2>&1 && make -C mpi/pt2pt osu_latency_mt >>make.log 2>&1); then
    echo "osu_suite: building with $impl failed; $dir/config.log, make.log:" >&2
    tail -20 "$dir/make.log" "$dir/configure.log" 2>/dev/null >&2
    return 1
  fi
}

# launch IMPL NP PROGRAM ARGS...: each implementation's own launcher, by explicit path.
launch() {
  local impl=$1 np=$2; shift 2
  case $impl in
    ftmpi) timeout "$limit" "$build/bin/mpirun" --timeout "$limit" -n "$np" "$@" ;;
    mpich) timeout "$limit" /usr/bin/mpirun.mpich -n "$np" "$@" ;;
    openmpi) timeout "$limit" /usr/bin/mpirun.openmpi --allow-run-as-root --oversubscribe \
               --mca btl self,vader -n "$np" "$@" ;;
  esac
}

pass=0; fail=0; failed=()
# run NP DIR PROGRAM LAST_SIZE ARGS...: one verdict line. LAST_SIZE is the row that must be
# printed ("" for barriers: any numeric row).
run() {
  local np=$1 dir=$2 prog=$3 last=$4; shift 4
  local log=$work/log/$prog.np$np.log t0 t1 rc verdict
  mkdir -p "$work/log"
  t0=$(date +%s.%N)
  launch ftmpi "$np" "$work/ftmpi/mpi/$dir/$prog" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -eq 124 ]; then
    verdict=TIMEOUT
  elif [ $rc -ne 0 ]; then
    verdict="FAIL(exit $rc)"
  elif [ -n "$last" ] && ! grep -qE "^$last[[:space:]]+[0-9]" "$log"; then
    verdict="FAIL(no $last row)"
  elif [ -z "$last" ] && ! grep -qE "^[[:space:]]*[0-9]+\.[0-9]+" "$log"; then
    verdict="FAIL(no result)"
  else
    verdict=PASS
  fi
  printf '%-20s %3s  %-18s %7.1f s\n' "$prog" "$np" "$verdict" "$(echo "$t1 - $t0" | bc)"
  if [ "$verdict" = PASS ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); failed+=("$prog np$np: $log")
    sed 's/^/    | /' "$log" | tail -8
  fi
}

build_with ftmpi "$build/bin/mpicc" "$build/bin/mpicxx" || exit 1
coll_programs() {  # every collective program the build produced, blocking and nonblocking
  (cd "$work/ftmpi/mpi/collective" && for f in osu_*; do
     [ -x "$f" ] && [[ $f != *.* ]] && echo "$f"; done)
}
coll_args() {  # PROGRAM MAX: the sizes a collective program runs ("" for the barriers)
  case $1 in
    *barrier) echo "" ;;
    *) echo "$2" ;;
  esac
}

printf '%-20s %3s  %-18s %9s\n' program np verdict time
if [ $short -eq 1 ]; then
  # What ctest runs: one of each kind, tiny limits. The pt2pt programs have no size option:
  # they always go to 4 MiB, so one iteration each.
  run 2 pt2pt osu_latency 4194304 -i 2 -x 1
  run 2 pt2pt osu_bw 4194304 -i 1 -x 1
  run 2 pt2pt osu_latency_mt 4194304 -i 2 -x 1
  for p in osu_allreduce osu_alltoallv osu_ibcast osu_iallgatherv osu_ialltoallw osu_ibarrier; do
    run 2 collective "$p" "$(coll_args "$p" 4096)" -m 4096 -i 5 -x 1
  done
  run 3 collective osu_iscatter 4096 -m 4096 -i 5 -x 1
else
  run 2 pt2pt osu_latency 4194304 -i 20 -x 2
  run 2 pt2pt osu_multi_lat 4194304 -i 20 -x 2
  run 2 pt2pt osu_latency_mt 4194304 -i 20 -x 2
  run 2 pt2pt osu_bw 4194304 -i 5 -x 1
  run 2 pt2pt osu_bibw 4194304 -i 5 -x 1
  run 2 pt2pt osu_mbw_mr 4194304 -i 5 -x 1
  for np in 2 4; do
    for p in $(coll_programs); do
      run "$np" collective "$p" "$(coll_args "$p" 65536)" -m 65536 -i 20 -x 2
    done
  done
fi
echo "osu_suite: $pass passed, $fail failed"
for f in "${failed[@]}"; do echo "  FAILED $f"; done

if [ $compare -eq 1 ]; then
  # Same sources, same flags, each implementation's wrapper and launcher, one after another.
  impls=ftmpi
  for i in mpich openmpi; do
    command -v "mpicc.$i" >/dev/null || { echo "osu_suite: no mpicc.$i, left out" >&2; continue; }
    build_with "$i" "mpicc.$i" "mpicxx.$i" && impls="$impls $i"
  done
  mkdir -p "$work/cmp"
  for i in $impls; do
    (cd "$work/$i/mpi" &&
     launch "$i" 2 pt2pt/osu_latency -i 2000 -x 200 >"$work/cmp/lat.$i" 2>&1
     launch "$i" 2 pt2pt/osu_bw -i 50 -x 5 >"$work/cmp/bw.$i" 2>&1
     launch "$i" 4 collective/osu_allreduce -m 1048576 -i 200 -x 20 >"$work/cmp/allred.$i" 2>&1)
  done
  echo
  echo "| benchmark | size (B) | $(for i in $impls; do printf '%s | ' "$i"; done)ftmpi/MPICH | ftmpi/Open MPI |"
  echo "|---|---:|$(for i in $impls; do printf -- '---:|'; done)---:|---:|"
  for b in "lat:osu_latency 2 ranks (us):8 1024 4096 16384 32768 65536 262144 1048576 4194304" \
           "bw:osu_bw 2 ranks (MB/s):8 1024 16384 65536 262144 1048576 4194304" \
           "allred:osu_allreduce 4 ranks (us):8 1024 65536 1048576"; do
    key=${b%%:*}; rest=${b#*:}; name=${rest%%:*}; sizes=${rest#*:}
    for s in $sizes; do
      row="| $name | $s |"; declare -A vals=([mpich]=- [openmpi]=-)
      for i in $impls; do
        v=$(awk -v s="$s" '$1 == s {print $2}' "$work/cmp/$key.$i" 2>/dev/null)
        vals[$i]=${v:--}; row="$row ${v:--} |"
      done
      f=${vals[ftmpi]}
      for k in mpich openmpi; do
        o=${vals[$k]}
        if [ "$f" != - ] && [ "$o" != - ]; then
          row="$row $(awk -v a="$f" -v b="$o" 'BEGIN { printf "%.2f", a / b }') |"
        else
          row="$row - |"
        fi
      done
      echo "$row"
    done
  done
fi
[ $fail -eq 0 ]
