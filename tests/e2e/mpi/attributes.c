/* Attribute caching: predefined attributes, keyvals, copy callbacks on MPI_Comm_dup
 * (MPI_DUP_FN copies, MPI_NULL_COPY_FN does not), delete callbacks on overwrite, delete and
 * free, errors for bad keyvals. Any size. */
#include <mpi.h>
#include <stdio.h>

static int rank, failures, deletes;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int count_delete(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm; (void)key; (void)val;
  deletes++;
  (*(int *)extra)++;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size, flag, *ip;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
  CHECK(flag && *ip >= (1 << 24) - 1, "MPI_TAG_UB %d", flag ? *ip : -1);
  MPI_Attr_get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag);
  CHECK(flag && *ip >= size, "MPI_UNIVERSE_SIZE");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag);
  CHECK(flag && *ip == MPI_PROC_NULL, "MPI_HOST");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag);
  CHECK(flag && (*ip == 0 || *ip == 1), "MPI_WTIME_IS_GLOBAL");
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &ip, &flag);
  CHECK(flag && *ip == 0, "FTMPI_NUM_FAILED_PROCS");
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_STATE, &ip, &flag);
  CHECK(flag && *ip == FTMPI_COMM_OK, "FTMPI_COMM_STATE");
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_MODE, &ip, &flag);
  CHECK(flag && *ip == FTMPI_COMM_MODE_ABORT, "FTMPI_COMM_MODE default ABORT");

  int dels_copied = 0, dels_plain = 0, kcopy, kplain, kold;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kcopy, &dels_copied);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kplain, &dels_plain);
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kold, NULL);
  static int a = 1, b = 2, c = 3;
  MPI_Comm_set_attr(MPI_COMM_WORLD, kcopy, &a);
  MPI_Comm_set_attr(MPI_COMM_WORLD, kplain, &b);
  MPI_Attr_put(MPI_COMM_WORLD, kold, &c);
  MPI_Comm_set_attr(MPI_COMM_WORLD, kplain, &c); /* overwrite: delete callback runs once */
  CHECK(dels_plain == 1, "delete on overwrite (%d)", dels_plain);
  int *got;
  MPI_Comm_get_attr(MPI_COMM_WORLD, kplain, &got, &flag);
  CHECK(flag && got == &c, "get after overwrite");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, kcopy, &got, &flag);
  CHECK(flag && got == &a, "MPI_COMM_DUP_FN copies the attribute");
  MPI_Comm_get_attr(dup, kplain, &got, &flag);
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN does not copy");
  MPI_Attr_get(dup, kold, &got, &flag);
  CHECK(!flag, "MPI_NULL_COPY_FN does not copy");
  MPI_Comm_free(&dup);
  CHECK(dels_copied == 1, "free runs the delete callback (%d)", dels_copied);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, kplain);
  CHECK(dels_plain == 2, "delete_attr runs the callback (%d)", dels_plain);
  MPI_Comm_get_attr(MPI_COMM_WORLD, kplain, &got, &flag);
  CHECK(!flag, "deleted attribute is gone");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls, rc = MPI_Comm_set_attr(MPI_COMM_WORLD, 12345, &a);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "bad keyval gives MPI_ERR_KEYVAL (%d)", cls);
  rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &a);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "predefined keyval is read-only (%d)", cls);
  MPI_Comm_free_keyval(&kplain);
  CHECK(kplain == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
  MPI_Comm_free_keyval(&kcopy);
  MPI_Keyval_free(&kold);
  /* MPI-1.3 5.7.1: a keyval freed while attributes use it stays for them: dup still copies,
   * free and delete still call the delete callback, the saved key still names it. Keyvals are
   * reference counted as in MPICH (its attr/keyval_double_free): freeing it again while an
   * attribute holds it is no error and changes nothing; once unused it is gone (below). */
  int kfreed, saved, again, in_use = 0;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kfreed, &in_use);
  saved = kfreed;
  MPI_Comm holder, copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &holder);
  MPI_Comm_set_attr(holder, saved, &a);
  MPI_Comm_free_keyval(&kfreed);
  again = saved;
  rc = MPI_Comm_free_keyval(&again);
  CHECK(rc == MPI_SUCCESS && again == MPI_KEYVAL_INVALID,
        "a keyval in use freed twice: rc %d, handle %d", rc, again);
  saved = kfreed == MPI_KEYVAL_INVALID ? saved : -1;
  MPI_Comm_dup(holder, &copy);
  void *val = NULL;
  int found = 0;
  rc = MPI_Comm_get_attr(copy, saved, &val, &found);
  CHECK(rc == MPI_SUCCESS && found && val == &a, "dup copied an attribute of a freed keyval");
  MPI_Comm_free(&copy);
  CHECK(in_use == 1, "free ran the delete callback of a freed keyval (%d)", in_use);
  rc = MPI_Comm_delete_attr(holder, saved);
  CHECK(rc == MPI_SUCCESS && in_use == 2, "delete by a freed keyval in use: rc %d, %d", rc, in_use);
  rc = MPI_Comm_get_attr(holder, saved, &val, &found);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "a freed keyval no longer in use is gone (%d)", cls);
  MPI_Comm_free(&holder);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("attributes: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
