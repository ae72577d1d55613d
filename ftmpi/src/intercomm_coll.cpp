// Collectives on intercommunicators (intercomm_coll.h).
#include "intercomm_coll.h"

#include <ftmpi/coll/collectives.h>
#include <ftmpi/coll/scratch.h>

#include <cstring>
#include <memory>
#include <vector>

#include "coll_stage.h"
#include "library.h"
#include "nbc.h"

namespace ftmpi {
namespace {

// Tags of the steps across the groups, above the algorithms' (collectives/src/group.h) and
// the leaders' construction exchanges (intercomm.cpp, 1 and 2); below 2^8 (nbc.cpp).
constexpr int kAcrossTag = 64;

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

// Point-to-point for one collective on an intercommunicator: peers of the local group (what
// the algorithms see) and of the remote group (across), one request table. The local side's
// record never learns of failures; the intercommunicator's state is what ends every wait.
class InterP2P final : public coll::P2P {
 public:
  InterP2P(Engine* e, Comm* ic)
      : engine_(e), ic_(ic), local_(&local_side(ic)), tag_offset_(Nbc::tag_offset()) {}
  ~InterP2P() override {
    for (Request* r : reqs_) {
      if (r == nullptr) continue;
      engine_->purge(r, MPI_ERR_OTHER);
      engine_->retire(r);
    }
  }
  coll::Status isend(int peer, const void* buf, std::size_t bytes, int tag,
                     coll::RequestId* req) override {
    return post(true, local_, peer, const_cast<void*>(buf), bytes, tag, req);
  }
  coll::Status irecv(int peer, void* buf, std::size_t bytes, int tag,
                     coll::RequestId* req) override {
    return post(false, local_, peer, buf, bytes, tag, req);
  }
  coll::Status cross_isend(int remote, const void* buf, std::size_t bytes, coll::RequestId* req) {
    return post(true, ic_, remote, const_cast<void*>(buf), bytes, kAcrossTag, req);
  }
  coll::Status cross_irecv(int remote, void* buf, std::size_t bytes, coll::RequestId* req) {
    return post(false, ic_, remote, buf, bytes, kAcrossTag, req);
  }
  coll::Status waitall(coll::RequestId* ids, int n) override {
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
  // Both directions with one remote process (a leader exchange).
  coll::Status cross_sendrecv(int remote, const void* sbuf, std::size_t sbytes, void* rbuf,
                              std::size_t rbytes) {
    coll::RequestId r[2];
    if (coll::Status s = cross_irecv(remote, rbuf, rbytes, &r[0]); s != coll::Status::ok) return s;
    if (coll::Status s = cross_isend(remote, sbuf, sbytes, &r[1]); s != coll::Status::ok) {
      (void)waitall(&r[0], 1);
      return s;
    }
    return waitall(r, 2);
  }
  coll::Status cross_send(int remote, const void* buf, std::size_t bytes) {
    coll::RequestId r;
    coll::Status s = cross_isend(remote, buf, bytes, &r);
    return s != coll::Status::ok ? s : waitall(&r, 1);
  }
  coll::Status cross_recv(int remote, void* buf, std::size_t bytes) {
    coll::RequestId r;
    coll::Status s = cross_irecv(remote, buf, bytes, &r);
    return s != coll::Status::ok ? s : waitall(&r, 1);
  }

 private:
  bool failed() const { return ic_->state == FTMPI_COMM_DETECTED || ic_->state == FTMPI_COMM_FAILED; }
  coll::Status post(bool send, Comm* on, int peer, void* buf, std::size_t bytes, int tag,
                    coll::RequestId* req) {
    if (failed()) return coll::Status::proc_failed;
    Request* r = nullptr;
    Err e = send ? engine_->isend(buf, bytes, peer, tag + tag_offset_, on, ic_->coll_context, &r)
                 : engine_->irecv(buf, bytes, peer, tag + tag_offset_, on, ic_->coll_context, &r);
    if (e != Err::ok) {
      return e == Err::other || e == Err::proc_failed || e == Err::revoked
                 ? coll::Status::proc_failed
                 : coll::Status::error;
    }
    *req = static_cast<coll::RequestId>(reqs_.size());
    reqs_.push_back(r);
    return coll::Status::ok;
  }

  Engine* engine_;
  Comm* ic_;
  Comm* local_;
  int tag_offset_;
  std::vector<Request*> reqs_;
};

// One call's setting: the intercommunicator, its local group's view, the point-to-point.
struct Inter {
  Comm* ic;
  coll::View view;
  InterP2P p2p;
  explicit Inter(Comm* c) : ic(c), p2p(&lib().engine, c) {
    view.my_rank = c->rank;
    view.comm_size = c->size();
    for (int r = 0; r < c->size(); ++r) view.members.push_back(r);
  }
  bool leader() const { return ic->rank == 0; }
  int local_size() const { return ic->size(); }
  int remote_size() const { return ic->peer_size(); }
};

int finish(Comm* ic, coll::Status s, const char* fn) {
  switch (s) {
    case coll::Status::ok: return MPI_SUCCESS;
    case coll::Status::proc_failed:
      return raise(ic, fail_report(failure_err(*ic), "%s on intercommunicator %s: a process "
                                   "failed; intercommunicators are not repaired", fn, ic->name.c_str()));
    case coll::Status::truncated: return raise(ic, fail(Err::truncate, "%s: message truncated", fn));
    case coll::Status::invalid: return raise(ic, fail(Err::arg, "%s: invalid arguments", fn));
    default: return raise(ic, fail(Err::intern, "%s: internal error", fn));
  }
}

Err begin(Comm* ic, const char* fn) {
  if (ic->state == FTMPI_COMM_OK) return Err::ok;
  return fail_report(failure_err(*ic), "%s: intercommunicator %s has failed; intercommunicators "
                     "are not repaired", fn, ic->name.c_str());
}

// root of a rooted call: MPI_ROOT, MPI_PROC_NULL, or a rank of the remote group.
Err check_root(Comm* ic, int root, const char* fn) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ic->peer_size())) {
    return Err::ok;
  }
  return fail(Err::root, "%s: root %d on intercommunicator %s is neither MPI_ROOT, MPI_PROC_NULL "
              "nor a rank of the remote group (0..%d)", fn, root, ic->name.c_str(), ic->peer_size() - 1);
}

// A buffer of `count` elements of `type`, as packed bytes (staged unless contiguous).
struct Packed {
  Stage stage;
  std::size_t bytes = 0;
  Err setup(const char* what, const void* buf, int count, MPI_Datatype type) {
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
  unsigned char* data() { return static_cast<unsigned char*>(stage.data()); }
};

// The reduction of `count` elements of `type` under `op`, and its buffer form.
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

}  // namespace

Comm* intercomm_or_null(MPI_Comm handle) {
  Comm* c = nullptr;
  if (!lib().initialized || lib().comms.lookup(handle, &c) != Err::ok) return nullptr;
  return c->inter ? c : nullptr;
}

int inter_barrier(Comm* ic) {
  if (Err e = begin(ic, "MPI_Barrier"); e != Err::ok) return raise(ic, e);
  Inter x(ic);
  // Everyone here has arrived; the leaders swap that; everyone here learns it.
  coll::Status s = coll::barrier(x.view, x.p2p);
  char none = 0, got = 0;
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_sendrecv(0, &none, 0, &got, 0);
  if (s == coll::Status::ok) s = coll::barrier(x.view, x.p2p);
  return finish(ic, s, "MPI_Barrier");
}

int inter_bcast(Comm* ic, void* buf, int count, MPI_Datatype type, int root) {
  if (Err e = begin(ic, "MPI_Bcast"); e != Err::ok) return raise(ic, e);
  if (Err e = check_root(ic, root, "MPI_Bcast"); e != Err::ok) return raise(ic, e);
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  Packed data;
  if (Err e = data.setup("MPI_Bcast buffer", buf, count, type); e != Err::ok) return raise(ic, e);
  Inter x(ic);
  if (root == MPI_ROOT) {
    data.stage.load_all();
    return finish(ic, x.p2p.cross_send(0, data.data(), data.bytes), "MPI_Bcast");
  }
  coll::Status s = coll::Status::ok;
  if (x.leader()) s = x.p2p.cross_recv(root, data.data(), data.bytes);
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, data.data(), data.bytes, 0);
  if (s == coll::Status::ok) data.stage.store_all();
  return finish(ic, s, "MPI_Bcast");
}

int inter_reduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, int root) {
  if (Err e = begin(ic, "MPI_Reduce"); e != Err::ok) return raise(ic, e);
  if (Err e = check_root(ic, root, "MPI_Reduce"); e != Err::ok) return raise(ic, e);
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  coll::Reduction r;
  Form form;
  const Datatype* t = nullptr;
  if (Err e = reduction_of(op, type, count, &r, &form, &t); e != Err::ok) return raise(ic, e);
  const auto n = static_cast<std::size_t>(count);
  Inter x(ic);
  if (root == MPI_ROOT) {
    Stage out;
    out.setup(recvbuf, n, *t, form);
    coll::Status s = x.p2p.cross_recv(0, out.data(), r.bytes());
    if (s == coll::Status::ok) out.store_all();
    return finish(ic, s, "MPI_Reduce");
  }
  if (sendbuf == MPI_IN_PLACE) {
    return raise(ic, fail(Err::buffer, "MPI_Reduce: MPI_IN_PLACE is not allowed on an intercommunicator"));
  }
  Stage in;
  in.setup(sendbuf, n, *t, form);
  in.load_all();
  coll::Scratch partial(r.bytes());
  coll::Status s = coll::reduce(x.view, x.p2p, in.data(), partial.data(), r, 0);
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_send(root, partial.data(), r.bytes());
  return finish(ic, s, "MPI_Reduce");
}

int inter_allreduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op) {
  if (Err e = begin(ic, "MPI_Allreduce"); e != Err::ok) return raise(ic, e);
  if (sendbuf == MPI_IN_PLACE) {
    return raise(ic, fail(Err::buffer, "MPI_Allreduce: MPI_IN_PLACE is not allowed on an intercommunicator"));
  }
  coll::Reduction r;
  Form form;
  const Datatype* t = nullptr;
  if (Err e = reduction_of(op, type, count, &r, &form, &t); e != Err::ok) return raise(ic, e);
  const auto n = static_cast<std::size_t>(count);
  Inter x(ic);
  Stage in, out;
  in.setup(sendbuf, n, *t, form);
  in.load_all();
  out.setup(recvbuf, n, *t, form);
  // This group's reduction at the leader; the leaders swap theirs; the remote group's result
  // goes to every member here.
  coll::Scratch partial(r.bytes());
  coll::Status s = coll::reduce(x.view, x.p2p, in.data(), partial.data(), r, 0);
  if (s == coll::Status::ok && x.leader()) {
    s = x.p2p.cross_sendrecv(0, partial.data(), r.bytes(), out.data(), r.bytes());
  }
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, out.data(), r.bytes(), 0);
  if (s == coll::Status::ok) out.store_all();
  return finish(ic, s, "MPI_Allreduce");
}

int inter_gather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  if (Err e = begin(ic, "MPI_Gather"); e != Err::ok) return raise(ic, e);
  if (Err e = check_root(ic, root, "MPI_Gather"); e != Err::ok) return raise(ic, e);
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  Inter x(ic);
  if (root == MPI_ROOT) {
    Packed out;
    if (Err e = out.setup("MPI_Gather recvbuf", recvbuf, recvcount * x.remote_size(), recvtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    coll::Status s = x.p2p.cross_recv(0, out.data(), out.bytes);
    if (s == coll::Status::ok) out.stage.store_all();
    return finish(ic, s, "MPI_Gather");
  }
  Packed in;
  if (Err e = in.setup("MPI_Gather sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  std::vector<unsigned char> all(x.leader() ? in.bytes * static_cast<std::size_t>(x.local_size()) : 0);
  coll::Status s = coll::gather(x.view, x.p2p, in.data(), in.bytes, all.data(), 0);
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_send(root, all.data(), all.size());
  return finish(ic, s, "MPI_Gather");
}

int inter_scatter(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  if (Err e = begin(ic, "MPI_Scatter"); e != Err::ok) return raise(ic, e);
  if (Err e = check_root(ic, root, "MPI_Scatter"); e != Err::ok) return raise(ic, e);
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  Inter x(ic);
  if (root == MPI_ROOT) {
    Packed in;
    if (Err e = in.setup("MPI_Scatter sendbuf", sendbuf, sendcount * x.remote_size(), sendtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    in.stage.load_all();
    return finish(ic, x.p2p.cross_send(0, in.data(), in.bytes), "MPI_Scatter");
  }
  Packed out;
  if (Err e = out.setup("MPI_Scatter recvbuf", recvbuf, recvcount, recvtype); e != Err::ok) {
    return raise(ic, e);
  }
  std::vector<unsigned char> all(x.leader() ? out.bytes * static_cast<std::size_t>(x.local_size()) : 0);
  coll::Status s = coll::Status::ok;
  if (x.leader()) s = x.p2p.cross_recv(root, all.data(), all.size());
  if (s == coll::Status::ok) s = coll::scatter(x.view, x.p2p, all.data(), out.bytes, out.data(), 0);
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Scatter");
}

int inter_allgather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (Err e = begin(ic, "MPI_Allgather"); e != Err::ok) return raise(ic, e);
  Inter x(ic);
  Packed in, out;
  if (Err e = in.setup("MPI_Allgather sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup("MPI_Allgather recvbuf", recvbuf, recvcount * x.remote_size(), recvtype);
      e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  std::vector<unsigned char> mine(x.leader() ? in.bytes * static_cast<std::size_t>(x.local_size()) : 0);
  coll::Status s = coll::gather(x.view, x.p2p, in.data(), in.bytes, mine.data(), 0);
  if (s == coll::Status::ok && x.leader()) {
    s = x.p2p.cross_sendrecv(0, mine.data(), mine.size(), out.data(), out.bytes);
  }
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, out.data(), out.bytes, 0);
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Allgather");
}

int inter_alltoall(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (Err e = begin(ic, "MPI_Alltoall"); e != Err::ok) return raise(ic, e);
  Inter x(ic);
  const int n = x.remote_size();
  Packed in, out;
  if (Err e = in.setup("MPI_Alltoall sendbuf", sendbuf, sendcount * n, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup("MPI_Alltoall recvbuf", recvbuf, recvcount * n, recvtype); e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  const std::size_t sblock = in.bytes / static_cast<std::size_t>(n);
  const std::size_t rblock = out.bytes / static_cast<std::size_t>(n);
  // Block j to and from remote rank j, every exchange posted at once.
  std::vector<coll::RequestId> ids;
  coll::Status s = coll::Status::ok;
  for (int j = 0; j < n && s == coll::Status::ok; ++j) {
    coll::RequestId id;
    s = x.p2p.cross_irecv(j, out.data() + static_cast<std::size_t>(j) * rblock, rblock, &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  for (int j = 0; j < n && s == coll::Status::ok; ++j) {
    coll::RequestId id;
    s = x.p2p.cross_isend(j, in.data() + static_cast<std::size_t>(j) * sblock, sblock, &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  const coll::Status w = x.p2p.waitall(ids.data(), static_cast<int>(ids.size()));
  if (s == coll::Status::ok) s = w;
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Alltoall");
}

}  // namespace ftmpi
