#!/bin/bash
# mpirun's host plan across 3 namespace hosts (SPEC 5.1), mpirun on h1: hostfile forms,
# --map-by slot|node, hosts named by address, wrap-around, a job with no rank on mpirun's host,
# --launcher-exec and FTMPI_LAUNCHER_EXEC. The launcher is a wrapper around the harness's
# launcher-exec script that logs every call: it must be called once per remote host that got
# ranks, never for h1 (local ranks start without a launcher), never for a host without ranks.
# Every rank prints "RANK HOSTNAME". Nothing may be left on any host afterwards.
#   placement_test.sh BIN_DIR
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
bin=$1
fail() { echo "FAIL: $*" >&2; [ -f "${log:-}" ] && { echo "--- launcher calls" >&2; cat "$log" >&2; }; exit 1; }
export FTNS; FTNS=$(bash "$here/hosts.sh" up 3)
trap 'bash "$here/hosts.sh" down' EXIT
mapfile -t h < <(awk '{print $1}' "$FTNS/hosts")
mapfile -t a < <(awk '{print $2}' "$FTNS/hosts")
log=$FTNS/launcher.log
cat > "$FTNS/logging-ssh" <<EOF
#!/bin/sh
echo "\$1" >> "$log"
exec "$FTNS/ssh" "\$@"
EOF
chmod 755 "$FTNS/logging-ssh"

# run WANT_LAUNCHED WANT_MAP MPIRUN-ARGS...: WANT_MAP is "host-of-rank-0 host-of-rank-1 ...",
# WANT_LAUNCHED the sorted hosts the launcher was called for.
run() {
  local want_launched=$1 want_map=$2; shift 2
  : > "$log"
  local out
  out=$(bash "$here/hosts.sh" exec "${h[0]}" timeout -s KILL 60 "$bin/mpirun" "$@" \
        sh -c 'echo "$FTMPI_RANK $(hostname)"' 2>"$FTNS/err") ||
    fail "mpirun $*: exit $? ($(cat "$FTNS/err"))"
  local map
  map=$(sort -n <<<"$out" | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')
  [ "$map" = "$want_map" ] || fail "mpirun $*: ranks on '$map', expected '$want_map'"
  local launched
  launched=$(sort "$log" | tr '\n' ' ' | sed 's/ $//')
  [ "$launched" = "$want_launched" ] || fail "mpirun $*: launcher called for '$launched', expected '$want_launched'"
  for host in "${h[@]}"; do bash "$here/hosts.sh" leftovers "$host" || fail "mpirun $*: leftovers on $host"; done
}

printf '# three hosts\n%s slots=2\n%s:2   # MPICH form\n\n%s max_slots=4\n' "${h[0]}" "${h[1]}" "${h[2]}" > "$FTNS/hf"
L="--launcher-exec $FTNS/logging-ssh"
run "${h[1]} ${h[2]}" "${h[0]} ${h[0]} ${h[1]} ${h[1]} ${h[2]}" $L --hostfile "$FTNS/hf" -n 5
run "${h[1]} ${h[2]}" "${h[0]} ${h[1]} ${h[2]} ${h[0]} ${h[1]}" $L --hostfile "$FTNS/hf" -n 5 --map-by node
# Default -n = the slots (2 + 2 + 1); more ranks than slots wrap around.
run "${h[1]} ${h[2]}" "${h[0]} ${h[0]} ${h[1]} ${h[1]} ${h[2]}" $L --hostfile "$FTNS/hf"
run "${h[1]} ${h[2]}" "${h[0]} ${h[0]} ${h[1]} ${h[1]} ${h[2]} ${h[0]} ${h[0]}" $L --hostfile "$FTNS/hf" -n 7
# Two ranks fit on h1: h2 and h3 get none and no daemon.
run "" "${h[0]} ${h[0]}" $L --hostfile "$FTNS/hf" -n 2
# Hosts by address, none of them mpirun's: every rank remote.
run "${a[1]} ${a[2]}" "${h[1]} ${h[2]} ${h[1]}" $L --host "${a[1]}:1,${a[2]}" -n 3
# The environment's launcher, and repeated --host merging.
FTMPI_LAUNCHER_EXEC=$FTNS/logging-ssh run "${h[2]}" "${h[0]} ${h[2]} ${h[2]} ${h[0]}" \
  --host "${h[0]}" --host "${h[2]}:1,${h[2]}:1" --map-by node -n 4
echo "placement OK"
