#!/bin/bash
# End-to-end checks of an installed ftmpi tree: the wrappers, FindMPI, pkg-config and mpirun,
# always through explicit paths under the prefix so a system MPI can never stand in for ours.
#
#   wrappers_test.sh install  WORK BUILD   install BUILD, then move the tree (relocation check)
#   wrappers_test.sh compile  WORK SRC     mpicc/mpicxx, -show & co, pkg-config
#   wrappers_test.sh findmpi  WORK SRC     CMake FindMPI and mpicc as CMAKE_C_COMPILER
#   wrappers_test.sh run      WORK SRC     run the programs with the installed mpirun
#   wrappers_test.sh abi      WORK SRC     what the installed libftmpi.so exports and how it binds
# WORK/prefix is the installed (moved) tree; every step writes only below WORK.
set -euo pipefail

step=$1 work=$2 arg=$3
P=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }
want() { # want HAYSTACK NEEDLE WHAT
  case " $1 " in *"$2"*) ;; *) fail "$3: '$2' not in: $1" ;; esac
}
nowant() {
  case " $1 " in *"$2"*) fail "$3: '$2' unexpected in: $1" ;; esac
}

step_install() {
  local build=$1
  rm -rf "$work"; mkdir -p "$work"
  cmake --install "$build" --prefix "$work/staging" >"$work/install.log"
  # Move the tree after installing: everything must follow it (wrappers, .pc, rpaths).
  mv "$work/staging" "$P"
  for f in bin/mpicc bin/mpicxx bin/mpif90 bin/mpifort lib/libftmpi.so lib/libftmpi_fortran.so \
           include/mpi.h include/mpif.h include/mpi.mod lib/pkgconfig/ftmpi.pc; do
    [ -e "$P/$f" ] || fail "missing $P/$f after install"
  done
  echo "installed into $P"
}

# The program must link libftmpi (LIB: libftmpi_fortran for Fortran programs, which reach
# libftmpi through it) and find it through an rpath into the prefix.
check_binary() {
  local exe=$1 lib=${2:-libftmpi} dyn
  dyn=$(readelf -d "$exe")
  want "$dyn" "$lib.so" "$exe NEEDED"
  want "$dyn" "$P/lib" "$exe RUNPATH"
  # ldd may show an unnormalised path (pkg-config's ${pcfiledir}/../..), so compare real paths.
  local found l
  for l in "$lib" libftmpi; do
    found=$(ldd "$exe" | awk -v l="$l" '$1 ~ "^" l "\\.so" { print $3 }')
    if [ -z "$found" ] || [ "$(readlink -f "$found")" != "$(readlink -f "$P/lib/$l.so")" ]; then
      fail "$exe resolves $l.so to '$found', not $P/lib"
    fi
  done
}

step_compile() {
  local src=$1 out=$work/compile
  rm -rf "$out"; mkdir -p "$out"; cd "$out"

  local show ci li sc sl
  show=$("$P/bin/mpicc" -show foo.c -o foo)
  want "$show" "-I$P/include" "-show"; want "$show" "-L$P/lib" "-show"
  want "$show" "-Wl,-rpath,$P/lib" "-show"; want "$show" "-lftmpi" "-show"; want "$show" "foo.c -o foo" "-show"
  [ "$("$P/bin/mpicc" -showme foo.c)" = "$("$P/bin/mpicc" -show foo.c)" ] || fail "-showme differs from -show"
  ci=$("$P/bin/mpicc" -compile-info)
  want "$ci" "-I$P/include" "-compile-info"; nowant "$ci" "-lftmpi" "-compile-info"
  li=$("$P/bin/mpicc" -link-info)
  want "$li" "-lftmpi" "-link-info"; want "$li" "-L$P/lib" "-link-info"
  sc=$("$P/bin/mpicc" -showme:compile); sl=$("$P/bin/mpicc" -showme:link)
  [ "$sc" = "-I$P/include" ] || fail "-showme:compile: $sc"
  want "$sl" "-lftmpi" "-showme:link"
  [ "$("$P/bin/mpicxx" -showme:incdirs)" = "$P/include" ] || fail "mpicxx -showme:incdirs"
  # -c must not drag link flags in (the compiler would warn about unused linker input).
  nowant "$("$P/bin/mpicc" -show -c foo.c)" "-lftmpi" "-show -c"

  # Compiler selection and pass-through.
  local cc cxx
  cc=$("$P/bin/mpicc" -showme:command); cxx=$("$P/bin/mpicxx" -showme:command)
  [ "$("$P/bin/mpicc" --version)" = "$("$cc" --version)" ] || fail "--version not passed through"
  [ "$("$P/bin/mpicxx" --version)" = "$("$cxx" --version)" ] || fail "mpicxx --version"
  want "$(MPICC_CC=gcc "$P/bin/mpicc" -show x.c)" "gcc -I$P/include" "MPICC_CC"
  want "$(MPICXX_CXX=g++ "$P/bin/mpicxx" -show x.cpp)" "g++ -I$P/include" "MPICXX_CXX"

  # A symlink to the wrapper (e.g. in ~/bin) still resolves the real prefix.
  ln -s "$P/bin/mpicc" "$out/mpicc-link"
  [ "$("$out/mpicc-link" -showme:incdirs)" = "$P/include" ] || fail "symlinked mpicc"

  # Real builds: one step, separate compile and link, C++, and pkg-config.
  "$P/bin/mpicc" -O2 -Wall -Werror -o hello_c "$src/hello.c"
  "$P/bin/mpicc" -c -Wall -Werror "$src/hello.c" -o hello.o
  "$P/bin/mpicc" hello.o -o hello_c2
  "$P/bin/mpicxx" -O2 -Wall -Werror -std=c++17 -o hello_cxx "$src/hello.cpp"
  local pc
  pc=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs ftmpi)
  want "$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --variable=libdir ftmpi)" "lib" "pkg-config libdir"
  # shellcheck disable=SC2086  # pkg-config output is a word list by design
  cc -Wall -Werror -o hello_pc "$src/hello.c" $pc
  for exe in hello_c hello_c2 hello_cxx hello_pc; do check_binary "$out/$exe"; done

  # Fortran: both wrappers, the `mpi` module and mpif.h, flags like mpicc's plus the bindings.
  local fw
  for fw in mpif90 mpifort; do
    show=$("$P/bin/$fw" -show hello.f90 -o hello)
    want "$show" "-I$P/include" "$fw -show"; want "$show" "-lftmpi_fortran -lftmpi" "$fw -show"
    want "$show" "-Wl,-rpath,$P/lib" "$fw -show"
    [ "$("$P/bin/$fw" -showme:compile)" = "-I$P/include" ] || fail "$fw -showme:compile"
    nowant "$("$P/bin/$fw" -show -c x.f90)" "-lftmpi" "$fw -show -c"
    [ "$("$P/bin/$fw" --version)" = "$("$("$P/bin/$fw" -showme:command)" --version)" ] || fail "$fw --version"
    "$P/bin/$fw" -Wall -Werror -o "hello_$fw" "$src/hello.f90"
    check_binary "$out/hello_$fw" libftmpi_fortran
  done
  want "$(MPIFORT_FC=gfortran-12 "$P/bin/mpifort" -show x.f90)" "gfortran-12 -I$P/include" "MPIFORT_FC"
  "$P/bin/mpif90" -c -Wall -Werror "$src/../fortran/hello_f77.f" -o hello_f77.o
  "$P/bin/mpif90" hello_f77.o -o hello_f77
  check_binary "$out/hello_f77" libftmpi_fortran
  "$P/bin/mpifort" -Wall -Werror -std=f2018 -o hello_f08 "$src/hello_f08.f90"
  check_binary "$out/hello_f08" libftmpi_fortran

  # -lftckpt is ordinary linking; check it whenever the checkpoint library is installed.
  if [ -e "$P/lib/libftckpt.so" ]; then
    "$P/bin/mpicc" -o hello_ckpt "$src/hello_ckpt.c" -lftckpt
    want "$(readelf -d hello_ckpt)" "libftckpt.so" "-lftckpt"
  fi
  echo "compile checks passed"
}

step_findmpi() {
  local src=$1 out=$work/findmpi
  rm -rf "$out"; mkdir -p "$out"
  cmake -S "$src/findmpi" -B "$out/find" -DEXPECT_PREFIX="$P" \
        -DMPI_C_COMPILER="$P/bin/mpicc" -DMPI_CXX_COMPILER="$P/bin/mpicxx"
  cmake --build "$out/find"
  check_binary "$out/find/hello_c"; check_binary "$out/find/hello_cxx"
  # SPEC 2: the wrappers also work as the project's compilers.
  cmake -S "$src/findmpi" -B "$out/ascc" -DWRAPPER_AS_COMPILER=ON \
        -DCMAKE_C_COMPILER="$P/bin/mpicc" -DCMAKE_CXX_COMPILER="$P/bin/mpicxx"
  cmake --build "$out/ascc"
  check_binary "$out/ascc/hello_c"; check_binary "$out/ascc/hello_cxx"
  # Fortran (issue 19): the wrapper named explicitly, then found first in PATH (a system MPI's
  # mpif90 may sit in /usr/bin; ours must win because it comes first).
  cmake -S "$src/findmpi_fortran" -B "$out/fortran" -DEXPECT_PREFIX="$P" \
        -DMPI_Fortran_COMPILER="$P/bin/mpifort"
  cmake --build "$out/fortran"
  check_binary "$out/fortran/hello_f" libftmpi_fortran
  PATH="$P/bin:$PATH" cmake -S "$src/findmpi_fortran" -B "$out/fortran_path" -DEXPECT_PREFIX="$P"
  cmake --build "$out/fortran_path"
  check_binary "$out/fortran_path/hello_f" libftmpi_fortran
  echo "FindMPI checks passed"
}

step_run() {
  local src=$1 out=$work/run
  rm -rf "$out"; mkdir -p "$out"; cd "$out"
  [ -x "$P/bin/mpirun" ] || fail "no installed mpirun"
  "$P/bin/mpicc" -o hello_c "$src/hello.c"
  "$P/bin/mpicxx" -o hello_cxx "$src/hello.cpp"
  local got n
  for n in 1 3; do
    got=$("$P/bin/mpirun" -n $n ./hello_c | grep "^hello" | sort)
    [ "$got" = "$(for ((r = 0; r < n; r++)); do echo "hello from rank $r of $n"; done | sort)" ] \
      || fail "mpirun -n $n hello_c printed: $got"
  done
  "$P/bin/mpifort" -o hello_f "$src/hello.f90"
  got=$("$P/bin/mpirun" -n 2 ./hello_f | grep "^hello" | sort)
  [ "$got" = "$(printf 'hello from Fortran rank 0 of 2\nhello from Fortran rank 1 of 2')" ] \
    || fail "mpirun -n 2 hello_f printed: $got"
  "$P/bin/mpif90" -o hello_f08 "$src/hello_f08.f90"
  got=$("$P/bin/mpirun" -n 2 ./hello_f08 | grep "^hello" | sort)
  [ "$got" = "$(printf 'hello from Fortran 2008 rank 0 of 2\nhello from Fortran 2008 rank 1 of 2')" ] \
    || fail "mpirun -n 2 hello_f08 printed: $got"
  got=$("$P/bin/mpirun" -n 2 ./hello_cxx | grep "^hello" | sort)
  [ "$got" = "$(printf 'hello from C++ rank 0 of 2\nhello from C++ rank 1 of 2')" ] \
    || fail "mpirun -n 2 hello_cxx printed: $got"
  echo "run checks passed"
}

# libftmpi.so's dynamic symbols are the C API and nothing else: an exported C++ internal could
# be interposed by (or clash with) an application's own symbol, and every call to it inside the
# library went through the PLT. BIND_NOW: nothing is resolved at its first call, which would
# otherwise land in a failure's repair (its first agreement).
step_abi() {
  local lib=$P/lib/libftmpi.so names extra s
  [ -f "$lib" ] || fail "no installed $lib"
  names=$(nm -D --defined-only "$lib" | awk '{ print $3 }')
  extra=$(grep -v -E '^(MPI_|PMPI_|MPIX_|PMPIX_|FTMPI_|ftmpi_)' <<<"$names" | head -5 || true)
  [ -z "$extra" ] || fail "libftmpi.so exports more than the C API, e.g.: $extra"
  for s in MPI_Comm_dup PMPI_Comm_dup MPIX_Comm_agree FTMPI_Comm_set_mode ftmpi_type_blocks; do
    grep -q -x "$s" <<<"$names" || fail "$s not exported"
  done
  grep -q 'BIND_NOW' <<<"$(readelf -d "$lib")" || fail "libftmpi.so is bound lazily"
  echo "abi checks passed"
}

"step_$step" "$arg"
