/* Bad arguments under MPI_ERRORS_RETURN give the right error class and a useful string, and
 * never crash; MPI_ERR_TRUNCATE on a short receive buffer. Any size >= 2. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, failures;
static void expect(int rc, int cls, const char *what) {
  int got;
  MPI_Error_class(rc, &got);
  char s[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, s, &len);
  if (got != cls) {
    fprintf(stderr, "rank %d: FAIL %s: class %d, expected %d (%s)\n", rank, what, got, cls, s);
    failures++;
  } else if (rank == 0) {
    printf("  %-28s -> %s\n", what, s);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  if (eh != MPI_ERRORS_RETURN) failures++;
  int v = 0;
  MPI_Request r;
  expect(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send to rank size");
  expect(MPI_Send(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send to rank -7");
  expect(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "negative count");
  expect(MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "negative tag");
  expect(MPI_Send(&v, 1, MPI_INT, 0, 1 << 30, MPI_COMM_WORLD), MPI_ERR_TAG, "tag above MPI_TAG_UB");
  expect(MPI_Send(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "send with ANY_TAG");
  expect(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "null communicator");
  expect(MPI_Send(&v, 1, MPI_INT, 0, 0, (MPI_Comm)12345), MPI_ERR_COMM, "garbage communicator");
  expect(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "null datatype");
  expect(MPI_Send(&v, 1, (MPI_Datatype)9999, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "garbage datatype");
  expect(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "NULL buffer, count 3");
  expect(MPI_Recv(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK, "recv from size+1");
  expect(MPI_Recv(&v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG, "recv tag -3");
  expect(MPI_Irecv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST, "irecv NULL request");
  r = (MPI_Request)777;
  expect(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "wait on garbage request");
  expect(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)55), MPI_ERR_ARG, "garbage errhandler");

  /* One request twice in an array: MPI_ERR_REQUEST before any waiting, in a short array and in
   * a long one; an array naming it once is fine, also right after (the check is per call). */
  MPI_Request pend, arr[40];
  int flag = 1, idx, n, idxs[40];
  MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &pend);
  arr[0] = arr[1] = pend;
  expect(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "waitall, one request twice");
  for (int i = 0; i < 40; i++) arr[i] = MPI_REQUEST_NULL;
  arr[3] = arr[37] = pend;
  expect(MPI_Waitall(40, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "waitall of 40, twice");
  expect(MPI_Waitany(40, arr, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "waitany of 40, twice");
  expect(MPI_Waitsome(40, arr, &n, idxs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "waitsome of 40, twice");
  expect(MPI_Testall(40, arr, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "testall of 40, twice");
  arr[37] = (MPI_Request)4242;
  expect(MPI_Testall(40, arr, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "testall, a garbage one");
  arr[37] = MPI_REQUEST_NULL;
  for (int k = 0; k < 3; k++) {
    flag = 1;
    expect(MPI_Testall(40, arr, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS, "testall of 40, once");
    if (flag != 0) failures++;
  }
  expect(MPI_Testall(2, (MPI_Request[]){pend, MPI_REQUEST_NULL}, &flag, MPI_STATUSES_IGNORE),
         MPI_SUCCESS, "testall of 2, once");
  MPI_Cancel(&pend);
  expect(MPI_Wait(&pend, MPI_STATUS_IGNORE), MPI_SUCCESS, "cancelled receive");
  if (pend != MPI_REQUEST_NULL) failures++;

  /* Truncation: rank 1 sends 4 ints, rank 0 offers room for 2. */
  if (rank == 1) {
    int four[4] = {1, 2, 3, 4};
    MPI_Send(four, 4, MPI_INT, 0, 5, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int two[2];
    MPI_Status st;
    expect(MPI_Recv(two, 2, MPI_INT, 1, 5, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE, "short receive buffer");
  }
  /* Still usable afterwards. */
  int token = rank;
  if (rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (token != 0) failures++;
  }
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("p2p_errors: OK\n");
  return failures ? 1 : 0;
}
