#!/bin/bash
# tests/bench/nbc_bench.sh — small nonblocking collectives (I<call> + MPI_Wait) of ftmpi next to
# MPICH's and Open MPI's, in one session: Ibarrier, and Ibcast, Ireduce, Iallreduce,
# Iallgather (per rank), Ialltoall (per peer) at 8 B and 64 KiB, at 2, 4 and 8 ranks.
#
# It is tests/bench/run.sh restricted to collbench's nonblocking cases (no ping-pong, no
# fi_pingpong): the same builds with each implementation's own wrapper, the same turns
# (implementations alternate within each round, every other round in reverse), medians over
# repetitions and rounds, and ratios ftmpi/best taken per round (best = the faster of MPICH and
# Open MPI in that round), which cancels this VM's drift. At 2 ranks the 8 B cases also get
# run.sh's placement-mode runs (--pp-rounds short runs in turns, each between two cpu_pair
# probes) and a table by mode: a 2-rank collective is one latency-bound exchange and follows
# the VM's two placement modes (run.sh's header). More rounds than run.sh's default: a round
# is short here.
#
# usage: tests/bench/nbc_bench.sh [run.sh options...]    e.g. --rounds 3 --np "2 4"
#        (--blocking adds the blocking 8 B calls to the same runs, for the nonblocking/blocking ratio)
# Output: the table for the README in <out>/bench.md ("Nonblocking collectives").
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
cases=ibarrier,ibcast,ireduce,iallreduce,iallgather,ialltoall
args=()
for a in "$@"; do
  if [ "$a" = --blocking ]; then
    cases=$cases,barrier,bcast:8,reduce:8,allreduce:8,allgather:8,alltoall:8
  else
    args+=("$a")
  fi
done
exec bash "$here/run.sh" --no-fi --rounds 5 --cases "$cases" \
  --c2-cases ibarrier,ibcast:8,ireduce:8,iallreduce:8,iallgather:8,ialltoall:8 "${args[@]}"
