#!/usr/bin/env bash
# Runs one MPI program through our mpirun with a watchdog and checks the outcome.
#   run_mpi.sh MPIRUN EXPECT_RC PATTERN -- mpirun-args...
# EXPECT_RC: exact exit code, or "nonzero". PATTERN: extended regex the combined output must
# match ("" for none). With PIDDIR exported, every pid the ranks wrote there must be gone.
# RUN_MPI_WATCHDOG_S (default 100): the watchdog (../watchdog.sh: the stacks of a job that
# overran are printed), for tests that set a longer one.
set -u
watchdog=${RUN_MPI_WATCHDOG_S:-100}
mpirun=$1 expect=$2 pattern=$3
shift 4
export PIDDIR=$(mktemp -d)
trap 'rm -rf "$PIDDIR"' EXIT
# The output goes to ctest as it comes (tee), so a test ctest stops at its TIMEOUT still shows
# how far the job got; the checks below read the copy.
"$(dirname "$0")/../watchdog.sh" "$watchdog" "$mpirun" "$@" 2>&1 | tee "$PIDDIR/output"
rc=${PIPESTATUS[0]}
out=$(cat "$PIDDIR/output")
fail() { echo "run_mpi.sh: FAIL: $*"; exit 1; }
[ $rc -eq 124 ] && fail "watchdog: mpirun did not finish within $watchdog s"
if [ "$expect" = nonzero ]; then
  [ $rc -ne 0 ] || fail "expected a non-zero exit, got 0"
else
  [ $rc -eq "$expect" ] || fail "expected exit $expect, got $rc"
fi
if [ -n "$pattern" ]; then
  printf '%s\n' "$out" | grep -Eq -- "$pattern" || fail "output does not match /$pattern/"
fi
sleep 0.3
for f in "$PIDDIR"/rank.*; do
  [ -e "$f" ] || continue
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null; then
    fail "process $pid (${f##*/}) is still running"
  fi
done
echo "run_mpi.sh: PASS"
