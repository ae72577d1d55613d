#!/usr/bin/env bash
# The demo leaves nothing behind: its kill-time file lives in $TMPDIR (here a new empty one,
# checked by no_tmp_leftovers.sh) and is removed at the end, and nothing is written to the
# fixed /tmp/ftmpi-demo-killtime it used before (shared by every run, never removed). The
# survivors must still find the kill time ("detected N ms after the kill", not -1).
#   demo_leftovers.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
old=/tmp/ftmpi-demo-killtime
rm -f "$old"
out=$("$src/tests/e2e/ulfm/no_tmp_leftovers.sh" "$src/tests/e2e/mpi/run_mpi.sh" "$build/bin/mpirun" 0 \
      "CORRECT \\(1 failure survived\\)" -- -n 4 --comm-mode shrink "$build/tests/bin/demo" 2 5 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "demo_leftovers: FAIL: the run failed (exit $rc)"; exit 1; }
[ ! -e "$old" ] || { echo "demo_leftovers: FAIL: $old written"; exit 1; }
grep -q "detected [0-9][0-9.]* ms after the kill" <<<"$out" ||
  { echo "demo_leftovers: FAIL: the survivors found no kill time"; exit 1; }
echo "demo_leftovers: OK"
