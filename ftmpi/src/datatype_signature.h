// The type signature: the sequence of basic elements a datatype carries, run-length encoded.
// It answers MPI_Get_elements (how many basic elements a possibly short message holds) and tells
// whether a type is homogeneous (one basic kind throughout), which reductions want to know.
// Like layouts, repeated multi-item signatures nest instead of being replicated without bound.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace ftmpi {

struct Signature;
using SignaturePtr = std::shared_ptr<const Signature>;

struct SigItem {
  MPI_Datatype kind = MPI_DATATYPE_NULL;  // a predefined basic type (unused when nested)
  std::size_t elem_size = 0;              // bytes of one basic element, or of one child copy
  std::size_t repeat = 0;
  SignaturePtr child;                     // null: `repeat` elements of `kind`
};

struct Signature {
  std::vector<SigItem> items;
  std::size_t bytes = 0;     // packed bytes of one datatype element
  std::size_t elements = 0;  // basic elements in one datatype element
  // The one basic kind throughout, or MPI_DATATYPE_NULL when mixed (or empty).
  MPI_Datatype uniform_kind = MPI_DATATYPE_NULL;
};

SignaturePtr basic_signature(MPI_Datatype kind, std::size_t size);

class SignatureBuilder {
 public:
  // Appends `count` repetitions of `child`.
  void place(const SignaturePtr& child, std::size_t count);
  SignaturePtr finish();

  static constexpr std::size_t kFlattenLimit = 256;

 private:
  void push(SigItem it);
  void note_kind(MPI_Datatype kind);  // MPI_DATATYPE_NULL: a mixed child
  Signature out_;
  bool mixed_ = false;
};

// Basic elements in the first `bytes` bytes of a packed stream of elements of `sig`, or -1 when
// the bytes end inside a basic element (MPI_Get_elements then answers MPI_UNDEFINED).
long long signature_elements(const Signature& sig, std::size_t bytes);
// The inverse (MPI_Status_set_elements): the bytes of the first `elements` basic elements of a
// packed stream of elements of `sig`; false when they are more than `limit` bytes.
bool signature_bytes(const Signature& sig, std::size_t elements, std::size_t limit,
                     std::size_t* bytes);

}  // namespace ftmpi
