// Placement of checkpoint copies (Bondarenko & Yakobovsky 2014, section 3.2, formula (1)).
//
// N processes, duplication factor DF, storage depth SD. At save iteration k process i keeps
// its own checkpoint and writes copy j (j = 1..DF) into the memory of
//     receiver(i, j, k) = (i + j * DF^(k mod SD) + k mod SD) mod N.
// The last SD iterations are kept, so the k mod SD values ("phases") of the ring are always
// all of 0..SD-1 once SD saves have completed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ftckpt {

// One copy held in someone's memory: process `owner`'s checkpoint, copy number `copy` (1..DF).
struct HeldCopy {
  int owner;
  int copy;
};

class Placement {
 public:
  // Throws std::invalid_argument when the parameters are out of range (see valid_params).
  Placement(int n, int df, int sd);

  // For callers that must not throw (the C API edge): true when (n, df, sd) is usable;
  // otherwise `why` says what is wrong.
  [[nodiscard]] static bool valid_params(int n, int df, int sd, std::string* why);

  int n() const { return n_; }
  int df() const { return df_; }
  int sd() const { return sd_; }

  // k mod SD for any k >= 0; the placement only depends on the phase.
  int phase(std::int64_t k) const { return static_cast<int>(k % sd_); }

  // Formula (1). Computed with modular arithmetic so DF^(SD-1) may exceed int range; the
  // paper's (int)pow(...) gives the same value whenever it does not overflow.
  int receiver(int i, int j, std::int64_t k) const;

  // Receivers of copies 1..DF of process i at iteration k, in copy order. A receiver may
  // repeat or equal i itself when N is small; callers that reason about survival must treat
  // such copies as living and dying with that node.
  std::vector<int> holders(int i, std::int64_t k) const;

  // Inverse: the copies process r holds at iteration k (excluding its own local checkpoint),
  // ordered by copy number then owner.
  std::vector<HeldCopy> copies_held_by(int r, std::int64_t k) const;

  // Offsets d with receiver(i, j, k) = (i + d) mod N, index j-1; identical for every i.
  // This shift invariance is what the tolerance search exploits.
  const std::vector<int>& copy_offsets(int phase) const { return offsets_[phase]; }

  // Approximate memory per process in units of one local checkpoint: SD * (DF + 1).
  std::int64_t memory_units() const { return static_cast<std::int64_t>(sd_) * (df_ + 1); }

 private:
  int n_, df_, sd_;
  std::vector<std::vector<int>> offsets_;  // [phase][j-1]
};

// The paper's claimed guarantee: MNF = (DF - 1) * SD + 1 failures are survivable when
// N > DF^SD + SD.
int paper_mnf(int df, int sd);
bool paper_condition_holds(int n, int df, int sd);

}  // namespace ftckpt
