/* MPI_Cancel of sends (MPI-1.3 3.8.4): standard and synchronous, small and large (through the
 * receiver's copy of the sender's buffer), each
 * Sizes: 16 B (copied into the receiver's ring), 64 KiB (staged in a bulk slot), 1 MiB (read
 * by the receiver from the sender's buffer).
 *   - unmatched: MPI_Wait returns, MPI_Test_cancelled says 1, and the receiver never gets it
 *     (a later MPI_Iprobe finds nothing; the messages sent before and after it with the same
 *     tag arrive, in order);
 *   - already matched: MPI_Test_cancelled says 0 and the message was received exactly once;
 *   - racing a receive posted at about the same time: exactly one of "cancelled" and
 *     "received" holds (the receiver withdraws its receive if nothing came).
 *   cancel_send [ITERATIONS]   (default 10; ranks 0 and 1 take part, others only wait) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kSmall = 4, kMedium = 1 << 14, kLarge = 1 << 18 }; /* ints: 16 B, 64 KiB, 1 MiB */

static const char *size_name(int n) {
  return n == kSmall ? "16 B" : n == kMedium ? "64 KiB" : "1 MiB";
}

static void fill(int *buf, int n, int seed) {
  for (int i = 0; i < n; i++) buf[i] = seed * 7 + i;
}
static int check(const int *buf, int n, int seed) {
  for (int i = 0; i < n; i++) if (buf[i] != seed * 7 + i) return 0;
  return 1;
}

static int post_send(int sync, const int *buf, int n, int tag, MPI_Request *r) {
  return sync ? MPI_Issend(buf, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r)
              : MPI_Isend(buf, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r);
}

/* Three messages with one tag; the middle one is cancelled before any receive is posted. */
static void unmatched(int sync, int n, int *a, int *b, int it) {
  const int tag = 10;
  if (rank == 0) {
    MPI_Request r[3];
    int *bufs[3] = {a, b, a + n};
    for (int k = 0; k < 3; k++) fill(bufs[k], n, it * 3 + k);
    /* The first and last are standard sends, so they complete without the receiver. */
    MPI_Isend(bufs[0], n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[0]);
    post_send(sync, bufs[1], n, tag, &r[1]);
    MPI_Isend(bufs[2], n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[2]);
    MPI_Status st;
    int rc = MPI_Cancel(&r[1]);
    CHECK(rc == MPI_SUCCESS, "MPI_Cancel rc %d", rc);
    rc = MPI_Wait(&r[1], &st);
    int flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1, "%s %s send, unmatched: rc %d, cancelled %d",
          sync ? "synchronous" : "standard", size_name(n), rc, flag);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(2, (MPI_Request[]){r[0], r[2]}, MPI_STATUSES_IGNORE);
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    /* First and third arrive, in order; the second never does. */
    for (int k = 0; k < 3; k += 2) {
      memset(a, 0, sizeof(int) * (size_t)n);
      MPI_Recv(a, n, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(check(a, n, it * 3 + k), "message %d of 3 (%s) has the wrong contents", k + 1,
            size_name(n));
    }
    int flag = 1;
    MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "a cancelled message can still be received");
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

/* The receive is posted first and completes; the cancel comes too late. */
static void matched(int sync, int n, int *a, int it) {
  const int tag = 11;
  if (rank == 0) {
    fill(a, n, it);
    MPI_Request r;
    post_send(sync, a, n, tag, &r);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 has the message */
    MPI_Cancel(&r);
    MPI_Status st;
    int rc = MPI_Wait(&r, &st), flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0, "matched %s send reported cancelled (%d)",
          sync ? "synchronous" : "standard", flag);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (rank == 1) {
    memset(a, 0, sizeof(int) * (size_t)n);
    MPI_Recv(a, n, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(check(a, n, it), "matched message has the wrong contents");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* the cancel is over */
    int flag = 1;
    MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "a matched message arrived twice");
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

/* Cancel and receive race: exactly one of them wins. */
static void racing(int sync, int n, int *a, int it) {
  const int tag = 12;
  int outcome[2] = {0, 0}; /* cancelled (from rank 0), received (from rank 1) */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    fill(a, n, it);
    MPI_Request r;
    post_send(sync, a, n, tag, &r);
    if (it % 3 != 0) usleep((useconds_t)(it % 3) * 30);
    MPI_Cancel(&r);
    MPI_Status st;
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &outcome[0]);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Request r;
    memset(a, 0, sizeof(int) * (size_t)n);
    if (it % 2 != 0) usleep(40);
    MPI_Irecv(a, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &r);
    /* Rank 0's cancel is over after this: a message it did not cancel was matched. */
    MPI_Barrier(MPI_COMM_WORLD);
    int done = 0;
    MPI_Status st;
    MPI_Test(&r, &done, &st);
    if (!done) {
      MPI_Cancel(&r);
      MPI_Wait(&r, &st);
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      CHECK(cancelled, "the receive neither completed nor was cancelled");
      done = !cancelled;
    }
    outcome[1] = done;
    if (done) CHECK(check(a, n, it), "raced message has the wrong contents");
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int both[2];
  MPI_Allreduce(outcome, both, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(both[0] + both[1] == 1, "%s %s send: cancelled %d and received %d",
        sync ? "synchronous" : "standard", size_name(n), both[0], both[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, iterations = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) printf("cancel_send: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int *a = malloc(sizeof(int) * 2 * kLarge), *b = malloc(sizeof(int) * kLarge);
  for (int it = 0; it < iterations; it++) {
    for (int sync = 0; sync < 2; sync++) {
      for (int k = 0; k < 3; k++) {
        int n = k == 0 ? kSmall : k == 1 ? kMedium : kLarge;
        unmatched(sync, n, a, b, it);
        matched(sync, n, a, it);
        racing(sync, n, a, it);
      }
    }
  }
  free(a);
  free(b);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && all == 0) printf("cancel_send: OK, %d iterations\n", iterations);
  return failures ? 1 : 0;
}
