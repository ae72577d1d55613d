/* Application error classes and codes, MPI_Comm_call_errhandler, the MPI_Status_set_* calls,
 * MPI_Request_get_status, the MPI_Count ("_x") queries, datatype names and
 * MPI_Comm_dup_with_info(MPI_INFO_NULL). Prints "status_errors: OK" on rank 0. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures, handler_calls, handler_code;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL line %d: ", __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void count_calls(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls++;
  handler_code = *code;
}

static void error_classes(void) {
  int cls, code, code2, got, len, flag, *last;
  char text[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS, "add class");
  CHECK(cls > MPI_ERR_LASTCODE, "class %d not above MPI_ERR_LASTCODE", cls);
  CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS, "add code");
  CHECK(MPI_Add_error_code(MPI_ERR_ARG, &code2) == MPI_SUCCESS, "code of a predefined class");
  CHECK(code != cls && code2 != code, "distinct values %d %d %d", cls, code, code2);
  CHECK(MPI_Error_class(code, &got) == MPI_SUCCESS && got == cls, "class of code: %d", got);
  CHECK(MPI_Error_class(cls, &got) == MPI_SUCCESS && got == cls, "class of class: %d", got);
  CHECK(MPI_Error_class(code2, &got) == MPI_SUCCESS && got == MPI_ERR_ARG, "class of code2: %d", got);
  CHECK(MPI_Add_error_string(code, "my very own error") == MPI_SUCCESS, "add string");
  CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && strcmp(text, "my very own error") == 0 &&
        len == (int)strlen(text), "string: '%s' %d", text, len);
  CHECK(MPI_Error_string(cls, text, &len) == MPI_SUCCESS && len == 0, "no string set: '%s'", text);
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS && flag &&
        *last >= code2 && *last >= code, "MPI_LASTUSEDCODE %d", flag ? *last : -1);

  /* Bad input: an error class, never a crash. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Add_error_code(code, &got); /* a code is not a class */
  MPI_Error_class(rc, &got);
  CHECK(got == MPI_ERR_ARG, "add code to a code: class %d", got);
  rc = MPI_Add_error_string(MPI_ERR_ARG, "no");
  MPI_Error_class(rc, &got);
  CHECK(got == MPI_ERR_ARG, "string of a predefined class: class %d", got);
  CHECK(MPI_Error_class(cls + 1000, &got) != MPI_SUCCESS, "unknown application code accepted");

  /* The handler runs with the code; MPI_ERRORS_RETURN runs nothing and returns success. */
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "call, errors return");
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(count_calls, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "call, user handler");
  CHECK(handler_calls == 1 && handler_code == code, "handler %d calls, code %d", handler_calls, handler_code);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
}

static void status_calls(void) {
  MPI_Status st;
  int n, flag;
  MPI_Count x;
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  CHECK(MPI_Status_set_elements(&st, MPI_DOUBLE, 7) == MPI_SUCCESS, "set elements");
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  CHECK(n == 7, "count %d", n);
  MPI_Get_elements_x(&st, MPI_DOUBLE, &x);
  CHECK(x == 7, "elements_x %lld", x);
  MPI_Status_set_elements(&st, pair, 5); /* two whole pairs and one int */
  MPI_Get_elements(&st, pair, &n);
  CHECK(n == 5, "elements of pairs %d", n);
  MPI_Get_count(&st, pair, &n);
  CHECK(n == MPI_UNDEFINED, "count of 2.5 pairs %d", n);
  MPI_Status_set_elements_x(&st, MPI_CHAR, (MPI_Count)3 << 32);
  MPI_Get_elements_x(&st, MPI_BYTE, &x);
  CHECK(x == (MPI_Count)3 << 32, "large elements_x %lld", x);
  MPI_Get_elements(&st, MPI_BYTE, &n);
  CHECK(n == MPI_UNDEFINED, "elements beyond an int: %d", n);
  /* MPI-3.1 3.2.5 and 4.1.11: any MPI_Count of bytes, up to 2^63 - 1, comes back exactly from
   * the _x form; the int forms say MPI_UNDEFINED; the cancelled flag is kept. */
  static const MPI_Count big[] = {0x3654321f71234567LL, 0x7654321f71234567LL,
                                  0x7654321ff1234567LL, 0x7fffffffffffffffLL};
  for (int i = 0; i < 4; ++i) {
    MPI_Status_set_cancelled(&st, i % 2);
    CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, big[i]) == MPI_SUCCESS, "set %llx", (long long)big[i]);
    MPI_Get_elements_x(&st, MPI_BYTE, &x);
    MPI_Test_cancelled(&st, &flag);
    CHECK(x == big[i] && flag == i % 2, "got %llx cancelled %d for %llx", (long long)x, flag,
          (long long)big[i]);
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == MPI_UNDEFINED, "count of %llx bytes: %d", (long long)big[i], n);
    MPI_Get_elements(&st, MPI_BYTE, &n);
    CHECK(n == MPI_UNDEFINED, "elements of %llx bytes: %d", (long long)big[i], n);
  }
  MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)INT_MAX + 1); /* 2^31 ints: 2^33 bytes */
  MPI_Get_count(&st, MPI_INT, &n);
  MPI_Get_elements_x(&st, MPI_INT, &x);
  CHECK(n == MPI_UNDEFINED && x == (MPI_Count)INT_MAX + 1, "2^31 ints: count %d elements_x %lld", n, x);
  MPI_Status_set_elements_x(&st, MPI_INT, INT_MAX);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == INT_MAX, "INT_MAX ints: count %d", n);
  /* 2^62 ints are 2^64 bytes: more than an MPI_Count holds, refused. */
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)1 << 62), &cls);
  CHECK(cls == MPI_ERR_COUNT, "2^64 bytes: class %d, not MPI_ERR_COUNT", cls);
  MPI_Status_set_cancelled(&st, 1);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "cancelled");
  MPI_Status_set_elements(&st, MPI_INT, 4);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "set_elements kept the cancelled flag");
  MPI_Status_set_cancelled(&st, 0);
  MPI_Test_cancelled(&st, &flag);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(flag == 0 && n == 4, "uncancelled %d, count %d", flag, n);
  CHECK(MPI_Status_set_elements(&st, MPI_INT, -1) != MPI_SUCCESS, "negative count accepted");

  MPI_Count lb, ext, size;
  MPI_Type_size_x(pair, &size);
  MPI_Type_get_extent_x(pair, &lb, &ext);
  CHECK(size == 8 && lb == 0 && ext == 8, "pair size %lld lb %lld extent %lld", size, lb, ext);
  MPI_Type_get_true_extent_x(pair, &lb, &ext);
  CHECK(lb == 0 && ext == 8, "pair true lb %lld extent %lld", lb, ext);

  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_get_name(MPI_INT, name, &len);
  CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "predefined name '%s'", name);
  MPI_Type_get_name(pair, name, &len);
  CHECK(len == 0 && name[0] == '\0', "derived type without a name: '%s'", name);
  MPI_Type_set_name(pair, "pair of ints");
  MPI_Type_get_name(pair, name, &len);
  CHECK(strcmp(name, "pair of ints") == 0, "derived name '%s'", name);
  MPI_Type_free(&pair);
}

static void request_status(int rank, int size) {
  int peer = rank ^ 1, value = 0, flag = 0;
  if (size < 2 || peer >= size) return;
  MPI_Request req;
  MPI_Status st;
  if (rank % 2 == 0) {
    MPI_Irecv(&value, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req);
    MPI_Request_get_status(req, &flag, &st); /* usually not yet; never freed */
    MPI_Send(&flag, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
    while (!flag) MPI_Request_get_status(req, &flag, &st);
    CHECK(req != MPI_REQUEST_NULL, "get_status freed the request");
    CHECK(value == 42 && st.MPI_SOURCE == peer && st.MPI_TAG == 5, "value %d from %d tag %d", value,
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL, "wait after get_status");
  } else {
    int go;
    MPI_Recv(&go, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    value = 42;
    MPI_Send(&value, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  }
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
  CHECK(flag == 1, "null request");
}

int main(int argc, char **argv) {
  int rank, size, all;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  error_classes();
  status_calls();
  request_status(rank, size);
  MPI_Comm dup;
  CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup) == MPI_SUCCESS, "dup_with_info NULL");
  MPI_Comm_free(&dup);
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("status_errors: OK\n");
  MPI_Finalize();
  return all ? 1 : 0;
}
