#!/usr/bin/env bash
# Runs a command with TMPDIR set to a new empty directory and fails if anything is left in it
# afterwards: the daemons' run directories (ftmpi-$UID/run-*), the PIDDIRs of test scripts, any
# file of a job that was killed or failed. A clean run, failures and SIGKILLs included, leaves
# the directory empty (what the reliability checks look for under $TMPDIR).
#   no_tmp_leftovers.sh COMMAND [ARGS...]     exits with COMMAND's status, or 1 for leftovers
set -u
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TMPDIR=$T "$@"
rc=$?
left=$(find "$T" -mindepth 1 | head -20)
if [ -n "$left" ]; then
  printf 'no_tmp_leftovers: left in TMPDIR after "%s":\n%s\n' "$*" "$left"
  exit 1
fi
echo "no_tmp_leftovers: TMPDIR empty after the run"
exit $rc
