#!/bin/bash
# One parser for the FTMPI_* environment: outside knobs/, no program of ftmpi reads an FTMPI_
# variable with getenv (tests and scripts may set and read them). Add the knob to
# knobs/include/ftmpi_knobs/knob_list.h and read it with ftmpi::knobs instead.
set -euo pipefail
root=$1
hits=$(grep -rnE 'getenv\( *"FTMPI_' "$root" --include='*.c' --include='*.cpp' --include='*.h' \
         --exclude-dir=tests --exclude-dir=knobs --exclude-dir='build*' || true)
if [ -n "$hits" ]; then
  echo "FTMPI_* read with getenv outside the knob table:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no stray getenv(\"FTMPI_...\")"
