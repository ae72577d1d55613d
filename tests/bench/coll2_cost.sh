#!/bin/bash
# Instructions per 8 B MPI_Bcast and MPI_Reduce at 2 ranks, each rank on its own
# (coll2_cost.c under valgrind --tool=callgrind), for ftmpi builds and Open MPI (vader). Counts
# do not depend on the machine's load, so builds compare exactly even on a busy machine.
#
#   tests/bench/coll2_cost.sh [BUILD...]     (default: build; each an ftmpi build directory)
# Environment: COLL2_BATCHES (default 100 batches of 32 calls), COLL2_OPENMPI=0 skips Open MPI.
# Prints one markdown table: per call, the sending and the receiving rank of each collective.
# Not a test: ctest never runs it.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
batches=${COLL2_BATCHES:-100}
usage() { echo "usage: tests/bench/coll2_cost.sh [BUILD...]   (ftmpi build directories; default build)" >&2; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=("$root/build")
for b in "${builds[@]}"; do
  [ -x "$b/bin/mpicc" ] && [ -x "$b/bin/mpirun" ] || { echo "coll2_cost.sh: $b has no bin/mpicc and bin/mpirun" >&2; usage; exit 2; }
done
case $batches in ''|*[!0-9]*|0) echo "coll2_cost.sh: COLL2_BATCHES must be a positive integer" >&2; usage; exit 2 ;; esac
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
  echo "coll2_cost.sh: needs valgrind (callgrind_annotate)" >&2
  exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
calls=$(((batches + 2) * 32))  # the 2 warm-up batches run the same functions

# profile NAME RANKVAR MPICC LAUNCH... — callgrind profiles $work/NAME.cg.<rank> of both ranks
# (RANKVAR: the environment variable in which the launcher gives each process its rank).
profile() {
  local name=$1 rankvar=$2 cc=$3
  shift 3
  "$cc" -O2 -g -o "$work/$name" "$root/tests/bench/coll2_cost.c"
  timeout 900 "$@" valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg.%q{$rankvar}" \
    --toggle-collect=bcast_batch --toggle-collect=reduce_batch "$work/$name" "$batches" \
    >"$work/$name.log" 2>&1 || {
    echo "coll2_cost.sh: $name failed:" >&2
    tail -5 "$work/$name.log" >&2
    return 1
  }
}

# count FILE FUNCTION -> inclusive instructions of FUNCTION (the line naming it, not a call);
# awk reads to the end, so that pipefail does not see callgrind_annotate die of SIGPIPE.
count() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk -v f="coll2_cost.c:$2" '!done && index($0, f) && !/=>/ { gsub(",", "", $1); print $1; done = 1 }'
}

# row NAME — per call: bcast at its root (rank 0, sends) and at rank 1 (receives), reduce at
# rank 1 (sends) and at its root (rank 0, receives and combines).
row() {
  local name=$1
  awk -v n="$name" -v c="$calls" -v bs="$(count "$work/$name.cg.0" bcast_batch)" \
    -v br="$(count "$work/$name.cg.1" bcast_batch)" -v rs="$(count "$work/$name.cg.1" reduce_batch)" \
    -v rr="$(count "$work/$name.cg.0" reduce_batch)" \
    'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f |\n", n, bs / c, br / c, rs / c, rr / c }'
}

echo "| 8 B, 2 ranks, instructions per call | bcast root (sends) | bcast other (receives) | reduce other (sends) | reduce root (receives) |"
echo "|---|--:|--:|--:|--:|"
i=0
for b in "${builds[@]}"; do
  i=$((i + 1))
  name=ftmpi$i
  profile "$name" FTMPI_RANK "$b/bin/mpicc" "$b/bin/mpirun" -n 2 && row "$name" | sed "s#| $name |#| ftmpi ($b) |#"
done
if [ "${COLL2_OPENMPI:-1}" != 0 ] && [ -x /usr/bin/mpicc.openmpi ]; then
  profile openmpi OMPI_COMM_WORLD_RANK /usr/bin/mpicc.openmpi /usr/bin/mpirun.openmpi \
    --allow-run-as-root --oversubscribe --mca btl self,vader -n 2 && row openmpi | sed 's#| openmpi |#| Open MPI (vader) |#'
fi
