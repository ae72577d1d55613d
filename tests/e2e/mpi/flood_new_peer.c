/* A rank flooded with eager messages by one peer must still hear another peer whose first
 * message needs a new connection (tcp;ofi_rxm opens connections on first use; the flooded
 * receiver has to accept it while its completion queue is never empty).
 *   flood_new_peer MODE MAX_SECONDS LIMIT_SECONDS [BYTES]
 * Rank 0 sends BYTES (default 4096) to rank 2 nonstop (tag 1) until rank 2 says stop or
 * MAX_SECONDS passed. Once 2000 of them are out it tells rank 1, which sends its first message
 * ever to rank 2 (tag 7, carrying its send time). Rank 2 waits for it: MODE hold: in MPI_Recv
 * from rank 1 only (the flood piles up unexpected); MODE drain: in MPI_Waitany on its receive
 * from rank 1 and one for rank 0's next message, reposted as each arrives. Rank 2 prints how long rank 1's
 * message took and fails when that is more than LIMIT_SECONDS. Then every flood message is
 * received and checked. All ranks on one host: the time is CLOCK_MONOTONIC's on both sides. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kFlood = 1, kCount = 2, kStarted = 5, kFirst = 7, kStop = 9, kAnnounceAfter = 2000 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void flood(int bytes, double max_s) {
  char *buf = malloc((size_t)bytes);
  int stop = 0, sent = 0;
  MPI_Request stop_req;
  MPI_Irecv(NULL, 0, MPI_BYTE, 2, kStop, MPI_COMM_WORLD, &stop_req);
  const double t0 = now_s();
  while (!stop && now_s() - t0 < max_s) {
    memset(buf, (char)sent, (size_t)bytes);
    memcpy(buf, &sent, sizeof sent);
    MPI_Send(buf, bytes, MPI_BYTE, 2, kFlood, MPI_COMM_WORLD);
    if (++sent == kAnnounceAfter) MPI_Send(NULL, 0, MPI_BYTE, 1, kStarted, MPI_COMM_WORLD);
    if (sent % 64 == 0) MPI_Test(&stop_req, &stop, MPI_STATUS_IGNORE);
  }
  if (sent < kAnnounceAfter) MPI_Send(NULL, 0, MPI_BYTE, 1, kStarted, MPI_COMM_WORLD);
  MPI_Send(&sent, 1, MPI_INT, 2, kCount, MPI_COMM_WORLD);
  if (!stop) MPI_Wait(&stop_req, MPI_STATUS_IGNORE);
  printf("flood_new_peer: rank 0 sent %d x %d B in %.2f s\n", sent, bytes, now_s() - t0);
  free(buf);
}

/* Checks flood message i in buf; counts a mismatch in *bad. */
static void check(const char *buf, int bytes, int i, int *bad) {
  int got = -1;
  memcpy(&got, buf, sizeof got);
  if (got != i || buf[bytes - 1] != (char)i) {
    if ((*bad)++ == 0) fprintf(stderr, "flood_new_peer: flood message %d carries %d\n", i, got);
  }
}

static int victim(int drain, int bytes, double limit_s) {
  char *buf = malloc((size_t)bytes);
  double sent_at = 0;
  int bad = 0, received = 0, done = 0;
  MPI_Request first;
  MPI_Irecv(&sent_at, 1, MPI_DOUBLE, 1, kFirst, MPI_COMM_WORLD, &first);
  MPI_Request reqs[2] = {first, MPI_REQUEST_NULL};  /* rank 1's message, a flood message */
  if (drain) MPI_Irecv(buf, bytes, MPI_BYTE, 0, kFlood, MPI_COMM_WORLD, &reqs[1]);
  while (!done) {
    int which = MPI_UNDEFINED;
    MPI_Waitany(2, reqs, &which, MPI_STATUS_IGNORE);
    if (which == 0) {
      done = 1;
    } else {
      check(buf, bytes, received++, &bad);
      MPI_Irecv(buf, bytes, MPI_BYTE, 0, kFlood, MPI_COMM_WORLD, &reqs[1]);
    }
  }
  const double delay = now_s() - sent_at;
  MPI_Send(NULL, 0, MPI_BYTE, 0, kStop, MPI_COMM_WORLD);
  int count = 0;
  MPI_Recv(&count, 1, MPI_INT, 0, kCount, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (reqs[1] != MPI_REQUEST_NULL && received < count) {
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    check(buf, bytes, received++, &bad);
  } else if (reqs[1] != MPI_REQUEST_NULL) {
    MPI_Cancel(&reqs[1]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  }
  for (; received < count; received++) {
    MPI_Recv(buf, bytes, MPI_BYTE, 0, kFlood, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(buf, bytes, received, &bad);
  }
  printf("flood_new_peer: %s: rank 1's first message took %.3f s (limit %.1f s)\n",
         drain ? "drain" : "hold", delay, limit_s);
  if (delay > limit_s) {
    fprintf(stderr, "flood_new_peer: rank 1's first message took %.3f s, more than %.1f s\n",
            delay, limit_s);
    bad++;
  }
  free(buf);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int drain = argc > 1 && strcmp(argv[1], "drain") == 0;
  const double max_s = argc > 2 ? atof(argv[2]) : 10;
  const double limit_s = argc > 3 ? atof(argv[3]) : 2;
  const int bytes = argc > 4 ? atoi(argv[4]) : 4096;
  if (size != 3 || argc < 4 || bytes < (int)sizeof(int) || max_s <= limit_s) {
    if (rank == 0) fprintf(stderr, "usage: flood_new_peer hold|drain MAX_S LIMIT_S [BYTES] (3 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  /* No collective before the flood: rank 1 and rank 2 must not be connected yet. */
  int bad = 0;
  if (rank == 0) {
    flood(bytes, max_s);
  } else if (rank == 1) {
    MPI_Recv(NULL, 0, MPI_BYTE, 0, kStarted, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t = now_s();
    MPI_Send(&t, 1, MPI_DOUBLE, 2, kFirst, MPI_COMM_WORLD);
    /* Diagnostic only: how long the send itself blocked (not when rank 2 got the message). */
    printf("flood_new_peer: rank 1's MPI_Send took %.3f s\n", now_s() - t);
  } else {
    bad = victim(drain, bytes, limit_s);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("flood_new_peer: OK\n");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
