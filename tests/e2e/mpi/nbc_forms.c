/* Nonblocking collectives completed by every MPI completion form, and the limit of running
 * one inline: MPI_Wait, Waitall, Waitany and Waitsome run a collective that is the only
 * unfinished request they were given to its end on the calling thread (nbc.h, Nbc::wait);
 * beside another unfinished request they must not, since the call has to return when that
 * one completes.
 *   nbc_forms [rounds]   (any number of processes; default 20 rounds)
 * 1. Each form (Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome loops)
 *    completes Iallreduce / Ibarrier / Ibcast, alone and with MPI_REQUEST_NULL and an
 *    already complete request in the array; results, index, outcount and the freed handles
 *    are checked every round.
 * 2. Rank 0 waits with Waitany (then Waitsome) on an Ibarrier and an Irecv from rank 1; rank
 *    1 enters the barrier only after rank 0 answered that message, so the call must return
 *    the receive first: a wait that stayed inside the barrier would hang (the run's time
 *    limit fails the test). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { FORMS = 8, KINDS = 3 };
static const char *form_name[FORMS] = {"Wait", "Waitall", "Waitany", "Waitsome",
                                       "Test", "Testall", "Testany", "Testsome"};

/* Completes q[slot] of q[0..n) with form f; the other entries are MPI_REQUEST_NULL or complete
 * requests (Waitany/Testany/... may return one of those first: then it is called again). */
static void complete(int f, MPI_Request *q, int n, int slot) {
  int flag = 0, index = -1, outcount = 0, indices[3];
  MPI_Status st[3];
  while (q[slot] != MPI_REQUEST_NULL) {
    int rc = MPI_SUCCESS;
    switch (f) {
      case 0: rc = MPI_Wait(&q[slot], &st[0]); break;
      case 1: rc = MPI_Waitall(n, q, st); break;
      case 2: rc = MPI_Waitany(n, q, &index, &st[0]);
              CHECK(index >= 0 && index < n, "Waitany index %d", index); break;
      case 3: rc = MPI_Waitsome(n, q, &outcount, indices, st);
              CHECK(outcount >= 1 && outcount <= n, "Waitsome outcount %d", outcount); break;
      case 4: rc = MPI_Test(&q[slot], &flag, &st[0]); break;
      case 5: rc = MPI_Testall(n, q, &flag, st); break;
      case 6: rc = MPI_Testany(n, q, &index, &flag, &st[0]); break;
      case 7: rc = MPI_Testsome(n, q, &outcount, indices, st); break;
    }
    CHECK(rc == MPI_SUCCESS, "%s returned %d", form_name[f], rc);
    if (rc != MPI_SUCCESS) return;
  }
}

static void start(int kind, int round, double *in, double *out, MPI_Request *q) {
  if (kind == 0) MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, q);
  else if (kind == 1) MPI_Ibarrier(MPI_COMM_WORLD, q);
  else MPI_Ibcast(in, 1, MPI_DOUBLE, round % size, MPI_COMM_WORLD, q);
}

static void check(int kind, int round, double in, double out, const char *form, int extra) {
  if (kind == 0) {
    const double want = (double)round * size + (double)size * (size - 1) / 2;
    CHECK(out == want, "Iallreduce by %s (extra %d), round %d: %g, want %g", form, extra, round, out, want);
  } else if (kind == 2) {
    CHECK(in == 1000.0 * round + round % size, "Ibcast by %s (extra %d), round %d: %g", form, extra,
          round, in);
  }
}

static void every_form(int rounds) {
  for (int round = 0; round < rounds; round++) {
    for (int f = 0; f < FORMS; f++) {
      for (int kind = 0; kind < KINDS; kind++) {
        /* extra 0: the collective alone; 1: with MPI_REQUEST_NULL and a finished send to self */
        for (int extra = 0; extra < 2; extra++) {
          double in = kind == 2 ? (rank == round % size ? 1000.0 * round + rank : -1) : round + rank;
          double out = -1, self_in = 7, self_out = 0;
          MPI_Request q[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
          int n = 1, slot = 0;
          if (extra) {
            MPI_Irecv(&self_out, 1, MPI_DOUBLE, 0, 5, MPI_COMM_SELF, &q[0]);
            MPI_Send(&self_in, 1, MPI_DOUBLE, 0, 5, MPI_COMM_SELF);
            n = 3;
            slot = 2;
          }
          start(kind, round, &in, &out, &q[slot]);
          complete(f, q, n, slot);
          if (extra && q[0] != MPI_REQUEST_NULL) MPI_Wait(&q[0], MPI_STATUS_IGNORE);
          CHECK(q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[2] == MPI_REQUEST_NULL,
                "%s left a request", form_name[f]);
          CHECK(!extra || self_out == 7, "self message %g", self_out);
          check(kind, round, in, out, form_name[f], extra);
        }
      }
    }
  }
}

/* Rank 0: Waitany (some = 0) or Waitsome (some = 1) on {Ibarrier, Irecv from 1}: the receive
 * must come back first, since rank 1 joins the barrier only after rank 0's answer. */
static void wait_returns_other(int some) {
  MPI_Request q[2];
  int ping = 0, pong = 0, index = -1, outcount = 0, indices[2];
  if (rank == 0) {
    MPI_Ibarrier(MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&ping, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &q[1]);
    if (some) {
      MPI_Waitsome(2, q, &outcount, indices, MPI_STATUSES_IGNORE);
      CHECK(outcount == 1 && indices[0] == 1, "Waitsome: outcount %d, index %d", outcount, indices[0]);
    } else {
      MPI_Waitany(2, q, &index, MPI_STATUS_IGNORE);
      CHECK(index == 1, "Waitany returned index %d, want the receive (1)", index);
    }
    CHECK(ping == 11, "ping %d", ping);
    pong = 12;
    MPI_Send(&pong, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  } else {
    if (rank == 1) {
      ping = 11;
      MPI_Send(&ping, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
      MPI_Recv(&pong, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(pong == 12, "pong %d", pong);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20;
  every_form(rounds);
  if (size >= 2) {
    for (int i = 0; i < rounds; i++) {
      wait_returns_other(0);
      wait_returns_other(1);
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all == 0) printf("nbc_forms: OK (%d rounds, %d processes)\n", rounds, size);
    else printf("nbc_forms: %d failures\n", all);
  }
  MPI_Finalize();
  return all != 0;
}
