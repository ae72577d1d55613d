// Every environment variable the transport reads, in one place (also listed in the README).
//   FTMPI_PROVIDER                 provider when Endpoint::open() gets "": "shm" (default),
//                                  "tcp;ofi_rxm" or its alias "tcp".
//   FTMPI_TRANSPORT_RETRY_TIMEOUT  seconds a post may keep failing with -FI_EAGAIN (while we
//                                  drive progress) before it gives up with Status::error;
//                                  default 60, 0 means wait forever.
//   FTMPI_SHM_RX_SIZE              shm receive-context size, exported as FI_SHM_RX_SIZE unless
//                                  that is set: shm's command queue per endpoint and its slots
//                                  for posted receives (128 bounce buffers live there) and for
//                                  messages it holds before we take them. Beyond it, senders
//                                  defer (in software). Each slot costs ~4.6 KB of /dev/shm.
//                                  Default 4096 (32 MB file, ~8 MB resident); 65536 crashes
//                                  libfabric 1.17.
//   FTMPI_SHM_CMA                  1 (default): shm receivers read large messages themselves
//                                  with process_vm_readv; 0: they never try, and the payload
//                                  goes through shm instead (see soft_match.h).
//   FTMPI_SHM_RING                 1 (default): on shm, small messages, announcements and FINs
//                                  travel through our own shared-memory rings (shm_ring.h), one
//                                  per sender and receiver; 0: through libfabric shm.
//   FTMPI_SHM_RINGS                rings per receiving endpoint = how many different senders it
//                                  can have over the job's life (default 128); later senders
//                                  use libfabric shm.
//   FTMPI_SHM_RING_KB              size of one ring in KiB, a power of two >= 32 (default 64).
//                                  A full ring makes the sender defer (in order), as before.
//   FTMPI_SHM_BULK_KB              size of a bulk slot in KiB (default 512): messages above the
//                                  inject size and up to this go by two memcpys through the
//                                  sender's slot instead of process_vm_readv (shm_ring.h).
//                                  0: no slots.
//   FTMPI_SHM_BULK_SLOTS           bulk slots per endpoint (default 4; reserved in /dev/shm
//                                  at start, slots x size). 0: no slots.
// libfabric's own variables (FI_SHM_*, FI_TCP_IFACE, FI_OFI_RXM_*, FI_LOG_LEVEL) apply as usual;
// we default FI_OFI_RXM_ENABLE_DYN_RBUF=0 and FI_OFI_RXM_SAR_LIMIT=16384 (see provider.cpp).
#pragma once

#include <string>

namespace ftmpi::transport {

struct Knobs {
  std::string provider;  // empty when FTMPI_PROVIDER is unset
  double retry_timeout_s = 60.0;
  unsigned long shm_rx_size = 4096;
  bool shm_cma = true;
  bool shm_ring = true;
  unsigned long shm_rings = 128;
  unsigned long shm_ring_kb = 64;
  unsigned long shm_bulk_kb = 512;
  unsigned long shm_bulk_slots = 4;

  static Knobs from_environment();
};

}  // namespace ftmpi::transport
