#!/bin/bash
# Security and clean-up cases of the runtime (SPEC 5.2, issue 16 items 3, 4 and 6):
#   security_case.sh CASE MPIRUN BINDIR      (BINDIR: pmix_rank, pmix_intruder, fake_uid.so, ...)
# Attackers run as another real uid (65534, via setpriv), so these cases need root; without
# it they exit 77 (ctest: skipped). Processes of the job are identified by the pid files its
# ranks write into the test's own directory and by the daemon mpirun started, never by name.
set -u
CASE=$1 MPIRUN=$2 BIN=$3
NOBODY=65534

T=$(mktemp -d /tmp/ftmpi-sec.XXXXXX)
chmod 755 "$T"   # the intruder (another uid) must reach the files it is given
export FTMPI_TEST_DIR=$T
export FTMPI_DAEMON_SOCKET=$T/no-daemon-here.sock
MP=
cleanup() {
    [ -n "$MP" ] && kill -9 "$MP" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

fail() {
    echo "FAIL [$CASE]: $*"
    for f in out err intr.out; do [ -e "$T/$f" ] && { echo "--- $f"; tail -n 20 "$T/$f"; }; done
    exit 1
}
need_root() { [ "$(id -u)" -eq 0 ] || { echo "SKIP [$CASE]: needs root to run an attacker as another uid"; exit 77; }; }
as_nobody() { setpriv --reuid $NOBODY --regid $NOBODY --clear-groups "$@"; }

alive() {  # alive PID: running and not a zombie (a rank killed while writing its pid file left it empty)
    local state
    [[ "$1" =~ ^[0-9]+$ ]] || return 1
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ]
}
# Every rank that wrote a pid file is gone (waits up to $1 tenths of a second).
expect_ranks_gone() {
    local tenths=$1 f left
    for _ in $(seq "$tenths"); do
        left=0
        for f in "$T"/pid.*; do [ -e "$f" ] && alive "$(cat "$f")" && left=$((left + 1)); done
        [ "$left" -eq 0 ] && return 0
        sleep 0.1
    done
    for f in "$T"/pid.*; do [ -e "$f" ] && alive "$(cat "$f")" && ps -o pid=,ppid=,stat=,args= -p "$(cat "$f")"; done
    fail "$left rank process(es) of the job still alive"
}
expect_gone() {  # expect_gone PID WHAT TENTHS
    for _ in $(seq "$3"); do alive "$1" || return 0; sleep 0.1; done
    fail "$2 (pid $1) still alive"
}
wait_pid_files() {  # wait_pid_files N: at least N ranks started (15 s at most)
    for _ in $(seq 150); do [ "$(ls "$T" | grep -c '^pid\.')" -ge "$1" ] && return 0; sleep 0.1; done
    fail "only $(ls "$T" | grep -c '^pid\.') of $1 ranks started"
}
private_daemon_of() { pgrep -P "$1" -x ftmpid; }

case "$CASE" in
intruder)  # another uid, also claiming uid 0 through a getuid shim, joins the job's PMIx server
    need_root
    "$MPIRUN" -n 2 --comm-mode shrink "$BIN/pmix_rank" serve 40 >"$T/out" 2>"$T/err" &
    MP=$!
    for _ in $(seq 150); do [ -e "$T/pmix_env" ] && break; sleep 0.1; done
    [ -e "$T/pmix_env" ] || fail "the job did not publish its PMIx environment"
    mkdir -m 1777 "$T/itmp"
    for shim in "" "$BIN/fake_uid.so"; do
        ( . "$T/pmix_env"; cd "$T/itmp" && TMPDIR=$T/itmp LD_PRELOAD=$shim as_nobody "$BIN/pmix_intruder" ) \
            >"$T/intr.out" 2>&1
        rc=$?
        [ "$rc" -eq 0 ] || fail "intruder (shim '${shim##*/}') was not refused at the door (exit $rc)"
        grep -q 'refused' "$T/intr.out" || fail "intruder output lacks 'refused'"
    done
    # The owner's own process, knowing everything but the namespace's secret part (the job id
    # is shown by the tools), is refused too: the namespace is the job's secret.
    ( . "$T/pmix_env"; export PMIX_NAMESPACE=${PMIX_NAMESPACE%-*}; "$BIN/pmix_intruder" ) >"$T/intr.out" 2>&1 ||
        fail "a client without the job's secret got in (exit $?)"
    grep -q 'refused' "$T/intr.out" || fail "secret-less client: output lacks 'refused'"
    # The control socket too: its directory is the owner's alone.
    dpid=$(private_daemon_of "$MP")
    [ -n "$dpid" ] || fail "no private daemon under mpirun"
    sock=$(tr '\0' '\n' < "/proc/$dpid/cmdline" | sed -n '/^--socket$/{n;p}')
    as_nobody "$BIN/proto_abuse" --hold "$sock" 1 >"$T/intr.out" 2>&1 && fail "another uid reached the control socket"
    grep -q 'cannot connect' "$T/intr.out" || fail "control socket: unexpected intruder output"
    touch "$T/stop"
    wait "$MP"; RC=$?; MP=
    [ "$RC" -eq 0 ] || fail "the job was affected: mpirun exit $RC"
    [ "$(grep -c 'exchange ok' "$T/out")" -eq 2 ] || fail "not every rank finished"
    expect_ranks_gone 10 ;;
notify_storm)  # PMIx_Notify_event from ranks (used to crash or hang ftmpid): 10 jobs in a row
    for i in $(seq 10); do
        start=$(date +%s%N)
        timeout -s KILL 30 "$MPIRUN" -n 3 "$BIN/pmix_rank" notify -1 20 >"$T/out" 2>"$T/err"
        RC=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        [ "$RC" -eq 0 ] || fail "iteration $i: mpirun exit $RC"
        [ "$(grep -c 'notify done' "$T/out")" -eq 3 ] || fail "iteration $i: not every rank finished"
        [ "$ms" -lt 15000 ] || fail "iteration $i took $ms ms"
    done
    expect_ranks_gone 10 ;;
forged_event)  # a rank forges failure events: nobody is declared failed (SHRINK and BLANK)
    for mode in shrink blank; do
        timeout -s KILL 60 "$MPIRUN" -n 3 --comm-mode $mode "$BIN/forged_event" >"$T/out" 2>"$T/err"
        RC=$?
        [ "$RC" -eq 0 ] || fail "$mode: mpirun exit $RC"
        grep -q 'forged_event OK' "$T/out" || fail "$mode: no OK line"
    done ;;
precreated)  # another user pre-created our run directory's name: a directory with FIFOs at the
             # socket and token paths and a symlink at the registry's, a symlink to its own
             # directory, a plain file, a FIFO, a mode-0700 directory of its own, a dangling
             # symlink. The job neither blocks nor uses them.
    need_root
    unset FTMPI_DAEMON_SOCKET
    mkdir -m 1777 "$T/tmp"
    export TMPDIR=$T/tmp
    base=$TMPDIR/ftmpi-$(id -u)
    mkdir -m 700 "$T/victim-target"
    for kind in fifo symlink file fifo_itself private_dir dangling; do
        rm -rf "$base" "$T/nobody-dir"
        case $kind in
        fifo) as_nobody sh -c "mkdir -m 777 '$base' && mkfifo -m 666 '$base/ftmpid.sock.token' &&
                               mkfifo -m 666 '$base/ftmpid.sock' && ln -s /etc '$base/daemons'" ;;
        symlink)  # to a directory of the other user's (made here: $T is not writable for it)
            mkdir -m 777 "$T/nobody-dir" && chown $NOBODY:$NOBODY "$T/nobody-dir"
            as_nobody ln -s "$T/nobody-dir" "$base" ;;
        file) as_nobody sh -c "echo bait > '$base'" ;;
        fifo_itself) as_nobody mkfifo -m 666 "$base" ;;
        private_dir) as_nobody mkdir -m 700 "$base" ;;   # the right mode, the wrong owner
        dangling) as_nobody ln -s /nonexistent/ftmpi "$base" ;;
        esac
        timeout -s KILL 30 "$MPIRUN" -n 2 "$BIN/pmix_rank" exchange >"$T/out" 2>"$T/err"
        RC=$?
        [ "$RC" -eq 0 ] || fail "$kind: mpirun exit $RC (137: blocked)"
        [ "$(grep -c 'exchange ok' "$T/out")" -eq 2 ] || fail "$kind: not every rank finished"
        if [ "$kind" = fifo ]; then
            [ "$(ls -A "$base" | tr '\n' ' ')" = "daemons ftmpid.sock ftmpid.sock.token " ] ||
                fail "fifo: something was created in the other user's directory: $(ls -A "$base")"
        fi
        if [ "$kind" = symlink ]; then
            [ -d "$T/nobody-dir" ] && [ -z "$(ls -A "$T/nobody-dir")" ] ||
                fail "symlink: something was created through the other user's symlink"
        fi
        [ -z "$(ls -A "$TMPDIR" | grep -v "^ftmpi-$(id -u)$")" ] || fail "$kind: run directory left behind: $(ls -A "$TMPDIR")"
    done ;;
idle_connection)  # an authenticated connection that launches nothing does not keep the private daemon
    "$MPIRUN" -n 2 "$BIN/pmix_rank" serve 40 >"$T/out" 2>"$T/err" &
    MP=$!
    wait_pid_files 2
    dpid=$(private_daemon_of "$MP")
    [ -n "$dpid" ] || fail "no private daemon under mpirun"
    sock=$(tr '\0' '\n' < "/proc/$dpid/cmdline" | sed -n '/^--socket$/{n;p}')
    "$BIN/proto_abuse" --hold "$sock" 30 >"$T/hold.out" 2>&1 &
    holder=$!
    for _ in $(seq 50); do grep -q holding "$T/hold.out" 2>/dev/null && break; sleep 0.1; done
    touch "$T/stop"
    wait "$MP"; RC=$?; MP=
    [ "$RC" -eq 0 ] || fail "mpirun exit $RC"
    expect_gone "$dpid" "the daemon (an idle connection kept it)" 40
    wait "$holder" || fail "the idle connection was not closed: $(cat "$T/hold.out")" ;;
launcher_killed | launcher_killed_stalled)
    # mpirun SIGKILLed: the daemon and every rank go, and the ranks' /dev/shm segments, also
    # when the daemon's loop is stuck (FTMPI_TEST_DAEMON_STALL: a daemon that no longer runs its
    # loop, as in a deadlock). The ranks are MPI processes (they have segments).
    # A TMPDIR of the test's own: nothing at all may stay in it (run directory, registry file,
    # the per-user directories), also when the daemon's watchdog had to end it.
    limit=30
    if [ "$CASE" = launcher_killed_stalled ]; then export FTMPI_TEST_DAEMON_STALL=1; limit=100; fi
    mkdir -m 700 "$T/tmp"
    export TMPDIR=$T/tmp
    "$MPIRUN" -n 4 "$BIN/signal_self" sleep >"$T/out" 2>"$T/err" &
    MP=$!
    wait_pid_files 4
    dpid=$(private_daemon_of "$MP")
    [ -n "$dpid" ] || fail "no private daemon under mpirun"
    rundir=$(tr '\0' '\n' < "/proc/$dpid/cmdline" | sed -n '/^--socket$/{n;p}' | xargs dirname)
    sleep 0.3
    kill -9 "$MP"; wait "$MP" 2>/dev/null; MP=
    expect_gone "$dpid" "the daemon" "$limit"
    expect_ranks_gone 20
    # Also when the loop was stuck: the watchdog has rm remove it just before it ends the daemon.
    for _ in $(seq 50); do [ -z "$(ls -A "$TMPDIR")" ] && break; sleep 0.1; done
    [ ! -e "$rundir" ] || fail "run directory $rundir left behind"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "left behind in TMPDIR: $(find "$TMPDIR" | tr '\n' ' ')"
    for f in "$T"/pid.*; do
        p=$(cat "$f")
        left=$(ls /dev/shm | grep -E "^(ftmpi-ring\.$p\.|$p:)")
        [ -z "$left" ] || fail "rank pid $p left /dev/shm segments: $left"
    done ;;
launcher_interrupted)
    # Ctrl-C / SIGTERM to mpirun under a job of MPI processes (runtime.interrupt has PMIx-only
    # ranks, with no segments): the job ends with 128+signal, and nothing stays: no daemon, no
    # rank, no /dev/shm segment of a rank, nothing in TMPDIR. Also a second Ctrl-C at once
    # ("the user really wants out": mpirun leaves without waiting for the job's end).
    mkdir -m 700 "$T/tmp"
    export TMPDIR=$T/tmp
    for sigs in INT TERM INT,INT TERM,INT; do
        rm -f "$T"/pid.*
        "$MPIRUN" -n 4 "$BIN/signal_self" sleep >"$T/out" 2>"$T/err" &
        MP=$!
        wait_pid_files 4
        dpid=$(private_daemon_of "$MP")
        [ -n "$dpid" ] || fail "$sigs: no private daemon under mpirun"
        sleep 0.2
        want=
        for sig in ${sigs//,/ }; do kill -s "$sig" "$MP"; want="$want $((128 + $(kill -l "$sig")))"; done
        wait "$MP"; RC=$?; MP=
        # Two signals: whichever mpirun reads last decides (pending signals come lowest first).
        [[ " $want " == *" $RC "* ]] || fail "$sigs: mpirun exit $RC, expected one of$want"
        grep -q 'interrupted' "$T/err" || fail "$sigs: no 'interrupted' report"
        expect_gone "$dpid" "$sigs: the daemon" 50
        expect_ranks_gone 50
        for _ in $(seq 50); do [ -z "$(ls -A "$TMPDIR")" ] && break; sleep 0.1; done
        [ -z "$(ls -A "$TMPDIR")" ] || fail "$sigs: left behind in TMPDIR: $(find "$TMPDIR" | tr '\n' ' ')"
        for f in "$T"/pid.*; do
            p=$(cat "$f")
            left=$(ls /dev/shm | grep -E "^(ftmpi-ring\.$p\.|$p:)")
            [ -z "$left" ] || fail "$sigs: rank pid $p left /dev/shm segments: $left"
        done
    done ;;
finalize_daemon_stalled)  # the daemon is stopped while 3 ranks finalize: PMIx's client stops waiting
                          # for the server's answer after 2 s and exits; the job still succeeds
                          # (each rank's `finalized` record is read before its exit is judged)
    for round in 1 2; do
        rm -f "$T"/pid.* "$T/go"
        "$MPIRUN" -n 3 "$BIN/signal_self" gate >"$T/out" 2>"$T/err" &
        MP=$!
        wait_pid_files 3
        dpid=$(private_daemon_of "$MP")
        [ -n "$dpid" ] || fail "round $round: no private daemon found"
        kill -STOP "$dpid"
        touch "$T/go"
        sleep 3.5
        kill -CONT "$dpid"
        wait "$MP"
        RC=$?
        MP=
        [ "$RC" -eq 0 ] || fail "round $round: mpirun exit $RC, expected 0"
        grep -q "without calling MPI_Finalize" "$T/err" && fail "round $round: a finalized rank was reported as failed"
        expect_ranks_gone 20
    done ;;
daemon_stuck)  # the private daemon's loop is stuck: mpirun's --timeout ends, mpirun SIGKILLs the
               # daemon (3 s after closing its link) and, outliving it, removes what it left
    export FTMPI_TEST_DAEMON_STALL=1
    mkdir -m 700 "$T/tmp"
    export TMPDIR=$T/tmp
    for round in 1 2 3; do
        timeout -s KILL 60 "$MPIRUN" --timeout 1 -n 2 "$BIN/pmix_rank" sleep >"$T/out" 2>"$T/err"
        RC=$?
        [ "$RC" -eq 124 ] || fail "round $round: mpirun exit $RC, expected 124 (--timeout)"
        # mpirun returned: its daemon was killed and reaped, so everything must be gone now.
        [ -z "$(ls -A "$TMPDIR")" ] || fail "round $round: left behind: $(find "$TMPDIR" | tr '\n' ' ')"
        expect_ranks_gone 20
        rm -f "$T"/pid.*
    done ;;
handshake_death)  # a rank SIGKILLed inside its PMIx handshake (die_in_handshake.so): the private
                  # daemon ends with the job on its own (it hung in PMIx_server_finalize, and
                  # mpirun had to kill it 3 s later), 10 jobs
    mkdir -m 700 "$T/tmp"
    export TMPDIR=$T/tmp
    tbin=$(cd "$BIN/../../bin" && pwd)  # build/tests/bin: ft_hang and the shim
    for round in $(seq 10); do
        DIE_RANK=2 timeout -s KILL 60 "$MPIRUN" --timeout 50 -x LD_PRELOAD="$tbin/die_in_handshake.so" -x DIE_RANK \
            -n 4 --comm-mode shrink "$tbin/ft_hang" init 2 60000000 >"$T/out" 2>"$T/err"
        RC=$?
        [ "$RC" -eq 0 ] || fail "round $round: mpirun exit $RC"
        grep -q "ft_hang init OK" "$T/out" || fail "round $round: the survivors did not go on without rank 2"
        grep -q "rank 2 (pid [0-9]*) killed by signal 9" "$T/err" || fail "round $round: rank 2 did not die in its handshake"
        grep -q "did not exit within" "$T/err" && fail "round $round: mpirun had to kill the daemon"
        [ -z "$(ls -A "$TMPDIR")" ] || fail "round $round: left behind: $(find "$TMPDIR" | tr '\n' ' ')"
    done ;;
launch_interrupted)  # mpirun SIGKILLed while 142 ranks are being started: the launch stops
    "$MPIRUN" -n 142 "$BIN/pmix_rank" sleep >"$T/out" 2>"$T/err" &
    MP=$!
    wait_pid_files 10
    dpid=$(private_daemon_of "$MP")
    kill -9 "$MP"; wait "$MP" 2>/dev/null; MP=
    [ -n "$dpid" ] && expect_gone "$dpid" "the daemon" 50
    expect_ranks_gone 30
    started=$(ls "$T" | grep -c '^pid\.')
    sleep 1
    [ "$(ls "$T" | grep -c '^pid\.')" -eq "$started" ] || fail "ranks still being started after mpirun died"
    echo "started $started of 142 before the launch stopped"
    [ "$started" -lt 142 ] || fail "the whole launch finished before mpirun was killed; not a test of stopping it" ;;
signals)  # a rank killed by SIGSEGV / SIGTERM is reported with its signal, libfabric loaded or not
    for provider in "" tcp; do
        for sig in segv:11:139 term:15:143; do
            name=${sig%%:*} num=$(echo "$sig" | cut -d: -f2) code=${sig##*:}
            env ${provider:+FTMPI_PROVIDER=$provider} timeout -s KILL 60 "$MPIRUN" -n 2 "$BIN/signal_self" "$name" >"$T/out" 2>"$T/err"
            RC=$?
            [ "$RC" -eq "$code" ] || fail "$name (provider '$provider'): mpirun exit $RC, expected $code"
            grep -qE "rank 1 \(pid [0-9]+\) killed by signal $num " "$T/err" ||
                fail "$name (provider '$provider'): not reported as signal $num"
        done
    done
    # The user may ask for the vendor's handlers: then tcp loads the system's libfabric.so.1
    # with its vendor libraries (not the trimmed libftmpi_fabric_tcp.so), and theirs decides.
    FTMPI_VENDOR_BACKTRACE=1 FTMPI_PROVIDER=tcp timeout -s KILL 60 "$MPIRUN" -n 2 "$BIN/signal_self" term \
        >"$T/out" 2>"$T/err"
    grep -qE "rank 1 \(pid [0-9]+\) exited with status 1" "$T/err" || fail "FTMPI_VENDOR_BACKTRACE=1 was not honoured" ;;
*)
    echo "unknown case $CASE"; exit 2 ;;
esac
echo "PASS [$CASE]"
