#!/usr/bin/env bash
# hostinfo/cominfo and the job's host table on one machine:
#   host_table.sh BIN TESTBIN
# 1. mpirun -n 2 (one host, nobody pushes a table): hostinfo --json lists one host for the job,
#    this one, with the daemon's pid, ranks 0-1, spares 0, heartbeat_age_ms null.
# 2. host_table_client pushes a 3-host table (as mpirun's hub does): hostinfo --json and the
#    text view list all three with their states, ranks and heartbeat ages.
set -u
bin=$1 tbin=$2
T=$(mktemp -d /tmp/ftmpi-hosttable-test.XXXXXX)
export FTMPI_DAEMON_SOCKET=$T/ftmpid.sock
daemon_pid= mpirun_pid= client_pid=
cleanup() {
  exec 8>&- 2>/dev/null
  [ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null
  [ -n "$mpirun_pid" ] && kill "$mpirun_pid" 2>/dev/null
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
  sleep 0.2
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "host_table.sh: FAIL: $*"; [ -f "$T/last" ] && cat "$T/last"; exit 1; }

"$bin/ftmpid" --socket "$FTMPI_DAEMON_SOCKET" --no-bind --log "$T/daemon.log" &
daemon_pid=$!
for _ in $(seq 100); do [ -S "$FTMPI_DAEMON_SOCKET" ] && break; sleep 0.05; done
[ -S "$FTMPI_DAEMON_SOCKET" ] || fail "daemon did not start"

# retry JQ-EXPR: hostinfo --json satisfies it within 10 s
retry() {
  for _ in $(seq 200); do
    "$bin/hostinfo" --json > "$T/last" 2>&1 && jq -e "$1" "$T/last" >/dev/null && return 0
    sleep 0.05
  done
  fail "hostinfo --json never satisfied: $1"
}

"$bin/mpirun" -n 2 --timeout 60 sleep 30 > "$T/mpirun.out" 2>&1 &
mpirun_pid=$!
retry "[.hosts[0].jobs[0].hosts[]] | length==1 and .[0].name==\"$(hostname)\" and .[0].state==\"ok\"
       and .[0].daemon_pid==$daemon_pid and .[0].ranks==[0,1] and .[0].spares==0 and .[0].heartbeat_age_ms==null"
kill "$mpirun_pid"; wait "$mpirun_pid" 2>/dev/null; mpirun_pid=
retry '.hosts[0].jobs == []'

exec 8> >(exec "$tbin/host_table_client" "$FTMPI_DAEMON_SOCKET" > "$T/client.out" 2>&1)
client_pid=$!
for _ in $(seq 200); do grep -q pushed "$T/client.out" 2>/dev/null && break; sleep 0.05; done
grep -q "pushed $daemon_pid" "$T/client.out" || { cat "$T/client.out"; fail "client did not push"; }
retry '[.hosts[0].jobs[0].hosts[]] | length==3
       and .[0].state=="ok" and .[0].ranks==[0,1] and .[0].heartbeat_age_ms==null
       and .[1].name=="node-b" and .[1].state=="ok" and .[1].daemon_pid==4242 and .[1].ranks==[2,3]
           and .[1].heartbeat_age_ms>=250 and .[1].heartbeat_age_ms<60000
       and .[2].name=="node-c" and .[2].state=="failed" and .[2].ranks==[4,5] and .[2].spares==0'
"$bin/hostinfo" --once --width 120 > "$T/last"
grep -Eq "host node-b  ok  daemon pid 4242  ranks 2-3  spares 0  heartbeat [0-9]+ ms ago" "$T/last" || fail "text view"
grep -q "host node-c  FAILED  daemon pid 4343  ranks 4-5" "$T/last" || fail "text view (failed host)"
exec 8>&-
for _ in $(seq 200); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.05; done
wait "$client_pid"; rc=$?; client_pid=
[ $rc -eq 0 ] || { cat "$T/client.out"; fail "client exited $rc"; }
retry '.hosts[0].jobs == []'
echo "host_table.sh: PASS"
