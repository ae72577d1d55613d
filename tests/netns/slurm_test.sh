#!/bin/bash
# --launcher slurm against a real Slurm (issue 15 item 8): Debian's slurm-wlm + munge on three
# namespace hosts (h1: the login host where salloc and mpirun run; h2: slurmctld + slurmd; h3:
# slurmd). Inside `salloc -N2`:
#   - SLURM_JOB_NODELIST (Slurm's own compressed form) expands as `scontrol show hostnames`;
#   - the srun command line of launcher_argv() starts the words on exactly the node named, with
#     the secret line on stdin, words intact (srun execs them: no shell), a clean environment
#     like ssh's, not bound to one core although the cluster binds tasks to cores by default
#     (--cpu-bind=none), and a second step on the same node starts while the first runs
#     (--overlap; without it the second step is refused: measured);
# If Slurm cannot be set up the test FAILS with the daemons' logs; it is never skipped.
#   - mpirun inside the allocation takes its hosts (and slots) from Slurm and starts one daemon
#     per node through srun, by default and with --launcher slurm, from the login host and from
#     a job step on one of the nodes; nothing is left on any host.
#   slurm_test.sh TESTS_BIN_DIR BIN_DIR
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
probe=$1/host_plan_probe
mpirun=$2/mpirun
fail() { echo "FAIL: $*" >&2; exit 1; }
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3)
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t names < <(awk '{print $1}' "$FTNS/hosts")
login=${names[0]} n1=${names[1]} n2=${names[2]}
bash "$here/slurm.sh" up "$n1" "$n1" "$n2"
conf=$(bash "$here/slurm.sh" env)
# on_login CMD...: CMD on the login host with the Slurm client configuration (as a user's shell).
on_login() { bash "$here/hosts.sh" exec "$login" env "$conf" "$@"; }
# in_alloc SCRIPT: SCRIPT run by sh inside `salloc -N2` on the login host; $P is the probe.
# --exclusive: the allocation holds every CPU of its nodes, which the daemon must keep.
in_alloc() { on_login P="$probe" MPIRUN="$mpirun" FTMPI_SHOULD_NOT_PASS=1 timeout 60 salloc -N2 --exclusive --quiet sh -c "$1"; }

# 1. Slurm's node list, expanded by mpirun's code and by Slurm's.
out=$(in_alloc 'echo "$SLURM_JOB_NODELIST"; "$P" nodelist "$SLURM_JOB_NODELIST" | tr "\n" " "; echo;
                scontrol show hostnames "$SLURM_JOB_NODELIST" | tr "\n" " "; echo') || fail "salloc: exit $?"
mapfile -t lines <<<"$out"
[[ "${lines[0]}" == *"["* ]] || fail "Slurm did not compress the node list ('${lines[0]}'): the expansion is not exercised"
[ "${lines[1]}" = "${lines[2]}" ] && [ "${lines[1]}" = "$n1 $n2 " ] ||
  fail "node list '${lines[0]}' expanded to '${lines[1]}', Slurm says '${lines[2]}'"

# 2. The srun line on each node: right node, secret on stdin, words intact, clean environment,
#    all CPUs allowed.
script='read s; echo "secret=$s host=$(hostname) n=$#"; for w in "$@"; do printf "[%s]\n" "$w"; done
        env | grep -c "^FTMPI_SHOULD_NOT_PASS=" || true; grep ^Cpus_allowed_list /proc/self/status'
allowed=$(bash "$here/hosts.sh" exec "$n1" grep ^Cpus_allowed_list /proc/self/status)
for node in "$n1" "$n2"; do
  out=$(in_alloc "\"\$P\" launch slurm srun $node /bin/sh -c '$script' probe 'a b' \"it's\" '\$HOME' '' '*'") ||
    fail "srun to $node: exit $?"
  expect="secret=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef host=$node n=5
[a b]
[it's]
[\$HOME]
[]
[*]
0
$allowed"
  [ "$out" = "$expect" ] || { diff <(echo "$expect") <(echo "$out") >&2; fail "srun to $node"; }
done

# 3. --overlap: a second step on a node starts while a first one holds it.
out=$(in_alloc "t0=\$(date +%s%N); \"\$P\" launch slurm srun $n1 /bin/sleep 3 & sleep 0.5
                \"\$P\" launch slurm srun $n1 /bin/echo second
                echo \"ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))\"; wait") || fail "two steps on $n1: exit $?"
grep -qx second <<<"$out" || fail "the second step did not run: $out"
ms=$(grep -o 'ms=[0-9]*' <<<"$out" | cut -d= -f2)
[ "$ms" -lt 2800 ] || fail "the second step waited for the first (${ms} ms after the first started): no --overlap?"

# 4. mpirun in the allocation (on the login host, outside it): 2 slots per node from
#    SLURM_TASKS_PER_NODE, filled in order; srun chosen by itself, or asked for.
ranks='sh -c "echo \$FTMPI_RANK \$(hostname)"'
for args in "" "--launcher slurm" "--map-by node -n 3"; do
  out=$(in_alloc "\"\$MPIRUN\" $args $ranks") || fail "salloc mpirun $args: exit $?"
  map=$(sort -n <<<"$out" | awk '{print $2}' | tr '\n' ' ')
  want="$n1 $n1 $n2 $n2 "
  [ "$args" = "--map-by node -n 3" ] && want="$n1 $n2 $n1 "
  [ "$map" = "$want" ] || fail "salloc mpirun $args: ranks on '$map', expected '$want' (output: $out)"
done
# 5. mpirun on a node of the allocation, inside a job step (as in a batch script's srun): that
#    node's ranks run locally, the other node's through srun; the step's SLURM_TASKS_PER_NODE
#    ("1") does not describe the job's 2 nodes, so the slots come from SLURM_JOB_CPUS_PER_NODE.
out=$(in_alloc "srun -N1 -n1 --overlap --nodelist=$n1 \"\$MPIRUN\" $ranks") || fail "mpirun in a step: exit $?"
map=$(sort -n <<<"$out" | awk '{print $2}' | tr '\n' ' ')
[ "$map" = "$n1 $n1 $n2 $n2 " ] || fail "mpirun in a step on $n1: ranks on '$map' (output: $out)"

# Nothing of the jobs left: only Slurm's and munge's own processes and files remain.
for host in "${names[@]}"; do
  for pid in $(bash "$here/hosts.sh" procs "$host"); do
    cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || continue
    [[ -z "$cmd" || "$cmd" =~ ^(sleep\ infinity|munged|slurmctld|slurmd|slurmstepd|.*slurmscriptd) ]] ||
      fail "left on $host: pid $pid $cmd"
  done
  files=$(bash "$here/hosts.sh" files "$host" |
          grep -v -E '^(munge\.sock.*|munged\..*|slurmctld.*|slurmd.*)$' || true)
  [ -z "$files" ] || fail "left on $host (/dev/shm, /tmp): $files"
done
echo "slurm launcher OK"
