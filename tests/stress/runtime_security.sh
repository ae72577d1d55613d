#!/bin/bash
# Stress loop for the runtime's security and clean-up cases (issue 16 items 3, 4, 6): runs
# each case of tests/e2e/runtime/security_case.sh (and runtime_case.sh pmix_abuse) N times and
# prints the pass count per case. The CI runs each once (notify_storm is itself 10 jobs).
#   tests/stress/runtime_security.sh BUILD_DIR [N=100] [CASE...]
# Default cases: notify_storm intruder forged_event precreated idle_connection launcher_killed
# launcher_killed_stalled launch_interrupted signals pmix_abuse. Exit 1 if any run failed; the
# output of the failed runs is kept in a directory named at the end.
set -u
BUILD=${1:?usage: runtime_security.sh BUILD_DIR [N] [CASE...]}
N=${2:-100}
shift $(( $# >= 2 ? 2 : 1 ))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(notify_storm intruder forged_event precreated idle_connection launcher_killed
                                launcher_killed_stalled launch_interrupted signals pmix_abuse)
HERE=$(cd "$(dirname "$0")/.." && pwd)
RT=$BUILD/tests/e2e/runtime
KEEP=$(mktemp -d /tmp/ftmpi-stress.XXXXXX)
bad=0
for c in "${CASES[@]}"; do
    pass=0
    start=$(date +%s)
    for i in $(seq "$N"); do
        if [ "$c" = pmix_abuse ]; then
            out=$("$HERE/e2e/runtime/runtime_case.sh" pmix_abuse "$BUILD/bin/mpirun" "$RT/pmix_rank" \
                  "$RT/proto_abuse" "$BUILD/bin/ftmpid" 2>&1)
        else
            out=$("$HERE/e2e/runtime/security_case.sh" "$c" "$BUILD/bin/mpirun" "$RT" 2>&1)
        fi
        if [ $? -eq 0 ]; then pass=$((pass + 1)); else echo "$out" > "$KEEP/$c.$i"; bad=1; fi
    done
    echo "$c: $pass/$N passed in $(( $(date +%s) - start )) s"
done
[ "$bad" -eq 0 ] && rm -rf "$KEEP" || echo "failed runs' output: $KEEP"
exit "$bad"
