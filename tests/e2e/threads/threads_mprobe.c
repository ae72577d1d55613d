/* MPI_THREAD_MULTIPLE and matched probes: the case MPI_Mprobe exists for.
 *   threads_mprobe THREADS MESSAGES   (any size >= 2)
 * Every rank but 0 sends MESSAGES numbered messages to rank 0, all on one tag, sizes varying
 * (each 8th is 200 KiB: a rendezvous). On rank 0, THREADS threads each loop on Mprobe (or
 * Improbe) for (MPI_ANY_SOURCE or one fixed source, the tag), allocate what the status says,
 * and Mrecv (or Imrecv + Wait) exactly that message. Every message must be received exactly
 * once, intact, by some thread: with MPI_Probe + MPI_Recv two threads can probe the same
 * message and one then receives another (wrong size: truncation or a lost message). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kTag = 9, kBig = 51200 };
static int rank, size, nthreads, messages, failures;
static int total, taken;  /* rank 0: messages to receive, claimed so far */
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *seen;  /* [source][number] */

static int length_of(int src, int k) { return k % 8 == 7 ? kBig : 1 + (src * 31 + k * 7) % 300; }

static void fail(const char *what, int a, int b) {
  fprintf(stderr, "rank %d: FAIL %s (%d, %d)\n", rank, what, a, b);
  __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

/* Claims one more message to receive, or says all are claimed. */
static int claim_one(void) {
  pthread_mutex_lock(&count_lock);
  const int ok = taken < total;
  if (ok) taken++;
  pthread_mutex_unlock(&count_lock);
  return ok;
}

static void *receiver(void *arg) {
  const int t = (int)(long)arg;
  int turn = 0;
  while (claim_one()) {
    MPI_Message m;
    MPI_Status st;
    int flag = 0;
    /* Thread t's wildcard probes and, on odd turns of odd threads, Improbe polls. */
    if (t % 2 == 1 && turn % 2 == 1) {
      while (!flag) MPI_Improbe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &m, &st);
    } else {
      MPI_Mprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &m, &st);
    }
    int n = 0;
    MPI_Get_count(&st, MPI_INT, &n);
    int *v = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    MPI_Status rs;
    if (turn % 3 == 2) {
      MPI_Request r;
      MPI_Imrecv(v, n, MPI_INT, &m, &r);
      MPI_Wait(&r, &rs);
    } else {
      MPI_Mrecv(v, n, MPI_INT, &m, &rs);
    }
    const int src = rs.MPI_SOURCE, k = n > 0 ? v[0] : -1;
    if (src != st.MPI_SOURCE || src < 1 || src >= size || k < 0 || k >= messages) {
      fail("bad message", src, k);
    } else if (n != length_of(src, k)) {
      fail("wrong length for its number", n, k);
    } else {
      for (int i = 1; i < n; i++) {
        if (v[i] != src * 1000000 + k * 1000 + i % 1000) { fail("contents", src, k); break; }
      }
      if (__atomic_fetch_add(&seen[src * messages + k], 1, __ATOMIC_RELAXED) != 0) {
        fail("received twice", src, k);
      }
    }
    free(v);
    turn++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nthreads = argc > 1 ? atoi(argv[1]) : 4;
  messages = argc > 2 ? atoi(argv[2]) : 200;
  if (provided != MPI_THREAD_MULTIPLE || size < 2) {
    if (rank == 0) fprintf(stderr, "needs MPI_THREAD_MULTIPLE and 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    total = messages * (size - 1);
    seen = calloc((size_t)(size * messages), 1);
    pthread_t th[16];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, receiver, (void *)(long)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int s = 1; s < size; s++) {
      for (int k = 0; k < messages; k++) {
        if (seen[s * messages + k] != 1) { fail("not received exactly once", s, k); break; }
      }
    }
    free(seen);
  } else {
    int *v = malloc(sizeof(int) * kBig);
    for (int k = 0; k < messages; k++) {
      const int n = length_of(rank, k);
      v[0] = k;
      for (int i = 1; i < n; i++) v[i] = rank * 1000000 + k * 1000 + i % 1000;
      MPI_Send(v, n, MPI_INT, 0, kTag, MPI_COMM_WORLD);
    }
    free(v);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int all = 0;
  MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && all == 0) printf("threads_mprobe: OK (%d threads, %d messages)\n", nthreads, total);
  return all ? 1 : 0;
}
