/* MPI_Info_* (MPI-3.1 chapter 9), MPI_INFO_ENV, communicator hints (set/get_info, dup,
 * dup_with_info), and the error class of every bad argument. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int cls(int rc) {
  int c;
  MPI_Error_class(rc, &c);
  return c;
}

/* The value stored for key in info, or "" with *flag 0. */
static const char *value_of(MPI_Info info, const char *key, int *flag) {
  static char v[MPI_MAX_INFO_VAL + 1];
  v[0] = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, flag);
  return v;
}

static void basics(void) {
  MPI_Info info, dup;
  int n = -1, flag = -1, len = -1;
  char key[MPI_MAX_INFO_KEY + 1], small[4];
  MPI_Info_create(&info);
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 0, "new info has %d keys", n);
  MPI_Info_set(info, "alpha", "one");
  MPI_Info_set(info, "beta", "two");
  MPI_Info_set(info, "gamma", "three");
  MPI_Info_set(info, "alpha", "uno"); /* a new value, same place */
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 3, "nkeys %d", n);
  MPI_Info_get_nthkey(info, 0, key);
  CHECK(strcmp(key, "alpha") == 0, "key 0 '%s'", key);
  MPI_Info_get_nthkey(info, 2, key);
  CHECK(strcmp(key, "gamma") == 0, "key 2 '%s'", key);
  CHECK(strcmp(value_of(info, "alpha", &flag), "uno") == 0 && flag, "alpha");
  value_of(info, "delta", &flag);
  CHECK(flag == 0, "absent key found");
  MPI_Info_get_valuelen(info, "gamma", &len, &flag);
  CHECK(flag && len == 5, "valuelen %d flag %d", len, flag);
  /* valuelen bounds the copy: 3 characters and a terminator */
  MPI_Info_get(info, "gamma", 3, small, &flag);
  CHECK(flag && strcmp(small, "thr") == 0, "truncated get '%s'", small);
  MPI_Info_dup(info, &dup);
  MPI_Info_delete(info, "beta");
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 2, "nkeys after delete %d", n);
  MPI_Info_get_nkeys(dup, &n);
  CHECK(n == 3, "the dup is independent: %d keys", n);
  CHECK(strcmp(value_of(dup, "beta", &flag), "two") == 0 && flag, "dup beta");
  MPI_Info_free(&dup);
  CHECK(dup == MPI_INFO_NULL, "free sets MPI_INFO_NULL");
  MPI_Info_free(&info);
}

static void env(void) {
  int flag = 0, n = 0;
  char host[MPI_MAX_PROCESSOR_NAME];
  int hostlen;
  const char *v = value_of(MPI_INFO_ENV, "command", &flag);
  CHECK(flag && strstr(v, "info") != NULL, "command '%s'", v);
  MPI_Get_processor_name(host, &hostlen);
  v = value_of(MPI_INFO_ENV, "host", &flag);
  CHECK(flag && strcmp(v, host) == 0, "host '%s' vs '%s'", v, host);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  v = value_of(MPI_INFO_ENV, "maxprocs", &flag);
  CHECK(flag && atoi(v) == size, "maxprocs '%s'", v);
  MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
  CHECK(n >= 4, "MPI_INFO_ENV has %d keys", n);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int liblen = 0, version = 0, subversion = 0;
  MPI_Get_library_version(lib, &liblen);
  CHECK(strncmp(lib, "ftmpi ", 6) == 0 && liblen == (int)strlen(lib), "library version '%s'", lib);
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "version %d.%d", version, subversion);
}

static void comm_hints(void) {
  MPI_Info info, used;
  MPI_Comm d, e;
  int flag = 0, n = -1;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ftmpi_test_hint", "yes");
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_info(d, info);
  MPI_Info_free(&info); /* the communicator keeps its own copy */
  MPI_Comm_get_info(d, &used);
  CHECK(strcmp(value_of(used, "ftmpi_test_hint", &flag), "yes") == 0 && flag, "get_info");
  MPI_Info_free(&used);
  MPI_Comm_dup(d, &e); /* MPI-3.1: a dup carries the hints */
  MPI_Comm_get_info(e, &used);
  value_of(used, "ftmpi_test_hint", &flag);
  CHECK(flag, "dup lost the hint");
  MPI_Info_free(&used);
  MPI_Comm_free(&e);
  MPI_Info_create(&info);
  MPI_Info_set(info, "other", "1");
  MPI_Comm_dup_with_info(d, info, &e);
  MPI_Comm_get_info(e, &used);
  MPI_Info_get_nkeys(used, &n);
  CHECK(n == 1 && strcmp(value_of(used, "other", &flag), "1") == 0, "dup_with_info: %d keys", n);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, e); /* the new communicator works */
  int size;
  MPI_Comm_size(e, &size);
  CHECK(sum == size * (size - 1) / 2, "allreduce on dup_with_info %d", sum);
  MPI_Info_free(&used);
  MPI_Info_free(&info);
  MPI_Comm_free(&e);
  MPI_Comm_free(&d);
}

static void bad_input(void) {
  MPI_Info info, out;
  int flag, n;
  char key[MPI_MAX_INFO_KEY + 1], v[8];
  static char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
  memset(longkey, 'k', MPI_MAX_INFO_KEY + 1);
  memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
  MPI_Info_create(&info);
  CHECK(cls(MPI_Info_set(info, longkey, "x")) == MPI_ERR_INFO_KEY, "long key");
  CHECK(cls(MPI_Info_set(info, "", "x")) == MPI_ERR_INFO_KEY, "empty key");
  CHECK(cls(MPI_Info_set(info, "k", longval)) == MPI_ERR_INFO_VALUE, "long value");
  longval[MPI_MAX_INFO_VAL] = 0; /* exactly MPI_MAX_INFO_VAL: allowed */
  CHECK(MPI_Info_set(info, "k", longval) == MPI_SUCCESS, "value of the maximum length");
  CHECK(cls(MPI_Info_delete(info, "absent")) == MPI_ERR_INFO_NOKEY, "delete absent key");
  CHECK(cls(MPI_Info_get(info, longkey, 7, v, &flag)) == MPI_ERR_INFO_KEY, "get long key");
  CHECK(cls(MPI_Info_get(info, "k", -1, v, &flag)) == MPI_ERR_ARG, "negative valuelen");
  CHECK(cls(MPI_Info_get_nthkey(info, 1, key)) == MPI_ERR_ARG, "nthkey past the end");
  CHECK(cls(MPI_Info_get_nthkey(info, -1, key)) == MPI_ERR_ARG, "negative nthkey");
  CHECK(cls(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_INFO, "MPI_INFO_NULL");
  CHECK(cls(MPI_Info_get_nkeys(12345, &n)) == MPI_ERR_INFO, "garbage handle");
  CHECK(cls(MPI_Info_set(MPI_INFO_ENV, "a", "b")) == MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
  MPI_Info stale = info;
  MPI_Info_free(&info);
  CHECK(cls(MPI_Info_dup(stale, &out)) == MPI_ERR_INFO, "freed handle");
  CHECK(cls(MPI_Info_free(&info)) == MPI_ERR_INFO, "free MPI_INFO_NULL");
  CHECK(cls(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL)) == MPI_ERR_INFO, "set_info NULL");
  CHECK(cls(MPI_Comm_get_info(MPI_COMM_NULL, &out)) == MPI_ERR_COMM, "get_info on COMM_NULL");
  MPI_Comm c;
  CHECK(cls(MPI_Comm_dup_with_info(MPI_COMM_WORLD, stale, &c)) == MPI_ERR_INFO, "dup_with_info bad info");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < 3; i++) basics(); /* handles are reused */
  env();
  comm_hints();
  bad_input();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("info: OK\n");
  MPI_Finalize();
  return all != 0;
}
