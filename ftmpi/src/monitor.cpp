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
#include "ftmpi_proto/state.h"

namespace ftmpi {
namespace {

// The daemon decodes these datagrams with proto::decode_report; one codec writes both sides.
template <typename E>
E clamp_enum(int v) {
  return v >= 0 && v < static_cast<int>(E::count_) ? static_cast<E>(v) : E{};
}

proto::CommReport report_header(proto::ReportKind kind, const std::string& jobid, std::uint32_t reporter,
                                std::uint32_t key_context, std::uint32_t leader) {
  proto::CommReport rep;
  rep.kind = kind;
  rep.jobid = jobid;
  rep.reporter = reporter;
  rep.comm.key_context = key_context;
  rep.comm.leader = leader;
  return rep;
}

}  // namespace

std::vector<std::uint8_t> Monitor::encode_update(const std::string& jobid, std::uint32_t reporter,
                                                 std::uint32_t key_context, std::uint32_t leader,
                                                 const Comm& c) {
  proto::CommReport rep = report_header(proto::ReportKind::update, jobid, reporter, key_context, leader);
  rep.comm.context_id = c.context;
  rep.comm.name = c.name;
  rep.comm.state = clamp_enum<proto::CommStateV>(c.state);
  rep.comm.comm_mode = clamp_enum<proto::CommModeV>(c.comm_mode);
  rep.comm.msg_mode = clamp_enum<proto::MsgModeV>(c.msg_mode);
  rep.comm.procs.reserve(c.procs.size());
  for (std::size_t r = 0; r < c.procs.size(); ++r) {
    proto::CommProcInfo p;
    p.rank = static_cast<std::uint32_t>(r);
    p.world_rank = c.procs[r];
    p.state = r < c.proc_state.size() ? clamp_enum<proto::ProcStateV>(c.proc_state[r]) : proto::ProcStateV::ok;
    rep.comm.procs.push_back(p);
  }
  return proto::encode_report(rep);
}

std::vector<std::uint8_t> Monitor::encode_finalized(const std::string& jobid, std::uint32_t reporter) {
  return proto::encode_report(report_header(proto::ReportKind::finalized, jobid, reporter, 0, 0));
}

std::vector<std::uint8_t> Monitor::encode_freed(const std::string& jobid, std::uint32_t reporter,
                                                std::uint32_t key_context, std::uint32_t leader) {
  return proto::encode_report(report_header(proto::ReportKind::freed, jobid, reporter, key_context, leader));
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

// The records the daemon must have before it judges this rank's exit. Keys sort after every
// communicator's, so they go after whatever is still queued.
void Monitor::deliver_now(const Key& k, std::vector<std::uint8_t> bytes) {
  pending_[k] = std::move(bytes);
  for (int i = 0; i < 50 && !pending_.empty() && state_ == State::on; ++i) {
    retry_pending();
    if (pending_.empty()) break;
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
}

void Monitor::failures_trapped() {
  if (trapped_sent_ || !ready()) return;
  trapped_sent_ = true;
  deliver_now(Key{~0u, ~0u - 1}, proto::encode_report(report_header(proto::ReportKind::traps_failures,
                                                                      jobid_, rank_, 0, 0)));
}

void Monitor::finalize() {
  if (!ready()) return;
  // Last key, so it is the rank's last word: after it the daemon counts an exit as normal.
  deliver_now(Key{~0u, ~0u}, encode_finalized(jobid_, rank_));
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
