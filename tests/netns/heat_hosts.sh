#!/bin/bash
# The heat demo on 3 namespace hosts (issue 15 items 6 and 9): 6 ranks of tests/apps/heat spread
# with --map-by node under REBUILD; once the job runs, every process of host 3 (its daemon and
# ranks 2 and 5) is SIGKILLed while every rank waits at step 100 (heat's "*@p100" pause, after
# the save of that step; the job goes on once the kill is done): a host failure. mpirun sees
# the closed connection, both ranks are declared failed in one event, the survivors repair
# once, the replacements start on the surviving hosts, ftckpt hands them their rows from copies
# kept off their (dead) host, and the run must end BIT-IDENTICAL to a failure-free one, with nothing left on the surviving hosts.
#   tests/netns/heat_hosts.sh [MPIRUN_DIR] [HEAT]      (defaults: build/bin, build/tests/bin/heat)
# Needs root (network namespaces). Prints the job's output; exit 0 only if all of it held.
set -u
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(readlink -f "${1:-$root/build/bin}")
heat=$(readlink -f "${2:-$root/build/tests/bin/heat}")
[ -x "$bin/mpirun" ] && [ -x "$heat" ] || { echo "usage: $0 [MPIRUN_DIR] [HEAT]  (build first: bash tools/demo.sh)" >&2; exit 2; }
# The kill does not race the job's end: heat pauses at step 100 until it is done.
steps=${HEAT_STEPS:-2000}

export FTNS
FTNS=$(bash "$here/hosts.sh" up 3 2) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(bash "$here/hosts.sh" names)
mkdir -p "$FTNS/t"
out=$FTNS/t/out

echo "+ mpirun --hostfile (3 hosts x 2 slots) --map-by node -n 6 --comm-mode rebuild heat $steps 50 '*@p100'   (on ${H[0]})"
PIDDIR=$FTNS/t timeout -s KILL 280 bash "$here/hosts.sh" exec "${H[0]}" "$bin/mpirun" \
  --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node -n 6 --comm-mode rebuild \
  --timeout 250 "$heat" "$steps" 50 '*@p100' >"$out" 2>&1 &
job=$!
# Kill host 3 while every rank waits at step 100, after its save (heat marks the pause in
# PIDDIR and waits for heat_go): the job can neither end before the kill nor lose its last
# save to it, however fast it runs (with waits that do not spin, 2000 steps took ~1.5 s).
for _ in $(seq 1200); do
  [ -f "$FTNS/t/heat_paused" ] &&
    [ -n "$(bash "$here/hosts.sh" procs "${H[2]}" 2>/dev/null | xargs -r ps -o comm= -p 2>/dev/null | grep -x heat)" ] && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
[ -f "$FTNS/t/heat_paused" ] || echo "+ (heat did not pause at step 100 within 120 s)"
echo "+ hosts.sh kill ${H[2]}   (its daemon and ranks 2 and 5, SIGKILL)"
bash "$here/hosts.sh" kill "${H[2]}"
touch "$FTNS/t/heat_go"
wait "$job"
rc=$?
cat "$out"
fail() { echo "heat_hosts: FAIL: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "mpirun exited $rc"
grep -q "host ${H[2]} lost" "$out" || fail "no host loss reported"
grep -q "BIT-IDENTICAL" "$out" || fail "the result is not bit-identical"
[ "$(grep -c '^heat: recovered save' "$out")" -eq 1 ] || fail "expected exactly one recovery (one event for the host)"
bash "$here/hosts.sh" clean 30 "${H[0]}" "${H[1]}" || fail "left behind on ${H[0]} or ${H[1]}"
echo "heat_hosts: OK (host ${H[2]} lost, one recovery, bit-identical, nothing left on ${H[0]} and ${H[1]})"
