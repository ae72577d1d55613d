#include "ftckpt/placement.hpp"

#include <stdexcept>

namespace ftckpt {

namespace {

// Upper limits keep the tolerance search (2^SD subsets of phases) and the offsets table
// small; they are far above any configuration that makes sense in memory.
constexpr int kMaxSd = 16;
constexpr int kMaxDf = 64;

std::int64_t pow_mod(std::int64_t base, int exp, std::int64_t mod) {
  std::int64_t r = 1 % mod;
  base %= mod;
  for (int e = 0; e < exp; ++e) r = (r * base) % mod;
  return r;
}

}  // namespace

bool Placement::valid_params(int n, int df, int sd, std::string* why) {
  auto fail = [&](const char* msg) {
    if (why) *why = msg;
    return false;
  };
  if (n < 1) return fail("N must be at least 1");
  if (df < 1) return fail("DF must be at least 1");
  if (df > kMaxDf) return fail("DF above 64 is not supported");
  if (sd < 1) return fail("SD must be at least 1");
  if (sd > kMaxSd) return fail("SD above 16 is not supported");
  return true;
}

Placement::Placement(int n, int df, int sd) : n_(n), df_(df), sd_(sd) {
  std::string why;
  if (!valid_params(n, df, sd, &why)) throw std::invalid_argument(why);
  offsets_.resize(sd_);
  ring_.resize(n_);
  for (int r = 0; r < n_; ++r) ring_[r] = r;
  for (int p = 0; p < sd_; ++p) {
    std::int64_t step = pow_mod(df_, p, n_);
    for (int j = 1; j <= df_; ++j)
      offsets_[p].push_back(static_cast<int>((j * step + p) % n_));
  }
}

int Placement::receiver(int i, int j, std::int64_t k) const {
  if (i < 0 || i >= n_ || j < 1 || j > df_ || k < 0)
    throw std::out_of_range("receiver: i, j or k out of range");
  if (!table_.empty()) return table_[phase(k)][static_cast<std::size_t>(i) * df_ + (j - 1)];
  return static_cast<int>((i + offsets_[phase(k)][j - 1]) % n_);
}

std::vector<int> Placement::holders(int i, std::int64_t k) const {
  std::vector<int> out;
  out.reserve(df_);
  for (int j = 1; j <= df_; ++j) out.push_back(receiver(i, j, k));
  return out;
}

std::vector<HeldCopy> Placement::copies_held_by(int r, std::int64_t k) const {
  if (r < 0 || r >= n_ || k < 0) throw std::out_of_range("copies_held_by: r or k out of range");
  if (!held_.empty()) return held_[phase(k)][r];
  std::vector<HeldCopy> out;
  const auto& off = offsets_[phase(k)];
  for (int j = 1; j <= df_; ++j) {
    int owner = static_cast<int>(((r - off[j - 1]) % n_ + n_) % n_);
    out.push_back({owner, j});
  }
  return out;
}

int paper_mnf(int df, int sd) { return (df - 1) * sd + 1; }

bool paper_condition_holds(int n, int df, int sd) {
  // DF^SD can overflow for large parameters; saturate instead, the answer is then "no".
  std::int64_t p = 1;
  for (int e = 0; e < sd; ++e) {
    p *= df;
    if (p > (std::int64_t{1} << 40)) return false;
  }
  return static_cast<std::int64_t>(n) > p + sd;
}

}  // namespace ftckpt
