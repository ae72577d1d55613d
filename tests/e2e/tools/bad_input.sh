#!/bin/bash
# Bad input to the tools (issue 16 item 7): exit 2 and a usage line, never a giant allocation or
# an endless run; cominfo with no job says so and fails.
#   bad_input.sh BIN_DIR
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export FTMPI_DAEMON_SOCKET=$T/no-daemon-here.sock

# 200 MB of address space: a giant allocation fails instead of swapping (not under ASan, whose
# shadow memory needs far more address space; BAD_INPUT_NO_VM_LIMIT=1 there).
vm_limit=204800
[ "${BAD_INPUT_NO_VM_LIMIT:-0}" = 1 ] && vm_limit=unlimited

# expect_usage TOOL ARGS...: exit 2, a usage line on stderr, within 10 s and 200 MB.
expect_usage() {
  local tool=$1
  shift
  local err rc
  err=$( (ulimit -v $vm_limit; timeout 10 "$bin/$tool" "$@") 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "$tool $*: exit $rc, expected 2 ($err)"
  grep -q "usage: " <<<"$err" || fail "$tool $*: no usage line in: $err"
}
for tool in cominfo hostinfo; do
  for bad in 2147483647 10001 0 -1 -2147483648 abc 12x '' 99999999999999999999; do
    expect_usage $tool --once --width "$bad"
  done
  for bad in -5 0 9 abc 3600001 99999999999999999999; do
    expect_usage $tool --watch --interval "$bad"
  done
  expect_usage $tool --width
  expect_usage $tool --bogus
done

# No daemon, no job: cominfo says so and fails (text and JSON).
err=$(timeout 10 "$bin/cominfo" --once 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] || fail "cominfo --once with no job: exit 0"
grep -q "no MPI job is running" <<<"$err" || fail "cominfo --once with no job: no message ($err)"
out=$(timeout 10 "$bin/cominfo" --json 2>/dev/null); rc=$?
[ $rc -ne 0 ] || fail "cominfo --json with no job: exit 0"
# A valid width in range still works (and a huge terminal width from COLUMNS is capped).
COLUMNS=2147483647 timeout 10 "$bin/cominfo" --once >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "cominfo --once with COLUMNS=2147483647: exit $rc, expected 1 (no job)"

# mpicc: an unknown -showme: query is an error, not a silent success.
for w in mpicc mpicxx; do
  err=$("$bin/$w" -showme:bogus 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "$w -showme:bogus: exit $rc, expected 2"
  grep -q "usage: $w" <<<"$err" || fail "$w -showme:bogus: no usage line"
  "$bin/$w" -showme:help >/dev/null || fail "$w -showme:help failed"
done
# mpirun: bad host input and too many processes are usage errors, before any daemon starts.
printf '# no host here\n' > "$T/empty_hostfile"
printf 'localhost slots=0\n' > "$T/zero_hostfile"
printf 'localhost slots=2 cores=4\n' > "$T/garbage_hostfile"
for args in "--hostfile $T" "--hostfile $T/empty_hostfile" "--hostfile $T/missing" "--host ," "-n 100000" \
            "-n 0" "-n -3" "-n abc" "--bogus" "--hostfile $T/zero_hostfile" "--hostfile $T/garbage_hostfile" \
            "--host localhost:0" "--host -oProxyCommand=x" "--host a;b" "--map-by core" "--map-by ppr:2:node" \
            "--launcher rsh" "--launcher-exec=" "--iface="; do
  # shellcheck disable=SC2086
  err=$(timeout 20 "$bin/mpirun" $args true 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "mpirun $args: exit $rc, expected 2 ($err)"
  grep -q "usage: mpirun" <<<"$err" || fail "mpirun $args: no usage line in: $err"
done
err=$(timeout 20 "$bin/mpirun" --host '' true 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "mpirun --host '': exit $rc, expected 2 ($err)"
# Inside a Slurm allocation without --host/--hostfile, a garbled node list is bad input too.
err=$(SLURM_JOB_NODELIST='n[1-' timeout 20 "$bin/mpirun" true 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "mpirun with SLURM_JOB_NODELIST='n[1-': exit $rc, expected 2 ($err)"
grep -q "SLURM_JOB_NODELIST" <<<"$err" || fail "mpirun with a bad SLURM_JOB_NODELIST: no reason in: $err"
mkfifo "$T/fifo"
err=$(timeout 20 "$bin/mpirun" --hostfile "$T/fifo" true 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "mpirun --hostfile FIFO: exit $rc, expected 2 (a FIFO must not block open)"
# ftckpt-plan: infinite or NaN parameters are refused (simulate once segfaulted on some), and a
# simulation that would not end (tiny MTBF, huge work) is refused at once.
for args in "simulate --work inf" "simulate --work nan" "simulate --mtbf inf,100" "simulate --mtbf nan,1" \
            "simulate --ckpt 1e999,6" "simulate --recovery -inf,4" "period --ckpt inf --mtbf 100" \
            "simulate --mtbf 0.001,0.001 --runs 2" "simulate --work 1e15 --runs 2"; do
  # shellcheck disable=SC2086
  err=$( (ulimit -v $vm_limit; timeout 10 "$bin/ftckpt-plan" $args) 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "ftckpt-plan $args: exit $rc, expected 2 ($err)"
  grep -q "usage: " <<<"$err" || fail "ftckpt-plan $args: no usage line in: $err"
done
# The other side of the policy: every tool answers --help (usage on stdout, exit 0) and --version
# ("NAME (ftmpi) VERSION", exit 0); cominfo and hostinfo once refused --version as bad input.
for tool in mpirun mpiexec cominfo hostinfo ftmpid ftckpt-plan ftmpi-info; do
  out=$(timeout 10 "$bin/$tool" --help 2>/dev/null); rc=$?
  [ $rc -eq 0 ] || fail "$tool --help: exit $rc"
  grep -q "^usage: $tool" <<<"$out" || fail "$tool --help: no usage line on stdout"
  out=$(timeout 10 "$bin/$tool" --version 2>&1); rc=$?
  [ $rc -eq 0 ] || fail "$tool --version: exit $rc ($out)"
  grep -q "^$tool (ftmpi) [0-9]" <<<"$out" || fail "$tool --version: $out"
done
echo "bad input OK"
