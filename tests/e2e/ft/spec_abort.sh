#!/bin/bash
# ABORT cannot be trapped, whatever error handler is installed (SPEC 4.7): with MPI_ERRORS_RETURN
# on MPI_COMM_WORLD, a rank's death still ends the job with a non-zero exit and a report naming
# it, and no survivor's call returns (ft_spec_rules abort_trap prints TRAPPED if one does). The
# default mode, the flag in capitals and the environment variable alone; and a job whose
# application switched a duplicate (not MPI_COMM_WORLD) out of ABORT mode.
#   spec_abort.sh MPIRUN TEST_BIN_DIR
set -u
mpirun=$1 bin=$2
fail() { echo "spec_abort.sh: FAIL: $*"; exit 1; }
for how in default flag env dup; do
  args=() envs=() extra=()
  [ $how = flag ] && args=(--comm-mode ABORT)
  [ $how = env ] && envs=(FTMPI_COMM_MODE=abort)
  [ $how = dup ] && extra=(dup)
  out=$(env "${envs[@]}" "$(dirname "$0")/../watchdog.sh" 60 "$mpirun" -n 3 "${args[@]}" "$bin/ft_spec_rules" abort_trap "${extra[@]}" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -ne 124 ] || fail "$how: mpirun did not end within 60 s"
  [ $rc -ne 0 ] || fail "$how: exit 0 after a rank died in ABORT mode"
  ! grep -q TRAPPED <<<"$out" || fail "$how: a survivor trapped the failure"
  grep -Eq 'rank 2 \(pid [0-9]+\) killed by signal 9' <<<"$out" || fail "$how: no report naming rank 2"
done
echo "spec_abort.sh: PASS"
