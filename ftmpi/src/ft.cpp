#include "ft.h"
#include "monitor.h"

#include <ftmpi/debug_log.h>

#include <strings.h>

#include <algorithm>

#include <cstdlib>

#include "ftmpi_knobs/knobs.h"
#include "intercomm.h"
#include "runtime.h"

namespace ftmpi {
namespace {

// The knob table (knob_list.h) checks the spelling; this maps the chosen word to the mode.
int parse_mode(knobs::Id knob, int dflt, std::initializer_list<std::pair<const char*, int>> names) {
  const std::string v = knobs::text(knob);
  for (const auto& [name, value] : names) {
    if (v == name) return value;
  }
  return dflt;
}

}  // namespace

int comm_mode_from_env() {
  return parse_mode(knobs::Id::comm_mode, FTMPI_COMM_MODE_ABORT,
                    {{"abort", FTMPI_COMM_MODE_ABORT},
                     {"shrink", FTMPI_COMM_MODE_SHRINK},
                     {"blank", FTMPI_COMM_MODE_BLANK},
                     {"rebuild", FTMPI_COMM_MODE_REBUILD},
                     {"rebuild_append", FTMPI_COMM_MODE_REBUILD_APPEND},
                     {"ulfm", FTMPI_COMM_MODE_ULFM}});
}

int msg_mode_from_env() {
  return parse_mode(knobs::Id::msg_mode, FTMPI_MSG_MODE_NOP,
                    {{"nop", FTMPI_MSG_MODE_NOP}, {"reset", FTMPI_MSG_MODE_NOP},
                     {"cont", FTMPI_MSG_MODE_CONT}});
}

std::string failed_ranks_text(const Comm& comm) {
  std::string out;
  for (int r : comm.failed) {
    if (!out.empty()) out += ", ";
    out += std::to_string(r);
  }
  return out;
}

void FaultHandler::on_process_failed(std::uint32_t proc) {
  comms_->for_each([&](Comm& c) { fail_in(c, proc); });
}

void FaultHandler::adopt_known_failures(Comm& c) {
  if (engine_->failures().failed_count() == 0) return;
  for (std::uint32_t proc : engine_->failures().failed_procs()) fail_in(c, proc);
}

void FaultHandler::fail_in(Comm& c, std::uint32_t proc) {
  if (c.inter) return intercomm_lost_process(c, proc, engine_);  // never repaired: FAILED
  if (proc >= c.rank_of_proc.size()) return;
  int r = c.rank_of_proc[proc];
  if (r < 0 || c.is_failed(r)) return;
  c.proc_state.set(static_cast<std::size_t>(r), FTMPI_PROC_FAILED);
  c.failed.push_back(r);
  c.tainted = true;
  FTMPI_DLOG("failure", "process %u is rank %d of %s: marked failed, requests purged", proc, r,
             c.name.c_str());
  if (c.comm_mode == FTMPI_COMM_MODE_ABORT) {
    runtime_->abort(MPI_ERR_OTHER, "rank " + std::to_string(r) + " of " + c.name +
                                       " failed and the communicator is in ABORT mode");
  }
  if (c.state != FTMPI_COMM_FAILED) c.state = FTMPI_COMM_DETECTED;
  monitor().comm_changed(c);
  if (c.comm_mode == FTMPI_COMM_MODE_ULFM) return ulfm_purge(c, r);
  const bool nop = c.msg_mode == FTMPI_MSG_MODE_NOP;
  engine_->requests().for_each_live([&](Request& q) {
    // A nonblocking collective completes when its own code has seen the failure (nbc.h), an
    // MPI_Isendrecv when its parts have (they are purged here like any send and receive).
    if (q.comm != &c || q.complete || q.kind == Request::Kind::nbc ||
        q.kind == Request::Kind::pair) {
      return;
    }
    // NOP: nothing pending on the communicator survives. CONT: only what names the dead
    // process or could be satisfied by it (wildcard receives).
    if ((nop && !q.own_failures) || q.peer == r ||
        (q.kind == Request::Kind::recv && q.peer == MPI_ANY_SOURCE)) {
      engine_->purge(&q, to_code(fail_report(Err::other, "rank %d of %s failed", r, c.name.c_str())));
    }
  });
}

// ULFM (SPEC 4.8): what names the dead process fails with MPIX_ERR_PROC_FAILED; operations
// between live processes go on (collectives in progress stop by themselves: CommP2P sees the
// DETECTED state). A wildcard receive stays pending: MPI_Wait/MPI_Test report
// MPIX_ERR_PROC_FAILED_PENDING while the failure is not acknowledged (ulfm_wildcard_blocked).
void FaultHandler::ulfm_purge(Comm& c, int r) {
  engine_->requests().for_each_live([&](Request& q) {
    if (q.comm != &c || q.complete || q.peer != r) return;
    if (q.kind != Request::Kind::send && q.kind != Request::Kind::recv) return;
    engine_->purge(&q, to_code(fail(Err::proc_failed, "rank %d of %s failed", r, c.name.c_str())));
  });
}

bool ulfm_unacked_failure(const Comm& c) {
  return c.comm_mode == FTMPI_COMM_MODE_ULFM && c.acked < static_cast<int>(c.failed.size());
}

bool ulfm_wildcard_blocked(const Request& r) {
  return r.kind == Request::Kind::recv && r.peer == MPI_ANY_SOURCE && !r.internal &&
         r.comm != nullptr && ulfm_unacked_failure(*r.comm);
}

void FaultHandler::on_process_suspected(std::uint32_t proc) {
  comms_->for_each([&](Comm& c) {
    // An intercommunicator's remote group has no per-process state to show it in.
    if (proc >= c.rank_of_proc.size()) return;
    int r = c.rank_of_proc[proc];
    if (r < 0) return;
    if (c.proc_state[static_cast<std::size_t>(r)] != FTMPI_PROC_OK) return;
    c.proc_state.set(static_cast<std::size_t>(r), FTMPI_PROC_UNAVAILABLE);
    monitor().comm_changed(c);
  });
}

Err FaultHandler::check(Comm* c, int peer) {
  if (c->revoked) return fail(Err::revoked, "%s has been revoked", c->name.c_str());
  if (c->comm_mode == FTMPI_COMM_MODE_ULFM) return check_ulfm(c, peer);
  if (peer >= 0 && peer < c->size() && c->is_failed(peer) &&
      std::find(c->failed.begin(), c->failed.end(), peer) == c->failed.end()) {
    return fail(Err::rank, "rank %d of %s is a gap left by a failed process", peer,
                c->name.c_str());
  }
  if (c->state == FTMPI_COMM_OK) return Err::ok;
  if (c->state == FTMPI_COMM_RECOVERED) {
    c->state = FTMPI_COMM_OK;
    monitor().comm_changed(*c);
    return Err::ok;
  }
  if (c->state == FTMPI_COMM_FAILED) {
    return fail_report(Err::other, "%s has failed and cannot be repaired", c->name.c_str());
  }
  // DETECTED (or a repair in progress).
  bool refuse = c->msg_mode == FTMPI_MSG_MODE_NOP || peer == kWholeComm ||
                peer == MPI_ANY_SOURCE || (peer >= 0 && peer < c->size() && c->is_failed(peer));
  if (!refuse) return Err::ok;
  return fail_report(Err::other, "rank(s) %s of %s failed; repair the communicator with MPI_Comm_dup",
              failed_ranks_text(*c).c_str(), c->name.c_str());
}

// ULFM: only what involves a failed process fails. A collective or constructor involves every
// member; a wildcard receive is posted and reports a failure at completion
// (ulfm_wildcard_blocked), as in Open MPI.
Err FaultHandler::check_ulfm(Comm* c, int peer) {
  if (c->state == FTMPI_COMM_OK || c->state == FTMPI_COMM_RECOVERED) return Err::ok;
  if (peer >= 0 && peer < c->peer_size() && c->is_failed(peer)) {
    return fail(Err::proc_failed, "rank %d of %s has failed", peer, c->name.c_str());
  }
  if (peer == kWholeComm && !c->failed.empty()) {
    return fail(Err::proc_failed, "rank(s) %s of %s failed; shrink it (MPIX_Comm_shrink)",
                failed_ranks_text(*c).c_str(), c->name.c_str());
  }
  return Err::ok;
}

}  // namespace ftmpi
