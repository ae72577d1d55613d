#!/bin/bash
# The README's test command (and what .ci/run calls): configure, build, run every test.
#
#   bash tools/test.sh [ctest arguments...]     e.g. -L wrappers, -R transport
# Environment: FTMPI_BUILD_DIR (default build), FTMPI_JOBS (default 2),
#              FTMPI_TEST_TIMEOUT seconds for tests that set no TIMEOUT of their own (default 300),
#              FTMPI_SANITIZE sanitizers to build with, e.g. address,undefined (default none;
#              tools/test-sanitizers.sh sets it, with the sanitizers' run-time options).
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
jobs=${FTMPI_JOBS:-2}
timeout=${FTMPI_TEST_TIMEOUT:-300}

cmake -S "$root" -B "$build" -DFTMPI_SANITIZE="${FTMPI_SANITIZE:-}"
cmake --build "$build" -j"$jobs"
# Our bin first: a test that runs mpirun/mpicc by name must get ftmpi's, never a system MPI's
# (Debian's /usr/bin/mpirun is an alternative pointing at Open MPI or MPICH when installed).
export PATH="$build/bin:$PATH"
# --no-tests=error: an empty suite is a failure, not a pass.
rc=0
ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout "$timeout" --no-tests=error "$@" || rc=$?
# A netns test killed by its TIMEOUT (SIGKILL: no `down` trap) leaves its namespace hosts behind;
# the next `hosts.sh up` reaps them, and so does this last sweep (only harnesses whose owner is
# gone: never another live run's).
bash "$root/tests/netns/hosts.sh" reap || true
exit $rc
