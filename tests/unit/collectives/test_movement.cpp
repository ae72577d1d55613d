// Non-reducing symmetric collectives: barrier, allgather(v), alltoall(v), on every layout and
// algorithm, in place and not; gap slots must stay untouched.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "harness.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

namespace {

void require_clean(const Outcome& o) {
  CHECK_FALSE(o.hung);
  CHECK(o.protocol_error == "");
  for (Status s : o.status) CHECK(s == Status::ok);
}

bool is_member(const Layout& l, int r) {
  return std::find(l.members.begin(), l.members.end(), r) != l.members.end();
}

std::vector<unsigned char> slice(const std::vector<unsigned char>& b, std::size_t at,
                                 std::size_t len) {
  return std::vector<unsigned char>(b.begin() + at, b.begin() + at + len);
}

}  // namespace

// Barrier's algorithms: direct (defaults: up to 4 members), fan-in/fan-out (5 to 8),
// dissemination (above; and at every size under the long-message tuning).
TEST_CASE("barrier completes on every layout, many times in a row", "[barrier]") {
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      Outcome o = run(l, [&](const View& v, P2P& p2p) {
        for (int i = 0; i < 5; ++i)
          if (Status s = barrier(v, p2p); s != Status::ok) return s;
        return Status::ok;
      });
      require_clean(o);
    }
  }
}

TEST_CASE("barrier does not let anyone through before everyone arrived", "[barrier]") {
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const Layout& l : layouts(17)) {
      if (l.name != "dense 4" && l.name != "dense 7" && l.name != "dense 16" &&
          l.name != "blank 6 of 10") {
        continue;
      }
      for (int late : l.members) {
        INFO(t.name << ", " << l.name << ", late " << late);
        std::atomic<int> arrived{0};
        std::atomic<bool> early{false};
        Outcome o = run(l, [&](const View& v, P2P& p2p) {
          if (v.my_rank == late) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          arrived++;
          Status s = barrier(v, p2p);
          if (arrived.load() != static_cast<int>(l.members.size())) early = true;
          return s;
        });
        require_clean(o);
        CHECK_FALSE(early.load());
      }
    }
  }
}

TEST_CASE("allgather and allgatherv fill every member's slots", "[allgather]") {
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      const int n = l.comm_size;
      std::vector<std::size_t> counts(n), displs(n);
      std::size_t total = 0;
      for (int c = 0; c < n; ++c) {  // blocks of varied size, some empty, reversed, with holes
        counts[c] = (c * 7) % 5;
      }
      for (int c = n - 1; c >= 0; --c) {
        displs[c] = total;
        total += counts[c] + 1;
      }
      for (std::size_t block : {std::size_t{1}, std::size_t{13}, std::size_t{300}}) {
        for (bool ip : {false, true}) {
          INFO("block " << block << " in place " << ip);
          std::vector<std::vector<unsigned char>> fixed(n), varied(n);
          for (int r : l.members) {
            fixed[r].assign(n * block, kUntouched);
            varied[r].assign(total, kUntouched);
            if (ip) {
              auto a = pattern(r, 3, block), b = pattern(r, 4, counts[r]);
              std::copy(a.begin(), a.end(), fixed[r].begin() + r * block);
              std::copy(b.begin(), b.end(), varied[r].begin() + displs[r]);
            }
          }
          Outcome o = run(l, [&](const View& v, P2P& p2p) {
            const int me = v.my_rank;
            const auto a = pattern(me, 3, block), b = pattern(me, 4, counts[me]);
            Status s = allgather(v, p2p, ip ? in_place : a.data(), block, fixed[me].data());
            if (s != Status::ok) return s;
            return allgatherv(v, p2p, ip ? in_place : b.data(), varied[me].data(), counts.data(),
                              displs.data());
          });
          require_clean(o);
          for (int r : l.members) {
            for (int c = 0; c < n; ++c) {
              INFO("rank " << r << " slot " << c);
              const bool m = is_member(l, c);
              CHECK(slice(fixed[r], c * block, block) ==
                    (m ? pattern(c, 3, block) : std::vector<unsigned char>(block, kUntouched)));
              auto expect = m ? pattern(c, 4, counts[c])
                              : std::vector<unsigned char>(counts[c], kUntouched);
              expect.push_back(kUntouched);
              CHECK(slice(varied[r], displs[c], counts[c] + 1) == expect);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("alltoall delivers every pair's block", "[alltoall]") {
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      const int n = l.comm_size;
      const std::size_t block = 3;
      for (bool ip : {false, true}) {
        INFO("in place " << ip);
        std::vector<std::vector<unsigned char>> send(n), recv(n);
        for (int r : l.members) {
          send[r].assign(n * block, kUntouched);
          recv[r].assign(n * block, kUntouched);
          for (int d : l.members) {
            auto p = pattern(r, d, block);
            std::copy(p.begin(), p.end(), (ip ? recv : send)[r].begin() + d * block);
          }
        }
        Outcome o = run(l, [&](const View& v, P2P& p2p) {
          const int me = v.my_rank;
          return alltoall(v, p2p, ip ? in_place : send[me].data(), block, recv[me].data());
        });
        require_clean(o);
        for (int r : l.members) {
          for (int s = 0; s < n; ++s) {
            INFO("rank " << r << " from " << s);
            CHECK(slice(recv[r], s * block, block) ==
                  (is_member(l, s) ? pattern(s, r, block)
                                   : std::vector<unsigned char>(block, kUntouched)));
          }
        }
      }
    }
  }
}

TEST_CASE("alltoallv honours per-pair counts and displacements", "[alltoall]") {
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      const int n = l.comm_size;
      for (bool ip : {false, true}) {
        INFO("in place " << ip);
        // Bytes from s to d, some zero. In place, one layout serves both directions, so MPI
        // needs symmetric amounts there.
        auto amount = [ip](int s, int d) {
          return static_cast<std::size_t>(ip ? (s + d) % 4 : (s + 2 * d) % 4);
        };
        std::vector<std::vector<unsigned char>> send(n), recv(n);
        std::vector<std::vector<std::size_t>> sc(n), sd(n), rc(n), rd(n);
        for (int r : l.members) {
          sc[r].assign(n, 0);
          sd[r].assign(n, 0);
          rc[r].assign(n, 0);
          rd[r].assign(n, 0);
          std::size_t s_at = 0, r_at = 0;
          for (int d = n - 1; d >= 0; --d) {  // reversed, with holes
            sc[r][d] = amount(r, d);
            sd[r][d] = s_at;
            s_at += sc[r][d] + 1;
            rc[r][d] = amount(d, r);
            rd[r][d] = r_at;
            r_at += rc[r][d] + 2;
          }
          send[r].assign(s_at, kUntouched);
          recv[r].assign(r_at, kUntouched);
          for (int d : l.members) {
            auto q = pattern(r, d + 100, amount(r, d));
            if (ip) {
              std::copy(q.begin(), q.end(), recv[r].begin() + rd[r][d]);
            } else {
              std::copy(q.begin(), q.end(), send[r].begin() + sd[r][d]);
            }
          }
        }
        Outcome o = run(l, [&](const View& v, P2P& p2p) {
          const int me = v.my_rank;
          if (ip) {
            return alltoallv(v, p2p, in_place, nullptr, nullptr, recv[me].data(), rc[me].data(),
                             rd[me].data());
          }
          return alltoallv(v, p2p, send[me].data(), sc[me].data(), sd[me].data(), recv[me].data(),
                           rc[me].data(), rd[me].data());
        });
        require_clean(o);
        for (int r : l.members) {
          for (int s = 0; s < n; ++s) {
            INFO("rank " << r << " from " << s);
            auto expect = is_member(l, s) ? pattern(s, r + 100, rc[r][s])
                                          : std::vector<unsigned char>(rc[r][s], kUntouched);
            expect.push_back(kUntouched);
            CHECK(slice(recv[r], rd[r][s], rc[r][s] + 1) == expect);
          }
        }
      }
    }
  }
}
