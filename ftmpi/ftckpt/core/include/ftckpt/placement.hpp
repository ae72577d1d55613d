// Placement of checkpoint copies (Bondarenko & Yakobovsky 2014, section 3.2, formula (1)).
//
// N processes, duplication factor DF, storage depth SD. At save iteration k process i keeps
// its own checkpoint and writes copy j (j = 1..DF) into the memory of
//     receiver(i, j, k) = (i + j * DF^(k mod SD) + k mod SD) mod N.
// The last SD iterations are kept, so the k mod SD values ("phases") of the ring are always
// all of 0..SD-1 once SD saves have completed.
//
// Several hosts (the second constructor): no copy goes to a rank on its owner's host while
// another host exists. The formula is applied along a ring of the ranks that visits the
// hosts round-robin (first rank of every host, then the second, ...); a candidate that
// lands on the owner's host is replaced by the next rank along the ring that fits best:
//   1. another host than the owner's and than its earlier copies' (of this iteration),
//      and a rank that holds no earlier copy of it;   2. another host, an unused rank;
//   3. another host.
// With equal-sized hosts this moves every owner's copy by the same number of ring steps, so
// the scheme stays a rotation along the ring (balanced memory, the fast tolerance search).
// One host (or no host map): exactly formula (1) on the ranks.
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
  // Host-aware placement. host_of_rank has N entries; equal values mean the same host (any
  // values: they are renumbered 0..hosts()-1 in order of each host's lowest rank).
  // Throws std::invalid_argument like the first constructor, or for a map of the wrong size.
  Placement(int n, int df, int sd, const std::vector<int>& host_of_rank);

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

  // Number of distinct hosts (1 without a host map) and a rank's host, 0..hosts()-1.
  int hosts() const { return hosts_; }
  int host_of(int r) const { return host_of_.empty() ? 0 : host_of_[r]; }

  // True when every owner's copies sit at the same offsets along ring_order() (always with
  // one host: the identity ring). Then copy j of the rank at ring position v is at position
  // (v + copy_offsets(p)[j-1]) mod N. This shift invariance is what the tolerance search
  // exploits; without it the search works on the explicit table (slower by a factor N).
  bool ring_invariant() const { return ring_invariant_; }
  const std::vector<int>& ring_order() const { return ring_; }      // position -> rank
  const std::vector<int>& copy_offsets(int phase) const { return offsets_[phase]; }

  // Approximate memory per process in units of one local checkpoint: SD * (DF + 1).
  std::int64_t memory_units() const { return static_cast<std::int64_t>(sd_) * (df_ + 1); }

 private:
  void build_host_table();

  int n_, df_, sd_;
  int hosts_ = 1;
  bool ring_invariant_ = true;
  std::vector<std::vector<int>> offsets_;  // [phase][j-1], along ring_
  std::vector<int> ring_;                  // position -> rank (identity with one host)
  std::vector<int> host_of_;               // rank -> host; empty with one host
  // Several hosts: receiver table [phase][owner * DF + j-1] and its inverse per holder.
  std::vector<std::vector<int>> table_;
  std::vector<std::vector<std::vector<HeldCopy>>> held_;  // [phase][rank]
};

// The paper's claimed guarantee: MNF = (DF - 1) * SD + 1 failures are survivable when
// N > DF^SD + SD.
int paper_mnf(int df, int sd);
bool paper_condition_holds(int n, int df, int sd);

}  // namespace ftckpt
