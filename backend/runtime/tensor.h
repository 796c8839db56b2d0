// Tensors of the runtime: a DLTensor over 64-byte aligned memory the runtime owns (or a view of
// someone else's), shared by reference as Relax values are. Generated code relies on the
// alignment (its buffer pointers are declared `align 64`).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace raxc::runtime {

inline constexpr int64_t kAllocAlignment = 64;

// The largest allocation the runtime asks for: the machine's physical memory. A larger request
// cannot be met usefully (Linux would overcommit it and kill the process on first touch), so it
// fails at once as an error (RX5008 / RX5026) without reaching malloc.
int64_t allocation_limit();

// Raw memory from the pool tensors come from (kernel workspaces): at least the bytes asked for
// (a cached block may be larger: `bytes` is its size), aligned to kAllocAlignment, `data` null
// when memory runs out. free_storage takes the block allocate_storage returned.
struct PooledBlock {
  void* data = nullptr;
  size_t bytes = 0;
};
PooledBlock allocate_storage(size_t bytes);
void free_storage(const PooledBlock& block);

// The pool of large blocks (256 KiB and up): bytes in use, bytes cached for reuse, the most ever
// in use at once, and the most in use since reset_pool_peak (what one call's workspaces add to
// its operands: the tests bound a kernel's by it), and what in_use + cached never exceeds: the
// high-water mark and a margin for blocks of other sizes (tensor.cpp's pool_bound); and how many
// blocks were ever taken from the system (mapped: a repeated call should take none).
struct PoolUsage {
  size_t in_use = 0, cached = 0, high_water = 0, peak = 0, bound = 0, mapped = 0;
};
PoolUsage pool_usage();
void reset_pool_peak();
// Returns every cached block to the system (a cached block may serve a request up to half its
// size, and then counts whole in in_use and peak).
void release_cached_blocks();

// A dtype as DLPack spells it; bool is kDLUInt with 1 bit (DLPack 0.6 has no kDLBool) stored in
// one byte.
std::string dtype_name(DLDataType dtype);  // "float32", "bool", "int64"
std::optional<DLDataType> parse_dtype(std::string_view name);
int64_t dtype_bytes(DLDataType dtype);  // storage bytes per element (bool: 1)
inline bool is_bool(DLDataType t) { return t.code == kDLUInt && t.bits == 1; }
inline bool same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

class Tensor {
 public:
  // What new storage holds: zeros, or whatever the memory held (for a kernel's output, which the
  // kernel writes in full: clearing it first costs one more pass over the memory).
  enum class Fill { Zeros, Undefined };
  // Allocates storage; nullptr when the size overflows or memory runs out.
  static std::shared_ptr<Tensor> empty(std::vector<int64_t> shape, DLDataType dtype,
                                       Fill fill = Fill::Zeros);
  // A tensor over memory that `owner` keeps alive (a storage block, or the tensor a view was
  // made of): writes through either alias the same bytes, as TVM's views and the tensors of a
  // storage do. `data` must lie inside the owner's memory; the view holds no storage of its own.
  static std::shared_ptr<Tensor> view(std::shared_ptr<const void> owner, void* data,
                                      std::vector<int64_t> shape, DLDataType dtype);
  // Element count and byte size of `shape` × `dtype`; nullopt on overflow or a negative dim.
  static std::optional<int64_t> byte_size(const std::vector<int64_t>& shape, DLDataType dtype);

  const std::vector<int64_t>& shape() const { return shape_; }
  DLDataType dtype() const { return dl_.dtype; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  int64_t nbytes() const { return numel() * dtype_bytes(dl_.dtype); }
  void* data() const { return static_cast<char*>(dl_.data) + dl_.byte_offset; }
  template <class T>
  T* data_as() const {
    return static_cast<T*>(data());
  }
  // The DLTensor handed to generated code (compact row-major: strides == nullptr).
  DLTensor* dl() { return &dl_; }

  // A sealed tensor's elements do not change again while it lives: whoever holds it promises
  // so (`raxc run`'s executor seals the arguments it was given when nothing in the module can
  // write into a tensor it did not create: backend/exec). Data derived from a sealed tensor's
  // elements, such as a convolution's packed weights, may then be kept beside it and serve
  // every later call. It is never keyed by address: memory freed and reused would serve
  // another tensor's data.
  void seal() { sealed_ = true; }
  bool sealed() const { return sealed_; }
  // Withdraws the promise (a library that may write into the tensors it is given is called
  // with it): what was kept beside the tensor is dropped.
  void unseal();
  // What keep_derived kept under `key`, or null. One entry per tensor: a later key replaces an
  // earlier one. Both are safe to call from several threads.
  std::shared_ptr<const void> derived(const std::string& key) const;
  void keep_derived(std::string key, std::shared_ptr<const void> data) const;

  // Element `i` (row-major) converted to double / int64 (any dtype; float16/bfloat16 included).
  double get_f64(int64_t i) const;
  int64_t get_i64(int64_t i) const;
  void set_f64(int64_t i, double v);
  void set_i64(int64_t i, int64_t v);

  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor();

 private:
  Tensor() = default;
  // A tensor over `data` (not owned): the DLTensor fields every constructor sets alike.
  static std::shared_ptr<Tensor> make(void* data, std::vector<int64_t> shape, DLDataType dtype);
  std::vector<int64_t> shape_;
  DLTensor dl_{};
  void* storage_ = nullptr;            // owned memory (null for a view)
  size_t storage_bytes_ = 0;           // its allocated size (tensor.cpp's block cache)
  std::shared_ptr<const void> owner_;  // what a view's memory belongs to
  bool sealed_ = false;
  mutable std::string derived_key_;  // keep_derived's, under tensor.cpp's derived_mutex
  mutable std::shared_ptr<const void> derived_;
};
using TensorPtr = std::shared_ptr<Tensor>;

// Half-precision conversions used by the runtime and the printers (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat_to_float(uint16_t b);
uint16_t float_to_bfloat(float f);

}  // namespace raxc::runtime
