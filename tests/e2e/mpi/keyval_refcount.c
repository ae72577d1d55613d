/* Keyvals are reference counted the way MPICH's are (MPICH's attr/keyval_double_free and
 * keyval_double_free_comm): a freed keyval that an attribute still holds stays valid until that
 * attribute is deleted, so freeing it again meanwhile -- also from the attribute's own delete
 * callback, which runs with the key still valid -- is no error. Once no attribute holds it,
 * the handle is invalid (MPI_ERR_KEYVAL). Both the MPI-1 and the MPI-2 calls. */
#include <mpi.h>
#include <stdio.h>

static int rank, failures, deletes, callback_errors;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* Frees its key, as the MPICH tests do; the key is valid while the callback runs. */
static int delete_frees_key(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm; (void)attr; (void)extra;
  deletes++;
  if (MPI_Comm_free_keyval(&keyval) != MPI_SUCCESS) callback_errors++;
  return MPI_SUCCESS;
}

static void round_trip(int use_mpi1) {
  MPI_Comm dup;
  int key = MPI_KEYVAL_INVALID, copy, cls, flag = 0;
  void *got = NULL;
  deletes = callback_errors = 0;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (use_mpi1) MPI_Keyval_create(MPI_NULL_COPY_FN, delete_frees_key, &key, NULL);
  else MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_key, &key, NULL);
  copy = key;
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, &rank);
  MPI_Comm_set_attr(dup, key, NULL);
  MPI_Comm_free(&dup);  /* callback: first free */
  CHECK(deletes == 1 && callback_errors == 0, "delete callback (%d calls, %d errors)", deletes,
        callback_errors);
  int e = use_mpi1 ? MPI_Keyval_free(&key) : MPI_Comm_free_keyval(&key);  /* second */
  CHECK(e == MPI_SUCCESS && key == MPI_KEYVAL_INVALID, "second free while attached: %d", e);
  key = copy;
  e = use_mpi1 ? MPI_Keyval_free(&key) : MPI_Comm_free_keyval(&key);  /* third */
  CHECK(e == MPI_SUCCESS, "third free while attached: %d", e);
  /* The attribute is still there and readable by the (freed) key. */
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, copy, &got, &flag) == MPI_SUCCESS && flag &&
        got == &rank, "attribute of a freed key");
  /* Deleting the last attribute runs the callback (a fourth free, still valid) and drops the key. */
  CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, copy) == MPI_SUCCESS, "delete_attr");
  CHECK(deletes == 2 && callback_errors == 0, "last delete callback (%d calls, %d errors)",
        deletes, callback_errors);
  key = copy;
  e = MPI_Comm_free_keyval(&key);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "free of a key no attribute holds: class %d", cls);
  e = MPI_Comm_set_attr(MPI_COMM_WORLD, copy, NULL);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "set_attr with a dead key: class %d", cls);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  round_trip(1);
  round_trip(0);
  /* As in the MPICH tests: the last holder is MPI_COMM_SELF, whose attributes go in
   * MPI_Finalize; its callback frees the key once more, which must still be valid. */
  int key;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_key, &key, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
  MPI_Comm_free_keyval(&key);
  deletes = callback_errors = 0;
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  CHECK(deletes == 1 && callback_errors == 0, "COMM_SELF callback in Finalize (%d calls, %d "
        "errors)", deletes, callback_errors);
  if (rank == 0 && all == 0 && failures == 0) printf("keyval_refcount: OK\n");
  return all != 0 || failures != 0;
}
