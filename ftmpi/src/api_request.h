// Helpers the C API files share for finishing requests (api_p2p.cpp, api_completion.cpp).
#pragma once

#include <mpi.h>

namespace ftmpi {

struct Request;

// Completed request -> user: fills the status, unpacks a staged receive, recycles the record,
// sets the handle to MPI_REQUEST_NULL and returns the request's error code.
int retire(Request* r, MPI_Status* st, MPI_Request* handle);
// The status of a null or inactive request (MPI-1.3 3.7.3).
void fill_empty_status(MPI_Status* st);

}  // namespace ftmpi
