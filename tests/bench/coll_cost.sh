#!/bin/bash
# Instructions per 8 B MPI_Bcast and MPI_Reduce at NP ranks, each rank on its own
# (coll_cost.c under valgrind --tool=callgrind), for ftmpi builds and Open MPI (vader). Counts
# do not depend on the machine's load, so builds compare exactly even on a busy machine. With
# more ranks than cores a stream of 8 B broadcasts is bound by the CPU all ranks spend per
# call (the column "all ranks"), not by one message's latency.
#
#   tests/bench/coll_cost.sh NP [BUILD...]   (NP: 2 to 16 ranks; BUILD: ftmpi build
#                                             directories, default build)
# Environment: COLL_BATCHES (batches of 32 calls; default 100 at 2 ranks, 30 above),
# COLL_OPENMPI=0 skips Open MPI (under valgrind its polling ranks take minutes from 4 up).
# Prints one markdown table: per call, each rank's count of each collective (root 0) and
# their sum. Not a test: ctest never runs it.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
usage() { echo "usage: tests/bench/coll_cost.sh NP [BUILD...]   (NP 2-16; ftmpi build directories, default build)" >&2; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
np=${1:-}
case $np in ''|*[!0-9]*) usage; exit 2 ;; esac
[ "$np" -ge 2 ] && [ "$np" -le 16 ] || { echo "coll_cost.sh: NP must be 2 to 16" >&2; usage; exit 2; }
shift
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=("$root/build")
for b in "${builds[@]}"; do
  [ -x "$b/bin/mpicc" ] && [ -x "$b/bin/mpirun" ] || { echo "coll_cost.sh: $b has no bin/mpicc and bin/mpirun" >&2; usage; exit 2; }
done
batches=${COLL_BATCHES:-$([ "$np" -eq 2 ] && echo 100 || echo 30)}
case $batches in ''|*[!0-9]*|0) echo "coll_cost.sh: COLL_BATCHES must be a positive integer" >&2; usage; exit 2 ;; esac
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
  echo "coll_cost.sh: needs valgrind (callgrind_annotate)" >&2
  exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
calls=$(((batches + 2) * 32))  # the 2 warm-up batches run the same functions

# profile NAME RANKVAR MPICC LAUNCH... — callgrind profiles $work/NAME.cg.<rank> of every rank
# (RANKVAR: the environment variable in which the launcher gives each process its rank).
profile() {
  local name=$1 rankvar=$2 cc=$3
  shift 3
  "$cc" -O2 -g -o "$work/$name" "$root/tests/bench/coll_cost.c"
  timeout 900 "$@" valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg.%q{$rankvar}" \
    --toggle-collect=bcast_batch --toggle-collect=reduce_batch "$work/$name" "$batches" \
    >"$work/$name.log" 2>&1 || {
    echo "coll_cost.sh: $name failed:" >&2
    tail -5 "$work/$name.log" >&2
    return 1
  }
}

# count FILE FUNCTION -> inclusive instructions of FUNCTION (the line naming it, not a call);
# awk reads to the end, so that pipefail does not see callgrind_annotate die of SIGPIPE.
count() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk -v f="coll_cost.c:$2" '!done && index($0, f) && !/=>/ { gsub(",", "", $1); print $1; done = 1 }'
}

# row NAME — per call: bcast and reduce (root 0) at each rank, and the sum over ranks.
row() {
  local name=$1 r f v line
  line="| $name |"
  for f in bcast_batch reduce_batch; do
    local sum=0
    for ((r = 0; r < np; r++)); do
      v=$(count "$work/$name.cg.$r" "$f")
      v=$(awk -v v="${v:-0}" -v c="$calls" 'BEGIN { printf "%.0f", v / c }')
      line="$line $v |"
      sum=$((sum + v))
    done
    line="$line **$sum** |"
  done
  echo "$line"
}

head="| 8 B, $np ranks, instructions per call |" rule="|---|"
for f in bcast reduce; do
  for ((r = 0; r < np; r++)); do head="$head $f $r |" rule="$rule--:|"; done
  head="$head $f all ranks |" rule="$rule--:|"
done
echo "$head"
echo "$rule"
i=0
for b in "${builds[@]}"; do
  i=$((i + 1))
  name=ftmpi$i
  profile "$name" FTMPI_RANK "$b/bin/mpicc" "$b/bin/mpirun" -n "$np" && row "$name" | sed "s#| $name |#| ftmpi ($b) |#"
done
if [ "${COLL_OPENMPI:-1}" != 0 ] && [ -x /usr/bin/mpicc.openmpi ]; then
  profile openmpi OMPI_COMM_WORLD_RANK /usr/bin/mpicc.openmpi /usr/bin/mpirun.openmpi \
    --allow-run-as-root --oversubscribe --mca btl self,vader -n "$np" && row openmpi | sed 's#| openmpi |#| Open MPI (vader) |#'
fi
