// C API: process groups. Arguments are checked here and in the group algebra (group.h); errors
// go through MPI_COMM_WORLD's handler since groups name no communicator. MPI_Comm_group lives
// with the communicators; it builds its group with make_group().
#include <vector>

#include "group.h"
#include "library.h"

using namespace ftmpi;

namespace {

Err find(MPI_Group h, const Group** g) { return groups().lookup(h, g); }

Err check_out(const void* p, const char* what) {
  return p == nullptr ? fail(Err::arg, "%s pointer is NULL", what) : Err::ok;
}

// The set operations: two groups in, a new group out.
template <typename F>
int combine(MPI_Group g1, MPI_Group g2, MPI_Group* newgroup, F&& op) {
  const Group* a = nullptr;
  const Group* b = nullptr;
  Err e = find(g1, &a);
  if (e == Err::ok) e = find(g2, &b);
  if (e == Err::ok) e = check_out(newgroup, "newgroup");
  if (e != Err::ok) return raise_world(e);
  // A member of either operand knows its own process index; prefer the one that does.
  const std::uint32_t me = a->my_rank != MPI_UNDEFINED ? a->my_proc : b->my_proc;
  *newgroup = groups().create(op(*a, *b), me);
  return MPI_SUCCESS;
}

// incl/excl and their range forms: one group and a validated list in, a new group out.
template <typename F>
int select(MPI_Group group, MPI_Group* newgroup, F&& pick) {
  const Group* g = nullptr;
  Err e = find(group, &g);
  if (e == Err::ok) e = check_out(newgroup, "newgroup");
  std::vector<std::uint32_t> procs;
  if (e == Err::ok) e = pick(*g, &procs);
  if (e != Err::ok) return raise_world(e);
  *newgroup = groups().create(std::move(procs), g->my_proc);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Group_size(MPI_Group group, int* size) {
  const Group* g = nullptr;
  Err e = check_out(size, "size");
  if (e == Err::ok) e = find(group, &g);
  if (e != Err::ok) return raise_world(e);
  *size = g->size();
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  const Group* g = nullptr;
  Err e = check_out(rank, "rank");
  if (e == Err::ok) e = find(group, &g);
  if (e != Err::ok) return raise_world(e);
  *rank = g->my_rank;
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) {
  const Group* a = nullptr;
  const Group* b = nullptr;
  Err e = find(group1, &a);
  if (e == Err::ok) e = find(group2, &b);
  if (e == Err::ok) e = group_translate(*a, n, ranks1, *b, ranks2);
  return e == Err::ok ? MPI_SUCCESS : raise_world(e);
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const Group* a = nullptr;
  const Group* b = nullptr;
  Err e = check_out(result, "result");
  if (e == Err::ok) e = find(group1, &a);
  if (e == Err::ok) e = find(group2, &b);
  if (e != Err::ok) return raise_world(e);
  *result = group_compare(*a, *b);
  return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine(group1, group2, newgroup, group_union);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine(group1, group2, newgroup, group_intersection);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine(group1, group2, newgroup, group_difference);
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return select(group, newgroup, [&](const Group& g, std::vector<std::uint32_t>* out) {
    return group_incl(g, n, ranks, out);
  });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return select(group, newgroup, [&](const Group& g, std::vector<std::uint32_t>* out) {
    return group_excl(g, n, ranks, out);
  });
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return select(group, newgroup, [&](const Group& g, std::vector<std::uint32_t>* out) {
    std::vector<int> ranks;
    if (Err e = group_range_ranks(g, n, ranges, &ranks); e != Err::ok) return e;
    return group_incl(g, static_cast<int>(ranks.size()), ranks.data(), out);
  });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return select(group, newgroup, [&](const Group& g, std::vector<std::uint32_t>* out) {
    std::vector<int> ranks;
    if (Err e = group_range_ranks(g, n, ranges, &ranks); e != Err::ok) return e;
    return group_excl(g, static_cast<int>(ranks.size()), ranks.data(), out);
  });
}

int MPI_Group_free(MPI_Group* group) {
  Err e = check_out(group, "group");
  if (e == Err::ok) e = groups().release(*group);
  if (e != Err::ok) return raise_world(e);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
