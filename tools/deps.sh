#!/bin/bash
# Installs the Debian 12 packages ftmpi needs to build, test and run (shared by tools/demo.sh
# and .ci/run so the list lives in one place). Nothing is vendored or downloaded otherwise.
#
#   bash tools/deps.sh            install whatever is missing (needs root only then)
#   bash tools/deps.sh --update   always apt-get update and install (CI)
set -euo pipefail

packages=(
  cmake make gcc g++ libc6-dev pkg-config   # toolchain
  ccache                                    # CI builds the tree twice from fresh clones: unchanged sources come from the cache
  libfabric-dev libfabric-bin               # transport (libfabric.a: libftmpi_fabric_tcp.so); fi_info/fi_pingpong for checks and bench
  libhwloc-dev                              # core binding in the daemon
  libpmix-dev                               # daemon <-> library runtime protocol
  libsodium-dev                             # per-job secret, challenge-response between hosts
  catch2                                    # unit tests (v2 on Debian 12)
  nlohmann-json3-dev                        # JSON output of the tools (header-only)
  libcli11-dev                              # the tools' one option parser (header-only)
  jq                                        # tools tests read cominfo --json
  libncurses-dev                            # cominfo/hostinfo full-screen views
  tmux                                      # cominfo/hostinfo terminal tests
  iproute2 util-linux                       # ip netns, nsenter, unshare: simulated hosts (tests/netns)
  python3                                   # tests/netns: TCP between simulated hosts
  slurmctld slurmd slurm-client munge       # tests/netns/slurm_test.sh: a real Slurm on simulated hosts
  openssh-client openssh-server            # --launcher ssh (default); tests/netns/ssh_test.sh runs sshd
  procps                                    # ps/pgrep: tests check no process is left behind
  gdb                                       # tests/e2e/watchdog.sh: the stacks of a job that overran
  binutils                                  # readelf: wrapper tests check rpaths; ar, objcopy: libftmpi_fabric_tcp.so
  gfortran                                  # Fortran bindings (fortran/), mpif90/mpifort
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done

if [ "${1:-}" != --update ] && [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "tools/deps.sh: missing Debian packages (run as root to install): ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
