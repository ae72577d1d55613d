#!/bin/bash
# The transport across two namespace hosts (tests/netns/hosts.sh), without mpirun:
#   net_hosts_test.sh BUILD_BIN_DIR [ROUNDS]
# Ranks 0 and 1 run on host 1, rank 2 on host 2, each with FTMPI_NHOSTS=2 and FTMPI_NET_ADDR =
# its host's address, as ftmpid sets them for a job on several hosts. Rank 2 ends by SIGKILL
# (the program's last phase); ranks 0 and 1 must pass. Needs root (ip netns).
set -euo pipefail
bin=${1:?usage: net_hosts_test.sh BUILD_BIN_DIR [ROUNDS]}
rounds=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
hosts="$here/../netns/hosts.sh"
prog="$bin/transport_net_hosts_test"
[ -x "$prog" ] || { echo "no $prog" >&2; exit 2; }

FTNS=$(bash "$hosts" up 2)
export FTNS
trap 'bash "$hosts" down' EXIT
read -r h1 a1 < <(sed -n 1p "$FTNS/hosts")
read -r h2 a2 < <(sed -n 2p "$FTNS/hosts")

run_on() {  # HOST ADDR RANK DIR
  bash "$hosts" exec "$1" env FTMPI_NHOSTS=2 FTMPI_NET_ADDR="$2" "$prog" "$3" "$4"
}

for round in $(seq 1 "$rounds"); do
  dir="$FTNS/round$round"
  mkdir "$dir"
  run_on "$h1" "$a1" 0 "$dir" > "$dir/out0" 2>&1 & p0=$!
  run_on "$h1" "$a1" 1 "$dir" > "$dir/out1" 2>&1 & p1=$!
  run_on "$h2" "$a2" 2 "$dir" > "$dir/out2" 2>&1 & p2=$!
  rc0=0; rc1=0; rc2=0
  wait $p0 || rc0=$?
  wait $p1 || rc1=$?
  wait $p2 || rc2=$?
  cat "$dir/out0"
  if [ $rc0 -ne 0 ] || [ $rc1 -ne 0 ] || [ $rc2 -ne 137 ]; then
    echo "round $round: exit codes $rc0 $rc1 $rc2 (want 0 0 137)" >&2
    for r in 0 1 2; do sed "s/^/[rank $r] /" "$dir/out$r" >&2; done
    exit 1
  fi
  echo "round $round: PASS"
done
