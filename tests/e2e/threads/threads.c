/* MPI_THREAD_MULTIPLE: several threads per rank call MPI at once.
 *   threads [THREADS [ITERS]]   (any size; THREADS 1..8, default 4; ITERS default 200)
 * 1. self: a thread blocked in MPI_Recv does not stop another thread's MPI_Send (the receive
 *    waits for the main thread's send, on MPI_COMM_SELF; without the lock given up while
 *    waiting this deadlocks and the watchdog fails the test).
 * 2. p2p: every thread exchanges with both ring neighbours on its own tag of MPI_COMM_WORLD
 *    (small, and every 16th message 64 KiB: the large-message path), payloads checked.
 * 3. coll: every thread runs Allreduce/Bcast/Alltoall/Barrier on its own dup of
 *    MPI_COMM_WORLD (dup'ed by the main thread), results checked.
 * 4. anysource: on a shared communicator, rank 0's threads receive MPI_ANY_SOURCE messages that
 *    carry their own tag while every other rank's threads send theirs; per-thread probes
 *    (MPI_Probe on the thread's tag, then MPI_Recv of what it found).
 * Each phase prints one line; the last line is "threads: OK". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 8
#define BIG 16384 /* ints: 64 KiB */

static int rank, size, nthreads = 4, iters = 200;
static MPI_Comm thread_comm[MAX_THREADS];
static MPI_Comm shared_comm;

static void die(const char* what, int t, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  text[0] = 0;
  if (code != MPI_SUCCESS) MPI_Error_string(code, text, &len);
  fprintf(stderr, "threads: rank %d thread %d: %s %s\n", rank, t, what, text);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(call, t)                      \
  do {                                      \
    int rc_ = (call);                       \
    if (rc_ != MPI_SUCCESS) die(#call, t, rc_); \
  } while (0)

static void* self_receiver(void* arg) {
  int got = 0;
  (void)arg;
  int main_flag = 1;
  CHECK(MPI_Is_thread_main(&main_flag), 99);
  if (main_flag) die("MPI_Is_thread_main says a second thread is the main one", 99, 0);
  CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE), 99);
  if (got != 4242) die("self message has the wrong payload", 99, 0);
  return NULL;
}

static void* p2p_thread(void* arg) {
  int t = (int)(long)arg;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int* out = malloc(BIG * sizeof(int));
  int* in = malloc(BIG * sizeof(int));
  for (int i = 0; i < iters; ++i) {
    int n = (i % 16 == 15) ? BIG : 4;
    for (int k = 0; k < n; ++k) out[k] = rank * 1000000 + t * 10000 + i + k;
    MPI_Request rq[2];
    CHECK(MPI_Irecv(in, n, MPI_INT, left, t, MPI_COMM_WORLD, &rq[0]), t);
    CHECK(MPI_Isend(out, n, MPI_INT, right, t, MPI_COMM_WORLD, &rq[1]), t);
    CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), t);
    for (int k = 0; k < n; ++k) {
      if (in[k] != left * 1000000 + t * 10000 + i + k) die("p2p payload mismatch", t, 0);
    }
    /* Blocking forms too: even ranks send first. */
    int a = rank * 100 + t, b = -1;
    if (rank % 2 == 0) {
      CHECK(MPI_Send(&a, 1, MPI_INT, right, t, MPI_COMM_WORLD), t);
      CHECK(MPI_Recv(&b, 1, MPI_INT, left, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE), t);
    } else {
      CHECK(MPI_Recv(&b, 1, MPI_INT, left, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE), t);
      CHECK(MPI_Send(&a, 1, MPI_INT, right, t, MPI_COMM_WORLD), t);
    }
    if (size > 1 && b != left * 100 + t) die("blocking p2p payload mismatch", t, 0);
  }
  free(out);
  free(in);
  return NULL;
}

static void* coll_thread(void* arg) {
  int t = (int)(long)arg;
  MPI_Comm c = thread_comm[t];
  int* sb = malloc((size_t)size * sizeof(int));
  int* rb = malloc((size_t)size * sizeof(int));
  for (int i = 0; i < iters; ++i) {
    long v = rank + t + i, sum = 0;
    CHECK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c), t);
    long expect = (long)size * (size - 1) / 2 + (long)size * (t + i);
    if (sum != expect) die("allreduce result wrong", t, 0);
    int root = i % size, x = rank == root ? t * 7 + i : -1;
    CHECK(MPI_Bcast(&x, 1, MPI_INT, root, c), t);
    if (x != t * 7 + i) die("bcast result wrong", t, 0);
    for (int k = 0; k < size; ++k) sb[k] = rank * 1000 + k + t + i;
    CHECK(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c), t);
    for (int k = 0; k < size; ++k) {
      if (rb[k] != k * 1000 + rank + t + i) die("alltoall result wrong", t, 0);
    }
    if (i % 8 == 0) CHECK(MPI_Barrier(c), t);
  }
  free(sb);
  free(rb);
  return NULL;
}

static void* anysource_thread(void* arg) {
  int t = (int)(long)arg;
  const int per_sender = iters / 4 + 1;
  if (rank == 0) {
    /* Every other rank sends per_sender messages on tag t; half are received with
     * MPI_ANY_SOURCE directly, half after a probe on this thread's tag. */
    long total = 0, expect = 0;
    int from_each[64] = {0};
    for (int s = 1; s < size; ++s) {
      for (int i = 0; i < per_sender; ++i) expect += s * 1000 + i;
    }
    for (int m = 0; m < (size - 1) * per_sender; ++m) {
      MPI_Status st;
      int val = -1;
      if (m % 2 == 0) {
        CHECK(MPI_Recv(&val, 1, MPI_INT, MPI_ANY_SOURCE, t, shared_comm, &st), t);
      } else {
        CHECK(MPI_Probe(MPI_ANY_SOURCE, t, shared_comm, &st), t);
        if (st.MPI_TAG != t) die("probe found another thread's tag", t, 0);
        CHECK(MPI_Recv(&val, 1, MPI_INT, st.MPI_SOURCE, t, shared_comm, &st), t);
      }
      if (st.MPI_TAG != t || st.MPI_SOURCE < 1 || st.MPI_SOURCE >= size) {
        die("anysource status wrong", t, 0);
      }
      /* Non-overtaking per sender and tag: values from one sender arrive in order. */
      if (val != st.MPI_SOURCE * 1000 + from_each[st.MPI_SOURCE % 64]++) {
        die("anysource message out of order", t, 0);
      }
      total += val;
    }
    if (total != expect) die("anysource sum wrong", t, 0);
  } else {
    for (int i = 0; i < per_sender; ++i) {
      int val = rank * 1000 + i;
      CHECK(MPI_Send(&val, 1, MPI_INT, 0, t, shared_comm), t);
    }
  }
  return NULL;
}

static void run_phase(const char* name, void* (*fn)(void*)) {
  pthread_t th[MAX_THREADS];
  double t0 = MPI_Wtime();
  for (long t = 0; t < nthreads; ++t) {
    if (pthread_create(&th[t], NULL, fn, (void*)t) != 0) die("pthread_create", (int)t, 0);
  }
  for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
  CHECK(MPI_Barrier(MPI_COMM_WORLD), -1);
  if (rank == 0) printf("threads: %s OK (%d threads, %.3f s)\n", name, nthreads, MPI_Wtime() - t0);
}

int main(int argc, char** argv) {
  int provided = -1;
  if (argc > 1) nthreads = atoi(argv[1]);
  if (argc > 2) iters = atoi(argv[2]);
  if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1) {
    fprintf(stderr, "usage: threads [THREADS 1..8 [ITERS]]\n");
    return 2;
  }
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) die("MPI_THREAD_MULTIPLE not provided", -1, 0);
  int q = -1, main_flag = 0;
  CHECK(MPI_Query_thread(&q), -1);
  CHECK(MPI_Is_thread_main(&main_flag), -1);
  if (q != MPI_THREAD_MULTIPLE || !main_flag) die("MPI_Query_thread/MPI_Is_thread_main", -1, 0);

  pthread_t receiver;
  pthread_create(&receiver, NULL, self_receiver, NULL);
  usleep(100000); /* the receiver is (very likely) blocked by now; either way it must finish */
  int msg = 4242;
  CHECK(MPI_Send(&msg, 1, MPI_INT, 0, 7, MPI_COMM_SELF), -1);
  pthread_join(receiver, NULL);
  if (rank == 0) printf("threads: self OK\n");

  run_phase("p2p", p2p_thread);
  for (int t = 0; t < nthreads; ++t) CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]), -1);
  run_phase("coll", coll_thread);
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &shared_comm), -1);
  run_phase("anysource", anysource_thread);
  for (int t = 0; t < nthreads; ++t) CHECK(MPI_Comm_free(&thread_comm[t]), -1);
  CHECK(MPI_Comm_free(&shared_comm), -1);
  if (rank == 0) printf("threads: OK\n");
  MPI_Finalize();
  return 0;
}
