#include "status_map.h"

#include <rdma/fi_errno.h>

namespace ftmpi::transport {

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::truncated: return "truncated";
    case Status::canceled: return "canceled";
    case Status::no_message: return "no_message";
    case Status::peer_failed: return "peer_failed";
    case Status::error: return "error";
  }
  return "unknown";
}

Status status_from_fi_error(int err) {
  switch (err) {
    case 0: return Status::ok;
    case FI_ETRUNC: return Status::truncated;
    case FI_ECANCELED: return Status::canceled;
    case FI_ENOMSG: return Status::no_message;
    // tcp;ofi_rxm reports a dead peer through these (socket errors surface as-is); FI_EIO is
    // what rxm uses when a connection it was using shuts down under an operation.
    case FI_ECONNRESET:
    case FI_ECONNREFUSED:
    case FI_ECONNABORTED:
    case FI_ENOTCONN:
    case FI_EHOSTUNREACH:
    case FI_EHOSTDOWN:
    case FI_ENETUNREACH:
    case FI_ENETDOWN:
    case FI_ETIMEDOUT:
    case FI_EIO:
    case EPIPE:
      return Status::peer_failed;
    default: return Status::error;
  }
}

}  // namespace ftmpi::transport
