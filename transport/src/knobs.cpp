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
  if (const char* c = std::getenv("FTMPI_SHM_CMA"); c != nullptr && *c != '\0') {
    k.shm_cma = std::strtol(c, nullptr, 10) != 0;
  }
  if (const char* c = std::getenv("FTMPI_SHM_RING"); c != nullptr && *c != '\0') {
    k.shm_ring = std::strtol(c, nullptr, 10) != 0;
  }
  if (const char* c = std::getenv("FTMPI_SHM_RINGS"); c != nullptr && *c != '\0') {
    unsigned long v = std::strtoul(c, nullptr, 10);
    if (v > 0 && v <= 65536) k.shm_rings = v;
  }
  if (const char* c = std::getenv("FTMPI_SHM_RING_KB"); c != nullptr && *c != '\0') {
    unsigned long v = std::strtoul(c, nullptr, 10);
    if (v >= 32 && v <= (1ul << 20) && (v & (v - 1)) == 0) k.shm_ring_kb = v;
  }
  if (const char* c = std::getenv("FTMPI_SHM_BULK_KB"); c != nullptr && *c != '\0') {
    unsigned long v = std::strtoul(c, nullptr, 10);
    if (v <= (1ul << 20)) k.shm_bulk_kb = v;
  }
  if (const char* c = std::getenv("FTMPI_SHM_BULK_SLOTS"); c != nullptr && *c != '\0') {
    unsigned long v = std::strtoul(c, nullptr, 10);
    if (v <= 1024) k.shm_bulk_slots = v;
  }
  return k;
}

}  // namespace ftmpi::transport
