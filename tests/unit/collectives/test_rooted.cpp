// Rooted collectives (bcast, reduce, gather(v), scatter(v)) on every layout, several roots,
// every algorithm, in place and not, checking values and that no gap slot is touched.
#include <catch2/catch.hpp>

#include <cstring>

#include "harness.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

namespace {

std::vector<int> roots_of(const Layout& l) {
  std::vector<int> r = {l.members.front(), l.members.back(), l.members[l.members.size() / 2]};
  if (l.members.size() > 4) r.push_back(l.members[1]);
  return r;
}

bool is_member(const Layout& l, int r) {
  for (int m : l.members)
    if (m == r) return true;
  return false;
}

void require_clean(const Outcome& o) {
  CHECK_FALSE(o.hung);
  CHECK(o.protocol_error == "");
  for (Status s : o.status) CHECK(s == Status::ok);
}

// Every member of `l` runs `broadcast` from each of the layout's roots for each size (the
// root's bytes are pattern(root, seed, size)); every member must end with the root's bytes.
template <typename Broadcast>
void check_bcast_from_roots(const Layout& l, const std::vector<std::size_t>& sizes, int seed,
                            Broadcast broadcast) {
  const auto roots = roots_of(l);
  // buf[rank][case]; case = (root index, size index)
  std::vector<std::vector<std::vector<unsigned char>>> buf(l.comm_size);
  for (int r : l.members) {
    for (int root : roots) {
      for (std::size_t bytes : sizes) {
        buf[r].push_back(r == root ? pattern(root, seed, bytes)
                                   : std::vector<unsigned char>(bytes, kUntouched));
      }
    }
  }
  Outcome o = run(l, [&](const View& v, P2P& p2p) {
    int k = 0;
    for (int root : roots) {
      for (std::size_t bytes : sizes) {
        Status s = broadcast(v, p2p, buf[v.my_rank][k++].data(), bytes, root);
        if (s != Status::ok) return s;
      }
    }
    return Status::ok;
  });
  require_clean(o);
  for (int r : l.members) {
    int k = 0;
    for (int root : roots) {
      for (std::size_t bytes : sizes) {
        INFO("rank " << r << " root " << root << " bytes " << bytes);
        CHECK(buf[r][k++] == pattern(root, seed, bytes));
      }
    }
  }
}

}  // namespace

TEST_CASE("bcast gives every member the root's bytes", "[bcast]") {
  for (const auto& t : tunings()) {
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      check_bcast_from_roots(l, {0, 1, 6, 64, 1001}, 1, bcast);
    }
  }
}

TEST_CASE("bcast_from_everyone gives every member the root's bytes", "[bcast]") {
  for (const auto& l : layouts(64)) {
    INFO(l.name);
    check_bcast_from_roots(l, {0, 1, 8, 1001}, 2, bcast_from_everyone);
  }
}

TEST_CASE("reduce combines in rank order at any root, in place or not", "[reduce]") {
  const auto cases = reduction_cases();
  const std::size_t counts[] = {1, 5};
  for (const auto& l : layouts(33)) {
    INFO(l.name);
    const auto roots = roots_of(l);
    struct Item {
      std::size_t c, count;
      int root;
      bool in_place;
    };
    std::vector<Item> items;
    for (std::size_t c = 0; c < cases.size(); ++c)
      for (std::size_t count : counts)
        for (int root : roots)
          for (bool ip : {false, true}) items.push_back({c, count, root, ip});
    // inputs[item][rank], outputs[item][rank]
    std::vector<std::vector<std::vector<unsigned char>>> in(items.size()), out(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      in[i].resize(l.comm_size);
      out[i].resize(l.comm_size);
      for (int r : l.members) {
        in[i][r] = cases[items[i].c].input(r, items[i].count);
        const std::size_t bytes = in[i][r].size();
        out[i][r] = (items[i].in_place && r == items[i].root)
                        ? in[i][r]
                        : std::vector<unsigned char>(bytes, kUntouched);
      }
    }
    Outcome o = run(l, [&](const View& v, P2P& p2p) {
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Item& it = items[i];
        const Reduction red = cases[it.c].make(it.count);
        const bool ip = it.in_place && v.my_rank == it.root;
        Status s = reduce(v, p2p, ip ? in_place : in[i][v.my_rank].data(),
                          out[i][v.my_rank].data(), red, it.root);
        if (s != Status::ok) return s;
      }
      return Status::ok;
    });
    require_clean(o);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Item& it = items[i];
      const ReductionCase& rc = cases[it.c];
      const Reduction red = rc.make(it.count);
      const auto expect = fold(red, in[i], l.members);
      INFO(rc.name << " count " << it.count << " root " << it.root << " in place " << it.in_place);
      CHECK(rc.same(out[i][it.root].data(), expect.data(), it.count));
      for (int r : l.members) {
        if (r != it.root) CHECK(out[i][r] == std::vector<unsigned char>(red.bytes(), kUntouched));
      }
    }
  }
}

TEST_CASE("gather and scatter move each member's block, leaving gaps alone", "[gather][scatter]") {
  const std::size_t blocks[] = {1, 24};
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      const auto roots = roots_of(l);
      const int n = l.comm_size;
      struct Item {
        std::size_t block;
        int root;
        bool in_place;
      };
      std::vector<Item> items;
      for (std::size_t b : blocks)
        for (int root : roots)
          for (bool ip : {false, true}) items.push_back({b, root, ip});
      // gathered[item][rank] (slots), scattered[item][rank] (one block)
      std::vector<std::vector<std::vector<unsigned char>>> gathered(items.size()),
          scattered(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        gathered[i].assign(n, {});
        scattered[i].assign(n, {});
        const std::size_t b = items[i].block;
        for (int r : l.members) {
          gathered[i][r].assign(n * b, kUntouched);
          scattered[i][r].assign(b, kUntouched);
          if (items[i].in_place && r == items[i].root) {
            auto mine = pattern(r, 0, b);
            std::memcpy(gathered[i][r].data() + r * b, mine.data(), b);
          }
        }
      }
      // The root scatters the slots it gathered, so scatter checks against the same pattern.
      Outcome o = run(l, [&](const View& v, P2P& p2p) {
        const int me = v.my_rank;
        for (std::size_t i = 0; i < items.size(); ++i) {
          const Item& it = items[i];
          const bool ip = it.in_place && me == it.root;
          const auto mine = pattern(me, 0, it.block);
          Status s = gather(v, p2p, ip ? in_place : mine.data(), it.block,
                            gathered[i][me].data(), it.root);
          if (s == Status::ok) {
            s = scatter(v, p2p, gathered[i][me].data(), it.block,
                        ip ? in_place : scattered[i][me].data(), it.root);
          }
          if (s != Status::ok) return s;
        }
        return Status::ok;
      });
      require_clean(o);
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Item& it = items[i];
        const std::size_t b = it.block;
        INFO("block " << b << " root " << it.root << " in place " << it.in_place);
        for (int c = 0; c < n; ++c) {
          const auto slot = std::vector<unsigned char>(gathered[i][it.root].begin() + c * b,
                                                       gathered[i][it.root].begin() + (c + 1) * b);
          if (is_member(l, c)) {
            CHECK(slot == pattern(c, 0, b));
          } else {
            CHECK(slot == std::vector<unsigned char>(b, kUntouched));
          }
        }
        for (int r : l.members) {
          if (r == it.root && it.in_place) {
            CHECK(scattered[i][r] == std::vector<unsigned char>(b, kUntouched));
          } else {
            CHECK(scattered[i][r] == pattern(r, 0, b));
          }
        }
      }
    }
  }
}

TEST_CASE("gatherv and scatterv honour per-rank counts and displacements", "[gather][scatter]") {
  for (const auto& l : layouts(33)) {
    INFO(l.name);
    const int n = l.comm_size;
    // Rank c contributes (c * 5) % 7 bytes (zero for some), stored in reverse rank order with
    // a one-byte hole between blocks.
    std::vector<std::size_t> counts(n), displs(n);
    std::size_t at = 0;
    for (int c = n - 1; c >= 0; --c) {
      counts[c] = (c * 5) % 7;
      displs[c] = at;
      at += counts[c] + 1;
    }
    const std::size_t total = at;
    for (int root : roots_of(l)) {
      for (bool ip : {false, true}) {
        INFO("root " << root << " in place " << ip);
        std::vector<std::vector<unsigned char>> gathered(n), scattered(n);
        for (int r : l.members) {
          gathered[r].assign(total, kUntouched);
          scattered[r].assign(counts[r], kUntouched);
        }
        if (ip) {
          auto mine = pattern(root, 2, counts[root]);
          std::copy(mine.begin(), mine.end(), gathered[root].begin() + displs[root]);
        }
        Outcome o = run(l, [&](const View& v, P2P& p2p) {
          const int me = v.my_rank;
          const bool here = ip && me == root;
          const auto mine = pattern(me, 2, counts[me]);
          const bool at_root = me == root;
          Status s = gatherv(v, p2p, here ? in_place : mine.data(), counts[me],
                             gathered[me].data(), at_root ? counts.data() : nullptr,
                             at_root ? displs.data() : nullptr, root);
          if (s != Status::ok) return s;
          return scatterv(v, p2p, gathered[me].data(), at_root ? counts.data() : nullptr,
                          at_root ? displs.data() : nullptr,
                          here ? in_place : scattered[me].data(), counts[me],
                          root);
        });
        require_clean(o);
        for (int c = 0; c < n; ++c) {
          std::vector<unsigned char> slot(gathered[root].begin() + displs[c],
                                          gathered[root].begin() + displs[c] + counts[c] + 1);
          std::vector<unsigned char> expect = is_member(l, c)
                                                  ? pattern(c, 2, counts[c])
                                                  : std::vector<unsigned char>(counts[c], kUntouched);
          expect.push_back(kUntouched);  // the hole
          CHECK(slot == expect);
        }
        for (int r : l.members) {
          if (r == root && ip) continue;
          CHECK(scattered[r] == pattern(r, 2, counts[r]));
        }
      }
    }
  }
}
