/* MPI_Ssend/MPI_Issend have synchronous semantics: an Issend is not complete before the
 * receiver matched it (checked by timing against a receiver that posts late), Ssend to self
 * with a pre-posted receive works, and ordinary receives accept synchronous messages. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (size > 1) {
    if (rank == 0) {
      int v = 5, flag = 0;
      MPI_Request r;
      MPI_Issend(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r);
      double t0 = MPI_Wtime();
      while (MPI_Wtime() - t0 < 0.3) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend completed before the receiver posted its receive");
        if (flag) break;
        usleep(1000);
      }
      if (!flag) MPI_Wait(&r, MPI_STATUS_IGNORE);
      CHECK(MPI_Wtime() - t0 >= 0.3, "waited for the match");
    } else if (rank == 1) {
      usleep(500000); /* receive late */
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(v == 5, "value %d", v);
    }
  }
  /* Ring of Ssends with pre-posted receives; also to self. */
  int in = -1, out = rank;
  MPI_Request rr;
  MPI_Irecv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &rr);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Ssend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
  MPI_Wait(&rr, MPI_STATUS_IGNORE);
  CHECK(in == left, "ring value %d", in);
  /* A wildcard receive and a probe see synchronous messages too. */
  if (size > 1 && rank == 1) MPI_Ssend(&out, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
  if (size > 1 && rank == 0) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 12, "probe of an Ssend");
    MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(in == 1 && st.MPI_TAG == 12, "wildcard receive of an Ssend");
  }
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("ssend: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
