#!/usr/bin/env bash
# The hang windows of issue 16 item 2, each run N times with fresh random timings.
#   tests/stress/ft_hang_windows.sh N [CASE...]     (default: every case; N >= 100 for a stress run)
# Cases:
#   init_before    SHRINK, 4 ranks: rank 2 dies before MPI_Init; the others go on with 3
#   init_during    SHRINK, 4 ranks: a random rank dies 0-60 ms after it started (inside MPI_Init)
#   init_blank     BLANK, 4 ranks: rank 1 dies before MPI_Init; the others go on with a gap
#   rebuild_second REBUILD, 4 ranks: rank 1 dies, rank 2 dies 10-300 ms (half: 5-45 ms) later, often
#                  while the replacement starts; every survivor must get through MPI_Comm_dup
#   shrink_three   SHRINK, 8 ranks: three random ranks die 0-50 ms apart in an allreduce loop
#   atomic_truncate ATOMIC MPI_Gather, the root's receive count too small (MPI_ERR_TRUNCATE at
#                  the root only): nobody waits forever, the next gather is right
# Each run has the run_mpi.sh watchdog (a hang fails the run) and must print its OK line.
# Environment: FTMPI_BUILD_DIR (default build). Prints one line per failed run and a summary;
# exit 1 if any run failed.
set -u
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
build=${FTMPI_BUILD_DIR:-$root/build}
mpirun=$build/bin/mpirun
bin=$build/tests/bin
run=$root/tests/e2e/mpi/run_mpi.sh
usage() { echo "usage: $0 N [init_before|init_during|init_blank|rebuild_second|shrink_three|atomic_truncate]..." >&2; exit 2; }
[ $# -ge 1 ] || usage
n=$1; shift
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 100000 ] || usage
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(init_before init_during init_blank rebuild_second shrink_three atomic_truncate)

one() {  # one run of case $1; prints its command line on failure
  local args
  case $1 in
    init_before) args=(0 "ft_hang init OK" -- -n 4 --comm-mode shrink "$bin/ft_hang" init 2 0) ;;
    init_during) args=(0 "ft_hang init OK" -- -n 4 --comm-mode shrink "$bin/ft_hang" init
                       $((RANDOM % 4)) $((RANDOM % 60000))) ;;
    init_blank) args=(0 "ft_hang init OK" -- -n 4 --comm-mode blank "$bin/ft_hang" init 1 0) ;;
    rebuild_second)  # half of the gaps short enough to land inside the first repair
      local gap=$((RANDOM % 2 ? 10 + RANDOM % 291 : 5 + RANDOM % 40))
      args=(0 "ft_rebuild OK" -- -n 4 -x FT_REBUILD_PACE_MS=10 --comm-mode rebuild
            "$bin/ft_rebuild" 40 1@5 2@5+$gap) ;;
    shrink_three)
      local ranks=($(shuf -i 1-7 -n 3))
      args=(0 "ft_hang loop OK" -- -n 8 --comm-mode shrink "$bin/ft_hang" loop 40
            "${ranks[0]}@10+0" "${ranks[1]}@10+$((RANDOM % 26))" "${ranks[2]}@10+$((25 + RANDOM % 26))") ;;
    atomic_truncate) args=(0 "ft_hang truncate OK" -- -n 4 --comm-mode shrink "$bin/ft_hang"
                           truncate $((RANDOM % 4))) ;;
    *) usage ;;
  esac
  local out
  if ! out=$("$run" "$mpirun" "${args[@]}" 2>&1); then
    echo "FAILED: $1: mpirun ${args[*]:3}"
    printf '%s\n' "$out" | tail -15 | sed 's/^/    /'
    return 1
  fi
}

bad=0
for c in "${cases[@]}"; do
  fails=0
  for ((i = 0; i < n; i++)); do
    one "$c" || fails=$((fails + 1))
  done
  echo "ft_hang_windows: $c: $((n - fails))/$n passed"
  bad=$((bad + fails))
done
[ $bad -eq 0 ]
