#!/bin/bash
# mpirun's launcher command lines and connect-back address on namespace hosts (SPEC 5.1):
# words quoted by launcher_argv() survive the launcher-exec script and the remote POSIX shell
# exactly (spaces, quotes, $, backquotes, globs, empty words), the secret line reaches the
# remote command's stdin, and inside a host the connect-back address is that host's own
# 127.x address (route, interface name, CIDR), never the loopback device's 127.0.0.1.
#   launchers_test.sh TESTS_BIN_DIR
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
probe=$1/host_plan_probe
fail() { echo "FAIL: $*" >&2; exit 1; }
export FTNS; FTNS=$(bash "$here/hosts.sh" up 2)
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t names < <(awk '{print $1}' "$FTNS/hosts")
mapfile -t addrs < <(awk '{print $2}' "$FTNS/hosts")
on1() { bash "$here/hosts.sh" exec "${names[0]}" "$@"; }

# 1. Nasty words through the launcher-exec script, by name and by address.
script='read s; echo "secret=$s host=$(hostname) n=$#"; for w in "$@"; do printf "[%s]\n" "$w"; done'
words=("a b" "it's" '$HOME' '`id`' '' '*' 'x;y' '"q"' $'tab\there' '\' '-n')
expect="secret=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef host=${names[1]} n=${#words[@]}"
for w in "${words[@]}"; do expect+=$'\n'"[$w]"; done
for target in "${names[1]}" "${addrs[1]}"; do
  out=$(on1 "$probe" launch exec "$FTNS/ssh" "$target" /bin/sh -c "$script" probe "${words[@]}") ||
    fail "launch through $FTNS/ssh to $target: exit $?"
  [ "$out" = "$expect" ] || { diff <(echo "$expect") <(echo "$out") >&2; fail "words changed on the way to $target"; }
done
# The remote exit status comes back.
rc=0; on1 "$probe" launch exec "$FTNS/ssh" "${names[1]}" /bin/sh -c 'exit 7' || rc=$?
[ $rc -eq 7 ] || fail "exit status 7 came back as $rc"

# 2. Connect-back address inside host 1.
want=${addrs[0]}
sub=${want%.*}.0/24
for args in "'' ${names[1]}" "'' ${addrs[1]}" "eth0 x" "$sub x"; do
  got=$(eval on1 "$probe" address "$args") || fail "address $args: exit $?"
  [ "$got" = "$want" ] || fail "address $args: got $got, expected $want"
done
# The loopback device is refused; so is an interface or network this host does not have.
for args in "'' 127.0.0.1" "'' localhost" "lo0 x" "10.255.255.0/24 x"; do
  if got=$(eval on1 "$probe" address "$args" 2>/dev/null); then fail "address $args: accepted ($got)"; fi
done
echo "launchers OK"
