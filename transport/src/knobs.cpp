#include "knobs.h"

#include <cstdlib>

namespace ftmpi::transport {

Knobs Knobs::from_environment() {
  Knobs k;
  if (const char* p = std::getenv("FTMPI_PROVIDER"); p != nullptr) k.provider = p;
  if (const char* t = std::getenv("FTMPI_TRANSPORT_RETRY_TIMEOUT"); t != nullptr && *t != '\0') {
    char* end = nullptr;
    double v = std::strtod(t, &end);
    if (end != t && v >= 0) k.retry_timeout_s = v;
  }
  if (const char* r = std::getenv("FTMPI_SHM_RX_SIZE"); r != nullptr && *r != '\0') {
    unsigned long v = std::strtoul(r, nullptr, 10);
    if (v > 0) k.shm_rx_size = v;
  }
  if (const char* c = std::getenv("FTMPI_SHM_CMA"); c != nullptr && *c != '\0') {
    k.shm_cma = std::strtol(c, nullptr, 10) != 0;
  }
  return k;
}

}  // namespace ftmpi::transport
