// Pack/unpack against the reference typemap model, on hand-picked layouts and on randomly
// nested constructions: whole messages, every window of a partial transfer, short messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "dt_test_util.h"

using namespace dt_test;

namespace {

struct Built {
  const Datatype* type;
  Ref ref;
};

// A random type of depth <= depth over the basic types, with its reference typemap.
Built random_type(Types& ty, std::mt19937& rng, int depth) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const MPI_Datatype basics[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_DOUBLE_INT};
  if (depth == 0 || pick(0, 3) == 0) {
    const Datatype* b = ty.get(basics[pick(0, 4)]);
    return {b, b->handle == MPI_DOUBLE_INT ? Ref{{{0, 8}, {8, 4}}} : Ref::basic(b->size)};
  }
  Built child = random_type(ty, rng, depth - 1);
  const Datatype* c = child.type;
  Built out{nullptr, {}};
  switch (pick(0, 4)) {
    case 0: {
      const std::size_t n = static_cast<std::size_t>(pick(0, 5));
      out.type = ty.contiguous(n, c);
      out.ref.append(child.ref, 0, n, c->extent);
      break;
    }
    case 1: {
      const std::size_t n = static_cast<std::size_t>(pick(1, 6));
      const std::size_t bl = static_cast<std::size_t>(pick(0, 3));
      const MPI_Aint stride = pick(-4, 6);
      out.type = ty.vector(n, bl, stride, c);
      for (std::size_t i = 0; i < n; ++i) {
        out.ref.append(child.ref, static_cast<MPI_Aint>(i) * stride * c->extent, bl, c->extent);
      }
      break;
    }
    case 2: {
      const std::size_t n = static_cast<std::size_t>(pick(1, 4));
      const std::size_t bl = static_cast<std::size_t>(pick(1, 3));
      const MPI_Aint stride = pick(-64, 64);
      out.type = ty.hvector(n, bl, stride, c);
      for (std::size_t i = 0; i < n; ++i) {
        out.ref.append(child.ref, static_cast<MPI_Aint>(i) * stride, bl, c->extent);
      }
      break;
    }
    case 3: {
      std::vector<int> bl;
      std::vector<MPI_Aint> disp;
      for (int i = pick(1, 4); i > 0; --i) {
        bl.push_back(pick(0, 3));
        disp.push_back(pick(-40, 80));
        out.ref.append(child.ref, disp.back(), static_cast<std::size_t>(bl.back()), c->extent);
      }
      out.type = ty.hindexed(bl, disp, c);
      break;
    }
    default: {
      Built other = random_type(ty, rng, depth - 1);
      std::vector<int> bl{pick(0, 2), pick(1, 2)};
      std::vector<MPI_Aint> disp{pick(-16, 16), pick(0, 96)};
      out.type = ty.structure(bl, disp, {c, other.type});
      out.ref.append(child.ref, disp[0], static_cast<std::size_t>(bl[0]), c->extent);
      out.ref.append(other.ref, disp[1], static_cast<std::size_t>(bl[1]), other.type->extent);
      break;
    }
  }
  return out;
}

// Checks pack, every kind of partial window, and unpack of count elements against the model.
void check_roundtrip(const Built& b, std::size_t count, std::mt19937& rng) {
  const Datatype& t = *b.type;
  REQUIRE(t.size == b.ref.size());
  MPI_Aint lo = 0, hi = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (auto e : b.ref.entries) {
      const MPI_Aint o = static_cast<MPI_Aint>(i) * t.extent + e.first;
      lo = std::min(lo, o);
      hi = std::max(hi, o + static_cast<MPI_Aint>(e.second));
    }
  }
  std::vector<unsigned char> mem(static_cast<std::size_t>(hi - lo) + 1);
  for (std::size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<unsigned char>(rng());
  unsigned char* origin = mem.data() - lo;

  const std::vector<unsigned char> want = ref_pack(b.ref, t.extent, origin, count);
  std::vector<unsigned char> got(ftmpi::packed_size(t, count) + 1, 0xEE);
  REQUIRE(ftmpi::pack(origin, count, t, got.data()) == want.size());
  CHECK(std::equal(want.begin(), want.end(), got.begin()));
  CHECK(got.back() == 0xEE);  // nothing written past the packed size

  if (!want.empty()) {
    std::uniform_int_distribution<std::size_t> any(0, want.size());
    for (int k = 0; k < 8; ++k) {
      const std::size_t off = any(rng), max = any(rng);
      std::vector<unsigned char> part(max);
      const std::size_t n = ftmpi::pack_part(origin, count, t, off, max, part.data());
      REQUIRE(n == std::min(max, want.size() - off));
      CHECK(std::equal(part.begin(), part.begin() + static_cast<long>(n),
                       want.begin() + static_cast<long>(off)));
    }
  }

  // Unpack into zeroed memory, whole and short, and compare with the model's unpack.
  std::vector<unsigned char> stream(want.size());
  for (auto& c : stream) c = static_cast<unsigned char>(rng());
  std::vector<unsigned char> a(mem.size(), 0), r(mem.size(), 0);
  ftmpi::unpack(stream.data(), stream.size(), a.data() - lo, count, t);
  ref_unpack(b.ref, t.extent, stream.data(), r.data() - lo, count, stream.size());
  CHECK(a == r);

  const std::size_t cut = stream.empty() ? 0 : rng() % stream.size();
  std::fill(a.begin(), a.end(), 0);
  REQUIRE(ftmpi::unpack(stream.data(), cut, a.data() - lo, count, t) == cut);
  std::fill(r.begin(), r.end(), 0);
  ref_unpack(b.ref, t.extent, stream.data(), r.data() - lo, count, cut);
  CHECK(a == r);  // exactly the first `cut` stream bytes landed, possibly mid-element
}

}  // namespace

TEST_CASE("pack of a strided vector matches the model", "[pack]") {
  Types ty;
  std::mt19937 rng(1);
  Built v{ty.vector(1000, 1, 2, ty.get(MPI_DOUBLE)), {}};
  for (int i = 0; i < 1000; ++i) v.ref.append(Ref::basic(8), i * 16, 1, 8);
  check_roundtrip(v, 1, rng);
  check_roundtrip(v, 3, rng);
}

TEST_CASE("pack of a gappy struct, replicated past the flatten limit", "[pack]") {
  Types ty;
  std::mt19937 rng(2);
  const Datatype* s = ty.structure({1, 1}, {0, 8}, {ty.get(MPI_INT), ty.get(MPI_DOUBLE)});
  Built c{ty.contiguous(1000, s), {}};
  Ref sr{{{0, 4}, {8, 8}}};
  c.ref.append(sr, 0, 1000, 16);
  check_roundtrip(c, 2, rng);
  check_roundtrip(Built{s, sr}, 500, rng);  // an array of structs sent with count = 500
  Built v{ty.vector(300, 2, 3, s), {}};
  for (int i = 0; i < 300; ++i) v.ref.append(sr, i * 48, 2, 16);
  check_roundtrip(v, 2, rng);
}

TEST_CASE("pack/unpack of random nested types match the model", "[pack][random]") {
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 400; ++iter) {
    Types ty;
    Built b = random_type(ty, rng, 3);
    INFO("iteration " << iter << ", size " << b.type->size << ", blocks "
                      << b.type->layout->blocks.size());
    check_roundtrip(b, static_cast<std::size_t>(rng() % 4), rng);
  }
}
