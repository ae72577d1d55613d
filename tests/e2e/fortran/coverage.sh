#!/bin/bash
# coverage.sh GENDIR LIBRARY: every C call of mpi.h/ftmpi.h/mpi-ext.h has its Fortran binding.
#   GENDIR/unbound.txt   calls gen_bindings.py could not bind (must be empty)
#   GENDIR/names.txt     calls with a binding; each must be exported by LIBRARY as name_
set -euo pipefail
gen=$1 lib=$2
fail=0
if [ -s "$gen/unbound.txt" ]; then
  echo "FAIL: C calls without a Fortran binding:"; cat "$gen/unbound.txt"; fail=1
fi
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
n=0
while read -r name; do
  n=$((n + 1))
  sym="$(printf '%s' "$name" | tr 'A-Z' 'a-z')_"
  grep -qx -- "$sym" <<<"$exported" || { echo "FAIL: $lib does not export $sym ($name)"; fail=1; }
done <"$gen/names.txt"
[ "$n" -gt 150 ] || { echo "FAIL: only $n bindings listed in $gen/names.txt"; fail=1; }
# The split the READMEs quote (fortran/README.md "How it is built"): generated wrappers vs
# the ones written by hand in fortran/src.
generated=$(grep -cE '^(int|void|double) ' "$gen/ftmpi_fortran_gen.c")
[ $fail -eq 0 ] && echo "coverage: $n Fortran bindings ($generated generated, $((n - generated)) by hand), all exported: PASS"
exit $fail
