/* MPI-4's info calls: MPI_Info_get_string (the value truncated to *buflen - 1 characters, the
 * needed size returned, buflen 0 asks only for it, an absent key leaves value alone) and
 * MPI_Info_create_env (command, argv and wdir of the given command line, the same object
 * before MPI_Init, in between and after MPI_Finalize). Info calls work outside
 * MPI_Init..MPI_Finalize (MPI-4.0 11.4.1): objects made before MPI_Init are used after it,
 * and freed after MPI_Finalize. Bad input: MPI_ERR_INFO_KEY, MPI_ERR_ARG, MPI_ERR_INFO. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL line %d: ", __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static void get(MPI_Info info, const char *key, char *out, int size) {
  int len = size, flag = 0;
  out[0] = '\0';
  if (MPI_Info_get_string(info, key, &len, out, &flag) != MPI_SUCCESS || !flag) strcpy(out, "(none)");
}

static void check_env(MPI_Info env, const char *when) {
  char v[MPI_MAX_INFO_VAL], cwd[4096];
  get(env, "command", v, (int)sizeof v);
  CHECK(strcmp(v, "/bin/prog") == 0, "%s: command '%s'", when, v);
  get(env, "argv", v, (int)sizeof v);
  CHECK(strcmp(v, "one two") == 0, "%s: argv '%s'", when, v);
  get(env, "wdir", v, (int)sizeof v);
  CHECK(getcwd(cwd, sizeof cwd) != NULL && strcmp(v, cwd) == 0, "%s: wdir '%s'", when, v);
}

int main(int argc, char **argv) {
  char *fake_argv[] = {"/bin/prog", "one", "two", NULL};
  MPI_Info before, env_before, env;
  /* Before MPI_Init. */
  CHECK(MPI_Info_create(&before) == MPI_SUCCESS, "create before MPI_Init");
  CHECK(MPI_Info_set(before, "k", "0123456789") == MPI_SUCCESS, "set before MPI_Init");
  CHECK(MPI_Info_create_env(3, fake_argv, &env_before) == MPI_SUCCESS, "create_env before MPI_Init");
  check_env(env_before, "before MPI_Init");

  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char v[32];
  int len = 5, flag = 0;
  strcpy(v, "canary");
  CHECK(MPI_Info_get_string(before, "k", &len, v, &flag) == MPI_SUCCESS && flag &&
        strcmp(v, "0123") == 0 && len == 11, "truncated: '%s' len %d", v, len);
  len = 0;
  strcpy(v, "canary");
  CHECK(MPI_Info_get_string(before, "k", &len, v, &flag) == MPI_SUCCESS && flag && len == 11 &&
        strcmp(v, "canary") == 0, "buflen 0: '%s' len %d", v, len);
  len = 32;
  CHECK(MPI_Info_get_string(before, "k", &len, v, &flag) == MPI_SUCCESS && flag &&
        strcmp(v, "0123456789") == 0 && len == 11, "whole: '%s' len %d", v, len);
  len = 32;
  strcpy(v, "canary");
  CHECK(MPI_Info_get_string(before, "absent", &len, v, &flag) == MPI_SUCCESS && !flag &&
        len == 32 && strcmp(v, "canary") == 0, "absent key: flag %d len %d '%s'", flag, len, v);
  /* MPI_INFO_ENV can be read with it too. */
  len = MPI_MAX_INFO_VAL;
  char big[MPI_MAX_INFO_VAL];
  CHECK(MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &len, big, &flag) == MPI_SUCCESS && flag,
        "MPI_INFO_ENV maxprocs");
  /* Bad input. */
  char longkey[MPI_MAX_INFO_KEY + 8];
  memset(longkey, 'x', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = '\0';
  len = 8;
  CHECK(error_class(MPI_Info_get_string(before, longkey, &len, v, &flag)) == MPI_ERR_INFO_KEY, "long key");
  len = -1;
  CHECK(error_class(MPI_Info_get_string(before, "k", &len, v, &flag)) == MPI_ERR_ARG, "negative buflen");
  len = 8;
  CHECK(error_class(MPI_Info_get_string(MPI_INFO_NULL, "k", &len, v, &flag)) == MPI_ERR_INFO, "null info");
  CHECK(error_class(MPI_Info_create_env(1, NULL, &env)) == MPI_ERR_ARG, "argc without argv");
  CHECK(error_class(MPI_Info_create_env(0, NULL, NULL)) == MPI_ERR_ARG, "NULL info pointer");

  CHECK(MPI_Info_create_env(3, fake_argv, &env) == MPI_SUCCESS, "create_env");
  check_env(env, "after MPI_Init");
  MPI_Info_free(&env);
  /* No arguments: the process's own command line. */
  CHECK(MPI_Info_create_env(0, NULL, &env) == MPI_SUCCESS, "create_env(0, NULL)");
  get(env, "command", big, (int)sizeof big);  /* a path: longer than v holds */
  CHECK(strstr(argv[0], "info_mpi4") != NULL && strstr(big, "info_mpi4") != NULL, "own command '%s'", big);
  MPI_Info_free(&env);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();

  /* After MPI_Finalize. */
  CHECK(MPI_Info_create_env(3, fake_argv, &env) == MPI_SUCCESS, "create_env after MPI_Finalize");
  check_env(env, "after MPI_Finalize");
  len = 32;
  CHECK(MPI_Info_get_string(before, "k", &len, v, &flag) == MPI_SUCCESS && flag, "get after MPI_Finalize");
  CHECK(MPI_Info_free(&env) == MPI_SUCCESS && MPI_Info_free(&env_before) == MPI_SUCCESS &&
        MPI_Info_free(&before) == MPI_SUCCESS, "free after MPI_Finalize");
  if (rank == 0 && total == 0 && failures == 0) printf("info_mpi4: OK\n");
  return total != 0 || failures != 0;
}
