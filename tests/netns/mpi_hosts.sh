#!/bin/bash
# MPI test programs across 3 namespace hosts (issue 15 item 8), ranks spread with --map-by node so
# every test crosses hosts (with 6 ranks: host 1 runs 0 and 3, host 2 runs 1 and 4, host 3 runs
# 2 and 5): point-to-point of every size up to 4 MiB (eager and rendezvous across hosts),
# wildcard receives fed from both endpoints, probes, synchronous and buffered sends, persistent
# requests, collectives, communicators split by host, MPI_Abort from another host, SHRINK and
# BLANK repairs after a rank on another host is killed, and REBUILD replacements reached across
# hosts (direct modex). After every program nothing may be left on any host.
#   mpi_hosts.sh GROUP TESTS_BIN_DIR MPIRUN_DIR      GROUP: p2p | coll | ft
set -u
GROUP=$1 TBIN=$2 BIN=$3
here=$(dirname "$(readlink -f "$0")")
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3) || { echo "FAIL: cannot make the hosts"; exit 1; }
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t H < <(bash "$here/hosts.sh" names)
T=$FTNS/t
mkdir -p "$T"
NAME=

fail() { echo "FAIL [$NAME]: $*"; echo "--- output"; cat "$T/out"; exit 1; }

# run NAME EXPECT_RC PATTERN MPIRUN-ARGS...: on host 1, --map-by node over the 3 hosts.
run() {
    NAME=$1; local expect=$2 pattern=$3; shift 3
    local start; start=$(date +%s%N)
    mkdir -p "$T/$NAME"  # PIDDIR of this run: kill markers and times of one program only
    PIDDIR=$T/$NAME timeout -s KILL 100 bash "$here/hosts.sh" exec "${H[0]}" sh -c 'cd "$0" && exec "$@"' "$T" \
        "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node --timeout 90 "$@" \
        >"$T/out" 2>&1 </dev/null
    local rc=$? ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$rc" -eq "$expect" ] || fail "exit code $rc, expected $expect"
    grep -qE -- "$pattern" "$T/out" || fail "output lacks /$pattern/"
    bash "$here/hosts.sh" clean 50 || fail "left behind"
    echo "ok [$NAME] $ms ms"
}

case "$GROUP" in
p2p)
    run p2p_basic.np6 0 "p2p_basic: OK" -n 6 "$TBIN/p2p_basic"
    run p2p_sizes.np2 0 "p2p_sizes: OK up to 4" -n 2 "$TBIN/p2p_sizes" 4
    run probe.np3 0 "probe: OK" -n 3 "$TBIN/probe"
    run ssend.np4 0 "ssend: OK" -n 4 "$TBIN/ssend"
    run bsend.np3 0 "bsend: OK" -n 3 "$TBIN/bsend"
    run persistent.np5 0 "persistent: OK" -n 5 "$TBIN/persistent"
    run p2p_completion.np6 0 "p2p_completion: OK" -n 6 "$TBIN/p2p_completion"
    run ring.np6 0 "token 120 \(expected 120\)" -n 6 "$TBIN/ring" 20
    ;;
coll)
    run coll_basic.np6 0 "coll_basic: OK" -n 6 "$TBIN/coll_basic"
    run coll_basic.np5 0 "coll_basic: OK" -n 5 "$TBIN/coll_basic"
    run split_type.np6 0 "split_type: OK \(3 hosts\)" -n 6 "$TBIN/split_type"
    run comm_create.np5 0 "comm_create: OK" -n 5 "$TBIN/comm_create"
    run mpi2_reduce.np5 0 "mpi2_reduce: OK" -n 5 "$TBIN/mpi2_reduce"
    ;;
ft)
    # MPI_Abort on host 2 ends every host's ranks with its code.
    run abort.mpi_abort.np6 7 "rank 1 aborted the job with code 7" -n 6 "$TBIN/abort" abort
    # SHRINK/BLANK: the victim (rank 1 or 4, host 2) dies while the others on hosts 1 and 3
    # wait for it; they repair and sum over the repaired world.
    run ft_repair.shrink.recv 0 "ft_repair OK" -n 6 --comm-mode shrink "$TBIN/ft_repair" 4 recv
    run ft_repair.blank.anysource 0 "ft_repair OK" -n 6 --comm-mode blank "$TBIN/ft_repair" 1 anysource
    # REBUILD: two ranks of host 2 killed one after the other; mpirun places each replacement
    # and the other hosts reach it through the direct modex.
    run ft_rebuild.two_on_host2 0 "ft_rebuild OK: sum 1440 after 20 iterations, 2 repair" -n 6 --comm-mode rebuild \
        "$TBIN/ft_rebuild" 20 4@3 1@8
    ;;
*) echo "unknown group $GROUP"; exit 2 ;;
esac
