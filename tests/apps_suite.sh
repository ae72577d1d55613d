#!/usr/bin/env bash
# Mini-applications built unchanged with our wrappers and with MPICH's, run side by side, and
# their numbers compared: HPCCG (Mantevo/HPCCG: iterations and final residual), CoMD
# (ECP-copa/CoMD src-mpi: every energy line), LULESH (LLNL/LULESH: iterations, final origin
# energy, symmetry differences). The sources are fetched for the run, never kept here; give
# the directories of the ones you have ("-" skips one). Needs mpicc.mpich/mpicxx.mpich and
# mpirun.mpich (apt-get install mpich) for the reference; without them only ours runs and
# nothing is compared.
#   tests/apps_suite.sh HPCCG_DIR COMD_DIR LULESH_DIR [BUILD_DIR]
# Prints "apps_suite: N same as MPICH, M differ, K failed" and exits 1 if any differ or fail
# (the outputs are then kept in a directory it names; otherwise removed).
set -u
usage() { echo "usage: tests/apps_suite.sh HPCCG_DIR|- COMD_DIR|- LULESH_DIR|- [BUILD_DIR]" >&2; exit 2; }
[ $# -ge 3 ] && [ $# -le 4 ] || usage
hpccg=$1 comd=$2 lulesh=$3
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${4:-$here/build}" 2>/dev/null && pwd) || usage
[ -x "$build/bin/mpicc" ] || { echo "apps_suite: no $build/bin/mpicc (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-apps.XXXXXX")
have_mpich=0
command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null && have_mpich=1
same=0 differ=0 failed=0
say() { printf '%s\n' "$*"; }

# launcher IMPL NP: the command that starts NP ranks of IMPL.
launcher() {
  if [ "$1" = ftmpi ]; then echo "$build/bin/mpirun -n $2 -x OMP_NUM_THREADS=1"; else echo "mpirun.mpich -n $2"; fi
}
impls() { if [ $have_mpich -eq 1 ]; then echo "ftmpi mpich"; else echo ftmpi; fi; }
wrap() {  # wrap IMPL LANG: the compiler wrapper
  if [ "$1" = ftmpi ]; then echo "$build/bin/mpi$2"; else echo "mpi$2.mpich"; fi
}

# compare NAME: the two "$work/NAME.IMPL.key" files (the numbers that must agree).
compare() {
  local name=$1
  if [ ! -s "$work/$name.ftmpi.key" ]; then
    say "FAIL $name (ftmpi: no result; $work/$name.ftmpi.out)"; failed=$((failed + 1)); return
  fi
  [ $have_mpich -eq 1 ] || { say "RAN  $name (no MPICH to compare with)"; return; }
  if [ ! -s "$work/$name.mpich.key" ]; then
    say "FAIL $name (MPICH: no result; $work/$name.mpich.out)"; failed=$((failed + 1)); return
  fi
  if cmp -s "$work/$name.ftmpi.key" "$work/$name.mpich.key"; then
    say "SAME $name: $(tr '\n' ' ' < "$work/$name.ftmpi.key" | cut -c1-100)"; same=$((same + 1))
  else
    say "DIFF $name:"; diff "$work/$name.ftmpi.key" "$work/$name.mpich.key" | head -6
    differ=$((differ + 1))
  fi
}

# run NAME NP DIR KEYCMD PROGRAM ARGS...: runs PROGRAM in DIR (a copy per implementation)
# under each implementation; KEYCMD turns its output into the numbers compared.
run() {
  local name=$1 np=$2 dir=$3 key=$4; shift 4
  for impl in $(impls); do
    (cd "$work/$dir.$impl" && rm -f ./*.yaml &&
      timeout -k 5 600 $(launcher $impl "$np") "$@" < /dev/null > "$work/$name.$impl.out" 2>&1
      cat "$work/$name.$impl.out" ./*.yaml 2>/dev/null | $key > "$work/$name.$impl.key")
  done
  compare "$name"
}

hpccg_key() { grep -E '^(Number of iterations|Final residual):'; }
comd_key() { awk '/^ +[0-9]+ +[0-9.]+ +-?[0-9]/ {print $1, $2, $3, $4, $5, $6, $8} /Final energy|atoms lost/'; }
lulesh_key() { grep -E 'Iteration count|Final Origin Energy|MaxAbsDiff|TotalAbsDiff|MaxRelDiff'; }

if [ "$hpccg" != - ]; then
  for impl in $(impls); do
    cp -r "$hpccg" "$work/hpccg.$impl"
    make -C "$work/hpccg.$impl" -s CXX="$(wrap $impl cxx)" LINKER="$(wrap $impl cxx)" \
      USE_MPI=-DUSING_MPI CPP_OPT_FLAGS=-O2 > "$work/hpccg.$impl.build" 2>&1 ||
      say "FAIL hpccg build ($impl): $work/hpccg.$impl.build"
  done
  for np in 2 4 6 8; do run hpccg.np$np $np hpccg hpccg_key ./test_HPCCG 16 16 16; done
fi
if [ "$comd" != - ]; then
  for impl in $(impls); do
    cp -r "$comd" "$work/comd.$impl"
    cp "$work/comd.$impl/src-mpi/Makefile.vanilla" "$work/comd.$impl/src-mpi/Makefile"
    # (its `depend` step wants makedepend; the program builds without it)
    make -C "$work/comd.$impl/src-mpi" -s CC="$(wrap $impl cc)" OPTFLAGS=-O2 > "$work/comd.$impl.build" 2>&1
    [ -x "$work/comd.$impl/bin/CoMD-mpi" ] || say "FAIL comd build ($impl): $work/comd.$impl.build"
  done
  run comd.np4 4 comd comd_key ./bin/CoMD-mpi -i 2 -j 2 -k 1 -x 16 -y 16 -z 16 -N 50 -n 10
  run comd.np6 6 comd comd_key ./bin/CoMD-mpi -i 3 -j 2 -k 1 -x 18 -y 16 -z 16 -N 50 -n 10
  run comd.np8 8 comd comd_key ./bin/CoMD-mpi -i 2 -j 2 -k 2 -x 16 -y 16 -z 16 -N 50 -n 10
fi
if [ "$lulesh" != - ]; then
  for impl in $(impls); do
    cp -r "$lulesh" "$work/lulesh.$impl"
    make -C "$work/lulesh.$impl" -s MPICXX="$(wrap $impl cxx) -DUSE_MPI=1" CXXFLAGS="-O2 -fopenmp -I." \
      LDFLAGS="-O2 -fopenmp" > "$work/lulesh.$impl.build" 2>&1 ||
      say "FAIL lulesh build ($impl): $work/lulesh.$impl.build"
  done
  export OMP_NUM_THREADS=1
  run lulesh.np1 1 lulesh lulesh_key ./lulesh2.0 -s 12 -i 100
  run lulesh.np8 8 lulesh lulesh_key ./lulesh2.0 -s 10 -i 100
fi
if [ $differ -eq 0 ] && [ $failed -eq 0 ]; then
  rm -rf "$work"
  say "apps_suite: $same same as MPICH, $differ differ, $failed failed"
  exit 0
fi
say "apps_suite: $same same as MPICH, $differ differ, $failed failed (outputs kept in $work)"
exit 1
