#!/bin/bash
# Harnesses left behind are reaped (hosts.sh "Owner"): a test killed by ctest's TIMEOUT never
# runs its `down` trap, so the next `up` (and `hosts.sh reap`, tools/test.sh's last step) must
# take down every harness whose owner died, with everything running inside it, and nothing else.
#   reap_test.sh MPIRUN_DIR
# 1. An owner (a child bash) makes 2 hosts, starts inside them a job (mpirun on host 1, its
#    remote ftmpid and a rank on host 2), a setsid'ed process (a daemon) and a plain child; it is
#    SIGKILLed alone (its children live on, as after a kill of only the script). `reap` must
#    remove its namespaces (so its bridge and veths), its directory and every process inside,
#    while this script's own harness (a live owner) keeps working.
# 2. The same orphan is reaped by the next `up`.
# 3. A recorded owner pid that now names another process (other start time) counts as gone.
# 4. Two `up`s at once beside an orphan: both succeed and keep their hosts, the orphan goes, the
#    lock is free afterwards (no process of a harness inherited it).
# The root namespace's links are the same at the end.
set -u
BIN=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
H=$here/hosts.sh
T=$(mktemp -d /tmp/reap_test.XXXXXX)
fail() { echo "FAIL: $*"; exit 1; }
links() { ip -o link | awk -F': ' '{print $2}' | sort; }
links_before=$(links)
export FTNS; FTNS=$(bash "$H" up 2) || fail "cannot make the hosts"
OWNERS=()  # the owners this script started (killed on the way out, then their harnesses reaped)
trap 'bash "$H" down; [ ${#OWNERS[@]} -gt 0 ] && kill -9 "${OWNERS[@]}" 2>/dev/null; bash "$H" reap 2>/dev/null; rm -rf "$T"' EXIT
mine=$FTNS

# The start time of pid $1, if it lives (a zombie is dead: killed, only not yet waited for).
start_of() {
    local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    set -- ${s##*) }
    [ "$1" != Z ] && echo "${20}"
}

# orphan TAG [job]: a harness (1 host; 2 with a job) whose owner was SIGKILLed; sets ODIR, ONS (its namespaces) and
# OPROCS ("pid start" of every process inside it, at least the holders and what it started).
orphan() {
    local tag=$1 job=${2:-} owner n
    rm -f "$T/$tag"
    bash -c '
        H=$0 out=$1 job=$2 BIN=$3
        export FTNS; FTNS=$(bash "$H" up $([ -n "$job" ] && echo 2 || echo 1)) || exit 1
        mapfile -t h < <(bash "$H" names)
        "$FTNS/ssh" "${h[0]}" "setsid sleep 600 </dev/null >/dev/null 2>&1 &"
        bash "$H" exec "${h[${#h[@]}-1]}" sleep 600 &
        if [ -n "$job" ]; then
            bash "$H" exec "${h[0]}" "$BIN/mpirun" --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" \
                --timeout 600 -n 2 --map-by node sleep 600 </dev/null >/dev/null 2>&1 &
        fi
        echo "$FTNS" > "$out"
        exec sleep 600' "$H" "$T/$tag" "$job" "$BIN" </dev/null >/dev/null 2>"$T/$tag.err" &
    owner=$!
    OWNERS+=("$owner")
    for _ in $(seq 300); do [ -s "$T/$tag" ] && break; sleep 0.1; done
    ODIR=$(cat "$T/$tag" 2>/dev/null) || fail "[$tag] the owner made no harness"
    [ "$(cut -d' ' -f1 "$ODIR/owner")" = "$owner" ] || fail "[$tag] owner recorded $(cat "$ODIR/owner"), expected $owner"
    ONS=$(cat "$ODIR/netns")
    # Wait until what was started runs (the job: mpirun, a daemon and a rank `sleep` on host 2).
    local want=3 names; [ -n "$job" ] && want=7; names=$(awk '{print $1}' "$ODIR/hosts")
    for _ in $(seq 300); do
        OPROCS=$(for n in $ONS; do ip netns pids "$n"; done | sort -u | while read -r p; do
            s=$(start_of "$p") && echo "$p $s"; done)
        n=$(echo "$OPROCS" | grep -c .)
        [ "$n" -ge "$want" ] && break
        sleep 0.1
    done
    [ "$n" -ge "$want" ] || fail "[$tag] only $n processes inside the harness, expected $want: $(cat "$T/$tag.err")"
    if [ -n "$job" ]; then
        local where; where=$(for p in $(FTNS=$ODIR bash "$H" procs "$(echo "$names" | sed -n 2p)"); do
            tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null; echo; done)
        [[ "$where" == *ftmpid* ]] || fail "[$tag] no remote daemon on host 2: $where"
    fi
    kill -9 "$owner"; wait "$owner" 2>/dev/null
}

# gone TAG: nothing of the last orphan is left.
gone() {
    local n p s
    [ -e "$ODIR" ] && fail "[$1] directory $ODIR left"
    for n in $ONS; do ip netns list | grep -qw "$n" && fail "[$1] namespace $n left"; done
    while read -r p s; do
        [ "$(start_of "$p")" = "$s" ] && fail "[$1] pid $p left: $(tr '\0' ' ' < "/proc/$p/cmdline")"
    done <<< "$OPROCS"
    return 0
}

# alive DIR: every host of the harness DIR still answers.
alive() {
    local n
    [ -f "$1/owner" ] || fail "harness $1 was removed"
    for n in $(awk '{print $1}' "$1/hosts"); do
        [ "$("$1/ssh" "$n" hostname)" = "$n" ] || fail "host $n of $1 does not answer"
    done
}

# (Another test's `up` running beside this one may reap an orphan first: that is fine.)
orphan reap job
bash "$H" reap 2>"$T/reap.err" || fail "reap failed: $(cat "$T/reap.err")"
gone reap
alive "$mine"
echo "ok [reap] an orphan with a job inside (mpirun, ftmpid, rank), a daemon and a child: all gone ($SECONDS s)"

orphan up
other=$(bash "$H" up 1 2>/dev/null) || fail "up failed"
gone up
alive "$other"
FTNS=$other bash "$H" down
echo "ok [up] the next up reaped the orphan ($SECONDS s)"

# A pid now naming another process: this script's, with another start time.
stale=$(bash "$H" up 1) || fail "up failed"
echo "  ($SECONDS s)"
bash "$H" reap 2>/dev/null
alive "$stale"
echo "$$ 1" > "$stale/owner"
ODIR=$stale ONS=$(cat "$stale/netns") OPROCS=
bash "$H" reap 2>/dev/null
gone stale
echo "ok [stale] an owner pid with another start time counts as gone"

orphan race
echo "  ($SECONDS s)"
for i in 1 2; do
    bash -c 'FTNS=$(bash "$0" up 1) && echo "$FTNS" > "$1"; exec sleep 600' "$H" "$T/race.$i" </dev/null >/dev/null 2>&1 &
    eval "racer$i=\$!"
    OWNERS+=("$!")
done
for _ in $(seq 600); do [ -s "$T/race.1" ] && [ -s "$T/race.2" ] && break; sleep 0.1; done
r1=$(cat "$T/race.1" 2>/dev/null) && r2=$(cat "$T/race.2" 2>/dev/null) || fail "[race] an up failed"
[ "$r1" != "$r2" ] || fail "[race] both ups made $r1"
gone race
alive "$r1"; alive "$r2"; alive "$mine"
flock -n /run/ftmpi-netns/.lock true || fail "[race] the lock is still held"
kill -9 "$racer1" "$racer2"; wait "$racer1" "$racer2" 2>/dev/null
bash "$H" reap 2>/dev/null
[ -e "$r1" ] || [ -e "$r2" ] && fail "[race] the racers' harnesses were not reaped after their owners died"
echo "ok [race] two ups at once beside an orphan: both kept, the orphan reaped, lock free"

bash "$H" down; trap 'rm -rf "$T"' EXIT
[ "$(links)" = "$links_before" ] || fail "root namespace links changed"
echo "netns reap: OK ($SECONDS s)"
