// One status type for the library core. The place that first sees an error describes it with
// fail(); the C API edge turns it into an MPI error code (class + detail) with to_code().
#pragma once

#include <mpi.h>
#include <mpi-ext.h>

namespace ftmpi {

// The fault-tolerance checks on the point-to-point fast path (communicator state, failed
// peers, pending failure events). Only for measuring what they cost: configure with
// -DFTMPI_WITHOUT_FT=ON to compile them out (tests/bench/ft_overhead.sh); such a build must
// never see a failure.
#ifdef FTMPI_WITHOUT_FT
inline constexpr bool kFtChecks = false;
#else
inline constexpr bool kFtChecks = true;
#endif

enum class [[nodiscard]] Err : int {
  ok = MPI_SUCCESS,
  buffer = MPI_ERR_BUFFER,
  count = MPI_ERR_COUNT,
  type = MPI_ERR_TYPE,
  tag = MPI_ERR_TAG,
  comm = MPI_ERR_COMM,
  rank = MPI_ERR_RANK,
  request = MPI_ERR_REQUEST,
  root = MPI_ERR_ROOT,
  group = MPI_ERR_GROUP,
  op = MPI_ERR_OP,
  topology = MPI_ERR_TOPOLOGY,
  dims = MPI_ERR_DIMS,
  arg = MPI_ERR_ARG,
  truncate = MPI_ERR_TRUNCATE,
  other = MPI_ERR_OTHER,  // also: a process failure (FT-MPI's convention)
  intern = MPI_ERR_INTERN,
  in_status = MPI_ERR_IN_STATUS,
  pending = MPI_ERR_PENDING,
  keyval = MPI_ERR_KEYVAL,
  no_mem = MPI_ERR_NO_MEM,
  info = MPI_ERR_INFO,
  info_key = MPI_ERR_INFO_KEY,
  info_value = MPI_ERR_INFO_VALUE,
  info_nokey = MPI_ERR_INFO_NOKEY,
  // ULFM (mpi-ext.h): what a communicator in FTMPI_COMM_MODE_ULFM, or a revoked one, reports.
  proc_failed = MPIX_ERR_PROC_FAILED,
  proc_failed_pending = MPIX_ERR_PROC_FAILED_PENDING,
  revoked = MPIX_ERR_REVOKED,
};

// Records a human-readable detail for the error about to be returned (printf-style).
Err fail(Err e, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The same, for an error that reports a process failure. SPEC 4.7: its code is exactly
// MPI_ERR_OTHER (not a detail code of that class), so `if (rc == MPI_ERR_OTHER)` works;
// MPI_Error_string(MPI_ERR_OTHER) then shows the latest such detail (the failed rank).
Err fail_report(Err e, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Turns an Err (with the detail recorded last on this thread, if any) into an MPI error code.
// Codes above the class range carry their detail: MPI_Error_string shows it.
int to_code(Err e);
int error_class_of(int code);
// What a call returns when a user callback it ran (an attribute copy) failed with `rc`: rc
// itself when MPI_Error_class knows it (an application's own class or code included, so the
// application gets back what it returned, as MPICH does: its errors/comm/userdup checks), else
// the library's code for `e`.
int callback_error_code(Err e, int rc);
// Writes the text for a code; returns false for a code that is not ours.
bool error_text(int code, char* out, int* len);

// Error classes and codes the application adds (MPI_Add_error_class/code/string). They live
// above every detail code to_code() can hand out, so neither can be mistaken for the other.
Err add_error_class(int* errorclass);
Err add_error_code(int errorclass, int* errorcode);
Err set_error_string(int errorcode, const char* text);
// MPI_LASTUSEDCODE: the largest code or class in use (MPI_ERR_LASTCODE until one is added).
int last_used_code();

}  // namespace ftmpi
