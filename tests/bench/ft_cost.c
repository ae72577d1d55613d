/* The software path of fault tolerance, counted in instructions (ft_overhead.sh runs it under
 * valgrind --tool=callgrind, once against each library): n rounds of an 8 B MPI_Isend to
 * itself, MPI_Recv, MPI_Wait (the whole point-to-point path: argument and failure checks,
 * matching, the transport, completion), then n rounds of 8 B MPI_Allreduce and MPI_Bcast on one
 * rank (the collective entry path), and n rounds of a blocking 8 B MPI_Send + MPI_Recv to
 * itself (send_rounds). Instruction counts do not depend on the machine's load, so
 * they resolve differences far below what timing on a shared machine can.
 *   ft_cost [n]   (default 20000; run with 1 rank) */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void p2p_rounds(int n) {
  double a = 1, b;
  MPI_Request r;
  for (int i = 0; i < n; i++) {
    MPI_Isend(&a, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r);
    MPI_Recv(&b, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}

/* The blocking pair a ping-pong makes: MPI_Send (which may finish without a request) and
 * MPI_Recv, to itself. */
__attribute__((noinline)) void send_rounds(int n) {
  double a = 1, b;
  for (int i = 0; i < n; i++) {
    MPI_Send(&a, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

__attribute__((noinline)) void coll_rounds(int n) {
  double a = 1, b;
  for (int i = 0; i < n; i++) {
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&a, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  p2p_rounds(100); /* warm up: first-touch allocations are not the steady state */
  send_rounds(100);
  coll_rounds(100);
  p2p_rounds(n);
  send_rounds(n);
  coll_rounds(n);
  MPI_Finalize();
  return 0;
}
