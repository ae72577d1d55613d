#!/usr/bin/env bash
# REBUILD with and without a hot spare (issue 17 item 5), in one run: ft_latency at NP ranks
# under --comm-mode rebuild, alternating --spares 0 and --spares 1 REPS times each. Prints the
# medians over runs of rebuild_all_ms (first survivor's error return to the end of
# MPI_Comm_dup on every process, replacement included) and of the survivors' own repair
# median, and the ratio spare / no spare.
# With HOSTS > 1 (root: tests/netns/hosts.sh) the job runs on that many namespace hosts with
# --map-by node from the first one: the victim (rank NP-1) is then on another host than the
# spare (process index NP, which mpirun puts on the first host), and a started replacement
# goes to the least loaded host.
# With OLD-BUILD (another build directory, e.g. of an older commit) both builds alternate in the
# same run, each with --spares 0 and 1, and the table has a row per build and spare count.
# OLD-BUILD may instead be `env:NAME=VALUE`: the same build alternates with runs that get
# `-x NAME=VALUE` (e.g. env:FTMPI_SPARE_PRECONNECT=0, the behaviour before pre-connection).
# IDLE-MS (default 0) is ft_latency's wait before the victim dies: 0 kills it right after
# start-up (a spare may still be busy with its own start), e.g. 500 when the job has settled.
# Usage: tests/bench/spares.sh [build-dir] [reps] [np] [hosts] [old-build-dir|env:NAME=VALUE] [idle-ms]
set -euo pipefail
build=$(readlink -f "${1:-build}")
reps=${2:-11}
np=${3:-8}
hosts=${4:-1}
oldenv=
case "${5:-}" in
  env:*=*) oldenv=${5#env:}; old="$build:$oldenv" ;;  # a label: the build, then the setting
  *) old=${5:+$(readlink -f "$5")} ;;
esac
idle=${6:-0}
for b in "$build" ${old%%:*}; do
  [ -x "$b/bin/ftmpi-ft_latency" ] ||
    { echo "build $b/bin/ftmpi-ft_latency first (cmake --build $b --target bench_ft_latency)" >&2; exit 1; }
done
run=()
hostargs=()
if [ "$hosts" -gt 1 ]; then
  here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
  export FTNS
  FTNS=$(bash "$here/../netns/hosts.sh" up "$hosts" 4)
  trap 'bash "$here/../netns/hosts.sh" down' EXIT
  run=(bash "$here/../netns/hosts.sh" exec "$(awk 'NR == 1 {print $1}' "$FTNS/hosts")")
  hostargs=(--hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node)
fi
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}'; }
results=""  # lines: BUILD SPARES ft_latency-line
for i in $(seq "$reps"); do
  for b in "$build" $old; do
    for k in 0 1; do
      xargs=()
      [ -n "$oldenv" ] && [ "$b" = "$old" ] && xargs=(-x "$oldenv")
      line=$(timeout 60 "${run[@]}" "${b%%:*}/bin/mpirun" "${hostargs[@]}" -n "$np" --comm-mode rebuild --spares "$k" \
             "${xargs[@]}" "${b%%:*}/bin/ftmpi-ft_latency" $((np - 1)) "$idle" 2>/dev/null | grep '^ft_latency:' || true)
      [ -n "$line" ] || { echo "run $i of $b with --spares $k failed" >&2; continue; }
      results+="$b $k $line"$'\n'
    done
  done
done
pick() { printf '%s' "$results" | awk -v b="$1" -v k="$2" '$1 == b && $2 == k'; }
echo "hosts: $hosts, victim dies ${idle} ms after start-up's barrier"
printf '| build | ranks | spares | runs | REBUILD, error return to every dup done, median (ms) | survivors repair median (ms) |\n|---|---|---|---|---|---|\n'
for b in "$build" $old; do
  for k in 0 1; do
    printf '| %s | %s | %s | %s | %s | %s |\n' "$b" "$np" "$k" "$(pick "$b" "$k" | grep -c . || true)" \
      "$(pick "$b" "$k" | col rebuild_all_ms | median)" "$(pick "$b" "$k" | col repair_median_ms | median)"
  done
done
a0=$(pick "$build" 0 | col rebuild_all_ms | median); a1=$(pick "$build" 1 | col rebuild_all_ms | median)
awk -v a="$a1" -v b="$a0" 'BEGIN {if (b > 0) printf "ratio spare / no spare: %.3f (target: spare median <= 10 ms)\n", a / b}'
