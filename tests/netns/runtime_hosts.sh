#!/bin/bash
# mpirun + ftmpid across 3 namespace hosts (issue 15 items 1, 2, 4, 8): launch through the
# launcher-exec script, PMIx fence spanning the hosts, output/tags/-x/cwd, failures of ranks on
# another host under SHRINK and ABORT, MPI_Abort/PMIx_Abort, exit codes, --timeout, launch
# errors; after every case nothing may be left on any host (hosts.sh leftovers).
#   runtime_hosts.sh GROUP BIN_DIR PMIX_RANK
# GROUP: launch | fence | failures | errors (each runs its cases in one harness).
# mpirun runs inside host 1 (the root namespace cannot reach the hosts); ranks are spread with
# --map-by node: with 6 ranks, host 1 runs 0 and 3, host 2 runs 1 and 4, host 3 runs 2 and 5.
set -u
GROUP=$1 BIN=$2 RANK=$3
here=$(dirname "$(readlink -f "$0")")
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(bash "$here/hosts.sh" names)
T=$FTNS/t  # under /run: every host sees it (their /tmp are their own)
mkdir -p "$T"
CASE=

fail() {
    echo "FAIL [$GROUP/$CASE]: $*"
    echo "--- stdout"; cat "$T/out" 2>/dev/null; echo "--- stderr"; cat "$T/err" 2>/dev/null
    exit 1
}

# mpi ARGS...: mpirun on host 1 over every host, stdin from the caller (callers give one);
# sets RC and MS; output in $T/out, $T/err.
mpi() {
    local start; start=$(date +%s%N)
    # nsenter starts in / of the host's mount namespace: cd there, as a user would.
    FTMPI_TEST_DIR=$T timeout -s KILL 50 bash "$here/hosts.sh" exec "${H[0]}" sh -c 'cd "$0" && exec "$@"' "$T" \
        "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    MS=$(( ($(date +%s%N) - start) / 1000000 ))
    [ $RC -eq 137 ] && [ "$MS" -ge 49000 ] && fail "mpirun hung (killed by the 50 s watchdog)"
    return 0
}
expect_rc() { [ "$RC" -eq "$1" ] || fail "exit code $RC, expected $1"; }
expect_err() { grep -qE -- "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_out() { grep -qE -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
count_out() { [ "$(grep -cE -- "$1" "$T/out")" -eq "$2" ] || fail "stdout has $(grep -cE -- "$1" "$T/out") lines /$1/, expected $2"; }
# Nothing of the job on any host: no process, nothing in /dev/shm or /tmp (daemons, run dirs).
expect_clean() {
    bash "$here/hosts.sh" clean 50 || fail "left behind"
    rm -f "$T"/pid.*
}
host_of() { echo "${H[$(($1 % 3))]}"; }  # --map-by node, 3 hosts

case_hostname() {  # -n 6: every rank runs on its host, tagged [rank,host]
    mpi -n 6 --map-by node --tag-output hostname </dev/null
    expect_rc 0
    for r in 0 1 2 3 4 5; do expect_out "^\[$r,$(host_of $r)\] $(host_of $r)$"; done
    count_out '' 6
}
case_env_cwd() {  # -x and mpirun's working directory reach the ranks on every host
    mpi -n 3 --map-by node -x FTMPI_TEST_WORD=across sh -c 'echo "$(hostname) $FTMPI_TEST_WORD $PWD $FTMPI_NHOSTS"' </dev/null
    expect_rc 0
    for r in 0 1 2; do expect_out "^$(host_of $r) across $T 3$"; done
}
case_slots() {  # --map-by slot fills host 1's slots first (hostfile: 4 slots each)
    mpi -n 6 --map-by slot --tag-output hostname </dev/null
    expect_rc 0
    for r in 0 1 2 3; do expect_out "^\[$r,${H[0]}\] ${H[0]}$"; done
    for r in 4 5; do expect_out "^\[$r,${H[1]}\] ${H[1]}$"; done
}
case_remote_only() {  # no rank on mpirun's host: no local daemon, the job still runs
    printf '%s slots=2\n%s slots=2\n' "${H[1]}" "${H[2]}" > "$T/hf"
    mpi -n 4 --hostfile "$T/hf" --tag-output hostname </dev/null
    expect_rc 0
    count_out "^\[[01],${H[1]}\] ${H[1]}$" 2
    count_out "^\[[23],${H[2]}\] ${H[2]}$" 2
}
case_stdin() {  # mpirun's stdin reaches rank 0 on another host (2 MB: the pipe fills), others get none
    printf '%s slots=1\n%s slots=2\n' "${H[1]}" "${H[0]}" > "$T/hf"
    head -c 2000000 /dev/zero | tr '\0' x > "$T/in"
    mpi -n 3 --hostfile "$T/hf" --tag-output sh -c 'echo "got $(wc -c) bytes on $(hostname)"' < "$T/in"
    expect_rc 0
    expect_out "^\[0,${H[1]}\] got 2000000 bytes on ${H[1]}$"
    count_out "got 0 bytes on ${H[0]}$" 2
}
case_exchange() {  # PMIx put/commit/fence(collect)/get of every rank's key across hosts
    mpi -n 6 --map-by node "$RANK" exchange </dev/null
    expect_rc 0
    count_out 'exchange ok' 6
}
case_shrink() {  # a rank on another host dies in SHRINK: every survivor on every host is told
    mpi -n 6 --map-by node --comm-mode shrink "$RANK" survive 4 </dev/null
    expect_rc 0
    count_out 'saw the failure of rank 4' 5
    expect_err "ftmpi: rank 4 \(pid [0-9]+ on ${H[1]}\) killed by signal 9 \(Killed\) at .*continues"
}
case_abort_kill() {  # ABORT mode: a rank killed on host 3 ends the job on every host, 128+9
    mpi -n 6 --map-by node "$RANK" sigkill 5 </dev/null
    expect_rc 137
    expect_err "ftmpi: rank 5 \(pid [0-9]+ on ${H[2]}\) killed by signal 9"
    [ "$MS" -lt 15000 ] || fail "took $MS ms to end the job"
}
case_exit_status() {  # ABORT mode: a remote rank's exit status is mpirun's
    mpi -n 6 --map-by node "$RANK" exit 4 3 </dev/null
    expect_rc 3
    expect_err "ftmpi: rank 4 \(pid [0-9]+ on ${H[1]}\) exited with status 3"
}
case_pmix_abort() {  # PMIx_Abort (MPI_Abort) on host 2 with code 7
    mpi -n 6 --map-by node "$RANK" abort 1 7 </dev/null
    expect_rc 7
    expect_err 'ftmpi: rank 1 aborted the job with code 7'
}
case_timeout() {  # --timeout kills every host's ranks: 124
    mpi -n 6 --map-by node --timeout 1 "$RANK" sleep </dev/null
    expect_rc 124
    expect_err 'exceeded --timeout'
    [ "$MS" -lt 15000 ] || fail "took $MS ms"
}
case_all_failed() {  # non-ABORT: every rank on every host fails -> the first failure's status
    mpi -n 3 --map-by node --comm-mode blank sh -c 'exit 5' </dev/null
    expect_rc 5
}
case_bad_host() {  # a host the launcher cannot reach: clear message, exit 1, fast
    # Not the first remote host: that one names the connect-back route, and must resolve.
    printf '%s slots=1\n%s slots=1\nno-such-host-%s slots=1\n' "${H[0]}" "${H[1]}" "$$" > "$T/hf"
    mpi -n 3 --hostfile "$T/hf" hostname </dev/null
    expect_rc 1
    expect_err "launcher for host no-such-host-$$ exited with status 255 before its daemon connected"
    [ "$MS" -lt 15000 ] || fail "took $MS ms"
}
case_bad_program() {  # a program missing: exit 127, like one host
    mpi -n 3 --map-by node /nonexistent/program </dev/null
    expect_rc 127
}

case "$GROUP" in
    launch) cases="hostname env_cwd slots remote_only stdin" ;;
    fence) cases="exchange" ;;
    failures) cases="shrink abort_kill exit_status pmix_abort timeout all_failed" ;;
    errors) cases="bad_host bad_program" ;;
    *) echo "unknown group $GROUP"; exit 2 ;;
esac
for CASE in $cases; do
    "case_$CASE"
    expect_clean
    echo "ok [$GROUP/$CASE] ${MS} ms"
done
