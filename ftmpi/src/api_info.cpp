// C API: info objects (info.h) and a communicator's hints. Info calls name no communicator, so
// their errors go through MPI_COMM_WORLD's handler, like the group calls. The calls on info
// objects alone work before MPI_Init and after MPI_Finalize too (MPI-4.0 11.4.1; MPICH's
// info/info_no_init): the table is the process's, not the library's; errors there are returned.
#include <algorithm>
#include <cstring>

#include "info.h"
#include "intercomm.h"
#include "library.h"

using namespace ftmpi;

namespace {

Err find(MPI_Info handle, const Info** info, const char*) { return infos().lookup(handle, info); }

Err find_mutable(MPI_Info handle, Info** info, const char*) {
  return infos().lookup_mutable(handle, info);
}

Err find_comm(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}

}  // namespace

extern "C" {

int MPI_Info_create(MPI_Info* info) {
  if (info == nullptr) return raise_world(fail(Err::arg, "MPI_Info_create: info pointer is NULL"));
  *info = infos().create(Info{});
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  Info* i = nullptr;
  std::string k, v;
  if (Err e = find_mutable(info, &i, "MPI_Info_set"); e != Err::ok) return raise_world(e);
  if (Err e = check_info_key(key, &k); e != Err::ok) return raise_world(e);
  if (Err e = check_info_value(value, &v); e != Err::ok) return raise_world(e);
  i->set(k, v);
  return MPI_SUCCESS;
}

// Copies at most valuelen characters and a terminator: `value` holds valuelen + 1 (MPI-3.1 9).
int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const Info* i = nullptr;
  std::string k;
  if (Err e = find(info, &i, "MPI_Info_get"); e != Err::ok) return raise_world(e);
  if (Err e = check_info_key(key, &k); e != Err::ok) return raise_world(e);
  if (valuelen < 0) return raise_world(fail(Err::arg, "MPI_Info_get: valuelen %d is negative", valuelen));
  if (value == nullptr || flag == nullptr) return raise_world(fail(Err::arg, "MPI_Info_get: NULL output pointer"));
  const std::string* v = i->find(k);
  *flag = v != nullptr;
  if (v != nullptr) {
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}

int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  const Info* i = nullptr;
  std::string k;
  if (Err e = find(info, &i, "MPI_Info_get_string"); e != Err::ok) return raise_world(e);
  if (Err e = check_info_key(key, &k); e != Err::ok) return raise_world(e);
  if (buflen == nullptr || flag == nullptr || *buflen < 0 || (*buflen > 0 && value == nullptr)) {
    return raise_world(fail(Err::arg, "MPI_Info_get_string: NULL output or negative buflen"));
  }
  const std::string* v = i->find(k);
  *flag = v != nullptr;
  if (v == nullptr) return MPI_SUCCESS;
  if (*buflen > 0) {
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}

int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  if (info == nullptr || argc < 0 || (argc > 0 && argv == nullptr)) {
    return raise_world(fail(Err::arg, "MPI_Info_create_env: NULL info, or argc %d without argv", argc));
  }
  // No arguments (MPI_Init(NULL, NULL)'s case, and Fortran's): the process's own command line.
  std::vector<std::string> words;
  for (int a = 0; a < argc && argv[a] != nullptr; ++a) words.emplace_back(argv[a]);
  if (words.empty()) words = process_command_line();
  Info env;
  set_launch_keys(env, words);
  *info = infos().create(std::move(env));
  return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const Info* i = nullptr;
  std::string k;
  if (Err e = find(info, &i, "MPI_Info_get_valuelen"); e != Err::ok) return raise_world(e);
  if (Err e = check_info_key(key, &k); e != Err::ok) return raise_world(e);
  if (valuelen == nullptr || flag == nullptr) {
    return raise_world(fail(Err::arg, "MPI_Info_get_valuelen: NULL output pointer"));
  }
  const std::string* v = i->find(k);
  *flag = v != nullptr;
  if (v != nullptr) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  const Info* i = nullptr;
  if (Err e = find(info, &i, "MPI_Info_get_nkeys"); e != Err::ok) return raise_world(e);
  if (nkeys == nullptr) return raise_world(fail(Err::arg, "MPI_Info_get_nkeys: nkeys is NULL"));
  *nkeys = static_cast<int>(i->entries.size());
  return MPI_SUCCESS;
}

// `key` holds MPI_MAX_INFO_KEY + 1 characters; keys are never longer (MPI_Info_set checks).
int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const Info* i = nullptr;
  if (Err e = find(info, &i, "MPI_Info_get_nthkey"); e != Err::ok) return raise_world(e);
  if (key == nullptr) return raise_world(fail(Err::arg, "MPI_Info_get_nthkey: key is NULL"));
  const int nkeys = static_cast<int>(i->entries.size());
  if (n < 0 || n >= nkeys) {
    return raise_world(fail(Err::arg, "MPI_Info_get_nthkey: n %d outside 0..%d", n, nkeys - 1));
  }
  const std::string& k = i->entries[static_cast<std::size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const Info* i = nullptr;
  if (Err e = find(info, &i, "MPI_Info_dup"); e != Err::ok) return raise_world(e);
  if (newinfo == nullptr) return raise_world(fail(Err::arg, "MPI_Info_dup: newinfo is NULL"));
  *newinfo = infos().create(*i);
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  Info* i = nullptr;
  std::string k;
  if (Err e = find_mutable(info, &i, "MPI_Info_delete"); e != Err::ok) return raise_world(e);
  if (Err e = check_info_key(key, &k); e != Err::ok) return raise_world(e);
  if (!i->erase(k)) return raise_world(fail(Err::info_nokey, "MPI_Info_delete: no key '%s'", k.c_str()));
  return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info* info) {
  if (info == nullptr) return raise_world(fail(Err::arg, "MPI_Info_free: info pointer is NULL"));
  return raise_world(infos().free(info));
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  Comm* c = nullptr;
  const Info* i = nullptr;
  if (Err e = find_comm(comm, &c, "MPI_Comm_set_info"); e != Err::ok) return raise(c, e);
  if (Err e = infos().lookup(info, &i); e != Err::ok) return raise(c, e);
  for (const auto& [k, v] : i->entries) c->hints.set(k, v);
  return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  Comm* c = nullptr;
  if (Err e = find_comm(comm, &c, "MPI_Comm_get_info"); e != Err::ok) return raise(c, e);
  if (info_used == nullptr) return raise(c, fail(Err::arg, "MPI_Comm_get_info: info_used is NULL"));
  *info_used = infos().create(c->hints);
  return MPI_SUCCESS;
}

// MPI_Comm_dup (attributes, topology, the same construction round) with other hints.
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  const Info* i = nullptr;
  if (Err e = find_comm(comm, &c, "MPI_Comm_dup_with_info"); e != Err::ok) return raise(c, e);
  // MPI_INFO_NULL: a duplicate without hints (MPI-4.1 7.4.2 allows it; MPICH and Open MPI accept it).
  if (info != MPI_INFO_NULL) {
    if (Err e = infos().lookup(info, &i); e != Err::ok) return raise(c, e);
  }
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  Info hints = i != nullptr ? *i : Info{};  // copied first: the dup may run error handlers that free `info`
  if (int rc = MPI_Comm_dup(comm, newcomm); rc != MPI_SUCCESS) return rc;
  Comm* child = nullptr;
  if (lib().comms.lookup(*newcomm, &child) == Err::ok) child->hints = std::move(hints);
  return MPI_SUCCESS;
}

// One construction round on comm, like MPI_Comm_split (and repairing comm first, SPEC 4.5);
// the host name rides in each member's contribution instead of a color.
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  const Info* i = nullptr;
  if (Err e = find_comm(comm, &c, "MPI_Comm_split_type"); e != Err::ok) return raise(c, e);
  if (c->inter) {
    return raise(c, fail(Err::comm, "MPI_Comm_split_type: %s is an intercommunicator", c->name.c_str()));
  }
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return raise(c, fail(Err::arg, "MPI_Comm_split_type: split_type %d is neither "
                         "MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED", split_type));
  }
  if (info != MPI_INFO_NULL) {
    if (Err e = infos().lookup(info, &i); e != Err::ok) return raise(c, e);
  }
  const bool member = split_type == MPI_COMM_TYPE_SHARED;
  if (Err e = lib().construct.split_by_host(c, member, key, member ? lib().runtime.hostname() : "",
                                            newcomm);
      e != Err::ok) {
    return raise(c, e);
  }
  Comm* child = nullptr;
  if (*newcomm != MPI_COMM_NULL && lib().comms.lookup(*newcomm, &child) == Err::ok) {
    child->name = "split_type of " + c->name;
    if (i != nullptr) child->hints = *i;
  }
  return MPI_SUCCESS;
}

}  // extern "C"
