// The libfabric endpoint's setup, addressing, send path and large receives (net_endpoint.h).
#include "net_endpoint.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_tagged.h>

#include <cstring>

#include <ftmpi/debug_log.h>

#include "provider.h"
#include "status_map.h"

namespace ftmpi::transport {

bool NetEndpoint::init(const std::string& provider, const std::string& source_addr,
                       bool one_host, std::string* err) {
  provider_ = provider;
  export_provider_defaults(provider, one_host);
  fi_ = load_libfabric(provider, core_.knobs.vendor_libraries, err);
  if (fi_ == nullptr) return false;
  // FTMPI_DEBUG start-up phases: loading libfabric was the whole cost of a job on several hosts.
  FTMPI_DLOG("startup", "libfabric loaded (%s)", fi_->library);
  info_ = query_fabric_info(*fi_, provider, source_addr, err);
  if (info_ == nullptr) return false;
  FTMPI_DLOG("startup", "libfabric provider %s found", provider.c_str());
  auto fail = [&](const char* call, int rc) {
    if (err != nullptr) {
      *err = provider + ": " + call + " failed: " + strerror(rc);
      if (!source_addr.empty()) *err += " (bound to FTMPI_NET_ADDR " + source_addr + ")";
    }
    return false;
  };
  int rc = fi_->fabric(info_->fabric_attr, &fabric_, nullptr);
  if (rc != 0) return fail("fi_fabric", rc);
  rc = fi_domain(fabric_, info_, &domain_, nullptr);
  if (rc != 0) return fail("fi_domain", rc);

  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  // No wait object: progress is driven by poll(), and a wait object would make every CQ write
  // signal it.
  cq_attr.wait_obj = FI_WAIT_NONE;
  cq_attr.size = 0;  // provider default, sized to the tx+rx queues
  rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr);
  if (rc != 0) return fail("fi_cq_open", rc);
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  rc = fi_av_open(domain_, &av_attr, &av_, nullptr);
  if (rc != 0) return fail("fi_av_open", rc);
  rc = fi_endpoint(domain_, info_, &ep_, nullptr);
  if (rc != 0) return fail("fi_endpoint", rc);
  rc = fi_ep_bind(ep_, &av_->fid, 0);
  if (rc != 0) return fail("fi_ep_bind(av)", rc);
  rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV);
  if (rc != 0) return fail("fi_ep_bind(cq)", rc);
  rc = fi_enable(ep_);
  if (rc != 0) return fail("fi_enable", rc);

  std::size_t len = 0;
  rc = fi_getname(&ep_->fid, nullptr, &len);
  if (rc != -FI_ETOOSMALL && rc != 0) return fail("fi_getname", rc);
  address_.resize(len);
  rc = fi_getname(&ep_->fid, address_.data(), &len);
  if (rc != 0) return fail("fi_getname", rc);
  address_.resize(len);

  bounce_size_ = info_->tx_attr->inject_size;
  if (bounce_size_ < wire::kRtsSize) {
    if (err != nullptr) *err = provider + ": inject size too small for our message stream";
    return false;
  }
  inline_max_ = bounce_size_ - wire::kHeaderSize;
  stage_.resize(bounce_size_);
  bounce_mem_.resize(kBounceCount * bounce_size_);
  for (std::size_t i = 0; i < kBounceCount; ++i) {
    OpRecord* b = new_op(core_.pool, OpKind::bounce, kAnyPeer, nullptr);
    b->buf = bounce_mem_.data() + i * bounce_size_;
    b->len = bounce_size_;
    ssize_t r = fi_recv(ep_, const_cast<void*>(b->buf), bounce_size_, nullptr, FI_ADDR_UNSPEC,
                        &b->fi_ctx);
    if (r != 0) return fail("fi_recv (bounce)", static_cast<int>(r));
  }
  return true;
}

NetEndpoint::~NetEndpoint() {
  // Closing the endpoint first makes libfabric drop every pointer to our op records; the pool
  // (and any orphaned records in it) is freed after that, with the transport.
  if (ep_ != nullptr) fi_close(&ep_->fid);
  for (Peer& p : peers_) {
    for (OpRecord* op = p.pending.head(); op != nullptr; op = op->next) {
      delete[] op->scratch;
      op->scratch = nullptr;
    }
  }
  for (OpRecord* op : payload_retry_) {
    delete[] op->scratch;
    op->scratch = nullptr;
  }
  if (av_ != nullptr) fi_close(&av_->fid);
  if (cq_ != nullptr) fi_close(&cq_->fid);
  if (domain_ != nullptr) fi_close(&domain_->fid);
  if (fabric_ != nullptr) fi_close(&fabric_->fid);
  if (info_ != nullptr) fi_->freeinfo(info_);
}

bool NetEndpoint::add_peer(PeerId id, const std::uint8_t* addr, std::size_t len, pid_t pid) {
  // Some providers keep a pointer to the address bytes we insert: they live as long as the AV.
  av_names_.emplace_back(addr, addr + len);
  fi_addr_t fa = FI_ADDR_UNSPEC;
  int n = fi_av_insert(av_, av_names_.back().data(), 1, &fa, 0, nullptr);
  if (n != 1 || fa >= (fi_addr_t{1} << 24)) {
    core_.last_error = provider_ + ": fi_av_insert failed: " + strerror(n < 0 ? n : -FI_EINVAL);
    return false;
  }
  if (peers_.size() <= id) peers_.resize(id + std::size_t{1});
  peers_[id].addr = fa;
  if (fa >= peer_of_addr_.size()) peer_of_addr_.resize(fa + 1, kAnyPeer);
  peer_of_addr_[fa] = id;
  stalled_.add(id, pid);
  return true;
}

Status NetEndpoint::post_failed(ssize_t rc, const char* what) {
  if (rc == -FI_EAGAIN) {
    core_.last_error = provider_ + ": " + what + " made no progress";
    return Status::error;
  }
  core_.last_error = provider_ + ": " + what + " failed: " + strerror(rc);
  Status s = status_from_fi_error(static_cast<int>(rc < 0 ? -rc : rc));
  return s == Status::peer_failed ? s : Status::error;
}

ssize_t NetEndpoint::inject(PeerId dst, const void* a, std::size_t alen, const void* b,
                            std::size_t blen) {
  std::memcpy(stage_.data(), a, alen);
  if (blen != 0) std::memcpy(stage_.data() + alen, b, blen);
  return fi_inject(ep_, stage_.data(), alen + blen, peers_[dst].addr);
}

Status NetEndpoint::send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag,
                         void* context, bool* done) {
  if (done != nullptr) *done = false;
  Peer& peer = peers_[dst];
  if (peer.failed) return Status::peer_failed;
  // Non-overtaking: nothing may pass a deferred send to the same peer.
  const bool behind = !peer.deferred.empty() && !flush_deferred(peer);
  if (len <= inline_max_ && !behind) {
    // Inject copies the data out before returning and writes no CQ entry.
    const wire::Header h{tag, 0};
    ssize_t rc = post_with_retry([&] { return inject(dst, &h, sizeof h, buf, len); });
    if (rc == 0) {
      if (done != nullptr) {
        *done = true;
      } else {
        Completion c;
        c.context = context;
        c.source = dst;
        core_.backlog.push(c);
      }
      return Status::ok;
    }
    if (rc != -FI_EAGAIN) return post_failed(rc, "fi_inject");
  }
  OpRecord* op = new_op(core_.pool, OpKind::send, dst, context);
  op->buf = buf;
  op->len = len;
  op->tag = tag;
  if (len > inline_max_) op->seq = peer.next_seq++;
  if (behind) {
    peer.deferred.push_back(op);
    ++deferred_count_;
    return Status::ok;
  }
  bool finished = false;
  ssize_t rc = post_with_retry([&] { return post_send(op, &finished); });
  if (rc == -FI_EAGAIN) {
    peer.deferred.push_back(op);
    ++deferred_count_;
    return Status::ok;
  }
  if (rc != 0) {
    free_op(op);
    return post_failed(rc, "fi_tsend");
  }
  if (finished) {
    complete(op, Status::ok);
  } else {
    peer.pending.push_back(op);
  }
  return Status::ok;
}

ssize_t NetEndpoint::post_send(OpRecord* op, bool* finished) {
  *finished = false;
  if (op->len <= inline_max_) {  // a deferred small send
    const wire::Header h{op->tag, 0};
    ssize_t rc = inject(op->peer, &h, sizeof h, op->buf, op->len);
    *finished = rc == 0;
    return rc;
  }
  // A large message: announce it (in order with the small ones), then its payload at once
  // under its own tag; the provider's rendezvous holds it until the receiver posts for it.
  if (op->stage == 0) {
    const wire::Header h{op->tag, wire::kRtsBit | op->seq};
    const wire::Announce a{op->len, 0, 0, 0};
    ssize_t rc = inject(op->peer, &h, sizeof h, &a, sizeof a);
    if (rc != 0) return rc;
    op->stage = 1;
  }
  return fi_tsend(ep_, op->buf, op->len, nullptr, peers_[op->peer].addr,
                  wire::kBulkTag | op->seq, &op->fi_ctx);
}

void NetEndpoint::complete(OpRecord* op, Status s) {
  Completion c;
  c.context = op->user_context;
  c.status = s;
  c.source = op->peer;
  core_.backlog.push(c);
  free_op(op);
}

void NetEndpoint::detach_send(PeerId dst, void* context) {
  // A deferred send is posted later from poll(), from op->buf (ASan found one reading the
  // frame of a later call: a 5-byte send of a broadcast cut short, netns.spares.preconnect).
  // A posted one is the provider's (inject copied it; a rendezvous payload is out of reach).
  if (dst >= peers_.size()) return;
  if (OpRecord* op = peers_[dst].deferred.find(OpKind::send, context)) own_send_payload(op);
}

bool NetEndpoint::flush_deferred(Peer& peer) {
  while (OpRecord* op = peer.deferred.head()) {
    bool finished = false;
    ssize_t rc = post_send(op, &finished);
    if (rc == -FI_EAGAIN) return false;
    peer.deferred.remove(op);
    --deferred_count_;
    if (rc == 0 && !finished) {
      peer.pending.push_back(op);
    } else {  // its send() already returned ok, so a failure travels as its completion
      complete(op, rc == 0 ? Status::ok : post_failed(rc, "fi_tsend (deferred)"));
    }
  }
  return true;
}

bool NetEndpoint::deliver_large(OpRecord* op, const Arrival& a, Completion* c) {
  if (a.source == kAnyPeer || peers_[a.source].failed) {
    *c = Completion{};
    c->context = op->user_context;
    c->tag = a.tag;
    c->source = a.source;
    c->message_len = a.len;
    c->status = Status::peer_failed;
    core_.last_error = provider_ + ": the sender of a large message has failed";
    free_op(op);
    return true;
  }
  op->peer = a.source;
  op->tag = a.tag;
  op->seq = static_cast<std::uint32_t>(a.rndv.info & wire::kSeqMask);
  op->msg_len = a.len;
  // The user's buffer is too short: land the payload elsewhere and report truncation (rxm
  // mishandles a receive shorter than its message).
  if (a.len > op->len) op->scratch = new unsigned char[a.len];
  return post_payload_recv(op, c);
}

void NetEndpoint::drop_large(const Arrival& a) {
  // Nobody will receive it, but its sender's send completes only once the payload is taken:
  // take it into a record nobody waits for.
  if (a.source == kAnyPeer || peers_[a.source].failed) return;
  OpRecord* op = new_op(core_.pool, OpKind::recv, a.source, nullptr);
  op->orphaned = true;
  op->seq = static_cast<std::uint32_t>(a.rndv.info & wire::kSeqMask);
  op->msg_len = a.len;
  op->scratch = new unsigned char[a.len == 0 ? 1 : a.len];
  Completion ignored;
  (void)post_payload_recv(op, &ignored);
}

bool NetEndpoint::post_payload_recv(OpRecord* op, Completion* c) {
  void* dst = op->scratch != nullptr ? op->scratch : const_cast<void*>(op->buf);
  ssize_t rc = fi_trecv(ep_, dst, op->msg_len, nullptr, peers_[op->peer].addr,
                        wire::kBulkTag | op->seq, 0, &op->fi_ctx);
  if (rc == 0) {
    // Orphans (drop_large) are nobody's: no purge reports them, their completion frees them.
    if (!op->orphaned) peers_[op->peer].pending.push_back(op);
    return false;
  }
  if (rc == -FI_EAGAIN) {
    payload_retry_.push_back(op);
    return false;
  }
  *c = Completion{};
  c->context = op->user_context;
  c->tag = op->tag;
  c->source = op->peer;
  c->message_len = op->msg_len;
  c->status = post_failed(rc, "fi_trecv (large message)");
  const bool report = !op->orphaned;
  free_op(op);
  return report;
}

}  // namespace ftmpi::transport
