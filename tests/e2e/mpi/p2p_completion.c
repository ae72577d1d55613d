/* Sendrecv, Sendrecv_replace, Rsend, Waitany/Waitsome/Testany/Testsome/Testall and
 * Request_free, with the standard's MPI_UNDEFINED and null-request rules. Any size >= 1. */
#include <mpi.h>
#include <stdio.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  int out = rank * 3, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  CHECK(in == left * 3 && st.MPI_SOURCE == left && st.MPI_TAG == 1, "sendrecv got %d", in);
  double buf[3] = {rank, rank + 0.5, -rank};
  MPI_Sendrecv_replace(buf, 3, MPI_DOUBLE, right, 2, left, 2, MPI_COMM_WORLD, &st);
  CHECK(buf[0] == left && buf[1] == left + 0.5 && buf[2] == -left, "sendrecv_replace");

  /* Waitany / Testany over only null requests: MPI_UNDEFINED, flag true. */
  MPI_Request nulls[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int index = 7, flag = 0, outcount = 7, indices[8];
  MPI_Waitany(3, nulls, &index, &st);
  CHECK(index == MPI_UNDEFINED, "waitany on nulls %d", index);
  MPI_Testany(3, nulls, &index, &flag, &st);
  CHECK(index == MPI_UNDEFINED && flag == 1, "testany on nulls %d %d", index, flag);
  MPI_Waitsome(3, nulls, &outcount, indices, MPI_STATUSES_IGNORE);
  CHECK(outcount == MPI_UNDEFINED, "waitsome on nulls %d", outcount);
  MPI_Testall(3, nulls, &flag, MPI_STATUSES_IGNORE);
  CHECK(flag == 1, "testall on nulls");

  /* Four receives from left with tags 10..13; left sends them in reverse tag order with Rsend
   * after a sendrecv handshake (so the receives are posted). */
  int vals[4] = {-1, -1, -1, -1};
  MPI_Request reqs[5];
  for (int t = 0; t < 4; t++) MPI_Irecv(&vals[t], 1, MPI_INT, left, 10 + t, MPI_COMM_WORLD, &reqs[t]);
  reqs[4] = MPI_REQUEST_NULL;
  int token = 0;
  MPI_Sendrecv(&token, 1, MPI_INT, left, 3, &token, 1, MPI_INT, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int t = 3; t >= 0; t--) {
    int v = 100 * rank + t;
    MPI_Rsend(&v, 1, MPI_INT, right, 10 + t, MPI_COMM_WORLD);
  }
  int done = 0, seen[4] = {0, 0, 0, 0};
  MPI_Waitany(5, reqs, &index, &st);
  CHECK(index >= 0 && index < 4 && reqs[index] == MPI_REQUEST_NULL && st.MPI_TAG == 10 + index, "waitany index %d", index);
  seen[index] = 1;
  done++;
  while (done < 4) {
    MPI_Status sts[5];
    MPI_Waitsome(5, reqs, &outcount, indices, sts);
    CHECK(outcount >= 1 && outcount <= 4 - done + 0, "waitsome outcount %d", outcount);
    for (int k = 0; k < outcount; k++) {
      CHECK(!seen[indices[k]] && sts[k].MPI_TAG == 10 + indices[k], "waitsome index %d", indices[k]);
      seen[indices[k]] = 1;
    }
    done += outcount;
  }
  for (int t = 0; t < 4; t++) CHECK(vals[t] == 100 * left + t, "value tag %d: %d", 10 + t, vals[t]);
  MPI_Waitsome(5, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  CHECK(outcount == MPI_UNDEFINED, "all inactive again: %d", outcount);

  /* Testall/Testsome while a message is outstanding, then complete it. */
  MPI_Request r2[2];
  int a = -1, b = -1;
  MPI_Irecv(&a, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &r2[0]);
  MPI_Irecv(&b, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r2[1]);
  MPI_Testall(2, r2, &flag, MPI_STATUSES_IGNORE); /* may already be true: left can be ahead */
  int x = rank;
  MPI_Send(&x, 1, MPI_INT, right, 20, MPI_COMM_WORLD);
  MPI_Send(&x, 1, MPI_INT, right, 21, MPI_COMM_WORLD);
  for (long spin = 0; spin < 100000000L; spin++) {
    MPI_Testall(2, r2, &flag, MPI_STATUSES_IGNORE);
    if (flag) break;
  }
  CHECK(flag && a == left && b == left && r2[0] == MPI_REQUEST_NULL, "testall after the sends");

  /* Request_free on a pending send: the message still arrives. */
  MPI_Request fr;
  x = 4242 + rank;
  MPI_Isend(&x, 1, MPI_INT, right, 30, MPI_COMM_WORLD, &fr);
  MPI_Request_free(&fr);
  CHECK(fr == MPI_REQUEST_NULL, "request_free nulls the handle");
  MPI_Recv(&in, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &st);
  CHECK(in == 4242 + left, "freed send delivered %d", in);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("p2p_completion: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
