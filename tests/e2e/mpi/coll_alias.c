/* coll_alias.c — a collective whose send buffer is this process's own block of its receive
 * buffer (what MPI_IN_PLACE is for) is refused with MPI_ERR_BUFFER at once, at every process
 * that passes it, blocking or not, also when only the root calls (MPICH's errors/coll/noalias2
 * hung: the members whose block it was went ahead and waited for the one that refused). Then
 * correct collectives still work. Also MPI_Reduce_local's buffer checks, and MPI_Comm_dup
 * returning a failing attribute copy callback's own error code.
 *
 *   mpirun -n N coll_alias      prints "coll_alias: OK" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors = 0;
static int rank = 0, size = 0;

static void expect_class(int rc, int want, const char* what) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (cls != want) {
    fprintf(stderr, "coll_alias: rank %d: %s returned class %d, expected %d\n", rank, what, cls, want);
    ++errors;
  }
}

static void expect_refused_start(int rc, MPI_Request req, const char* what) {
  expect_class(rc, MPI_ERR_BUFFER, what);
  if (req != MPI_REQUEST_NULL) {
    fprintf(stderr, "coll_alias: rank %d: %s returned a request\n", rank, what);
    ++errors;
  }
}

static int deleted = 0;
static int failing_copy(MPI_Comm comm, int key, void* extra, void* in, void* out, int* flag) {
  (void)comm; (void)key; (void)in; (void)out;
  *flag = 0;
  return *(int*)extra;  /* the application's own error code */
}
static int passing_copy(MPI_Comm comm, int key, void* extra, void* in, void* out, int* flag) {
  (void)comm; (void)key; (void)extra;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Comm comm, int key, void* val, void* extra) {
  (void)comm; (void)key; (void)val; (void)extra;
  ++deleted;
  return MPI_SUCCESS;
}

static void check_dup_copy_failure(void) {
  int my_class = 0, my_code = 0, k_pass = 0, k_fail = 0, value = 1;
  MPI_Add_error_class(&my_class);
  MPI_Add_error_code(my_class, &my_code);
  MPI_Comm parent, child = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &parent);
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  /* The passing key first, so one attribute is already on the duplicate when the copy fails. */
  MPI_Comm_create_keyval(passing_copy, count_delete, &k_pass, NULL);
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &k_fail, &my_code);
  MPI_Comm_set_attr(parent, k_pass, &value);
  MPI_Comm_set_attr(parent, k_fail, &value);
  const int rc = MPI_Comm_dup(parent, &child);
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (rc != my_code || cls != my_class || child != MPI_COMM_NULL) {
    fprintf(stderr, "coll_alias: rank %d: MPI_Comm_dup with a failing copy callback: rc %d class %d "
            "(expected code %d class %d), newcomm %s\n", rank, rc, cls, my_code, my_class,
            child == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    ++errors;
  }
  const int deleted_by_dup = deleted;  /* the duplicate's copied attribute went with it */
  MPI_Comm_free(&parent);               /* and the parent's one now */
  if (deleted_by_dup != 1 || deleted != 2) {
    fprintf(stderr, "coll_alias: rank %d: delete callbacks %d then %d, expected 1 then 2\n", rank,
            deleted_by_dup, deleted);
    ++errors;
  }
  MPI_Comm_free_keyval(&k_pass);
  MPI_Comm_free_keyval(&k_fail);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const MPI_Comm w = MPI_COMM_WORLD;
  int* buf = calloc((size_t)size * 2, sizeof(int));
  int* counts = calloc((size_t)size, sizeof(int));
  int* displs = calloc((size_t)size, sizeof(int));
  for (int i = 0; i < size; ++i) { counts[i] = 2; displs[i] = 2 * i; }
  int* mine = buf + 2 * rank;
  MPI_Request req;

  /* Every process passes its own block: refused everywhere (rank 0's block is the buffer
   * itself, the others' lie inside it). */
  expect_class(MPI_Allgather(mine, 2, MPI_INT, buf, 2, MPI_INT, w), MPI_ERR_BUFFER, "MPI_Allgather");
  expect_class(MPI_Allgatherv(mine, 2, MPI_INT, buf, counts, displs, MPI_INT, w), MPI_ERR_BUFFER,
               "MPI_Allgatherv");
  req = MPI_REQUEST_NULL;
  expect_refused_start(MPI_Iallgather(mine, 2, MPI_INT, buf, 2, MPI_INT, w, &req), req, "MPI_Iallgather");
  req = MPI_REQUEST_NULL;
  expect_refused_start(MPI_Iallgatherv(mine, 2, MPI_INT, buf, counts, displs, MPI_INT, w, &req), req,
                       "MPI_Iallgatherv");

  /* Only the root calls (as in noalias2): it must return, not wait. The last root is the one
   * whose block is not at the start of the buffer. */
  const int root = size - 1;
  if (rank == root) {
    expect_class(MPI_Gather(mine, 2, MPI_INT, buf, 2, MPI_INT, root, w), MPI_ERR_BUFFER, "MPI_Gather");
    expect_class(MPI_Gatherv(mine, 2, MPI_INT, buf, counts, displs, MPI_INT, root, w), MPI_ERR_BUFFER,
                 "MPI_Gatherv");
    expect_class(MPI_Scatter(buf, 2, MPI_INT, mine, 2, MPI_INT, root, w), MPI_ERR_BUFFER, "MPI_Scatter");
    expect_class(MPI_Scatterv(buf, counts, displs, MPI_INT, mine, 2, MPI_INT, root, w), MPI_ERR_BUFFER,
                 "MPI_Scatterv");
    req = MPI_REQUEST_NULL;
    expect_refused_start(MPI_Igather(mine, 2, MPI_INT, buf, 2, MPI_INT, root, w, &req), req, "MPI_Igather");
    req = MPI_REQUEST_NULL;
    expect_refused_start(MPI_Iscatterv(buf, counts, displs, MPI_INT, mine, 2, MPI_INT, root, w, &req), req,
                         "MPI_Iscatterv");
  }

  /* MPI_Reduce_local: no MPI_IN_PLACE on either side, no aliasing. */
  int a[2] = {1, 2}, b[2] = {10, 20};
  expect_class(MPI_Reduce_local(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local(IN_PLACE, b)");
  expect_class(MPI_Reduce_local(a, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local(a, IN_PLACE)");
  expect_class(MPI_Reduce_local(b, b, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local(b, b)");
  expect_class(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_SUM), MPI_SUCCESS, "MPI_Reduce_local(a, b)");
  if (b[0] != 11 || b[1] != 22) { fprintf(stderr, "coll_alias: Reduce_local gave %d %d\n", b[0], b[1]); ++errors; }

  check_dup_copy_failure();

  /* Nothing was left half started: correct collectives work, in the same order everywhere. */
  mine[0] = rank; mine[1] = -rank;
  expect_class(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, w), MPI_SUCCESS,
               "MPI_Allgather(IN_PLACE)");
  for (int i = 0; i < size; ++i) {
    if (buf[2 * i] != i || buf[2 * i + 1] != -i) { fprintf(stderr, "coll_alias: rank %d: block %d wrong\n", rank, i); ++errors; break; }
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, w);
  if (rank == 0 && total == 0) printf("coll_alias: OK\n");
  free(buf); free(counts); free(displs);
  MPI_Finalize();
  return total != 0;
}
