#!/usr/bin/env bash
# The FT-MPI paper's scenario (SPEC 8) through the tools:
#   scenario.sh KIND BIN TESTBIN     KIND = json | once | tmux | hostinfo
# 3 healthy ranks -> rank 1 exits (WORLD DETECTED, size 3, valid 2) -> SHRINK repair (OK,
# size 2). A daemon of its own on a private socket keeps parallel tests apart.
set -u
kind=$1 bin=$2 tbin=$3
T=$(mktemp -d /tmp/ftmpi-tools-test.XXXXXX)
export FTMPI_DAEMON_SOCKET=$T/ftmpid.sock
session=cominfo-test-$$
daemon_pid= mpirun_pid=
cleanup() {
  [ "$kind" = tmux ] && tmux -L "$session" kill-server 2>/dev/null
  [ -n "$mpirun_pid" ] && kill "$mpirun_pid" 2>/dev/null
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
  sleep 0.2
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "scenario.sh($kind): FAIL: $*"; [ -f "$T/screen" ] && cat "$T/screen"; [ -f "$T/last" ] && cat "$T/last"; exit 1; }

"$bin/ftmpid" --socket "$FTMPI_DAEMON_SOCKET" --no-bind --log "$T/daemon.log" &
daemon_pid=$!
for _ in $(seq 100); do [ -S "$FTMPI_DAEMON_SOCKET" ] && break; sleep 0.05; done
[ -S "$FTMPI_DAEMON_SOCKET" ] || fail "daemon did not start"

"$bin/mpirun" -n 3 --comm-mode shrink --timeout 70 "$tbin/ft_phases" "$T" > "$T/mpirun.out" 2>&1 &
mpirun_pid=$!

wait_file() {  # the program reached a phase
  for _ in $(seq 400); do [ -e "$T/$1" ] && return 0; sleep 0.05; done
  fail "program never reached $1"; }

if [ "$kind" = tmux ]; then
  tmux -L "$session" -f /dev/null new-session -d -s "$session" -x 100 -y 30 \
    "env FTMPI_DAEMON_SOCKET=$FTMPI_DAEMON_SOCKET TERM=xterm-256color $bin/cominfo"
fi

# check NAME: passes when the current view shows the expected state, retried for up to 10 s.
WORLD='.jobs[0].comms[] | select(.name=="MPI_COMM_WORLD")'
check() {
  local step=$1
  for _ in $(seq 200); do
    case $kind in
      json)
        "$bin/cominfo" --json > "$T/last" 2>&1
        case $step in
          1) jq -e "$WORLD | .state==\"OK\" and .size==3 and .valid==3 and ([.procs[].state]|all(.==\"OK\")) and .comm_mode==\"SHRINK\" and .msg_mode==\"NOP\" and .context_id==0 and (.procs[1].pid>0) and (.procs[1].host|length>0)" "$T/last" >/dev/null && return 0 ;;
          2) jq -e "$WORLD | .state==\"DETECTED\" and .size==3 and .valid==2 and .procs[1].state==\"FAILED\" and .procs[0].state==\"OK\" and .procs[2].state==\"OK\"" "$T/last" >/dev/null && return 0 ;;
          3) jq -e "($WORLD | .state==\"OK\" and .size==2 and .valid==2) and ([.jobs[0].comms[] | select(.name==\"work\") | .state==\"OK\" and .size==2] == [true])" "$T/last" >/dev/null && return 0 ;;
          4) jq -e '.jobs == []' "$T/last" >/dev/null && return 0 ;;
        esac ;;
      once|hostinfo|tmux)
        if [ "$kind" = tmux ]; then
          tmux -L "$session" capture-pane -p -t "$session" > "$T/screen" 2>/dev/null
        elif [ "$kind" = once ]; then
          "$bin/cominfo" --once --width 80 > "$T/screen" 2>&1
        else
          "$bin/hostinfo" --once --width 100 > "$T/screen" 2>&1
        fi
        s=$T/screen
        if [ "$kind" = hostinfo ]; then
          case $step in
            1) grep -q "daemon pid $daemon_pid (shared)  up" $s && [ "$(grep -c 'running' $s)" -eq 3 ] && return 0 ;;
            2) grep -Eq 'rank 1 +pid [0-9]+ +failed .*exit 3' $s && [ "$(grep -c 'running' $s)" -eq 2 ] && return 0 ;;
            3) [ "$(grep -c 'running' $s)" -eq 2 ] && return 0 ;;
            4) grep -q 'no jobs' $s && return 0 ;;
          esac
        else
          case $step in
            1) grep -q 'MPI_COMM_WORLD -.* OK -+' $s && grep -q 'state OK  size 3  valid 3' $s &&
               grep -q '| 0 | | 1 | | 2 |' $s && return 0 ;;
            2) grep -q 'MPI_COMM_WORLD -.* DETECTED -+' $s && grep -q 'state DETECTED  size 3  valid 2' $s &&
               grep -q '| 0 | | 1x| | 2 |' $s && return 0 ;;
            3) grep -q 'MPI_COMM_WORLD -.* OK -+' $s && grep -q 'SHRINK/NOP  state OK  size 2  valid 2' $s &&
               grep -q 'work -.* OK -+' $s && ! grep -q 'DETECTED' $s && return 0 ;;
            4) grep -q 'no jobs running' $s && return 0 ;;
          esac
        fi ;;
    esac
    sleep 0.05
  done
  fail "step $step not shown within 10 s"
}

wait_file ready1; check 1
if [ "$kind" = tmux ]; then  # keys: help and back, details (host and pid), scroll
  tmux -L "$session" send-keys -t "$session" '?'; sleep 0.3
  tmux -L "$session" capture-pane -p -t "$session" | grep -q 'DETECTED yellow' || fail "? shows no help"
  tmux -L "$session" send-keys -t "$session" x; sleep 0.3
  tmux -L "$session" send-keys -t "$session" d; sleep 0.3
  tmux -L "$session" capture-pane -p -t "$session" > "$T/screen"
  grep -Eq "rank 1 +OK +world 1 +pid [0-9]+ +host $(hostname)" "$T/screen" || fail "d shows no host/pid"
  tmux -L "$session" send-keys -t "$session" d; sleep 0.2
  tmux -L "$session" resize-window -t "$session" -x 40 -y 12 2>/dev/null; sleep 0.3
  tmux -L "$session" capture-pane -p -t "$session" | grep -q 'MPI_COMM_WORLD' || fail "nothing after resize"
  tmux -L "$session" resize-window -t "$session" -x 100 -y 30 2>/dev/null; sleep 0.2
fi
touch "$T/go1"; wait_file ready2; check 2
touch "$T/go2"; wait_file ready3; check 3
touch "$T/go3"
wait "$mpirun_pid"; rc=$?; mpirun_pid=
[ $rc -eq 0 ] || { cat "$T/mpirun.out"; fail "mpirun exited $rc"; }
grep -q 'ft_phases OK' "$T/mpirun.out" || fail "program did not finish"
check 4
if [ "$kind" = tmux ]; then
  tmux -L "$session" send-keys -t "$session" q; sleep 0.5
  tmux -L "$session" has-session -t "$session" 2>/dev/null && fail "q did not quit"
fi
echo "scenario.sh($kind): PASS"
