// The machinery every intercommunicator collective shares (intercomm_call.h).
#include "intercomm_call.h"

#include <memory>

#include "library.h"
#include "nbc.h"

namespace ftmpi::intercoll {
namespace {

Comm& local_side(Comm* ic) {
  if (!ic->local_side) {
    auto l = std::make_shared<Comm>();
    l->context = ic->context;
    l->coll_context = ic->coll_context;
    l->procs = ic->procs;
    l->rank_of_proc = ic->rank_of_proc;
    l->rank = ic->rank;
    l->proc_state.assign(ic->procs.size(), FTMPI_PROC_OK);
    l->comm_mode = ic->comm_mode;
    l->msg_mode = ic->msg_mode;
    l->name = ic->name + " (local group)";
    ic->local_side = std::move(l);
  }
  return *ic->local_side;
}

// root of a rooted call: MPI_ROOT, MPI_PROC_NULL, or a rank of the remote group.
Err check_root(Comm* ic, int root, const char* fn) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ic->peer_size())) {
    return Err::ok;
  }
  return fail(Err::root,
              "%s: root %d on intercommunicator %s is neither MPI_ROOT, MPI_PROC_NULL "
              "nor a rank of the remote group (0..%d)",
              fn, root, ic->name.c_str(), ic->peer_size() - 1);
}

}  // namespace

InterP2P::InterP2P(Engine* e, Comm* ic)
    : engine_(e), ic_(ic), local_(&local_side(ic)), tag_offset_(Nbc::tag_offset()) {}

InterP2P::~InterP2P() {
  for (Request* r : reqs_) {
    if (r == nullptr) continue;
    engine_->purge(r, MPI_ERR_OTHER);
    engine_->retire(r);
  }
}

coll::Status InterP2P::waitall(coll::RequestId* ids, int n) {
  engine_->wait_until([&] {
    if (failed()) return true;
    for (int i = 0; i < n; ++i) {
      Request* r = reqs_[static_cast<std::size_t>(ids[i])];
      if (r != nullptr && !r->complete) return false;
    }
    return true;
  });
  coll::Status result = coll::Status::ok;
  for (int i = 0; i < n; ++i) {
    Request*& r = reqs_[static_cast<std::size_t>(ids[i])];
    if (r == nullptr) continue;
    if (!r->complete) engine_->purge(r, MPI_ERR_OTHER);
    if (result == coll::Status::ok && r->error != MPI_SUCCESS) {
      result = error_class_of(r->error) == MPI_ERR_TRUNCATE ? coll::Status::truncated
                                                            : coll::Status::proc_failed;
    }
    engine_->retire(r);
    r = nullptr;
  }
  if (result == coll::Status::ok && failed()) result = coll::Status::proc_failed;
  return result;
}

coll::Status InterP2P::cross_sendrecv(int remote, const void* sbuf, std::size_t sbytes, void* rbuf,
                                      std::size_t rbytes) {
  coll::RequestId r[2];
  if (coll::Status s = cross_irecv(remote, rbuf, rbytes, &r[0]); s != coll::Status::ok) return s;
  if (coll::Status s = cross_isend(remote, sbuf, sbytes, &r[1]); s != coll::Status::ok) {
    (void)waitall(&r[0], 1);
    return s;
  }
  return waitall(r, 2);
}

coll::Status InterP2P::cross_send(int remote, const void* buf, std::size_t bytes) {
  coll::RequestId r;
  coll::Status s = cross_isend(remote, buf, bytes, &r);
  return s != coll::Status::ok ? s : waitall(&r, 1);
}

coll::Status InterP2P::cross_recv(int remote, void* buf, std::size_t bytes) {
  coll::RequestId r;
  coll::Status s = cross_irecv(remote, buf, bytes, &r);
  return s != coll::Status::ok ? s : waitall(&r, 1);
}

coll::Status InterP2P::post(bool send, Comm* on, int peer, void* buf, std::size_t bytes, int tag,
                            coll::RequestId* req) {
  if (failed()) return coll::Status::proc_failed;
  Request* r = nullptr;
  Err e = send ? engine_->isend(buf, bytes, peer, tag + tag_offset_, on, ic_->coll_context, &r)
               : engine_->irecv(buf, bytes, peer, tag + tag_offset_, on, ic_->coll_context, &r);
  if (e != Err::ok) {
    return e == Err::other || e == Err::proc_failed || e == Err::revoked ? coll::Status::proc_failed
                                                                         : coll::Status::error;
  }
  *req = static_cast<coll::RequestId>(reqs_.size());
  reqs_.push_back(r);
  return coll::Status::ok;
}

Inter::Inter(Comm* c) : ic(c), p2p(&lib().engine, c) {
  view.my_rank = c->rank;
  view.comm_size = c->size();
  for (int r = 0; r < c->size(); ++r) view.members.push_back(r);
}

Err Packed::setup(const char* what, const void* buf, int count, MPI_Datatype type) {
  if (buf == MPI_IN_PLACE) {
    return fail(Err::buffer, "%s: MPI_IN_PLACE is not allowed on an intercommunicator", what);
  }
  if (count < 0) return fail(Err::count, "%s: count %d is negative", what, count);
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return e;
  bytes = packed_size(*t, static_cast<std::size_t>(count));
  if (buf == nullptr && bytes > 0 && (t->contiguous || t->predefined)) {
    return fail(Err::buffer, "%s is NULL but %d elements are to be transferred", what, count);
  }
  stage.setup(buf, static_cast<std::size_t>(count), *t, Form::packed(*t));
  return Err::ok;
}

int begin(Comm* ic, const char* fn) {
  if (ic->state == FTMPI_COMM_OK) return MPI_SUCCESS;
  return raise(ic, fail_report(failure_err(*ic),
                               "%s: intercommunicator %s has failed; "
                               "intercommunicators are not repaired",
                               fn, ic->name.c_str()));
}

int begin_rooted(Comm* ic, int root, const char* fn, Role* role) {
  if (int rc = begin(ic, fn); rc != MPI_SUCCESS) return rc;
  if (Err e = check_root(ic, root, fn); e != Err::ok) return raise(ic, e);
  *role = root == MPI_ROOT ? Role::root : root == MPI_PROC_NULL ? Role::idle : Role::peer;
  return MPI_SUCCESS;
}

int finish(Comm* ic, coll::Status s, const char* fn) {
  switch (s) {
    case coll::Status::ok: return MPI_SUCCESS;
    case coll::Status::proc_failed:
      return raise(ic, fail_report(failure_err(*ic),
                                   "%s on intercommunicator %s: a process "
                                   "failed; intercommunicators are not repaired",
                                   fn, ic->name.c_str()));
    case coll::Status::truncated:
      return raise(ic, fail(Err::truncate, "%s: message truncated", fn));
    case coll::Status::invalid: return raise(ic, fail(Err::arg, "%s: invalid arguments", fn));
    default: return raise(ic, fail(Err::intern, "%s: internal error", fn));
  }
}

Err reduction_of(MPI_Op op, MPI_Datatype type, int count, coll::Reduction* r, Form* form,
                 const Datatype** t) {
  if (count < 0) return fail(Err::count, "count %d is negative", count);
  if (Err e = lib().types.lookup(type, t); e != Err::ok) return e;
  if ((*t)->predefined) {
    *form = Form{};
    return lib().ops.reduction(op, type, static_cast<std::size_t>((*t)->extent),
                               static_cast<std::size_t>(count), r);
  }
  return plan_reduction(op, type, **t, static_cast<std::size_t>(count), r, form);
}

coll::Status exchange_all(Inter& x, unsigned char* sbase, const std::size_t* sbytes,
                          const std::size_t* sat, unsigned char* rbase, const std::size_t* rbytes,
                          const std::size_t* rat) {
  const int n = x.remote_size();
  std::vector<coll::RequestId> ids;
  coll::Status s = coll::Status::ok;
  for (int j = 0; j < n && s == coll::Status::ok && rbytes != nullptr; ++j) {
    const auto i = static_cast<std::size_t>(j);
    coll::RequestId id;
    s = x.p2p.cross_irecv(j, rbytes[i] > 0 ? rbase + rat[i] : rbase, rbytes[i], &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  for (int j = 0; j < n && s == coll::Status::ok && sbytes != nullptr; ++j) {
    const auto i = static_cast<std::size_t>(j);
    coll::RequestId id;
    s = x.p2p.cross_isend(j, sbytes[i] > 0 ? sbase + sat[i] : sbase, sbytes[i], &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  const coll::Status w = x.p2p.waitall(ids.data(), static_cast<int>(ids.size()));
  return s == coll::Status::ok ? w : s;
}

}  // namespace ftmpi::intercoll
