/* (NULL, 0, MPI_DATATYPE_NULL) in point-to-point calls: no element travels, so no type is
 * needed; MPICH and Open MPI accept it (MPICH's pt2pt/recvnull). With a count above 0 the null
 * type stays an error (MPI_ERR_TYPE). Blocking, nonblocking, persistent and Sendrecv, to a real
 * peer (an empty message arrives, status count 0) and to MPI_PROC_NULL. */
#include <mpi.h>
#include <stdio.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  int size, count = -1, cls;
  MPI_Status st;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const MPI_Datatype N = MPI_DATATYPE_NULL;
  /* MPI_PROC_NULL: the status of a receive from nobody. */
  CHECK(MPI_Irecv(NULL, 0, N, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Irecv");
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "Wait");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Irecv PROC_NULL status");
  CHECK(MPI_Recv(NULL, 0, N, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "Recv");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Recv PROC_NULL status");
  CHECK(MPI_Send(NULL, 0, N, MPI_PROC_NULL, 10, MPI_COMM_WORLD) == MPI_SUCCESS, "Send");
  /* A real peer: the ring neighbours exchange empty messages every way. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK(MPI_Sendrecv(NULL, 0, N, right, 1, NULL, 0, N, left, 1, MPI_COMM_WORLD, &st) ==
        MPI_SUCCESS, "Sendrecv");
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1 && count == 0, "Sendrecv status");
  MPI_Request rs[4];
  CHECK(MPI_Irecv(NULL, 0, N, left, 2, MPI_COMM_WORLD, &rs[0]) == MPI_SUCCESS, "Irecv peer");
  CHECK(MPI_Isend(NULL, 0, N, right, 2, MPI_COMM_WORLD, &rs[1]) == MPI_SUCCESS, "Isend peer");
  CHECK(MPI_Recv_init(NULL, 0, N, left, 3, MPI_COMM_WORLD, &rs[2]) == MPI_SUCCESS, "Recv_init");
  CHECK(MPI_Send_init(NULL, 0, N, right, 3, MPI_COMM_WORLD, &rs[3]) == MPI_SUCCESS, "Send_init");
  MPI_Startall(2, &rs[2]);
  CHECK(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
  MPI_Request_free(&rs[2]);
  MPI_Request_free(&rs[3]);
  /* One element of no type is still an error. */
  int e = MPI_Send(&count, 1, N, right, 4, MPI_COMM_WORLD);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TYPE, "Send of 1 MPI_DATATYPE_NULL: class %d", cls);
  e = MPI_Irecv(&count, 1, N, left, 4, MPI_COMM_WORLD, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TYPE, "Irecv of 1 MPI_DATATYPE_NULL: class %d", cls);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("null_type_zero_count: OK\n");
  MPI_Finalize();
  return all != 0;
}
