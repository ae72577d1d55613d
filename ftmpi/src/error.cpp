#include "error.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace ftmpi {
namespace {

// Detail codes: class + kClassSpan * (slot + 1). The ring keeps the last kSlots details, which
// is plenty for an application that reads the string right after the call.
constexpr int kClassSpan = MPI_ERR_LASTCODE + 1;
constexpr int kSlots = 256;

struct DetailRing {
  std::mutex mutex;
  std::array<std::string, kSlots> text;
  unsigned next = 0;
};
DetailRing& ring() {
  static DetailRing r;
  return r;
}

thread_local char t_detail[MPI_MAX_ERROR_STRING];
thread_local bool t_has_detail = false;

const char* class_text(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduction operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid dimension argument";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated on receive";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: other error (e.g. a process failure)";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid keyval";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
    default: return nullptr;
  }
}

}  // namespace

Err fail(Err e, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_detail, sizeof t_detail, fmt, ap);
  va_end(ap);
  t_has_detail = true;
  return e;
}

int to_code(Err e) {
  int cls = static_cast<int>(e);
  if (e == Err::ok || !t_has_detail) return cls;
  t_has_detail = false;
  DetailRing& r = ring();
  std::lock_guard<std::mutex> lock(r.mutex);
  unsigned slot = r.next++ % kSlots;
  r.text[slot] = std::string(class_text(cls)) + ": " + t_detail;
  return cls + kClassSpan * static_cast<int>(slot + 1);
}

int error_class_of(int code) {
  if (code < 0) return MPI_ERR_UNKNOWN;
  return code % kClassSpan;
}

bool error_text(int code, char* out, int* len) {
  int cls = error_class_of(code);
  const char* base = class_text(cls);
  if (base == nullptr || code < 0) return false;
  std::string text = base;
  int slot = code / kClassSpan - 1;
  if (slot >= 0 && slot < kSlots) {
    DetailRing& r = ring();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.text[static_cast<size_t>(slot)].empty()) text = r.text[static_cast<size_t>(slot)];
  }
  if (text.size() >= MPI_MAX_ERROR_STRING) text.resize(MPI_MAX_ERROR_STRING - 1);
  std::memcpy(out, text.c_str(), text.size() + 1);
  *len = static_cast<int>(text.size());
  return true;
}

}  // namespace ftmpi
