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
#   hosts.sh kill HOST       SIGKILL every process of HOST (a host failure)
#   hosts.sh link HOST up|down   bring HOST's link up or down (a partition)
#   hosts.sh procs HOST      list the pids living on HOST
#   hosts.sh files HOST      list HOST's /dev/shm and /tmp entries (not the shared install tree)
#   hosts.sh leftovers HOST  exit 1 (listing them) if HOST has processes or /dev/shm, /tmp entries
#   hosts.sh clean TENTHS [HOST..]  wait up to TENTHS tenths of a second until none of the HOSTs
#                            (default: every host) has leftovers; else list them all and exit 1
#                            (a job's daemons finish their clean-up just after mpirun returns)
#   hosts.sh names           the host names, one a line, in order (host 1 first)
#   hosts.sh down            kill everything and remove the namespaces and the directory
#
# The harness directory ($FTNS, under /run so it is visible from inside the hosts, whose /tmp is
# private) holds: `hosts` (name address pairs), `hostfile` (one `NAME slots=K` per host), one
# holder pid per host, and `ssh`, a launcher-exec script called exactly like ssh.
# Names are unique per harness (ftn<id>h<i>), so tests can run side by side.
set -euo pipefail

die() { echo "hosts.sh: $*" >&2; exit 2; }
need_ftns() { [ -n "${FTNS:-}" ] && [ -f "$FTNS/hosts" ] || die "FTNS does not name a harness directory"; }
holder() { cat "$FTNS/$1.pid" 2>/dev/null || die "no host $1 in $FTNS"; }

# Every pid whose UTS namespace is HOST's (the holder's): that is what "runs on HOST".
host_pids() {
  local h ns p
  h=$(holder "$1")
  ns=$(readlink "/proc/$h/ns/uts" 2>/dev/null) || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/uts" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
  done
  return 0
}

cmd_up() {
  local n=${1:-} slots=${2:-4} id dir i name addr sub
  [[ "$n" =~ ^[1-9][0-9]?$ ]] || die "usage: hosts.sh up N [SLOTS]  (N in 1..99)"
  mkdir -p /run/ftmpi-netns
  dir=$(mktemp -d /run/ftmpi-netns/XXXXXX)
  id=$(basename "$dir" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9' | cut -c1-6)
  # A /24 per harness inside 127.0.0.0/8, picked from the directory's name so harnesses
  # side by side differ (127.0.0.0/24 itself is never used).
  local h; h=$(echo -n "$dir" | md5sum)
  sub=$(( 0x${h:0:4} % 250 + 2 )).$(( 0x${h:4:4} % 250 + 2 ))
  echo "$id" > "$dir/id"
  local sw="ftn${id}sw"
  ip netns add "$sw"
  echo "$sw" > "$dir/netns"
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

cmd_kill() {
  need_ftns
  local pids; pids=$(host_pids "$1" | grep -vx "$(holder "$1")" || true)
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
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
  need_ftns; local name
  for name in $(awk '{print $1}' "$FTNS/hosts"); do
    local pids; pids=$(host_pids "$name")
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  done
  while read -r name; do ip netns del "$name" 2>/dev/null || true; done < "$FTNS/netns"
  rm -rf "$FTNS"
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
  *) die "usage: hosts.sh up N [SLOTS] | exec HOST CMD... | kill HOST | link HOST up|down | procs HOST | files HOST | leftovers HOST | clean TENTHS [HOST...] | names | down" ;;
esac
