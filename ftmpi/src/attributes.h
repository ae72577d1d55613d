// Attribute caching (MPI-1.3 5.7, MPI-3.1 6.7): one keyval table and one set of rules for
// communicators and datatypes. A keyval belongs to the kind it was created for (a datatype
// keyval on a communicator is MPI_ERR_KEYVAL, as in MPICH). The callback types of both kinds
// have the same C signature (MPI_Comm and MPI_Datatype are both ints), so one Keyval serves.
// Communicators keep their AttributeMap; datatypes' live here by handle, because datatype
// records are copied (MPI_Type_get_contents, the records a constructor remembers) and a copy
// must not carry attributes. Predefined communicator attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
// MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, ...) and ftmpi's cached FT attributes
// (FTMPI_NUM_FAILED_PROCS ... FTMPI_COLL_MODE) are computed when read.
#pragma once

#include <mpi.h>

#include <map>
#include <vector>

#include "attr_map.h"
#include "comm.h"
#include "error.h"

namespace ftmpi {

enum class AttrKind : int { comm = 0, type = 1 };

class Attributes {
 public:
  Err create_keyval(AttrKind kind, MPI_Copy_function* copy, MPI_Delete_function* del,
                    void* extra, int* keyval);
  Err free_keyval(AttrKind kind, int* keyval);

  // Communicators.
  Err set(Comm* c, int keyval, void* value) {
    return set_on(AttrKind::comm, c->handle, c->attributes, keyval, value);
  }
  // *value receives the stored pointer (for predefined keys: a pointer to an int).
  Err get(Comm* c, int keyval, void** value, int* flag, int universe_size);
  Err remove(Comm* c, int keyval) { return remove_from(AttrKind::comm, c->handle, c->attributes, keyval); }
  // MPI_Comm_dup: runs every copy callback from parent into child.
  // A copy callback's error stops the copy; its return value (an error class or code, maybe
  // one the application added) goes to *user_code for the caller to return as it is.
  Err copy_all(Comm* parent, Comm* child, int* user_code) {
    return copy_map(AttrKind::comm, parent->handle, parent->attributes, child->attributes, user_code);
  }
  // MPI_Comm_free, and MPI_Finalize on MPI_COMM_SELF: runs every delete callback, the last
  // attribute set first. Each attribute is detached before its callback runs, so a callback
  // may make MPI calls, attribute calls on the same object included.
  Err delete_all(Comm* c) { return delete_map(AttrKind::comm, c->handle, c->attributes); }

  // Datatypes (the caller has checked that the handle is a live datatype).
  Err type_set(MPI_Datatype t, int keyval, void* value) {
    return set_on(AttrKind::type, t, type_attrs_[t], keyval, value);
  }
  Err type_get(MPI_Datatype t, int keyval, void** value, int* flag);
  Err type_remove(MPI_Datatype t, int keyval) {
    return remove_from(AttrKind::type, t, type_attrs_[t], keyval);
  }
  // MPI_Type_dup: copy callbacks from `from` into the new type `to`.
  Err type_copy_all(MPI_Datatype from, MPI_Datatype to, int* user_code);
  // MPI_Type_free (before the handle goes): every delete callback, the last set first.
  Err type_delete_all(MPI_Datatype t);

 private:
  struct Keyval {
    AttrKind kind = AttrKind::comm;
    MPI_Copy_function* copy = nullptr;
    MPI_Delete_function* del = nullptr;
    void* extra = nullptr;
    bool live = false;  // the user's handle: until MPI_*_free_keyval
    // Attributes set with it. MPI-1.3 5.7.1: freeing a keyval in use does not remove it; the
    // program may still delete those attributes by the key (MPICH's attr/fkeyval).
    int attached = 0;
  };
  static constexpr int kFirstUser = 64;  // below: predefined keys (mpi.h, ftmpi.h)
  Err user_keyval(AttrKind kind, int keyval, Keyval** out);
  Err set_on(AttrKind kind, int handle, AttributeMap& map, int keyval, void* value);
  Err get_from(AttrKind kind, const AttributeMap& map, int keyval, void** value, int* flag);
  Err remove_from(AttrKind kind, int handle, AttributeMap& map, int keyval);
  Err copy_map(AttrKind kind, int handle, const AttributeMap& from, AttributeMap& to, int* user_code);
  Err delete_map(AttrKind kind, int handle, AttributeMap& map);

  std::vector<Keyval> keyvals_;
  std::uint64_t next_set_order_ = 0;
  std::map<MPI_Datatype, AttributeMap> type_attrs_;
};

}  // namespace ftmpi
