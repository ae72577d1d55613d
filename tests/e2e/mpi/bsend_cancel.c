/* MPI_Cancel of buffered sends (MPI-1.3 3.6, 3.8.4), as MPICH's pt2pt/scancel and pscancel
 * expect: MPI_Ibsend and a started MPI_Bsend_init hand out a request that is complete at
 * once, yet MPI_Cancel of it takes the message back while the receiver has not matched it.
 * Sizes 16 B, 64 KiB and 1 MiB; each round, with rank 1 not receiving until told:
 *   - unmatched Ibsend, then Cancel and Wait: MPI_Test_cancelled says 1, the receiver never
 *     gets it (the message sent after it with the same tag is the one it receives), and the
 *     capacity is free again: the attached buffer holds exactly one message, and the next
 *     Bsend of the same size fits without a detach;
 *   - the same through MPI_Bsend_init + MPI_Start (the request stays usable, is started again
 *     and this time received);
 *   - an Ibsend the receiver has already matched: not cancelled, received exactly once.
 *   bsend_cancel [ITERATIONS]   (default 10; ranks 0 and 1 take part, others only wait) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static const int kSizes[] = {4, 1 << 14, 1 << 18}; /* ints: 16 B, 64 KiB, 1 MiB */

static void fill(int *buf, int n, int seed) {
  for (int i = 0; i < n; i++) buf[i] = seed * 7 + i;
}
static int check(const int *buf, int n, int seed) {
  for (int i = 0; i < n; i++) if (buf[i] != seed * 7 + i) return 0;
  return 1;
}

static void reattach(void) {
  void *b;
  int n;
  MPI_Buffer_detach(&b, &n);
  MPI_Buffer_attach(b, n);
}

/* Sender's side of one round with n ints; the attached buffer fits one message. */
static void sender(int n, int *buf, int it) {
  const int tag = 20;
  MPI_Request r;
  MPI_Status st;
  int flag = -1;
  /* Unmatched Ibsend, cancelled. */
  fill(buf, n, it);
  CHECK(MPI_Ibsend(buf, n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Ibsend");
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "unmatched Ibsend of %d ints not cancelled", n);
  /* The buffer holds one message: this fits only if the cancel gave the space back. */
  fill(buf, n, it + 1000);
  CHECK(MPI_Bsend(buf, n, MPI_INT, 1, tag, MPI_COMM_WORLD) == MPI_SUCCESS,
        "Bsend after a cancelled Ibsend of %d ints does not fit", n);
  /* Persistent: started, cancelled, started again. A detach waits for the Bsend's transfer
   * to end (the receiver takes it after this barrier), so the next message has the whole
   * buffer. */
  MPI_Barrier(MPI_COMM_WORLD);  /* 1: the receiver may take the Bsend */
  reattach();
  fill(buf, n, it + 2000);
  MPI_Bsend_init(buf, n, MPI_INT, 1, tag + 1, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  flag = -1;
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "unmatched Bsend_init of %d ints not cancelled", n);
  CHECK(r != MPI_REQUEST_NULL, "persistent request freed by Wait");
  fill(buf, n, it + 3000);
  MPI_Start(&r);
  MPI_Wait(&r, &st);
  MPI_Request_free(&r);
  MPI_Barrier(MPI_COMM_WORLD);  /* 2: the receiver may take the second start */
  reattach();
  /* Matched before the cancel: stays sent. */
  MPI_Barrier(MPI_COMM_WORLD);  /* 3: the receiver posted its receive */
  fill(buf, n, it + 4000);
  MPI_Ibsend(buf, n, MPI_INT, 1, tag + 2, MPI_COMM_WORLD, &r);
  MPI_Recv(NULL, 0, MPI_INT, 1, tag + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* received */
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  flag = -1;
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "Ibsend of %d ints received, yet reported cancelled", n);
}

static void receiver(int n, int *buf, int it) {
  const int tag = 20;
  MPI_Status st;
  int found = 0, count = 0;
  /* Nothing is posted here until the sender has cancelled (its barriers come after). */
  MPI_Barrier(MPI_COMM_WORLD);  /* 1 */
  MPI_Recv(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &st);
  CHECK(check(buf, n, it + 1000), "got the cancelled Ibsend's data (%d ints)", n);
  MPI_Barrier(MPI_COMM_WORLD);  /* 2 */
  MPI_Recv(buf, n, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, &st);
  CHECK(check(buf, n, it + 3000), "persistent: got the cancelled start's data (%d ints)", n);
  MPI_Request r;
  MPI_Irecv(buf, n, MPI_INT, 0, tag + 2, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);  /* 3 */
  MPI_Wait(&r, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == n && check(buf, n, it + 4000), "matched Ibsend data (%d of %d ints)", count, n);
  MPI_Send(NULL, 0, MPI_INT, 0, tag + 3, MPI_COMM_WORLD);
  /* Nothing else is left for us: no copy of a cancelled message arrives later. */
  MPI_Barrier(MPI_COMM_WORLD);  /* 4 */
  MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &found, &st);
  CHECK(!found, "an extra message (tag %d) arrived", st.MPI_TAG);
  MPI_Barrier(MPI_COMM_WORLD);  /* 5: the sender's next round comes after the probe */
}

int main(int argc, char **argv) {
  int size, iterations = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "bsend_cancel: needs 2 processes\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int *buf = malloc(sizeof(int) * (1 << 18));
  for (int it = 0; it < iterations; it++) {
    for (int s = 0; s < 3; s++) {
      const int n = kSizes[s];
      int pack = 0;
      MPI_Pack_size(n, MPI_INT, MPI_COMM_WORLD, &pack);
      const int bytes = pack + MPI_BSEND_OVERHEAD;
      char *attached = malloc((size_t)bytes);
      if (rank == 0) MPI_Buffer_attach(attached, bytes);
      if (rank == 0) sender(n, buf, it * 10 + s);
      else if (rank == 1) receiver(n, buf, it * 10 + s);
      else for (int b = 0; b < 5; b++) MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);  /* 4: the receiver's last one before its probe */
        MPI_Barrier(MPI_COMM_WORLD);  /* 5: after it */
        void *back;
        int back_size;
        MPI_Buffer_detach(&back, &back_size);
        CHECK(back == attached && back_size == bytes, "detach");
      }
      free(attached);
    }
  }
  free(buf);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("bsend_cancel: OK, %d iterations\n", iterations);
  MPI_Finalize();
  return all != 0;
}
