#!/bin/bash
# Builds the libFuzzer harnesses with clang (the project's build is gcc) and runs them with
# AddressSanitizer + UndefinedBehaviorSanitizer, starting from the kept corpus and fresh seeds.
#
#   bash tests/fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]     HARNESS: frame, auth (default both)
#
# SECONDS is per harness. Afterwards the run's corpus is merged (libFuzzer -merge=1: the smallest
# set of inputs with the same coverage) into BUILD_DIR/fuzz/merged/HARNESS; copy what is new into
# tests/fuzz/corpus/HARNESS to keep it (CI replays that folder: ctest -R fuzz.replay).
# Exit status: 0 no finding; 1 a crash/leak/timeout/oracle failure (its input is in
# BUILD_DIR/fuzz/artifacts, reproduce with BUILD_DIR/fuzz/HARNESS_fuzz FILE); 2 usage.
set -euo pipefail

usage() { echo "usage: bash tests/fuzz/run.sh BUILD_DIR SECONDS [frame|auth ...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
[[ $2 =~ ^[0-9]+$ ]] || usage
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
out=$(mkdir -p "$1/fuzz" && cd "$1/fuzz" && pwd)
seconds=$2
shift 2
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(frame auth)
for h in "${harnesses[@]}"; do
  [ -f "$root/tests/fuzz/${h}_harness.cpp" ] || usage
done

cxx=${FTMPI_FUZZ_CXX:-clang++-14}
san=address,undefined
flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all
       -I"$root/daemon/proto/include" -I"$root/knobs/include")
sources=("$root"/daemon/proto/src/*.cpp "$root/knobs/src/knobs.cpp")

# The protocol library, instrumented for coverage (fuzzer-no-link) and the sanitizers.
objs=()
mkdir -p "$out/obj"
for s in "${sources[@]}"; do
  o="$out/obj/$(basename "$s" .cpp).o"
  "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link,$san -c "$s" -o "$o"
  objs+=("$o")
done
"$cxx" "${flags[@]}" -fsanitize=$san "$root/tests/fuzz/make_seeds.cpp" "${objs[@]}" -lsodium -o "$out/make_seeds"
for h in "${harnesses[@]}"; do
  "$cxx" "${flags[@]}" -fsanitize=fuzzer,$san "$root/tests/fuzz/${h}_harness.cpp" "${objs[@]}" -lsodium \
    -o "$out/${h}_fuzz"
done

rm -rf "$out/seeds"
"$out/make_seeds" "$out/seeds"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for h in "${harnesses[@]}"; do
  work="$out/work/$h"
  mkdir -p "$work" "$out/artifacts" "$out/merged/$h"
  cp -n "$root/tests/fuzz/corpus/$h/"* "$out/seeds/$h/"* "$work/" 2>/dev/null || true
  echo "== $h: ${seconds}s from $(ls "$work" | wc -l) inputs"
  # -timeout: one input taking 5 s is a hang; -rss_limit_mb: a giant allocation is a finding.
  if ! "$out/${h}_fuzz" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$h-" "$work" 2> "$out/$h.log"; then
    status=1
    echo "== $h: FINDING, see $out/$h.log and $out/artifacts/" >&2
  fi
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$out/$h.log" || tail -5 "$out/$h.log"
  rm -rf "$out/merged/$h" && mkdir -p "$out/merged/$h"
  "$out/${h}_fuzz" -merge=1 -max_len=4096 "$out/merged/$h" "$work" 2>> "$out/$h.merge.log" || true
  echo "== $h: merged corpus $(ls "$out/merged/$h" | wc -l) inputs, $(du -sk "$out/merged/$h" | cut -f1) KiB in $out/merged/$h"
done
exit $status
