// Progress: reading the CQ into Completions, mapping error entries to Status, the slow path of
// the -FI_EAGAIN retry wrapper, and the peer-failure purge.
#include <sched.h>

#include <chrono>

#include "ofi_endpoint.h"
#include "status_map.h"

namespace ftmpi::transport {

namespace {

constexpr std::size_t kCqBatch = 16;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::size_t OfiEndpoint::poll(Completion* out, std::size_t max) {
  std::size_t n = backlog_.empty() ? 0 : backlog_.drain(out, max);
  if (n < max && inbound_ != nullptr) n += poll_rings(out + n, max - n);
  if (n < max && cq_poll_due()) n += read_cq(out + n, max - n);
  if (n == 0 && !bounce_idle_.empty()) flush_idle_bounces();
  if (deferred_count_ != 0) flush_all_deferred();  // after reading: reaping freed resources
  if (!bounce_retry_.empty() || !bulk_retry_.empty() || !fin_retry_.empty()) {
    flush_soft_retries();
  }
  return n;
}

void OfiEndpoint::progress_into_backlog() {
  Completion batch[kCqBatch];
  std::size_t n = poll_rings(batch, kCqBatch);
  if (n < kCqBatch) n += read_cq(batch + n, kCqBatch - n);
  for (std::size_t i = 0; i < n; ++i) backlog_.push(batch[i]);
}

std::size_t OfiEndpoint::read_cq(Completion* out, std::size_t max) {
  fi_cq_tagged_entry entries[kCqBatch];
  fi_addr_t sources[kCqBatch];
  const std::size_t want = max < kCqBatch ? max : kCqBatch;
  ssize_t got = fi_cq_readfrom(cq_, entries, want, sources);
  if (got == -FI_EAGAIN) return 0;
  if (got == -FI_EAVAIL) return read_cq_error(out);
  if (got < 0) {
    last_error_ = provider_ + ": fi_cq_readfrom failed: " + fi_strerror(static_cast<int>(-got));
    return 0;
  }
  std::size_t n = 0;
  for (ssize_t i = 0; i < got; ++i) {
    OpRecord* op = OpRecord::from_context(entries[i].op_context);
    if (op->kind == OpKind::bounce) {  // software matching: a message on the small stream
      if (soft_arrival(op, entries[i].len, sources[i], &out[n])) ++n;
      continue;
    }
    if (fi_outstanding_ != 0) --fi_outstanding_;
    if (!op->orphaned) {
      Completion& c = out[n++];
      c.context = op->user_context;
      c.status = Status::ok;
      if (op->kind == OpKind::send) {
        c.tag = 0;
        c.len = c.message_len = 0;
        c.source = op->peer;
      } else if (soft_) {  // the payload of a large message, matched in software
        c.tag = op->tag;
        c.source = op->peer;
        c.message_len = op->msg_len;
        if (op->scratch != nullptr) {  // the user's buffer was too short
          c.status = Status::truncated;
          c.len = 0;
        } else {
          c.len = entries[i].len;
        }
      } else {
        c.tag = entries[i].tag;
        c.len = c.message_len = entries[i].len;
        c.source = op->peer != kAnyPeer ? op->peer : peer_of_source(sources[i]);
      }
    }
    release_op(op);
  }
  return n;
}

std::size_t OfiEndpoint::read_cq_error(Completion* out) {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq_, &err, 0) != 1) return 0;
  // shm 1.17 reports some errors negated (-FI_ETRUNC); the magnitude is what counts.
  const int errnum = err.err < 0 ? -err.err : err.err;
  Status s = status_from_fi_error(errnum);
  if (s == Status::error || s == Status::peer_failed) {
    char buf[256];
    const char* detail = fi_cq_strerror(cq_, err.prov_errno, err.err_data, buf, sizeof buf);
    last_error_ = provider_ + ": " + fi_strerror(errnum) + " (" +
                  (detail != nullptr ? detail : "no provider detail") + ")";
  }
  OpRecord* op = OpRecord::from_context(err.op_context);
  if (op == nullptr) return 0;  // an error not tied to an operation: last_error_ keeps it
  if (s == Status::canceled && !op->cancel_requested && op->kind != OpKind::bounce) {
    // Nobody asked: the provider gave up on it. tcp;ofi_rxm does this to a rendezvous receive
    // whose sender's connection went away mid-transfer (prov_errno ENOTCONN); reporting
    // "canceled" would let MPI_Recv succeed with nothing received.
    s = Status::peer_failed;
    last_error_ = provider_ + ": the provider aborted an operation (" +
                  fi_strerror(err.prov_errno > 0 ? err.prov_errno : errnum) + ")";
  }
  if (op->kind != OpKind::bounce && fi_outstanding_ != 0) --fi_outstanding_;
  if (op->kind == OpKind::bounce) {
    // Not expected (bounces take any message up to their size and are only canceled by
    // closing the endpoint): keep the pool whole.
    if (s != Status::canceled) repost_bounce(op);
    return 0;
  }
  std::size_t n = 0;
  if (!op->orphaned) {
    Completion& c = out[n++];
    c.context = op->user_context;
    c.status = s;
    c.tag = soft_ ? op->tag : err.tag;
    c.source = op->peer;  // wildcard: the error entry carries no usable source
    if (s == Status::truncated) {
      // libfabric 1.17 is inconsistent here: shm leaves err.len at 0, rxm puts the message
      // size there, and rxm's olen is wrong (2 * size - buffer). So: contents undefined
      // (len 0), and the size only when err.len plausibly is it.
      c.len = 0;
      c.message_len = err.len > op->len ? err.len : 0;
    } else {
      c.len = c.message_len = 0;
    }
  }
  release_op(op);
  return n;
}

bool OfiEndpoint::retry_should_give_up(Retry policy, unsigned attempt, double* started_s) {
  // Spin briefly (the usual cause is a full queue the peer drains in microseconds), then yield
  // so an oversubscribed receiver gets the CPU it needs to drain it.
  if (attempt < 64) return false;
  if (policy == Retry::briefly) return true;
  sched_yield();
  if (knobs_.retry_timeout_s <= 0 || attempt % 256 != 0) return false;
  double t = now_s();
  if (*started_s < 0) {
    *started_s = t;
    return false;
  }
  return t - *started_s > knobs_.retry_timeout_s;
}

void OfiEndpoint::mark_peer_failed(PeerId peer) {
  if (peer >= peers_.size() || peers_[peer].failed) return;
  Peer& p = peers_[peer];
  p.failed = true;
  // Deferred sends never reached libfabric: report and free them right away.
  while (OpRecord* op = p.deferred.pop_front()) {
    --deferred_count_;
    Completion c;
    c.context = op->user_context;
    c.status = Status::peer_failed;
    c.source = peer;
    backlog_.push(c);
    free_op(op);
  }
  if (soft_) soft_fail_peer(peer);
  // Same shape as ucp_ep_set_failed: purge everything outstanding with an error before the
  // caller hears about it. The records stay with libfabric (orphaned) until it lets go of them.
  for (OpRecord* op = p.pending.take_all(); op != nullptr;) {
    OpRecord* next = op->next;
    op->orphaned = true;
    op->prev = op->next = nullptr;
    Completion c;
    c.context = op->user_context;
    c.status = Status::peer_failed;
    c.source = peer;
    backlog_.push(c);
    if (soft_ && op->kind == OpKind::send && op->stage == 1) {
      // Announced, waiting for the receiver's FIN: nothing of it is in the provider.
      free_op(op);
      op = next;
      continue;
    }
    // Receives come back as FI_ECANCELED entries that free the record; providers that cannot
    // cancel a send (shm, rxm) keep it until the send itself completes or the endpoint closes.
    (void)fi_cancel(&ep_->fid, &op->fi_ctx);
    op = next;
  }
}

}  // namespace ftmpi::transport
