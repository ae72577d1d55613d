// Failure readiness: a participant dies at some point of a collective (synchronously at its
// k-th point-to-point call, or silently before it starts, detected a little later). Every
// member must return, nobody may hang, and a member that reports success must hold correct
// data; where every member's result depends on the dead one's input, all must fail.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <thread>

#include "harness.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

namespace {

constexpr std::size_t kBlock = 8;
constexpr std::size_t kCount = 4;  // ints

struct Collective {
  const char* name;
  bool needs_everyone;  // every member's output depends on every member's input
  // Runs the collective for `me`; `check` is set to whether the output is right (valid only
  // when the collective returned ok).
  std::function<Status(const View&, P2P&, int root, bool* right)> run;
};

std::vector<unsigned char> ints(int rank) {
  std::vector<unsigned char> b(kCount * sizeof(int));
  for (std::size_t i = 0; i < kCount; ++i) {
    const int v = rank * 10 + static_cast<int>(i);
    std::memcpy(b.data() + i * sizeof(int), &v, sizeof v);
  }
  return b;
}

std::vector<unsigned char> int_sum(const View& v) {
  std::vector<unsigned char> b(kCount * sizeof(int));
  for (std::size_t i = 0; i < kCount; ++i) {
    int s = 0;
    for (int m : v.members) s += m * 10 + static_cast<int>(i);
    std::memcpy(b.data() + i * sizeof(int), &s, sizeof s);
  }
  return b;
}

Reduction sum_of_ints() {
  Reduction r;
  (void)predefined_reduction(Op::sum, Kind::c_int, kCount, &r);
  return r;
}

std::vector<Collective> collectives() {
  using B = std::vector<unsigned char>;
  using Z = std::vector<std::size_t>;
  return {
      {"barrier", true, [](const View& v, P2P& p, int, bool* ok) {
         *ok = true;
         return barrier(v, p);
       }},
      {"bcast", false, [](const View& v, P2P& p, int root, bool* ok) {
         B b = v.my_rank == root ? pattern(root, 0, 100) : B(100, 0);
         Status s = bcast(v, p, b.data(), b.size(), root);
         *ok = b == pattern(root, 0, 100);
         return s;
       }},
      // Every member hears from every member: a silent member fails them all (ATOMIC settle).
      {"bcast_from_everyone", true, [](const View& v, P2P& p, int root, bool* ok) {
         B b = v.my_rank == root ? pattern(root, 0, 100) : B(100, 0);
         Status s = bcast_from_everyone(v, p, b.data(), b.size(), root);
         *ok = b == pattern(root, 0, 100);
         return s;
       }},
      {"reduce", false, [](const View& v, P2P& p, int root, bool* ok) {
         B in = ints(v.my_rank), out(in.size(), 0);
         Status s = reduce(v, p, in.data(), out.data(), sum_of_ints(), root);
         *ok = v.my_rank != root || out == int_sum(v);
         return s;
       }},
      {"allreduce", true, [](const View& v, P2P& p, int, bool* ok) {
         B in = ints(v.my_rank), out(in.size(), 0);
         Status s = allreduce(v, p, in.data(), out.data(), sum_of_ints());
         *ok = out == int_sum(v);
         return s;
       }},
      {"reduce_scatter", true, [](const View& v, P2P& p, int, bool* ok) {
         Z counts(v.comm_size, 1);
         B in(v.comm_size * sizeof(int), 1), out(sizeof(int), 0);
         Reduction r = sum_of_ints();
         *ok = true;
         return reduce_scatter(v, p, in.data(), out.data(), counts.data(), r);
       }},
      {"scan", false, [](const View& v, P2P& p, int, bool* ok) {
         B in = ints(v.my_rank), out(in.size(), 0);
         *ok = true;
         return scan(v, p, in.data(), out.data(), sum_of_ints());
       }},
      {"gather", false, [](const View& v, P2P& p, int root, bool* ok) {
         B in = pattern(v.my_rank, 0, kBlock), out(v.comm_size * kBlock, 0);
         Status s = gather(v, p, in.data(), kBlock, out.data(), root);
         *ok = true;
         if (v.my_rank == root)
           for (int m : v.members)
             *ok = *ok && B(out.begin() + m * kBlock, out.begin() + (m + 1) * kBlock) ==
                              pattern(m, 0, kBlock);
         return s;
       }},
      {"gatherv", false, [](const View& v, P2P& p, int root, bool* ok) {
         Z counts(v.comm_size, kBlock), displs(v.comm_size);
         for (int c = 0; c < v.comm_size; ++c) displs[c] = c * kBlock;
         B in(kBlock, 1), out(v.comm_size * kBlock, 0);
         *ok = true;
         return gatherv(v, p, in.data(), kBlock, out.data(), counts.data(), displs.data(), root);
       }},
      {"scatter", false, [](const View& v, P2P& p, int root, bool* ok) {
         B in(v.comm_size * kBlock, 0), out(kBlock, 0);
         for (int c = 0; c < v.comm_size; ++c) {
           B q = pattern(c, 1, kBlock);
           std::copy(q.begin(), q.end(), in.begin() + c * kBlock);
         }
         Status s = scatter(v, p, in.data(), kBlock, out.data(), root);
         *ok = out == pattern(v.my_rank, 1, kBlock);
         return s;
       }},
      {"scatterv", false, [](const View& v, P2P& p, int root, bool* ok) {
         Z counts(v.comm_size, kBlock), displs(v.comm_size);
         for (int c = 0; c < v.comm_size; ++c) displs[c] = c * kBlock;
         B in(v.comm_size * kBlock, 1), out(kBlock, 0);
         *ok = true;
         return scatterv(v, p, in.data(), counts.data(), displs.data(), out.data(), kBlock, root);
       }},
      {"allgather", true, [](const View& v, P2P& p, int, bool* ok) {
         B in = pattern(v.my_rank, 2, kBlock), out(v.comm_size * kBlock, 0);
         Status s = allgather(v, p, in.data(), kBlock, out.data());
         *ok = true;
         for (int m : v.members)
           *ok = *ok && B(out.begin() + m * kBlock, out.begin() + (m + 1) * kBlock) ==
                            pattern(m, 2, kBlock);
         return s;
       }},
      {"allgatherv", true, [](const View& v, P2P& p, int, bool* ok) {
         Z counts(v.comm_size, kBlock), displs(v.comm_size);
         for (int c = 0; c < v.comm_size; ++c) displs[c] = c * kBlock;
         B in(kBlock, 1), out(v.comm_size * kBlock, 0);
         *ok = true;
         return allgatherv(v, p, in.data(), out.data(), counts.data(), displs.data());
       }},
      {"alltoall", true, [](const View& v, P2P& p, int, bool* ok) {
         B in(v.comm_size * kBlock, 1), out(v.comm_size * kBlock, 0);
         *ok = true;
         return alltoall(v, p, in.data(), kBlock, out.data());
       }},
      {"alltoallv", true, [](const View& v, P2P& p, int, bool* ok) {
         Z counts(v.comm_size, kBlock), displs(v.comm_size);
         for (int c = 0; c < v.comm_size; ++c) displs[c] = c * kBlock;
         B in(v.comm_size * kBlock, 1), out(v.comm_size * kBlock, 0);
         *ok = true;
         return alltoallv(v, p, in.data(), counts.data(), displs.data(), out.data(),
                          counts.data(), displs.data());
       }},
  };
}

std::vector<Layout> failure_layouts() {
  std::vector<Layout> out;
  for (const Layout& l : layouts(17)) {
    if (l.members.size() < 2) continue;
    const int n = l.comm_size;
    if (n == 2 || n == 3 || n == 5 || n == 8 || n == 9 || n == 17 || l.name.rfind("blank", 0) == 0)
      out.push_back(l);
  }
  return out;
}

std::vector<int> victims_of(const Layout& l) {
  return {l.members.front(), l.members[l.members.size() / 2], l.members.back()};
}

}  // namespace

TEST_CASE("a member killed mid-collective makes it return everywhere", "[failure]") {
  for (const auto& t : tunings()) {
    ScopedTuning scope(t.tuning);
    for (const Collective& coll : collectives()) {
      for (const Layout& l : failure_layouts()) {
        const int root = l.members[l.members.size() > 2 ? 1 : 0];
        for (int victim : victims_of(l)) {
          for (int call : {0, 1, 3}) {
            INFO(t.name << ", " << coll.name << ", " << l.name << ", victim " << victim
                        << " at call " << call);
            std::vector<char> right(l.comm_size, 0);
            Outcome o = run(
                l,
                [&](const View& v, P2P& p2p) {
                  bool ok = false;
                  Status s = coll.run(v, p2p, root, &ok);
                  right[v.my_rank] = ok;
                  return s;
                },
                [&](FakeWorld& w) { w.fail_at_call(victim, call); });
            CHECK_FALSE(o.hung);
            CHECK(o.protocol_error == "");
            for (std::size_t k = 0; k < l.members.size(); ++k) {
              const int r = l.members[k];
              INFO("rank " << r);
              CHECK((o.status[k] == Status::ok || o.status[k] == Status::proc_failed));
              if (o.status[k] == Status::ok) CHECK(right[r]);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a member that never arrives is detected and nobody hangs", "[failure]") {
  for (const Collective& coll : collectives()) {
    for (const Layout& l : failure_layouts()) {
      const int root = l.members.front();
      for (int victim : victims_of(l)) {
        INFO(coll.name << ", " << l.name << ", victim " << victim);
        FakeWorld* world = nullptr;
        std::vector<char> right(l.comm_size, 0);
        Outcome o = run(
            l,
            [&](const View& v, P2P& p2p) {
              if (v.my_rank == victim) {
                // Dies before calling; the failure detector notices a moment later, while
                // the others are blocked.
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                world->fail(victim);
                return Status::proc_failed;
              }
              bool ok = false;
              Status s = coll.run(v, p2p, root, &ok);
              right[v.my_rank] = ok;
              return s;
            },
            [&](FakeWorld& w) { world = &w; });
        CHECK_FALSE(o.hung);
        CHECK(o.protocol_error == "");
        for (std::size_t k = 0; k < l.members.size(); ++k) {
          const int r = l.members[k];
          INFO("rank " << r);
          if (coll.needs_everyone || r == root) {
            // Root of a rooted collective: its result needs the victim (or it is the victim).
            const bool root_depends = std::string(coll.name) != "scatter" &&
                                      std::string(coll.name) != "scatterv" &&
                                      std::string(coll.name) != "bcast" &&
                                      std::string(coll.name) != "scan";
            if (coll.needs_everyone || root_depends) CHECK(o.status[k] != Status::ok);
          }
          if (o.status[k] == Status::ok) CHECK(right[r]);
        }
      }
    }
  }
}
