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

Err Attributes::user_keyval(int keyval, Keyval** out) {
  std::size_t i = static_cast<std::size_t>(keyval - kFirstUser);
  if (keyval < kFirstUser || i >= keyvals_.size() ||
      (!keyvals_[i].live && keyvals_[i].attached == 0)) {
    return fail(Err::keyval, "keyval %d is not a valid user keyval", keyval);
  }
  *out = &keyvals_[i];
  return Err::ok;
}

Err Attributes::create_keyval(MPI_Copy_function* copy, MPI_Delete_function* del, void* extra,
                              int* keyval) {
  keyvals_.push_back({copy, del, extra, true});
  *keyval = kFirstUser + static_cast<int>(keyvals_.size() - 1);
  return Err::ok;
}

Err Attributes::free_keyval(int* keyval) {
  Keyval* k = nullptr;
  if (Err e = user_keyval(*keyval, &k); e != Err::ok) return e;
  // Attributes already attached keep their callbacks' effect; the key just cannot be used for
  // new ones. Like MPICH's reference-counted keyvals, a freed key stays valid while an
  // attribute holds it, and freeing it again meanwhile (a delete callback that frees its key,
  // MPICH's attr/keyval_double_free) changes nothing.
  k->live = false;
  *keyval = MPI_KEYVAL_INVALID;
  return Err::ok;
}

Err Attributes::set(Comm* c, int keyval, void* value) {
  if (predefined(keyval)) return fail(Err::keyval, "keyval %d is predefined and read-only", keyval);
  Keyval* k = nullptr;
  if (Err e = user_keyval(keyval, &k); e != Err::ok) return e;
  // A callback may create keyvals (moving keyvals_) or change the map: look both up again.
  const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
  auto it = c->attributes.find(keyval);
  if (it != c->attributes.end() && k->del != nullptr) {
    int rc = k->del(c->handle, keyval, it->second.value, k->extra);
    if (rc != MPI_SUCCESS) return fail(Err::other, "delete callback of keyval %d returned %d", keyval, rc);
  }
  if (c->attributes.find(keyval) == c->attributes.end()) ++keyvals_[index].attached;
  c->attributes[keyval] = {value, next_set_order_++};
  return Err::ok;
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
  Keyval* k = nullptr;
  if (Err e = user_keyval(keyval, &k); e != Err::ok) {
    *flag = 0;
    return e;
  }
  auto it = c->attributes.find(keyval);
  *flag = it != c->attributes.end() ? 1 : 0;
  if (*flag) *value = it->second.value;
  return Err::ok;
}

Err Attributes::remove(Comm* c, int keyval) {
  if (predefined(keyval)) return fail(Err::keyval, "keyval %d is predefined and read-only", keyval);
  Keyval* k = nullptr;
  if (Err e = user_keyval(keyval, &k); e != Err::ok) return e;
  auto it = c->attributes.find(keyval);
  if (it == c->attributes.end()) return fail(Err::keyval, "keyval %d is not set on %s", keyval, c->name.c_str());
  // The key stays valid during its callback (which may free it, or create keyvals: index).
  const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
  if (k->del != nullptr) {
    int rc = k->del(c->handle, keyval, it->second.value, k->extra);
    if (rc != MPI_SUCCESS) return fail(Err::other, "delete callback of keyval %d returned %d", keyval, rc);
  }
  if (c->attributes.erase(keyval) != 0) --keyvals_[index].attached;  // the callback may have changed the map
  return Err::ok;
}

Err Attributes::copy_all(Comm* parent, Comm* child) {
  for (const auto& [keyval, attr] : parent->attributes) {
    const Keyval& k = keyvals_[static_cast<std::size_t>(keyval - kFirstUser)];
    if (k.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = k.copy(parent->handle, keyval, k.extra, attr.value, &out, &flag);
    if (rc != MPI_SUCCESS) return fail(Err::other, "copy callback of keyval %d returned %d", keyval, rc);
    if (flag) {
      child->attributes[keyval] = {out, next_set_order_++};
      ++keyvals_[static_cast<std::size_t>(keyval - kFirstUser)].attached;
    }
  }
  return Err::ok;
}

Err Attributes::delete_all(Comm* c) {
  // One at a time, the most recently set first, looking again after each callback: it may
  // have deleted or set attributes on this communicator.
  while (!c->attributes.empty()) {
    auto last = std::max_element(c->attributes.begin(), c->attributes.end(),
                                 [](const auto& a, const auto& b) {
                                   return a.second.set_order < b.second.set_order;
                                 });
    const int keyval = last->first;
    void* value = last->second.value;
    c->attributes.erase(last);
    // The attribute holds its key until the callback returns: the callback may free the key
    // (valid then) and may create keyvals (so no reference into keyvals_ across the call).
    const std::size_t index = static_cast<std::size_t>(keyval - kFirstUser);
    const Keyval k = keyvals_[index];
    int rc = k.del != nullptr ? k.del(c->handle, keyval, value, k.extra) : MPI_SUCCESS;
    --keyvals_[index].attached;
    if (rc != MPI_SUCCESS) return fail(Err::other, "delete callback of keyval %d returned %d", keyval, rc);
  }
  return Err::ok;
}

}  // namespace ftmpi
