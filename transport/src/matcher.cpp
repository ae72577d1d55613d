#include "matcher.h"

#include <cstring>

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

void Matcher::post_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
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
  op->stage = 0;
  op->seq = 0;
  op->msg_len = 0;
  op->scratch = nullptr;
  op->bulk_slot = -1;
  op->done_bytes = 0;
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!accepts(op, it->arrival.source, it->arrival.tag)) continue;
    Completion c;
    if (deliver(op, it->arrival, &c)) backlog_.push(c);
    spare_.splice(spare_.end(), unexpected_, it);
    return;
  }
  posted_.push_back(op);
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
  if (spare_.empty()) spare_.emplace_back();
  unexpected_.splice(unexpected_.end(), spare_, spare_.begin());
  Unexpected& u = unexpected_.back();
  u.arrival = a;
  if (a.channel == nullptr) {
    u.bytes.assign(a.data, a.data + a.len);
    u.arrival.data = u.bytes.data();
  } else {
    u.bytes.clear();
  }
  return false;
}

bool Matcher::deliver(OpRecord* op, const Arrival& a, Completion* c) {
  if (a.channel != nullptr) return a.channel->deliver_large(op, a, c);
  *c = Completion{};
  c->context = op->user_context;
  c->tag = a.tag;
  c->source = a.source;
  c->message_len = a.len;
  if (a.len > op->len) {
    c->status = Status::truncated;
  } else {
    if (a.len != 0) std::memcpy(const_cast<void*>(op->buf), a.data, a.len);
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
  for (const Unexpected& u : unexpected_) {
    const Arrival& a = u.arrival;
    if ((src == kAnyPeer || src == a.source) && wire::tag_matches(a.tag, tag, ignore)) {
      c.status = Status::ok;
      c.tag = a.tag;
      c.len = c.message_len = a.len;
      c.source = a.source;
      break;
    }
  }
  backlog_.push(c);
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
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->arrival.source != source || it->arrival.seq != seq) continue;
    spare_.splice(spare_.end(), unexpected_, it);
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
  for (const Unexpected& u : unexpected_) {
    if (u.arrival.channel != nullptr) u.arrival.channel->drop_large(u.arrival);
  }
  spare_.splice(spare_.end(), unexpected_);
}

}  // namespace ftmpi::transport
