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
# The main demo: the heat-diffusion application protected with ftckpt (tests/apps/heat). 6
# ranks; rank 4 is SIGKILLed at step 57 and rank 2 inside save 9 (copies in flight); each time
# the survivors repair MPI_COMM_WORLD (REBUILD), a replacement process takes the dead rank,
# gets its rows back from the in-memory copies, and the run ends bit-identical to a
# failure-free one (rank 0 checks against a serial run). DEMO=tests/apps/demo.c
# DEMO_MPIRUN_ARGS="--comm-mode shrink" DEMO_ARGS= is the smaller SHRINK demo.
DEMO=${DEMO:-tests/apps/heat/heat.c}
DEMO_NP=${DEMO_NP:-6}
DEMO_MPIRUN_ARGS=${DEMO_MPIRUN_ARGS:---comm-mode rebuild}
DEMO_ARGS=${DEMO_ARGS-200 10 4@s57,2@d9}
DEMO_LIBS=${DEMO_LIBS--lftckpt}
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
  echo "+ $prefix/bin/mpicc -O2 -o $exe $src $DEMO_LIBS"
  # shellcheck disable=SC2086  # extra libraries split into words
  "$prefix/bin/mpicc" -O2 -o "$exe" "$src" $DEMO_LIBS
fi

# A kill fires once (heat keeps a marker per kill here), so a replacement does not die again
# where its predecessor did.
PIDDIR=${PIDDIR:-$(mktemp -d)}
export PIDDIR
# shellcheck disable=SC2086  # the default arguments split into words
[ $# -gt 0 ] || set -- $DEMO_ARGS
echo "+ $prefix/bin/mpirun -n $DEMO_NP $DEMO_MPIRUN_ARGS $exe $*"
# shellcheck disable=SC2086  # the launcher options are meant to split into words
exec "$prefix/bin/mpirun" -n "$DEMO_NP" $DEMO_MPIRUN_ARGS "$exe" "$@"
