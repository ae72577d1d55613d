#!/usr/bin/env bash
# Runs heat failure-free and with kills, and checks that both print the same checksum (and
# that the failure run says BIT-IDENTICAL, i.e. matches rank 0's serial reference too).
#   heat_compare.sh MPIRUN HEAT NP STEPS EVERY KILLS RECOVERIES -- mpirun-mode-args...
# RECOVERIES: how many recoveries the run must report (an extended regex, e.g. "[12]").
set -u
mpirun=$1 heat=$2 np=$3 steps=$4 every=$5 kills=$6 nfail=$7
shift 8
run=$(dirname "$0")/../../e2e/mpi/run_mpi.sh
ref=$("$run" "$mpirun" 0 "BIT-IDENTICAL" -- -n "$np" "$@" "$heat" "$steps" "$every" -) || { echo "$ref"; echo "heat_compare: FAIL: reference run"; exit 1; }
out=$("$run" "$mpirun" 0 " $nfail recover(y|ies), .*BIT-IDENTICAL" -- -n "$np" "$@" "$heat" "$steps" "$every" "$kills")
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "heat_compare: FAIL: run with kills $kills"; exit 1; }
a=$(printf '%s\n' "$ref" | grep -o 'checksum [0-9a-f]*')
b=$(printf '%s\n' "$out" | grep -o 'checksum [0-9a-f]*')
echo "failure-free: $a; with kills $kills: $b"
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "heat_compare: FAIL: checksums differ"; exit 1; }
echo "heat_compare: PASS"
