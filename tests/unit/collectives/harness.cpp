#include "harness.h"

#include <cstring>
#include <thread>

namespace ftmpi::coll::testing {

std::vector<Layout> layouts(int max_size) {
  std::vector<Layout> out;
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 31, 33, 64}) {
    if (n > max_size) continue;
    Layout l{"dense " + std::to_string(n), n, {}};
    for (int r = 0; r < n; ++r) l.members.push_back(r);
    out.push_back(l);
  }
  out.push_back({"blank 6 of 10", 10, {0, 2, 3, 5, 6, 9}});
  out.push_back({"blank 3 of 8", 8, {1, 4, 7}});
  out.push_back({"blank 1 of 5", 5, {3}});
  if (max_size >= 20) {
    Layout l{"blank odd of 24", 24, {}};
    for (int r = 1; r < 24; r += 2) l.members.push_back(r);
    out.push_back(l);
  }
  return out;
}

View view_of(const Layout& l, int rank) {
  View v;
  v.members = l.members;
  v.my_rank = rank;
  v.comm_size = l.comm_size;
  return v;
}

bool Outcome::all_ok() const {
  for (Status s : status)
    if (s != Status::ok) return false;
  return !hung && protocol_error.empty();
}

bool Outcome::all_failed() const {
  for (Status s : status)
    if (s == Status::ok) return false;
  return true;
}

Outcome run(const Layout& l, const RankBody& body, const std::function<void(FakeWorld&)>& setup) {
  FakeWorld world(l.comm_size, l.members);
  if (setup) setup(world);
  Outcome out;
  out.status.assign(l.comm_size, Status::ok);
  std::vector<std::thread> threads;
  threads.reserve(l.members.size());
  for (int r : l.members) {
    threads.emplace_back([&, r] {
      const View v = view_of(l, r);
      out.status[r] = body(v, world.endpoint(r));
    });
  }
  for (auto& t : threads) t.join();
  out.hung = world.hung();
  out.protocol_error = world.protocol_error();
  if (out.protocol_error.empty() && world.leaked_requests() > 0) {
    out.protocol_error = std::to_string(world.leaked_requests()) + " requests never completed";
  }
  std::vector<Status> members_only;
  for (int r : l.members) members_only.push_back(out.status[r]);
  out.status = members_only;
  return out;
}

std::vector<NamedTuning> tunings() {
  Tuning small;  // defaults: test messages are short, so the short-message algorithms
  Tuning large;
  large.bcast_large = 1;
  large.bcast_pipeline = ~std::size_t{0};
  large.allreduce_large = 1;
  large.reduce_scatter_large = 1;
  large.gather_large = 1;
  large.scatter_large = 1;
  large.allgather_large = 1;
  large.alltoall_large = 1;
  large.barrier_fan = 0;  // dissemination and recursive doubling at every size
  large.allreduce_fan = 0;
  large.alltoall_fan = 0;
  large.allgather_fan = 0;
  large.direct_members = 0;
  Tuning fan;  // fan-in/fan-out at every member count (the defaults use it for few only)
  fan.barrier_fan = ~std::size_t{0};
  fan.allreduce_fan = ~std::size_t{0};
  fan.alltoall_fan = ~std::size_t{0};
  fan.allgather_fan = ~std::size_t{0};
  fan.direct_members = 0;
  Tuning direct;  // every member messaged directly at every member count (defaults: up to 4)
  direct.direct_members = ~std::size_t{0};
  direct.allgather_direct = ~std::size_t{0};  // longer blocks too (ranks sharing cores)
  direct.allreduce_direct = ~std::size_t{0};  // and long allreduces (from 2 KiB)
  Tuning chain = large;
  chain.bcast_pipeline = 1;
  chain.bcast_segment = 7;  // odd, so the last segment is short
  return {{"short-message algorithms", small},
          {"long-message algorithms", large},
          {"pipelined bcast", chain},
          {"fan-in/fan-out", fan},
          {"direct to every member", direct}};
}

namespace {

template <class T>
void put(std::vector<unsigned char>& b, std::size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}
template <class T>
T get(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Small values, so sums stay exact in floating point; varied per rank and element.
long base_value(int rank, std::size_t i) {
  return static_cast<long>((rank * 7 + i * 3 + rank * i) % 11) - 3;
}

template <class T>
void fill_scalars(std::vector<unsigned char>& b, int rank, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) put<T>(b, i * sizeof(T), static_cast<T>(base_value(rank, i)));
}

// Pair elements: padding stays zero, so results compare bytewise.
template <class V>
void fill_pairs(std::vector<unsigned char>& b, int rank, std::size_t count, std::size_t size,
                std::size_t index_at) {
  for (std::size_t i = 0; i < count; ++i) {
    put<V>(b, i * size, static_cast<V>((rank * 5 + i) % 7));  // ties across ranks happen
    put<int>(b, i * size + index_at, rank);
  }
}

// long double carries 6 bytes of padding that stores leave undefined: compare values.
bool same_long_double(const unsigned char* a, const unsigned char* b, std::size_t count,
                      std::size_t size) {
  for (std::size_t i = 0; i < count; ++i) {
    if (get<long double>(a + i * size) != get<long double>(b + i * size)) return false;
    if (size > sizeof(long double) &&
        get<int>(a + i * size + 16) != get<int>(b + i * size + 16)) {
      return false;
    }
  }
  return true;
}

}  // namespace

ReductionCase predefined_case(Op op, Kind kind) {
  static const char* op_names[] = {"max", "min",  "sum", "prod", "land",   "band",
                                   "lor", "bor", "lxor", "bxor", "maxloc", "minloc"};
  ReductionCase c;
  c.name = std::string(op_names[static_cast<int>(op)]) + " kind " +
           std::to_string(static_cast<int>(kind));
  c.make = [op, kind](std::size_t count) {
    Reduction r;
    if (predefined_reduction(op, kind, count, &r) != Status::ok) throw std::logic_error("op");
    return r;
  };
  c.input = [kind](int rank, std::size_t count) {
    const std::size_t size = kind_size(kind);
    std::vector<unsigned char> b(count * size, 0);
    switch (kind) {
      case Kind::c_signed_char: fill_scalars<signed char>(b, rank, count); break;
      case Kind::c_unsigned_char:
      case Kind::byte:
        for (std::size_t i = 0; i < count; ++i) b[i] = static_cast<unsigned char>(rank * 37 + i * 11);
        break;
      case Kind::c_short: fill_scalars<short>(b, rank, count); break;
      case Kind::c_unsigned_short: fill_scalars<unsigned short>(b, rank, count); break;
      case Kind::c_int: fill_scalars<int>(b, rank, count); break;
      case Kind::c_unsigned: fill_scalars<unsigned>(b, rank, count); break;
      case Kind::c_long: fill_scalars<long>(b, rank, count); break;
      case Kind::c_unsigned_long: fill_scalars<unsigned long>(b, rank, count); break;
      case Kind::c_long_long: fill_scalars<long long>(b, rank, count); break;
      case Kind::c_unsigned_long_long: fill_scalars<unsigned long long>(b, rank, count); break;
      case Kind::c_float: fill_scalars<float>(b, rank, count); break;
      case Kind::c_double: fill_scalars<double>(b, rank, count); break;
      case Kind::c_long_double: fill_scalars<long double>(b, rank, count); break;
      case Kind::c_bool:
        for (std::size_t i = 0; i < count; ++i) b[i] = (rank + i) % 3 == 0;
        break;
      case Kind::two_int: fill_pairs<int>(b, rank, count, size, 4); break;
      case Kind::float_int: fill_pairs<float>(b, rank, count, size, 4); break;
      case Kind::short_int: fill_pairs<short>(b, rank, count, size, 4); break;
      case Kind::long_int: fill_pairs<long>(b, rank, count, size, 8); break;
      case Kind::double_int: fill_pairs<double>(b, rank, count, size, 8); break;
      case Kind::long_double_int: fill_pairs<long double>(b, rank, count, size, 16); break;
      default: throw std::logic_error("no test data for kind");
    }
    return b;
  };
  c.same = [kind](const unsigned char* a, const unsigned char* b, std::size_t count) {
    if (kind == Kind::c_long_double || kind == Kind::long_double_int) {
      return same_long_double(a, b, count, kind_size(kind));
    }
    return count == 0 || std::memcmp(a, b, count * kind_size(kind)) == 0;
  };
  return c;
}

ReductionCase matrix_case() {
  ReductionCase c;
  c.name = "2x2 matrix product (non-commutative)";
  c.make = [](std::size_t count) {
    Reduction r;
    r.elem_size = 4 * sizeof(std::uint64_t);
    r.count = count;
    r.commutative = false;
    r.combine = [](const void* in, void* inout, std::size_t n) {
      for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t a[4], b[4], p[4];
        std::memcpy(a, static_cast<const unsigned char*>(in) + k * 32, 32);
        std::memcpy(b, static_cast<unsigned char*>(inout) + k * 32, 32);
        p[0] = a[0] * b[0] + a[1] * b[2];  // inout = in x inout
        p[1] = a[0] * b[1] + a[1] * b[3];
        p[2] = a[2] * b[0] + a[3] * b[2];
        p[3] = a[2] * b[1] + a[3] * b[3];
        std::memcpy(static_cast<unsigned char*>(inout) + k * 32, p, 32);
      }
    };
    return r;
  };
  c.input = [](int rank, std::size_t count) {
    std::vector<unsigned char> b(count * 32);
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t m[4] = {1, static_cast<std::uint64_t>(rank + 2), k % 3 + 1,
                                  static_cast<std::uint64_t>(rank * 3 + 1)};
      std::memcpy(b.data() + k * 32, m, 32);
    }
    return b;
  };
  c.same = [](const unsigned char* a, const unsigned char* b, std::size_t count) {
    return count == 0 || std::memcmp(a, b, count * 32) == 0;
  };
  return c;
}

ReductionCase user_sum_case() {
  ReductionCase c = predefined_case(Op::sum, Kind::c_int);
  c.name = "user int sum (commutative)";
  c.make = [](std::size_t count) {
    Reduction r;
    r.elem_size = sizeof(int);
    r.count = count;
    r.commutative = true;
    r.combine = [](const void* in, void* inout, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        int a, b;
        std::memcpy(&a, static_cast<const char*>(in) + i * 4, 4);
        std::memcpy(&b, static_cast<char*>(inout) + i * 4, 4);
        b += a;
        std::memcpy(static_cast<char*>(inout) + i * 4, &b, 4);
      }
    };
    return r;
  };
  return c;
}

std::vector<ReductionCase> reduction_cases() {
  return {predefined_case(Op::sum, Kind::c_int),
          predefined_case(Op::max, Kind::c_short),
          predefined_case(Op::prod, Kind::c_long_long),
          predefined_case(Op::sum, Kind::c_double),
          predefined_case(Op::min, Kind::c_float),
          predefined_case(Op::sum, Kind::c_long_double),
          predefined_case(Op::bxor, Kind::byte),
          predefined_case(Op::lor, Kind::c_bool),
          predefined_case(Op::maxloc, Kind::two_int),
          predefined_case(Op::minloc, Kind::double_int),
          predefined_case(Op::maxloc, Kind::long_double_int),
          matrix_case(),
          user_sum_case()};
}

std::vector<unsigned char> fold(const Reduction& r,
                                const std::vector<std::vector<unsigned char>>& inputs,
                                const std::vector<int>& ranks) {
  std::vector<unsigned char> acc = inputs[ranks[0]];
  for (std::size_t k = 1; k < ranks.size(); ++k) {
    std::vector<unsigned char> next = inputs[ranks[k]];
    r.combine(acc.data(), next.data(), r.count);  // next = acc op x_k
    acc.swap(next);
  }
  return acc;
}

std::vector<unsigned char> pattern(int rank, int peer, std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(rank * 31 + peer * 7 + i);
  return b;
}

}  // namespace ftmpi::coll::testing
