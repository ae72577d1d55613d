// The cold half of coll_call.h: error returns, v-variant byte arrays, slot staging.
#include "coll_call.h"

namespace ftmpi::collapi {

Err check_v_buffer(const char* what, const void* buf, const Datatype& t,
                   const std::vector<std::size_t>& bytes) {
  if (buf != nullptr || (!t.contiguous && !t.predefined)) return Err::ok;
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    if (bytes[r] > 0) {
      return fail(Err::buffer, "%s is NULL but %zu bytes are to be transferred for rank %zu", what,
                  bytes[r], r);
    }
  }
  return Err::ok;
}

std::size_t total_of(const std::vector<std::size_t>& v) {
  std::size_t n = 0;
  for (std::size_t x : v) n += x;
  return n;
}

Err to_bytes(const Comm* c, const int* counts, const int* displs, std::size_t extent,
             std::vector<std::size_t>* bc, std::vector<std::size_t>* bd) {
  if (counts == nullptr || (bd != nullptr && displs == nullptr)) {
    return fail(Err::arg, "counts or displacements array is NULL");
  }
  bc->resize(static_cast<std::size_t>(c->size()));
  if (bd != nullptr) bd->resize(static_cast<std::size_t>(c->size()));
  for (int r = 0; r < c->size(); ++r) {
    if (counts[r] < 0) return fail(Err::count, "count %d for rank %d is negative", counts[r], r);
    (*bc)[static_cast<std::size_t>(r)] = static_cast<std::size_t>(counts[r]) * extent;
    if (bd != nullptr) {
      if (displs[r] < 0) return fail(Err::arg, "displacement %d for rank %d is negative", displs[r], r);
      (*bd)[static_cast<std::size_t>(r)] = static_cast<std::size_t>(displs[r]) * extent;
    }
  }
  return Err::ok;
}

int report_failure(Comm* c, coll::Status s, const char* fn) {
  if (s == coll::Status::ok) {
    return raise(c, fail_report(Err::other, "%s on %s: a participant failed or the collective failed "
                         "elsewhere (atomic mode: every survivor gets this error)%s%s", fn,
                         c->name.c_str(), c->failed.empty() ? "" : "; failed rank(s) ",
                         failed_ranks_text(*c).c_str()));
  }
  switch (s) {
    case coll::Status::proc_failed:
      return raise(c, fail_report(failure_err(*c), "%s on %s: a participant failed (rank(s) %s)", fn,
                           c->name.c_str(), failed_ranks_text(*c).c_str()));
    case coll::Status::truncated: return raise(c, fail(Err::truncate, "%s: message truncated", fn));
    case coll::Status::invalid: return raise(c, fail(Err::arg, "%s: invalid arguments", fn));
    default: return raise(c, fail(Err::intern, "%s: internal error", fn));
  }
}

int refuse(Comm* c, Err e) {
  if (atomic(c)) (void)agree_outcome(c, false);
  return raise(c, e);
}

void load_slot(Stage* s, int i, std::size_t per) {
  const std::size_t first = static_cast<std::size_t>(i) * per;
  s->load(first, per, first * s->elem_bytes());
}

void store_slots(const Stage& s, const coll::View& v, std::size_t per, int skip) {
  if (s.direct()) return;
  if (skip < 0 && static_cast<int>(v.members.size()) == v.comm_size) return s.store_all();
  for (int r : v.members) {
    if (r == skip) continue;
    const std::size_t first = static_cast<std::size_t>(r) * per;
    s.store(first, per, first * s.elem_bytes());
  }
}

Err v_buffer(const Comm* c, const char* what, const void* buf, const int* counts,
             const int* displs, const Datatype& t, VBuffer* out) {
  const Form f = Form::packed(t);
  const std::size_t unit = f.direct ? static_cast<std::size_t>(t.extent) : t.size;
  if (Err e = to_bytes(c, counts, displs, unit, &out->counts, &out->displs); e != Err::ok) {
    return e;
  }
  if (Err e = check_v_buffer(what, buf, t, out->counts); e != Err::ok) return e;
  out->elem_counts = counts;
  out->elem_displs = displs;
  std::size_t elements = 0;
  if (!f.direct) {
    std::size_t at = 0;
    for (std::size_t r = 0; r < out->counts.size(); ++r) {
      out->displs[r] = at;
      at += out->counts[r];
      elements += static_cast<std::size_t>(counts[r]);
    }
  }
  out->stage.setup(buf, elements, t, f);
  return Err::ok;
}

}  // namespace ftmpi::collapi
