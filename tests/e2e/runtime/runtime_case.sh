#!/bin/bash
# Driver for the runtime end-to-end tests: runtime_case.sh CASE MPIRUN PMIX_RANK PROTO_ABUSE FTMPID
# Each case runs mpirun, checks its exit code, timing and stderr, and checks that no process
# of the job is left (every rank writes its pid to $FTMPI_TEST_DIR/pid.<rank>).
set -u
CASE=$1 MPIRUN=$2 RANK=$3 ABUSE=$4 FTMPID=$5

T=$(mktemp -d /tmp/ftmpi-rt.XXXXXX)
export FTMPI_TEST_DIR=$T
# A private daemon per test: never depend on (or disturb) a daemon the user may be running.
export FTMPI_DAEMON_SOCKET=$T/no-daemon-here.sock
DAEMON_PID=
cleanup() {
    [ -n "$DAEMON_PID" ] && kill -9 "$DAEMON_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout"; cat "$T/out" 2>/dev/null; echo "--- stderr"; cat "$T/err" 2>/dev/null; exit 1; }

# run_mpirun ARGS...: sets RC and ELAPSED_MS, output in $T/out and $T/err.
run_mpirun() {
    local start end
    start=$(date +%s%N)
    timeout -s KILL 50 "$MPIRUN" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    end=$(date +%s%N)
    ELAPSED_MS=$(( (end - start) / 1000000 ))
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit code $RC, expected $1"; }
expect_nonzero() { [ "$RC" -ne 0 ] || fail "exit code 0, expected non-zero"; }
expect_err() { grep -qE "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_out() { grep -qE "$1" "$T/out" || fail "stdout lacks /$1/"; }
expect_faster_than() { [ "$ELAPSED_MS" -lt "$1" ] || fail "took ${ELAPSED_MS} ms, limit $1 ms"; }

# Every recorded pid must be gone (or a zombie about to be reaped by init).
expect_none_left() {
    local want=$1 n=0 f pid state
    for f in "$T"/pid.*; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        pid=$(cat "$f")
        state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
        if [ -n "$state" ] && [ "$state" != Z ]; then
            fail "rank process $pid ($f) still alive (state $state)"
        fi
    done
    [ "$n" -eq "$want" ] || fail "$n pid files, expected $want"
}

case "$CASE" in
exchange4)  # (a) 4 ranks put/commit/fence/get each other's keys
    run_mpirun -n 4 "$RANK" exchange
    expect_rc 0
    [ "$(grep -c 'exchange ok' "$T/out")" -eq 4 ] || fail "not every rank reported success"
    expect_none_left 4 ;;
stdin)  # mpirun's stdin goes to rank 0 only (others read end of file at once); /dev/null: none
    printf 'one\ntwo\n' > "$T/in"
    run_mpirun -n 3 --tag-output sh -c 'echo "got $(wc -l) lines"' < "$T/in"
    expect_rc 0
    expect_out '^\[0\] got 2 lines$'
    [ "$(grep -c 'got 0 lines' "$T/out")" -eq 2 ] || fail "a rank other than 0 read input"
    run_mpirun -n 2 sh -c 'echo "got $(wc -c) bytes"' < /dev/null
    expect_rc 0
    [ "$(grep -c 'got 0 bytes' "$T/out")" -eq 2 ] || fail "input from /dev/null" ;;
finalize_ok)  # (b) all finalize and exit 0
    run_mpirun -n 4 "$RANK" finalize
    expect_rc 0
    [ ! -s "$T/err" ] || fail "unexpected stderr"
    expect_none_left 4 ;;
sigkill)  # (c) one rank SIGKILLs itself: non-zero, report names rank and signal, none left
    run_mpirun -n 4 "$RANK" sigkill 2
    expect_nonzero
    expect_err 'ftmpi: rank 2 \(pid [0-9]+\) killed by signal 9 \(Killed\)'
    expect_faster_than 10000
    expect_none_left 4 ;;
exit_status)  # (d) a rank exits 3
    run_mpirun -n 3 "$RANK" exit 1 3
    expect_rc 3
    expect_err 'ftmpi: rank 1 \(pid [0-9]+\) exited with status 3'
    expect_none_left 3 ;;
abort)  # (e) PMIx_Abort(7): exit 7 within a second of the abort, none left
    run_mpirun -n 4 "$RANK" abort 1 7
    expect_rc 7
    expect_err '^ftmpi: rank 1 aborted the job with code 7: test abort$'
    expect_faster_than 5000
    expect_none_left 4 ;;
timeout)  # (f) --timeout 2 on a sleeping job: non-zero within ~3 s, none left
    run_mpirun -n 3 --timeout 2 "$RANK" sleep
    expect_nonzero
    expect_err 'timeout'
    [ "$ELAPSED_MS" -ge 1900 ] || fail "ended after ${ELAPSED_MS} ms, before the timeout"
    expect_faster_than 3600
    expect_none_left 3 ;;
tag_and_export)  # (g) --tag-output prefixes, -x forwarding
    run_mpirun -n 2 --tag-output -x FOO=bar -x HOME sh -c 'echo "foo=$FOO"; printf "no newline"; echo "to err" >&2'
    expect_rc 0
    expect_out '^\[0\] foo=bar$'
    expect_out '^\[1\] foo=bar$'
    expect_out '^\[1\] no newline$'
    expect_err '^\[0\] to err$'
    FOO=from-env run_mpirun -n 1 sh -c 'echo "foo=$FOO mode=$FTMPI_COMM_MODE/$FTMPI_MSG_MODE"'
    expect_out '^foo=from-env mode=abort/nop$'
    FTMPI_COMM_MODE=Shrink run_mpirun -n 1 --msg-mode RESET sh -c 'echo "mode=$FTMPI_COMM_MODE/$FTMPI_MSG_MODE"'
    expect_out '^mode=shrink/nop$'
    FTMPI_COMM_MODE=shrink run_mpirun -n 1 --comm-mode blank sh -c 'echo "mode=$FTMPI_COMM_MODE"'
    expect_out '^mode=blank$' ;;
non_mpi)  # (h) non-MPI programs
    run_mpirun -n 3 /bin/true
    expect_rc 0
    run_mpirun -n 2 /bin/false
    expect_nonzero
    expect_err 'exited with status 1'
    run_mpirun -n 2 --comm-mode shrink /bin/false  # nobody left in the job: still a failure
    expect_rc 1
    run_mpirun -n 1 /no/such/program
    expect_nonzero
    expect_err 'cannot launch'
    # Another host is run through a launcher now (issue 15); one that cannot be resolved is an
    # error of the environment (exit 1) said in one line, before anything starts.
    run_mpirun -n 1 --host some-other-host.example /bin/true
    expect_rc 1
    expect_err "cannot resolve host 'some-other-host.example'" ;;
oversubscribed16)  # (i) 16 ranks on 2 cores, fence works
    run_mpirun -n 16 "$RANK" exchange
    expect_rc 0
    [ "$(grep -c 'exchange ok' "$T/out")" -eq 16 ] || fail "not every rank reported success"
    expect_none_left 16 ;;
shrink_survives)  # (j) non-ABORT mode: survivors get the event and finish; exit 0, failure reported
    run_mpirun -n 4 --comm-mode shrink "$RANK" survive 1
    expect_rc 0
    [ "$(grep -c 'saw the failure of rank 1' "$T/out")" -eq 3 ] || fail "not every survivor saw the event"
    expect_err 'ftmpi: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\) at .*continues'
    expect_none_left 4 ;;
no_finalize)  # a rank that connected and exits 0 without finalizing has failed
    run_mpirun -n 2 "$RANK" exit 0 0
    expect_nonzero
    expect_err 'ftmpi: rank 0 \(pid [0-9]+\) exited without calling MPI_Finalize'
    expect_none_left 2 ;;
stubborn_group)  # ranks ignoring SIGTERM, with children: SIGKILL after the grace, whole group
    run_mpirun -n 2 --timeout 1 sh -c 'trap "" TERM; echo $$ > $FTMPI_TEST_DIR/pid.$FTMPI_RANK;
        sleep 30 & echo $! > $FTMPI_TEST_DIR/pid.child.$FTMPI_RANK; wait'
    expect_rc 124
    expect_faster_than 3000
    expect_none_left 4 ;;
fence_after_death)  # non-ABORT: fences after and during a peer's death complete, job ends 0
    run_mpirun -n 3 --comm-mode blank "$RANK" fence_after_death 1 0
    expect_rc 0
    [ "$(grep -c 'fence after death returned' "$T/out")" -eq 2 ] || fail "a survivor did not finish its fence"
    run_mpirun -n 3 --comm-mode blank "$RANK" fence_after_death 2 1
    expect_rc 0
    [ "$(grep -c 'fence after death returned' "$T/out")" -eq 2 ] || fail "a survivor did not finish its fence" ;;
interrupt)  # Ctrl-C / SIGTERM to mpirun kills the job
    for sig in INT TERM; do
        rm -f "$T"/pid.*
        "$MPIRUN" -n 3 "$RANK" sleep >"$T/out" 2>"$T/err" &
        mp=$!
        for _ in $(seq 100); do [ "$(ls "$T" | grep -c '^pid\.')" -eq 3 ] && break; sleep 0.05; done
        sleep 0.2
        kill -s $sig $mp
        wait $mp
        RC=$?
        [ "$sig" = INT ] && expect_rc 130
        [ "$sig" = TERM ] && expect_rc 143
        expect_err 'interrupted'
        expect_none_left 3
    done ;;
daemon_killed)  # the private daemon dies: mpirun reports it and exits non-zero; ranks die too
    "$MPIRUN" -n 2 "$RANK" sleep >"$T/out" 2>"$T/err" &
    mp=$!
    for _ in $(seq 100); do [ "$(ls "$T" | grep -c '^pid\.')" -eq 2 ] && break; sleep 0.05; done
    sleep 0.2
    dpid=$(pgrep -P $mp -x ftmpid)
    [ -n "$dpid" ] || fail "no private daemon under mpirun"
    kill -9 "$dpid"
    wait $mp
    RC=$?
    expect_nonzero
    expect_err 'lost connection to the daemon'
    sleep 0.3
    expect_none_left 2 ;;
binding)  # --bind-to/FTMPI_BIND: where the daemon binds each process, read back from the kernel
    # Each process prints "RANK CPUS" from its own /proc/self/status (Cpus_allowed_list).
    cat > "$T/show.sh" <<'EOF'
exec awk -v r="$FTMPI_RANK" '/^Cpus_allowed_list/ { print r, $2 }' /proc/self/status
EOF
    show=$T/show.sh
    all=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)  # unbound = what we may use
    ncpu=$(nproc)
    lists() { awk 'NF == 2 { print $2 }' "$T/out" | sort; }
    expect_unbound() {  # N processes, each with every CPU
        [ "$(lists | grep -c -x -F -- "$all")" -eq "$1" ] || fail "$2: not all $1 processes unbound ($all): $(lists | tr '\n' ' ')"
    }
    expect_one_cpu_each() {  # N processes, one CPU each, each CPU used N/ncpu times
        local n=$1 per=$(( ($1 + ncpu - 1) / ncpu ))
        [ "$(lists | grep -c -x -E '[0-9]+')" -eq "$n" ] || fail "$2: not one CPU each: $(lists | tr '\n' ' ')"
        [ "$(lists | uniq -c | awk -v p="$per" '$1 > p' | wc -l)" -eq 0 ] ||
            fail "$2: a CPU holds more than $per processes: $(lists | tr '\n' ' ')"
    }
    run_mpirun -n "$ncpu" sh "$show"
    expect_rc 0
    expect_one_cpu_each "$ncpu" "default, $ncpu processes on $ncpu CPUs"
    run_mpirun -n "$ncpu" --bind-to none sh "$show"
    expect_rc 0
    expect_unbound "$ncpu" "--bind-to none"
    # Oversubscribed: nothing bound by default (Open MPI's rule too); --bind-to core spreads them.
    over=$((2 * ncpu + 1))
    run_mpirun -n "$over" --report-bindings sh "$show"
    expect_rc 0
    expect_unbound "$over" "default, $over processes on $ncpu CPUs"
    [ "$(grep -c "not bound (--bind-to auto: $over processes on" "$T/err")" -eq "$over" ] || fail "--report-bindings lines (oversubscribed)"
    run_mpirun -n "$over" --bind-to core sh "$show"
    expect_rc 0
    expect_one_cpu_each "$over" "--bind-to core, oversubscribed"
    # The environment variable, and the flag beating it.
    FTMPI_BIND=none run_mpirun -n "$ncpu" sh "$show"
    expect_rc 0
    expect_unbound "$ncpu" "FTMPI_BIND=none"
    FTMPI_BIND=none run_mpirun -n "$ncpu" --bind-to auto --report-bindings sh "$show"
    expect_rc 0
    expect_one_cpu_each "$ncpu" "--bind-to auto over FTMPI_BIND=none"
    [ "$(grep -c -E '^ftmpi: rank [0-9]+ \(pid [0-9]+\) on .*: bound to core [0-9]+ \(cpus [0-9]+\)$' "$T/err")" -eq "$ncpu" ] ||
        fail "--report-bindings lines (bound)"
    # Bad values: exit 2, the reason and the usage line.
    run_mpirun --bind-to socket -n 1 /bin/true
    expect_rc 2
    expect_err "invalid --bind-to 'socket' \(auto\|core\|none\)"
    expect_err '^usage: mpirun'
    FTMPI_BIND=cores run_mpirun -n 1 /bin/true
    expect_rc 2
    expect_err "invalid FTMPI_BIND 'cores'" ;;
cli)  # options, usage errors, mpiexec
    run_mpirun --version
    expect_rc 0
    expect_out 'ftmpi'
    run_mpirun --help
    expect_rc 0
    expect_out 'comm-mode'
    run_mpirun -n 2
    expect_rc 2
    run_mpirun --comm-mode bogus -n 1 /bin/true
    expect_rc 2
    expect_err 'comm-mode'
    FTMPI_MSG_MODE=bogus run_mpirun -n 1 /bin/true
    expect_rc 2
    expect_err 'FTMPI_MSG_MODE'
    run_mpirun --frobnicate /bin/true
    expect_rc 2
    printf 'localhost slots=3\n# comment\n' > "$T/hosts"
    run_mpirun --hostfile "$T/hosts" sh -c 'echo "n=$FTMPI_NPROCS"'
    expect_rc 0
    [ "$(grep -c '^n=3$' "$T/out")" -eq 3 ] || fail "hostfile slots did not set the process count"
    printf 'elsewhere.example slots=2\n' > "$T/hosts"
    run_mpirun --hostfile "$T/hosts" /bin/true
    expect_rc 1
    expect_err "cannot resolve host 'elsewhere.example'"
    run_mpirun -np 2 --host "localhost:1,$(hostname)" -- sh -c 'echo "n=$FTMPI_NPROCS"'
    expect_rc 0
    MPIRUN=$(dirname "$MPIRUN")/mpiexec run_mpirun -n 2 /bin/true
    expect_rc 0 ;;
malformed_frames)  # (k) malformed frames do not kill the daemon
    sock=$T/d/ftmpid.sock
    mkdir -m 700 "$T/d"
    "$FTMPID" --socket "$sock" --log "$T/daemon.log" &
    DAEMON_PID=$!
    for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
    [ -S "$sock" ] || fail "daemon did not start"
    "$ABUSE" "$sock" >"$T/out" 2>"$T/err" || fail "daemon did not drop every bad connection"
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "daemon died"
    grep -q 'dropping control connection' "$T/daemon.log" || fail "drops were not logged"
    FTMPI_DAEMON_SOCKET=$sock run_mpirun -n 2 "$RANK" exchange
    expect_rc 0
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "daemon died after the job"
    kill -TERM "$DAEMON_PID"
    wait "$DAEMON_PID" || fail "daemon exited non-zero after SIGTERM"
    DAEMON_PID=
    [ ! -e "$sock" ] || fail "socket left behind" ;;
pmix_abuse)  # a job's PMIx listener gets silent, half and lying connect-acks (issue 16 item 3)
    # The daemon closes each; the job it serves and the next job are unaffected and not held up.
    run_serve() { "$MPIRUN" -n 2 "$RANK" serve 40 >"$T/out" 2>"$T/err"; }
    run_serve &
    mp=$!
    for _ in $(seq 150); do [ -e "$T/pmix_env" ] && break; sleep 0.1; done
    [ -e "$T/pmix_env" ] || fail "the job did not publish its PMIx environment"
    uri=$(sed -n "s/^export PMIX_SERVER_URI41='.*tcp4:\/\/\([0-9.]*\):\([0-9]*\)'$/\1 \2/p" "$T/pmix_env")
    [ -n "$uri" ] || fail "no tcp4 URI in $(cat "$T/pmix_env")"
    "$ABUSE" --pmix $uri >"$T/abuse.out" 2>&1 || { cat "$T/abuse.out"; fail "the daemon did not close every bad PMIx connection"; }
    touch "$T/stop"
    wait $mp
    RC=$?
    expect_rc 0
    [ "$(grep -c 'exchange ok' "$T/out")" -eq 2 ] || fail "the served job did not finish"
    run_mpirun -n 2 "$RANK" exchange
    expect_rc 0
    expect_faster_than 10000 ;;
*)
    echo "unknown case $CASE"; exit 2 ;;
esac
echo "PASS [$CASE]"
