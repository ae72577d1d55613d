// The state a Transport shares with its endpoints: one owner (the Transport), borrowed by the
// shm and libfabric endpoints. Records come from one pool, completions go to one backlog, and
// every message meets the one matcher.
#pragma once

#include <string>
#include <vector>

#include "completion_backlog.h"
#include "knobs.h"
#include "matcher.h"
#include "op_record.h"

namespace ftmpi::transport {

struct TransportCore {
  Knobs knobs;
  std::string last_error;
  OpPool pool;
  // Completions that exist before poll() asks for them (sends finished at once, receives that
  // met an unexpected message, probes, purges); poll() hands them out first, in order.
  CompletionBacklog backlog;
  Matcher matcher{pool, backlog};
  bool all_to_all = false;  // Endpoint::set_all_to_all
};

// A fresh record for an operation of kind on peer (the caller links it where it belongs).
inline OpRecord* new_op(OpPool& pool, OpKind kind, PeerId peer, void* context) {
  OpRecord* op = pool.get();
  op->user_context = context;
  op->prev = op->next = nullptr;
  op->buf = nullptr;
  op->len = 0;
  op->tag = 0;
  op->peer = peer;
  op->kind = kind;
  op->orphaned = false;
  op->cancel_requested = false;
  op->standing = false;
  op->stage = 0;
  op->seq = 0;
  op->ignore = 0;
  op->msg_len = 0;
  op->scratch = nullptr;
  op->bulk_slot = -1;
  op->done_bytes = 0;
  return op;
}

}  // namespace ftmpi::transport
