/* What the nonblocking and persistent collective fault tests (ft_nbc.c, ft_pcoll.c) share:
 * CHECK counting failures in `bad`, completing a request by MPI_Wait or by polling MPI_Test
 * while computing, and an error code's class. */
#pragma once

#include <mpi.h>
#include <stdio.h>

static int world_rank, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "world rank %d: FAIL line %d: ", world_rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad++; } } while (0)

/* poll: MPI_Test in a loop with some computing between the calls, else MPI_Wait. */
static int complete(MPI_Request *q, int poll) {
  if (!poll) return MPI_Wait(q, MPI_STATUS_IGNORE);
  int flag = 0, rc = MPI_SUCCESS;
  volatile double x = 0;
  while (!flag && rc == MPI_SUCCESS) {
    rc = MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    for (int i = 0; i < 1000; i++) x += i;
  }
  return rc;
}

static int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}
