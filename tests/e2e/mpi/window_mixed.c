/* Windows of many outstanding nonblocking sends and receives (the OSU osu_bw / osu_bibw
 * pattern), the paths of transport/README.md's shm endpoint: small messages inline, small ones
 * staged in bulk pages when the ring is full, larger ones in bulk pages, CMA beyond.
 *
 *   window_mixed mixed [ROUNDS]  ranks pair up (r with r^1; an odd last rank idles): per round
 *       each posts 96 receives and 96 sends of mixed sizes (0 B .. 1 MiB, one tag, so MPI's
 *       order decides which receive gets which message), completed by MPI_Waitall,
 *       MPI_Waitany or MPI_Testsome in turn; every message's bytes and place are checked.
 *   window_mixed eager  rank 1 makes no MPI call for 4 s; meanwhile rank 0's window of 64
 *       MPI_Isend of 2 KiB (more than a 64 KiB ring holds) must complete (MPI_Waitall) at
 *       once: small messages are sent eagerly even when the ring is full (they used to wait
 *       until the receiver drained its ring).
 *   window_mixed exit  the same window, then rank 0 finalizes and exits while rank 1 still
 *       sleeps: the staged messages wait in rank 0's memory, so its MPI_Finalize waits for
 *       them to be taken; rank 1 receives all 64 intact afterwards.
 *   window_mixed kill  (SHRINK, 3+ ranks) the last rank dies in the middle of its third
 *       window with rank 0 (its sends and receives posted); rank 0's MPI_Waitall must fail
 *       (MPI_ERR_IN_STATUS, failed requests MPI_ERR_OTHER), never hang; the others see the
 *       failure on a receive; the survivors repair and exchange a window cleanly. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 96
#define TAG 5

static const int sizes[] = {0, 1, 8, 100, 1024, 2048, 4080, 4081, 4096, 8192, 16384,
                            65536, 300000, 1 << 20, 1500, 3000};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

static int size_of(int round, int j) { return sizes[(j * 7 + round * 3 + (j * j) % 5) % NSIZES]; }
static unsigned char pat(long i, int j, int round, int from) {
  return (unsigned char)(i * 7 + j * 13 + round * 31 + from);
}

/* The buffers of one round's window (a message's own size each: a few MiB in all). */
static void alloc_window(unsigned char **in, unsigned char **out, int round) {
  for (int j = 0; j < W; j++) {
    in[j] = malloc(size_of(round, j) + 1);
    out[j] = malloc(size_of(round, j) + 1);
  }
}
static void free_window(unsigned char **in, unsigned char **out) {
  for (int j = 0; j < W; j++) {
    free(in[j]);
    free(out[j]);
  }
}

/* One window with peer; returns the number of bad messages. how: 0 Waitall, 1 Waitany,
 * 2 Testsome. */
static int window_in(MPI_Comm comm, int peer, int round, int how, unsigned char **in,
                     unsigned char **out, int me) {
  MPI_Request rq[2 * W];
  for (int j = 0; j < W; j++)
    MPI_Irecv(in[j], size_of(round, j), MPI_BYTE, peer, TAG, comm, &rq[j]);
  for (int j = 0; j < W; j++) {
    int n = size_of(round, j);
    for (long i = 0; i < n; i++) out[j][i] = pat(i, j, round, me);
    MPI_Isend(out[j], n, MPI_BYTE, peer, TAG, comm, &rq[W + j]);
  }
  int rc = MPI_SUCCESS;
  if (how == 0) {
    rc = MPI_Waitall(2 * W, rq, MPI_STATUSES_IGNORE);
  } else if (how == 1) {
    for (int k = 0; k < 2 * W && rc == MPI_SUCCESS; k++) {
      int idx;
      rc = MPI_Waitany(2 * W, rq, &idx, MPI_STATUS_IGNORE);
    }
  } else {
    int left = 2 * W, idx[2 * W], outn;
    while (left > 0 && rc == MPI_SUCCESS) {
      rc = MPI_Testsome(2 * W, rq, &outn, idx, MPI_STATUSES_IGNORE);
      if (outn != MPI_UNDEFINED) left -= outn;
    }
  }
  if (rc != MPI_SUCCESS) return 1000;
  int bad = 0;
  for (int j = 0; j < W; j++) {
    int n = size_of(round, j);
    for (long i = 0; i < n; i++) {
      if (in[j][i] != pat(i, j, round, peer)) {
        if (bad++ < 3) printf("window_mixed: rank %d round %d message %d (%d B) wrong at byte %ld\n",
                              me, round, j, n, i);
        break;
      }
    }
  }
  return bad;
}

static int window(MPI_Comm comm, int peer, int round, int how, int me) {
  unsigned char *in[W], *out[W];
  alloc_window(in, out, round);
  int bad = window_in(comm, peer, round, how, in, out, me);
  free_window(in, out);
  return bad;
}

static int run_mixed(int rank, int size, int rounds) {
  int peer = rank ^ 1, bad = 0;
  if (peer < size)
    for (int r = 0; r < rounds; r++) bad += window(MPI_COMM_WORLD, peer, r, r % 3, rank);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "window_mixed: OK mixed, %d rounds\n" : "window_mixed: FAILED\n", rounds);
  return total;
}

static int run_eager(int rank) {
  enum { N = 64, BYTES = 2048 };
  static unsigned char buf[N][BYTES];
  int bad = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request rq[N];
    double t0 = MPI_Wtime();
    for (int j = 0; j < N; j++) {
      memset(buf[j], j, BYTES);
      MPI_Isend(buf[j], BYTES, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &rq[j]);
    }
    MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
    double took = MPI_Wtime() - t0;
    printf("window_mixed: 64 x 2 KiB sends completed in %.3f s while the receiver slept 4 s\n", took);
    if (took > 2.0) bad++;
  } else if (rank == 1) {
    sleep(4);
    for (int j = 0; j < N; j++) {
      MPI_Recv(buf[j], BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < BYTES; i++) if (buf[j][i] != (unsigned char)j) { bad++; break; }
    }
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "window_mixed: OK eager\n" : "window_mixed: FAILED eager\n");
  return total;
}

static int run_exit(int rank) {
  enum { N = 64, BYTES = 2048 };
  static unsigned char buf[N][BYTES];
  int bad = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request rq[N];
    for (int j = 0; j < N; j++) {
      memset(buf[j], j + 1, BYTES);
      MPI_Isend(buf[j], BYTES, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &rq[j]);
    }
    MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
    memset(buf, 0, sizeof buf);  /* the buffers are ours again */
  } else if (rank == 1) {
    sleep(2);
    for (int j = 0; j < N; j++) {
      MPI_Recv(buf[j], BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < BYTES; i++) if (buf[j][i] != (unsigned char)(j + 1)) { bad++; break; }
    }
    printf(bad == 0 ? "window_mixed: OK exit\n" : "window_mixed: FAILED exit (%d bad)\n", bad);
  }
  return bad;
}

static int run_kill(int rank, int size) {
  unsigned char *in[W], *out[W];
  alloc_window(in, out, 2);  /* the third window's buffers (round 2) */
  int victim = size - 1, bad = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == victim) {
    window(MPI_COMM_WORLD, 0, 0, 0, rank);
    window(MPI_COMM_WORLD, 0, 1, 0, rank);
    MPI_Request rq[2 * W];  /* the third: posted, then gone */
    for (int j = 0; j < W; j++) MPI_Irecv(in[j], size_of(2, j), MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[j]);
    for (int j = 0; j < W / 2; j++) MPI_Isend(out[j], size_of(2, j), MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[W + j]);
    usleep(2000);
    raise(SIGKILL);
  }
  if (rank == 0) {
    bad += window(MPI_COMM_WORLD, victim, 0, 0, rank);
    bad += window(MPI_COMM_WORLD, victim, 1, 0, rank);
    if (bad != 0) printf("window_mixed: windows before the failure went wrong\n");
    MPI_Request rq[2 * W];
    MPI_Status st[2 * W];
    for (int j = 0; j < W; j++) MPI_Irecv(in[j], size_of(2, j), MPI_BYTE, victim, TAG, MPI_COMM_WORLD, &rq[j]);
    for (int j = 0; j < W; j++) MPI_Isend(out[j], size_of(2, j), MPI_BYTE, victim, TAG, MPI_COMM_WORLD, &rq[W + j]);
    int rc = MPI_Waitall(2 * W, rq, st), cls = -1, failed = 0;
    MPI_Error_class(rc, &cls);
    for (int j = 0; j < 2 * W && cls == MPI_ERR_IN_STATUS; j++) {
      int c;
      MPI_Error_class(st[j].MPI_ERROR, &c);
      if (c == MPI_ERR_OTHER) failed++;
      else if (c != MPI_SUCCESS && c != MPI_ERR_PENDING) bad++;
    }
    printf("window_mixed: Waitall after the death: class %d, %d request(s) failed\n", cls, failed);
    if (cls != MPI_ERR_IN_STATUS || failed == 0) bad++;
  } else {
    int v, rc = MPI_Recv(&v, 1, MPI_INT, victim, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE), cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OTHER) bad++;
  }
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) bad++;
  int n, r;
  MPI_Comm_size(repaired, &n);
  MPI_Comm_rank(repaired, &r);
  if (n != size - 1) bad++;
  if (n > 1 && (r ^ 1) < n) bad += window(repaired, r ^ 1, 0, 0, r);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, repaired);
  if (r == 0) printf(total == 0 ? "window_mixed: OK kill\n" : "window_mixed: FAILED kill\n");
  MPI_Comm_free(&repaired);
  free_window(in, out);
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "mixed";
  if (strcmp(mode, "eager") == 0 && size >= 2) {
    bad = run_eager(rank);
  } else if (strcmp(mode, "exit") == 0 && size >= 2) {
    bad = run_exit(rank);
  } else if (strcmp(mode, "kill") == 0 && size >= 3) {
    bad = run_kill(rank, size);
  } else {
    bad = run_mixed(rank, size, argc > 2 ? atoi(argv[2]) : 6);
  }
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
