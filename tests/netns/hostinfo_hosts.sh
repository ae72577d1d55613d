#!/bin/bash
# hostinfo and cominfo on mpirun's host for a job on 3 namespace hosts (issue 15 item 7):
#   hostinfo_hosts.sh CASE BIN_DIR
# table     mpirun on host 1, 6 x `sleep` --map-by node under SHRINK: hostinfo --json on host 1
#           lists the job's 3 hosts in order with their daemons' real pids (looked up on each
#           host), ranks 0,3 / 1,4 / 2,5, all ok, no heartbeat age for host 1 and a fresh one
#           (< 1.5 s) for hosts 2 and 3, refreshed while the job runs; the text view names them.
#           Then host 3's daemon is SIGKILLed: hostinfo shows host 3 FAILED (ranks kept), the
#           others ok, and the job goes on. cominfo --json on host 1 lists the job.
# no_local  mpirun on host 1 with --host H2:2,H3:1 (no rank on mpirun's host) running
#           tests/e2e/tools/ft_phases (SHRINK): hostinfo and cominfo on host 1 still find the job
#           (mpirun's local daemon keeps a mirror entry of it): hosts 2 and 3 with ranks 0,1 / 2;
#           cominfo shows MPI_COMM_WORLD (reported by the ranks to their own daemons and passed
#           on through mpirun) with each rank's host, then rank 1 FAILED after it died, then the
#           repaired "work" communicator; the job ends 0 and nothing is left on any host.
# After each case nothing of the job may be left on any live host.
set -u
CASE=$1 BIN=$2 TBIN=${3:-}
here=$(dirname "$(readlink -f "$0")")
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(bash "$here/hosts.sh" names)
T=$FTNS/t
mkdir -p "$T"

fail() {
    echo "FAIL [$CASE]: $*"
    echo "--- last hostinfo/cominfo"; cat "$T/last" 2>/dev/null
    echo "--- mpirun stdout"; cat "$T/out" 2>/dev/null; echo "--- mpirun stderr"; cat "$T/err" 2>/dev/null
    exit 1
}

# start ARGS...: mpirun on host 1 in the background; its exit code lands in $T/rc.
start() {
    rm -f "$T/rc"
    ( timeout -s KILL 90 bash "$here/hosts.sh" exec "${H[0]}" sh -c 'echo $$ > "$0/mpirun.pid"; exec "$@"' "$T" \
        "$BIN/mpirun" --launcher-exec "$FTNS/ssh" "$@" >"$T/out" 2>"$T/err" </dev/null
      echo $? > "$T/rc" ) &
}
# on1 TOOL JQ-EXPR: TOOL --json run on host 1 satisfies JQ-EXPR within 15 s.
on1() {
    local tool=$1 expr=$2
    for _ in $(seq 150); do
        bash "$here/hosts.sh" exec "${H[0]}" "$BIN/$tool" --json > "$T/last" 2>&1 &&
            jq -e "$expr" "$T/last" >/dev/null 2>&1 && return 0
        [ -f "$T/rc" ] && fail "mpirun ended while waiting for: $tool: $expr"
        sleep 0.1
    done
    fail "$tool --json on ${H[0]} never satisfied: $expr"
}
# daemon_pid HOST: the pid of the ftmpid running on HOST (exactly one).
daemon_pid() {
    local p found=
    for p in $(bash "$here/hosts.sh" procs "$1"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = ftmpid ] && found="$found $p"
    done
    set -- $found
    [ $# -eq 1 ] || fail "expected one ftmpid on the host, found: $found"
    echo "$1"
}
end_job() {
    kill -TERM "$(cat "$T/mpirun.pid")" 2>/dev/null
    for _ in $(seq 300); do [ -f "$T/rc" ] && break; sleep 0.05; done
    [ -f "$T/rc" ] || fail "mpirun did not end"
}
expect_clean() { bash "$here/hosts.sh" clean 50 "$@" || fail "left behind on $*"; }

JOB='.hosts[] | select(.daemon_pid > 0) | .jobs[] | select(.id | endswith("-hosts"))'

case_table() {
    start --hostfile "$FTNS/hostfile" -n 6 --map-by node --comm-mode shrink sleep 60
    on1 hostinfo "[$JOB | .hosts[]] | length == 3"
    local p1 p2 p3; p1=$(daemon_pid "${H[0]}"); p2=$(daemon_pid "${H[1]}"); p3=$(daemon_pid "${H[2]}")
    on1 hostinfo "[$JOB | .hosts[]] as \$h
        | \$h[0].name == \"${H[0]}\" and \$h[1].name == \"${H[1]}\" and \$h[2].name == \"${H[2]}\"
        and \$h[0].daemon_pid == $p1 and \$h[1].daemon_pid == $p2 and \$h[2].daemon_pid == $p3
        and \$h[0].ranks == [0,3] and \$h[1].ranks == [1,4] and \$h[2].ranks == [2,5]
        and ([\$h[].state] | all(. == \"ok\")) and ([\$h[].spares] | all(. == 0))
        and \$h[0].heartbeat_age_ms == null
        and \$h[1].heartbeat_age_ms >= 0 and \$h[1].heartbeat_age_ms < 1500
        and \$h[2].heartbeat_age_ms >= 0 and \$h[2].heartbeat_age_ms < 1500"
    # Still fresh seconds later: the table is refreshed, not a picture of the start.
    sleep 2
    on1 hostinfo "[$JOB | .hosts[]] as \$h | \$h[1].heartbeat_age_ms < 1500 and \$h[2].heartbeat_age_ms < 1500"
    bash "$here/hosts.sh" exec "${H[0]}" "$BIN/hostinfo" --once --width 200 > "$T/last" 2>&1
    for h in "${H[@]}"; do grep -Eq "host $h  ok  daemon pid [0-9]+  ranks" "$T/last" || fail "text view lacks $h"; done
    on1 cominfo ".jobs | length == 1"

    kill -9 "$p3"
    on1 hostinfo "[$JOB | .hosts[]] as \$h
        | \$h[2].state == \"failed\" and \$h[2].ranks == [2,5] and \$h[0].state == \"ok\" and \$h[1].state == \"ok\""
    bash "$here/hosts.sh" exec "${H[0]}" "$BIN/hostinfo" --once --width 200 > "$T/last" 2>&1
    grep -q "host ${H[2]}  FAILED  daemon pid $p3  ranks 2,5" "$T/last" || fail "text view: host 3 not FAILED"
    [ -f "$T/rc" ] && fail "the job ended with host 3 (SHRINK must go on)"
    grep -q "host ${H[2]} lost" "$T/err" || fail "mpirun did not report host 3 lost"
    end_job
    expect_clean "${H[0]}" "${H[1]}"
    echo "ok [table] 3 hosts, daemons $p1 $p2 $p3, host 3 shown failed after its daemon was killed"
}

case_no_local() {
    local W='.jobs[] | select(.id | endswith("-hosts")) | .comms[]'
    start --host "${H[1]}:2,${H[2]}:1" -n 3 --comm-mode shrink "$TBIN/ft_phases" "$T"
    on1 hostinfo "[$JOB | .hosts[]] as \$h | (\$h | length) == 2
        and \$h[0].name == \"${H[1]}\" and \$h[0].ranks == [0,1] and \$h[1].name == \"${H[2]}\" and \$h[1].ranks == [2]
        and ([\$h[].state] | all(. == \"ok\")) and \$h[0].heartbeat_age_ms < 1500"
    on1 hostinfo "[.hosts[].jobs[] | select(.id | endswith(\"-hosts\"))] | length == 1 and .[0].procs == []"
    for _ in $(seq 300); do [ -f "$T/ready1" ] && break; sleep 0.1; done
    [ -f "$T/ready1" ] || fail "phase 1 never reached"
    on1 cominfo "[$W | select(.name == \"MPI_COMM_WORLD\")] | length == 1 and .[0].size == 3
        and ([.[0].procs[].host] == [\"${H[1]}\", \"${H[1]}\", \"${H[2]}\"])"
    touch "$T/go1"
    for _ in $(seq 300); do [ -f "$T/ready2" ] && break; sleep 0.1; done
    [ -f "$T/ready2" ] || fail "phase 2 never reached"
    on1 cominfo "[$W | select(.name == \"MPI_COMM_WORLD\") | .procs[] | select(.state == \"FAILED\") | .rank] == [1]"
    touch "$T/go2"
    for _ in $(seq 300); do [ -f "$T/ready3" ] && break; sleep 0.1; done
    [ -f "$T/ready3" ] || fail "phase 3 never reached"
    on1 cominfo "[$W | select(.name == \"work\")] | length == 1 and .[0].size == 2 and .[0].state == \"OK\""
    touch "$T/go3"
    for _ in $(seq 300); do [ -f "$T/rc" ] && break; sleep 0.1; done
    [ "$(cat "$T/rc" 2>/dev/null)" = 0 ] || fail "mpirun exit $(cat "$T/rc" 2>/dev/null)"
    grep -q "ft_phases OK" "$T/out" || fail "ft_phases did not finish"
    expect_clean "${H[0]}" "${H[1]}" "${H[2]}"
    echo "ok [no_local] the job and its communicators are found on mpirun's host without a rank there"
}

case "$CASE" in
    table) case_table ;;
    no_local) case_no_local ;;
    *) echo "unknown case $CASE"; exit 2 ;;
esac
