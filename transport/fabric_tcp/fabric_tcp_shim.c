// The pieces libftmpi_fabric_tcp.so adds to libfabric.a's objects (CMakeLists.txt says why).
#include <stddef.h>
#include <stdio.h>

struct fi_provider;

// fi_ini (fabric.o) registers every provider libfabric was built with by calling its init
// function; these return "no provider", as for a provider that finds no hardware, so the
// archive's objects for them (and the vendor libraries they need) are never linked. Kept:
// fi_tcp_ini, fi_xnet_ini (tcp and net) and fi_rxm_ini (ofi_rxm), from the archive.
#define FTMPI_NO_PROVIDER(init)                                                     \
  struct fi_provider* init(void);                                                   \
  struct fi_provider* init(void) { return NULL; }
FTMPI_NO_PROVIDER(fi_psm_ini)
FTMPI_NO_PROVIDER(fi_psm2_ini)
FTMPI_NO_PROVIDER(fi_verbs_ini)
FTMPI_NO_PROVIDER(fi_efa_ini)
FTMPI_NO_PROVIDER(fi_shm_ini)
FTMPI_NO_PROVIDER(fi_sockets_ini)
FTMPI_NO_PROVIDER(fi_udp_ini)
FTMPI_NO_PROVIDER(fi_mrail_ini)
FTMPI_NO_PROVIDER(fi_rxd_ini)
FTMPI_NO_PROVIDER(fi_hook_perf_ini)
FTMPI_NO_PROVIDER(fi_debug_hook_ini)
FTMPI_NO_PROVIDER(fi_hook_hmem_ini)
FTMPI_NO_PROVIDER(fi_dmabuf_peer_mem_hook_ini)
FTMPI_NO_PROVIDER(fi_hook_noop_ini)

// common.o compares addresses with in6addr_loopback through a PC-relative reference, which
// only a definition inside this library satisfies; it is a constant (::1), so a private copy
// is the same value.
const unsigned char in6addr_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

// log.o writes FI_LOG_LEVEL output to `stderr`, read directly (renamed to this): a pointer to
// the same FILE, taken when the library is loaded.
FILE* ftmpi_fabric_stderr;
__attribute__((constructor)) static void ftmpi_fabric_take_stderr(void) {
  ftmpi_fabric_stderr = stderr;
}

// util_mem_hooks.o's brk interception keeps glibc's __curbrk up to date (renamed to this).
// It only runs once the memhooks monitor is started, which only a registration cache does,
// and no provider kept here has one (tcp, net and ofi_rxm register no memory): never written.
void* ftmpi_fabric_unused_curbrk;
