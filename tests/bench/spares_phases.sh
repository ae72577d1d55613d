#!/usr/bin/env bash
# Where a REBUILD repair's time goes, phase by phase (issue 17 item 5): runs ft_latency at NP
# ranks under --comm-mode rebuild with --spares SPARES, RUNS times, with FTMPI_DEBUG=1, and
# reads the library's time-stamped lines (CLOCK_MONOTONIC: one clock for every process of the
# machine, namespace hosts included). For each phase it prints, as the median over runs, when
# the FIRST and the LAST process reached it, in ms after the first survivor learned of the
# failure (its error return follows within microseconds):
#   detected        a survivor hears of the death (daemon report; on several hosts relayed by mpirun)
#   decided         the repair's agreement decided the failed set (the coordinator first)
#   spawn answered  the leader's PMIx spawn returned (a spare was handed the rank, or a process started)
#   new joins       the new process (spare or started) has the plan and looks up the addresses
#   hello sent      the new process inserted every address and says hello to each survivor
#   hello received  a survivor got the hello (the first message on a new connection across hosts)
#   welcomed        the new process got every survivor's welcome: MPI_Init returns
#   repaired        a survivor's MPI_COMM_WORLD is repaired
#   dup decided     MPI_Comm_dup's own agreement decided (its end on that process)
# Exit 1 unless every run repaired and logged every phase in causal order (one clock).
# With HOSTS > 1 (root: tests/netns/hosts.sh) the job runs on that many namespace hosts with
# --map-by node, as in spares.sh (victim rank NP-1 on another host than the spare).
# IDLE_MS in the environment (default 0): ft_latency's wait before the victim dies (spares.sh).
# Usage: tests/bench/spares_phases.sh [build-dir] [runs] [np] [hosts] [spares] [-- mpirun args...]
set -euo pipefail
build=$(readlink -f "${1:-build}")
runs=${2:-5}
np=${3:-8}
hosts=${4:-1}
spares=${5:-1}
shift $(( $# < 5 ? $# : 5 ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
prog=$build/bin/ftmpi-ft_latency
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target bench_ft_latency)" >&2; exit 1; }
run=("$build/bin/mpirun")
if [ "$hosts" -gt 1 ]; then
  here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
  export FTNS
  FTNS=$(bash "$here/../netns/hosts.sh" up "$hosts" 4)
  trap 'bash "$here/../netns/hosts.sh" down; rm -f "$log"' EXIT
  run=(bash "$here/../netns/hosts.sh" exec "$(awk 'NR == 1 {print $1}' "$FTNS/hosts")" "$build/bin/mpirun"
       --hostfile "$FTNS/hostfile" --launcher-exec "$FTNS/ssh" --map-by node)
else
  trap 'rm -f "$log"' EXIT
fi
log=$(mktemp /tmp/spares-phases.XXXXXX)
table=""
for i in $(seq "$runs"); do
  FTMPI_DEBUG=1 timeout 60 "${run[@]}" -n "$np" --comm-mode rebuild --spares "$spares" -x FTMPI_DEBUG \
    "${extra[@]}" "$prog" $((np - 1)) "${IDLE_MS:-0}" >"$log.out" 2>"$log" || true
  all=$(grep -o 'rebuild_all_ms [0-9.]*' "$log.out" | awk '{print $2}')
  rm -f "$log.out"
  [ -n "$all" ] || { echo "run $i failed" >&2; continue; }
  # One line per run: the first and last time (ms after t0) of every phase, then rebuild_all_ms.
  table+=$(awk -v np="$np" -v all="$all" '
    function see(k, t) { if (!(k in first) || t < first[k]) first[k] = t; if (!(k in last) || t > last[k]) last[k] = t }
    $1 == "ftmpi-debug" && $3 == "rank" && $4 >= 0 {
      t = $2; r = $4
      if (r < np && /failure: process [0-9]+ detected/) see("detected", t)
      else if (/agreement decided \([1-9]/) see("decided", t)
      else if (/rebuild: spawn of/) see("spawn", t)
      else if (/rebuild: join: plan/) see("joins", t)
      else if (/rebuild: join: addresses inserted/) see("hello_sent", t)
      else if (/rebuild: hello from the new/) see("hello_got", t)
      else if (/rebuild: join: welcomed/) see("welcomed", t)
      else if (/repaired \(REBUILD/) see("repaired", t)
      else if (/agreement decided \(0 failed\)/) see("dup", t)
    }
    END {
      t0 = first["detected"]; n = split("detected decided spawn joins hello_sent hello_got welcomed repaired dup", k, " ")
      for (i = 1; i <= n; i++) printf "%s %.2f %.2f ", k[i], (k[i] in first) ? 1e3 * (first[k[i]] - t0) : -1,
                                       (k[i] in last) ? 1e3 * (last[k[i]] - t0) : -1
      # Causal order, on one clock: a phase missing or out of order means the log lines or the
      # repair changed; the smoke test (bench.spares_phases.smoke) fails on it.
      ok = 1
      for (i = 1; i <= n; i++) if (!(k[i] in first)) ok = 0
      if (ok) ok = first["decided"] <= first["joins"] && first["joins"] <= first["hello_sent"] &&
                   first["hello_sent"] <= first["hello_got"] && last["hello_got"] <= last["welcomed"] &&
                   last["welcomed"] <= last["dup"]
      printf "all %s order %d\n", all, ok
    }' "$log")$'\n'
done
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { printf '%s' "$table" | awk -v k="$1" -v o="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + o)}' | median; }
echo "hosts: $hosts, ranks: $np, spares: $spares, runs: $(printf '%s' "$table" | grep -c . || true) (medians; ms after the first survivor heard of the failure)"
printf '| phase | first process | last process |\n|---|---|---|\n'
for k in detected decided spawn joins hello_sent hello_got welcomed repaired dup; do
  name=${k/_sent/ sent}; name=${name/_got/ received}; name=${name/spawn/spawn answered}
  name=${name/joins/new joins}; name=${name/dup/dup decided}
  printf '| %s | %s | %s |\n' "$name" "$(col "$k" 1)" "$(col "$k" 2)"
done
echo "rebuild_all_ms (first error return to every dup done), median: $(col all 1)"
good=$(printf '%s' "$table" | grep -c 'order 1$' || true)
[ "$good" -eq "$runs" ] || { echo "FAIL: $good of $runs runs logged every phase in causal order" >&2; exit 1; }
