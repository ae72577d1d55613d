#!/bin/bash
# The knob table reaches users: ftmpi-info lists every FTMPI_* knob of knob_list.h and flags an
# invalid value, mpirun --help lists the user-facing ones, bad arguments get exit 2 and a usage
# line, and README.md's knob table is exactly `ftmpi-info --markdown`.
#   knob_listing.sh SOURCE_DIR BIN_DIR
set -uo pipefail
src=$1 bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

names=$(grep -oE '"FTMPI_[A-Z0-9_]+"' "$src/knobs/include/ftmpi_knobs/knob_list.h" | tr -d '"')
[ "$(echo "$names" | wc -l)" -ge 30 ] || fail "found only $(echo "$names" | wc -l) knobs in knob_list.h"
info=$(env -u FTMPI_SHM_RINGS "$bin/ftmpi-info") || fail "ftmpi-info exited $?"
for n in $names; do
  grep -q "^$n " <<<"$info" || fail "ftmpi-info does not list $n"
done

out=$(FTMPI_SHM_RINGS=12abc "$bin/ftmpi-info" FTMPI_SHM_RINGS) || fail "ftmpi-info NAME exited $?"
grep -q "set here: '12abc'  INVALID, expected an integer in \[1, 65536\]" <<<"$out" || fail "invalid value not flagged: $out"
"$bin/ftmpi-info" FTMPI_NO_SUCH >/dev/null 2>&1; [ $? -eq 1 ] || fail "unknown knob name: exit not 1"
err=$("$bin/ftmpi-info" --bogus 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "ftmpi-info --bogus: exit $rc, expected 2"
grep -q "^usage: ftmpi-info" <<<"$err" || fail "ftmpi-info --bogus: no usage line"

help=$("$bin/mpirun" --help) || fail "mpirun --help exited $?"
for n in FTMPI_COMM_MODE FTMPI_PROVIDER FTMPI_SHM_RINGS FTMPI_COLL_BCAST_LARGE FTMPI_DEBUG; do
  grep -q "^  $n " <<<"$help" || fail "mpirun --help does not list $n"
done
! grep -q "FTMPI_TEST_" <<<"$help" || fail "mpirun --help lists test hooks"

# README.md: the lines between the knob markers are the generated table.
want=$("$bin/ftmpi-info" --markdown)
have=$(sed -n '/<!-- knobs:begin/,/<!-- knobs:end/p' "$src/README.md" | sed '1d;$d')
[ "$want" = "$have" ] || { diff <(echo "$have") <(echo "$want") >&2; fail "README.md's knob table is stale: regenerate it with ftmpi-info --markdown"; }
echo "knob listing OK"
