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
 *       failure on a receive; the survivors repair and exchange a window cleanly.
 *   window_mixed overlap  both directions at once, with rank 1's large messages (bulk pages
 *       and CMA, 8 KiB .. 4 MiB) already announced when rank 0 posts its receives: rank 0's
 *       MPI_Irecv calls must not move those payloads (white-box: their buffers are still the
 *       sentinel when the last MPI_Irecv returns), progress does; in osu_bibw the side that
 *       copied its whole window inside MPI_Irecv posted its sends only afterwards, so the two
 *       directions took turns. Then both windows complete, every byte checked.
 *   window_mixed overlap_kill  (SHRINK, 3+ ranks) the same, but the last rank is dead (SIGKILL,
 *       waited for through /proc) when rank 0 posts its receives of its announced messages:
 *       rank 0's MPI_Waitall fails, nobody hangs, the survivors repair and exchange a window. */
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

/* The one-way window of overlap: sizes that take every large path (bulk pages, CMA, split). */
#define OW 8
static const int overlap_sizes[OW] = {65536, 1 << 20, 300000, 1 << 20, 8192, 4 << 20, 65536, 1 << 20};
#define SENTINEL 0xEE
#define TAG_GO 6

/* Posts rank 0's receives of `from`'s announced window, then its own window to `from`;
 * *written: receive buffers MPI_Irecv wrote into; *post_failed: operations refused at once. */
static void overlap_post(unsigned char **in, unsigned char **out, int from, MPI_Request *rq,
                         int *written, int *post_failed) {
  *written = *post_failed = 0;
  for (int j = 0; j < 2 * OW; j++) rq[j] = MPI_REQUEST_NULL;
  for (int j = 0; j < OW; j++) {
    memset(in[j], SENTINEL, overlap_sizes[j]);
    if (MPI_Irecv(in[j], overlap_sizes[j], MPI_BYTE, from, TAG, MPI_COMM_WORLD, &rq[j]) != MPI_SUCCESS)
      ++*post_failed;
  }
  for (int j = 0; j < OW; j++)
    for (long i = 0; i < overlap_sizes[j]; i++)
      if (in[j][i] != SENTINEL) { ++*written; break; }
  for (int j = 0; j < OW; j++) {
    for (long i = 0; i < overlap_sizes[j]; i++) out[j][i] = pat(i, j, 0, 0);
    if (MPI_Isend(out[j], overlap_sizes[j], MPI_BYTE, from, TAG, MPI_COMM_WORLD, &rq[OW + j]) != MPI_SUCCESS)
      ++*post_failed;
  }
}

/* The sending side: receives posted, its window announced, then the word that it is. */
static void overlap_announce(unsigned char **in, unsigned char **out, MPI_Request *rq, int me) {
  for (int j = 0; j < OW; j++) MPI_Irecv(in[j], overlap_sizes[j], MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[j]);
  for (int j = 0; j < OW; j++) {
    for (long i = 0; i < overlap_sizes[j]; i++) out[j][i] = pat(i, j, 0, me);
    MPI_Isend(out[j], overlap_sizes[j], MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[OW + j]);
  }
  int go = 1;
  MPI_Send(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
}

static int overlap_check(unsigned char **in, int from, int me) {
  for (int j = 0; j < OW; j++)
    for (long i = 0; i < overlap_sizes[j]; i++)
      if (in[j][i] != pat(i, j, 0, from)) {
        printf("window_mixed: overlap: rank %d message %d (%d B) wrong at byte %ld\n", me, j,
               overlap_sizes[j], i);
        return 1;
      }
  return 0;
}

static void overlap_alloc(unsigned char **in, unsigned char **out) {
  for (int j = 0; j < OW; j++) {
    in[j] = malloc(overlap_sizes[j]);
    out[j] = malloc(overlap_sizes[j]);
  }
}

static int run_overlap(int rank) {
  unsigned char *in[OW], *out[OW];
  MPI_Request rq[2 * OW];
  int bad = 0, go;
  overlap_alloc(in, out);
  if (rank == 1) {
    overlap_announce(in, out, rq, rank);
    MPI_Waitall(2 * OW, rq, MPI_STATUSES_IGNORE);
    bad += overlap_check(in, 0, rank);
  } else if (rank == 0) {
    MPI_Recv(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* all announced */
    int written, post_failed;
    overlap_post(in, out, 1, rq, &written, &post_failed);
    printf("window_mixed: overlap: %d of %d receive buffers written inside MPI_Irecv\n", written, OW);
    if (written != 0 || post_failed != 0) bad++;
    if (MPI_Waitall(2 * OW, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS) bad++;
    bad += overlap_check(in, 1, rank);
  }
  for (int j = 0; j < OW; j++) {
    free(in[j]);
    free(out[j]);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "window_mixed: OK overlap\n" : "window_mixed: FAILED overlap\n");
  return total;
}

/* Until process pid has exited (a zombie or reaped), at most 30 s. */
static void wait_exited(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  for (int i = 0; i < 3000; i++) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char state = 0;
    int got = fscanf(f, "%*d (%*[^)]) %c", &state);
    fclose(f);
    if (got == 1 && (state == 'Z' || state == 'X')) return;
    usleep(10000);
  }
}

/* Survivors of a victim: repaired (SHRINK) and one clean window between pairs of them. */
static int repair_and_check(int size, int bad, const char *what) {
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) bad++;
  int n, r;
  MPI_Comm_size(repaired, &n);
  MPI_Comm_rank(repaired, &r);
  if (n != size - 1) bad++;
  if (n > 1 && (r ^ 1) < n) bad += window(repaired, r ^ 1, 0, 0, r);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, repaired);
  if (r == 0) printf(total == 0 ? "window_mixed: OK %s\n" : "window_mixed: FAILED %s\n", what);
  MPI_Comm_free(&repaired);
  return total;
}

static int run_overlap_kill(int rank, int size) {
  unsigned char *in[OW], *out[OW];
  MPI_Request rq[2 * OW];
  MPI_Status st[2 * OW];
  int victim = size - 1, bad = 0, pid = (int)getpid(), go;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Bcast(&pid, 1, MPI_INT, victim, MPI_COMM_WORLD);
  overlap_alloc(in, out);
  if (rank == victim) {
    overlap_announce(in, out, rq, rank);
    raise(SIGKILL);
  }
  if (rank == 0) {
    MPI_Recv(&go, 1, MPI_INT, victim, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    wait_exited(pid);
    int written, post_failed, cls = -1, failed = 0;
    overlap_post(in, out, victim, rq, &written, &post_failed);
    int rc = MPI_Waitall(2 * OW, rq, st);
    MPI_Error_class(rc, &cls);
    for (int j = 0; j < 2 * OW && cls == MPI_ERR_IN_STATUS; j++) {
      int c;
      MPI_Error_class(st[j].MPI_ERROR, &c);
      if (c == MPI_ERR_OTHER) failed++;
      else if (c != MPI_SUCCESS && c != MPI_ERR_PENDING) bad++;
    }
    printf("window_mixed: overlap_kill: %d refused at once, Waitall class %d, %d request(s) failed\n",
           post_failed, cls, failed);
    if (failed + post_failed == 0) bad++;
  } else {
    int v, rc = MPI_Recv(&v, 1, MPI_INT, victim, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE), cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OTHER) bad++;
  }
  int total = repair_and_check(size, bad, "overlap_kill");
  for (int j = 0; j < OW; j++) {
    free(in[j]);
    free(out[j]);
  }
  return total;
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
  int total = repair_and_check(size, bad, "kill");
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
  } else if (strcmp(mode, "overlap") == 0 && size >= 2) {
    bad = run_overlap(rank);
  } else if (strcmp(mode, "overlap_kill") == 0 && size >= 3) {
    bad = run_overlap_kill(rank, size);
  } else {
    bad = run_mixed(rank, size, argc > 2 ? atoi(argv[2]) : 6);
  }
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
