#!/bin/bash
# tests/bench/net_pingpong.sh — latency and bandwidth between two namespace hosts
# (tests/netns/hosts.sh): raw `fi_pingpong -p tcp -e rdm -m tagged` (libfabric-bin; server on
# host 1, client on host 2) next to ftmpi, in one session. Rounds interleave the programs
# (the order alternates), because this shared machine's speed drifts over minutes.
#
# ftmpi is measured at the transport level (build/bin/transport_net_pingpong: the Endpoint an
# MPI process on two hosts opens, FTMPI_NHOSTS=2, FTMPI_NET_ADDR = the host's address) and,
# with --mpi, as an MPI program (tests/bench/pingpong.c) started by `mpirun --hostfile`
# across the two hosts (needs mpirun's multi-host launch).
#
# Prints per size the median usec/xfer (half a round trip) and MB/s of each, and the targets
# of issue 15: 8 B latency at most 1.2x fi_pingpong's, 1 MiB bandwidth at least 0.9x.
#
# usage: tests/bench/net_pingpong.sh [--rounds K] [--iters N] [--build DIR] [--mpi] [--check]
#   --iters N   8 B round trips per run (default 20000); 1 MiB runs N/10 + 1.
#   --check     exit 1 when a target is missed (default: print only).
# Needs root (ip netns). Not a test: ctest runs it once, briefly, as bench.net_pingpong.smoke.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
build=${FTMPI_BUILD:-$root/build}
rounds=5
iters=20000
mpi=0
check=0
usage="usage: tests/bench/net_pingpong.sh [--rounds K] [--iters N] [--build DIR] [--mpi] [--check]"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:-}; shift ;;
    --iters) iters=${2:-}; shift ;;
    --build) build=$(readlink -f "${2:-}"); shift ;;
    --mpi) mpi=1 ;;
    --check) check=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "net_pingpong.sh: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
for v in "$rounds" "$iters"; do
  case "$v" in ''|0|*[!0-9]*) echo "net_pingpong.sh: --rounds and --iters need a number > 0" >&2
    echo "$usage" >&2; exit 2 ;; esac
done
command -v fi_pingpong >/dev/null || { echo "net_pingpong.sh: fi_pingpong missing (libfabric-bin)" >&2; exit 2; }
prog="$build/bin/transport_net_pingpong"
[ -x "$prog" ] || { echo "net_pingpong.sh: no $prog (build first)" >&2; exit 2; }

hosts="$root/tests/netns/hosts.sh"
FTNS=$(bash "$hosts" up 2 1)
export FTNS
trap 'bash "$hosts" down' EXIT
read -r h1 a1 < <(sed -n 1p "$FTNS/hosts")
read -r h2 a2 < <(sed -n 2p "$FTNS/hosts")
big_iters=$((iters / 10 + 1))
results="$FTNS/results"   # lines: PROGRAM SIZE USEC MBS
: > "$results"

# fi_pingpong SIZE ITERS: server on host 1, client on host 2; the client's last line is
# "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec".
run_fi() {
  local size=$1 n=$2 out
  bash "$hosts" exec "$h1" env FI_TCP_IFACE=eth0 timeout 300 \
    fi_pingpong -p tcp -e rdm -m tagged -I "$n" -S "$size" > "$FTNS/fi_server" 2>&1 &
  local srv=$!
  for _ in $(seq 1 50); do  # until the server's control port listens
    bash "$hosts" exec "$h1" ss -ltn 2>/dev/null | grep -q ':47592 ' && break
    sleep 0.1
  done
  out=$(bash "$hosts" exec "$h2" env FI_TCP_IFACE=eth0 timeout 300 \
    fi_pingpong -p tcp -e rdm -m tagged -I "$n" -S "$size" "$a1" 2>&1) || {
    echo "fi_pingpong failed: $out" >&2; exit 1; }
  wait $srv || true
  # (its bytes column says 1m for 1 MiB: take the last row under the header)
  echo "$out" | awk -v s="$size" 'seen && NF >= 8 { row = s " " $7 " " $6 } $1 == "bytes" { seen = 1 }
    END { if (row == "") exit 1; print "fi_pingpong", row }' >> "$results" || {
    echo "fi_pingpong printed no result: $out" >&2; exit 1; }
}

run_ftmpi() {
  local dir="$FTNS/ft$1"
  mkdir "$dir"
  bash "$hosts" exec "$h2" env FTMPI_NHOSTS=2 FTMPI_NET_ADDR="$a2" timeout 300 \
    "$prog" 1 "$dir" "$iters" 8 1048576 > "$dir/out1" 2>&1 &
  local peer=$!
  bash "$hosts" exec "$h1" env FTMPI_NHOSTS=2 FTMPI_NET_ADDR="$a1" timeout 300 \
    "$prog" 0 "$dir" "$iters" 8 1048576 > "$dir/out0" 2>&1 || {
    cat "$dir/out0" "$dir/out1" >&2; exit 1; }
  wait $peer || { cat "$dir/out1" >&2; exit 1; }
  awk '$1 ~ /^[0-9]+$/ { print "ftmpi", $1, $3, $4 }' "$dir/out0" >> "$results"
}

run_mpi() {
  local out
  # FTMPI_BIND=none: the namespace hosts share this machine's cores; bound by local rank, rank 0
  # of every host would sit on core 0 (fi_pingpong is not bound either). It reaches only the
  # daemon on host 1: the remote daemon's environment is clean, as over ssh.
  out=$(bash "$hosts" exec "$h1" env FTMPI_BIND=none "$build/bin/mpirun" --hostfile "$FTNS/hostfile" \
    --launcher-exec "$FTNS/ssh" --map-by node -n 2 --timeout 300 \
    "$FTNS/pingpong" -r 3 -t 0.1 2>&1) || { echo "mpirun failed: $out" >&2; exit 1; }
  # pingpong.c prints "BENCH ... bytes=B ... median_us=U ... MBps=M" lines; keep 8 B, 1 MiB.
  echo "$out" | awk '/^BENCH / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    if (f["bytes"] == 8 || f["bytes"] == 1048576) print "ftmpi_mpi", f["bytes"], f["median_us"], f["MBps"] }' >> "$results"
}

if [ "$mpi" = 1 ]; then
  "$build/bin/mpicc" -O2 "$root/tests/bench/pingpong.c" -o "$FTNS/pingpong"
fi
echo "hosts $h1 ($a1) and $h2 ($a2); $rounds rounds, $iters iterations (1 MiB: $big_iters)"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    run_fi 8 "$iters"; run_fi 1048576 "$big_iters"; run_ftmpi "$r"
    [ "$mpi" = 1 ] && run_mpi
  else
    [ "$mpi" = 1 ] && run_mpi
    run_ftmpi "$r"; run_fi 1048576 "$big_iters"; run_fi 8 "$iters"
  fi
  echo "round $r done"
done

# Medians per program and size, then the ratios against fi_pingpong.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v p="$1" -v s="$2" -v c="$3" '$1 == p && $2 == s { print $c }' "$results" | median; }
printf '%-12s %10s %12s %12s\n' program bytes usec/xfer MB/sec
for p in fi_pingpong ftmpi ftmpi_mpi; do
  for s in 8 1048576; do
    grep -q "^$p $s " "$results" || continue
    printf '%-12s %10s %12s %12s\n' "$p" "$s" "$(med "$p" "$s" 3)" "$(med "$p" "$s" 4)"
  done
done
# Every program that ran must have given both sizes every round (a parse that found nothing
# must not pass as "no number").
want=$((rounds * 2))
for p in fi_pingpong ftmpi $([ "$mpi" = 1 ] && echo ftmpi_mpi); do
  got=$(awk -v p="$p" '$1 == p && $3 + 0 > 0' "$results" | wc -l)
  [ "$got" = "$want" ] || { echo "net_pingpong.sh: $p gave $got results, want $want" >&2
    cat "$results" >&2; exit 1; }
done
status=0
for p in ftmpi ftmpi_mpi; do
  grep -q "^$p " "$results" || continue
  lat=$(awk -v a="$(med "$p" 8 3)" -v b="$(med fi_pingpong 8 3)" 'BEGIN { printf "%.2f", a / b }')
  bw=$(awk -v a="$(med "$p" 1048576 4)" -v b="$(med fi_pingpong 1048576 4)" 'BEGIN { printf "%.2f", a / b }')
  lat_ok=$(awk -v r="$lat" 'BEGIN { print (r + 0 == r && r <= 1.2) ? "meets" : "MISSES" }')
  bw_ok=$(awk -v r="$bw" 'BEGIN { print (r + 0 == r && r >= 0.9) ? "meets" : "MISSES" }')
  echo "$p: 8 B latency ${lat}x fi_pingpong's ($lat_ok <= 1.2x); 1 MiB bandwidth ${bw}x ($bw_ok >= 0.9x)"
  [ "$lat_ok$bw_ok" = meetsmeets ] || status=1
done
[ "$check" = 1 ] && exit $status
exit 0
