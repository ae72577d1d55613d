#include "error.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace ftmpi {
namespace {

// Detail codes: class + kClassSpan * (serial + 1), the serial counting the details handed out
// (modulo kSerials, so codes stay positive ints). The ring keeps the last kSlots details, which
// is plenty for an application that reads the string right after the call; an older code keeps
// its class, and its text says the detail is gone rather than showing a newer error's.
constexpr int kClassSpan = MPI_ERR_LASTCODE + 1;
constexpr unsigned kSlots = 256;
constexpr unsigned kSerials = 1u << 24;
static_assert(static_cast<long long>(kClassSpan) * (kSerials + 1) < 0x7fffffffLL, "codes are ints");

struct DetailRing {
  std::mutex mutex;
  std::array<std::string, kSlots> text;
  std::array<unsigned, kSlots> serial{};
  unsigned long long issued = 0;  // details handed out so far
  // A process failure's MPI_ERR_OTHER is returned as the bare class (SPEC 4.7: exactly
  // MPI_ERR_OTHER, so `if (rc == MPI_ERR_OTHER)` works; fail_report); MPI_Error_string of
  // MPI_ERR_OTHER shows the latest such detail (the failed rank).
  std::string last_other;
  // The ULFM classes are returned bare too (MPIX_ERR_PROC_FAILED, _PENDING, MPIX_ERR_REVOKED):
  // Open MPI's codes for them are the classes, and ULFM programs compare `rc ==
  // MPIX_ERR_PROC_FAILED` (the ULFM tests' err_returns and err_any aborted on ftmpi's detail
  // codes). Their MPI_Error_string shows the latest detail of that class, as for MPI_ERR_OTHER.
  std::array<std::string, 3> last_ulfm;
};
int ulfm_slot(int cls) {
  switch (cls) {
    case MPIX_ERR_PROC_FAILED: return 0;
    case MPIX_ERR_PROC_FAILED_PENDING: return 1;
    case MPIX_ERR_REVOKED: return 2;
    default: return -1;
  }
}
DetailRing& ring() {
  static DetailRing r;
  return r;
}

// Application classes and codes: kUserFirst + index, one record per value. A class is also a
// code of its own class (MPI-2.2 8.5).
constexpr int kUserFirst = 0x50000000;
static_assert(static_cast<long long>(kClassSpan) * (kSerials + 1) < kUserFirst, "disjoint ranges");
constexpr std::size_t kMaxUserCodes = 1u << 20;
struct UserCode {
  int error_class;
  std::string text;
};
struct UserCodes {
  std::mutex mutex;
  std::vector<UserCode> codes;
};
UserCodes& user_codes() {
  static UserCodes u;
  return u;
}
// The record of an application code, or nullptr (the caller holds the mutex).
UserCode* user_code(int code) {
  std::vector<UserCode>& v = user_codes().codes;
  if (code < kUserFirst || static_cast<std::size_t>(code - kUserFirst) >= v.size()) return nullptr;
  return &v[static_cast<std::size_t>(code - kUserFirst)];
}

thread_local char t_detail[MPI_MAX_ERROR_STRING];
thread_local bool t_has_detail = false;
thread_local bool t_is_report = false;  // the detail reports a process failure (fail_report)

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
    case MPI_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY: info key empty or too long";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE: info value too long";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY: no such info key";
    case MPIX_ERR_PROC_FAILED: return "MPIX_ERR_PROC_FAILED: a process involved has failed";
    case MPIX_ERR_PROC_FAILED_PENDING:
      return "MPIX_ERR_PROC_FAILED_PENDING: a process that could match this wildcard receive has "
             "failed and the failure is not acknowledged; the request is still pending";
    case MPIX_ERR_REVOKED: return "MPIX_ERR_REVOKED: the communicator has been revoked";
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
  t_is_report = false;
  return e;
}

Err fail_report(Err e, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_detail, sizeof t_detail, fmt, ap);
  va_end(ap);
  t_has_detail = true;
  t_is_report = true;
  return e;
}

int to_code(Err e) {
  int cls = static_cast<int>(e);
  if (e == Err::ok || !t_has_detail) return cls;
  t_has_detail = false;
  DetailRing& r = ring();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (cls == MPI_ERR_OTHER && t_is_report) {
    r.last_other = std::string(class_text(cls)) + ": " + t_detail;
    return cls;
  }
  if (const int u = ulfm_slot(cls); u >= 0) {
    r.last_ulfm[static_cast<std::size_t>(u)] = std::string(class_text(cls)) + ": " + t_detail;
    return cls;
  }
  const auto serial = static_cast<unsigned>(r.issued++ % kSerials);
  r.text[serial % kSlots] = std::string(class_text(cls)) + ": " + t_detail;
  r.serial[serial % kSlots] = serial;
  return cls + kClassSpan * static_cast<int>(serial + 1);
}

int error_class_of(int code) {
  if (code < 0) return MPI_ERR_UNKNOWN;
  if (code >= kUserFirst) {
    std::lock_guard<std::mutex> lock(user_codes().mutex);
    const UserCode* u = user_code(code);
    return u != nullptr ? u->error_class : MPI_ERR_UNKNOWN;
  }
  return code % kClassSpan;
}

Err add_error_class(int* errorclass) {
  UserCodes& u = user_codes();
  std::lock_guard<std::mutex> lock(u.mutex);
  if (u.codes.size() >= kMaxUserCodes) return fail(Err::other, "too many error classes and codes added");
  const int value = kUserFirst + static_cast<int>(u.codes.size());
  u.codes.push_back(UserCode{value, ""});
  *errorclass = value;
  return Err::ok;
}

Err add_error_code(int errorclass, int* errorcode) {
  UserCodes& u = user_codes();
  std::lock_guard<std::mutex> lock(u.mutex);
  const UserCode* c = user_code(errorclass);
  const bool predefined_class = errorclass >= 0 && errorclass < kClassSpan && class_text(errorclass) != nullptr;
  if (!predefined_class && (c == nullptr || c->error_class != errorclass)) {
    return fail(Err::arg, "%d is not an error class", errorclass);
  }
  if (u.codes.size() >= kMaxUserCodes) return fail(Err::other, "too many error classes and codes added");
  *errorcode = kUserFirst + static_cast<int>(u.codes.size());
  u.codes.push_back(UserCode{errorclass, ""});
  return Err::ok;
}

Err set_error_string(int errorcode, const char* text) {
  if (std::strlen(text) >= MPI_MAX_ERROR_STRING) {
    return fail(Err::arg, "an error string has at most %d characters", MPI_MAX_ERROR_STRING - 1);
  }
  std::lock_guard<std::mutex> lock(user_codes().mutex);
  UserCode* c = user_code(errorcode);
  if (c == nullptr) {
    return fail(Err::arg, "%d is not an error class or code added by MPI_Add_error_class/code "
                "(the strings of predefined ones cannot change)", errorcode);
  }
  c->text = text;
  return Err::ok;
}

int last_used_code() {
  std::lock_guard<std::mutex> lock(user_codes().mutex);
  const std::size_t n = user_codes().codes.size();
  return n == 0 ? MPI_ERR_LASTCODE : kUserFirst + static_cast<int>(n - 1);
}

bool error_text(int code, char* out, int* len) {
  if (code >= kUserFirst) {
    std::lock_guard<std::mutex> lock(user_codes().mutex);
    const UserCode* u = user_code(code);
    if (u == nullptr) return false;
    std::memcpy(out, u->text.c_str(), u->text.size() + 1);  // size checked when set
    *len = static_cast<int>(u->text.size());
    return true;
  }
  int cls = error_class_of(code);
  const char* base = class_text(cls);
  if (base == nullptr || code < 0) return false;
  std::string text = base;
  const int serial = code / kClassSpan - 1;
  if (code == MPI_ERR_OTHER) {
    DetailRing& r = ring();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.last_other.empty()) text = r.last_other;
  } else if (const int u = ulfm_slot(code); u >= 0) {
    DetailRing& r = ring();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.last_ulfm[static_cast<std::size_t>(u)].empty()) text = r.last_ulfm[static_cast<std::size_t>(u)];
  } else if (serial >= 0) {
    DetailRing& r = ring();
    std::lock_guard<std::mutex> lock(r.mutex);
    // A code to_code() has not handed out (yet) is not an error code.
    if (static_cast<unsigned>(serial) >= kSerials || static_cast<unsigned long long>(serial) >= r.issued) {
      return false;
    }
    const unsigned slot = static_cast<unsigned>(serial) % kSlots;
    if (r.serial[slot] == static_cast<unsigned>(serial)) {
      text = r.text[slot];
    } else {
      text += " (the detail of this error is no longer kept)";
    }
  }
  if (text.size() >= MPI_MAX_ERROR_STRING) text.resize(MPI_MAX_ERROR_STRING - 1);
  std::memcpy(out, text.c_str(), text.size() + 1);
  *len = static_cast<int>(text.size());
  return true;
}

int callback_error_code(Err e, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  return rc != MPI_SUCCESS && error_text(rc, text, &len) ? rc : to_code(e);
}

}  // namespace ftmpi
