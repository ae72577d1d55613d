#!/bin/bash
# CI's second pass: the test suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (cmake -DFTMPI_SANITIZE=address,undefined, in its own build directory) and run under them.
# The first finding fails the test it happens in (UBSan: -fno-sanitize-recover; ASan: abort).
#
#   bash tools/test-sanitizers.sh [ctest arguments...]
# Environment: as tools/test.sh; FTMPI_BUILD_DIR defaults to build-sanitize.
#
# What runs: every test (every fault-tolerance label: ft, ftckpt, apps, ulfm, runtime, ...)
# except those listed in `skip` below, each with the reason.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
export FTMPI_BUILD_DIR=${FTMPI_BUILD_DIR:-$root/build-sanitize}
export FTMPI_SANITIZE=${FTMPI_SANITIZE:-address,undefined}
# Sanitized code runs 2-3x slower; tests with their own TIMEOUT keep it (they have headroom).
export FTMPI_TEST_TIMEOUT=${FTMPI_TEST_TIMEOUT:-600}

# Run-time options (every one justified):
#  abort_on_error=1        a finding kills the process with SIGABRT, so a rank's report turns into
#                          a failed job (mpirun reports the signal) rather than exit 1 that a
#                          fault-tolerance test might take for an expected death.
#  detect_leaks=0          LeakSanitizer needs ptrace-style stop-the-world at exit, and the ranks
#                          are killed on purpose by the fault tests; leaks of a killed process are
#                          meaningless, and libpmix/hwloc keep global state to exit by design.
#                          Memory we own is checked for use-after-free/overflow regardless.
#  verify_asan_link_order=0 programs that do not link ASan themselves (the shell, tests'
#                          helper programs started by mpirun) must still load a sanitized
#                          libftmpi when a test runs them.
#  print_stacktrace=1      UBSan reports where, not just what.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=0:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Not run sanitized (the normal pass of tools/test.sh runs them):
#  wrappers  compile user programs with mpicc at test time, which links the sanitized libftmpi
#            into an unsanitized program; they test the wrapper scripts, not ftmpi's code.
# The simulated hosts (netns) do run: they are the only tests of the libfabric path between
# hosts (ASan found a deferred tcp send reading a returned stack frame there, netns.spares).
skip='wrappers'

exec bash "$root/tools/test.sh" -LE "$skip" "$@"
