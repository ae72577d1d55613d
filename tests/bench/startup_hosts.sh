#!/bin/bash
# tests/bench/startup_hosts.sh — start-up of `mpirun -n N ./hello` on one namespace host next to
# the same job spread over 3 namespace hosts (issue 17 item 1: at most 2x one host), in one run.
#
# Both launches run inside host 1 of a fresh 3-host harness (tests/netns/hosts.sh): the one-host
# job with `--host HOST1:N`, the three-host job with the harness's hostfile, `--map-by node` and
# its ssh-like launcher-exec (what a cluster's ssh costs is not included: the namespace
# launcher is nsenter). Rounds alternate the order; each figure is the wall time of a whole
# launch. Prints the medians and their ratio.
#
# usage: tests/bench/startup_hosts.sh [--rounds K] [--np N] [--build DIR]    (needs root)
# Not a test: ctest never runs it.
set -euo pipefail
rounds=9 np=6
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
build=${FTMPI_BUILD:-$here/../../build}
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds K] [--np N] [--build DIR]" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd)
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$np" =~ ^[1-9][0-9]*$ ]] || { echo "$0: --rounds and --np take positive integers" >&2; exit 2; }
hello=$build/tests/bench/startup_hello
mkdir -p "$(dirname "$hello")"
"$build/bin/mpicc" -O2 -o "$hello" "$here/hello.c"

export FTNS
FTNS=$(bash "$here/../netns/hosts.sh" up 3 "$np")
trap 'bash "$here/../netns/hosts.sh" down' EXIT
h1=$(awk 'NR == 1 { print $1 }' "$FTNS/hosts")

# One launch inside host 1; prints its wall time in ms.
launch() {
  local t0 t1
  t0=$(date +%s%N)
  bash "$here/../netns/hosts.sh" exec "$h1" "$build/bin/mpirun" "$@" --timeout 60 -n "$np" "$hello" >/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
one_host() { launch --host "$h1:$np"; }
three_hosts() { launch --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node; }

one_host >/dev/null; three_hosts >/dev/null  # warm the page cache
a=() b=()
for ((r = 0; r < rounds; r++)); do
  if ((r % 2 == 0)); then a+=("$(one_host)"); b+=("$(three_hosts)")
  else b+=("$(three_hosts)"); a+=("$(one_host)"); fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m1=$(median "${a[@]}") m3=$(median "${b[@]}")
echo "start-up of -n $np hello, $rounds rounds (ms): one host: median $m1 [${a[*]}]"
echo "                                     three hosts: median $m3 [${b[*]}]"
awk -v a="$m1" -v b="$m3" 'BEGIN { printf "three hosts / one host: %.2fx (target <= 2.0x)\n", b / a }'
