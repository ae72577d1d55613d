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
# Usage: tests/bench/spares.sh [build-dir] [reps] [np] [hosts]
set -euo pipefail
build=$(readlink -f "${1:-build}")
reps=${2:-11}
np=${3:-8}
hosts=${4:-1}
prog=$build/bin/ftmpi-ft_latency
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ft_latency)" >&2; exit 1; }
run=("$build/bin/mpirun")
if [ "$hosts" -gt 1 ]; then
  here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
  export FTNS
  FTNS=$(bash "$here/../netns/hosts.sh" up "$hosts" 4)
  trap 'bash "$here/../netns/hosts.sh" down' EXIT
  run=(bash "$here/../netns/hosts.sh" exec "$(awk 'NR == 1 {print $1}' "$FTNS/hosts")" "$build/bin/mpirun"
       --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node)
fi
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}'; }
none=""; one=""
for i in $(seq "$reps"); do
  for k in 0 1; do
    line=$(timeout 60 "${run[@]}" -n "$np" --comm-mode rebuild --spares "$k" "$prog" $((np - 1)) 2>/dev/null |
           grep '^ft_latency:' || true)
    [ -n "$line" ] || { echo "run $i with --spares $k failed" >&2; continue; }
    if [ "$k" = 0 ]; then none+="$line"$'\n'; else one+="$line"$'\n'; fi
  done
done
a0=$(printf '%s' "$none" | col rebuild_all_ms | median); a1=$(printf '%s' "$one" | col rebuild_all_ms | median)
r0=$(printf '%s' "$none" | col repair_median_ms | median); r1=$(printf '%s' "$one" | col repair_median_ms | median)
echo "hosts: $hosts"
printf '| ranks | spares | runs | REBUILD, error return to every dup done, median (ms) | survivors repair median (ms) |\n|---|---|---|---|---|\n'
printf '| %s | 0 | %s | %s | %s |\n' "$np" "$(printf '%s' "$none" | grep -c . || true)" "$a0" "$r0"
printf '| %s | 1 | %s | %s | %s |\n' "$np" "$(printf '%s' "$one" | grep -c . || true)" "$a1" "$r1"
awk -v a="$a1" -v b="$a0" 'BEGIN {if (b > 0) printf "ratio spare / no spare: %.3f (target: spare median <= 10 ms)\n", a / b}'
