/* Group functions on the groups of MPI_COMM_WORLD and MPI_COMM_SELF: size, rank, incl/excl and
 * their range forms, union/intersection/difference order, translate_ranks, compare, free, and
 * MPI_GROUP_EMPTY; then every kind of bad argument with its error class. Any process count. */
#include <stdlib.h>

#include "check.h"

static int rank, size;

static void world_and_self(MPI_Group world, MPI_Group self) {
  int n, r, cmp;
  MPI_Group_size(world, &n);
  CHECK_EQ(n, size);
  MPI_Group_rank(world, &r);
  CHECK_EQ(r, rank);
  MPI_Group_size(self, &n);
  CHECK_EQ(n, 1);
  MPI_Group_rank(self, &r);
  CHECK_EQ(r, 0);
  MPI_Group_compare(world, world, &cmp);
  CHECK_EQ(cmp, MPI_IDENT);
  MPI_Group_compare(world, self, &cmp);
  CHECK_EQ(cmp, size == 1 ? MPI_IDENT : MPI_UNEQUAL);
  MPI_Group_size(MPI_GROUP_EMPTY, &n);
  CHECK_EQ(n, 0);
  MPI_Group_rank(MPI_GROUP_EMPTY, &r);
  CHECK_EQ(r, MPI_UNDEFINED);
}

static void incl_excl(MPI_Group world) {
  /* reversed world: rank r sits at size-1-r */
  int *ranks = malloc(sizeof(int) * (size_t)size), *out = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) ranks[i] = size - 1 - i;
  MPI_Group rev, evens, odds, u, x, d;
  MPI_Group_incl(world, size, ranks, &rev);
  int r, n, cmp;
  MPI_Group_rank(rev, &r);
  CHECK_EQ(r, size - 1 - rank);
  MPI_Group_compare(world, rev, &cmp);
  CHECK_EQ(cmp, size == 1 ? MPI_IDENT : MPI_SIMILAR);
  MPI_Group_translate_ranks(world, size, ranks, rev, out);
  for (int i = 0; i < size; ++i) CHECK_EQ(out[i], i);

  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, range, &evens);
  MPI_Group_range_excl(world, 1, range, &odds);
  MPI_Group_size(evens, &n);
  CHECK_EQ(n, (size + 1) / 2);
  MPI_Group_size(odds, &n);
  CHECK_EQ(n, size / 2);
  MPI_Group_rank(evens, &r);
  CHECK_EQ(r, rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED);
  MPI_Group_rank(odds, &r);
  CHECK_EQ(r, rank % 2 == 1 ? rank / 2 : MPI_UNDEFINED);

  MPI_Group_union(odds, evens, &u); /* odds first, then evens */
  MPI_Group_rank(u, &r);
  CHECK_EQ(r, rank % 2 == 1 ? rank / 2 : size / 2 + rank / 2);
  MPI_Group_compare(u, world, &cmp);
  CHECK_EQ(cmp, size <= 1 ? MPI_IDENT : MPI_SIMILAR);
  MPI_Group_intersection(evens, odds, &x);
  CHECK_EQ(x, MPI_GROUP_EMPTY);
  MPI_Group_difference(world, odds, &d);
  MPI_Group_compare(d, evens, &cmp);
  CHECK_EQ(cmp, MPI_IDENT);

  int zero = 0;
  MPI_Group_translate_ranks(evens, 1, &zero, odds, out);
  CHECK_EQ(out[0], MPI_UNDEFINED);
  int pn = MPI_PROC_NULL;
  MPI_Group_translate_ranks(world, 1, &pn, evens, out);
  CHECK_EQ(out[0], MPI_PROC_NULL);

  MPI_Group e;
  MPI_Group_excl(world, size, ranks, &e); /* everyone excluded */
  CHECK_EQ(e, MPI_GROUP_EMPTY);
  MPI_Group_incl(world, 0, NULL, &e);
  CHECK_EQ(e, MPI_GROUP_EMPTY);
  CHECK_EQ(MPI_Group_free(&e), MPI_SUCCESS);

  MPI_Group all[] = {rev, evens, odds, u, x, d};
  for (int i = 0; i < 6; ++i) {
    CHECK_EQ(MPI_Group_free(&all[i]), MPI_SUCCESS);
    CHECK_EQ(all[i], MPI_GROUP_NULL);
  }
  free(ranks);
  free(out);
}

static void bad_arguments(MPI_Group world) {
  MPI_Group g;
  int n, r = size, out;
  int two[2] = {0, 0};
  int range[1][3] = {{0, size - 1, 0}};
  CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Group_size((MPI_Group)4242, &n), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Group_rank(world, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Group_incl(world, 1, &r, &g), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_incl(world, 2, two, &g), size < 2 ? MPI_ERR_ARG : MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_incl(world, -1, two, &g), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Group_excl(world, 1, &r, &g), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_range_incl(world, 1, range, &g), MPI_ERR_ARG);
  range[0][2] = 1;
  range[0][1] = size;
  CHECK_CLASS(MPI_Group_range_excl(world, 1, range, &g), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_translate_ranks(world, 1, &r, world, &out), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Group_compare(world, world, NULL), MPI_ERR_ARG);
  g = MPI_GROUP_NULL;
  CHECK_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP);
  MPI_Group_incl(world, 1, &rank, &g);
  MPI_Group h = g;
  MPI_Group_free(&g);
  CHECK_CLASS(MPI_Group_free(&h), MPI_ERR_GROUP); /* freed twice */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, self;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(MPI_COMM_SELF, &self);
  world_and_self(world, self);
  incl_excl(world);
  bad_arguments(world);
  MPI_Group_free(&world);
  MPI_Group_free(&self);
  return check_finish("group_ops");
}
