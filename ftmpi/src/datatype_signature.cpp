// Signature building (run-length merging, bounded nesting) and element counting.
#include "datatype_signature.h"

#include <algorithm>

namespace ftmpi {

SignaturePtr basic_signature(MPI_Datatype kind, std::size_t size) {
  auto leaf = std::make_shared<Signature>();
  leaf->items.push_back(SigItem{kind, size, 1, nullptr});
  leaf->bytes = size;
  leaf->elements = 1;
  leaf->uniform_kind = kind;
  return leaf;
}

void SignatureBuilder::note_kind(MPI_Datatype kind) {
  if (kind == MPI_DATATYPE_NULL) {
    mixed_ = true;
  } else if (out_.uniform_kind == MPI_DATATYPE_NULL) {
    out_.uniform_kind = kind;
  } else if (out_.uniform_kind != kind) {
    mixed_ = true;
  }
}

void SignatureBuilder::push(SigItem it) {
  if (it.repeat == 0 || it.elem_size == 0) return;
  if (it.child) {
    out_.bytes += it.child->bytes * it.repeat;
    out_.elements += it.child->elements * it.repeat;
    note_kind(it.child->uniform_kind);
    out_.items.push_back(std::move(it));
    return;
  }
  out_.bytes += it.elem_size * it.repeat;
  out_.elements += it.repeat;
  note_kind(it.kind);
  if (!out_.items.empty()) {
    SigItem& last = out_.items.back();
    if (!last.child && last.kind == it.kind) {
      last.repeat += it.repeat;
      return;
    }
  }
  out_.items.push_back(std::move(it));
}

void SignatureBuilder::place(const SignaturePtr& child, std::size_t count) {
  if (count == 0 || child->bytes == 0) return;
  const Signature& c = *child;
  if (c.items.size() == 1) {
    SigItem it = c.items[0];
    it.repeat *= count;
    push(std::move(it));
    return;
  }
  if (c.items.size() * count <= kFlattenLimit) {
    for (std::size_t k = 0; k < count; ++k) {
      for (const SigItem& it : c.items) push(it);
    }
    return;
  }
  push(SigItem{MPI_DATATYPE_NULL, c.bytes, count, child});
}

SignaturePtr SignatureBuilder::finish() {
  if (mixed_) out_.uniform_kind = MPI_DATATYPE_NULL;
  auto s = std::make_shared<Signature>(std::move(out_));
  out_ = Signature{};
  mixed_ = false;
  return s;
}

namespace {

// Counts elements in `bytes` bytes of one pass over sig's items (bytes < sig.bytes). Sets
// *partial when the bytes end inside a basic element.
long long count_within(const Signature& sig, std::size_t bytes, bool* partial) {
  long long n = 0;
  for (const SigItem& it : sig.items) {
    if (bytes == 0) break;
    const std::size_t whole = it.child ? it.child->bytes : it.elem_size;
    const std::size_t per = it.child ? it.child->elements : 1;
    const std::size_t full = std::min(it.repeat, bytes / whole);
    n += static_cast<long long>(full * per);
    bytes -= full * whole;
    if (full == it.repeat) continue;
    if (bytes == 0) break;
    if (!it.child) {
      *partial = true;  // ends inside a basic element
      return n;
    }
    return n + count_within(*it.child, bytes, partial);
  }
  return n;
}

// Bytes of the first `elements` basic elements of one pass over sig's items (elements <
// sig.elements).
std::size_t bytes_within(const Signature& sig, std::size_t elements) {
  std::size_t bytes = 0;
  for (const SigItem& it : sig.items) {
    if (elements == 0) break;
    const std::size_t whole = it.child ? it.child->bytes : it.elem_size;
    const std::size_t per = it.child ? it.child->elements : 1;
    const std::size_t full = std::min(it.repeat, elements / per);
    bytes += full * whole;
    elements -= full * per;
    if (full == it.repeat) continue;
    if (elements > 0 && it.child) bytes += bytes_within(*it.child, elements);
    break;
  }
  return bytes;
}

}  // namespace

bool signature_bytes(const Signature& sig, std::size_t elements, std::size_t limit,
                     std::size_t* bytes) {
  *bytes = 0;
  if (elements == 0 || sig.elements == 0) return elements == 0;
  const std::size_t whole = elements / sig.elements;
  if (sig.bytes != 0 && whole > limit / sig.bytes) return false;
  *bytes = whole * sig.bytes + bytes_within(sig, elements % sig.elements);
  return *bytes <= limit;
}

long long signature_elements(const Signature& sig, std::size_t bytes) {
  if (sig.bytes == 0) return 0;
  const std::size_t whole = bytes / sig.bytes;
  bool partial = false;
  const long long rest = count_within(sig, bytes % sig.bytes, &partial);
  if (partial) return -1;
  return static_cast<long long>(whole * sig.elements) + rest;
}

}  // namespace ftmpi
