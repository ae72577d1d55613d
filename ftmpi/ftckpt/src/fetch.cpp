// FTCKPT_Fetch and FTCKPT_Recovery_info: handing out the recovered iteration's data.
//
// After FTCKPT_Recover every rank of the recovered iteration has a source: itself when it
// survived (its own image), the holder RLFFN chose when it was lost (the copy in that
// holder's memory), the member of its XOR group that rebuilt it (level 3), or the level-4
// file. Fetch is collective so the source knows whom to
// send to without MPI_Probe or one-sided communication: one allgather of (want, rank, id)
// - which also checks that everyone asked for the same thing - then the source sends to
// every member that asked, all at once.
#include <cstring>
#include <vector>

#include "ckpt_state.hpp"
#include "image.hpp"

namespace ftckpt {

const std::vector<char>* recovered_image_of(const Epoch& e, int slot_index, int owner) {
  const State& s = state();
  if (slot_index < 0 || e.foreign) return nullptr;
  const Slot& slot = s.slots[static_cast<std::size_t>(slot_index)];
  if (owner == e.my_rank) return &slot.image;
  if (auto it = slot.rebuilt.find(owner); it != slot.rebuilt.end()) return &it->second;
  for (int o : slot.parity_serves)
    if (o == owner) return &slot.parity;  // the image, zero padded: regions are found by id
  auto it = slot.held.find(owner);
  return it == slot.held.end() ? nullptr : &it->second;
}

namespace {

int copy_out(const std::vector<char>& image, int id, void* buf, std::size_t want) {
  const char* data;
  std::size_t bytes;
  if (!find_region(image, id, &data, &bytes)) return FTCKPT_ERR_NOT_FOUND;
  if (bytes != want) return MPI_ERR_COUNT;
  if (bytes) std::memcpy(buf, data, bytes);
  return MPI_SUCCESS;
}

}  // namespace

int fetch(int old_rank, int id, void* buf, int count, MPI_Datatype type) {
  State& s = state();
  if (!s.initialised || !s.rec.valid || s.comm == MPI_COMM_NULL) return FTCKPT_ERR_STATE;
  const Epoch& e = *find_epoch(s.rec.epoch);
  std::size_t want = 0;
  int local = MPI_SUCCESS;
  if (buf) local = type_bytes(type, count, &want);
  if (local == MPI_SUCCESS && want > INT32_MAX) local = MPI_ERR_COUNT;
  const bool wants = buf && local == MPI_SUCCESS;

  int n = 0;
  MPI_Comm_size(s.comm, &n);
  std::vector<int> asks(3 * static_cast<std::size_t>(n), -1);  // BLANK gaps stay -1
  int mine[3] = {wants ? 1 : 0, old_rank, id};
  if (int rc = MPI_Allgather(mine, 3, MPI_INT, asks.data(), 3, MPI_INT, s.comm); rc != MPI_SUCCESS)
    return rc;
  for (int r = 0; r < n; ++r)
    if (asks[3 * r + 1] != -1 && (asks[3 * r + 1] != old_rank || asks[3 * r + 2] != id)) return MPI_ERR_ARG;
  if (old_rank < 0 || old_rank >= e.n) return MPI_ERR_RANK;
  if (e.gap_at_start[old_rank]) return FTCKPT_ERR_NOT_FOUND;

  const int source = s.rec.source[old_rank];
  const int tag = next_tag();
  if (source < 0) {  // level 4: every reader reads the owner's file itself
    if (!wants) return local;
    std::vector<char> image;
    if (!read_image_file(image_path(s.l4_dir, e.id, s.rec.k, old_rank), &image)) return MPI_ERR_OTHER;
    return copy_out(image, id, buf, want);
  }

  const int me = my_rank();
  if (me == source) {
    const std::vector<char>* image = recovered_image_of(e, s.rec.slot, old_rank);
    const char* data = nullptr;
    std::size_t bytes = 0;
    if (!image || !find_region(*image, id, &data, &bytes)) data = nullptr, bytes = 0;
    int rc = local;
    if (wants) rc = image ? copy_out(*image, id, buf, want) : FTCKPT_ERR_NOT_FOUND;
    // A missing region is sent as an empty message so that readers fail instead of waiting.
    std::vector<MPI_Request> reqs;
    for (int r = 0; r < n; ++r) {
      if (r == me || asks[3 * r] != 1) continue;
      reqs.emplace_back();
      MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, r, tag, s.comm, &reqs.back());
    }
    int wrc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    return wrc != MPI_SUCCESS ? wrc : rc;
  }
  if (!wants) return local;
  MPI_Status status;
  int rc = MPI_Recv(buf, static_cast<int>(want), MPI_BYTE, source, tag, s.comm, &status);
  if (rc != MPI_SUCCESS) return rc;
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  if (static_cast<std::size_t>(got) == want) return MPI_SUCCESS;
  return got == 0 ? FTCKPT_ERR_NOT_FOUND : MPI_ERR_COUNT;
}

}  // namespace ftckpt

using namespace ftckpt;

extern "C" {

int FTCKPT_Fetch(int old_rank, int id, void* buf, int count, MPI_Datatype type) {
  return fetch(old_rank, id, buf, count, type);
}

int FTCKPT_Recovery_info(int* old_size, int* old_rank, int maxn, int* new_rank_of_old, int* level) {
  const State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  if (!s.rec.valid) {
    if (level) *level = FTCKPT_LEVEL_NONE;
    return FTCKPT_ERR_STATE;
  }
  const Epoch& e = *find_epoch(s.rec.epoch);
  if (old_size) *old_size = e.n;
  if (old_rank) *old_rank = e.my_rank;
  if (old_rank && e.foreign) {  // a replacement: the rank whose state it got, if any
    *old_rank = -1;
    for (int r = 0; r < e.n; ++r)
      if (s.rec.heir[r] == my_rank()) *old_rank = r;
  }
  if (new_rank_of_old)
    for (int r = 0; r < e.n && r < maxn; ++r) new_rank_of_old[r] = e.now[r] >= 0 ? e.now[r] : s.rec.heir[r];
  if (level) *level = s.rec.level;
  return MPI_SUCCESS;
}

}  // extern "C"
