#!/bin/bash
# Simulated hosts on one machine (SPEC 5.1): each "host" is a network namespace joined to the
# others by a veth pair on a bridge, plus a UTS namespace (its own hostname) and a mount
# namespace (its own /dev/shm, /tmp and /etc/hosts); the install tree (/work, /usr) is shared as
# on a cluster. Addresses are in 127.0.0.0/8 only. The bridge lives in a namespace of its own, so
# the root namespace's network is never touched (not even transiently: veth pairs are created
# inside the switch namespace).
#
#   hosts.sh up N            make N hosts; prints the harness directory (export it as FTNS)
#   hosts.sh exec HOST CMD.. run CMD on HOST (FTNS from the environment); like ssh, but keeps env
#   hosts.sh kill HOST       SIGSTOP, then SIGKILL every process of HOST (a host failure)
#   hosts.sh link HOST up|down   bring HOST's link up or down (a partition)
#   hosts.sh procs HOST      list the pids living on HOST
#   hosts.sh files HOST      list HOST's /dev/shm and /tmp entries (not the shared install tree)
#   hosts.sh leftovers HOST  exit 1 (listing them) if HOST has processes or /dev/shm, /tmp entries
#   hosts.sh clean TENTHS [HOST..]  wait up to TENTHS tenths of a second until none of the HOSTs
#                            (default: every host) has leftovers; else list them all and exit 1
#                            (a job's daemons finish their clean-up just after mpirun returns)
#   hosts.sh names           the host names, one a line, in order (host 1 first)
#   hosts.sh down            kill everything and remove the namespaces and the directory
#   hosts.sh reap            take down every harness whose owner is gone (`up` does it first too)
#
# The harness directory ($FTNS, under /run so it is visible from inside the hosts, whose /tmp is
# private) holds: `hosts` (name address pairs), `hostfile` (one `NAME slots=K` per host), one
# holder pid per host, and `ssh`, a launcher-exec script called exactly like ssh.
# Names are unique per harness (ftn<id>h<i>), so tests can run side by side.
#
# Owner: `up` records in `owner` the pid and start time of the process that captured its output
# (the script running `FTNS=$(hosts.sh up N)`: the nearest ancestor whose standard output is not
# hosts.sh's own). A test killed by ctest's TIMEOUT (SIGKILL to its process tree) never runs its
# `down` trap, and the holders, reparented, outlive it: so `up` and `reap` take down, under a lock
# (/run/ftmpi-netns/.lock, so two `up`s side by side never race), every harness whose owner pid is
# gone or now names another process (other start time). A live owner's harness is never touched,
# nor a directory without `owner` (an older hosts.sh's).
set -euo pipefail

die() { echo "hosts.sh: $*" >&2; exit 2; }
need_ftns() { [ -n "${FTNS:-}" ] && [ -f "$FTNS/hosts" ] || die "FTNS does not name a harness directory"; }
holder() { cat "$FTNS/$1.pid" 2>/dev/null || die "no host $1 in $FTNS"; }

# Every pid whose UTS namespace is HOST's (the holder's): that is what "runs on HOST". Never
# ours: a dead holder's pid reused by a process outside would otherwise name every process.
host_pids() {
  local h ns
  h=$(holder "$1")
  ns=$(readlink "/proc/$h/ns/uts" 2>/dev/null) || return 0
  [ "$ns" = "$(readlink /proc/$$/ns/uts)" ] && return 0
  uts_pids "$ns"
}

# The pids whose UTS namespace is $1 ("uts:[INODE]"): one `find` over /proc (a readlink per
# process took seconds with 200 processes at load 18, and `clean` calls this in a loop).
uts_pids() {
  local pat=${1//[/\\[}
  pat=${pat//]/\\]}
  find /proc/[0-9]*/ns/uts -maxdepth 0 -lname "$pat" 2>/dev/null | cut -d/ -f3
  return 0
}

# "STATE PPID STARTTIME" of pid $1 from /proc/PID/stat (fields 3, 4, 22; the name in field 2
# may hold spaces and parentheses, so split after its last ')'); fails when there is no such pid.
proc_stat() {
  local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  set -- ${s##*) }
  echo "$1 $2 ${20}"
}

# The owner of a harness being made: walk up from our parent while it writes to the same
# standard output as we do (a command substitution's subshell, `timeout`, ...).
owner_pid() {
  local p=$PPID out st
  out=$(readlink /proc/$$/fd/1 2>/dev/null) || { echo "$p"; return; }
  while [ "$(readlink "/proc/$p/fd/1" 2>/dev/null)" = "$out" ]; do
    st=$(proc_stat "$p") || break
    set -- $st
    [ "$2" -gt 1 ] || break
    p=$2
  done
  echo "$p"
}

# Is the owner recorded in harness dir $1 alive: same pid, same start time, not a zombie?
owner_alive() {
  local pid start st
  read -r pid start < "$1/owner" || return 1
  st=$(proc_stat "$pid") || return 1
  set -- $st
  [ "$1" != Z ] && [ "$1" != X ] && [ "$3" = "$start" ]
}

# Every pid inside the harness $1's namespaces: by network namespace (every host and the switch)
# and by each holder's UTS namespace (never ours: a holder pid reused outside would name it).
harness_pids() {
  local dir=$1 name h ns own
  own=$(readlink /proc/$$/ns/uts)
  while read -r name; do ip netns pids "$name" 2>/dev/null || true; done < "$dir/netns"
  for h in "$dir"/*.pid; do
    [ -f "$h" ] || continue
    ns=$(readlink "/proc/$(cat "$h")/ns/uts" 2>/dev/null) || continue
    [ "$ns" = "$own" ] && continue
    uts_pids "$ns"
  done
  return 0
}

# Kill everything inside harness $1 (again while a dying process's child shows up), delete its
# namespaces (the switch's bridge and veths, each host's eth0 go with them) and its directory.
teardown() {
  local dir=$1 pids name
  for _ in $(seq 20); do
    pids=$(harness_pids "$dir" | sort -u)
    [ -z "$pids" ] && break
    kill -9 $pids 2>/dev/null || true
    sleep 0.05
  done
  [ -f "$dir/netns" ] && while read -r name; do ip netns del "$name" 2>/dev/null || true; done < "$dir/netns"
  rm -rf "$dir"
}

# Take down every harness whose owner is gone; the caller holds the lock.
reap_orphans() {
  local dir
  for dir in /run/ftmpi-netns/*/; do
    dir=${dir%/}
    [ -f "$dir/owner" ] || continue
    owner_alive "$dir" && continue
    echo "hosts.sh: reaping $dir (owner $(cat "$dir/owner" | cut -d' ' -f1) is gone)" >&2
    teardown "$dir"
  done
}

cmd_reap() {
  [ -d /run/ftmpi-netns ] || return 0
  exec 9>/run/ftmpi-netns/.lock
  flock -w 300 9 || die "cannot lock /run/ftmpi-netns/.lock"
  reap_orphans
  exec 9>&-
}

cmd_up() {
  local n=${1:-} slots=${2:-4} id dir i name addr sub st
  [[ "$n" =~ ^[1-9][0-9]?$ ]] || die "usage: hosts.sh up N [SLOTS]  (N in 1..99)"
  mkdir -p /run/ftmpi-netns
  # Under the lock: reap, then make our directory with its owner, so another `up` never sees
  # it ownerless. The lock is released before any process is started (none may inherit it).
  exec 9>/run/ftmpi-netns/.lock
  flock -w 300 9 || die "cannot lock /run/ftmpi-netns/.lock"
  reap_orphans
  dir=$(mktemp -d /run/ftmpi-netns/XXXXXX)
  i=$(owner_pid); st=$(proc_stat "$i") || die "no owner process $i"
  echo "$i $(echo "$st" | cut -d' ' -f3)" > "$dir/owner"
  : > "$dir/netns"
  exec 9>&-
  id=$(basename "$dir" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9' | cut -c1-6)
  # A /24 per harness inside 127.0.0.0/8, picked from the directory's name so harnesses
  # side by side differ (127.0.0.0/24 itself is never used).
  local h; h=$(echo -n "$dir" | md5sum)
  sub=$(( 0x${h:0:4} % 250 + 2 )).$(( 0x${h:4:4} % 250 + 2 ))
  echo "$id" > "$dir/id"
  local sw="ftn${id}sw"
  echo "$sw" > "$dir/netns"  # listed before it exists: a killed `up` leaves nothing unlisted
  ip netns add "$sw"
  ip netns exec "$sw" ip link set lo up
  ip netns exec "$sw" ip link add br0 type bridge
  ip netns exec "$sw" ip link set br0 up
  : > "$dir/hosts"; : > "$dir/hostfile"
  for i in $(seq 1 "$n"); do
    name="ftn${id}h$i"; addr="127.$sub.$i"
    echo "$name $addr" >> "$dir/hosts"
    echo "$name slots=$slots" >> "$dir/hostfile"
    echo "$name" >> "$dir/netns"
    ip netns add "$name"
    ip netns exec "$sw" ip link add "v$i" type veth peer name eth0 netns "$name"
    ip netns exec "$sw" ip link set "v$i" master br0 up
    # lo keeps only 127.0.0.1: with the usual 127.0.0.1/8 every 127.x address would be local.
    ip netns exec "$name" sh -c "ip link set lo up && ip addr del 127.0.0.1/8 dev lo &&
      ip addr add 127.0.0.1/32 dev lo && sysctl -qw net.ipv4.conf.all.route_localnet=1 &&
      sysctl -qw net.ipv4.conf.eth0.route_localnet=1 && ip addr add $addr/24 dev eth0 &&
      ip link set eth0 up"
  done
  { echo "127.0.0.1 localhost"; cat "$dir/hosts" | awk '{print $2, $1}'; } > "$dir/etc_hosts"
  # The install tree stays shared (SPEC 5.1) even when it lives under /tmp (a CI clone in
  # /tmp/ci, say), which each host's private /tmp would hide: the repository (and
  # FTMPI_BUILD_DIR, if set) is bind-mounted back at its own path inside the host's /tmp.
  local keep="" k
  for k in "$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)" ${FTMPI_BUILD_DIR:+"$(readlink -f "$FTMPI_BUILD_DIR")"}; do
    case "$k" in /tmp/?*) keep="$keep $k" ;; esac
  done
  echo "$keep" > "$dir/keep"
  local rebind="" stash=0
  for k in $keep; do
    stash=$((stash + 1))
    mkdir -p "$dir/keep.$stash"
    rebind="$rebind mount --bind '$k' '$dir/keep.$stash' &&"
  done
  local restore="" j
  for j in $(seq 1 "$stash"); do
    k=$(echo $keep | cut -d' ' -f"$j")
    restore="$restore mkdir -p '$k' && mount --bind '$dir/keep.$j' '$k' &&"
  done
  # The holder keeps each host's UTS and mount namespaces alive; everything else enters them.
  for i in $(seq 1 "$n"); do
    name="ftn${id}h$i"
    ip netns exec "$name" unshare --uts --mount --propagation private sh -c "
      hostname $name && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && $rebind
      mount -t tmpfs -o mode=1777 tmpfs /tmp && $restore mount --bind $dir/etc_hosts /etc/hosts &&
      exec sleep infinity" </dev/null >/dev/null 2>&1 &
    echo $! > "$dir/$name.pid"
  done
  # Wait until every holder has entered its namespaces (its hostname is set).
  for i in $(seq 1 "$n"); do
    name="ftn${id}h$i"
    for _ in $(seq 1 100); do
      [ "$(nsenter -t "$(cat "$dir/$name.pid")" -u hostname 2>/dev/null)" = "$name" ] && break
      sleep 0.05
    done
  done
  sed "s|@FTNS@|$dir|" "$(dirname "$(readlink -f "$0")")/launcher_exec.sh.in" > "$dir/ssh"
  chmod 755 "$dir/ssh"
  echo "$dir"
}

cmd_exec() {
  need_ftns; local h; h=$(holder "$1"); shift
  exec nsenter -t "$h" -u -m -n -- "$@"
}

# A host failure is everything at once. `kill -9 PIDS` signals one pid after another: a daemon
# signalled late could see its rank die first and report that death on its own (seen at load
# 28: two events for one host). So every process is stopped first (again for any it forked
# meanwhile), and only then killed: a stopped process cannot react.
cmd_kill() {
  need_ftns
  local h pids new stopped=""
  h=$(holder "$1")
  for _ in $(seq 10); do
    pids=$(host_pids "$1" | grep -vx "$h" || true)
    new=$(comm -23 <(echo "$pids" | sort) <(echo "$stopped" | tr ' ' '\n' | sort) | grep . || true)
    [ -z "$new" ] && break
    kill -STOP $new 2>/dev/null || true
    stopped="$stopped $new"
  done
  [ -n "$stopped" ] && kill -9 $stopped 2>/dev/null || true
}

cmd_link() {
  need_ftns; local i; i=$(grep -n "^$1 " "$FTNS/hosts" | cut -d: -f1)
  [ -n "$i" ] && [[ "${2:-}" =~ ^(up|down)$ ]] || die "usage: hosts.sh link HOST up|down"
  ip netns exec "$(head -1 "$FTNS/netns")" ip link set "v$i" "$2"
}

# The entries of HOST's private /dev/shm and /tmp, one per line, but for the first component
# under /tmp of a kept (shared) path, which is the install tree, not a leftover.
cmd_files() {
  need_ftns; local h skip k
  h=$(holder "$1")
  skip=$(for k in $(cat "$FTNS/keep" 2>/dev/null); do k=${k#/tmp/}; echo "${k%%/*}"; done)
  nsenter -t "$h" -m -- sh -c 'ls -A /dev/shm; ls -A /tmp' | grep -vxF -f <(echo "$skip"; echo "/") || true
}

cmd_leftovers() {
  need_ftns; local h bad=0 p
  h=$(holder "$1")
  for p in $(host_pids "$1"); do
    [ "$p" = "$h" ] && continue
    echo "left on $1: pid $p $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"; bad=1
  done
  p=$(cmd_files "$1")
  [ -n "$p" ] && { echo "left on $1 (/dev/shm, /tmp): $p"; bad=1; }
  return $bad
}

cmd_clean() {
  need_ftns; local tenths=${1:-} h dirty
  [[ "$tenths" =~ ^[0-9]+$ ]] || die "usage: hosts.sh clean TENTHS [HOST...]"
  shift
  [ $# -gt 0 ] || set -- $(awk '{print $1}' "$FTNS/hosts")
  for _ in $(seq "$tenths"); do
    dirty=0
    for h in "$@"; do cmd_leftovers "$h" >/dev/null || { dirty=1; break; }; done
    [ $dirty -eq 0 ] && return 0
    sleep 0.1
  done
  dirty=0
  for h in "$@"; do cmd_leftovers "$h" || dirty=1; done
  return $dirty
}

cmd_down() {
  need_ftns
  teardown "$FTNS"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  exec) shift; [ $# -ge 2 ] || die "usage: hosts.sh exec HOST CMD..."; cmd_exec "$@" ;;
  kill) need_ftns; cmd_kill "${2:?host}" ;;
  link) shift; cmd_link "$@" ;;
  procs) need_ftns; host_pids "${2:?host}" ;;
  leftovers) cmd_leftovers "${2:?host}" ;;
  files) cmd_files "${2:?host}" ;;
  clean) shift; cmd_clean "$@" ;;
  names) need_ftns; awk '{print $1}' "$FTNS/hosts" ;;
  down) cmd_down ;;
  reap) cmd_reap ;;
  *) die "usage: hosts.sh up N [SLOTS] | exec HOST CMD... | kill HOST | link HOST up|down | procs HOST | files HOST | leftovers HOST | clean TENTHS [HOST...] | names | down | reap" ;;
esac
