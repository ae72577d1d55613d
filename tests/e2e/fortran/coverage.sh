#!/bin/bash
# coverage.sh GENDIR LIBRARY: every C call of mpi.h/ftmpi.h/mpi-ext.h has its Fortran binding.
#   GENDIR/unbound.txt   calls gen_bindings.py could not bind (must be empty)
#   GENDIR/names.txt     calls with a binding; each must be exported by LIBRARY as name_
#                        and as its profiling name pname_
set -euo pipefail
gen=$1 lib=$2
fail=0
if [ -s "$gen/unbound.txt" ]; then
  echo "FAIL: C calls without a Fortran binding:"; cat "$gen/unbound.txt"; fail=1
fi
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
# One set difference instead of a grep per name: fast on a loaded machine.
# Each binding under its profiling name too (pmpi_send_: MPI-3.1 14.2, FTMPI_F_PMPI).
missing=$(comm -23 <(tr 'A-Z' 'a-z' <"$gen/names.txt" | sed 's/$/_/; p; s/^/p/' | sort -u) <(echo "$exported"))
if [ -n "$missing" ]; then
  echo "FAIL: $lib does not export:"; echo "$missing"; fail=1
fi
n=$(wc -l <"$gen/names.txt")
[ "$n" -gt 150 ] || { echo "FAIL: only $n bindings listed in $gen/names.txt"; fail=1; }
# The split the READMEs quote (fortran/README.md "How it is built"): generated wrappers vs
# the ones written by hand in fortran/src (pmpi_ bodies not counted: the same bindings).
generated=$(grep -cE '^(int|void|double) (mpi|mpix|ftmpi)_' "$gen/ftmpi_fortran_gen.c")
[ $fail -eq 0 ] && echo "coverage: $n Fortran bindings ($generated generated, $((n - generated)) by hand), all exported, with their PMPI names: PASS"
exit $fail
