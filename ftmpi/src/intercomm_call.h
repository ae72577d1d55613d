// What every intercommunicator collective (intercomm_coll.cpp, intercomm_vcoll.cpp) shares:
// the point-to-point of one call (the local group's peers and the remote group's), the call's
// setting, the rooted calls' prologue, and the mapping of an algorithm's status to MPI.
// Private to those two files.
#pragma once

#include <ftmpi/coll/collectives.h>
#include <mpi.h>

#include <vector>

#include "coll_stage.h"
#include "comm.h"
#include "engine.h"
#include "error.h"

namespace ftmpi::intercoll {

// Tags of the steps across the groups, above the algorithms' (collectives/src/group.h) and
// the leaders' construction exchanges (intercomm.cpp, 1 and 2); below 2^8 (nbc.cpp).
constexpr int kAcrossTag = 64;

// Point-to-point for one collective on an intercommunicator: peers of the local group (what
// the algorithms see) and of the remote group (across), one request table. The local side's
// record never learns of failures; the intercommunicator's state is what ends every wait.
class InterP2P final : public coll::P2P {
 public:
  InterP2P(Engine* e, Comm* ic);
  ~InterP2P() override;
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
  coll::Status waitall(coll::RequestId* ids, int n) override;
  // Both directions with one remote process (a leader exchange).
  coll::Status cross_sendrecv(int remote, const void* sbuf, std::size_t sbytes, void* rbuf,
                              std::size_t rbytes);
  coll::Status cross_send(int remote, const void* buf, std::size_t bytes);
  coll::Status cross_recv(int remote, void* buf, std::size_t bytes);

 private:
  bool failed() const {
    return ic_->state == FTMPI_COMM_DETECTED || ic_->state == FTMPI_COMM_FAILED;
  }
  coll::Status post(bool send, Comm* on, int peer, void* buf, std::size_t bytes, int tag,
                    coll::RequestId* req);

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
  explicit Inter(Comm* c);
  bool leader() const { return ic->rank == 0; }
  int local_size() const { return ic->size(); }
  int remote_size() const { return ic->peer_size(); }
};

// A buffer of `count` elements of `type`, as packed bytes (staged unless contiguous).
// MPI_IN_PLACE is refused: no intercommunicator collective defines it.
struct Packed {
  Stage stage;
  std::size_t bytes = 0;
  Err setup(const char* what, const void* buf, int count, MPI_Datatype type);
  unsigned char* data() { return static_cast<unsigned char*>(stage.data()); }
};

// The prologue of every call: the intercommunicator still works. MPI_SUCCESS or the raised
// error code.
int begin(Comm* ic, const char* fn);

// Where this process stands in a rooted call: the root (MPI_ROOT), a member of the root's
// group with nothing to do (MPI_PROC_NULL), or a member of the other group (root names the
// root's rank in the remote group).
enum class Role { root, idle, peer };
// The rooted calls' prologue: begin(), then root checked and classified. MPI_SUCCESS (with
// *role set) or the raised error code.
int begin_rooted(Comm* ic, int root, const char* fn, Role* role);

// The MPI return of a call whose steps ended with `s` (raises the error handler).
int finish(Comm* ic, coll::Status s, const char* fn);

// The reduction of `count` elements of `type` under `op`, and its buffers' form.
Err reduction_of(MPI_Op op, MPI_Datatype type, int count, coll::Reduction* r, Form* form,
                 const Datatype** t);

// Posts every exchange of an all-pairs step (block j to and from remote rank j; a null count
// array leaves that direction out) and waits for all of them.
coll::Status exchange_all(Inter& x, unsigned char* sbase, const std::size_t* sbytes,
                          const std::size_t* sat, unsigned char* rbase, const std::size_t* rbytes,
                          const std::size_t* rat);

}  // namespace ftmpi::intercoll
