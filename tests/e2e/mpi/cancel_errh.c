/* MPI_Cancel of a posted receive (MPI_Test_cancelled true, buffer untouched), a cancelled
 * receive's handle completes with Wait; user error handlers get the communicator and the
 * code, and the call returns the code. Any size. */
#include <mpi.h>
#include <stdio.h>

static int rank, failures, handler_calls, handler_code;
static MPI_Comm handler_comm;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void on_error(MPI_Comm *comm, int *code, ...) {
  handler_calls++;
  handler_comm = *comm;
  handler_code = *code;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int v = 123, flag = 0;
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1 && v == 123 && r == MPI_REQUEST_NULL, "cancelled receive (flag %d, v %d)", flag, v);
  /* A receive that matched is not cancelled. */
  int w = 0;
  MPI_Irecv(&w, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r);
  MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
  for (int i = 0; i < 1000; i++) { int done; MPI_Test(&r, &done, &st); if (done) break; }
  if (r != MPI_REQUEST_NULL) { MPI_Cancel(&r); MPI_Wait(&r, &st); }
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0 && w == rank, "matched receive is not cancelled (flag %d)", flag);

  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, eh);
  int rc = MPI_Send(&v, 1, MPI_INT, size + 3, 0, dup), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK && handler_calls == 1 && handler_comm == dup && handler_code == rc,
        "user handler called once with the communicator and code (calls %d)", handler_calls);
  MPI_Errhandler got;
  MPI_Comm_get_errhandler(dup, &got);
  CHECK(got == eh, "get_errhandler");
  MPI_Errhandler_free(&eh);
  CHECK(eh == MPI_ERRHANDLER_NULL, "free nulls the handle");
  MPI_Comm_free(&dup);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("cancel_errh: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
