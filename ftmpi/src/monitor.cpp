#include "monitor.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "comm.h"
#include "ftmpi_knobs/knobs.h"

namespace ftmpi {
namespace {

constexpr std::uint32_t kReportMagic = 0x524D5446u;  // "FTMR", ftmpi_proto/state.h
constexpr std::uint8_t kReportVersion = 1;
constexpr std::uint8_t kKindUpdate = 1;
constexpr std::uint8_t kKindFreed = 2;

struct Writer {
  std::vector<std::uint8_t> out;
  void u8(std::uint8_t v) { out.push_back(v); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
};

void header(Writer& w, std::uint8_t kind, const std::string& jobid, std::uint32_t reporter,
            std::uint32_t key_context, std::uint32_t leader) {
  w.u32(kReportMagic);
  w.u8(kReportVersion);
  w.u8(kind);
  w.str(jobid);
  w.u32(reporter);
  w.u32(key_context);
  w.u32(leader);
}

std::uint8_t clamp_u8(int v, int count) { return static_cast<std::uint8_t>(v >= 0 && v < count ? v : 0); }

}  // namespace

std::vector<std::uint8_t> Monitor::encode_update(const std::string& jobid, std::uint32_t reporter,
                                                 std::uint32_t key_context, std::uint32_t leader,
                                                 const Comm& c) {
  Writer w;
  header(w, kKindUpdate, jobid, reporter, key_context, leader);
  w.u32(c.context);
  w.str(c.name);
  w.u8(clamp_u8(c.state, 5));
  w.u8(clamp_u8(c.comm_mode, 6));
  w.u8(clamp_u8(c.msg_mode, 2));
  w.u32(static_cast<std::uint32_t>(c.procs.size()));
  for (std::size_t r = 0; r < c.procs.size(); ++r) {
    w.u32(c.procs[r]);
    w.u8(r < c.proc_state.size() ? clamp_u8(c.proc_state[r], 4) : 0);
  }
  return std::move(w.out);
}

std::vector<std::uint8_t> Monitor::encode_freed(const std::string& jobid, std::uint32_t reporter,
                                                std::uint32_t key_context, std::uint32_t leader) {
  Writer w;
  header(w, kKindFreed, jobid, reporter, key_context, leader);
  return std::move(w.out);
}

bool Monitor::ready() {
  if (state_ != State::unknown) return state_ == State::on;
  state_ = State::off;
  // Set by ftmpid in each rank; a program started otherwise has no daemon to report to.
  auto path_knob = knobs::get_if_set(knobs::Id::monitor_socket);
  auto job = knobs::get_if_set(knobs::Id::jobid);
  auto rank = knobs::get_if_set(knobs::Id::rank);
  if (!path_knob || !job || !rank) return false;
  const char* path = path_knob->text.c_str();
  sockaddr_un addr{};
  if (std::strlen(path) >= sizeof addr.sun_path) return false;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return false;
  }
  fd_ = fd;
  jobid_ = job->text;
  rank_ = static_cast<std::uint32_t>(rank->integer);
  state_ = State::on;
  return true;
}

Monitor::Key Monitor::key_of(const Comm& c) {
  auto it = keys_.find(c.handle);
  if (it != keys_.end()) return it->second;
  // Members create a communicator with the same context id; disjoint communicators of one
  // split share it, so the lowest member's world rank tells them apart.
  std::uint32_t leader = c.procs.empty() ? rank_ : c.procs[0];
  for (std::uint32_t p : c.procs) leader = p < leader ? p : leader;
  Key k{c.context, leader};
  keys_.emplace(c.handle, k);
  return k;
}

bool Monitor::try_send(const std::vector<std::uint8_t>& bytes) {
  for (;;) {
    if (send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return true;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return false;
    if (errno == EMSGSIZE) return true;  // too big to report (huge communicator): drop it
    // The daemon is gone (ECONNREFUSED, ...): stop monitoring for good.
    close(fd_);
    fd_ = -1;
    state_ = State::off;
    pending_.clear();
    return true;
  }
}

void Monitor::retry_pending() {
  for (auto it = pending_.begin(); it != pending_.end() && state_ == State::on;) {
    if (!try_send(it->second)) return;
    it = pending_.erase(it);
  }
}

void Monitor::send_or_queue(const Key& k, std::vector<std::uint8_t> bytes) {
  if (!pending_.empty()) retry_pending();
  if (state_ != State::on) return;
  // Something older for this communicator is still queued: replace it, keep the order simple.
  auto it = pending_.find(k);
  if (it != pending_.end()) {
    it->second = std::move(bytes);
    return;
  }
  if (!try_send(bytes)) pending_.emplace(k, std::move(bytes));
}

void Monitor::comm_changed(const Comm& c) {
  if (c.handle == MPI_COMM_SELF || !ready()) return;
  Key k = key_of(c);
  send_or_queue(k, encode_update(jobid_, rank_, k.first, k.second, c));
}

void Monitor::comm_freed(const Comm& c) {
  if (c.handle == MPI_COMM_SELF || !ready()) return;
  auto it = keys_.find(c.handle);
  if (it == keys_.end()) return;  // never reported
  Key k = it->second;
  keys_.erase(it);
  send_or_queue(k, encode_freed(jobid_, rank_, k.first, k.second));
}

void Monitor::finalize() {
  if (state_ != State::on) return;
  for (int i = 0; i < 50 && !pending_.empty() && state_ == State::on; ++i) {
    retry_pending();
    if (pending_.empty()) break;
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  state_ = State::off;
  pending_.clear();
  keys_.clear();
}

Monitor& monitor() {
  static Monitor* m = new Monitor();  // never destroyed: usable from any exit path
  return *m;
}

}  // namespace ftmpi
