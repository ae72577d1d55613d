#!/usr/bin/env bash
# async.handover.*: nbc_async handover under FTMPI_DEBUG=1, then a count, not a time: each
# rank's progress thread took the library lock ("asynchronous progress thread ends: N bursts")
# at most 1 time in 100 collectives (+ 10 for the start-up and the blocking rounds). While the
# application is inside MPI_Iallreduce/MPI_Wait it drives progress itself; the thread used to be
# woken at the end of every MPI_Wait and take the lock from the caller.
#   handover_check.sh RUN_MPI MPIRUN NP ROUNDS ITERS
set -u
run=$1 mpirun=$2 np=$3 rounds=$4 iters=$5
bin=$(dirname "$mpirun")/../tests/bin/nbc_async
out=$("$run" "$mpirun" 0 "rank 0: nbc_async handover OK" -- -n "$np" -x FTMPI_DEBUG=1 \
      "$bin" handover "$rounds" "$iters" 2>&1) || { printf '%s\n' "$out"; exit 1; }
printf '%s\n' "$out" | grep -E 'nbc_async handover|progress thread ends'
counts=$(printf '%s\n' "$out" | sed -nE 's/.*asynchronous progress thread ends: ([0-9]+) bursts.*/\1/p')
n=$(printf '%s\n' "$counts" | grep -c .)
[ "$n" -eq "$np" ] || { echo "FAIL: $n of $np ranks logged their progress thread's end"; exit 1; }
limit=$(( rounds * iters / 100 + 10 ))
worst=$(printf '%s\n' "$counts" | sort -n | tail -1)
if [ "$worst" -gt "$limit" ]; then
  echo "FAIL: a progress thread took the library lock $worst times in $((rounds * iters)) I<call> + MPI_Wait (limit $limit): it competes with the caller"
  exit 1
fi
echo "handover_check: most bursts of a rank's progress thread $worst (limit $limit) OK"
