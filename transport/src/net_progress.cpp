// The libfabric endpoint's progress: reading the CQ into the matcher and into Completions,
// mapping error entries to Status, the bounce pool, retries, and the peer-failure purge.
#include <rdma/fi_tagged.h>

#include <cstring>

#include "net_endpoint.h"
#include "status_map.h"

namespace ftmpi::transport {

namespace {
// Every fi_cq_readfrom runs ofi_rxm's progress, which moves up to 32 completions of its tcp
// endpoints into the CQ we read (rxm_ep_do_progress in libfabric 1.17). Reading fewer per
// call let a flooding peer's completions pile up there without bound, and a message from
// anyone else queued behind all of them (flood_new_peer.c): so each read takes as many.
constexpr std::size_t kCqBatch = 32;
}  // namespace

std::size_t NetEndpoint::poll(Completion* out, std::size_t max) {
  std::size_t n;
  if (max >= kCqBatch) {
    n = read_cq(out, kCqBatch);
  } else {
    union Batch {  // left uninitialised: read_cq writes every completion it returns whole
      Batch() {}
      Completion items[kCqBatch];
    } batch;
    const std::size_t got = read_cq(batch.items, kCqBatch);
    n = got < max ? got : max;
    for (std::size_t i = 0; i < n; ++i) out[i] = batch.items[i];
    for (std::size_t i = n; i < got; ++i) core_.backlog.push(batch.items[i]);
  }
  if (n == 0 && !bounce_idle_.empty()) {
    for (OpRecord* b : bounce_idle_) repost_bounce(b);
    bounce_idle_.clear();
  }
  if (deferred_count_ != 0) flush_all_deferred();  // after reading: reaping freed resources
  if (!bounce_retry_.empty() || !payload_retry_.empty()) flush_retries();
  return n;
}

void NetEndpoint::flush_all_deferred() {
  const auto now = StalledPeers::Clock::now();
  for (PeerId id = 0; id < peers_.size(); ++id) {
    Peer& p = peers_[id];
    if (p.deferred.empty()) continue;
    const OpRecord* head = p.deferred.head();
    if (flush_deferred(p) || p.deferred.head() != head) {
      stalled_.progressed(id);
    } else if (stalled_.stalled_and_gone(id, now)) {
      fail_deferred(id);
    }
  }
}

void NetEndpoint::fail_deferred(PeerId peer) {
  core_.last_error = provider_ + ": sends to peer " + std::to_string(peer) +
                     " stalled and its process is gone";
  Peer& p = peers_[peer];
  while (OpRecord* op = p.deferred.pop_front()) {
    --deferred_count_;
    complete(op, Status::peer_failed);
  }
}

void NetEndpoint::progress_into_backlog() {
  Completion batch[kCqBatch];
  const std::size_t n = read_cq(batch, kCqBatch);
  for (std::size_t i = 0; i < n; ++i) core_.backlog.push(batch[i]);
}

PeerId NetEndpoint::peer_of_source(fi_addr_t src) const {
  return src < peer_of_addr_.size() ? peer_of_addr_[src] : kAnyPeer;
}

std::size_t NetEndpoint::read_cq(Completion* out, std::size_t max) {
  fi_cq_tagged_entry entries[kCqBatch];
  fi_addr_t sources[kCqBatch];
  const std::size_t want = max < kCqBatch ? max : kCqBatch;
  ssize_t got = fi_cq_readfrom(cq_, entries, want, sources);
  if (got == -FI_EAGAIN) return 0;
  if (got == -FI_EAVAIL) return read_cq_error(out);
  if (got < 0) {
    core_.last_error = provider_ + ": fi_cq_readfrom failed: " + strerror(got);
    return 0;
  }
  std::size_t n = 0;
  for (ssize_t i = 0; i < got; ++i) {
    OpRecord* op = OpRecord::from_context(entries[i].op_context);
    if (op->kind == OpKind::bounce) {  // a message of our stream
      if (on_bounce(op, entries[i].len, sources[i], &out[n])) ++n;
      continue;
    }
    if (!op->orphaned) {
      peers_[op->peer].pending.remove(op);
      Completion& c = out[n++];
      c = Completion{};
      c.context = op->user_context;
      c.source = op->peer;
      if (op->kind == OpKind::recv) {  // the payload of a matched large message
        c.tag = op->tag;
        c.message_len = op->msg_len;
        if (op->scratch != nullptr) {  // the user's buffer was too short
          c.status = Status::truncated;
        } else {
          c.len = entries[i].len;
        }
      }
    }
    free_op(op);
  }
  return n;
}

std::size_t NetEndpoint::read_cq_error(Completion* out) {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq_, &err, 0) != 1) return 0;
  const int errnum = err.err < 0 ? -err.err : err.err;
  Status s = status_from_fi_error(errnum);
  if (s == Status::error || s == Status::peer_failed) {
    char buf[256];
    const char* detail = fi_cq_strerror(cq_, err.prov_errno, err.err_data, buf, sizeof buf);
    core_.last_error = provider_ + ": " + fi_->strerror(errnum) + " (" +
                       (detail != nullptr ? detail : "no provider detail") + ")";
  }
  OpRecord* op = OpRecord::from_context(err.op_context);
  if (op == nullptr) return 0;  // an error not tied to an operation: last_error keeps it
  if (op->kind == OpKind::bounce) {
    // Not expected (bounces take any message up to their size and are only canceled by
    // closing the endpoint): keep the pool whole.
    if (s != Status::canceled) repost_bounce(op);
    return 0;
  }
  if (s == Status::canceled) {
    // Only the failure purge cancels (it reported the operation already); anything else is
    // the provider giving up on it. tcp;ofi_rxm does this to a rendezvous receive whose
    // sender's connection went away mid-transfer (prov_errno ENOTCONN).
    s = Status::peer_failed;
    core_.last_error = provider_ + ": the provider aborted an operation (" +
                       fi_->strerror(err.prov_errno > 0 ? err.prov_errno : errnum) + ")";
  }
  std::size_t n = 0;
  if (!op->orphaned) {
    peers_[op->peer].pending.remove(op);
    Completion& c = out[n++];
    c = Completion{};
    c.context = op->user_context;
    c.status = s;
    c.tag = op->tag;
    c.source = op->peer;
    c.message_len = op->msg_len;
  }
  free_op(op);
  return n;
}

bool NetEndpoint::on_bounce(OpRecord* bounce, std::size_t got, fi_addr_t src,
                            Completion* out) {
  const auto* p = static_cast<const unsigned char*>(bounce->buf);
  bool completed = false;
  if (got < wire::kHeaderSize) {
    core_.last_error = provider_ + ": dropped a malformed message of " + std::to_string(got) +
                       " bytes";
  } else {
    wire::Header h;
    std::memcpy(&h, p, sizeof h);
    Arrival a;
    a.source = peer_of_source(src);
    a.tag = h.tag;
    if ((h.info & wire::kRtsBit) != 0 && got >= wire::kRtsSize) {
      wire::Announce ann;
      std::memcpy(&ann, p + sizeof h, sizeof ann);
      a.len = static_cast<std::size_t>(ann.len);
      a.channel = this;
      a.rndv.info = h.info;
    } else {
      a.len = got - wire::kHeaderSize;
      a.data = p + wire::kHeaderSize;
    }
    completed = core_.matcher.arrive(a, out);
  }
  // Reposting is kept off the path from a message's arrival to the caller's next send: on
  // the next poll that finds nothing, or once kIdleBounces have piled up.
  bounce_idle_.push_back(bounce);
  if (bounce_idle_.size() >= kIdleBounces) {
    for (OpRecord* b : bounce_idle_) repost_bounce(b);
    bounce_idle_.clear();
  }
  return completed;
}

void NetEndpoint::repost_bounce(OpRecord* bounce) {
  ssize_t rc = fi_recv(ep_, const_cast<void*>(bounce->buf), bounce_size_, nullptr,
                       FI_ADDR_UNSPEC, &bounce->fi_ctx);
  if (rc == 0) return;
  if (rc == -FI_EAGAIN) {
    bounce_retry_.push_back(bounce);
  } else {
    // Lost from the pool; the others carry on (the provider holds what they cannot take yet).
    core_.last_error = provider_ + ": reposting a bounce receive failed: " + strerror(rc);
  }
}

void NetEndpoint::flush_retries() {
  std::vector<OpRecord*> bounces;
  bounces.swap(bounce_retry_);
  for (OpRecord* b : bounces) repost_bounce(b);
  std::vector<OpRecord*> payloads;
  payloads.swap(payload_retry_);
  for (OpRecord* op : payloads) {
    if (peers_[op->peer].failed) {  // reported by the purge (or nobody's): never posted
      free_op(op);
      continue;
    }
    Completion c;
    if (post_payload_recv(op, &c)) core_.backlog.push(c);
  }
}

void NetEndpoint::free_op(OpRecord* op) {
  delete[] op->scratch;
  op->scratch = nullptr;
  core_.pool.put(op);
}

void NetEndpoint::fail_peer(PeerId peer) {
  if (peer >= peers_.size()) return;
  Peer& p = peers_[peer];
  p.failed = true;
  auto report = [&](OpRecord* op) {
    Completion c;
    c.context = op->user_context;
    c.status = Status::peer_failed;
    c.source = peer;
    core_.backlog.push(c);
  };
  // Deferred sends never reached libfabric: report and free them right away.
  while (OpRecord* op = p.deferred.pop_front()) {
    --deferred_count_;
    report(op);
    free_op(op);
  }
  for (OpRecord* op : payload_retry_) {
    if (op->peer == peer && !op->orphaned) {
      report(op);
      op->orphaned = true;
    }
  }
  // Same shape as ucp_ep_set_failed: purge everything outstanding with an error before the
  // caller hears about it. The records stay with libfabric (orphaned) until it lets go of
  // them: receives come back as FI_ECANCELED entries; providers that cannot cancel a send
  // (rxm) keep it until the send itself completes or the endpoint closes.
  for (OpRecord* op = p.pending.take_all(); op != nullptr;) {
    OpRecord* next = op->next;
    op->orphaned = true;
    op->prev = op->next = nullptr;
    report(op);
    (void)fi_cancel(&ep_->fid, &op->fi_ctx);
    op = next;
  }
}

}  // namespace ftmpi::transport
