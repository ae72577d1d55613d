#include "fake_p2p.h"

#include <cstring>

namespace ftmpi::coll::testing {

struct Request {
  bool active = false;
  bool done = false;
  Status status = Status::ok;
};

class FakeWorld::Endpoint : public P2P {
 public:
  Endpoint(FakeWorld& w, int rank) : w_(w), rank_(rank) {}

  Status isend(int peer, const void* buf, std::size_t bytes, int tag, RequestId* req) override {
    std::unique_lock<std::mutex> lock(w_.mu_);
    if (Status s = admit(peer); s != Status::ok) return s;
    *req = new_request();
    Endpoint& dst = *w_.endpoints_[peer];
    // The first receive the destination posted for (me, tag) gets the data.
    for (auto it = dst.posted_.begin(); it != dst.posted_.end(); ++it) {
      if (it->peer == rank_ && it->tag == tag) {
        Pending recv = *it;
        dst.posted_.erase(it);
        deliver(buf, bytes, *req, dst, recv);
        return Status::ok;
      }
    }
    dst.inbox_.push_back({rank_, tag, buf, nullptr, bytes, *req});
    return Status::ok;
  }

  Status irecv(int peer, void* buf, std::size_t bytes, int tag, RequestId* req) override {
    std::unique_lock<std::mutex> lock(w_.mu_);
    if (Status s = admit(peer); s != Status::ok) return s;
    *req = new_request();
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
      if (it->peer == peer && it->tag == tag) {
        Pending send = *it;
        inbox_.erase(it);
        Pending recv{peer, tag, nullptr, buf, bytes, *req};
        w_.endpoints_[peer]->deliver(send.send_buf, send.bytes, send.req, *this, recv);
        return Status::ok;
      }
    }
    posted_.push_back({peer, tag, nullptr, buf, bytes, *req});
    return Status::ok;
  }

  Status waitall(RequestId* reqs, int n) override {
    std::unique_lock<std::mutex> lock(w_.mu_);
    auto all_done = [&] {
      for (int i = 0; i < n; ++i)
        if (!requests_[reqs[i]].done) return false;
      return true;
    };
    // Progress resets the clock: the limit is on a wait that sees nothing happen.
    while (!w_.failed_ && !all_done()) {
      const long seen = w_.messages_;
      if (cv_.wait_for(lock, w_.hang_limit_) == std::cv_status::timeout && seen == w_.messages_ &&
          !w_.failed_ && !all_done()) {
        w_.hung_ = true;
        w_.fail_locked("rank " + std::to_string(rank_) + " waited without progress");
      }
    }
    Status first = Status::ok;
    for (int i = 0; i < n; ++i) {
      Request& r = requests_[reqs[i]];
      Status s = r.done ? r.status : Status::proc_failed;
      if (first == Status::ok) first = s;
      r = Request{};
      free_.push_back(reqs[i]);
    }
    // NOP semantics: once the world has failed, every completion reports it.
    if (w_.failed_ && first == Status::ok) first = Status::proc_failed;
    if (w_.hung_) first = Status::error;
    return first;
  }

  void complete(RequestId req, Status s) {
    requests_[req].done = true;
    requests_[req].status = s;
    cv_.notify_one();
  }
  void wake() { cv_.notify_all(); }
  int active_requests() const {
    int n = 0;
    for (const Request& r : requests_) n += r.active;
    return n;
  }

  int fail_at = -1;

 private:
  // Common checks of a new operation; called with the lock held.
  Status admit(int peer) {
    if (fail_at >= 0 && calls_ == fail_at) {
      w_.fail_locked("rank " + std::to_string(rank_) + " killed at call " +
                     std::to_string(calls_));
    }
    ++calls_;
    if (w_.failed_) return Status::proc_failed;
    if (peer < 0 || peer >= w_.size_ || !w_.member_[peer] || peer == rank_) {
      w_.note_protocol_error("rank " + std::to_string(rank_) + " addressed peer " +
                             std::to_string(peer));
      return Status::error;
    }
    return Status::ok;
  }

  RequestId new_request() {
    RequestId id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<RequestId>(requests_.size());
      requests_.emplace_back();
    }
    requests_[id].active = true;
    return id;
  }

  // Called on the sender's endpoint; copies into the receiver's buffer and completes both.
  void deliver(const void* buf, std::size_t bytes, RequestId send_req, Endpoint& dst,
               const Pending& recv) {
    Status s = Status::ok;
    if (bytes != recv.bytes) {
      w_.note_protocol_error("size mismatch " + std::to_string(rank_) + "->" +
                             std::to_string(dst.rank_) + " tag " + std::to_string(recv.tag) +
                             ": sent " + std::to_string(bytes) + ", posted " +
                             std::to_string(recv.bytes));
      s = bytes > recv.bytes ? Status::truncated : Status::error;
    }
    const std::size_t n = bytes < recv.bytes ? bytes : recv.bytes;
    if (n > 0) std::memcpy(recv.recv_buf, buf, n);
    ++w_.messages_;
    complete(send_req, s);
    dst.complete(recv.req, s);
  }

  FakeWorld& w_;
  const int rank_;
  int calls_ = 0;
  std::condition_variable cv_;  // only this rank's thread waits on it
  std::vector<Request> requests_;
  std::vector<RequestId> free_;
  std::deque<Pending> inbox_;   // sends addressed to me, not yet matched
  std::deque<Pending> posted_;  // my receives, not yet matched
};

FakeWorld::FakeWorld(int comm_size, std::vector<int> members,
                     std::chrono::milliseconds hang_limit)
    : size_(comm_size), member_(comm_size, false), hang_limit_(hang_limit) {
  for (int m : members) member_[m] = true;
  for (int r = 0; r < comm_size; ++r) endpoints_.push_back(std::make_unique<Endpoint>(*this, r));
}

FakeWorld::~FakeWorld() = default;

P2P& FakeWorld::endpoint(int rank) { return *endpoints_[rank]; }

void FakeWorld::fail(int rank) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_locked("rank " + std::to_string(rank) + " failed");
}

void FakeWorld::fail_at_call(int rank, int call) {
  std::lock_guard<std::mutex> lock(mu_);
  endpoints_[rank]->fail_at = call;
}

// Matching stops for good, so no buffer is written after its owner has given up on it.
void FakeWorld::fail_locked(const std::string&) {
  if (failed_) return;
  failed_ = true;
  for (auto& e : endpoints_) e->wake();
}

void FakeWorld::note_protocol_error(const std::string& what) {
  if (protocol_error_.empty()) protocol_error_ = what;
}

bool FakeWorld::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}
bool FakeWorld::hung() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hung_;
}
std::string FakeWorld::protocol_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return protocol_error_;
}
int FakeWorld::leaked_requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& e : endpoints_) n += e->active_requests();
  return n;
}

long FakeWorld::messages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

}  // namespace ftmpi::coll::testing
