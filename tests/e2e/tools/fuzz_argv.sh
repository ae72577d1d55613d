#!/bin/bash
# Random command lines for every tool (issue 16: one option parser, bad input -> exit 2 and a
# usage line): each run ends within 10 s and 200 MB with exit 0, 1 or 2 (never a signal), and
# every exit 2 prints a usage line on stderr.
#   fuzz_argv.sh BIN_DIR [ROUNDS [SEED]]   (CI: 40 rounds, the fixed seed)
set -uo pipefail
bin=$1
rounds=${2:-40}
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export FTMPI_DAEMON_SOCKET=$T/no-daemon-here.sock  # no job, no daemon: snapshots fail fast
vm_limit=204800
[ "${BAD_INPUT_NO_VM_LIMIT:-0}" = 1 ] && vm_limit=unlimited

words=(--once --json --watch --color --color=never --color=bad --colour --socket --width --interval
       --markdown --help -h --version --bogus - -- '' = --=x -n -np --np=2 -x --host --hostfile
       --ckpt --mtbf --recovery --n --df --sd --sweep --json=1 --runs --work --seed --spares --every
       --host-map --ranks-per-host --plot 0 1 -1 7 12x 2147483647 99999999999999999999 nan inf 1e999
       1,6 1800,36000 , auto FTMPI_DEBUG FTMPI_NOPE placement period simulate "$T/x.svg")
RANDOM=${3:-20261126}  # the same command lines in every run unless a seed is given

# run TOOL ARGS...: one bounded run, checked.
run() {
  local tool=$1 rc err
  shift
  err=$( (ulimit -v $vm_limit; timeout 10 "$bin/$tool" "$@") 2>&1 >/dev/null); rc=$?
  case $rc in
    0|1) ;;
    2) grep -q "usage: " <<<"$err" || fail "$tool $*: exit 2 without a usage line: $err" ;;
    124) fail "$tool $*: still running after 10 s" ;;
    *) fail "$tool $*: exit $rc: $err" ;;
  esac
}

random_words() {
  local n=$((RANDOM % 6)) i
  args=()
  for ((i = 0; i < n; i++)); do
    if ((RANDOM % 8 == 0)); then
      args+=("$(head -c $((RANDOM % 10 + 1)) /dev/urandom | tr -d '\0')")
    else
      args+=("${words[RANDOM % ${#words[@]}]}")
    fi
  done
}

for ((r = 0; r < rounds; r++)); do
  random_words
  # --watch would run for ever by design: the snapshot and live views are what is fuzzed.
  run cominfo --once "${args[@]/--watch/--json}"
  random_words
  run hostinfo --json "${args[@]/--watch/--once}"
  random_words
  run ftmpi-info "${args[@]}"
  random_words
  cmd=(placement period simulate bogus)
  # simulate: a short run whatever the random words ask (the last --runs/--work count).
  run ftckpt-plan "${cmd[RANDOM % 4]}" "${args[@]}" --runs 2 --work 100
  random_words
  # --version first: mpirun checks every option, then prints its version; it never launches.
  run mpirun --version "${args[@]}"
done
echo "fuzz argv OK ($rounds rounds x 5 tools)"
