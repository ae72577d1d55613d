// Copying a few bytes on the message path (a ring record's header and payload, a small
// message into its receive buffer). Up to 16 bytes, a collective's or ping-pong's usual
// payload, with fixed-size copies the compiler inlines: the libc call cost ~22-34
// instructions for 8 bytes, on every small send and receive.
#pragma once

#include <cstddef>
#include <cstring>

namespace ftmpi::transport {

inline void copy_small(void* to, const void* from, std::size_t len) {
  auto* dst = static_cast<unsigned char*>(to);
  const auto* src = static_cast<const unsigned char*>(from);
  if (len > 16) {
    std::memcpy(dst, src, len);
  } else if (len >= 8) {  // two 8-byte copies that may overlap
    std::memcpy(dst, src, 8);
    std::memcpy(dst + len - 8, src + len - 8, 8);
  } else if (len >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + len - 4, src + len - 4, 4);
  } else {
    for (std::size_t i = 0; i < len; ++i) dst[i] = src[i];
  }
}

}  // namespace ftmpi::transport
