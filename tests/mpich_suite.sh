#!/usr/bin/env bash
# Runs the MPI-1 parts of MPICH's test suite (test/mpi of github.com/pmodels/mpich) against
# ftmpi: every program in the chosen directories is built with our mpicc and run with our
# mpirun at the process count of its testlist. Not part of CI: it needs MPICH's sources, which
# are never copied into this repository.
#
#   tests/mpich_suite.sh MPICH_TEST_MPI_DIR [DIR...]
#     MPICH_TEST_MPI_DIR  MPICH's test/mpi directory (with util/, include/, pt2pt/, ...)
#     DIR...              subdirectories to run (default: pt2pt coll comm group datatype
#                         errhan init attr topo; also info, threads/..., the Fortran
#                         ones f77/..., f90/..., f08/..., and ft, MPICH's ULFM tests)
#   Environment: FTMPI_BUILD_DIR (default build: its bin/mpicc and bin/mpirun),
#                MPICH_SUITE_WORK (default a new temporary directory; kept, for the logs),
#                MPICH_SUITE_TIMEOUT seconds per run (default 60), MPICH_SUITE_MAXNP (16),
#                MPICH_SUITE_PRELOAD a library every rank preloads: with a sanitized build,
#                MPICH's programs (not built with -fsanitize) need ASan's runtime preloaded
#                (/lib/x86_64-linux-gnu/libasan.so.8) for it to see their heap.
#
# Verdicts, one line per testlist entry: PASS (exit 0 and MPICH's "No Errors"), FAIL (the run
# failed; the log has its output), TIMEOUT, NEEDS (the program calls MPI functions ftmpi does
# not have, beyond MPI-1: listed), SKIP (the testlist marks it for features we do not build:
# dtpools datatype pools, threads, Fortran/C++, or more than MAXNP processes). A summary and the
# list of FAIL/TIMEOUT lines end the output; results.txt in the work directory keeps them.
# A C program with no NAME.c of its own is built as MPICH's automake builds it, from the
# NAME_SOURCES and NAME_CPPFLAGS of its directory's Makefile.am (c_variant below).
#
# ft (ULFM): MPICH runs these with MPIR_CVAR_ENABLE_FT=1 and `mpiexec -disable-auto-cleanup`
# (the job goes on after a rank dies); here that is `mpirun --with-ft ulfm`. They include only
# mpi.h, which declares the MPIX_ names as MPICH's does. Their verdicts follow MPICH's runtests
# with one difference: for resultTest=TestStatusNoErrors MPICH also wants a non-zero exit status
# (its mpiexec passes on the dead rank's status), while ftmpi's mpirun exits 0 when every
# process still in the job ended well (SPEC 4.7), so the status is shown, not judged. Output
# must be clean as in MPICH: only the "No Errors" line and mpirun's reports of ranks that
# exited with a status (the ranks the tests end on purpose); anything else, a rank killed by a
# signal included, makes it FAIL. MPICH's own expected failures (xfail=) are named in the line.
set -u

usage() { echo "usage: $0 MPICH_TEST_MPI_DIR [DIR...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
src=$(cd "$1" 2>/dev/null && pwd) || usage
[ -f "$src/util/mtest.c" ] && [ -f "$src/include/mpitest.h" ] || {
  echo "$0: $1 is not MPICH's test/mpi (no util/mtest.c)" >&2; exit 2; }
shift
dirs=${*:-pt2pt coll comm group datatype errhan init attr topo}
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
mpicc=$build/bin/mpicc
mpirun=$build/bin/mpirun
[ -x "$mpicc" ] && [ -x "$mpirun" ] || { echo "$0: no $mpicc or $mpirun (build first)" >&2; exit 2; }
work=${MPICH_SUITE_WORK:-$(mktemp -d /tmp/mpich-suite.XXXXXX)}
limit=${MPICH_SUITE_TIMEOUT:-60}
maxnp=${MPICH_SUITE_MAXNP:-16}
mkdir -p "$work/include" "$work/obj" "$work/bin" "$work/log"
echo "mpich_suite: sources $src, work $work"

# What MPICH's configure would write for this machine and an MPI without extensions.
cat > "$work/include/mpitestconf.h" <<'EOF'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_USLEEP 1
#define USE_STRICT_MPI 1
#define HAVE_MPI_INIT_THREAD 1
#define POINTERINT_t long
EOF
# The threads/ directories need MTest's thread layer (POSIX threads, util/mtest_thread.c);
# the others run with none, as before (MTest then initializes without MPI_THREAD_MULTIPLE).
threads=0
for d in $dirs; do [[ $d == threads* ]] && threads=1; done
if [ $threads -eq 1 ]; then
  echo '#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX' >> "$work/include/mpitestconf.h"
else
  echo '#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE' >> "$work/include/mpitestconf.h"
fi
# What MPICH's configure finds out about the MPI under test: Fortran bindings (our build has
# mpif90), and which optional Fortran types mpi.h has as real handles (not MPI_DATATYPE_NULL).
[ -x "$build/bin/mpif90" ] && echo '#define HAVE_FORTRAN_BINDING 1' >> "$work/include/mpitestconf.h"
for t in INTEGER16 REAL16 COMPLEX32; do
  printf '#include <mpi.h>\nint main(void) { return MPI_%s == MPI_DATATYPE_NULL; }\n' "$t" > "$work/probe.c"
  if "$mpicc" "$work/probe.c" -o "$work/probe" 2>/dev/null && "$work/probe"; then
    echo "#define HAVE_MPI_$t 1" >> "$work/include/mpitestconf.h"
  fi
done
rm -f "$work/probe.c" "$work/probe"
for d in $dirs; do mkdir -p "$work/log/$(dirname "$d")" "$work/obj/$(dirname "$d")" "$work/bin/$(dirname "$d")"; done
: > "$work/include/mtest_mpix.h"   # MPICH's own extensions: none
cflags=(-g -O1 -w -I"$work/include" -I"$src/include")

# Functions ftmpi exports; a program that needs others is reported, not run.
nm -D --defined-only "$build/lib/libftmpi.so" | awk '{print $3}' | grep -E '^P?MPIX?_' |
  sort -u > "$work/ours.txt"

# The test library (its MPI-2 parts are only reached by tests that ask for them; see absent.c
# below). The NEEDS check looks at each test's own object.
util=()
thread_util=mtest_single.c  # or its threaded counterpart
[ $threads -eq 1 ] && thread_util=mtest_thread.c
for f in mtest.c mtest_common.c $thread_util dtypes.c run_mpitests.c; do
  [ -f "$src/util/$f" ] || continue
  if "$mpicc" "${cflags[@]}" -c "$src/util/$f" -o "$work/obj/${f%.c}.o" 2> "$work/log/util-$f.log"; then
    [ "$f" = run_mpitests.c ] || util+=("$work/obj/${f%.c}.o")
  else
    echo "mpich_suite: cannot compile util/$f (see $work/log/util-$f.log)" >&2
    exit 1
  fi
done

# Fortran directories (f77/..., f90/..., f08/...): MPICH's Fortran MTest (util/mtest_f77.f,
# mtest_f90.f90, and mtest_f08.f90 for the `use mpi_f08` tests) built with our mpif90, and the
# *.h.in include files its configure would write (addresses and offsets are INTEGER*8 on this
# 64-bit target). The NEEDS check compares the Fortran externals a test calls (mpi_send_) with
# the ones libftmpi_fortran defines; a call mpi_f08 lacks fails to compile (NEEDS, with the log).
fortran=0
for d in $dirs; do [[ $d == f77* || $d == f90* || $d == f08* ]] && fortran=1; done
mpif90=$build/bin/mpif90
fflags=(-g -O1 -w -fallow-argument-mismatch -I"$work/include")
if [ $fortran -eq 1 ]; then
  [ -x "$mpif90" ] || { echo "$0: no $mpif90 (build first)" >&2; exit 2; }
  nm -D --defined-only "$build/lib/libftmpi_fortran.so" | awk '{print $3}' | grep -E '^p?mpix?_.*_$' |
    sort -u > "$work/ours_f.txt"
  # gfortran's external names: lower case, one underscore (what configure finds).
  echo '#define F77_NAME_LOWER_USCORE 1' >> "$work/include/mpitestconf.h"
  # Their C helpers include "../../include/mpitestconf.h": a directory two below a link to ours.
  mkdir -p "$work/nest/a/b" && ln -sfn "$work/include" "$work/nest/include"
  for f in $(cd "$src" && ls f77/*/*.h.in f90/*/*.h.in f08/*/*.h.in 2>/dev/null); do
    sed -e 's/@F77_MPI_ADDRESS@/integer*8/g' -e 's/@F77_MPI_OFFSET@/integer*8/g' "$src/$f" \
      > "$work/include/$(basename "${f%.in}")"
  done
  (cd "$work/obj" && "$mpif90" "${fflags[@]}" -ffixed-form -c "$src/util/mtest_f77.f" -o mtest_f77.o &&
     "$mpif90" "${fflags[@]}" -c "$src/util/mtest_f90.f90" -o mtest_f90.o &&
     "$mpif90" "${fflags[@]}" -c "$src/util/mtest_f08.f90" -o mtest_f08.o) > "$work/log/util-fortran.log" 2>&1 ||
    { echo "mpich_suite: cannot compile MPICH's Fortran MTest (see $work/log/util-fortran.log)" >&2; exit 1; }
fi

# build_fortran DIR NAME EXE: compiles NAME's sources (NAME_SOURCES of DIR/Makefile.am, else
# NAME.f or NAME.f90) and links EXE with MTest; writes EXE.needs when it cannot.
build_fortran() {
  local d=$1 name=$2 exe=$3 srcs objs=() missing="" f obj log=$work/log/${1//\//-}-$2.build
  srcs=$(sed -n "s/^[[:space:]]*\(nodist_\)\?${name}_SOURCES[[:space:]]*=//p" "$src/$d/Makefile.am" "$src/$d/Makefile.ap" 2>/dev/null | head -1)
  [ -n "$srcs" ] || { [ -f "$src/$d/$name.f" ] && srcs=$name.f || srcs=$name.f90; }
  : > "$log"
  for f in $srcs; do
    [ -f "$src/$d/$f" ] || { echo "needs: (no source $f: generated by MPICH's configure)" > "$exe.needs"; return; }
    obj=$work/obj/${d//\//-}-${f%.*}.o
    case $f in
      *.c) "$mpicc" "${cflags[@]}" -I"$work/nest/a/b" -c "$src/$d/$f" -o "$obj" >> "$log" 2>&1 ;;
      *.f) (cd "$work/obj" && "$mpif90" "${fflags[@]}" -ffixed-form -I"$src/$d" -c "$src/$d/$f" -o "$obj") >> "$log" 2>&1 ;;
      *) (cd "$work/obj" && "$mpif90" "${fflags[@]}" -I"$src/$d" -c "$src/$d/$f" -o "$obj") >> "$log" 2>&1 ;;
    esac || { echo "needs: (compile error, see $log)" > "$exe.needs"; return; }
    objs+=("$obj")
    missing+=" $(nm -u "$obj" | awk '{print $2}' | grep -E '^p?mpix?_.*_$' | sort -u | comm -23 - "$work/ours_f.txt" | tr '\n' ' ')"
    missing+=" $(nm -u "$obj" | awk '{print $2}' | grep -E '^P?MPIX?_' | sort -u | comm -23 - "$work/ours.txt" | tr '\n' ' ')"
  done
  missing=$(echo $missing)
  if [ -n "$missing" ]; then echo "needs: $missing" > "$exe.needs"; return; fi
  local mtest=$work/obj/mtest_f77.o
  [[ $srcs == *.f90* ]] && mtest=$work/obj/mtest_f90.o
  [[ $d == f08* ]] && mtest=$work/obj/mtest_f08.o   # its MTest uses mpi_f08
  # A C-only program (c2fmult) uses the C MTest.
  [[ $srcs == *.f* ]] || mtest="${util[*]}"
  if "$mpif90" -o "$exe" "${objs[@]}" $mtest -lm -lpthread >> "$log" 2>&1; then
    rm -f "$exe.needs"
  else
    echo "needs: (link error, see $log)" > "$exe.needs"
  fi
}

# c_variant DIR NAME: a C program with no NAME.c is a variant automake builds from other
# sources with its own defines (threads/pt2pt's mt_*: mt_sendrecv_impl.c with -DSEND, -DBSEND,
# ...; rma's fetch_and_op_int and the like): NAME_SOURCES and NAME_CPPFLAGS of DIR/Makefile.am,
# one line each, as MPICH's build uses them. Sets csrcs and cdefs; fails when DIR's Makefile.am
# has no such program, a source is missing, or the flags need configure (@...@).
c_variant() {
  local mk=$src/$1/Makefile.am line f
  [ -f "$mk" ] || return 1
  line=$(sed -n "s/^[[:space:]]*${2}_SOURCES[[:space:]]*=//p" "$mk" | head -1)
  [ -n "$line" ] || return 1
  csrcs=()
  for f in $line; do
    case $f in
      *.c) [ -f "$src/$1/$f" ] || return 1; csrcs+=("$src/$1/$f") ;;
      *.h) ;;
      *) return 1 ;;   # C++ or Fortran
    esac
  done
  [ ${#csrcs[@]} -gt 0 ] || return 1
  line=$(sed -n "s/^[[:space:]]*${2}_CPPFLAGS[[:space:]]*=//p" "$mk" | head -1)
  line=${line//\$(AM_CPPFLAGS)/}
  [[ $line == *@* || $line == *'$('* || $line == *\\ ]] && return 1
  cdefs=($line)
  return 0
}

# MPI functions the test library refers to that ftmpi lacks: each gets a body that says so
# and exits 77, so a test that reaches one is reported as NEEDS, and the others link.
{
  echo '#include <stdio.h>'
  echo '#include <stdlib.h>'
  nm -u "${util[@]}" "$work/obj/run_mpitests.o" | awk '{print $2}' | grep -E '^MPIX?_' | sort -u | comm -23 - "$work/ours.txt" |
    while read -r fn; do
      echo "int $fn(void) { fprintf(stderr, \"mpich_suite: $fn is not in ftmpi\\n\"); exit(77); }"
    done
} > "$work/absent.c"
cc -c -w "$work/absent.c" -o "$work/obj/absent.o" || exit 1
util+=("$work/obj/absent.o")

pass=0 fail=0 needs=0 skip=0 timeouts=0
: > "$work/results.txt"
say() { echo "$*" | tee -a "$work/results.txt"; }

for d in $dirs; do
  list=$src/$d/testlist
  [ -f "$list" ] || list=$src/$d/testlist.in
  [ -f "$list" ] || { say "SKIP $d: no testlist"; continue; }
  seen=" "
  while read -r line; do
    # MPICH's configure includes the communicator-overlap tests unless told not to
    # (--enable-comm-overlap-tests is its default): its @comm_overlap@ becomes nothing.
    line=${line//@comm_overlap@/}
    read -r name np rest <<< "$line"
    case $name in ''|'#'*) continue ;; esac
    entry="$d/$name $np $rest"
    # Configure-time conditionals and features we do not build.
    if [[ $name == *@* || $np == *@* || $rest == *@* || ! $np =~ ^[0-9]+$ ]]; then
      say "SKIP $entry (configure conditional)"; skip=$((skip + 1)); continue
    fi
    if [ -d "$src/$d/$name" ]; then continue; fi   # a subdirectory with its own testlist
    if [ "$np" -gt "$maxnp" ]; then say "SKIP $entry (more than $maxnp processes)"; skip=$((skip + 1)); continue; fi
    ulfm=0
    [[ $rest == *env=MPIR_CVAR_ENABLE_FT=1* ]] && ulfm=1 && rest=${rest//env=MPIR_CVAR_ENABLE_FT=1/}
    [[ $rest == *mpiversion=* || $rest == *env=MPIR_* ]] && { say "SKIP $entry (MPICH-specific variant)"; skip=$((skip + 1)); continue; }
    if [[ $rest =~ mem=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 4 ]; then
      say "SKIP $entry (needs more than 4 GB)"; skip=$((skip + 1)); continue
    fi
    c=$src/$d/$name.c
    csrcs=() cdefs=()
    if [[ $d != f77* && $d != f90* && $d != f08* ]]; then
      if [ -f "$c" ]; then
        csrcs=("$c")
      elif ! c_variant "$d" "$name"; then
        say "SKIP $entry (no $name.c: C++/Fortran or generated)"; skip=$((skip + 1)); continue
      fi
    fi
    if [ ${#csrcs[@]} -gt 0 ] && grep -q 'mtest_dtp.h\|dtpools.h' "${csrcs[@]}"; then
      say "SKIP $entry (needs MPICH's dtpools)"; skip=$((skip + 1)); continue
    fi
    exe=$work/bin/${d//\//-}-$name
    if [[ ($d == f77* || $d == f90* || $d == f08*) && $seen != *" $name "* ]]; then
      seen+="$name "
      build_fortran "$d" "$name" "$exe"
    elif [[ $seen != *" $name "* ]]; then
      seen+="$name "
      objs=() built=1
      : > "$work/log/$d-$name.build"
      for f in "${csrcs[@]}"; do
        obj=$work/obj/$d-$name-$(basename "${f%.c}").o
        "$mpicc" "${cflags[@]}" "${cdefs[@]}" -c "$f" -o "$obj" >> "$work/log/$d-$name.build" 2>&1 || built=0
        objs+=("$obj")
      done
      if [ $built -eq 0 ]; then
        missing=$(grep -oE "implicit declaration of function .(MPIX?_[A-Za-z_]+)|.(MPIX?_[A-Za-z_0-9]+). undeclared" \
                    "$work/log/$d-$name.build" | grep -oE 'MPIX?_[A-Za-z_0-9]+' | sort -u | tr '\n' ' ')
        rm -f "$exe"
        echo "needs: ${missing:-(compile error, see log)}" > "$exe.needs"
      else
        missing=$(nm -u "${objs[@]}" | awk '{print $2}' | grep -E '^MPIX?_' | sort -u | comm -23 - "$work/ours.txt" | tr '\n' ' ')
        # Newer tests define run(); util/run_mpitests.c is their main().
        driver=()
        nm "${objs[@]}" | grep -q ' T main$' || driver=("$work/obj/run_mpitests.o")
        if [ -n "$missing" ]; then
          echo "needs: $missing" > "$exe.needs"
        elif "$mpicc" "${cflags[@]}" -o "$exe" "${objs[@]}" "${driver[@]}" "${util[@]}" -lm -lpthread \
               > "$work/log/$d-$name.link" 2>&1; then
          rm -f "$exe.needs"
        else
          echo "needs: (link error, see $work/log/$d-$name.link)" > "$exe.needs"
        fi
      fi
    fi
    if [ -f "$exe.needs" ]; then
      say "NEEDS $entry $(cat "$exe.needs")"; needs=$((needs + 1)); continue
    fi
    # resultTest=TestStatus/TestErrFatal: the program must end with a non-zero status;
    # timeLimit=N: mpirun's own --timeout.
    args=() launch=() expect_fail=0 status_free=0 xfail=""
    [ -n "${MPICH_SUITE_PRELOAD:-}" ] && launch+=(-x "LD_PRELOAD=$MPICH_SUITE_PRELOAD")
    [ $ulfm -eq 1 ] && launch+=(--with-ft ulfm)
    for w in $rest; do
      case $w in
        arg=*) args+=("${w#arg=}") ;;
        timeLimit=*) launch+=(--timeout "${w#timeLimit=}") ;;
        resultTest=TestStatus|resultTest=TestErrFatal) expect_fail=1 ;;
        resultTest=TestStatusNoErrors) status_free=1 ;;
        xfail=*) xfail=" (MPICH: xfail ${w#xfail=})" ;;
      esac
    done
    # mpirun forwards its stdin to rank 0: without /dev/null it would eat the rest of the testlist.
    log=$work/log/$d-$name-np$np.out
    timeout -k 5 "$limit" "$mpirun" "${launch[@]}" -n "$np" "$exe" "${args[@]}" < /dev/null > "$log" 2>&1
    rc=$?
    if grep -q '^mpich_suite: .* is not in ftmpi' "$log"; then
      say "NEEDS $entry (at run time: $(grep -o 'MPIX\?_[A-Za-z_0-9]* is not' "$log" | head -1))"
      needs=$((needs + 1))
    elif { [ $rc -eq 124 ] && ! grep -q '^ftmpi: job exceeded --timeout' "$log"; } || [ $rc -eq 137 ]; then
      # (mpirun ends a job past its own --timeout, the test's timeLimit, with 124 as well, and
      # says so: that is the program's status, not this script's limit.)
      # Before the expected-failure check: a program that should abort but hangs is no pass.
      say "TIMEOUT $entry (${limit} s or its timeLimit)$xfail"; timeouts=$((timeouts + 1))
    elif [ $ulfm -eq 1 ] && [ $expect_fail -eq 0 ]; then
      # Clean output as MPICH's runtests wants it, but mpirun's reports of ranks that exited
      # with a status are expected (the tests end ranks with exit(EXIT_FAILURE)).
      stray=$(grep -vE '^\s*No [Ee]rrors\s*$' "$log" |
                grep -vE '^ftmpi: rank [0-9]+ \(pid [0-9]+( on [^)]*)?\) exited with status [0-9]+( at .*; the job continues .*)?$' |
                grep -v '^$' | head -2 | tr '\n' ' ' | cut -c1-200)
      if ! grep -qE '^\s*No [Ee]rrors\s*$' "$log"; then
        say "FAIL $entry (exit $rc, no \"No Errors\": $stray)$xfail"; fail=$((fail + 1))
      elif [ -n "$stray" ]; then
        say "FAIL $entry (exit $rc, unexpected output: $stray)$xfail"; fail=$((fail + 1))
      elif [ $status_free -eq 0 ] && [ $rc -ne 0 ]; then
        say "FAIL $entry (exit $rc after \"No Errors\")$xfail"; fail=$((fail + 1))
      else
        say "PASS $entry (exit $rc)$xfail"; pass=$((pass + 1))
      fi
    elif [ $expect_fail -eq 1 ]; then
      if [ $rc -ne 0 ]; then
        say "PASS $entry (ended with status $rc, as it should)"; pass=$((pass + 1))
      else
        say "FAIL $entry (exit 0; a non-zero status was expected)"; fail=$((fail + 1))
      fi
    elif [ $rc -eq 0 ] && grep -q '^Test Skipped' "$log" && ! grep -qi 'No Errors' "$log"; then
      say "SKIP $entry (the program skipped itself: a feature beyond ours)"; skip=$((skip + 1))
    elif [ $rc -eq 0 ] && grep -qi 'No Errors' "$log"; then
      say "PASS $entry"; pass=$((pass + 1))
    else
      say "FAIL $entry (exit $rc: $(grep -v '^$' "$log" | head -2 | tr '\n' ' ' | cut -c1-160))"
      fail=$((fail + 1))
    fi
  done < "$list"
done

echo
echo "mpich_suite: $pass passed, $fail failed, $timeouts timed out, $needs need functions ftmpi lacks, $skip skipped"
grep -E '^(FAIL|TIMEOUT)' "$work/results.txt"
echo "mpich_suite: logs and results.txt in $work"
[ $fail -eq 0 ] && [ $timeouts -eq 0 ]
