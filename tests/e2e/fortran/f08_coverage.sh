#!/bin/bash
# f08_coverage.sh GENDIR LIBRARY: `use mpi_f08` has every call `use mpi` has.
#   GENDIR/names.txt       the calls of `use mpi` (and mpif.h)
#   GENDIR/f08_names.txt   the calls of mpi_f08; each must have its generic interface in
#                          GENDIR/mpi_f08.f90 and its specific procedure NAME_f08 exported by
#                          LIBRARY (gfortran's __mpi_f08_MOD_name_f08); MPI_Wtime/MPI_Wtick are
#                          BIND(C) interfaces to the C library's functions.
set -euo pipefail
gen=$1 lib=$2
fail=0
missing=$(comm -23 <(sort -u "$gen/names.txt") <(sort -u "$gen/f08_names.txt"))
if [ -n "$missing" ]; then
  echo "FAIL: calls of use mpi missing from mpi_f08:"; echo "$missing"; fail=1
fi
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
n=0
while read -r name; do
  n=$((n + 1))
  case $name in MPI_Wtime|MPI_Wtick)  # functions of the C library, no wrapper
    grep -qi -- "function $name() bind(C, name=\"$name\")" "$gen/mpi_f08.f90" \
      || { echo "FAIL: no interface for $name"; fail=1; }
    continue ;;
  esac
  grep -qix -- "  interface $name" "$gen/mpi_f08.f90" || { echo "FAIL: no generic interface $name"; fail=1; }
  sym="__mpi_f08_MOD_$(printf '%s' "$name" | tr 'A-Z' 'a-z')_f08"
  grep -qx -- "$sym" <<<"$exported" || { echo "FAIL: $lib does not export $sym ($name)"; fail=1; }
done <"$gen/f08_names.txt"
[ "$n" -gt 200 ] || { echo "FAIL: only $n procedures listed in $gen/f08_names.txt"; fail=1; }
[ $fail -eq 0 ] && echo "f08_coverage: $n mpi_f08 procedures, every one of use mpi's $(wc -l <"$gen/names.txt") calls among them, all exported: PASS"
exit $fail
