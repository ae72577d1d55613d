// REBUILD hand-off inside FTCKPT_Recover (handoff.hpp): the decision broadcast, the pairing of
// lost owners with replacements, and the transfer of their images.
#include "handoff.hpp"

#include <signal.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "ftckpt/level_select.hpp"
#include "image.hpp"

namespace ftckpt {

namespace {

constexpr int kHeader = 5;  // status, k, epoch id, level, n; then 4 entries per epoch rank
constexpr int kPerRank = 4;  // now, gap, source, size

}  // namespace

int broadcast_decision(Decision* d, int leader, int max_n) {
  State& s = state();
  std::vector<long long> buf(kHeader + kPerRank * static_cast<std::size_t>(max_n), 0);
  const bool root = my_rank() == leader;
  if (root) {
    const Epoch& e = d->described;
    const int n = d->status == MPI_SUCCESS ? e.n : 0;
    buf[0] = d->status;
    buf[1] = d->choice.k;
    buf[2] = d->choice.epoch;
    buf[3] = d->choice.level;
    buf[4] = n;
    for (int r = 0; r < n; ++r) {
      long long* at = &buf[kHeader + kPerRank * static_cast<std::size_t>(r)];
      at[0] = e.now[r];
      at[1] = e.gap_at_start[r];
      at[2] = d->choice.source[r];
      at[3] = d->sizes[r];
    }
  }
  if (int rc = MPI_Bcast(buf.data(), static_cast<int>(buf.size()), MPI_LONG_LONG, leader, s.comm);
      rc != MPI_SUCCESS)
    return rc;
  if (root) return MPI_SUCCESS;
  d->status = static_cast<int>(buf[0]);
  d->choice.k = buf[1];
  d->choice.epoch = static_cast<int>(buf[2]);
  d->choice.level = static_cast<int>(buf[3]);
  const int n = static_cast<int>(buf[4]);
  if (n < 0 || n > max_n) return MPI_ERR_INTERN;
  Epoch& e = d->described;
  e.id = d->choice.epoch;
  e.foreign = true;
  e.n = n;
  e.my_rank = -1;
  e.now.assign(n, -1);
  e.gap_at_start.assign(n, 0);
  d->choice.source.assign(n, -1);
  d->sizes.assign(n, -1);
  std::vector<int> members;
  for (int r = 0; r < n; ++r) {
    const long long* at = &buf[kHeader + kPerRank * static_cast<std::size_t>(r)];
    e.now[r] = static_cast<int>(at[0]);
    e.gap_at_start[r] = static_cast<char>(at[1] != 0);
    d->choice.source[r] = static_cast<int>(at[2]);
    d->sizes[r] = at[3];
    if (!e.gap_at_start[r]) members.push_back(r);
  }
  // The same geometry begin_epoch gave the members: needed to name parity builders.
  if (s.l3_group > 0) e.xor_groups = XorGroups(n, members, s.l3_group);
  return MPI_SUCCESS;
}

std::vector<int> heirs_of(const Epoch& e, MPI_Comm comm) {
  int n_now = 0;
  MPI_Comm_size(comm, &n_now);
  std::vector<char> taken(static_cast<std::size_t>(n_now), 0);
  for (int r = 0; r < e.n; ++r)
    if (e.now[r] >= 0 && e.now[r] < n_now) taken[e.now[r]] = 1;
  std::vector<int> newcomers;
  for (int c = 0; c < n_now; ++c) {
    int st = FTMPI_PROC_OK;
    FTMPI_Comm_proc_state(comm, c, &st);
    if (!taken[c] && st != FTMPI_PROC_FAILED) newcomers.push_back(c);
  }
  std::vector<int> heir(static_cast<std::size_t>(e.n), -1);
  std::size_t next = 0;
  for (int r = 0; r < e.n && next < newcomers.size(); ++r)
    if (!e.gap_at_start[r] && e.now[r] < 0) heir[r] = newcomers[next++];
  return heir;
}

namespace {

// The image goes in pieces - header, table, then each region's bytes - so that the heir can
// receive every region straight into its own memory: no image-sized buffer, no copy.
// Something wrong here is sent as one empty message, so the heir fails instead of waiting.
void post_image(const char* image, long long size, int to, int tag, std::vector<MPI_Request>* reqs, bool* ok) {
  const MPI_Comm comm = state().comm;
  std::vector<ImageEntry> entries;
  const bool valid = image && size >= 0 && size <= INT32_MAX &&
                     image_entries(image, static_cast<std::size_t>(size), static_cast<std::size_t>(size), &entries);
  if (!valid) {
    *ok = false;
    reqs->emplace_back();
    MPI_Isend(nullptr, 0, MPI_BYTE, to, tag, comm, &reqs->back());
    return;
  }
  const std::size_t head = image_head_bytes(image);
  reqs->emplace_back();
  MPI_Isend(image, static_cast<int>(kImageHeaderBytes), MPI_BYTE, to, tag, comm, &reqs->back());
  reqs->emplace_back();
  MPI_Isend(image + kImageHeaderBytes, static_cast<int>(head - kImageHeaderBytes), MPI_BYTE, to, tag, comm,
            &reqs->back());
  for (const ImageEntry& en : entries) {
    if (!en.bytes) continue;
    reqs->emplace_back();
    MPI_Isend(image + en.offset, static_cast<int>(en.bytes), MPI_BYTE, to, tag, comm, &reqs->back());
  }
}

// The heir's side of post_image: the header and table first, then every region into the
// registered region with the same id and size, others into scratch memory (not restored, as
// restore_regions does). MPI's non-overtaking order pairs the pieces.
int receive_image(int from, int tag, long long size, int* restored, bool* ok) {
  const State& s = state();
  char header[kImageHeaderBytes];
  MPI_Status st;
  int got = 0;
  if (int rc = MPI_Recv(header, static_cast<int>(kImageHeaderBytes), MPI_BYTE, from, tag, s.comm, &st);
      rc != MPI_SUCCESS)
    return rc;
  MPI_Get_count(&st, MPI_BYTE, &got);
  const std::size_t head = got == static_cast<int>(kImageHeaderBytes) ? image_head_bytes(header) : 0;
  if (head == 0 || size < 0 || head > static_cast<std::size_t>(size)) {
    *ok = false;  // the source sent only this message
    return MPI_SUCCESS;
  }
  std::vector<char> table(head);
  std::memcpy(table.data(), header, kImageHeaderBytes);
  if (int rc = MPI_Recv(table.data() + kImageHeaderBytes, static_cast<int>(head - kImageHeaderBytes), MPI_BYTE,
                        from, tag, s.comm, &st);
      rc != MPI_SUCCESS)
    return rc;
  std::vector<ImageEntry> entries;
  // The source checked the same table against the same size before sending it.
  if (!image_entries(table.data(), head, static_cast<std::size_t>(size), &entries)) {
    *ok = false;
    return MPI_SUCCESS;
  }
  std::vector<MPI_Request> reqs;
  std::vector<std::size_t> expect;
  std::vector<std::vector<char>> scratch;
  *restored = 0;
  for (const ImageEntry& en : entries) {
    if (!en.bytes) continue;
    auto it = s.regions.find(static_cast<int>(en.id));
    char* into = nullptr;
    if (it != s.regions.end() && it->second.bytes == en.bytes && static_cast<std::int64_t>(it->first) == en.id) {
      into = static_cast<char*>(it->second.ptr);
      ++*restored;
    } else {
      scratch.emplace_back(en.bytes);
      into = scratch.back().data();
    }
    reqs.emplace_back();
    expect.push_back(en.bytes);
    MPI_Irecv(into, static_cast<int>(en.bytes), MPI_BYTE, from, tag, s.comm, &reqs.back());
  }
  for (const ImageEntry& en : entries) {  // empty regions travel in the table alone
    auto it = s.regions.find(static_cast<int>(en.id));
    if (!en.bytes && it != s.regions.end() && it->second.bytes == 0) ++*restored;
  }
  std::vector<MPI_Status> statuses(reqs.size());
  if (int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), statuses.data()); rc != MPI_SUCCESS)
    return rc;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    MPI_Get_count(&statuses[i], MPI_BYTE, &got);
    if (static_cast<std::size_t>(got) != expect[i]) *ok = false;
  }
  return MPI_SUCCESS;
}

}  // namespace

int hand_over(const Epoch& e, const Candidate& c, const std::vector<long long>& sizes,
              const std::vector<int>& heir, int tag, int* restored, bool* ok) {
  State& s = state();
  const int me = my_rank();
  std::vector<MPI_Request> sends;
  int mine = -1;  // the owner whose state this process inherits
  for (int o = 0; o < e.n; ++o) {
    if (heir[o] < 0) continue;
    if (c.source[o] == me) {
      const std::vector<char>* image = recovered_image_of(e, c.slot, o);
      post_image(image ? image->data() : nullptr, image && image->size() >= static_cast<std::size_t>(std::max(0ll, sizes[o]))
                 ? sizes[o] : -1, heir[o], tag, &sends, ok);
    }
    if (heir[o] == me) mine = o;
  }
  if (s.kill_in_recover) raise(SIGKILL);  // test hook: die with the hand-off in flight
  int rc = MPI_SUCCESS;
  if (mine >= 0 && c.source[mine] >= 0) {
    rc = receive_image(c.source[mine], tag, sizes[mine], restored, ok);
  } else if (mine >= 0) {  // level 4: the owner's file
    std::vector<char> image;
    if (read_image_file(image_path(s.l4_dir, e.id, c.k, mine), &image)) *restored = restore_regions(image, s.regions);
    else *ok = false;
  }
  // A heir is no member of e and sends nothing, so waiting for the sends last cannot block it.
  int wrc = MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace ftckpt
