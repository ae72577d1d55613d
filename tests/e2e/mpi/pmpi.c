/* pmpi.c — the profiling interface (MPI-3.1 14.2) as a tool uses it: this program defines
 * MPI_Send, MPI_Isend, MPI_Allreduce, MPI_Wtime and MPIX_Comm_agree itself, counts the calls and
 * forwards them to the PMPI_ names. The application's calls must reach these wrappers exactly
 * once each, and the library's own calls never (MPI_Sendrecv is made of an Isend inside the
 * library; MPI_Allreduce of sends): a tool must see what the application did.
 *
 *   mpirun -n N pmpi        prints "pmpi: OK" */
#include <mpi.h>
#include <stdio.h>

static int sends, isends, allreduces, wtimes, agrees;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  ++isends;
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(in, out, count, type, op, comm);
}
double MPI_Wtime(void) {
  ++wtimes;
  return PMPI_Wtime();
}
int MPIX_Comm_agree(MPI_Comm comm, int* flag) {
  ++agrees;
  return PMPIX_Comm_agree(comm, flag);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* 3 sends round the ring (even ranks send first, so nobody waits on a cycle). */
  for (int i = 0; i < 3; ++i) {
    int token = rank * 10 + i, got = -1;
    if (rank % 2 == 0) {
      MPI_Send(&token, 1, MPI_INT, right, i, MPI_COMM_WORLD);
      MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_INT, right, i, MPI_COMM_WORLD);
    }
    if (got != left * 10 + i) ++errors;
  }
  /* Made of an Isend and an Irecv inside the library: not the application's Isend. */
  int out = rank, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (in != left) ++errors;
  MPI_Request r;
  MPI_Isend(&out, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &r);
  MPI_Recv(&in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  const double t0 = MPI_Wtime();
  (void)t0;
  int flag = 1;
  MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
  /* A call the program does not wrap still works, under both names. */
  int n1 = 0, n2 = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n1);
  PMPI_Comm_size(MPI_COMM_WORLD, &n2);
  if (n1 != size || n2 != size) ++errors;

  if (sends != 3 || isends != 1 || wtimes != 1 || agrees != 1 || allreduces != 0) {
    fprintf(stderr, "pmpi: rank %d: counted sends %d isends %d wtimes %d agrees %d allreduces %d "
            "(expected 3 1 1 1 0)\n", rank, sends, isends, wtimes, agrees, allreduces);
    ++errors;
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (allreduces != 1) {
    fprintf(stderr, "pmpi: rank %d: MPI_Allreduce counted %d times\n", rank, allreduces);
    ++total;
  }
  if (rank == 0 && total == 0) printf("pmpi: OK\n");
  MPI_Finalize();
  return total != 0;
}
