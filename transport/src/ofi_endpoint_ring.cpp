// The shared-memory rings under software matching (shm_ring.h): our inbound region, the
// address trailer that names it, connecting to a peer's region, and draining our rings.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "ofi_endpoint.h"

namespace ftmpi::transport {

namespace {

// Appended to the libfabric address: [token][pid][uid][kTrailerMagic], 8 bytes each.
constexpr std::uint64_t kTrailerMagic = 0x524c52544d544646ull;  // "FFTMTRLR"
constexpr std::size_t kTrailerSize = 4 * sizeof(std::uint64_t);

std::uint64_t random_token() {
  std::uint64_t t = 0;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &t, sizeof t) != static_cast<ssize_t>(sizeof t)) t = 0;
    close(fd);
  }
  if (t == 0) {  // no urandom: time and pid are unique enough on one host
    t = static_cast<std::uint64_t>(
            std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<std::uint64_t>(getpid()) << 40);
  }
  return t == 0 ? 1 : t;  // 0 means "free" in a ring's owner word
}

}  // namespace

bool OfiEndpoint::ring_init(std::string* err) {
  ring::sweep_stale_regions();
  ring_token_ = random_token();
  auto region = std::make_unique<ring::Region>();
  if (!region->create(ring_token_, knobs_.shm_rings, knobs_.shm_ring_kb * 1024, err,
                      knobs_.shm_bulk_slots, knobs_.shm_bulk_kb * 1024)) {
    if (err != nullptr) *err = provider_ + ": " + *err;
    return false;
  }
  inbound_ = std::move(region);
  const std::uint64_t trailer[4] = {ring_token_, my_pid_, static_cast<std::uint64_t>(getuid()),
                                    kTrailerMagic};
  const auto* t = reinterpret_cast<const std::uint8_t*>(trailer);
  address_.insert(address_.end(), t, t + kTrailerSize);
  ring_only_inbound_ = true;
  return true;
}

std::vector<std::uint8_t> OfiEndpoint::ring_parse_address(const std::vector<std::uint8_t>& addr,
                                                          Peer* peer) {
  std::uint64_t trailer[4] = {0, 0, 0, 0};
  if (addr.size() > kTrailerSize) {
    std::memcpy(trailer, addr.data() + addr.size() - kTrailerSize, kTrailerSize);
  }
  if (trailer[3] != kTrailerMagic) {
    // A peer without rings sends to us through libfabric: read the CQ on every poll.
    ring_only_inbound_ = false;
    return addr;
  }
  peer->has_ring_address = true;
  peer->ring_token = trailer[0];
  peer->ring_pid = trailer[1];
  peer->ring_uid = trailer[2];
  return std::vector<std::uint8_t>(addr.begin(), addr.end() - kTrailerSize);
}

ring::Writer* OfiEndpoint::ring_writer(PeerId dst) {
  Peer& p = peers_[dst];
  if (p.ring_state == Peer::RingState::ring) return &p.writer;
  if (p.ring_state == Peer::RingState::libfabric) return nullptr;
  p.ring_state = Peer::RingState::libfabric;  // unless everything below works
  if (inbound_ == nullptr || !p.has_ring_address) return nullptr;
  auto region = std::make_unique<ring::Region>();
  if (!region->open(ring::region_name(p.ring_pid, p.ring_uid, p.ring_token))) return nullptr;
  // The largest record: a header and inline_max_ bytes, or an announcement.
  const std::size_t largest = ring::kRecordHeader + soft::kHeaderSize + inline_max_;
  if (largest > region->ring_bytes() / 4) return nullptr;
  const std::size_t i = region->claim(ring_token_);
  if (i == region->ring_count()) return nullptr;  // all taken: libfabric for this pair
  p.writer.attach(&region->control(i), region->data(i), region->ring_bytes());
  p.region = std::move(region);
  p.ring_state = Peer::RingState::ring;
  return &p.writer;
}

bool OfiEndpoint::ring_attach(std::size_t index) {
  ring::RingControl& ctl = inbound_->control(index);
  const std::uint64_t owner = ctl.owner.load(std::memory_order_acquire);
  if (owner == 0) return false;  // counted as claimed, owner not written yet
  InboundRing& r = in_rings_[index];
  r.reader.attach(&ctl, inbound_->data(index), inbound_->ring_bytes());
  r.owner = owner;
  r.attached = true;
  ring_resolve(r);
  return true;
}

void OfiEndpoint::ring_resolve(InboundRing& r) {
  auto it = peers_of_token_.find(r.owner);
  if (it == peers_of_token_.end()) return;
  // Our own address may stand in for slots without a process (marked failed): prefer a live
  // peer with this token.
  r.peer = it->second.back();
  for (PeerId id : it->second) {
    if (!peers_[id].failed) {
      r.peer = id;
      break;
    }
  }
}

std::size_t OfiEndpoint::poll_rings(Completion* out, std::size_t max) {
  if (inbound_ == nullptr || in_ring_poll_) return 0;
  const std::size_t claimed = inbound_->claimed();
  if (claimed > in_rings_.size()) {
    if (claimed >= inbound_->ring_count()) ring_only_inbound_ = false;  // later senders: CQ
    in_rings_.resize(claimed);
  }
  const std::size_t count = in_rings_.size();
  if (count == 0) return 0;
  in_ring_poll_ = true;
  std::size_t n = 0;
  std::size_t i = ring_cursor_ < count ? ring_cursor_ : 0;
  for (std::size_t visited = 0; visited < count && n < max; ++visited) {
    InboundRing& r = in_rings_[i];
    if (r.attached || ring_attach(i)) {
      std::size_t len = 0;
      while (n < max) {
        const unsigned char* rec = r.reader.peek(&len);
        if (rec == nullptr) break;
        if (r.peer == kAnyPeer) ring_resolve(r);
        // The record is read in place and released afterwards (nothing below polls rings).
        if (soft_message(rec, len, r.peer, &out[n])) ++n;
        r.reader.consume();
      }
    }
    if (++i == count) i = 0;
  }
  ring_cursor_ = i;
  in_ring_poll_ = false;
  return n;
}

}  // namespace ftmpi::transport
