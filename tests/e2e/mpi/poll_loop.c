/* Applications that poll: a token passes round a ring ROUNDS times, each rank waiting for it in
 * its own loop of MPI_Iprobe, MPI_Test, MPI_Testany, MPI_Testsome, MPI_Testall or
 * MPI_Request_get_status (one form per pass), then THREADS threads per rank do the same at once
 * on their own tags with MPI_Iprobe (MPI_THREAD_MULTIPLE) and an allreduce on their own
 * duplicate of MPI_COMM_WORLD. With more ranks than cores, a miss that kept the core spun
 * through its time slice while the rank it waited for could not run: 3 ranks on 2 cores took
 * 60 s for 2000 Iprobe rounds, and 4 threads per rank 30-40 s for 300 (now 4 ms and 0.3 s).
 * The mpirun --timeout makes that a failure.
 *   poll_loop [ROUNDS [THREADS]]    (defaults 500, 4) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, rounds = 500, nthreads = 4, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED); } } while (0)

enum { IPROBE, TEST, TESTANY, TESTSOME, TESTALL, GET_STATUS, FORMS };
static const char *form_name[FORMS] = {"Iprobe", "Test", "Testany", "Testsome", "Testall",
                                       "Request_get_status"};

/* Receives the token from the left neighbour by polling with `form`; returns it. */
static int poll_recv(int form, int tag, MPI_Comm comm) {
  const int left = (rank + size - 1) % size;
  int token = -1, flag = 0, index, outcount;
  MPI_Status st;
  MPI_Request r = MPI_REQUEST_NULL;
  if (form == IPROBE) {
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
    CHECK(st.MPI_SOURCE == left, "Iprobe found source %d", st.MPI_SOURCE);
    MPI_Recv(&token, 1, MPI_INT, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
    return token;
  }
  MPI_Irecv(&token, 1, MPI_INT, left, tag, comm, &r);
  while (!flag) {
    switch (form) {
      case TEST: MPI_Test(&r, &flag, &st); break;
      case TESTANY: MPI_Testany(1, &r, &index, &flag, &st); break;
      case TESTSOME: MPI_Testsome(1, &r, &outcount, &index, &st); flag = outcount == 1; break;
      case TESTALL: MPI_Testall(1, &r, &flag, &st); break;
      default: MPI_Request_get_status(r, &flag, &st); break;
    }
  }
  if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE); /* get_status leaves it */
  return token;
}

/* One pass: rank 0 starts the token, every rank adds one and passes it on. */
static void ring(int form, int tag, MPI_Comm comm) {
  const int right = (rank + 1) % size;
  for (int i = 0; i < rounds; i++) {
    int token = 0;
    if (rank != 0) token = poll_recv(form, tag, comm);
    token++;
    MPI_Send(&token, 1, MPI_INT, right, tag, comm);
    if (rank == 0) {
      token = poll_recv(form, tag, comm);
      CHECK(token == size, "%s: round %d token %d, expected %d", form_name[form], i, token, size);
    }
  }
}

static MPI_Comm dups[64];
static void *thread_main(void *arg) {
  int t = (int)(long)arg;
  for (int i = 0; i < rounds / 5; i++) {
    ring(IPROBE, 100 + t, MPI_COMM_WORLD);
    int sum = 0;
    MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, dups[t]);
    CHECK(sum == i * size, "thread %d allreduce %d", t, sum);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2) nthreads = atoi(argv[2]);
  if (rounds < 1 || nthreads < 0 || nthreads > 64 || provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "usage: poll_loop [ROUNDS>=1 [THREADS 0..64]] (MPI_THREAD_MULTIPLE: %d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double t0 = MPI_Wtime();
  for (int form = 0; form < FORMS; form++) ring(form, form, MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  for (int t = 0; t < nthreads; t++) MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]);
  pthread_t th[64];
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < nthreads; t++) MPI_Comm_free(&dups[t]);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0)
    printf("poll_loop: OK (%d ranks, %d rounds x %d forms in %.2f s, %d threads in %.2f s)\n", size,
           rounds, FORMS, t1 - t0, nthreads, MPI_Wtime() - t1);
  MPI_Finalize();
  return all != 0;
}
