// Helpers shared by the datatype unit tests: a table to build types in, and a reference model
// of a typemap (every basic element as an (offset, size) pair) that packs the slow, obvious way.
#pragma once

#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "datatype.h"
#include "datatype_build.h"

namespace dt_test {

using ftmpi::Datatype;

// Builds types in a private table (not the library's) and hands back the records.
struct Types {
  ftmpi::DatatypeTable table;
  const Datatype* get(MPI_Datatype h) {
    const Datatype* t = nullptr;
    if (table.find(h, &t) != ftmpi::Err::ok) return nullptr;
    return t;
  }
  const Datatype* add(std::unique_ptr<Datatype> t) {
    MPI_Datatype h = table.add(std::move(t));
    (void)table.commit(h);
    return get(h);
  }
  const Datatype* contiguous(std::size_t n, const Datatype* old) {
    return add(ftmpi::build_contiguous(n, *old));
  }
  const Datatype* vector(std::size_t n, std::size_t bl, MPI_Aint stride, const Datatype* old) {
    return add(ftmpi::build_hvector(n, bl, stride * old->extent, *old, MPI_COMBINER_VECTOR));
  }
  const Datatype* hvector(std::size_t n, std::size_t bl, MPI_Aint stride, const Datatype* old) {
    return add(ftmpi::build_hvector(n, bl, stride, *old, MPI_COMBINER_HVECTOR));
  }
  const Datatype* hindexed(const std::vector<int>& bl, const std::vector<MPI_Aint>& disp,
                           const Datatype* old) {
    std::vector<ftmpi::TypeBlock> b;
    for (std::size_t i = 0; i < bl.size(); ++i) {
      b.push_back({old, static_cast<std::size_t>(bl[i]), disp[i]});
    }
    return add(ftmpi::build_blocks(b.data(), b.size(), false, MPI_COMBINER_HINDEXED));
  }
  const Datatype* structure(const std::vector<int>& bl, const std::vector<MPI_Aint>& disp,
                            const std::vector<const Datatype*>& types) {
    std::vector<ftmpi::TypeBlock> b;
    for (std::size_t i = 0; i < bl.size(); ++i) {
      b.push_back({types[i], static_cast<std::size_t>(bl[i]), disp[i]});
    }
    return add(ftmpi::build_blocks(b.data(), b.size(), true, MPI_COMBINER_STRUCT));
  }
};

// The typemap of one element, basic elements only, in typemap order.
struct Ref {
  std::vector<std::pair<MPI_Aint, std::size_t>> entries;

  static Ref basic(std::size_t size) { return Ref{{{0, size}}}; }
  // n copies of r, the k-th shifted by disp + k * step.
  void append(const Ref& r, MPI_Aint disp, std::size_t n, MPI_Aint step) {
    for (std::size_t k = 0; k < n; ++k) {
      for (auto e : r.entries) {
        entries.push_back({e.first + disp + static_cast<MPI_Aint>(k) * step, e.second});
      }
    }
  }
  std::size_t size() const {
    std::size_t s = 0;
    for (auto e : entries) s += e.second;
    return s;
  }
};

// Packs count elements the slow way.
inline std::vector<unsigned char> ref_pack(const Ref& r, MPI_Aint extent, const unsigned char* base,
                                           std::size_t count) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < count; ++i) {
    for (auto e : r.entries) {
      const unsigned char* p = base + static_cast<MPI_Aint>(i) * extent + e.first;
      out.insert(out.end(), p, p + e.second);
    }
  }
  return out;
}

// Unpacks the first `limit` bytes of a stream the slow way (a short message stops mid-element).
inline void ref_unpack(const Ref& r, MPI_Aint extent, const unsigned char* in, unsigned char* base,
                       std::size_t count, std::size_t limit) {
  for (std::size_t i = 0; i < count; ++i) {
    for (auto e : r.entries) {
      const std::size_t n = e.second < limit ? e.second : limit;
      std::memcpy(base + static_cast<MPI_Aint>(i) * extent + e.first, in, n);
      in += n;
      limit -= n;
    }
  }
}

}  // namespace dt_test
