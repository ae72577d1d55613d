/* Datatype attributes (MPI-3.1 6.7.4) over the one attribute store communicators use:
 * set/get/delete on derived and predefined types; MPI_Type_dup runs the copy callbacks
 * (MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN, the user's); MPI_Type_free runs the delete callbacks,
 * the last set first, once; a failing delete callback fails the call and keeps the attribute;
 * a failing copy callback fails MPI_Type_dup with MPI_DATATYPE_NULL; a freed keyval held by an
 * attribute stays usable; a copy of a type handed out by MPI_Type_get_contents has no
 * attributes. Bad input: a communicator keyval on a type and a type keyval on a
 * communicator are MPI_ERR_KEYVAL, a freed type MPI_ERR_TYPE, NULL outputs MPI_ERR_ARG. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static char order[16];  /* which delete callbacks ran, in order ('a', 'b', ...) */
static int copies, fail_delete, fail_copy;

static int copy_plus_one(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag) {
  (void)t, (void)key, (void)extra;
  copies++;
  if (fail_copy) return MPI_ERR_OTHER;
  *(MPI_Aint *)out = (MPI_Aint)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_log(MPI_Datatype t, int key, void *value, void *extra) {
  (void)t, (void)key, (void)value;
  if (fail_delete) return MPI_ERR_OTHER;
  size_t n = strlen(order);
  if (n + 1 < sizeof order) {
    order[n] = *(char *)extra;
    order[n + 1] = '\0';
  }
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char tag_a = 'a', tag_b = 'b', tag_c = 'c';
  int ka, kb, kc, kdup, flag;
  MPI_Type_create_keyval(copy_plus_one, delete_log, &ka, &tag_a);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_log, &kb, &tag_b);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_log, &kc, &tag_c);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL);

  MPI_Datatype vec, dup;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  CHECK(MPI_Type_set_attr(vec, kc, (void *)30) == MPI_SUCCESS, "set c");
  CHECK(MPI_Type_set_attr(vec, ka, (void *)10) == MPI_SUCCESS, "set a");
  CHECK(MPI_Type_set_attr(vec, kb, (void *)20) == MPI_SUCCESS, "set b");
  void *v = NULL;
  CHECK(MPI_Type_get_attr(vec, ka, &v, &flag) == MPI_SUCCESS && flag && v == (void *)10, "get a");
  /* Replacing runs the old value's delete callback. */
  CHECK(MPI_Type_set_attr(vec, ka, (void *)11) == MPI_SUCCESS && strcmp(order, "a") == 0,
        "replace: deletes '%s'", order);
  order[0] = '\0';

  CHECK(MPI_Type_dup(vec, &dup) == MPI_SUCCESS && copies == 1, "dup: %d copies", copies);
  CHECK(MPI_Type_get_attr(dup, ka, &v, &flag) == MPI_SUCCESS && flag && v == (void *)12, "dup a: %p", v);
  CHECK(MPI_Type_get_attr(dup, kb, &v, &flag) == MPI_SUCCESS && !flag, "dup b not copied");
  CHECK(MPI_Type_get_attr(dup, kc, &v, &flag) == MPI_SUCCESS && flag && v == (void *)30, "dup c");
  /* The dup is a working type. */
  int src[6] = {1, 2, 3, 4, 5, 6}, dst[6] = {0};
  MPI_Sendrecv(src, 1, dup, rank, 0, dst, 1, vec, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(dst[0] == 1 && dst[2] == 3 && dst[4] == 5 && dst[1] == 0, "dup as a message type");

  /* Free: the last set first (a was re-set after b and c). */
  CHECK(MPI_Type_free(&vec) == MPI_SUCCESS && vec == MPI_DATATYPE_NULL, "free vec");
  CHECK(strcmp(order, "abc") == 0, "delete order on free: '%s' (want abc)", order);
  order[0] = '\0';
  /* A failing delete callback: the call fails, the attribute stays, the type stays. */
  fail_delete = 1;
  CHECK(error_class(MPI_Type_delete_attr(dup, kc)) == MPI_ERR_OTHER, "failing delete_attr");
  CHECK(MPI_Type_get_attr(dup, kc, &v, &flag) == MPI_SUCCESS && flag, "kept after failing delete");
  CHECK(error_class(MPI_Type_set_attr(dup, kc, (void *)31)) == MPI_ERR_OTHER, "failing replace");
  CHECK(MPI_Type_get_attr(dup, kc, &v, &flag) == MPI_SUCCESS && flag && v == (void *)30, "old value kept");
  CHECK(error_class(MPI_Type_free(&dup)) == MPI_ERR_OTHER && dup != MPI_DATATYPE_NULL, "failing free");
  fail_delete = 0;
  /* A failing copy callback: no new type. */
  fail_copy = 1;
  MPI_Datatype d2 = MPI_INT;
  CHECK(error_class(MPI_Type_dup(dup, &d2)) == MPI_ERR_OTHER && d2 == MPI_DATATYPE_NULL,
        "failing copy: d2 %d", d2);
  fail_copy = 0;
  order[0] = '\0';
  CHECK(MPI_Type_free(&dup) == MPI_SUCCESS, "free dup");
  CHECK(strlen(order) == 1 && order[0] == 'a', "left on dup after the failed free: '%s'", order);

  /* Predefined types carry attributes too. */
  CHECK(MPI_Type_set_attr(MPI_DOUBLE, kdup, &tag_a) == MPI_SUCCESS, "set on MPI_DOUBLE");
  CHECK(MPI_Type_get_attr(MPI_DOUBLE, kdup, &v, &flag) == MPI_SUCCESS && flag && v == &tag_a, "get on MPI_DOUBLE");
  CHECK(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag) == MPI_SUCCESS && !flag, "not on MPI_INT");
  CHECK(MPI_Type_delete_attr(MPI_DOUBLE, kdup) == MPI_SUCCESS, "delete on MPI_DOUBLE");

  /* MPI_Type_get_contents hands out a copy of a derived argument: it has no attributes. */
  MPI_Datatype inner, outer, got;
  MPI_Type_contiguous(2, MPI_INT, &inner);
  MPI_Type_set_attr(inner, kb, (void *)5);
  MPI_Type_contiguous(3, inner, &outer);
  int ints[1];
  MPI_Aint aints[1];
  MPI_Type_get_contents(outer, 1, 0, 1, ints, aints, &got);
  CHECK(MPI_Type_get_attr(got, kb, &v, &flag) == MPI_SUCCESS && !flag, "contents copy has the attribute");
  order[0] = '\0';
  MPI_Type_free(&got);
  CHECK(order[0] == '\0', "freeing the contents copy ran '%s'", order);
  MPI_Type_free(&inner);
  CHECK(strcmp(order, "b") == 0, "freeing inner ran '%s'", order);
  MPI_Type_free(&outer);

  /* A freed keyval an attribute holds stays usable until the attribute goes. */
  MPI_Datatype t3;
  MPI_Type_contiguous(1, MPI_INT, &t3);
  int kfree = kb;
  MPI_Type_set_attr(t3, kb, (void *)7);
  CHECK(MPI_Type_free_keyval(&kfree) == MPI_SUCCESS && kfree == MPI_KEYVAL_INVALID, "free keyval");
  CHECK(MPI_Type_get_attr(t3, kb, &v, &flag) == MPI_SUCCESS && flag && v == (void *)7, "freed key still reads");
  CHECK(MPI_Type_delete_attr(t3, kb) == MPI_SUCCESS, "delete by the freed key");
  kfree = kb;
  CHECK(error_class(MPI_Type_free_keyval(&kfree)) == MPI_ERR_KEYVAL, "key gone");

  /* Bad input. */
  int kcomm;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL);
  CHECK(error_class(MPI_Type_set_attr(t3, kcomm, NULL)) == MPI_ERR_KEYVAL, "comm keyval on a type");
  CHECK(error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, ka, NULL)) == MPI_ERR_KEYVAL, "type keyval on a comm");
  CHECK(error_class(MPI_Type_free_keyval(&kcomm)) == MPI_ERR_KEYVAL, "Type_free_keyval of a comm keyval");
  CHECK(error_class(MPI_Comm_free_keyval(&ka)) == MPI_ERR_KEYVAL, "Comm_free_keyval of a type keyval");
  CHECK(error_class(MPI_Type_get_attr(t3, MPI_TAG_UB, &v, &flag)) == MPI_ERR_KEYVAL, "MPI_TAG_UB on a type");
  MPI_Datatype stale = t3;
  MPI_Type_free(&t3);
  CHECK(error_class(MPI_Type_set_attr(stale, ka, NULL)) == MPI_ERR_TYPE, "freed type");
  CHECK(error_class(MPI_Type_get_attr(MPI_INT, ka, NULL, &flag)) == MPI_ERR_ARG, "NULL value");
  CHECK(error_class(MPI_Type_create_keyval(NULL, NULL, NULL, NULL)) == MPI_ERR_ARG, "NULL keyval");
  MPI_Comm_free_keyval(&kcomm);
  MPI_Type_free_keyval(&ka);
  MPI_Type_free_keyval(&kc);
  MPI_Type_free_keyval(&kdup);

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("type_attr: OK\n");
  MPI_Finalize();
  return total != 0;
}
