// Bump allocator that owns IR nodes. IR nodes are immutable and referenced by raw `const T*`;
// an Arena frees them all at once. Each top-level function is lowered into its own arena so an
// edited function can be dropped and re-lowered without touching the rest of the module.
#pragma once
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace raxc::ir {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->destroy(it->object);
  }

  template <class T, class... Args>
  T* make(Args&&... args) {
    void* memory = allocate(sizeof(T), alignof(T));
    T* object = new (memory) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      destructors_.push_back({object, [](void* p) { static_cast<T*>(p)->~T(); }});
    }
    return object;
  }

  size_t bytes_allocated() const { return bytes_allocated_; }

 private:
  struct Destructor {
    void* object;
    void (*destroy)(void*);
  };
  // Chunks start small (most functions are small, and every function has its own arena) and
  // double up to a cap, so big functions do few allocations.
  static constexpr size_t kFirstChunkSize = 2 * 1024;
  static constexpr size_t kMaxChunkSize = 64 * 1024;

  void* allocate(size_t size, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (chunks_.empty() || offset + size > capacity_) {
      next_chunk_size_ = next_chunk_size_ == 0 ? kFirstChunkSize
                                               : std::min(next_chunk_size_ * 2, kMaxChunkSize);
      capacity_ = std::max(size, next_chunk_size_);
      // Not value-initialised: nodes are constructed in place, zeroing would be wasted work.
      chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(capacity_));
      offset = 0;
    }
    used_ = offset + size;
    bytes_allocated_ += size;
    return chunks_.back().get() + offset;
  }

  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::vector<Destructor> destructors_;
  size_t capacity_ = 0;
  size_t next_chunk_size_ = 0;
  size_t used_ = 0;
  size_t bytes_allocated_ = 0;
};

// LLVM-style checked casts over the `kind` tag of each node family.
template <class To, class From>
bool isa(const From* node) {
  return node != nullptr && To::classof(node);
}
template <class To, class From>
const To* dyn_cast(const From* node) {
  return isa<To>(node) ? static_cast<const To*>(node) : nullptr;
}
template <class To, class From>
const To* cast(const From* node) {
  return static_cast<const To*>(node);
}

}  // namespace raxc::ir
