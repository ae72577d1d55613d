// Every environment variable the transport reads, in one place (also listed in the README).
//   FTMPI_PROVIDER                 provider when Endpoint::open() gets "": "shm" (default),
//                                  "tcp;ofi_rxm" or its alias "tcp".
//   FTMPI_TRANSPORT_RETRY_TIMEOUT  seconds a post may keep failing with -FI_EAGAIN (while we
//                                  drive progress) before it gives up with Status::error;
//                                  default 60, 0 means wait forever.
//   FTMPI_SHM_RX_SIZE              shm receive-context size, exported as FI_SHM_RX_SIZE unless
//                                  that is set. It caps how many unexpected messages shm can
//                                  hold per endpoint (beyond it senders wait in the retry loop
//                                  until receives get posted); each entry costs ~4.6 KB resident.
//                                  Default 32768 (~150 MB); libfabric 1.17 crashes at 65536.
// libfabric's own variables (FI_SHM_*, FI_TCP_IFACE, FI_OFI_RXM_*, FI_LOG_LEVEL) apply as usual;
// we default FI_OFI_RXM_ENABLE_DYN_RBUF=0 and FI_OFI_RXM_SAR_LIMIT=16384 (see provider.cpp).
#pragma once

#include <string>

namespace ftmpi::transport {

struct Knobs {
  std::string provider;  // empty when FTMPI_PROVIDER is unset
  double retry_timeout_s = 60.0;
  unsigned long shm_rx_size = 32768;

  static Knobs from_environment();
};

}  // namespace ftmpi::transport
