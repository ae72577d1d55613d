#!/bin/bash
# mpirun's host plan on this machine alone: every spelling of this machine (localhost, its host
# name, an address, the Slurm allocation's node list) merges into one local host whose slots
# add up, and its ranks run without any launcher.
#   host_plan_local.sh BIN_DIR
set -uo pipefail
bin=$1
T=$(mktemp -d /tmp/ftmpi-hostplan.XXXXXX)
trap 'rm -rf "$T"' EXIT
# A private daemon: never depend on (or disturb) one the user runs.
export FTMPI_DAEMON_SOCKET=$T/no-daemon-here.sock
# No launcher may be used: make any attempt fail loudly.
export FTMPI_LAUNCHER_EXEC=$T/no-launcher
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE
me=$(hostname)
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }

# run N ARGS...: mpirun ARGS... hostname must print this host's name exactly N times.
run() {
  local n=$1; shift
  timeout -s KILL 60 "$bin/mpirun" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  [ $rc -eq 0 ] || fail "mpirun $*: exit $rc"
  [ "$(grep -cx "$me" "$T/out")" -eq "$n" ] && [ "$(wc -l < "$T/out")" -eq "$n" ] ||
    fail "mpirun $*: expected $n lines '$me'"
}

run 4 --host "localhost:2,$me:2" -n 4 hostname
run 4 --host "localhost:2,$me:2" hostname            # -n defaults to the slots: 2 + 2
run 3 --host localhost --host "$me:2" --map-by node hostname
run 5 -map-by=slot --host 127.0.0.1:2 -n 5 hostname  # oversubscribed: wraps around
printf '# this machine three times\nlocalhost slots=2 max_slots=4\n%s:1\n\n127.0.0.1  # one slot\n' "$me" > "$T/hosts"
run 4 --hostfile "$T/hosts" hostname
# Inside a Slurm allocation of this one node: its tasks per node give the slots.
SLURM_JOB_NODELIST=$me SLURM_TASKS_PER_NODE=3 run 3 hostname
SLURM_JOB_NODELIST=$me SLURM_TASKS_PER_NODE=3 run 2 --host localhost:2 hostname  # flags win
# --display-map names the one merged host with its slots and ranks.
timeout -s KILL 60 "$bin/mpirun" --display-map --host "localhost:2,$me" -n 4 true >"$T/out" 2>"$T/err" ||
  fail "mpirun --display-map: exit $?"
grep -qx '  host 0 localhost (this machine): slots 3, ranks 0-3' "$T/err" || fail "--display-map"
echo "host plan (local) OK"
