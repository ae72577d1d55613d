#!/bin/bash
# Checks the namespace-host harness itself (SPEC 5.1): each host has its own hostname, /dev/shm,
# /tmp; hosts reach each other at 127.x addresses by name; the launcher-exec script behaves like
# ssh (clean environment, words run by sh, stdin passed through, exit status returned); a host
# kill leaves nothing; a link cut separates a host; `down` removes every namespace and the root
# namespace's links are the same before and after.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
fail() { echo "FAIL: $*" >&2; exit 1; }
links_before=$(ip -o link | awk -F': ' '{print $2}' | sort)
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3)
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t names < <(awk '{print $1}' "$FTNS/hosts")
mapfile -t addrs < <(awk '{print $2}' "$FTNS/hosts")
for a in "${addrs[@]}"; do [[ "$a" == 127.* ]] || fail "address $a outside 127.0.0.0/8"; done

# Own hostname, /dev/shm and /tmp per host.
for i in 0 1 2; do
  h=$("$FTNS/ssh" "${names[$i]}" hostname)
  [ "$h" = "${names[$i]}" ] || fail "hostname on ${names[$i]} is $h"
done
"$FTNS/ssh" "${names[0]}" 'echo x > /dev/shm/seg && echo y > /tmp/file'
out=$("$FTNS/ssh" "${names[1]}" 'ls -A /dev/shm /tmp')
[[ "$out" != *seg* && "$out" != *file* ]] || fail "/dev/shm or /tmp shared between hosts: $out"
[ -e /dev/shm/seg ] && fail "host's /dev/shm leaked into the root namespace"
"$FTNS/ssh" "${names[0]}" 'rm /dev/shm/seg /tmp/file'

# ssh-like: clean environment, stdin passes, exit status returns, address accepted as host name.
env_out=$(SECRET_SHOULD_NOT_PASS=1 "$FTNS/ssh" "${addrs[1]}" env)
[[ "$env_out" != *SECRET_SHOULD_NOT_PASS* ]] || fail "environment passed through the launcher"
[ "$(echo hello | "$FTNS/ssh" "${names[1]}" cat)" = hello ] || fail "stdin not passed"
set +e; "$FTNS/ssh" "${names[1]}" exit 7; rc=$?; set -e
[ $rc = 7 ] || fail "exit status $rc, expected 7"

# Name resolution and TCP between hosts.
"$FTNS/ssh" "${names[2]}" "timeout 10 python3 -c \"
import socket; s = socket.socket(); s.bind(('${addrs[2]}', 7001)); s.listen(); c, a = s.accept(); c.send(a[0].encode())\"" > "$FTNS/peer" &
srv=$!
for _ in $(seq 50); do
  got=$("$FTNS/ssh" "${names[0]}" "python3 -c \"
import socket, sys
try: s = socket.create_connection(('${names[2]}', 7001), timeout=1); print(s.recv(64).decode())
except OSError: sys.exit(1)\"" 2>/dev/null) && break
  sleep 0.1
done
wait $srv || true
[ "$got" = "${addrs[0]}" ] || fail "connection from ${names[0]} to ${names[2]} failed or came from '$got'"

# Link cut: the host is unreachable; link up: reachable again.
bash "$here/hosts.sh" link "${names[1]}" down
if "$FTNS/ssh" "${names[0]}" "python3 -c \"
import socket; socket.create_connection(('${addrs[1]}', 9), timeout=1)\"" 2>/dev/null; then
  fail "connection across a cut link"
fi
bash "$here/hosts.sh" link "${names[1]}" up

# Host kill: nothing of it is left.
( "$FTNS/ssh" "${names[2]}" 'sleep 300 & sleep 300' & ) # a subshell: the kill is not reported
sleep 0.3
[ -n "$(bash "$here/hosts.sh" procs "${names[2]}" | tail -n +2)" ] || fail "no process seen on ${names[2]}"
bash "$here/hosts.sh" kill "${names[2]}"
sleep 0.2
bash "$here/hosts.sh" leftovers "${names[2]}" || fail "processes left after a host kill"


bash "$here/hosts.sh" down; trap - EXIT
for n in "${names[@]}"; do ip netns list | grep -qw "$n" && fail "namespace $n left behind"; done
[ "$(ip -o link | awk -F': ' '{print $2}' | sort)" = "$links_before" ] || fail "root namespace links changed"
echo "netns harness: OK (3 hosts at ${addrs[*]})"
