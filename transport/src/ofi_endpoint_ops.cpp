// The data path: posting sends, receives, probes and cancels. Each post takes an op record from
// the pool, links it into the pending list it can fail with, and hands it to libfabric through
// post_with_retry(). Nothing here allocates once the pool has warmed up.
#include <rdma/fi_tagged.h>

#include <cstring>

#include "ofi_endpoint.h"
#include "status_map.h"

namespace ftmpi::transport {

Status OfiEndpoint::check_peer(PeerId peer, bool allow_any) {
  if (peer == kAnyPeer && allow_any) return Status::ok;
  if (peer >= peers_.size()) {
    last_error_ = "peer " + std::to_string(peer) + " was never inserted";
    return Status::error;
  }
  return peers_[peer].failed ? Status::peer_failed : Status::ok;
}

OpRecord* OfiEndpoint::start_op(OpKind kind, PeerId peer, void* context) {
  OpRecord* op = pool_.get();
  op->user_context = context;
  op->peer = peer;
  op->kind = kind;
  op->orphaned = false;
  op->cancel_requested = false;
  op->stage = 0;
  op->seq = 0;
  op->ignore = 0;
  op->msg_len = 0;
  op->scratch = nullptr;
  list_for(peer).push_back(op);
  return op;
}

void OfiEndpoint::release_op(OpRecord* op) {
  if (!op->orphaned) list_for(op->peer).remove(op);
  free_op(op);
}

void OfiEndpoint::free_op(OpRecord* op) {
  delete[] op->scratch;
  op->scratch = nullptr;
  if (op->bulk_slot >= 0) {  // its receiver is done with the slot (FIN), or gone
    bulk_busy_[static_cast<std::size_t>(op->bulk_slot)] = false;
    op->bulk_slot = -1;
  }
  pool_.put(op);
}

Status OfiEndpoint::fail_post(OpRecord* op, ssize_t rc, const char* what) {
  release_op(op);
  return post_failed(rc, what);
}

Status OfiEndpoint::post_failed(ssize_t rc, const char* what) {
  if (rc == -FI_EAGAIN) {
    last_error_ = provider_ + ": " + what + " made no progress for " +
                  std::to_string(knobs_.retry_timeout_s) +
                  " s (FTMPI_TRANSPORT_RETRY_TIMEOUT)";
    return Status::error;
  }
  last_error_ = provider_ + ": " + what + " failed: " + fi_strerror(static_cast<int>(-rc));
  Status s = status_from_fi_error(static_cast<int>(-rc));
  return s == Status::peer_failed ? s : Status::error;
}

Status OfiEndpoint::send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag,
                         void* context, bool* done) {
  // The latency-critical case first: a small message into this peer's open ring with nothing
  // queued before it is one push, finished when it returns.
  if (done != nullptr && dst < peers_.size() && len <= inline_max_) {
    const Peer& p = peers_[dst];
    if (!p.failed && p.ring_state == Peer::RingState::ring && p.deferred.empty() &&
        inject(dst, buf, len, tag) == 0) {
      *done = true;
      return Status::ok;
    }
  }
  if (done != nullptr) *done = false;
  if (Status s = check_peer(dst, false); s != Status::ok) return s;
  Peer& peer = peers_[dst];
  // Non-overtaking: nothing may pass a deferred send to the same peer.
  const bool behind_deferred = !peer.deferred.empty() && !flush_deferred(peer);
  if (len <= inline_max_ && !behind_deferred) {
    // Inject copies the data out before returning and writes no CQ entry, which saves the
    // provider a completion write on the latency-critical path; we report the completion.
    ssize_t rc = post_with_retry(Retry::briefly, [&] { return inject(dst, buf, len, tag); });
    if (rc == 0) {
      if (done != nullptr) {
        *done = true;
        return Status::ok;
      }
      Completion c;
      c.context = context;
      c.source = dst;
      backlog_.push(c);
      return Status::ok;
    }
    if (rc != -FI_EAGAIN) return post_failed(rc, "fi_tinject");
  }
  OpRecord* op = start_op(OpKind::send, dst, context);
  op->buf = buf;
  op->len = len;
  op->tag = tag;
  // Software matching: a large message's payload goes under its own sequence number.
  if (soft_ && len > inline_max_) op->seq = peer.next_seq++;
  if (behind_deferred) {
    defer_send(peer, op);
    return Status::ok;
  }
  bool finished = false;
  ssize_t rc = post_with_retry(Retry::briefly, [&] { return post_send(op, &finished); });
  if (rc == -FI_EAGAIN) {
    defer_send(peer, op);
    return Status::ok;
  }
  if (rc != 0) return fail_post(op, rc, "fi_tsend");
  if (finished) complete_send_now(op);
  return Status::ok;
}

ssize_t OfiEndpoint::inject(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag) {
  if (!soft_) return fi_tinject(ep_, buf, len, peers_[dst].addr, tag);
  const soft::Header h{tag, 0};
  return send_small(dst, &h, sizeof h, buf, len);
}

ssize_t OfiEndpoint::send_small(PeerId dst, const void* a, std::size_t alen, const void* b,
                                std::size_t blen) {
  if (ring::Writer* w = ring_writer(dst); w != nullptr) {
    return w->push(a, alen, b, blen) ? 0 : -FI_EAGAIN;
  }
  const void* msg = a;
  if (blen != 0) {
    std::memcpy(stage_.data(), a, alen);
    std::memcpy(stage_.data() + alen, b, blen);
    msg = stage_.data();
  }
  if (peers_[dst].addr == FI_ADDR_NOTAVAIL) return -FI_EHOSTUNREACH;  // gone (insert_peers)
  return fi_tinject(ep_, msg, alen + blen, peers_[dst].addr, soft::kMsgTag);
}

ssize_t OfiEndpoint::post_send(OpRecord* op, bool* finished) {
  const fi_addr_t addr = peers_[op->peer].addr;
  *finished = false;
  if (!soft_) return counted(fi_tsend(ep_, op->buf, op->len, nullptr, addr, op->tag, &op->fi_ctx));
  if (op->len <= inline_max_) {  // a deferred small send
    ssize_t rc = inject(op->peer, op->buf, op->len, op->tag);
    *finished = rc == 0;
    return rc;
  }
  // A large message: announce it (in order with the small ones), then the payload follows
  // under its own tag (up to the inject size), or the receiver reads it with CMA and FINs.
  const bool cma = op->len > inject_size_;
  const std::uint64_t wire_tag = soft::kBulkTag | op->seq;
  if (op->stage == 0) {
    // Up to a bulk slot's size, staged in one of ours (kept across a deferral); else read by
    // the receiver with CMA, and through our ring we can help it copy (help_copy).
    const bool bulk = cma && (op->bulk_slot >= 0 || bulk_stage(op));
    const bool split_ok =
        cma && !bulk && op->len >= soft::kSplitMin && ring_writer(op->peer) != nullptr;
    const std::uint64_t how = bulk ? soft::kBulkBit : cma ? soft::kCmaBit : 0;
    const soft::Header h{op->tag,
                         soft::kRtsBit | how | (split_ok ? soft::kSplitOkBit : 0) | op->seq};
    const soft::Announce a{op->len,
                           bulk ? static_cast<std::uint64_t>(op->bulk_slot)
                                : reinterpret_cast<std::uintptr_t>(op->buf),
                           my_pid_, ring_token_};
    unsigned char msg[soft::kRtsSize];
    std::memcpy(msg, &h, sizeof h);
    std::memcpy(msg + sizeof h, &a, sizeof a);
    ssize_t rc = send_small(op->peer, msg, sizeof msg, nullptr, 0);
    if (rc != 0) return rc;
    op->stage = 1;
    if (cma) return 0;  // pending until the receiver's FIN
  }
  if (addr == FI_ADDR_NOTAVAIL) return -FI_EHOSTUNREACH;  // gone (insert_peers)
  if (!cma) {
    ssize_t rc = fi_tinject(ep_, op->buf, op->len, addr, wire_tag);
    *finished = rc == 0;
    return rc;
  }
  // stage 2: the receiver could not use CMA (kFinNak): shm moves the payload.
  return counted(fi_tsend(ep_, op->buf, op->len, nullptr, addr, wire_tag, &op->fi_ctx));
}

void OfiEndpoint::complete_send_now(OpRecord* op) {
  Completion c;
  c.context = op->user_context;
  c.source = op->peer;
  backlog_.push(c);
  release_op(op);
}

void OfiEndpoint::defer_send(Peer& peer, OpRecord* op) {
  peer.pending.remove(op);
  peer.deferred.push_back(op);
  ++deferred_count_;
}

bool OfiEndpoint::flush_deferred(Peer& peer) {
  while (OpRecord* op = peer.deferred.head()) {
    bool finished = false;
    ssize_t rc = post_send(op, &finished);
    if (rc == -FI_EAGAIN) return false;
    peer.deferred.remove(op);
    --deferred_count_;
    if (rc == 0 && finished) {
      Completion c;
      c.context = op->user_context;
      c.source = op->peer;
      backlog_.push(c);
      free_op(op);
      continue;
    }
    if (rc == 0) {
      peer.pending.push_back(op);
      continue;
    }
    // Its send() already returned ok, so the failure travels as its completion.
    Completion c;
    c.context = op->user_context;
    c.status = post_failed(rc, "fi_tsend (deferred)");
    c.source = op->peer;
    backlog_.push(c);
    free_op(op);
  }
  return true;
}

void OfiEndpoint::flush_all_deferred() {
  for (Peer& peer : peers_) {
    if (!peer.deferred.empty()) flush_deferred(peer);
  }
}

Status OfiEndpoint::recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                         std::uint64_t ignore, void* context) {
  if (Status s = check_peer(src, true); s != Status::ok) return s;
  if (soft_) return soft_recv(src, buf, len, tag, ignore, context);
  const fi_addr_t addr = src == kAnyPeer ? FI_ADDR_UNSPEC : peers_[src].addr;
  OpRecord* op = start_op(OpKind::recv, src, context);
  op->len = len;
  ssize_t rc = post_with_retry(
      Retry::until_timeout,
      [&] { return counted(fi_trecv(ep_, buf, len, nullptr, addr, tag, ignore, &op->fi_ctx)); });
  return rc == 0 ? Status::ok : fail_post(op, rc, "fi_trecv");
}

Status OfiEndpoint::probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) {
  if (Status s = check_peer(src, true); s != Status::ok) return s;
  if (soft_) {
    progress_into_backlog();  // let arrivals reach the unexpected list first
    return soft_probe(src, tag, ignore, context);
  }
  if (!peek_supported_) {
    last_error_ = provider_ + ": probe is not supported (libfabric 1.17 shm ignores FI_PEEK "
                  "and would consume the message)";
    return Status::error;
  }
  // A probe is a question about what has arrived, so let the provider move arrivals into its
  // unexpected queue first; otherwise a manual-progress provider would keep saying no.
  progress_into_backlog();
  OpRecord* op = start_op(OpKind::probe, src, context);
  fi_msg_tagged msg{};
  msg.addr = src == kAnyPeer ? FI_ADDR_UNSPEC : peers_[src].addr;
  msg.tag = tag;
  msg.ignore = ignore;
  msg.context = &op->fi_ctx;
  ssize_t rc = post_with_retry(Retry::until_timeout,
                               [&] { return counted(fi_trecvmsg(ep_, &msg, FI_PEEK | FI_COMPLETION)); });
  return rc == 0 ? Status::ok : fail_post(op, rc, "fi_trecvmsg(FI_PEEK)");
}

Status OfiEndpoint::cancel(void* context) {
  // Rare, so a walk over the pending receives is fine; it keeps the hot path free of any
  // context -> record index.
  if (soft_) return soft_cancel(context);
  auto find_in = [context](const OpList& list) -> OpRecord* {
    for (OpRecord* op = list.head(); op != nullptr; op = op->next) {
      if (op->user_context == context && op->kind == OpKind::recv) return op;
    }
    return nullptr;
  };
  OpRecord* op = find_in(wildcard_);
  for (std::size_t i = 0; op == nullptr && i < peers_.size(); ++i) op = find_in(peers_[i].pending);
  // Not pending (already completed, or not a receive): its Completion says what happened.
  if (op == nullptr) return Status::ok;
  op->cancel_requested = true;
  int rc = static_cast<int>(fi_cancel(&ep_->fid, &op->fi_ctx));
  if (rc != 0 && rc != -FI_ENOENT) {
    last_error_ = provider_ + ": fi_cancel failed: " + fi_strerror(-rc);
    return Status::error;
  }
  return Status::ok;
}

}  // namespace ftmpi::transport
