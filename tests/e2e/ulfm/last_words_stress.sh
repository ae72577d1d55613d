#!/usr/bin/env bash
# A dead process's last acts count: a synchronous send it received completes, a message it sent
# is delivered, a collective it completed with us succeeds here too (ulfm_last_words.c); and a
# user error handler hears of a failure once, with its class, from MPI_Sendrecv too
# (ulfm_handler.c); a survivor's MPI_Finalize does not wait for one that finalized and left
# (ulfm_finalize_leftovers.c). All race the daemon's report of a death against what the dead process left
# behind, so they run again and again; stops at the first failure.
#   last_words_stress.sh BUILD_DIR ITERATIONS [SCENARIO...]   (ssend send coll handler leftovers; default all)
#   (CI runs 3; `last_words_stress.sh build 20` by hand)
set -u
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [ITERATIONS] [ssend|send|coll|handler|leftovers...]" >&2; exit 2; }
build=$1 iters=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
scenarios=${*:-ssend send coll handler leftovers}
mpirun=$build/bin/mpirun bin=$build/tests/bin
piddir=$(mktemp -d)   # the victims' kill times (killtime.h); ours, removed at the end
trap 'rm -rf "$piddir"' EXIT
for i in $(seq "$iters"); do
  for what in $scenarios; do
    case $what in
      ssend|send) args=(-n 6 "$bin/ulfm_last_words" "$what") ok="rank 0: ulfm_last_words $what OK" ;;
      # without the progress thread, which would complete the allreduce before the death
      coll) args=(-n 3 -x FTMPI_ASYNC_PROGRESS=0 "$bin/ulfm_last_words" coll) ok="rank 0: ulfm_last_words coll OK" ;;
      handler) args=(-n 5 "$bin/ulfm_handler") ok="rank 0: ulfm_handler OK" ;;
      leftovers) args=(-n 4 "$bin/ulfm_finalize_leftovers" 100000) ok="rank 0: ulfm_finalize_leftovers OK" ;;
      *) echo "$0: unknown scenario $what" >&2; exit 2 ;;
    esac
    out=$(PIDDIR=$piddir timeout -k 5 60 "$mpirun" --with-ft ulfm --timeout 45 "${args[@]}" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "$ok" <<< "$out"; then
      printf '%s\n' "$out"
      echo "last_words_stress: FAIL: $what, iteration $i (exit $rc)"
      exit 1
    fi
  done
done
echo "last_words_stress: $iters iterations OK"
