#!/bin/bash
# A job's life on 3 namespace hosts beyond the happy path (issue 15):
#   lifecycle_hosts.sh CASE BIN_DIR TEST_BIN_DIR HOST_LOSS_RANK [ROUNDS]
# idle        REBUILD, 3 PMIx ranks --map-by node: ranks 1 and 2 (hosts 2 and 3) finish at once,
#             rank 0 (host 1) then asks for 2 replacements. Hosts 2 and 3 still have their
#             daemons (a host whose processes finished stays in the job until every host is
#             idle), so they are the least loaded surviving hosts and take one each; then every
#             host is idle, mpirun releases the job and exits 0; nothing is left anywhere.
#             ROUNDS rounds, every other one with `nowait`: the request then races the other
#             ranks' exits (a host's idle notice may cross the placement on it): wherever they
#             run, both replacements start and the job still ends 0 with nothing left.
# init_death  SHRINK, `ft_hang init 4 DELAY` with 6 ranks --map-by node, ROUNDS times: rank 4
#             (host 2) SIGKILLs itself before or during MPI_Init (DELAY 0..300 ms), before it
#             published its address. Its failure must reach the others' address exchange at once
#             (through the failure relay), so they leave MPI_Init and go on in the shrunk world:
#             each round must end well before the 30 s the others used to wait for the address.
#             Prints each round's time next to a failure-free run of the same size.
# handshake_death  SHRINK, 6 ranks --map-by node, ROUNDS times: rank 4 (host 2) SIGKILLs itself
#             INSIDE its PMIx handshake (TEST_BIN_DIR/die_in_handshake.so: right after sending its
#             connect-ack). Host 2's daemon must end with the job: mpirun waits for its launchers,
#             so it returns within 3 s of the survivors' OK line (a stuck daemon took 5 s, its
#             link watchdog's grace, which then says "did not stop in time" on mpirun's stderr).
# stalled    mpirun SIGKILLed under a 3-host job whose daemons' loops are stuck
#             (FTMPI_TEST_DAEMON_STALL, forwarded by mpirun to the remote daemons): every daemon's
#             watchdog must end its ranks and remove their /dev/shm segments and its run files
#             (last_resort_cleanup.h) — nothing left on any host. ROUNDS rounds. mpirun's heartbeat
#             timeout is long (it would otherwise end the job itself: nothing is heard from the
#             stalled hosts); each wait is bounded in wall time, not in looks.
set -u
CASE=$1 BIN=$2 TBIN=$3 RANK=$4 ROUNDS=${5:-5}
here=$(dirname "$(readlink -f "$0")")
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(bash "$here/hosts.sh" names)
T=$FTNS/t
mkdir -p "$T"
STEP=

fail() {
    echo "FAIL [$CASE/$STEP]: $*"
    echo "--- stdout"; cat "$T/out" 2>/dev/null; echo "--- stderr"; cat "$T/err" 2>/dev/null
    exit 1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run LIMIT ARGS...: mpirun on host 1 (3 hosts from the hostfile); sets RC and MS (wall time).
run() {
    local limit=$1 t0; shift
    rm -f "$T"/pid.* "$T"/ready.*
    t0=$(now_ms)
    FTMPI_TEST_DIR=$T timeout -s KILL "$limit" bash "$here/hosts.sh" exec "${H[0]}" \
        "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --timeout "$limit" "$@" \
        >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
}
expect_clean() { bash "$here/hosts.sh" clean 30 "$@" || fail "left behind on $*"; }

case_idle() {
    local round times=
    for round in $(seq "$ROUNDS"); do
        if [ $((round % 2)) -eq 1 ]; then
            STEP="idle round $round"
            run 60 -n 3 --map-by node --comm-mode rebuild "$RANK" idle 20
        else
            STEP="idle round $round (nowait)"
            run 60 -n 3 --map-by node --comm-mode rebuild "$RANK" idle 20 nowait
        fi
        [ "$RC" -eq 0 ] || fail "mpirun exit $RC"
        grep -qx "spawned 2" "$T/out" || fail "rank 0 did not get its replacements"
        [ "$(grep -c '^replacement [34] on ' "$T/out")" -eq 2 ] || fail "expected replacements 3 and 4 to run"
        if [ $((round % 2)) -eq 1 ]; then
            grep -qx "replacement 3 on ${H[1]}" "$T/out" || fail "replacement 3 not on ${H[1]} (idle, least loaded)"
            grep -qx "replacement 4 on ${H[2]}" "$T/out" || fail "replacement 4 not on ${H[2]} (idle, least loaded)"
        fi
        grep -q "lost" "$T/err" && fail "a host was reported lost"
        expect_clean "${H[@]}"
        times="$times $MS"
    done
    echo "ok [idle] $ROUNDS rounds: replacements on the hosts whose ranks had finished; released and ended, ms:$times"
}

case_init_death() {
    local round delay times=
    STEP=reference
    run 60 -n 6 --map-by node --comm-mode shrink "$TBIN/ft_hang" truncate 0
    [ "$RC" -eq 0 ] || fail "failure-free reference: mpirun exit $RC"
    local ref=$MS
    for round in $(seq "$ROUNDS"); do
        # Before MPI_Init, then anywhere in it (start-up across hosts takes ~100-600 ms).
        delay=$(( round == 1 ? 0 : (RANDOM % 300) * 1000 ))
        STEP="round $round delay ${delay}us"
        run 60 -n 6 --map-by node --comm-mode shrink "$TBIN/ft_hang" init 4 "$delay"
        [ "$RC" -eq 0 ] || fail "mpirun exit $RC"
        grep -q "ft_hang init OK" "$T/out" || fail "the survivors did not go on without rank 4"
        # The old wait for the dead rank's address was 30 s; the start-up itself takes ~1 s here.
        [ "$MS" -lt 15000 ] || fail "took $MS ms: the survivors waited for the dead rank's address"
        expect_clean "${H[0]}" "${H[1]}" "${H[2]}"
        times="$times $MS"
    done
    echo "ok [init_death] $ROUNDS rounds, ms:$times (failure-free reference $ref ms)"
}

case_handshake_death() {
    local round times= t0 ok
    for round in $(seq "$ROUNDS"); do
        STEP="round $round"
        rm -f "$T/out" "$T"/pid.* "$T"/ready.*
        t0=$(now_ms)
        DIE_RANK=4 FTMPI_TEST_DIR=$T timeout -s KILL 60 bash "$here/hosts.sh" exec "${H[0]}" \
            "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --timeout 50 \
            -x LD_PRELOAD="$TBIN/die_in_handshake.so" -x DIE_RANK -n 6 --map-by node --comm-mode shrink \
            "$TBIN/ft_hang" init 4 60000000 >"$T/out" 2>"$T/err" </dev/null &
        local mp=$! ok=
        while kill -0 "$mp" 2>/dev/null; do  # when the survivors are done (the job's end, near enough)
            [ -z "$ok" ] && grep -q "ft_hang init OK" "$T/out" 2>/dev/null && ok=$(now_ms)
            sleep 0.05
        done
        wait "$mp"; RC=$?
        [ -z "$ok" ] && grep -q "ft_hang init OK" "$T/out" && ok=$(now_ms)  # it ended before a look
        MS=$(( $(now_ms) - ${ok:-$t0} ))
        [ "$RC" -eq 0 ] || fail "mpirun exit $RC"
        [ -n "$ok" ] || fail "the survivors did not go on without rank 4"
        grep -q "rank 4 (pid [0-9]* on ${H[1]}) killed by signal 9" "$T/err" || fail "rank 4 did not die in its handshake"
        grep -q "did not stop in time" "$T/err" && fail "a daemon needed its watchdog to end"
        [ "$MS" -lt 3000 ] || fail "mpirun (waiting for the daemons) ended $MS ms after the survivors"
        expect_clean "${H[0]}" "${H[1]}" "${H[2]}"
        times="$times $MS"
    done
    echo "ok [handshake_death] $ROUNDS rounds; mpirun ended this many ms after the survivors' OK:$times"
}

# The rank processes (comm signal_self, not mpirun whose argv names it) on this harness's hosts.
count_stalled_ranks() {
    local h ns=" " p n=0
    for h in "${H[@]}"; do ns="$ns$(readlink "/proc/$(cat "$FTNS/$h.pid")/ns/uts") "; done
    for p in $(pgrep -x signal_self); do
        [[ "$ns" == *" $(readlink "/proc/$p/ns/uts" 2>/dev/null) "* ]] && n=$((n + 1))
    done
    echo "$n"
}

# clean_within MS HOST...: nothing left on the HOSTs within MS ms of wall time (hosts.sh clean
# counts looks, and one look scans /proc: seconds each on a machine at load 40).
clean_within() {
    local end=$(( $(now_ms) + $1 )); shift
    until bash "$here/hosts.sh" clean 0 "$@" >/dev/null; do
        [ "$(now_ms)" -lt "$end" ] || { bash "$here/hosts.sh" clean 0 "$@"; return 1; }
        sleep 0.2
    done
}

case_stalled() {
    local round mp n end times= t0
    for round in $(seq "$ROUNDS"); do
        STEP="round $round"
        rm -f "$T/out" "$T/err"
        t0=$(now_ms)
        # --heartbeat-timeout: the stalled daemons send no heartbeats, so with the default 1 s
        # mpirun declared a host lost, ended the job (ABORT) and exited by itself 5 s later
        # (its wait for the kill's confirmation): under load before this test killed it ("no
        # mpirun to kill"). The case is mpirun SIGKILLed, so its watch must outlast the round.
        # (The daemons' own watch of mpirun runs in their stalled loops: it never fires.)
        FTMPI_TEST_DAEMON_STALL=1 timeout -s KILL 90 bash "$here/hosts.sh" exec "${H[0]}" \
            "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --timeout 80 \
            --heartbeat-timeout 600000 -n 6 --map-by node "$SIGNAL_SELF" >"$T/out" 2>"$T/err" </dev/null &
        mp=$!
        # The ranks cannot finish MPI_Init (the stalled loops never serve the fence across
        # hosts), so wait until every host runs its 2 rank processes: bounded in wall time
        # (each look scans /proc, which takes seconds at load 40), well inside mpirun's --timeout.
        end=$(( t0 + 40000 ))
        while n=$(count_stalled_ranks); [ "$n" -lt 6 ]; do
            [ "$(now_ms)" -lt "$end" ] || fail "only $n of 6 rank processes started within 40 s"
            kill -0 "$mp" 2>/dev/null || fail "mpirun ended before its 6 ranks ran"
            sleep 0.1
        done
        sleep 1  # their shared-memory regions exist before the address exchange that waits
        # mpirun runs inside host 1's namespace under `timeout`: SIGKILL the mpirun itself.
        pkill -KILL -f "^$BIN/mpirun --hostfile $FTNS/hostfile" || fail "no mpirun to kill"
        wait "$mp" 2>/dev/null
        grep -q "lost" "$T/err" && fail "mpirun declared a host lost before it was killed"
        # The watchdogs' grace is 5 s; then the sweep (ranks, segments) and the run files.
        clean_within 30000 "${H[0]}" "${H[1]}" "${H[2]}" || fail "left behind 30 s after mpirun was killed"
        times="$times $(( $(now_ms) - t0 ))"
    done
    echo "ok [stalled] $ROUNDS rounds: nothing left on any host, ms:$times"
}

case "$CASE" in
    idle) case_idle ;;
    stalled) case_stalled ;;
    init_death) case_init_death ;;
    handshake_death) case_handshake_death ;;
    *) echo "unknown case $CASE"; exit 2 ;;
esac
