// Runs a collective on simulated ranks (one thread each, over FakeWorld) and provides the
// communicator layouts, algorithm tunings and typed test data the collective tests share.
// Catch2 assertions are not thread-safe, so rank threads only record; checks happen after.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fake_p2p.h"
#include "ftmpi/coll/collectives.h"
#include "ftmpi/coll/tuning.h"

namespace ftmpi::coll::testing {

// A communicator: its extent and the ranks that take part (fewer for a BLANK one).
struct Layout {
  std::string name;
  int comm_size;
  std::vector<int> members;
};

// Dense communicators of every size 1..9 and a few odd, power-of-two and non-power-of-two
// larger ones up to `max_size`, plus BLANK-style layouts with gaps.
std::vector<Layout> layouts(int max_size);
View view_of(const Layout& l, int rank);

struct Outcome {
  std::vector<Status> status;  // one per member, in member order
  bool hung = false;
  std::string protocol_error;  // also reports requests left uncompleted
  bool all_ok() const;
  bool all_failed() const;  // every member returned non-ok
};

using RankBody = std::function<Status(const View&, P2P&)>;

// One thread per member runs body; `setup` may arm failures before the threads start.
Outcome run(const Layout& l, const RankBody& body,
            const std::function<void(FakeWorld&)>& setup = nullptr);

// Tunings that force each algorithm on small test messages.
struct NamedTuning {
  std::string name;
  Tuning tuning;
};
std::vector<NamedTuning> tunings();

// Sets the tuning for one scope, restoring the defaults after.
class ScopedTuning {
 public:
  explicit ScopedTuning(const Tuning& t) { set_tuning(t); }
  ~ScopedTuning() { set_tuning(Tuning{}); }
};

// A reduction under test: how to describe it, make each rank's input, and compare results.
struct ReductionCase {
  std::string name;
  std::function<Reduction(std::size_t count)> make;
  std::function<std::vector<unsigned char>(int rank, std::size_t count)> input;
  std::function<bool(const unsigned char*, const unsigned char*, std::size_t count)> same;
};

ReductionCase predefined_case(Op op, Kind kind);
// 2x2 matrices of uint64 multiplied mod 2^64: associative, not commutative, so any
// deviation from rank order changes the result.
ReductionCase matrix_case();
// An int sum given as a user function that declares itself commutative.
ReductionCase user_sum_case();
std::vector<ReductionCase> reduction_cases();

// x(m0) op x(m1) op ... in member order, computed serially with the case's own combine.
std::vector<unsigned char> fold(const Reduction& r, const std::vector<std::vector<unsigned char>>& inputs,
                                const std::vector<int>& ranks);

// Deterministic bytes for block-moving collectives.
std::vector<unsigned char> pattern(int rank, int peer, std::size_t bytes);

constexpr unsigned char kUntouched = 0xEE;

}  // namespace ftmpi::coll::testing
