/* The mpi2x calls under failure:  ft_mpi2x VICTIM  (SHRINK or ULFM mode, 4+ ranks)
 * The victim SIGKILLs itself while every survivor has a receive from it pending in a Waitall
 * beside a generalized request (which names no process, so no failure touches it): the
 * receive fails, the generalized request completes normally (its query_fn's status and
 * MPI_SUCCESS in its slot, free_fn once), whatever the mode. A datatype with an attribute and
 * an MPI_Alloc_mem block are made before the failure and used after the repair (MPI_Comm_dup
 * in SHRINK mode, MPIX_Comm_shrink in ULFM mode): an MPI_Type_create_f90_real type reduces
 * among the survivors into the block, and a buffer packed with MPI_Pack_external travels. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int queries, frees, bad, rank;
#define CHECK(c, ...) do { if (!(c)) { printf("rank %d: FAIL line %d: ", rank, __LINE__); \
  printf(__VA_ARGS__); putchar('\n'); bad++; } } while (0)

static int query_fn(void *extra, MPI_Status *st) {
  (void)extra;
  queries++;
  st->MPI_TAG = 123;
  return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; frees++; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  int mode = 0, flag = 0;
  int *mode_p = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_MODE, &mode_p, &flag);
  if (flag) mode = *mode_p;

  int key;
  MPI_Datatype pair;
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &key, NULL);
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_set_attr(pair, key, &rank);
  double *block = NULL;
  MPI_Alloc_mem(4 * sizeof(double), MPI_INFO_NULL, &block);

  MPI_Request reqs[2];
  int from_victim = 0;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &reqs[1]);
  if (rank != victim) MPI_Irecv(&from_victim, 1, MPI_INT, victim, 7, MPI_COMM_WORLD, &reqs[0]);
  MPI_Barrier(MPI_COMM_WORLD);  /* every receive is posted */
  if (rank == victim) raise(SIGKILL);
  MPI_Grequest_complete(reqs[1]);
  MPI_Status st[2];
  int rc = MPI_Waitall(2, reqs, st);
  CHECK(rc == MPI_ERR_IN_STATUS && st[0].MPI_ERROR != MPI_SUCCESS, "the receive from the dead rank: rc %d", rc);
  CHECK(st[1].MPI_ERROR == MPI_SUCCESS && st[1].MPI_TAG == 123 && queries == 1 && frees == 1,
        "the generalized request: error %d tag %d queries %d frees %d", st[1].MPI_ERROR, st[1].MPI_TAG,
        queries, frees);

  MPI_Comm survivors;
  if (mode == FTMPI_COMM_MODE_ULFM) {
    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors);
  } else {
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &survivors);  /* SHRINK: the constructor repairs */
  }
  CHECK(rc == MPI_SUCCESS, "repair: rc %d", rc);
  int n, r;
  MPI_Comm_size(survivors, &n);
  MPI_Comm_rank(survivors, &r);
  CHECK(n == size - 1, "%d survivors", n);
  /* The datatype and its attribute outlive the failure. */
  MPI_Datatype dup;
  int *got = NULL;
  MPI_Type_dup(pair, &dup);
  MPI_Type_get_attr(dup, key, &got, &flag);
  CHECK(flag && got == &rank, "attribute copied after the failure");
  /* An f90 type reduces into the MPI_Alloc_mem block among the survivors. */
  MPI_Datatype real8;
  MPI_Type_create_f90_real(15, MPI_UNDEFINED, &real8);
  double mine[2] = {1.0, (double)r};
  CHECK(MPI_Allreduce(mine, block, 2, real8, MPI_SUM, survivors) == MPI_SUCCESS &&
        block[0] == n && block[1] == n * (n - 1) / 2.0, "f90 allreduce: %g %g", block[0], block[1]);
  /* external32 data around the survivors' ring. */
  char out[16], in[16];
  MPI_Aint pos = 0;
  long v = 1000 + r, w = 0;
  MPI_Pack_external("external32", &v, 1, MPI_LONG, out, sizeof out, &pos);
  MPI_Sendrecv(out, (int)pos, MPI_BYTE, (r + 1) % n, 1, in, (int)pos, MPI_BYTE, (r + n - 1) % n, 1,
               survivors, MPI_STATUS_IGNORE);
  pos = 0;
  MPI_Unpack_external("external32", in, 4, &pos, &w, 1, MPI_LONG);
  CHECK(w == 1000 + (r + n - 1) % n, "external32 ring: %ld", w);

  MPI_Type_free(&dup);
  MPI_Type_free(&pair);
  MPI_Type_free_keyval(&key);
  MPI_Free_mem(block);
  int allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, survivors);
  if (r == 0 && allbad == 0) printf("ft_mpi2x OK\n");
  MPI_Comm_free(&survivors);
  MPI_Finalize();
  return allbad != 0;
}
