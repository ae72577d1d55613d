#include "attributes.h"

#include "match_bits.h"

#include <algorithm>

namespace ftmpi {
namespace {

// Values behind the predefined attributes; the standard hands out pointers to them.
int g_tag_ub = match::kMaxTag;
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;         // every process can do I/O
int g_wtime_is_global = 0;         // not synchronized across hosts
int g_universe_size = 1;
int g_last_used_code = MPI_ERR_LASTCODE;
int g_appnum = 0;  // mpirun starts one application

bool predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM; }

}  // namespace

static const char* kind_name(AttrKind kind) { return kind == AttrKind::comm ? "communicator" : "datatype"; }

Err Attributes::user_keyval(AttrKind kind, int keyval, Keyval** out) {
  std::size_t i = static_cast<std::size_t>(keyval - kFirstUser);
  if (keyval < kFirstUser || i >= keyvals_.size() ||
      (!keyvals_[i].live && keyvals_[i].attached == 0)) {
    return fail(Err::keyval, "keyval %d is not a valid user keyval", keyval);
  }
  if (keyvals_[i].kind != kind) {
    return fail(Err::keyval, "keyval %d is a %s keyval, not a %s one", keyval,
                kind_name(keyvals_[i].kind), kind_name(kind));
  }
  *out = &keyvals_[i];
  return Err::ok;
}

Err Attributes::create_keyval(AttrKind kind, MPI_Copy_function* copy, MPI_Delete_function* del,
                              void* extra, int* keyval) {
  keyvals_.push_back({kind, copy, del, extra, true});
  *keyval = kFirstUser + static_cast<int>(keyvals_.size() - 1);
  return Err::ok;
}

Err Attributes::free_keyval(AttrKind kind, int* keyval) {
  Keyval* k = nullptr;
  if (Err e = user_keyval(kind, *keyval, &k); e != Err::ok) return e;
  // Attributes already attached keep their callbacks' effect; the key just cannot be used for
  // new ones. Like MPICH's reference-counted keyvals, a freed key stays valid while an
  // attribute holds it, and freeing it again meanwhile (a delete callback that frees its key,
  // MPICH's attr/keyval_double_free) changes nothing.
  k->live = false;
  *keyval = MPI_KEYVAL_INVALID;
  return Err::ok;
}

Err Attributes::set_on(AttrKind kind, int handle, AttributeMap& map, int keyval, void* value) {
  if (kind == AttrKind::comm && predefined(keyval)) {
    return fail(Err::keyval, "keyval %d is predefined and read-only", keyval);
  }
  Keyval* k = nullptr;
  if (Err e = user_keyval(kind, keyval, &k); e != Err::ok) return e;
  // A callback may create keyvals (moving keyvals_) or change the map: look both up again.
  // A delete callback that fails leaves the old value in place (MPICH's attr/attrerr*).
  const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
  auto it = map.find(keyval);
  if (it != map.end() && k->del != nullptr) {
    int rc = k->del(handle, keyval, it->second.value, k->extra);
    if (rc != MPI_SUCCESS) return fail(Err::other, "delete callback of keyval %d returned %d", keyval, rc);
  }
  if (map.find(keyval) == map.end()) ++keyvals_[index].attached;
  map[keyval] = {value, next_set_order_++};
  return Err::ok;
}

Err Attributes::get_from(AttrKind kind, const AttributeMap& map, int keyval, void** value, int* flag) {
  Keyval* k = nullptr;
  if (Err e = user_keyval(kind, keyval, &k); e != Err::ok) {
    *flag = 0;
    return e;
  }
  auto it = map.find(keyval);
  *flag = it != map.end() ? 1 : 0;
  if (*flag) *value = it->second.value;
  return Err::ok;
}

Err Attributes::type_get(MPI_Datatype t, int keyval, void** value, int* flag) {
  auto it = type_attrs_.find(t);
  static const AttributeMap kNone;
  return get_from(AttrKind::type, it != type_attrs_.end() ? it->second : kNone, keyval, value, flag);
}

Err Attributes::type_copy_all(MPI_Datatype from, MPI_Datatype to, int* user_code) {
  auto it = type_attrs_.find(from);
  if (it == type_attrs_.end() || it->second.empty()) return Err::ok;
  const AttributeMap parent = it->second;  // type_attrs_[to] may move the map
  return copy_map(AttrKind::type, from, parent, type_attrs_[to], user_code);
}

Err Attributes::type_delete_all(MPI_Datatype t) {
  auto it = type_attrs_.find(t);
  if (it == type_attrs_.end()) return Err::ok;
  Err e = delete_map(AttrKind::type, t, it->second);
  // A callback may have set attributes on other types (type_attrs_ changed): look it up again.
  it = type_attrs_.find(t);
  if (e == Err::ok && it != type_attrs_.end() && it->second.empty()) type_attrs_.erase(it);
  return e;
}

Err Attributes::get(Comm* c, int keyval, void** value, int* flag, int universe_size) {
  *flag = 1;
  switch (keyval) {
    case MPI_TAG_UB: *value = &g_tag_ub; return Err::ok;
    case MPI_HOST: *value = &g_host; return Err::ok;
    case MPI_IO: *value = &g_io; return Err::ok;
    case MPI_WTIME_IS_GLOBAL: *value = &g_wtime_is_global; return Err::ok;
    case MPI_UNIVERSE_SIZE:
      g_universe_size = universe_size;
      *value = &g_universe_size;
      return Err::ok;
    case MPI_LASTUSEDCODE:
      g_last_used_code = last_used_code();
      *value = &g_last_used_code;
      return Err::ok;
    case MPI_APPNUM: *value = &g_appnum; return Err::ok;
    case FTMPI_NUM_FAILED_PROCS: c->attr_values[0] = static_cast<int>(c->failed.size()); *value = &c->attr_values[0]; return Err::ok;
    case FTMPI_COMM_STATE: c->attr_values[1] = c->state; *value = &c->attr_values[1]; return Err::ok;
    case FTMPI_COMM_MODE: c->attr_values[2] = c->comm_mode; *value = &c->attr_values[2]; return Err::ok;
    case FTMPI_MSG_MODE: c->attr_values[3] = c->msg_mode; *value = &c->attr_values[3]; return Err::ok;
    case FTMPI_COLL_MODE: c->attr_values[4] = c->coll_mode; *value = &c->attr_values[4]; return Err::ok;
    default: break;
  }
  return get_from(AttrKind::comm, c->attributes, keyval, value, flag);
}

Err Attributes::remove_from(AttrKind kind, int handle, AttributeMap& map, int keyval) {
  if (kind == AttrKind::comm && predefined(keyval)) {
    return fail(Err::keyval, "keyval %d is predefined and read-only", keyval);
  }
  Keyval* k = nullptr;
  if (Err e = user_keyval(kind, keyval, &k); e != Err::ok) return e;
  auto it = map.find(keyval);
  if (it == map.end()) return fail(Err::keyval, "keyval %d is not set on %s %d", keyval, kind_name(kind), handle);
  // The key stays valid during its callback (which may free it, or create keyvals: index).
  const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
  if (k->del != nullptr) {
    int rc = k->del(handle, keyval, it->second.value, k->extra);
    if (rc != MPI_SUCCESS) return fail(Err::other, "delete callback of keyval %d returned %d", keyval, rc);
  }
  if (map.erase(keyval) != 0) --keyvals_[index].attached;  // the callback may have changed the map
  return Err::ok;
}

Err Attributes::copy_map(AttrKind kind, int handle, const AttributeMap& from, AttributeMap& to,
                          int* user_code) {
  for (const auto& [keyval, attr] : from) {
    const Keyval& k = keyvals_[static_cast<std::size_t>(keyval - kFirstUser)];
    if (k.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = k.copy(handle, keyval, k.extra, attr.value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      *user_code = rc;
      return fail(Err::other, "copy callback of %s keyval %d returned %d", kind_name(kind), keyval, rc);
    }
    if (flag) {
      to[keyval] = {out, next_set_order_++};
      ++keyvals_[static_cast<std::size_t>(keyval - kFirstUser)].attached;
    }
  }
  return Err::ok;
}

Err Attributes::delete_map(AttrKind kind, int handle, AttributeMap& map) {
  // One at a time, the most recently set first, looking again after each callback: it may
  // have deleted or set attributes on this object.
  while (!map.empty()) {
    auto last = std::max_element(map.begin(), map.end(), [](const auto& a, const auto& b) {
      return a.second.set_order < b.second.set_order;
    });
    const int keyval = last->first;
    void* value = last->second.value;
    map.erase(last);
    // The attribute holds its key until the callback returns: the callback may free the key
    // (valid then) and may create keyvals (so no reference into keyvals_ across the call).
    const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
    const Keyval k = keyvals_[index];
    int rc = k.del != nullptr ? k.del(handle, keyval, value, k.extra) : MPI_SUCCESS;
    --keyvals_[index].attached;
    if (rc != MPI_SUCCESS) {
      return fail(Err::other, "delete callback of %s keyval %d returned %d", kind_name(kind), keyval, rc);
    }
  }
  return Err::ok;
}

}  // namespace ftmpi
