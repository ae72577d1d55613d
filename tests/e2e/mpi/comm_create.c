/* MPI_Comm_create from a group (odd ranks, reversed), MPI_Comm_compare, and a collective on the
 * new communicator. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, odd;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = size / 2, *ranks = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; i++) ranks[i] = size - 1 - (size % 2 == 0 ? 2 * i : 2 * i + 1); /* odd ranks, descending */
  MPI_Group_incl(world, n, ranks, &odd);
  MPI_Comm c;
  MPI_Comm_create(MPI_COMM_WORLD, odd, &c);
  CHECK((rank % 2 == 1) == (c != MPI_COMM_NULL), "membership");
  if (c != MPI_COMM_NULL) {
    int r, s, sum = 0;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(s == n && ranks[r] == rank, "rank %d in the new communicator", r);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == n * n, "sum over odd ranks %d", sum); /* 1+3+...+(2n-1) */
    int cmp;
    MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == (n == size ? MPI_SIMILAR : MPI_UNEQUAL), "compare with world %d", cmp);
    MPI_Comm_free(&c);
  }
  MPI_Comm d;
  int cmp;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_compare(d, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "dup is congruent (%d)", cmp);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_IDENT, "ident");
  MPI_Comm_free(&d);
  MPI_Group_free(&odd);
  MPI_Group_free(&world);
  free(ranks);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("comm_create: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
