// The transport's knobs, read once per Endpoint::open from the environment. Their names,
// types, defaults, ranges and meanings are in the one table, knobs/include/ftmpi_knobs/
// knob_list.h (FTMPI_PROVIDER, FTMPI_TRANSPORT_RETRY_TIMEOUT, FTMPI_SHM_*; `ftmpi-info` lists
// them), and the two ftmpid sets for a job on several hosts (FTMPI_NHOSTS, FTMPI_NET_ADDR).
// FTMPI_SHM_RING_KB must also be a power of two; another value keeps the default.
// libfabric's own variables (FI_PROVIDER, FI_TCP_IFACE, FI_OFI_RXM_*, FI_LOG_LEVEL) apply as
// usual; we default FI_PROVIDER to the chosen provider's names, FI_TCP_IFACE=lo,
// FI_OFI_RXM_ENABLE_DYN_RBUF=0, FI_OFI_RXM_SAR_LIMIT=16384 and FI_OFI_RXM_MSG_RX_SIZE/
// _TX_SIZE=32 (see provider.cpp).
#pragma once

#include <string>

namespace ftmpi::transport {

struct Knobs {
  std::string provider;  // empty when FTMPI_PROVIDER is unset
  double retry_timeout_s = 60.0;
  bool shm_cma = true;
  bool shm_ring = true;
  unsigned long shm_rings = 128;
  unsigned long shm_ring_kb = 64;
  unsigned long shm_bulk_kb = 512;
  unsigned long shm_bulk_slots = 4;
  // FTMPI_SHM_SINGLE_COPY (auto, 0, 1), FTMPI_SHM_DIRECT_MIN and FTMPI_OVERSUBSCRIBED
  // (mpirun's, job-wide): whether a large send goes by CMA rather than staged
  // (ShmEndpoint::send_by_cma): one while a large receive is posted, or any from direct_min.
  enum class SingleCopy : unsigned char { automatic, never, always };
  SingleCopy shm_single_copy = SingleCopy::automatic;
  std::size_t shm_direct_min = std::size_t{16} << 10;  // 0: exchanges only
  bool oversubscribed = false;
  // Set by ftmpid for a job on several hosts: with nhosts > 1 and the shm provider, peers on
  // other hosts go through libfabric (tcp;ofi_rxm) bound to net_addr (empty: libfabric picks).
  unsigned long nhosts = 1;
  std::string net_addr;
  // FTMPI_VENDOR_BACKTRACE=1: the user wants the vendor libraries (and their signal handlers),
  // so tcp loads the system's libfabric.so.1 rather than the trimmed one (libfabric_api.h).
  bool vendor_libraries = false;

  static Knobs from_environment();
};

}  // namespace ftmpi::transport
