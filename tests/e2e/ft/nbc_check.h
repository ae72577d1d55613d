/* What the nonblocking, persistent and neighbourhood collective fault tests (ft_nbc.c,
 * ft_pcoll.c, ft_neighbor.c) share: their start, CHECK counting failures in `bad`, completing
 * a request by MPI_Wait or by polling MPI_Test while computing, and an error code's class. */
#pragma once

#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <stdio.h>
#include <stdlib.h>

static int world_rank, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "world rank %d: FAIL line %d: ", world_rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad++; } } while (0)

/* poll: MPI_Test in a loop with some computing between the calls, else MPI_Wait. */
static inline int complete(MPI_Request *q, int poll) {
  if (!poll) return MPI_Wait(q, MPI_STATUS_IGNORE);
  int flag = 0, rc = MPI_SUCCESS;
  volatile double x = 0;
  while (!flag && rc == MPI_SUCCESS) {
    rc = MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    for (int i = 0; i < 1000; i++) x += i;
  }
  return rc;
}

static inline int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* The start of each: MPI_Init, world_rank, ROUNDS (argv[1], default 1), whether the world is in
 * ULFM mode (mode: FTMPI_Comm_get_mode's) and the error class a failed collective gets there
 * (else MPI_ERR_OTHER), and a dup of MPI_COMM_WORLD that returns errors. */
struct ft_start {
  int rounds, mode, ulfm, expected;
  MPI_Comm comm;
};
static inline struct ft_start ft_start(int *argc, char ***argv) {
  struct ft_start s;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  s.rounds = *argc > 1 ? atoi((*argv)[1]) : 1;
  int msg = 0;
  s.mode = 0;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &s.mode, &msg);
  s.ulfm = s.mode == FTMPI_COMM_MODE_ULFM;
  s.expected = s.ulfm ? MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER;
  MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
  MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
  return s;
}
