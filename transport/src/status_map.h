// Translation of libfabric error numbers into our Status: the one place that decides which
// provider errors mean "the peer is gone".
#pragma once

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport {

// err is a positive libfabric error number (FI_E*), as in fi_cq_err_entry::err or -ret.
Status status_from_fi_error(int err);

}  // namespace ftmpi::transport
