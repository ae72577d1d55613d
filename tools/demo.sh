#!/bin/bash
# Quick start in one command (as root on a fresh Debian 12): install the Debian packages,
# build, install into build/_install, and run the demo with the installed mpirun.
#
#   bash tools/demo.sh [extra arguments for the demo program]
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

# >>>>> LEAD: choose the demo here <<<<<
# DEMO is an executable, a C source (compiled below with the installed mpicc, which doubles
# as a check of the wrappers), or a name found in build/bin; relative paths are from the repo
# root. DEMO_NP is the number of ranks.
# The main demo: 6 ranks compute, rank 3 is SIGKILLed at step 20, the survivors repair
# MPI_COMM_WORLD (SHRINK) and finish with a result checked against a serial sum.
DEMO=${DEMO:-tests/apps/demo.c}
DEMO_NP=${DEMO_NP:-6}
DEMO_MPIRUN_ARGS=${DEMO_MPIRUN_ARGS:---comm-mode shrink}
# >>>>> end of LEAD section <<<<<

build=${FTMPI_BUILD_DIR:-$root/build}
prefix=$build/_install
jobs=${FTMPI_JOBS:-2}

bash "$root/tools/deps.sh"
cmake -S "$root" -B "$build"
cmake --build "$build" -j"$jobs"
cmake --install "$build" --prefix "$prefix" >/dev/null

# Find the demo program; a source file is compiled the way a user would.
case "$DEMO" in /*) demo=$DEMO ;; *) demo=$root/$DEMO ;; esac
name=$(basename "$demo" .c)
if [ -f "$demo" ] && [ -x "$demo" ]; then
  exe=$demo
elif [ -x "$build/bin/$name" ]; then
  exe=$build/bin/$name
else
  src=""
  for s in "$demo" "$demo.c" "$demo/$name.c" "$demo/main.c"; do
    if [ -f "$s" ] && [ "${s%.c}" != "$s" ]; then src=$s; break; fi
  done
  if [ -z "$src" ]; then
    echo "tools/demo.sh: demo '$DEMO' not found (no executable, build/bin/$name or C source)" >&2
    exit 1
  fi
  exe=$build/_demo/$name
  mkdir -p "$build/_demo"
  echo "+ $prefix/bin/mpicc -O2 -o $exe $src"
  "$prefix/bin/mpicc" -O2 -o "$exe" "$src"
fi

echo "+ $prefix/bin/mpirun -n $DEMO_NP $DEMO_MPIRUN_ARGS $exe $*"
# shellcheck disable=SC2086  # the launcher options are meant to split into words
exec "$prefix/bin/mpirun" -n "$DEMO_NP" $DEMO_MPIRUN_ARGS "$exe" "$@"
