// C API: the FT-MPI extensions of ftmpi.h (modes, states, queries).
#include "library.h"
#include "monitor.h"

using namespace ftmpi;

namespace {

Err find(MPI_Comm comm, Comm** c) {
  if (Err e = check_initialized("FTMPI call"); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}

bool valid_comm_mode(int m) { return m >= FTMPI_COMM_MODE_ABORT && m <= FTMPI_COMM_MODE_ULFM; }
bool valid_msg_mode(int m) { return m == FTMPI_MSG_MODE_NOP || m == FTMPI_MSG_MODE_CONT; }

}  // namespace

extern "C" {

int FTMPI_Comm_set_mode(MPI_Comm comm, int comm_mode, int msg_mode) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (!valid_comm_mode(comm_mode)) return raise(c, fail(Err::arg, "%d is not a communicator mode", comm_mode));
  if (!valid_msg_mode(msg_mode)) return raise(c, fail(Err::arg, "%d is not a message mode", msg_mode));
  c->comm_mode = comm_mode;
  c->msg_mode = msg_mode;
  // SPEC 4.2: in a non-ABORT mode MPI_COMM_WORLD's default handler returns errors; switching
  // modes switches that default too, unless the application chose a handler itself.
  if (c->handle == MPI_COMM_WORLD && !c->errhandler_chosen)
    c->errhandler = comm_mode == FTMPI_COMM_MODE_ABORT ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN;
  // A job launched in ABORT mode: its daemon must stop ending the job at a death, or this
  // communicator's mode would never get the chance to act.
  monitor().comm_changed(*c);
  if (comm_mode != FTMPI_COMM_MODE_ABORT && comm_mode_from_env() == FTMPI_COMM_MODE_ABORT)
    monitor().failures_trapped();
  return MPI_SUCCESS;
}

int FTMPI_Comm_get_mode(MPI_Comm comm, int* comm_mode, int* msg_mode) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (comm_mode == nullptr || msg_mode == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  *comm_mode = c->comm_mode;
  *msg_mode = c->msg_mode;
  return MPI_SUCCESS;
}

int FTMPI_Comm_set_coll_mode(MPI_Comm comm, int coll_mode) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (coll_mode != FTMPI_COLL_MODE_ATOMIC && coll_mode != FTMPI_COLL_MODE_RELAXED) {
    return raise(c, fail(Err::arg, "%d is not a collective mode", coll_mode));
  }
  c->coll_mode = coll_mode;
  return MPI_SUCCESS;
}

int FTMPI_Comm_get_coll_mode(MPI_Comm comm, int* coll_mode) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (coll_mode == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  *coll_mode = c->coll_mode;
  return MPI_SUCCESS;
}

int FTMPI_Comm_state(MPI_Comm comm, int* state) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (state == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  lib().engine.progress();  // let pending notifications land before answering
  *state = c->state;
  return MPI_SUCCESS;
}

int FTMPI_Comm_proc_state(MPI_Comm comm, int rank, int* state) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (rank < 0 || rank >= c->size()) {
    return raise(c, fail(Err::rank, "rank %d outside 0..%d of %s", rank, c->size() - 1, c->name.c_str()));
  }
  if (state == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  lib().engine.progress();
  *state = c->proc_state[static_cast<std::size_t>(rank)];
  return MPI_SUCCESS;
}

int FTMPI_Comm_failed_ranks(MPI_Comm comm, int maxn, int* ranks, int* n) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (maxn < 0) return raise(c, fail(Err::count, "maxn %d is negative", maxn));
  if (n == nullptr || (maxn > 0 && ranks == nullptr)) return raise(c, fail(Err::arg, "NULL output pointer"));
  lib().engine.progress();
  int k = 0;
  for (int r : c->failed) {
    if (k < maxn) ranks[k] = r;
    ++k;
  }
  *n = k;
  return MPI_SUCCESS;
}

int FTMPI_Comm_valid_size(MPI_Comm comm, int* n) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (n == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  lib().engine.progress();
  int valid = 0;
  for (unsigned char s : c->proc_state) valid += (s != FTMPI_PROC_FAILED) ? 1 : 0;
  *n = valid;
  return MPI_SUCCESS;
}

}  // extern "C"
