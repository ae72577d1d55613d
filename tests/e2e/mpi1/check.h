/* Self-checking helpers for the MPI-1 conformance programs: every failed check prints where and
 * what, and the program's exit status counts them. */
#ifndef FTMPI_E2E_CHECK_H
#define FTMPI_E2E_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);          \
      check_failures++;                                                         \
    }                                                                           \
  } while (0)

#define CHECK_EQ(got, want)                                                     \
  do {                                                                          \
    long long g_ = (long long)(got), w_ = (long long)(want);                    \
    if (g_ != w_) {                                                             \
      fprintf(stderr, "%s:%d: FAIL: %s = %lld, expected %lld\n", __FILE__,      \
              __LINE__, #got, g_, w_);                                          \
      check_failures++;                                                         \
    }                                                                           \
  } while (0)

/* The call must fail with error class `cls` (under MPI_ERRORS_RETURN). */
#define CHECK_CLASS(call, cls)                                                  \
  do {                                                                          \
    int rc_ = (call), c_ = MPI_SUCCESS;                                         \
    MPI_Error_class(rc_, &c_);                                                  \
    if (c_ != (cls)) {                                                          \
      char s_[MPI_MAX_ERROR_STRING];                                            \
      int l_ = 0;                                                               \
      s_[0] = 0;                                                                \
      if (rc_ != MPI_SUCCESS) MPI_Error_string(rc_, s_, &l_);                   \
      fprintf(stderr, "%s:%d: FAIL: %s gave class %d (%s), expected %s\n",      \
              __FILE__, __LINE__, #call, c_, s_, #cls);                         \
      check_failures++;                                                         \
    }                                                                           \
  } while (0)

/* Ends the program: prints "<name>: OK" on rank 0 when every rank passed. */
static int check_finish(const char *name) {
  int rank = 0, total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0) printf("%s: OK\n", name);
    else printf("%s: %d check(s) FAILED\n", name, total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

#endif
