/* The polls a nonblocking collective's start makes before it returns (FTMPI_NBC_START_POLLS,
 * nbc.cpp): a small collective whose peers' messages are about to arrive completes inside the
 * call instead of after the return, MPI_Wait's entry and a fiber switch.
 *   nbc_start_polls prompt ROUNDS  (run with a large budget, -x FTMPI_NBC_START_POLLS=1000000)
 *     each round: MPI_Barrier, then MPI_Ibarrier; MPI_Request_get_status right after it
 *     returns. With the budget, nearly every request is complete by then (the peer enters
 *     within microseconds); with one poll, only the later rank's is (about half).
 *   nbc_start_polls late
 *     rank 1 enters its MPI_Ibarrier 1 s late: rank 0's call still returns at once (the
 *     budget is a few polls, not a wait), incomplete, and MPI_Wait completes it.
 * Prints "nbc_start_polls: OK" on rank 0. 2 ranks. */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void prompt(int rounds) {
  int done_at_return = 0;
  for (int i = 0; i < rounds; i++) {
    MPI_Request q;
    int flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &q);
    MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
    done_at_return += flag;
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  printf("rank %d: %d of %d MPI_Ibarrier complete when the call returned\n", rank, done_at_return,
         rounds);
  /* A rank descheduled for longer than the budget's polls (~30 ms here) loses a round. */
  CHECK(done_at_return >= rounds * 9 / 10, "only %d of %d complete at return", done_at_return,
        rounds);
}

static void late(void) {
  MPI_Request q;
  int flag = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
  }
  const double t0 = MPI_Wtime();
  MPI_Ibarrier(MPI_COMM_WORLD, &q);
  const double call = MPI_Wtime() - t0;
  MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
  if (rank == 0) {
    printf("rank 0: MPI_Ibarrier returned after %.3f ms, complete %d\n", call * 1e3, flag);
    CHECK(!flag, "complete although rank 1 entered 1 s later");
    CHECK(call < 0.5, "the call took %.3f s: it waited for rank 1", call);
  }
  CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait");
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || argc < 2 || (strcmp(argv[1], "late") != 0 && (argc < 3 || strcmp(argv[1], "prompt") != 0))) {
    if (rank == 0) fprintf(stderr, "usage: nbc_start_polls prompt ROUNDS | late (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  if (strcmp(argv[1], "late") == 0) {
    late();
  } else {
    prompt(atoi(argv[2]));
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("nbc_start_polls: OK\n");
  MPI_Finalize();
  return total != 0;
}
