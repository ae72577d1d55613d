// C API: communicator constructors (which also repair, SPEC 4.5), free, names.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll_outcome.h"
#include "group.h"
#include "intercomm.h"
#include "monitor.h"
#include "library.h"

using namespace ftmpi;

namespace {
Err find(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}
}  // namespace

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_dup"); e != Err::ok) return raise(c, e);
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  if (Err e = c->inter ? intercomm_dup(c, newcomm) : lib().construct.dup(c, newcomm); e != Err::ok) {
    return raise(c, e);
  }
  Comm* child = nullptr;
  (void)lib().comms.lookup(*newcomm, &child);
  child->topology = c->topology;  // MPI-1.3 6.2: a duplicate keeps the topology
  child->hints = c->hints;        // and MPI-3.1 6.4.2: its info hints
  int user_code = MPI_SUCCESS;
  if (Err e = lib().attrs.copy_all(c, child, &user_code); e != Err::ok) {
    // MPI-3.1 6.7.2: a copy callback's failure fails the dup. The duplicate goes (with the
    // attributes copied so far, through their delete callbacks) and the caller gets the
    // callback's own code, so an application's error class comes back to it (MPICH does the
    // same; its errors/comm/userdup checks it).
    (void)lib().attrs.delete_all(child);
    (void)lib().construct.free(child);
    *newcomm = MPI_COMM_NULL;
    return raise_code(c, callback_error_code(e, user_code));
  }
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_split"); e != Err::ok) return raise(c, e);
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  if (color < 0 && color != MPI_UNDEFINED) {
    return raise(c, fail(Err::arg, "color %d is negative and not MPI_UNDEFINED", color));
  }
  if (c->inter) return raise(c, intercomm_split(c, color, key, newcomm));
  return raise(c, lib().construct.split(c, color, key, newcomm));
}

// A group's members become the new communicator in group order: exactly a split in which the
// members share one color and their group rank is the key, so it reuses the same agreement
// round (and repairs a communicator in error first, like dup and split).
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_create"); e != Err::ok) return raise(c, e);
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  const Group* g = nullptr;
  if (Err e = groups().lookup(group, &g); e != Err::ok) return raise(c, e);
  if (c->inter) {  // MPI-2.2 5.4.2: a subgroup of the local group on each side
    for (std::uint32_t p : g->procs) {
      if (p >= c->rank_of_proc.size() || c->rank_of_proc[p] < 0) {
        return raise(c, fail(Err::group, "the group has a process that is not in the local group of %s",
                             c->name.c_str()));
      }
    }
    const int color = g->my_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0;
    return raise(c, intercomm_split(c, color, g->my_rank, newcomm));
  }
  for (std::uint32_t p : g->procs) {
    if (p >= c->rank_of_proc.size() || c->rank_of_proc[p] < 0) {
      return raise(c, fail(Err::group, "the group has a process that is not in %s", c->name.c_str()));
    }
  }
  int color = g->my_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0;
  if (Err e = lib().construct.split(c, color, g->my_rank, newcomm); e != Err::ok) return raise(c, e);
  Comm* child = nullptr;
  if (*newcomm != MPI_COMM_NULL && lib().comms.lookup(*newcomm, &child) == Err::ok) {
    child->name = "create of " + c->name;
    monitor().comm_changed(*child);
  }
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  Comm* a = nullptr;
  Comm* b = nullptr;
  if (Err e = find(comm1, &a, "MPI_Comm_compare"); e != Err::ok) return raise(a, e);
  if (Err e = find(comm2, &b, "MPI_Comm_compare"); e != Err::ok) return raise(b, e);
  if (result == nullptr) return raise(a, fail(Err::arg, "result pointer is NULL"));
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a->inter || b->inter) {
    *result = intercomm_compare(*a, *b);
  } else if (a->procs == b->procs) {
    *result = MPI_CONGRUENT;
  } else {
    std::vector<std::uint32_t> x = a->procs, y = b->procs;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (comm == nullptr) return raise_world(fail(Err::arg, "comm pointer is NULL"));
  Comm* c = nullptr;
  if (Err e = find(*comm, &c, "MPI_Comm_free"); e != Err::ok) return raise(c, e);
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
    return raise(c, fail(Err::comm, "%s cannot be freed", c->name.c_str()));
  }
  if (Err e = lib().attrs.delete_all(c); e != Err::ok) return raise(c, e);
  confirm_settled(c);  // a member may still ask for the last settled collective's outcome
  if (Err e = lib().construct.free(c); e != Err::ok) return raise(c, e);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_group"); e != Err::ok) return raise(c, e);
  if (group == nullptr) return raise(c, fail(Err::arg, "group pointer is NULL"));
  *group = make_group(c->procs, c->procs[static_cast<std::size_t>(c->rank)]);
  return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char* name) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_set_name"); e != Err::ok) return raise(c, e);
  if (name == nullptr) return raise(c, fail(Err::arg, "name is NULL"));
  c->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  monitor().comm_changed(*c);
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_get_name"); e != Err::ok) return raise(c, e);
  if (name == nullptr || resultlen == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  std::memcpy(name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}

}  // extern "C"
