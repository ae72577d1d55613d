#!/bin/bash
# Hot spares on 3 namespace hosts (issue 17 item 5):
#   spares_hosts.sh loop|preconnect|heat BIN_DIR TEST_BIN_DIR [ROUNDS | HEAT]
# loop  ROUNDS rounds of `spare_probe` (tests/e2e/ft), -n 6 --map-by node --comm-mode rebuild
#       --spares 1: mpirun puts the one spare on host 1 (process index 6; spares go round robin
#       over the hosts from the first). Once it waits, hostinfo --json on host 1 counts it there
#       and nowhere else; then rank 1 (host 2) or rank 2 (host 3), alternately, is killed: host 1's
#       daemon must hand it to its spare ("hot spare pid P takes rank R" in its log), the job
#       ends 0 with every rank counted once, and nothing is left on any host.
# preconnect  ROUNDS rounds (FTMPI_DEBUG on) of the spare's pre-connection (spare_connect.h):
#       the first spare (index 6, host 1) is SIGKILLed as soon as it has a tcp connection to
#       another host (ss), i.e. while it opens its connections; its replacement (same index) opens them to ranks
#       of which rank 0 and the victim (rank 1 or 2, on hosts 2 and 3) wait outside MPI, so its
#       connections to them are still open requests when the victim dies. The victim's rank
#       must go to the second spare, the job end 0 with exactly one failure reported (the
#       killed spare is none), and nothing be left on any host.
# heat  the heat demo (tests/apps/heat), 6 ranks --map-by node, --spares 2 (index 6 on host 1,
#       index 7 on host 2) under REBUILD: rank 2 (host 3) kills itself at step 57; the spare on
#       host 1 takes it and mpirun tops up on host 3. After that recovery, while every rank
#       waits at step 200 (heat's "*@p200" pause, after that step's save), host 2 is
#       SIGKILLed (its daemon, ranks 1 and 4 and spare 7): spare 7's index moves to a live
#       host, and BOTH lost ranks go to spares on hosts 1 and 3 in one repair. The result
#       must be BIT-IDENTICAL, with two recoveries, no spare counted as a failure, and nothing
#       left on hosts 1 and 3.
# The daemons log to $T/d.log (host 1, mpirun's) and $T/d.log.1, $T/d.log.2 (hosts 2 and 3).
set -u
CASE=$1 BIN=$(readlink -f "$2") TBIN=$(readlink -f "$3") ARG=${4:-}
here=$(dirname "$(readlink -f "$0")")
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3 2) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(awk '{print $1}' "$FTNS/hosts")
T=$FTNS/t
mkdir -p "$T"
STEP=

fail() {
    echo "FAIL [$CASE/$STEP]: $*"
    echo "--- output"; cat "$T/out" 2>/dev/null
    echo "--- daemon logs (spares, replacements)"
    grep -E 'spare|replacement|lost' "$T"/d.log* 2>/dev/null | tail -40
    exit 1
}
expect_clean() {
    local h
    for _ in $(seq 50); do
        local dirty=0
        for h in "$@"; do bash "$here/hosts.sh" leftovers "$h" >/dev/null || dirty=1; done
        [ $dirty -eq 0 ] && return 0
        sleep 0.1
    done
    for h in "$@"; do bash "$here/hosts.sh" leftovers "$h" || fail "left behind on $h"; done
}
# wait_for SECONDS CMD...: until CMD succeeds (every 0.1 s); 1 when it never did or mpirun ended.
MP=0
wait_for() {
    local n=$(( $1 * 10 )); shift
    for _ in $(seq "$n"); do
        "$@" && return 0
        kill -0 "$MP" 2>/dev/null || { "$@"; return; }
        sleep 0.1
    done
    return 1
}
# start LIMIT ARGS...: mpirun on host 1 in the background (pid in MP), output in $T/out.
start() {
    local limit=$1; shift
    rm -f "$T"/d.log* "$T"/go "$T"/rank.* "$T"/heat_*
    PIDDIR=$T FTMPI_DAEMON_LOG=$T/d.log timeout -s KILL "$limit" bash "$here/hosts.sh" exec "${H[0]}" \
        "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --timeout "$((limit - 10))" "$@" \
        >"$T/out" 2>&1 </dev/null &
    MP=$!
}
# The log of host index I (0 = mpirun's host).
log_of() { [ "$1" -eq 0 ] && echo "$T/d.log" || echo "$T/d.log.$1"; }
spare_started() { grep -q "hot spare on process index $2 started" "$(log_of "$1")" 2>/dev/null; }
spare_took() { grep -q "hot spare pid [0-9]* takes rank $2 " "$(log_of "$1")" 2>/dev/null; }

case_loop() {
    local rounds=${ARG:-10} round victim on json
    for round in $(seq "$rounds"); do
        victim=$(( 2 - round % 2 ))  # 1 (host 2), 2 (host 3), ...
        STEP="round $round, rank $victim"
        start 120 -n 6 --map-by node --comm-mode rebuild --spares 1 "$TBIN/spare_probe" "$T/go" "$victim"
        wait_for 60 spare_started 0 6 || fail "no spare started on ${H[0]} (index 6)"
        # Per host in the tools: 1 on host 1, 0 elsewhere.
        ok=0
        for _ in $(seq 50); do
            json=$(bash "$here/hosts.sh" exec "${H[0]}" "$BIN/hostinfo" --json 2>/dev/null)
            echo "$json" | jq -e '[.hosts[] | select(.daemon_pid > 0) | .jobs[] | .hosts[] | .spares] == [1,0,0]' \
                >/dev/null 2>&1 && { ok=1; break; }
            sleep 0.1
        done
        [ $ok -eq 1 ] || fail "hostinfo --json does not show the spare on ${H[0]} only: $json"
        touch "$T/go"
        wait "$MP"; rc=$?
        [ $rc -eq 0 ] || fail "mpirun exited $rc"
        grep -q "spare_probe OK size 6" "$T/out" || fail "no OK line"
        spare_took 0 "$victim" || fail "rank $victim (killed on host $((victim + 1))) did not go to the spare on ${H[0]}"
        for on in 1 2; do spare_took "$on" "$victim" && fail "a spare on host $((on + 1)) took rank $victim too"; done
        expect_clean "${H[@]}"
    done
    echo "ok [loop] $rounds rounds: the killed rank went to the spare on ${H[0]} (another host); hostinfo counted it; nothing left"
}

# The pid of the N-th spare started on host 1 (daemon log), or nothing.
nth_spare_pid() {
    grep -o 'hot spare on process index 6 started (pid [0-9]*)' "$T/d.log" 2>/dev/null | sed -n "$1p" |
        grep -o '[0-9]*)$' | tr -d ')'
}
has_spare() { [ -n "$(nth_spare_pid "$1")" ]; }
# At least N tcp connections of process PID (on host 1) to hosts 2 and 3 are established: its
# pre-connection is under way (a waiting spare's own output is not forwarded, so ss tells).
remote_links() {
    local n
    n=$(bash "$here/hosts.sh" exec "${H[0]}" ss -Htnp state established 2>/dev/null |
        grep "pid=$1," | awk '{print $4}' | sed 's/:[0-9]*$//' | grep -cxF -e "$A1" -e "$A2")
    [ "$n" -ge "$2" ]
}

case_preconnect() {
    local rounds=${ARG:-3} round victim p q
    A1=$(awk 'NR == 2 {print $2}' "$FTNS/hosts") A2=$(awk 'NR == 3 {print $2}' "$FTNS/hosts")
    for round in $(seq "$rounds"); do
        victim=$(( 2 - round % 2 ))
        STEP="round $round, rank $victim"
        FTMPI_DEBUG=1 start 120 -n 6 --map-by node --comm-mode rebuild --spares 1 -x FTMPI_DEBUG \
            "$TBIN/spare_probe" "$T/go" "$victim" outside
        wait_for 60 has_spare 1 || fail "no spare started on ${H[0]} (index 6)"
        p=$(nth_spare_pid 1)
        wait_for 60 remote_links "$p" 1 || fail "spare $p never connected to a rank on another host"
        kill -9 "$p"
        wait_for 60 has_spare 2 || fail "the killed spare $p was not replaced"
        q=$(nth_spare_pid 2)
        wait_for 60 remote_links "$q" 4 || fail "spare $q never connected to the 4 ranks on other hosts"
        touch "$T/go"
        wait "$MP"; rc=$?
        [ $rc -eq 0 ] || fail "mpirun exited $rc"
        grep -q "spare_probe OK size 6" "$T/out" || fail "no OK line"
        grep -q "hot spare pid $q takes rank $victim " "$T/d.log" || fail "rank $victim did not go to spare $q"
        # The job's own reports (not the FTMPI_DEBUG lines): the victim's death, and nothing of spare $p.
        grep -v '^ftmpi-debug' "$T/out" >"$T/reports"
        [ "$(grep -c 'killed by signal' "$T/reports")" = 1 ] || fail "expected exactly one failure report (rank $victim)"
        grep -q "pid $p" "$T/reports" && fail "the killed spare $p was reported"
        expect_clean "${H[@]}"
    done
    echo "ok [preconnect] $rounds rounds: a spare killed while connecting was replaced, no failure; the next took rank 1/2 dying mid-connection; nothing left"
}

case_heat() {
    # Host 2 is killed while every rank waits at step 200 (heat's "*@p200" pause, after that
    # step's save, until heat_go): the kill cannot race the job's end (2000 steps with one
    # repair take ~1.5 s once waits across hosts stopped spinning).
    local heat; heat=$(readlink -f "$ARG"); local steps=${HEAT_STEPS:-2000}
    [ -x "$heat" ] || fail "no heat program ($heat)"
    STEP="run"
    start 290 --map-by node -n 6 --comm-mode rebuild --spares 2 "$heat" "$steps" 50 '2@s57,*@p200'
    wait_for 120 spare_took 0 2 || fail "rank 2 did not go to the spare on ${H[0]}"
    wait_for 60 grep -q '^heat: recovered save' "$T/out" || fail "no first recovery"
    # The pause at step 200 comes after saves that follow the first recovery: host 2's ranks
    # can then be recovered too.
    wait_for 120 test -f "$T/heat_paused" || fail "heat did not pause at step 200"
    wait_for 30 spare_started 2 8 || fail "no top-up spare on ${H[2]} (index 8)"
    STEP="host ${H[1]} killed"
    kill -0 "$MP" 2>/dev/null || fail "the job ended before host ${H[1]} could be killed"
    bash "$here/hosts.sh" kill "${H[1]}"
    touch "$T/heat_go"
    wait "$MP"; rc=$?
    [ $rc -eq 0 ] || fail "mpirun exited $rc"
    grep -q "host ${H[1]} lost" "$T/out" || fail "no host loss reported"
    grep -q "BIT-IDENTICAL" "$T/out" || fail "the result is not bit-identical"
    [ "$(grep -c '^heat: recovered save' "$T/out")" -eq 2 ] || fail "expected exactly two recoveries"
    # Both ranks of the lost host went to spares, on the two live hosts.
    { spare_took 0 1 && spare_took 2 4; } || { spare_took 0 4 && spare_took 2 1; } ||
        fail "ranks 1 and 4 did not go to spares on ${H[0]} and ${H[2]}"
    grep -q "rank [0-9]* .*spare" "$T/out" && fail "a spare was reported as a rank failure"
    expect_clean "${H[0]}" "${H[2]}"
    echo "ok [heat] rank 2 then host ${H[1]}: every lost rank went to a spare on a live host; bit-identical; nothing left"
}

case $CASE in
    loop) case_loop ;;
    preconnect) case_preconnect ;;
    heat) case_heat ;;
    *) echo "usage: $0 loop|preconnect|heat BIN_DIR TEST_BIN_DIR [ROUNDS | HEAT]" >&2; exit 2 ;;
esac
