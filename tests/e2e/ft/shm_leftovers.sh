#!/usr/bin/env bash
# A job in which ranks were SIGKILLed leaves no /dev/shm segment behind once it ends (issue 16
# item 4): the killed ranks' rings and bulk slots are removed by the daemon when it reaps them
# (transport/segments: the one sweeper), the others' by their own clean close.
#   shm_leftovers.sh MPIRUN BIN
set -u
mpirun=$1 bin=$2
export PIDDIR=$(mktemp -d)
trap 'rm -rf "$PIDDIR"' EXIT
out=$("$(dirname "$0")/../watchdog.sh" 60 "$mpirun" -n 4 --comm-mode shrink "$bin/ft_hang" loop 20 1@3+0 2@6+1 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "shm_leftovers: FAIL: the job exited $rc"; exit 1; }
sleep 0.5
n=0 bad=0
for f in "$PIDDIR"/rank.*; do
  [ -e "$f" ] || continue
  pid=$(cat "$f")
  n=$((n + 1))
  left=$(ls /dev/shm | grep -E "^(ftmpi-ring\.${pid}\.|${pid}:)" || true)
  if [ -n "$left" ]; then
    echo "shm_leftovers: FAIL: process $pid left: $left"
    bad=1
  fi
done
[ $n -eq 4 ] || { echo "shm_leftovers: FAIL: $n of 4 pids recorded"; exit 1; }
[ $bad -eq 0 ] && echo "shm_leftovers: PASS (2 of 4 ranks killed, no segment of any of them left)"
exit $bad
