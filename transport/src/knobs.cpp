#include "knobs.h"

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::transport {

// The names, types, ranges and defaults live in the one knob table (knobs/, knob_list.h).
Knobs Knobs::from_environment() {
  using knobs::Id;
  Knobs k;
  if (auto p = knobs::get_if_set(Id::provider)) k.provider = p->text;
  k.retry_timeout_s = knobs::number(Id::transport_retry_timeout);
  k.shm_cma = knobs::flag(Id::shm_cma);
  k.shm_ring = knobs::flag(Id::shm_ring);
  k.shm_rings = static_cast<unsigned long>(knobs::integer(Id::shm_rings));
  // A ring's size must be a power of two (index masks), which a range cannot say.
  unsigned long ring_kb = static_cast<unsigned long>(knobs::integer(Id::shm_ring_kb));
  if ((ring_kb & (ring_kb - 1)) == 0) k.shm_ring_kb = ring_kb;
  k.shm_bulk_kb = static_cast<unsigned long>(knobs::integer(Id::shm_bulk_kb));
  k.shm_bulk_slots = static_cast<unsigned long>(knobs::integer(Id::shm_bulk_slots));
  k.shm_direct_min = static_cast<std::size_t>(knobs::integer(Id::shm_direct_min));
  const std::string single_copy = knobs::text(Id::shm_single_copy);
  k.shm_single_copy = single_copy == "1"   ? Knobs::SingleCopy::always
                      : single_copy == "0" ? Knobs::SingleCopy::never
                                           : Knobs::SingleCopy::automatic;
  k.oversubscribed = knobs::flag(Id::oversubscribed);
  k.nhosts = static_cast<unsigned long>(knobs::integer(Id::nhosts));
  if (auto a = knobs::get_if_set(Id::net_addr)) k.net_addr = a->text;
  k.vendor_libraries = knobs::text(Id::vendor_backtrace) == "1";
  return k;
}

}  // namespace ftmpi::transport
