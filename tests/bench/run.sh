#!/bin/bash
# tests/bench/run.sh — ftmpi next to MPICH, Open MPI and libfabric's fi_pingpong, in one session.
#
# Builds pingpong.c and collbench.c with each implementation's own wrapper, runs ping-pong at
# 2 ranks and the collectives at 2/4/8 ranks, runs fi_pingpong on shm and tcp;ofi_rxm at the
# same sizes, and prints a table of medians with ratios (ours/other). Writes the raw results,
# logs and a markdown table for the README into the output directory.
#
# Every compiler and launcher is called by explicit path: /usr/bin/mpicc and /usr/bin/mpirun
# are Debian alternatives (usually Open MPI) and must never stand in for ftmpi's.
#
# usage: tests/bench/run.sh [--prefix P] [--out DIR] [--reps R] [--target S] [--quick]
#                           [--rounds K] [--np "2 4 8"] [--impl "ftmpi mpich openmpi"] [--no-fi]
#                           [--cases LIST] [--c2-cases LIST] [--pp-rounds K] [--fast-ns N]
#   --prefix P   an installed ftmpi, used as it is (also FTMPI_PREFIX). Default: the build
#                tree (FTMPI_BUILD, default build/) is installed, or refreshed, into
#                <build>/_install first, so the numbers are for the current code.
#   --rounds K   run every implementation K times, taking turns (ftmpi, MPICH, Open MPI, then
#                again), and take each ratio per round: this machine's speed drifts by 2x over
#                minutes, so figures taken minutes apart do not compare. Tables show medians
#                over rounds, ratios are medians of per-round ratios (each round listed). (3)
#   --pp-rounds K  ping-pong alone: K short runs per implementation (3 repetitions each),
#                taking turns, so that every implementation samples the VM's placement modes
#                alike (below). (9; --quick: 1)
#   --fast-ns N  a run is in the fast mode when cpu_pair's fastest window was under N ns both
#                before and after it, slow when both were N or more, mixed otherwise; busy
#                when either probe's median window took 10 N or more (other work held the
#                CPUs). (100: this VM's modes are ~55 and ~255 ns)
#   --cases LIST only these collective cases, no ping-pong: collbench's -c list, names with
#                an optional :bytes, comma-separated ("alltoall:8,barrier,bcast:8"); a blocking
#                case at a size collbench has no case for runs at that size, and alltoallv only
#                when named ("alltoall:64,alltoall:65536,alltoallv:1024"): those rows get a
#                table of their own
#   --c2-cases LIST  the 2-rank placement-mode runs (below) of these cases instead of the
#                blocking small ones; with --cases too, they run anyway (tests/bench/nbc_bench.sh)
#   --quick      fewer/shorter repetitions, one round, for trying the script
#   --report DIR only re-render the tables from DIR/results.tsv of an earlier run
# Placement modes: on a virtual machine the two vCPUs the ranks run on are sometimes close on
# the host (shared caches) and sometimes far apart, and every implementation's small-message
# latency follows (2-vCPU EPYC VM: ~0.1 or ~0.34 µs at 8 B, for ftmpi and Open MPI alike). So
# every ping-pong run is bracketed by tests/bench/cpu_pair.c (a cache line bounced between
# CPUs 0 and 1, no MPI), and the report gives each implementation's split of runs between the
# modes and the ratios of runs that were in the same mode. The small collectives at 2 ranks
# (one exchange: latency-bound the same way) get --pp-rounds short runs of their own, bracketed
# alike, and a table by mode (their rows in the main table stay, from the --rounds runs).
# Not a test: ctest never runs it. Environment FTMPI_PROVIDER is forwarded to ftmpi's ranks
# and picks which fi_pingpong provider the ftmpi ratio is taken against (default shm).
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bench_src=$root/tests/bench
build=${FTMPI_BUILD:-$root/build}
# Our own prefix (build/_install) is refreshed from build/ before running; a prefix given by
# FTMPI_PREFIX or --prefix is used as it is.
prefix=${FTMPI_PREFIX:-$build/_install}
own_prefix=yes
[ -z "${FTMPI_PREFIX:-}" ] || own_prefix=no
out=""
reps=9 target=0.05 fi_reps=5 fi_scale=1 rounds=3
pp_rounds=9 pp_reps=3 fast_ns=100
nps="2 4 8"
impls="ftmpi mpich openmpi"
run_fi=yes
report_only=no
cases=""
c2_cases="barrier,bcast:8,reduce:8,allreduce:8,allgather:8,alltoall:8"
c2_given=no
run_timeout=${BENCH_TIMEOUT:-300}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$(readlink -f "$2") own_prefix=no; shift ;;
    --out) out=$2; shift ;;
    --reps) reps=$2; shift ;;
    --target) target=$2; shift ;;
    --quick) reps=5 target=0.02 fi_reps=1 fi_scale=4 rounds=1 pp_rounds=1 ;;
    --rounds) rounds=$2; shift ;;
    --pp-rounds) pp_rounds=$2; shift ;;
    --fast-ns) fast_ns=$2; shift ;;
    --np) nps=$2; shift ;;
    --impl) impls=$2; shift ;;
    --no-fi) run_fi=no ;;
    --cases) cases=$2; shift ;;
    --c2-cases) c2_cases=$2 c2_given=yes; shift ;;
    --report) out=$2 report_only=yes; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

out=${out:-$(mktemp -d /tmp/ftmpi-bench.XXXXXX)}
mkdir -p "$out/bin" "$out/logs"
results=$out/results.tsv   # impl  test  bytes  np  median_us  MBps  round
modes=$out/pp_modes.tsv    # impl round  cpu_pair min,median ns before  after (the report classifies)
# 2-rank small collectives depend on the placement as much as the ping-pong, so they get the
# same treatment: short runs bracketed by the probe, results and modes in files of their own.
c2_results=$out/c2_results.tsv c2_modes=$out/c2_modes.tsv
if [ "$report_only" = no ]; then : >"$results"; : >"$modes"; : >"$c2_results"; : >"$c2_modes"; fi
log() { echo "[bench] $*" >&2; }

# ---------------------------------------------------------------- implementations
mpicc_of() {
  case $1 in
    ftmpi) echo "$prefix/bin/mpicc" ;;
    mpich) echo /usr/bin/mpicc.mpich ;;
    openmpi) echo /usr/bin/mpicc.openmpi ;;
  esac
}

# launch IMPL NP PROGRAM ARGS... — the implementation's own launcher, by explicit path.
launch() {
  local impl=$1 np=$2; shift 2
  case $impl in
    ftmpi)
      local fwd=()
      [ -n "${FTMPI_PROVIDER:-}" ] && fwd=(-x FTMPI_PROVIDER)
      timeout "$run_timeout" "$prefix/bin/mpirun" "${fwd[@]}" -n "$np" "$@" ;;
    mpich) timeout "$run_timeout" /usr/bin/mpirun.mpich -n "$np" "$@" ;;
    openmpi)
      # Shared memory (vader) and self only: the figures compare shared-memory paths.
      timeout "$run_timeout" /usr/bin/mpirun.openmpi --allow-run-as-root --oversubscribe \
        --mca btl self,vader -n "$np" "$@" ;;
  esac
}

# Install (or refresh: cmake --install copies only what changed) build/ into our default
# prefix, so a stale install never produces the numbers.
ensure_ftmpi() {
  if [ "$own_prefix" = yes ] && [ -f "$build/CMakeCache.txt" ]; then
    log "installing $build into $prefix"
    cmake --install "$build" --prefix "$prefix" >"$out/logs/ftmpi-install.log" 2>&1 ||
      log "ftmpi: install failed (see $out/logs/ftmpi-install.log)"
  fi
  [ -x "$prefix/bin/mpicc" ] && return 0
  log "ftmpi: no installed mpicc under $prefix; its column will say n/a"
  return 1
}

build_impl() { # IMPL -> 0 when at least one program built (a partial library still gets numbers)
  local impl=$1 cc built=1
  cc=$(mpicc_of "$impl")
  [ -x "$cc" ] || { log "$impl: $cc not installed, skipped"; return 1; }
  for prog in pingpong collbench; do
    if "$cc" -O2 -std=c99 -Werror=implicit-function-declaration -o "$out/bin/$prog.$impl" \
        "$bench_src/$prog.c" >"$out/logs/$impl-build-$prog.log" 2>&1; then
      built=0
    else
      log "$impl: building $prog failed (see $out/logs/$impl-build-$prog.log)"
    fi
  done
  return $built
}

# run_prog IMPL NP PROG ROUND [REPS [CASES [RESULTS [TAG]]]] — append its BENCH lines to the
# results; failure leaves n/a cells.
run_prog() {
  local impl=$1 np=$2 prog=$3 round=$4 nreps=${5:-$reps} only=${6:-$cases} into=${7:-$results} logf
  logf=$out/logs/$impl-$prog-np$np-r$round${8:-}.log
  [ -x "$out/bin/$prog.$impl" ] || return 0
  log "round $round: $impl: $prog at $np ranks${8:+ ($8)}"
  local rc=0 sel=()
  [ "$prog" = collbench ] && [ -n "$only" ] && sel=(-c "$only")
  launch "$impl" "$np" "$out/bin/$prog.$impl" -r "$nreps" -t "$target" "${sel[@]}" >"$logf" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || log "$impl: $prog at $np ranks failed (exit $rc; see $logf)"
  # Keep whatever completed before a failure.
  awk -v impl="$impl" -v round="$round" '$1 == "BENCH" {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", impl, f["test"], f["bytes"], f["np"], f["median_us"], f["MBps"], round
    }' "$logf" >>"$into"
}

# cpu_pair's fastest and median window as "min,median" (ns), or "nan,nan" when it failed.
probe_placement() {
  local v
  v=$("$out/bin/cpu_pair" 0 1 0.2 2>/dev/null | sed -n 's/.* ns=\([^ ]*\) min_ns=\([^ ]*\).*/\2,\1/p') || true
  echo "${v:-nan,nan}"
}

# pingpong_run IMPL ROUND — one ping-pong run between two placement probes.
pingpong_run() {
  local impl=$1 round=$2 before after
  [ -x "$out/bin/pingpong.$impl" ] || return 0
  before=$(probe_placement)
  run_prog "$impl" 2 pingpong "$round" "$pp_reps"
  after=$(probe_placement)
  printf '%s\t%s\t%s\t%s\n' "$impl" "$round" "$before" "$after" >>"$modes"
}

# coll2_run IMPL ROUND — one short run of the small collectives at 2 ranks between two probes.
coll2_run() {
  local impl=$1 round=$2 before after
  [ -x "$out/bin/collbench.$impl" ] || return 0
  before=$(probe_placement)
  run_prog "$impl" 2 collbench "$round" "$pp_reps" "$c2_cases" "$c2_results" -c2
  after=$(probe_placement)
  printf '%s\t%s\t%s\t%s\n' "$impl" "$round" "$before" "$after" >>"$c2_modes"
}

# ---------------------------------------------------------------- fi_pingpong
fi_port=$((40000 + RANDOM % 20000))

# fi_pingpong prints one mean per run, so several short runs and their median stand in for
# our repetitions: a scheduling hiccup then spoils one run, not the figure.
fi_iters() { # size -> iteration count (tens of milliseconds per run)
  local n
  case $1 in
    0|8|1024) n=10000 ;; 65536) n=2000 ;; 1048576) n=200 ;; *) n=20 ;;
  esac
  echo $((n / fi_scale))
}

# fi_once PROVIDER SIZE PORT -> "usec MBps" of one client/server run on localhost
fi_once() {
  local prov=$1 size=$2 port=$3 iters srv out_c
  iters=$(fi_iters "$size")
  timeout 120 fi_pingpong -p "$prov" -e rdm -S "$size" -I "$iters" -B "$port" \
    >"$out/logs/fi-server.log" 2>&1 &
  srv=$!
  # The client fails fast while the server is not listening yet; retry briefly.
  for _ in $(seq 50); do
    if out_c=$(timeout 120 fi_pingpong -p "$prov" -e rdm -S "$size" -I "$iters" -P "$port" \
        localhost 2>&1); then
      break
    fi
    out_c=""
    kill -0 "$srv" 2>/dev/null || break
    sleep 0.1
  done
  wait "$srv" 2>/dev/null || true
  [ -n "$out_c" ] || return 1
  echo "$out_c" >>"$out/logs/fi-client.log"
  # Columns: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
  echo "$out_c" | awk 'NR == 2 { print $7, $6 }'
}

fi_bench() { # PROVIDER LABEL
  local prov=$1 label=$2 size vals v med us mbps
  for size in 0 8 1024 65536 1048576 16777216; do
    vals=()
    for _ in $(seq "$fi_reps"); do
      # A fresh control port per run (chosen here: fi_once runs in a subshell).
      fi_port=$((fi_port + 1))
      if v=$(fi_once "$prov" "$size" "$fi_port"); then vals+=("$v"); fi
    done
    if [ ${#vals[@]} -eq 0 ]; then
      log "fi_pingpong -p '$prov' failed at $size B"
      continue
    fi
    med=$(printf '%s\n' "${vals[@]}" | sort -g | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }')
    read -r us mbps <<<"$med"
    printf '%s\tpingpong\t%s\t2\t%s\t%s\t1\n' "$label" "$size" "$us" "$mbps" >>"$results"
  done
}

# ---------------------------------------------------------------- run everything
run_all() {
  local impl np round ready=""
  for impl in $impls; do
    if [ "$impl" = ftmpi ] && ! ensure_ftmpi; then continue; fi
    build_impl "$impl" && ready="$ready $impl"
  done
  # Implementations take turns at each size, so each round's ratios compare runs made within
  # a minute or two of each other; every other round in reverse order, so a drift of the
  # machine's speed does not always favour the same one.
  cc -O2 -std=c11 -pthread -o "$out/bin/cpu_pair" "$bench_src/cpu_pair.c" >"$out/logs/cpu_pair-build.log" 2>&1 ||
    log "cpu_pair did not build (see $out/logs/cpu_pair-build.log): ping-pong runs get no mode"
  local order reversed
  reversed=$(echo $ready | tr ' ' '\n' | tac | tr '\n' ' ')
  # Ping-pong: many short runs in turns, each between two placement probes (see the top).
  [ -n "$cases" ] || for round in $(seq "$pp_rounds"); do
    order=$ready
    [ $((round % 2)) -eq 0 ] && order=$reversed
    for impl in $order; do pingpong_run "$impl" "$round"; done
  done
  # The same for the small collectives at 2 ranks (only when 2 is among the rank counts).
  local c2=no
  case " $nps " in *" 2 "*) [ -n "$cases" ] && [ "$c2_given" = no ] || c2=yes ;; esac
  [ "$c2" = no ] || for round in $(seq "$pp_rounds"); do
    order=$ready
    [ $((round % 2)) -eq 0 ] && order=$reversed
    for impl in $order; do coll2_run "$impl" "$round"; done
  done
  for round in $(seq "$rounds"); do
    order=$ready
    [ $((round % 2)) -eq 0 ] && order=$reversed
    for np in $nps; do
      for impl in $order; do run_prog "$impl" "$np" collbench "$round"; done
    done
  done
  if [ "$run_fi" = yes ] && command -v fi_pingpong >/dev/null; then
    log "fi_pingpong shm"; fi_bench shm fi-shm
    log "fi_pingpong tcp;ofi_rxm"; fi_bench "tcp;ofi_rxm" fi-tcp
  fi
}

write_header() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  # Busy-polling benchmarks on shared cores measure the neighbours as much as the code.
  awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 4) }' &&
    log "warning: load average $load; other work on the machine will distort every figure"
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(uname -r)"
  echo "Versions: libfabric $(fi_info --version 2>/dev/null | sed -n 's/^libfabric: //p')" \
       "| MPICH $( (/usr/bin/mpichversion 2>/dev/null || true) | sed -n 's/^MPICH Version:[[:space:]]*//p')" \
       "| Open MPI $( (/usr/bin/mpirun.openmpi --version 2>/dev/null || true) | sed -n '1s/.* //p')"
  echo "Command: bash tests/bench/run.sh --reps $reps --target $target --rounds $rounds" \
       "--pp-rounds $pp_rounds --fast-ns $fast_ns${cases:+ --cases $cases --no-fi} (collectives: medians of $reps repetitions per" \
       "run, $rounds rounds; ping-pong: $pp_reps per run, $pp_rounds rounds; implementations taking turns)"
  echo "Load average at start: $load"
}

if [ "$report_only" = no ]; then
  write_header >"$out/header.txt"
  run_all
fi

# ---------------------------------------------------------------- report
fi_ref=fi-shm
case "${FTMPI_PROVIDER:-shm}" in tcp*) fi_ref=fi-tcp ;; esac

# Tables as markdown; latency rows in microseconds (lower is better), bandwidth rows in MB/s
# (10^6 B/s, higher is better). A figure is the median over rounds; a ratio (ours/other) is the
# median of the per-round ratios, which the last column lists for ftmpi/best.
awk -F'\t' -v fi_ref="$fi_ref" -v nps="$nps" '
  function human(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
  function fmt(v) { return v == "" ? "n/a" : v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
  function fmtr(v) { return v == "" ? "n/a" : sprintf("%.2f", v) }
  # median of the n values in a[1..n] (sorted in place); "" when n == 0
  function median(a, n,    i, j, t) {
    if (n == 0) return ""
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  # figure of impl at test/bytes/np: median over rounds (bandwidth when bw)
  function fig(impl, t, b, np, bw,    r, n, v) {
    n = 0
    for (r = 1; r <= maxr; r++) {
      k = impl SUBSEP t SUBSEP b SUBSEP np SUBSEP r
      if (k in us) v[++n] = bw ? mbps[k] : us[k]
    }
    return median(v, n)
  }
  # per-round value of impl, "" when missing; for "best" the faster of MPICH and Open MPI
  function at(impl, t, b, np, r, bw,    k, x, y) {
    if (impl == "best") {
      x = at("mpich", t, b, np, r, bw); y = at("openmpi", t, b, np, r, bw)
      if (x == "") return y
      if (y == "") return x
      return bw ? (x > y ? x : y) : (x < y ? x : y)
    }
    k = impl SUBSEP t SUBSEP b SUBSEP np SUBSEP r
    return (k in us) ? (bw ? mbps[k] : us[k]) : ""
  }
  # median over rounds of ftmpi/other; *list gets the per-round ratios
  function pratio(other, t, b, np, bw,    r, n, a, o, v, txt) {
    n = 0; txt = ""
    for (r = 1; r <= maxr; r++) {
      a = at("ftmpi", t, b, np, r, bw); o = at(other, t, b, np, r, bw)
      if (a == "" || o == "" || o == 0) continue
      v[++n] = a / o; txt = txt (txt == "" ? "" : " ") sprintf("%.2f", a / o)
    }
    list = txt
    return median(v, n)
  }
  # Whether "name:bytes" a sorts after b (name, then size).
  function op_after(a, b,    x, y) {
    split(a, x, ":"); split(b, y, ":")
    return x[1] > y[1] || (x[1] == y[1] && x[2] + 0 > y[2] + 0)
  }
  # One table of collectives (ops "name:bytes"); rows nobody measured (--cases) are left out,
  # and the whole table when none was.
  function coll_table(title, note, oplist,    nc, ops, m, np, p, i, o, a, b, c, rb, rc, rbest, size, rows) {
    nc = split(oplist, ops, " ")
    m = split(nps, np, " ")
    rows = ""
    for (p = 1; p <= m; p++) for (i = 1; i <= nc; i++) {
      split(ops[i], o, ":")
      a = fig("ftmpi", o[1], o[2], np[p], 0)
      b = fig("mpich", o[1], o[2], np[p], 0)
      c = fig("openmpi", o[1], o[2], np[p], 0)
      if (a == "" && b == "" && c == "") continue
      rb = pratio("mpich", o[1], o[2], np[p], 0)
      rc = pratio("openmpi", o[1], o[2], np[p], 0)
      rbest = pratio("best", o[1], o[2], np[p], 0)
      size = o[1] ~ /barrier$/ ? "-" : (o[1] ~ /alltoallv?$/ ? human(o[2]) "/peer" : o[1] ~ /allgather$/ ? human(o[2]) "/rank" : human(o[2]))
      rows = rows sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o[1], size, np[p], fmt(a), fmt(b), fmt(c),
        fmtr(rb), fmtr(rc), fmtr(rbest), list)
    }
    if (rows == "") return
    print ""
    print "**" title "** (" note "µs per operation, slowest rank, lower is better; best = faster of MPICH and Open MPI in the same round)"
    print ""
    print "| operation | size | ranks | ftmpi | MPICH | Open MPI | ftmpi/MPICH | ftmpi/Open MPI | ftmpi/best | per round |"
    print "|---|---|--:|--:|--:|--:|--:|--:|--:|---|"
    printf "%s", rows
  }
  {
    r = NF >= 7 ? $7 : 1
    if (r > maxr) maxr = r
    key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP r
    us[key] = $5; mbps[key] = $6
  }
  $2 == "pingpong" { have_pp = 1 }
  $2 != "pingpong" { measured[$2 ":" $3] = 1 }
  END {
    if (have_pp) {
      print "**Ping-pong, 2 ranks** (latency: half round trip in µs, lower is better; bandwidth: MB/s, higher is better)"
      print ""
      print "| metric | size | ftmpi | fi_pingpong shm | fi_pingpong tcp;ofi_rxm | MPICH | Open MPI | ftmpi/fi_pingpong | ftmpi/MPICH | ftmpi/Open MPI |"
      print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
      n = split("0 8 64 512 1024 4096 16384 65536 1048576 16777216", sizes, " ")
      split("ftmpi fi-shm fi-tcp mpich openmpi", impl, " ")
      for (i = 1; i <= n; i++) {
        s = sizes[i]; bw = s >= 1048576
        row = sprintf("| %s | %s", bw ? "bandwidth MB/s" : "latency µs", human(s))
        for (j = 1; j <= 5; j++) {
          v[j] = fig(impl[j], "pingpong", s, 2, bw)
          row = row " | " fmt(v[j])
        }
        # fi_pingpong runs once: against it, the median figure
        vref = fi_ref == "fi-tcp" ? v[3] : v[2]
        rfi = (v[1] == "" || vref == "" || vref == 0) ? "" : v[1] / vref
        print row " | " fmtr(rfi) " | " fmtr(pratio("mpich", "pingpong", s, 2, bw)) " | " fmtr(pratio("openmpi", "pingpong", s, 2, bw)) " |"
      }
    }
    main_ops = "barrier:0 bcast:8 reduce:8 allreduce:8 allgather:8 alltoall:8 bcast:1048576 allreduce:1048576 alltoall:1024"
    nbc_ops = "ibarrier:0 ibcast:8 ireduce:8 iallreduce:8 iallgather:8 ialltoall:8 ibcast:65536 ireduce:65536 iallreduce:65536 iallgather:65536 ialltoall:65536"
    coll_table("Collectives", "", main_ops)
    coll_table("Nonblocking collectives", "I<call> + MPI_Wait, tests/bench/nbc_bench.sh; ", nbc_ops)
    # What --cases named beyond those (alltoallv, a sweep of sizes: "alltoall:64,alltoall:4096"),
    # by name, then size.
    nk = 0
    for (k in measured) if (index(" " main_ops " " nbc_ops " ", " " k " ") == 0) extra[++nk] = k
    for (i = 2; i <= nk; i++) for (j = i; j > 1 && op_after(extra[j - 1], extra[j]); j--) {
      t = extra[j]; extra[j] = extra[j - 1]; extra[j - 1] = t
    }
    others = ""
    for (i = 1; i <= nk; i++) others = others (i > 1 ? " " : "") extra[i]
    if (others != "") coll_table("Collectives at other sizes", "run.sh --cases; ", others)
  }' "$results" >"$out/tables.md"

# Runs split by placement mode (the ping-pong's and the 2-rank small collectives'): how many
# runs of each implementation fell in each mode, and the figures of the runs of one mode only,
# so that the ratios compare like with like whatever the mode split.
# mode_report KIND MODES RESULTS — KIND pingpong (rows: sizes) or coll2 (rows: operations).
mode_report() {
  awk -F'\t' -v fast_ns="$fast_ns" -v kind="$1" '
  function fmt(v) { return v == "" ? "n/a" : v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.3f", v) }
  function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
  function median(a, n,    i, j, t) {
    if (n == 0) return ""
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  # median time of impl for row (test SUBSEP bytes) over its runs in mode m
  function by_mode(impl, row, m,    r, n, v, k) {
    n = 0
    for (r = 1; r <= maxr; r++) {
      k = impl SUBSEP row SUBSEP r
      if (mode[impl SUBSEP r] == m && k in us) v[++n] = us[k]
    }
    return median(v, n)
  }
  # A probe "min,median": the placement by its fastest window, busy when its median window
  # was slow by far (other work held the CPUs); a run whose two probes disagree is mixed.
  function class(p,    v) {
    split(p, v, ",")
    if (v[1] == "nan" || v[1] == "") return "none"
    if (v[2] + 0 >= 10 * fast_ns) return "busy"
    return v[1] + 0 < fast_ns ? "fast" : "slow"
  }
  FNR == NR { cb = class($3); ca = class($4)
              m = (cb == "busy" || ca == "busy") ? "busy" : (cb == ca && cb != "none") ? cb : "mixed"
              k = $1 SUBSEP $2; mode[k] = m; count[$1 SUBSEP m]++; runs[$1]++
              split($3, pv, ","); if (pv[1] != "nan" && pv[1] != "") { np[$1]++; probe[$1, np[$1]] = pv[1] }
              if ($2 > maxr) maxr = $2; next }
  $4 == 2 && (kind == "coll2") == ($2 != "pingpong") { us[$1 SUBSEP $2 SUBSEP $3 SUBSEP $7] = $5 }
  END {
    what = kind == "pingpong" ? "ping-pong runs" : "2-rank small-collective runs"
    print "**Placement modes of the " what "** (tests/bench/cpu_pair.c: a cache line bounced between CPUs 0 and 1 right before and right after each run; fast = its fastest window under " fast_ns " ns both times, slow = both not, busy = a probe whose median window took " 10 * fast_ns " ns or more: other work held the CPUs)"
    print ""
    print "| implementation | runs | fast | slow | busy | mixed | cpu_pair fastest window before a run, ns (median over runs) |"
    print "|---|--:|--:|--:|--:|--:|--:|"
    split("ftmpi mpich openmpi", impl, " "); split("ftmpi MPICH Open MPI", label, " ")
    label[3] = "Open MPI"
    for (i = 1; i <= 3; i++) {
      x = impl[i]
      if (!(x in runs)) continue
      n = np[x]; delete v; for (j = 1; j <= n; j++) v[j] = probe[x, j]
      printf "| %s | %d | %d | %d | %d | %d | %s |\n", label[i], runs[x], count[x SUBSEP "fast"], count[x SUBSEP "slow"],
        count[x SUBSEP "busy"], count[x SUBSEP "mixed"], fmt(median(v, n))
    }
    print ""
    if (kind == "pingpong") {
      print "**Ping-pong by placement mode** (half round trip in µs: median over the runs of that mode; ratios of those medians)"
      print ""
      print "| size | mode | ftmpi | MPICH | Open MPI | ftmpi/MPICH | ftmpi/Open MPI |"
      print "|---|---|--:|--:|--:|--:|--:|"
      nr = split("pingpong:0 pingpong:8 pingpong:64 pingpong:512 pingpong:1024 pingpong:4096 pingpong:16384 pingpong:65536", rows, " ")
    } else {
      print "**2-rank small collectives by placement mode** (µs per operation, slowest rank: median over the runs of that mode; best = the faster of MPICH and Open MPI in that mode)"
      print ""
      print "| operation | mode | ftmpi | MPICH | Open MPI | ftmpi/MPICH | ftmpi/Open MPI | ftmpi/best |"
      print "|---|---|--:|--:|--:|--:|--:|--:|"
      nr = split("barrier:0 bcast:8 reduce:8 allreduce:8 allgather:8 alltoall:8 ibarrier:0 ibcast:8 ireduce:8 iallreduce:8 iallgather:8 ialltoall:8", rows, " ")
    }
    split("fast slow", modes, " ")
    for (mi = 1; mi <= 2; mi++) for (i = 1; i <= nr; i++) {
      split(rows[i], o, ":"); row = o[1] SUBSEP o[2]; m = modes[mi]
      a = by_mode("ftmpi", row, m); b = by_mode("mpich", row, m); c = by_mode("openmpi", row, m)
      if (a == "" && b == "" && c == "") continue
      s = o[2] + 0
      size = (s >= 1024) ? s / 1024 " KiB" : s " B"
      best = (b == "") ? c : (c == "" || b < c) ? b : c
      if (kind == "pingpong")
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", size, m, fmt(a), fmt(b), fmt(c), ratio(a, b), ratio(a, c)
      else
        printf "| %s %s | %s | %s | %s | %s | %s | %s | %s |\n", o[1], o[1] ~ /barrier$/ ? "" : size, m, fmt(a), fmt(b), fmt(c),
          ratio(a, b), ratio(a, c), ratio(a, best)
    }
  }' "$2" "$3"
}
: >"$out/modes.md"
[ -s "$modes" ] && mode_report pingpong "$modes" "$results" >>"$out/modes.md"
[ -s "$c2_modes" ] && { echo; mode_report coll2 "$c2_modes" "$c2_results"; } >>"$out/modes.md"

{ cat "$out/header.txt"; echo; cat "$out/tables.md"; echo; cat "$out/modes.md"; } >"$out/bench.md"

# Plain-text view of the same tables for the terminal.
cat "$out/header.txt"
echo
# Titles print as they are; each block of table rows is aligned with column(1).
awk '/^\|---/ { next }
     /^\|/ { sub(/^\| /, ""); sub(/ \|$/, ""); print | "column -t -s \"|\" -o \"|\""; next }
     { close("column -t -s \"|\" -o \"|\""); gsub(/\*\*/, ""); print; fflush() }
     END { close("column -t -s \"|\" -o \"|\"") }' "$out/tables.md" "$out/modes.md"
echo
echo "raw results: $results"
echo "markdown for the README: $out/bench.md"
