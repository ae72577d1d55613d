#include "dims_balance.h"

#include <climits>
#include <utility>

namespace ftmpi {
namespace {

struct PrimePower {
  int prime;
  int count;
};

// n's prime factors in increasing order with their multiplicities.
std::vector<PrimePower> factorize(int n) {
  std::vector<PrimePower> out;
  for (int p = 2; static_cast<long long>(p) * p <= n; ++p) {
    if (n % p != 0) continue;
    int c = 0;
    while (n % p == 0) {
      n /= p;
      ++c;
    }
    out.push_back({p, c});
  }
  if (n > 1) out.push_back({n, 1});
  return out;
}

// Divisors of n except 1 and n, increasing (the candidate extents once every dimension must
// be at least 2).
std::vector<int> proper_divisors(int n) {
  std::vector<int> low, high;
  for (int d = 2; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

// v^k <= n without overflow.
bool power_fits(int v, int k, int n) {
  long long p = 1;
  for (int i = 0; i < k; ++i) {
    p *= v;
    if (p > n) return false;
  }
  return true;
}

// Exhaustive search for k >= 2 extents, each >= 2, product n. Extents are chosen from the
// smallest (last) dimension upwards, each candidate in increasing order; the last two come as
// the most balanced pair of what is left. The result is the smallest spread (largest minus
// smallest); among equal spreads the one found last wins, i.e. the largest smallest extent,
// then the largest second smallest, ... (MPICH's choice, so results agree with it).
class BalancedSearch {
 public:
  BalancedSearch(int n, int k) : divs_(proper_divisors(n)), k_(k), trial_(k) {}

  std::vector<int> run(int n) {
    place(n, k_ - 1, 0);
    return best_;
  }

 private:
  // Fills dims[0..slot] with extents >= floor whose product is rest.
  void place(int rest, int slot, int floor) {
    if (slot == 1) {
      take_pair(rest, floor);
      return;
    }
    const int smallest = slot == k_ - 1 ? 0 : trial_[k_ - 1];
    for (int f : divs_) {
      if (f < floor) continue;
      // Every extent still to choose is >= f, so the spread is at least f - smallest.
      if (slot < k_ - 1 && f - smallest > best_spread_) break;
      if (!power_fits(f, slot + 1, rest)) break;  // slot+1 extents >= f must fit in rest
      if (rest % f != 0) continue;
      trial_[slot] = f;
      place(rest / f, slot - 1, f);
    }
  }

  // The last two extents: the most balanced pair a >= b >= floor with a * b = rest.
  void take_pair(int rest, int floor) {
    int b = 0;
    for (int d : divs_) {
      if (static_cast<long long>(d) * d > rest) break;
      if (d >= floor && rest % d == 0) b = d;
    }
    if (b == 0) return;  // no pair with both extents >= floor
    trial_[1] = b;
    trial_[0] = rest / b;
    const int spread = trial_[0] - trial_[k_ - 1];
    if (spread <= best_spread_) {  // ties: the later candidate wins
      best_spread_ = spread;
      best_ = trial_;
    }
  }

  std::vector<int> divs_;
  int k_;
  std::vector<int> trial_;
  std::vector<int> best_;
  int best_spread_ = INT_MAX;
};

}  // namespace

std::vector<int> balanced_dims(int n, int k) {
  if (k <= 0) return {};
  if (k == 1 || n == 1) {
    std::vector<int> out(static_cast<std::size_t>(k), 1);
    out[0] = n;
    return out;
  }
  std::vector<PrimePower> primes = factorize(n);
  std::vector<int> out;  // leading (largest) extents fixed so far
  // A prime above the square root of what is left can only stand alone in the largest
  // dimension: place such primes first (largest first), keeping at least one dimension and
  // the smallest prime for the rest.
  while (static_cast<int>(out.size()) < k - 1 && primes.size() > 1) {
    const PrimePower& top = primes.back();
    if (top.count != 1 || static_cast<long long>(top.prime) * top.prime <= n) break;
    out.push_back(top.prime);
    n /= top.prime;
    primes.pop_back();
  }
  const int left = k - static_cast<int>(out.size());
  int nprimes = 0;
  for (const PrimePower& p : primes) nprimes += p.count;

  if (nprimes <= left) {  // one prime per dimension, largest first, then 1s
    for (auto it = primes.rbegin(); it != primes.rend(); ++it) {
      for (int c = 0; c < it->count; ++c) out.push_back(it->prime);
    }
    out.resize(static_cast<std::size_t>(k), 1);
    return out;
  }
  if (left == 1) {
    out.push_back(n);
    return out;
  }
  if (primes.size() == 1) {  // p^c: hand out the powers round robin, earlier dims first
    std::vector<int> part(static_cast<std::size_t>(left), 1);
    for (int c = 0; c < primes[0].count; ++c) part[static_cast<std::size_t>(c % left)] *= primes[0].prime;
    out.insert(out.end(), part.begin(), part.end());
    return out;
  }
  bool equal_split = true;
  for (const PrimePower& p : primes) equal_split = equal_split && p.count % left == 0;
  if (equal_split) {  // n is a perfect left-th power
    int root = 1;
    for (const PrimePower& p : primes) {
      for (int c = 0; c < p.count / left; ++c) root *= p.prime;
    }
    out.insert(out.end(), static_cast<std::size_t>(left), root);
    return out;
  }
  std::vector<int> part = BalancedSearch(n, left).run(n);
  out.insert(out.end(), part.begin(), part.end());
  return out;
}

}  // namespace ftmpi
