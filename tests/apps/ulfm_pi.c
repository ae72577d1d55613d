/* A ULFM application written the usual way (nothing ftmpi-specific): pi by the midpoint rule,
 * one slice of [0,1] per step, the slice's points dealt out over the live processes. An error
 * handler revokes the communicator on any process failure so that everybody leaves whatever
 * they are blocked in; after each step the survivors agree (MPIX_Comm_agree) on whether it
 * worked everywhere; if not, they shrink the communicator and redo the step with fewer
 * processes. Rank 0 of the final communicator checks the result against a serial sum.
 *   ulfm_pi STEPS [R@S ...]      world rank R dies (SIGKILL) at the start of step S
 * Builds against ftmpi (mpi-ext.h, Open MPI's header) and MPICH (MPIX_ in mpi.h). */
#include <math.h>
#include <mpi.h>
#if !defined(MPICH)
#include <mpi-ext.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define POINTS_PER_STEP 200000

static void revoke_on_failure(MPI_Comm *comm, int *code, ...) {
  int cls;
  MPI_Error_class(*code, &cls);
  if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED) MPI_Abort(*comm, *code);
  MPIX_Comm_revoke(*comm);  /* the others leave their pending operations too */
}

/* The midpoint sum of 4/(1+x^2) over slice `step` of `steps`, points dealt round-robin. */
static double slice(int step, int steps, int rank, int size) {
  const double h = 1.0 / ((double)steps * POINTS_PER_STEP);
  double s = 0;
  for (long i = rank; i < POINTS_PER_STEP; i += size) {
    double x = ((double)step * POINTS_PER_STEP + i + 0.5) * h;
    s += 4.0 / (1.0 + x * x) * h;
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank, steps = argc > 1 ? atoi(argv[1]) : 20, die_at = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (steps < 1) { fprintf(stderr, "usage: ulfm_pi STEPS [R@S ...]\n"); return 2; }
  for (int a = 2; a < argc; a++) {
    int r, s;
    if (sscanf(argv[a], "%d@%d", &r, &s) == 2 && r == wrank) die_at = s;
  }
  MPI_Comm comm;
  MPI_Errhandler eh;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_create_errhandler(revoke_on_failure, &eh);
  MPI_Comm_set_errhandler(comm, eh);

  double pi = 0;
  int recoveries = 0;
  for (int step = 0; step < steps;) {
    if (step == die_at) raise(SIGKILL);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double part = slice(step, steps, rank, size), sum = 0;
    int rc = MPI_Allreduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    int ok = rc == MPI_SUCCESS;
    /* Uniform verdict: an error here too means somebody died before contributing. */
    rc = MPIX_Comm_agree(comm, &ok);
    if (rc == MPI_SUCCESS && ok) {
      pi += sum;
      step++;
      continue;
    }
    MPI_Comm shrunk;
    MPIX_Comm_shrink(comm, &shrunk);
    MPI_Comm_free(&comm);
    comm = shrunk;
    MPI_Comm_set_errhandler(comm, eh);
    recoveries++;
  }
  int rank, size, wsize;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (rank == 0) {
    double serial = 0;
    for (int s = 0; s < steps; s++) serial += slice(s, steps, 0, 1);
    const int good = fabs(pi - serial) < 1e-12 && fabs(pi - M_PI) < 1e-9;
    printf("ulfm_pi: pi = %.15f on %d of %d processes after %d recoveries: %s\n", pi, size, wsize,
           recoveries, good ? "CORRECT" : "WRONG");
    if (!good) MPI_Abort(comm, 1);
  }
  MPI_Comm_free(&comm);
  MPI_Errhandler_free(&eh);
  MPI_Finalize();
  return 0;
}
