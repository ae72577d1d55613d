#!/bin/bash
# A small Slurm cluster on the namespace hosts of one harness ($FTNS, from hosts.sh up):
# Debian's slurm-wlm (slurmctld, slurmd, srun/salloc) with munge, configured minimally:
# proctrack/linuxproc, task/affinity binding tasks to cores by default (as many sites do: a
# launcher must ask for no binding), no accounting, no cgroup enforcement. Every file lives in
# $FTNS/slurm (shared config and munge key) or in each host's private /tmp (sockets, state,
# logs), so it never touches the machine's own /etc/slurm, /run/munge or network, and
# `hosts.sh down` removes it all (its processes run inside the hosts).
#
#   slurm.sh up CONTROLLER NODE...   munged on every host of the harness, slurmctld on
#                                    CONTROLLER, slurmd on each NODE; waits until every node is
#                                    idle (exit 1 with the daemons' log tails if not within 30 s)
#   slurm.sh env                     prints SLURM_CONF=... for clients (salloc, srun, sinfo)
#
# Why it works without cgroups: slurmd 22.05 initializes its cgroup plugin even when no plugin
# uses it, and finds no cgroup mount inside `ip netns exec`'s fresh /sys; each node host gets
# an empty tmpfs there (in its private mount namespace) and cgroup.conf says cgroup/v1 without
# automount, which is all slurmd checks.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
die() { echo "slurm.sh: $*" >&2; exit 1; }
[ -n "${FTNS:-}" ] && [ -f "$FTNS/hosts" ] || die "FTNS does not name a harness directory"
S=$FTNS/slurm
on() { local h=$1; shift; bash "$here/hosts.sh" exec "$h" "$@"; }
addr_of() { awk -v h="$1" '$1 == h { print $2 }' "$FTNS/hosts"; }

logs() {
  local h
  for h in $(awk '{print $1}' "$FTNS/hosts"); do
    on "$h" sh -c "for f in /tmp/munged.log /tmp/slurmctld.log /tmp/slurmd.log; do
      [ -f \$f ] && { echo \"--- $h \$f\"; tail -n 15 \$f; }; done; true" >&2 || true
  done
}

cmd_up() {
  [ $# -ge 2 ] || die "usage: slurm.sh up CONTROLLER NODE..."
  local ctl=$1; shift
  local need
  for need in munged slurmctld slurmd srun salloc sinfo; do
    command -v "$need" >/dev/null || die "$need is not installed (tools/deps.sh installs slurmctld slurmd slurm-client munge)"
  done
  mkdir -p "$S"; chmod 700 "$S"
  head -c 1024 /dev/urandom > "$S/munge.key"; chmod 400 "$S/munge.key"
  local ncpu; ncpu=$(nproc)
  {
    echo "ClusterName=ftmpi$(cat "$FTNS/id")"
    echo "SlurmctldHost=$ctl($(addr_of "$ctl"))"
    cat <<'EOF'
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=/tmp/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/tmp/slurmctld
SlurmdSpoolDir=/tmp/slurmd
SlurmctldPidFile=/tmp/slurmctld.pid
SlurmdPidFile=/tmp/slurmd.pid
SlurmctldLogFile=/tmp/slurmctld.log
SlurmdLogFile=/tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
TaskPluginParam=Cores
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=5
EOF
    local n
    for n in "$@"; do echo "NodeName=$n NodeAddr=$(addr_of "$n") CPUs=$ncpu State=UNKNOWN"; done
    echo "PartitionName=all Nodes=$(echo "$@" | tr ' ' ',') Default=YES MaxTime=INFINITE State=UP"
  } > "$S/slurm.conf"
  printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' > "$S/cgroup.conf"
  chmod 644 "$S/slurm.conf" "$S/cgroup.conf"

  local h
  for h in $(awk '{print $1}' "$FTNS/hosts"); do
    on "$h" munged --force --key-file="$S/munge.key" --socket=/tmp/munge.sock --pid-file=/tmp/munged.pid \
      --log-file=/tmp/munged.log --seed-file=/tmp/munged.seed || { logs; die "munged did not start on $h"; }
  done
  on "$ctl" env SLURM_CONF="$S/slurm.conf" sh -c 'mkdir -p /tmp/slurmctld && slurmctld' ||
    { logs; die "slurmctld did not start on $ctl"; }
  for h in "$@"; do
    on "$h" env SLURM_CONF="$S/slurm.conf" sh -c \
      'mountpoint -q /sys/fs/cgroup || mount -t tmpfs -o mode=755 ftmpi-cgroup /sys/fs/cgroup; mkdir -p /tmp/slurmd && slurmd' ||
      { logs; die "slurmd did not start on $h"; }
  done
  local i state
  for i in $(seq 1 300); do
    state=$(on "$ctl" env SLURM_CONF="$S/slurm.conf" sinfo -h -N -o '%N %t' 2>/dev/null || true)
    if [ -n "$state" ] && ! grep -qv ' idle$' <<<"$state"; then return 0; fi
    sleep 0.1
  done
  echo "slurm.sh: nodes not idle after 30 s: $state" >&2
  logs
  exit 1
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  env) echo "SLURM_CONF=$S/slurm.conf" ;;
  *) die "usage: slurm.sh up CONTROLLER NODE... | env" ;;
esac
