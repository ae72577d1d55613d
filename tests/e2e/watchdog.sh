#!/usr/bin/env bash
# Runs a command under a time limit, like `timeout -k 5 SECONDS COMMAND...`:
#   watchdog.sh SECONDS COMMAND...
# exits with the command's status, or 124 when the limit passed. Before it stops a command that
# overran, it prints every thread's stack of the command and of each of its descendants (mpirun,
# the private daemon, the ranks, spares) on stderr, so a hang seen once in CI can be read
# afterwards instead of guessed at. The stacks need gdb (tools/deps.sh); without it only the
# process list is printed.
set -u
limit=$1
shift
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT

descendants() {  # PID and every process below it, parents first
  local c
  echo "$1"
  for c in $(pgrep -P "$1" 2>/dev/null); do descendants "$c"; done
}

dump_stacks() {
  local pid
  echo "watchdog: $* did not finish within $limit s; the stacks of its processes:"
  for pid in $(descendants "$cmd"); do
    echo "--- pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
    grep -E '^(State|Threads):' "/proc/$pid/status" 2>/dev/null | tr '\n' ' '
    echo
    command -v gdb >/dev/null || continue
    timeout 30 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 30' 2>/dev/null |
      grep -E '^(Thread |#)' | cut -c1-240
  done
  echo "watchdog: end of stacks"
}

# stdin passed on (a background command would get /dev/null); a closed one stays empty.
if [ -e "/proc/$$/fd/0" ]; then exec 3<&0; else exec 3</dev/null; fi
"$@" <&3 3<&- &
cmd=$!
exec 3<&-
(
  sleep "$limit" &
  trap 'kill $! 2>/dev/null; exit 0' TERM  # the command finished: no sleep left behind
  wait $!
  trap '' TERM  # from here on it finishes its work, and the script waits for it
  kill -0 "$cmd" 2>/dev/null || exit 0
  echo overran >"$marker"
  dump_stacks "$@" >&2
  procs=$(descendants "$cmd")  # taken now: once the command ends, its orphans are not below it
  kill -TERM "$cmd" 2>/dev/null
  sleep 5
  for pid in $procs; do kill -KILL "$pid" 2>/dev/null; done
) &
guard=$!
wait "$cmd"
rc=$?
kill "$guard" 2>/dev/null
wait "$guard" 2>/dev/null
[ -s "$marker" ] && exit 124
exit "$rc"
