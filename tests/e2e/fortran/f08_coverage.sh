#!/bin/bash
# f08_coverage.sh GENDIR LIBRARY: `use mpi_f08` has every call `use mpi` has.
#   GENDIR/names.txt       the calls of `use mpi` (and mpif.h)
#   GENDIR/f08_names.txt   the calls of mpi_f08; each must have its generic interface in
#                          GENDIR/mpi_f08.f90 and its specific procedure exported by LIBRARY:
#                          an external NAME_f08ts (choice buffers) or NAME_f08 with its profiling
#                          twin PNAME_f08(ts) (MPI-3.1 17.1.5: a tool replaces the first and
#                          calls the second), or for the few hand-written ones a module
#                          procedure (gfortran's __mpi_f08_MOD_name_f08); MPI_Wtime/MPI_Wtick
#                          are BIND(C) interfaces to the C library's functions.
# Set operations on sorted lists (one pass each), so it stays fast on a loaded machine.
set -euo pipefail
gen=$1 lib=$2
fail=0
lower() { tr 'A-Z' 'a-z' | sort -u; }
report() {  # report WHAT LIST: fails with the names in LIST, if any
  [ -z "$2" ] && return 0
  echo "FAIL: $1:"; echo "$2"; fail=1
}
f08=$(lower <"$gen/f08_names.txt")
report "calls of use mpi missing from mpi_f08" "$(comm -23 <(lower <"$gen/names.txt") <(echo "$f08"))"
generic=$(sed -n 's/^  interface \([A-Za-z_0-9]*\)$/\1/p' "$gen/mpi_f08.f90" | lower)
functions=$(sed -n 's/^ *real(c_double) function \(MPI_Wti[a-z]*\)() bind(C.*/\1/p' "$gen/mpi_f08.f90" | lower)
report "mpi_f08 procedures without a generic interface" \
  "$(comm -23 <(echo "$f08") <(printf '%s\n%s\n' "$generic" "$functions" | sort -u))"
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
external=$(echo "$symbols" | sed -n 's/^\(mpi.*\|ftmpi.*\)_f08\(ts\)\{0,1\}_$/\1/p' | lower)
profiled=$(echo "$symbols" | sed -n 's/^p\(mpi.*\|ftmpi.*\)_f08\(ts\)\{0,1\}_$/\1/p' | lower)
exported=$( (echo "$external"; echo "$symbols" | sed -n 's/^__mpi_f08_MOD_\(.*\)_f08$/\1/p') | lower)
report "mpi_f08 procedures $lib does not export (as name_f08(ts)_ or __mpi_f08_MOD_name_f08)" \
  "$(comm -23 <(echo "$f08" | grep -vx 'mpi_wtime\|mpi_wtick') <(echo "$exported"))"
report "mpi_f08 procedures without a profiling name (pname_f08(ts)_)" "$(comm -23 <(echo "$external") <(echo "$profiled"))"
[ "$(echo "$profiled" | wc -l)" -gt 200 ] || report "too few profiling names in $lib" "$(echo "$profiled" | wc -l)"
n=$(echo "$f08" | wc -l)
[ "$n" -gt 200 ] || report "too few procedures in $gen/f08_names.txt" "$n"
[ "$(echo "$functions" | wc -w)" -eq 2 ] || report "MPI_Wtime/MPI_Wtick interfaces" "$functions"
[ $fail -eq 0 ] && echo "f08_coverage: $n mpi_f08 procedures, every one of use mpi's $(wc -l <"$gen/names.txt") calls among them, all exported, $(echo "$profiled" | wc -l) with profiling names: PASS"
exit $fail
