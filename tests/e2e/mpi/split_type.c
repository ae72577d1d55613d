/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): each new communicator holds exactly the
 * processes whose MPI_Get_processor_name equals the caller's, ordered by key; MPI_UNDEFINED
 * gives MPI_COMM_NULL; the result works for collectives; bad arguments get their class.
 * Any size. (One host today: the test still compares names, so it holds across hosts.) */
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

/* Splits with key -rank (so the new order is reversed), the ranks for which `out` is true
 * passing MPI_UNDEFINED, and checks membership and order against everybody's host name. */
static void check_split(int size, const char *names, const char *mine, int (*out)(int)) {
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, out(rank) ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, -rank,
                      MPI_INFO_NULL, &shared);
  if (out(rank)) {
    CHECK(shared == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    return;
  }
  CHECK(shared != MPI_COMM_NULL, "no communicator");
  if (shared == MPI_COMM_NULL) return;
  int expect_size = 0, expect_rank = 0;
  for (int r = size - 1; r >= 0; r--) { /* key -rank: descending world rank */
    if (out(r) || strcmp(names + r * MPI_MAX_PROCESSOR_NAME, mine) != 0) continue;
    if (r == rank) expect_rank = expect_size;
    expect_size++;
  }
  int s, me;
  MPI_Comm_size(shared, &s);
  MPI_Comm_rank(shared, &me);
  CHECK(s == expect_size && me == expect_rank, "size %d rank %d, expected %d %d", s, me,
        expect_size, expect_rank);
  int sum = 0;
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, shared);
  CHECK(sum == s * (s - 1) / 2, "allreduce %d", sum);
  MPI_Comm_free(&shared);
}

static int none(int r) { (void)r; return 0; }
static int every_third(int r) { return r % 3 == 2; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, len;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Get_processor_name(mine, &len);
  char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  for (int i = 0; i < 5; i++) check_split(size, names, mine, i % 2 ? every_third : none);

  /* info hints reach the new communicator */
  MPI_Info info, used;
  MPI_Comm shared;
  int flag = 0;
  char v[8];
  MPI_Info_create(&info);
  MPI_Info_set(info, "hint", "on");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info, &shared);
  MPI_Comm_get_info(shared, &used);
  MPI_Info_get(used, "hint", 7, v, &flag);
  CHECK(flag && strcmp(v, "on") == 0, "hint not kept");
  MPI_Info_free(&used);
  MPI_Comm_free(&shared);

  /* bad arguments: local checks, before any communication */
  MPI_Comm c;
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_WORLD, 7, 0, MPI_INFO_NULL, &c)) == MPI_ERR_ARG, "type 7");
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info + 1000, &c)) == MPI_ERR_INFO,
        "bad info");
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c)) == MPI_ERR_COMM,
        "MPI_COMM_NULL");
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL)) == MPI_ERR_ARG,
        "NULL newcomm");
  MPI_Info_free(&info);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  /* How many hosts the job spans, so a multi-host run can check it was not one host after all. */
  int hosts = 0;
  for (int r = 0; r < size; r++) {
    int first = 1;
    for (int q = 0; q < r && first; q++)
      first = strcmp(names + q * MPI_MAX_PROCESSOR_NAME, names + r * MPI_MAX_PROCESSOR_NAME) != 0;
    hosts += first;
  }
  if (rank == 0 && all == 0) printf("split_type: OK (%d hosts)\n", hosts);
  free(names);
  MPI_Finalize();
  return all != 0;
}
