// Every environment variable the transport reads, in one place (also listed in the README).
//   FTMPI_PROVIDER                 what Endpoint::open("") uses: "shm" (default: our own shared
//                                  memory, libfabric never loaded) or a libfabric provider for
//                                  every peer: "tcp" (= "tcp;ofi_rxm") or any other name.
//   FTMPI_TRANSPORT_RETRY_TIMEOUT  seconds a receiver waits for a sender that claimed its part
//                                  of a shared copy before giving up (ETIMEDOUT); default 60,
//                                  0 means forever.
//   FTMPI_SHM_CMA                  1 (default): shm receivers read large messages themselves
//                                  with process_vm_readv; 0: they never try, and payloads that
//                                  are not in a bulk slot are streamed through the ring.
//   FTMPI_SHM_RING                 1 (default): each sender claims a private ring in its
//                                  receiver's region; 0: every sender uses the receiver's one
//                                  shared ring (under a lock).
//   FTMPI_SHM_RINGS                private rings per receiving endpoint = how many different
//                                  senders it can have over the job's life (default 128); later
//                                  senders use the shared ring.
//   FTMPI_SHM_RING_KB              size of one ring in KiB, a power of two >= 32 (default 64).
//                                  A full ring makes the sender defer (in order).
//   FTMPI_SHM_BULK_KB              size of a bulk slot in KiB (default 512): messages above the
//                                  inline size and up to this go by two memcpys through the
//                                  sender's slot instead of process_vm_readv (shm_ring.h).
//                                  0: no slots.
//   FTMPI_SHM_BULK_SLOTS           bulk slots per endpoint (default 4; reserved in /dev/shm
//                                  at start, slots x size). 0: no slots.
// libfabric's own variables (FI_PROVIDER, FI_TCP_IFACE, FI_OFI_RXM_*, FI_LOG_LEVEL) apply as
// usual; we default FI_PROVIDER to the chosen provider's names, FI_TCP_IFACE=lo,
// FI_OFI_RXM_ENABLE_DYN_RBUF=0 and FI_OFI_RXM_SAR_LIMIT=16384 (see provider.cpp).
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

  static Knobs from_environment();
};

}  // namespace ftmpi::transport
