#include "matcher.h"

#include <cstring>

#include "small_copy.h"
#include "wire.h"

namespace ftmpi::transport {

namespace {

bool accepts(const OpRecord* op, PeerId source, std::uint64_t tag) {
  return (op->peer == kAnyPeer || op->peer == source) &&
         wire::tag_matches(tag, op->tag, op->ignore);
}

}  // namespace

Matcher::~Matcher() {
  while (OpRecord* op = posted_.pop_front()) pool_.put(op);
}

OpRecord* Matcher::receive_record(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                                  std::uint64_t ignore, void* context) {
  OpRecord* op = pool_.get();
  op->user_context = context;
  op->buf = buf;
  op->len = len;
  op->tag = tag;
  op->ignore = ignore;
  op->peer = src;
  op->kind = OpKind::recv;
  op->orphaned = false;
  op->cancel_requested = false;
  op->standing = false;
  op->stage = 0;
  op->seq = 0;
  op->msg_len = 0;
  op->scratch = nullptr;
  op->bulk_slot = -1;
  op->done_bytes = 0;
  return op;
}

void Matcher::post_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                        std::uint64_t ignore, void* context, bool standing) {
  OpRecord* op = receive_record(src, buf, len, tag, ignore, context);
  op->standing = standing;
  if (Found f; unexpected_count_ != 0 && find(src, tag, ignore, &f)) {
    Completion c;
    if (deliver(op, f.it->arrival, &c, /*posting=*/true)) backlog_.push(c);
    recycle(f);
    return;
  }
  posted_.push_back(op);
}

bool Matcher::take(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                   std::uint64_t ignore, Completion* out) {
  // No posted receive accepts an unexpected message (each was offered to all posted before
  // it, and a later post looks here first), so taking one is exactly post_recv's match.
  Found f;
  if (unexpected_count_ == 0 || !find(src, tag, ignore, &f)) return false;
  const Arrival& a = f.it->arrival;
  if (a.channel != nullptr || a.len > len) return false;
  out->context = nullptr;
  out->status = Status::ok;
  out->tag = a.tag;
  out->source = a.source;
  out->len = out->message_len = a.len;
  copy_small(buf, a.data, a.len);
  recycle(f);
  return true;
}

bool Matcher::arrive(const Arrival& a, Completion* out) {
  OpRecord* op = posted_.head();
  while (op != nullptr && !accepts(op, a.source, a.tag)) op = op->next;
  if (op != nullptr) {
    posted_.remove(op);
    return deliver(op, a, out);
  }
  if (discard_) {
    if (a.channel != nullptr) a.channel->drop_large(a);
    return false;
  }
  Queue* q = &unnamed_;
  if (a.source != kAnyPeer) {
    if (a.source >= by_source_.size()) by_source_.resize(a.source + std::size_t{1});
    q = &by_source_[a.source];
  }
  if (spare_.empty()) spare_.emplace_back();
  q->splice(q->end(), spare_, spare_.begin());
  ++unexpected_count_;
  Unexpected& u = q->back();
  u.arrival = a;
  u.order = next_order_++;
  if (a.channel == nullptr) {
    u.bytes.assign(a.data, a.data + a.len);
    u.arrival.data = u.bytes.data();
  } else {
    u.bytes.clear();
  }
  return false;
}

Matcher::Queue* Matcher::queue_of(PeerId source) {
  if (source == kAnyPeer) return &unnamed_;
  return source < by_source_.size() ? &by_source_[source] : nullptr;
}

Matcher::Queue::iterator Matcher::first_accepted(Queue& q, std::uint64_t tag,
                                                 std::uint64_t ignore) {
  auto it = q.begin();
  for (; it != q.end(); ++it) {
    ++examined_;
    if (wire::tag_matches(it->arrival.tag, tag, ignore)) break;
  }
  return it;
}

bool Matcher::find(PeerId src, std::uint64_t tag, std::uint64_t ignore, Found* f) {
  if (src != kAnyPeer) {  // only that source's messages can match (never an unnamed one)
    Queue* q = queue_of(src);
    if (q == nullptr) return false;
    f->it = first_accepted(*q, tag, ignore);
    if (f->it == q->end()) return false;
    f->queue = q;
    return true;
  }
  auto consider = [&](Queue& q) {
    if (q.empty()) return;
    auto it = first_accepted(q, tag, ignore);
    if (it != q.end() && (f->queue == nullptr || it->order < f->it->order)) {
      f->queue = &q;
      f->it = it;
    }
  };
  for (Queue& q : by_source_) consider(q);
  consider(unnamed_);
  return f->queue != nullptr;
}

void Matcher::recycle(const Found& f) {
  spare_.splice(spare_.end(), *f.queue, f.it);
  --unexpected_count_;
}

bool Matcher::deliver(OpRecord* op, const Arrival& a, Completion* c, bool posting) {
  if (a.channel != nullptr) {
    return posting ? a.channel->accept_large(op, a, c) : a.channel->deliver_large(op, a, c);
  }
  // Every field written once (no zeroing first: this is every small message's path).
  c->context = op->user_context;
  c->tag = a.tag;
  c->source = a.source;
  c->message_len = a.len;
  if (a.len > op->len) {
    c->status = Status::truncated;
    c->len = 0;
  } else {
    copy_small(const_cast<void*>(op->buf), a.data, a.len);
    c->status = Status::ok;
    c->len = a.len;
  }
  pool_.put(op);
  return true;
}

void Matcher::probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) {
  Completion c;
  c.context = context;
  c.status = Status::no_message;
  c.source = src;
  if (Found f; unexpected_count_ != 0 && find(src, tag, ignore, &f)) {
    const Arrival& a = f.it->arrival;
    c.status = Status::ok;
    c.tag = a.tag;
    c.len = c.message_len = a.len;
    c.source = a.source;
  }
  backlog_.push(c);
}

bool Matcher::claim(PeerId src, std::uint64_t tag, std::uint64_t ignore, Completion* out,
                    std::uint64_t* id) {
  Found f;
  if (unexpected_count_ == 0 || !find(src, tag, ignore, &f)) return false;
  const Arrival& a = f.it->arrival;
  out->context = nullptr;
  out->status = Status::ok;
  out->tag = a.tag;
  out->source = a.source;
  out->len = out->message_len = a.len;
  *id = f.it->order;  // unique for the process's lifetime
  // The node keeps its bytes (a small message's payload, which arrival.data points into).
  claimed_.splice(claimed_.end(), *f.queue, f.it);
  --unexpected_count_;
  return true;
}

bool Matcher::receive_claimed(std::uint64_t id, void* buf, std::size_t len, void* context) {
  for (auto it = claimed_.begin(); it != claimed_.end(); ++it) {
    if (it->order != id) continue;
    const Arrival& a = it->arrival;
    OpRecord* op = receive_record(a.source, buf, len, a.tag, 0, context);
    Completion c;
    if (deliver(op, a, &c, /*posting=*/true)) backlog_.push(c);
    spare_.splice(spare_.end(), claimed_, it);
    return true;
  }
  return false;
}

bool Matcher::cancel(void* context) {
  for (OpRecord* op = posted_.head(); op != nullptr; op = op->next) {
    if (op->user_context != context) continue;
    posted_.remove(op);
    Completion c;
    c.context = context;
    c.status = Status::canceled;
    c.tag = op->tag;
    c.source = op->peer;
    backlog_.push(c);
    pool_.put(op);
    return true;
  }
  return false;  // matched already (its completion says so) or not a receive of ours
}

bool Matcher::withdraw(PeerId source, std::uint32_t seq) {
  Queue* q = queue_of(source);
  if (q == nullptr) return false;
  for (auto it = q->begin(); it != q->end(); ++it) {
    ++examined_;
    if (it->arrival.seq != seq) continue;
    recycle(Found{q, it});
    return true;
  }
  return false;
}

void Matcher::fail_peer(PeerId peer) {
  for (OpRecord* op = posted_.head(); op != nullptr;) {
    OpRecord* next = op->next;
    if (op->peer == peer) {
      posted_.remove(op);
      Completion c;
      c.context = op->user_context;
      c.status = Status::peer_failed;
      c.source = peer;
      backlog_.push(c);
      pool_.put(op);
    }
    op = next;
  }
}

void Matcher::discard_unexpected() {
  discard_ = true;
  auto drop = [&](Queue& q) {
    for (const Unexpected& u : q) {
      if (u.arrival.channel != nullptr) u.arrival.channel->drop_large(u.arrival);
    }
    spare_.splice(spare_.end(), q);
  };
  for (Queue& q : by_source_) drop(q);
  drop(unnamed_);
  drop(claimed_);  // matched by a probe, never received: an erroneous program, let senders go
  unexpected_count_ = 0;
}

std::size_t Matcher::discard_matching(std::uint64_t tag, std::uint64_t ignore) {
  std::size_t dropped = 0;
  auto drop = [&](Queue& q) {
    for (auto it = q.begin(); it != q.end();) {
      auto next = std::next(it);
      if (wire::tag_matches(it->arrival.tag, tag, ignore)) {
        if (it->arrival.channel != nullptr) it->arrival.channel->drop_large(it->arrival);
        recycle(Found{&q, it});
        ++dropped;
      }
      it = next;
    }
  };
  if (unexpected_count_ == 0) return 0;
  for (Queue& q : by_source_) drop(q);
  drop(unnamed_);
  return dropped;
}

}  // namespace ftmpi::transport
