// C API: what a status says and what generalized code may write into one (MPI_Status_set_*,
// MPI_Get_elements_x), MPI_Request_get_status, the MPI_Count ("_x") forms of the datatype
// size and extent queries, and datatype names.
#include <climits>
#include <cstring>

#include "api_request.h"
#include "datatype_signature.h"
#include "library.h"
#include "status_count.h"

using namespace ftmpi;

namespace {

Err find_type(MPI_Datatype h, const Datatype** t) {
  if (Err e = check_initialized("datatype query"); e != Err::ok) return e;
  return lib().types.find(h, t);
}

// The byte count that makes MPI_Get_elements(type) say `count` (basic elements). A status
// holds up to 2^63 - 1 bytes (status_count.h); a count that needs more is refused (false).
bool bytes_for_elements(const Datatype& t, MPI_Count count, std::size_t* bytes) {
  *bytes = 0;
  if (t.size == 0) return true;  // nothing to count in: MPI_Get_elements says 0, as before
  return signature_bytes(*t.signature, static_cast<std::size_t>(count),
                         static_cast<std::size_t>(LLONG_MAX), bytes);
}

int set_elements(MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  const Datatype* t = nullptr;
  Err e = status == nullptr ? fail(Err::arg, "status pointer is NULL") : Err::ok;
  if (e == Err::ok && count < 0) e = fail(Err::count, "count %lld is negative", count);
  if (e == Err::ok) e = find_type(type, &t);
  std::size_t bytes = 0;
  if (e == Err::ok && !bytes_for_elements(*t, count, &bytes)) {
    e = fail(Err::count, "%lld basic elements of a %zu-byte datatype take more than the 2^63 - 1 "
             "bytes a status holds", count, t->size);
  }
  if (e != Err::ok) return raise_world(e);
  status_set_bytes(status, bytes, status_cancelled(status));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements(status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements(status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == nullptr) return raise_world(fail(Err::arg, "status pointer is NULL"));
  status_set_bytes(status, status_bytes(status), flag != 0);
  return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const Datatype* t = nullptr;
  Err e = status == nullptr || count == nullptr ? fail(Err::arg, "status or count pointer is NULL") : Err::ok;
  if (e == Err::ok) e = find_type(datatype, &t);
  if (e != Err::ok) return raise_world(e);
  *count = basic_element_count_x(*t, status_bytes(status));
  return MPI_SUCCESS;
}

// Like MPI_Test, but the request stays as it is: not freed, not made inactive. A staged
// receive is unpacked now, so the buffer holds the message as the standard promises.
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (Err e = check_initialized("MPI_Request_get_status"); e != Err::ok) return to_code(e);
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag pointer is NULL"));
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = lib().engine.requests().find(request);
  if (r == nullptr) return raise_world(fail(Err::request, "request %d is not active", request));
  if (!request_done(r)) lib().engine.progress();
  Request* op = operation_of(r);
  *flag = op == nullptr || op->complete ? 1 : 0;
  if (*flag == 0) {
    lib().engine.poll_missed();
    return MPI_SUCCESS;
  }
  if (op == nullptr) {  // an inactive persistent request
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  if (op->kind == Request::Kind::greq) return raise_code(nullptr, greq_query(op, status));
  if (op->unpack_type != nullptr &&
      (op->error == MPI_SUCCESS || error_class_of(op->error) == MPI_ERR_TRUNCATE)) {
    unpack(op->owned.data(), op->bytes, op->unpack_to, op->unpack_count, *op->unpack_type);
    lib().types.release(op->unpack_type);
    op->unpack_type = nullptr;
  }
  run_on_done(*op);  // completion is reported: the buffers hold what they will hold
  fill_status(*op, status);
  // The error stays with the request for its MPI_Wait/Test; here it is only reported.
  return op->error == MPI_SUCCESS ? MPI_SUCCESS : raise_code(op->comm, op->error);
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  const Datatype* t = nullptr;
  Err e = size == nullptr ? fail(Err::arg, "size pointer is NULL") : find_type(datatype, &t);
  if (e != Err::ok) return raise_world(e);
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const Datatype* t = nullptr;
  Err e = lb == nullptr || extent == nullptr ? fail(Err::arg, "lb or extent pointer is NULL")
                                             : find_type(datatype, &t);
  if (e != Err::ok) return raise_world(e);
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  const Datatype* t = nullptr;
  Err e = true_lb == nullptr || true_extent == nullptr
              ? fail(Err::arg, "true_lb or true_extent pointer is NULL")
              : find_type(datatype, &t);
  if (e != Err::ok) return raise_world(e);
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* name) {
  if (Err e = check_initialized("MPI_Type_set_name"); e != Err::ok) return to_code(e);
  if (name == nullptr) return raise_world(fail(Err::arg, "name pointer is NULL"));
  return raise_world(lib().types.rename(datatype, name));
}

int MPI_Type_get_name(MPI_Datatype datatype, char* name, int* resultlen) {
  const Datatype* t = nullptr;
  Err e = name == nullptr || resultlen == nullptr ? fail(Err::arg, "name or resultlen pointer is NULL")
                                                  : find_type(datatype, &t);
  if (e != Err::ok) return raise_world(e);
  // A derived type has no name until one is set (its internal description is not one).
  const char* text = !t->user_name.empty() ? t->user_name.c_str() : t->predefined ? t->name : "";
  std::size_t n = std::strlen(text);
  if (n >= MPI_MAX_OBJECT_NAME) n = MPI_MAX_OBJECT_NAME - 1;
  std::memcpy(name, text, n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

}  // extern "C"
