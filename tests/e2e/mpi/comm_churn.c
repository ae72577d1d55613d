/* Communicator churn: thousands of constructions must not exhaust the 2048 context-id pairs.
 *   comm_churn [ITERATIONS]   (default 3000; more than the number of pairs)
 * Each iteration: MPI_Comm_split with MPI_UNDEFINED on some ranks (which ones rotates), an
 * MPI_Comm_create whose group leaves some ranks out (MPI_COMM_NULL there), an MPI_Cart_create
 * on fewer ranks than the parent, and MPI_Comm_dup; every communicator made is used once and
 * freed. A few long-lived communicators stay alive throughout, so freed ids are recycled around
 * ids still in use; messages on each of them at the end check that none was confused. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* One allreduce proves that the members agree on the communicator and that it carries traffic. */
static void use_and_free(MPI_Comm *c, int expect_size, const char *what, int it) {
  int size = 0, one = 1, sum = 0;
  MPI_Comm_size(*c, &size);
  CHECK(size == expect_size, "%s %d: size %d, expected %d", what, it, size, expect_size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, *c);
  CHECK(sum == size, "%s %d: allreduce %d over %d ranks", what, it, sum, size);
  MPI_Comm_free(c);
  CHECK(*c == MPI_COMM_NULL, "%s %d: free leaves the handle set", what, it);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, iterations = argc > 1 ? atoi(argv[1]) : 3000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm keep[3];
  for (int k = 0; k < 3; k++) MPI_Comm_dup(MPI_COMM_WORLD, &keep[k]);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int *ranks = malloc(sizeof(int) * (size_t)size);
  for (int it = 0; it < iterations && failures == 0; it++) {
    /* Split: the rank it % size sits out (alone in a 1-process world it always does). */
    int out = it % size, color = rank == out ? MPI_UNDEFINED : rank % 2;
    MPI_Comm c;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, color, rank, &c);
    CHECK(rc == MPI_SUCCESS, "split %d: rc %d", it, rc);
    if (rc != MPI_SUCCESS) break;
    if (color == MPI_UNDEFINED) {
      CHECK(c == MPI_COMM_NULL, "split %d: MPI_UNDEFINED gave a communicator", it);
    } else {
      int n = 0;
      for (int r = 0; r < size; r++) n += r != out && r % 2 == color;
      use_and_free(&c, n, "split", it);
    }
    /* Create from a group of the first (it % size) + 1 ranks: the others get MPI_COMM_NULL. */
    int n = it % size + 1;
    for (int r = 0; r < n; r++) ranks[r] = r;
    MPI_Group g;
    MPI_Group_incl(world_group, n, ranks, &g);
    rc = MPI_Comm_create(MPI_COMM_WORLD, g, &c);
    MPI_Group_free(&g);
    CHECK(rc == MPI_SUCCESS, "create %d: rc %d", it, rc);
    if (rc != MPI_SUCCESS) break;
    CHECK((rank < n) == (c != MPI_COMM_NULL), "create %d: membership", it);
    if (c != MPI_COMM_NULL) use_and_free(&c, n, "create", it);
    /* A 1-D Cartesian grid smaller than the parent: the ranks beyond it get MPI_COMM_NULL. */
    int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0};
    rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c);
    CHECK(rc == MPI_SUCCESS, "cart %d: rc %d", it, rc);
    if (rc != MPI_SUCCESS) break;
    CHECK((rank < dims[0]) == (c != MPI_COMM_NULL), "cart %d: membership", it);
    if (c != MPI_COMM_NULL) use_and_free(&c, dims[0], "cart", it);
    rc = MPI_Comm_dup(keep[it % 3], &c);
    CHECK(rc == MPI_SUCCESS, "dup %d: rc %d", it, rc);
    if (rc != MPI_SUCCESS) break;
    use_and_free(&c, size, "dup", it);
  }
  /* The long-lived communicators still carry their own messages: each ring token is tagged
   * the same, so a confused context would deliver one communicator's token to another. */
  for (int k = 0; k < 3; k++) {
    int token = rank * 10 + k, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 5, keep[k], MPI_STATUS_IGNORE);
    CHECK(got == ((rank + size - 1) % size) * 10 + k, "kept communicator %d: token %d", k, got);
    MPI_Comm_free(&keep[k]);
  }
  MPI_Group_free(&world_group);
  free(ranks);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && all == 0) printf("comm_churn: OK, %d iterations on %d ranks\n", iterations, size);
  return failures ? 1 : 0;
}
