#!/bin/bash
# The default launcher for real: OpenSSH's sshd on two namespace hosts, mpirun on a third with
# no launcher option, so it runs `ssh -x -o BatchMode=yes HOST WORDS...` (key login as root,
# the secret on ssh's stdin). Every key and config lives in the harness directory; each host
# gets a private tmpfs over /root (its mount namespace), so the machine's own ~/.ssh and
# /etc/ssh are never read or changed. Checks: ranks on the right hosts by name and by
# address, -x and the working directory across ssh, a host without sshd fails the launch
# with exit 1 and a reason, and nothing of the job is left on any host.
#   ssh_test.sh BIN_DIR
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
bin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v /usr/sbin/sshd >/dev/null || fail "/usr/sbin/sshd is not installed (tools/deps.sh installs openssh-server)"
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3)
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t h < <(awk '{print $1}' "$FTNS/hosts")
mapfile -t a < <(awk '{print $2}' "$FTNS/hosts")
on() { local host=$1; shift; bash "$here/hosts.sh" exec "$host" "$@"; }

K=$FTNS/sshkeys
mkdir -m 700 "$K"
ssh-keygen -q -t ed25519 -N '' -f "$K/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$K/id_ed25519"
mkdir -p /run/sshd  # sshd's privilege-separation directory (what the package's service creates)
for i in 0 1 2; do
  # A private home for root on this host: the client key, known hosts, the authorized key.
  on "${h[$i]}" sh -c "mount -t tmpfs -o mode=700 ftmpi-home /root && mkdir -m 700 /root/.ssh &&
    cp $K/id_ed25519 /root/.ssh/ && cp $K/id_ed25519.pub /root/.ssh/authorized_keys &&
    for j in ${h[*]} ${a[*]}; do echo \"\$j \$(cat $K/host_key.pub)\"; done > /root/.ssh/known_hosts"
done
for i in 1 2; do
  cat > "$K/sshd_config.$i" <<EOF
ListenAddress ${a[$i]}
HostKey $K/host_key
PidFile /tmp/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
EOF
  on "${h[$i]}" /usr/sbin/sshd -f "$K/sshd_config.$i" -E /tmp/sshd.log
done
sleep 0.3

# run WANT_MAP MPIRUN-ARGS...: every rank prints "RANK HOSTNAME PWD FOO".
cwd="$FTNS/work dir"  # shared by every host (like /work); a space survives too
mkdir "$cwd"
run() {
  local want=$1; shift
  local out
  out=$(on "${h[0]}" sh -c 'cd "$0" && exec "$@"' "$cwd" timeout -s KILL 60 "$bin/mpirun" -x FOO=bar "$@" \
        sh -c 'echo "$FTMPI_RANK $(hostname) $PWD $FOO"' 2>"$FTNS/err") || fail "mpirun $*: exit $? ($(cat "$FTNS/err"))"
  local got
  got=$(sort -n <<<"$out" | cut -d' ' -f2- | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "mpirun $*: got '$got', expected '$want'"
  for host in "${h[@]}"; do
    for pid in $(bash "$here/hosts.sh" procs "$host"); do
      cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || continue
      [[ -z "$cmd" || "$cmd" =~ ^(sleep\ infinity|sshd:|/usr/sbin/sshd) ]] || fail "left on $host: pid $pid $cmd"
    done
    files=$(bash "$here/hosts.sh" files "$host" | grep -v -E '^sshd\.(pid|log)$' || true)
    [ -z "$files" ] || fail "left on $host (/dev/shm, /tmp): $files"
  done
}
run "${h[0]} $cwd bar ${h[1]} $cwd bar ${h[2]} $cwd bar ${h[1]} $cwd bar " --host "${h[0]},${h[1]}:2,${h[2]}" --map-by node -n 4
run "${h[1]} $cwd bar ${h[2]} $cwd bar " --host "${a[1]},${a[2]}"

# A host where no sshd answers: the launch fails with exit 1 and says which host.
rc=0
on "${h[1]}" sh -c 'kill $(cat /tmp/sshd.pid)'
on "${h[0]}" timeout -s KILL 60 "$bin/mpirun" --host "${h[1]},${h[2]}" true 2>"$FTNS/err" || rc=$?
[ $rc -eq 1 ] || fail "launch with sshd down on ${h[1]}: exit $rc, expected 1 ($(cat "$FTNS/err"))"
grep -q "${h[1]}" "$FTNS/err" || fail "the launch error does not name ${h[1]}: $(cat "$FTNS/err")"
echo "ssh launcher OK"
