// The call a nonblocking collective runs (nbc.h): the blocking collective with the
// application's arguments, as a closure kept inside the object. std::function put every
// closure of more than 16 bytes (most: buffers, counts, types, the communicator) on the heap,
// an allocation and a free per nonblocking collective.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace ftmpi {

class NbcBody {
 public:
  // MPI_Ialltoallw's closure, the largest, takes 72 bytes.
  static constexpr std::size_t kBytes = 96;

  NbcBody() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, NbcBody>>>
  NbcBody(F&& f) {  // NOLINT(google-explicit-constructor): a lambda converts, as to std::function
    using T = std::decay_t<F>;
    static_assert(sizeof(T) <= kBytes, "closure too large for NbcBody::kBytes");
    static_assert(alignof(T) <= alignof(std::max_align_t), "closure over-aligned");
    new (storage_) T(std::forward<F>(f));
    ops_ = &kOps<T>;
  }
  NbcBody(NbcBody&& other) noexcept { take(other); }
  NbcBody& operator=(NbcBody&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  NbcBody(const NbcBody&) = delete;
  NbcBody& operator=(const NbcBody&) = delete;
  ~NbcBody() { reset(); }

  int operator()() { return ops_->call(storage_); }
  explicit operator bool() const { return ops_ != nullptr; }
  // Destroys the closure (its captures go now).
  void reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    int (*call)(void*);
    void (*relocate)(void* to, void* from);  // move-constructs at `to`, destroys `from`
    void (*destroy)(void*);
  };
  template <typename T>
  static constexpr Ops kOps = {
      [](void* p) { return (*static_cast<T*>(p))(); },
      [](void* to, void* from) {
        new (to) T(std::move(*static_cast<T*>(from)));
        static_cast<T*>(from)->~T();
      },
      [](void* p) { static_cast<T*>(p)->~T(); },
  };

  void take(NbcBody& other) {
    if (other.ops_ == nullptr) return;
    other.ops_->relocate(storage_, other.storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[kBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace ftmpi
