// Tensor storage and element access for the runtime (allocation, dtype names, conversions).
//
// Large tensors (256 KiB and up) are mapped from the system and, once freed, kept in a small
// cache: touching fresh pages costs 10–22 µs per 4 KiB on our VMs
// (../shared/research/backend.md §2.4) — for a 1024×1024 float32 result, milliseconds per call,
// as long as the matmul itself. A request takes the smallest cached block that holds it
// (zero-filled again unless the caller writes it whole), split when 256 KiB or more would be
// left over; freed blocks merge with free neighbours, so the pieces of a large block come
// together again once all of them are freed. A network's early large result (ResNet-18's first
// convolution, 26 MB at batch 8) thus holds the later, smaller tensors of the call, and is
// whole again for the next call; without splitting, the pool gave it back to make room for
// them and faulted it in again on every call (200 fresh pages, 3–5 % of the call). Blocks of
// 2 MiB and up are 2 MiB aligned and advised as transparent huge pages, which makes their first
// touch 20–40× cheaper.
//
// The cache raises the process's peak by a bounded margin: a block is only taken from the
// system while the bytes handed out plus those cached stay within the most ever handed out at
// once (the high-water mark) and a margin (pool_bound); cached blocks are returned to the
// system first, largest first. Without a bound a network's peak held every size it had freed
// (the transformer block's at twice its live tensors); without the margin it faulted pages in
// on every call. At most kCacheBytes stay cached.
#include "backend/runtime/tensor.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>

namespace raxc::runtime {

std::string dtype_name(DLDataType t) {
  if (is_bool(t)) return "bool";
  std::string base;
  switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    default: base = "handle"; break;
  }
  base += std::to_string(t.bits);
  if (t.lanes > 1) base += "x" + std::to_string(t.lanes);
  return base;
}

std::optional<DLDataType> parse_dtype(std::string_view name) {
  if (name == "bool") return DLDataType{kDLUInt, 1, 1};
  struct Prefix {
    std::string_view text;
    uint8_t code;
  };
  static constexpr Prefix prefixes[] = {
      {"uint", kDLUInt}, {"int", kDLInt}, {"float", kDLFloat}, {"bfloat", kDLBfloat}};
  for (const Prefix& p : prefixes) {
    if (!name.starts_with(p.text)) continue;
    std::string_view rest = name.substr(p.text.size());
    int bits = 0;
    for (char c : rest) {
      if (c < '0' || c > '9') return std::nullopt;
      bits = bits * 10 + (c - '0');
      if (bits > 64) return std::nullopt;
    }
    bool ok = p.code == kDLFloat    ? (bits == 16 || bits == 32 || bits == 64)
              : p.code == kDLBfloat ? bits == 16
                                    : (bits == 8 || bits == 16 || bits == 32 || bits == 64);
    if (!ok) return std::nullopt;
    return DLDataType{p.code, static_cast<uint8_t>(bits), 1};
  }
  return std::nullopt;
}

int64_t dtype_bytes(DLDataType t) {
  if (is_bool(t)) return 1;
  return (int64_t{t.bits} * t.lanes + 7) / 8;
}

std::optional<int64_t> Tensor::byte_size(const std::vector<int64_t>& shape, DLDataType dtype) {
  int64_t n = dtype_bytes(dtype);
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

int64_t allocation_limit() {
  static const int64_t limit = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(pages) * page;
  }();
  return limit;
}

namespace {

constexpr size_t kPooledBytes = size_t(256) << 10;  // blocks this large are cached
constexpr size_t kHugeBytes = size_t(2) << 20;      // and from here on huge-page aligned
constexpr size_t kCacheBytes = size_t(256) << 20;   // bound on the bytes kept cached
constexpr size_t kMarginBytes = size_t(8) << 20;    // at most this cached beyond the high water

struct BlockCache {
  std::mutex mutex;
  std::multimap<size_t, void*> free_blocks;  // rounded size -> block
  std::map<uintptr_t, size_t> free_at;       // the same blocks by address (for merging)
  size_t cached = 0;                         // bytes in free_blocks
  size_t handed_out = 0;                     // bytes of pooled blocks in use
  size_t high_water = 0;                     // the most ever in use at once
  size_t peak = 0;                           // the most in use since reset_pool_peak
  size_t largest = 0;                        // the largest block ever handed out
  size_t mapped = 0;                         // blocks ever taken from the system
};

BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache();  // never destroyed: tensors may outlive exit()
  return *cache;
}

// A pooled block straight from the system (mmap), `align`-aligned: freeing it gives its pages
// back at once. (Through malloc, glibc's adaptive mmap threshold soon serves such sizes from its
// heap, where freed blocks keep their pages and the process's resident size only grows.)
void* map_block(size_t bytes) {
  size_t align = bytes >= kHugeBytes ? kHugeBytes : 4096;
  size_t span = bytes + align - 4096;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto first = reinterpret_cast<uintptr_t>(raw);
  uintptr_t start = (first + align - 1) / align * align;
  if (start > first) munmap(raw, start - first);
  if (size_t tail = first + span - (start + bytes); tail > 0)
    munmap(reinterpret_cast<void*>(start + bytes), tail);
  void* p = reinterpret_cast<void*>(start);
  if (bytes >= kHugeBytes) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: errors ignored
  return p;
}

// The size a block of `bytes` is allocated (and cached) with: whole pages. (Rounding to whole
// huge pages would make a 2.25 MiB weight cost 4 MiB of resident memory.)
size_t block_size(size_t bytes) {
  if (bytes < kPooledBytes) return bytes;
  return (bytes + 4095) / 4096 * 4096;
}

// Adds the free block [p, p + bytes) to the cache, merged with the free blocks right before and
// after it (contiguous address ranges: pieces of one mapping, or mappings the system placed
// side by side, which munmap takes as one range).
void add_free(BlockCache& c, void* p, size_t bytes) {
  c.cached += bytes;
  auto at = reinterpret_cast<uintptr_t>(p);
  auto forget = [&](std::map<uintptr_t, size_t>::iterator it) {
    auto [first, last] = c.free_blocks.equal_range(it->second);
    for (auto b = first; b != last; ++b)
      if (reinterpret_cast<uintptr_t>(b->second) == it->first) {
        c.free_blocks.erase(b);
        break;
      }
    return c.free_at.erase(it);
  };
  auto next = c.free_at.find(at + bytes);
  if (next != c.free_at.end()) {
    bytes += next->second;
    forget(next);
  }
  auto after = c.free_at.lower_bound(at);
  if (after != c.free_at.begin()) {
    auto before = std::prev(after);
    if (before->first + before->second == at) {
      at = before->first;
      bytes += before->second;
      forget(before);
    }
  }
  c.free_at.emplace(at, bytes);
  c.free_blocks.emplace(bytes, reinterpret_cast<void*>(at));
}

// Takes the cached block `it` out of the cache.
void take_out(BlockCache& c, std::multimap<size_t, void*>::iterator it) {
  c.free_at.erase(reinterpret_cast<uintptr_t>(it->second));
  c.cached -= it->first;
  c.free_blocks.erase(it);
}

// The smallest cached block of at least `bytes` (of that size, the most recently freed: its
// pages are the likeliest still in the CPU's caches), or null; split when kPooledBytes or more
// would be left over, the rest staying cached. `bytes` becomes the size handed out. (Taking
// only blocks of up to twice the size, whole, ResNet-18's later tensors could not use its
// first result's block.)
void* take_cached(BlockCache& c, size_t& bytes) {
  auto fit = c.free_blocks.lower_bound(bytes);
  if (fit == c.free_blocks.end()) return nullptr;
  auto it = std::prev(c.free_blocks.upper_bound(fit->first));
  void* p = it->second;
  size_t size = it->first;
  take_out(c, it);
  if (size - bytes >= kPooledBytes)
    add_free(c, static_cast<char*>(p) + bytes, size - bytes);
  else
    bytes = size;
  return p;
}

// What the blocks handed out and cached may add up to: the high-water mark and a margin for
// sizes (a block cached is not always of a size asked for next): half the mark or the largest
// block, at most kMarginBytes. With the mark alone, every call of the transformer block gave
// blocks back and faulted fresh ones in (660-1,250 fresh pages, 5-25 ms of a 12 ms call); a
// quarter of it still left 190 fresh pages a call on 2 threads. Uncapped, half the mark cost
// the batch of 8 (22-28 MiB of intermediates) 9 MiB more resident memory; capped at 4 MiB, its
// calls faulted 270-500 pages (3-6 % of a 95 ms call); at 8 MiB none, for 3 MiB more at its
// peak (60 MiB on one thread, 1.11× its weights and live tensors; 62 MiB on two).
size_t pool_bound(const BlockCache& c) {
  return c.high_water + std::min(std::max(c.high_water / 2, c.largest), kMarginBytes);
}

// Returns cached blocks to the system, largest first, until `bytes` more in use would keep the
// total within pool_bound (or nothing is cached).
void make_room(BlockCache& c, size_t bytes) {
  while (c.cached > 0 && c.handed_out + c.cached + bytes > pool_bound(c)) {
    auto largest = std::prev(c.free_blocks.end());
    void* p = largest->second;
    size_t size = largest->first;
    take_out(c, largest);
    munmap(p, size);
  }
}

// A block of at least `bytes`; `bytes` becomes its size, which free_block is given back.
void* allocate_block(size_t& bytes) {
  if (bytes < kPooledBytes) return std::aligned_alloc(kAllocAlignment, bytes);
  BlockCache& c = block_cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  void* p = take_cached(c, bytes);
  if (!p) {
    make_room(c, bytes);
    p = map_block(bytes);
    if (!p) return nullptr;
    ++c.mapped;
  }
  c.handed_out += bytes;
  c.largest = std::max(c.largest, bytes);
  c.high_water = std::max(c.high_water, c.handed_out);
  c.peak = std::max(c.peak, c.handed_out);
  return p;
}

void free_block(void* p, size_t bytes) {
  if (!p) return;
  if (bytes >= kPooledBytes) {
    BlockCache& c = block_cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.handed_out -= bytes;
    if (c.cached + bytes <= kCacheBytes) {
      add_free(c, p, bytes);
    } else {
      munmap(p, bytes);
    }
    return;
  }
  std::free(p);
}

}  // namespace

PooledBlock allocate_storage(size_t bytes) {
  PooledBlock block{nullptr, block_size(std::max<size_t>(bytes, 1))};
  block.data = allocate_block(block.bytes);
  return block;
}

void free_storage(const PooledBlock& block) { free_block(block.data, block.bytes); }

PoolUsage pool_usage() {
  BlockCache& c = block_cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return PoolUsage{c.handed_out, c.cached, c.high_water, c.peak, pool_bound(c), c.mapped};
}

void release_cached_blocks() {
  BlockCache& c = block_cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto [bytes, block] : c.free_blocks) munmap(block, bytes);
  c.free_blocks.clear();
  c.free_at.clear();
  c.cached = 0;
}

void reset_pool_peak() {
  BlockCache& c = block_cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.peak = c.handed_out;
}

std::shared_ptr<Tensor> Tensor::empty(std::vector<int64_t> shape, DLDataType dtype, Fill fill) {
  std::optional<int64_t> bytes = byte_size(shape, dtype);
  if (!bytes || *bytes > allocation_limit()) return nullptr;
  // Round up to the alignment (aligned_alloc requires a multiple); at least one block so that
  // a 0-size tensor still has a valid, aligned pointer.
  int64_t rounded = (*bytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  if (rounded == 0) rounded = kAllocAlignment;
  if (rounded < *bytes) return nullptr;
  size_t size = block_size(static_cast<size_t>(rounded));
  void* storage = allocate_block(size);  // size becomes the block's
  if (!storage) return nullptr;
  if (fill == Fill::Zeros) std::memset(storage, 0, static_cast<size_t>(rounded));
  std::shared_ptr<Tensor> t = make(storage, std::move(shape), dtype);
  t->storage_ = storage;
  t->storage_bytes_ = size;
  return t;
}

std::shared_ptr<Tensor> Tensor::view(std::shared_ptr<const void> owner, void* data,
                                     std::vector<int64_t> shape, DLDataType dtype) {
  // The offset goes into the pointer, not byte_offset: consumers that ignore byte_offset (or
  // assume it is 0, as much DLPack code does) still see the right bytes.
  std::shared_ptr<Tensor> t = make(data, std::move(shape), dtype);
  t->owner_ = std::move(owner);
  return t;
}

std::shared_ptr<Tensor> Tensor::make(void* data, std::vector<int64_t> shape, DLDataType dtype) {
  std::shared_ptr<Tensor> t(new Tensor());
  t->shape_ = std::move(shape);
  t->dl_.data = data;
  t->dl_.device = DLDevice{kDLCPU, 0};
  t->dl_.ndim = static_cast<int32_t>(t->shape_.size());
  t->dl_.dtype = dtype;
  t->dl_.shape = t->shape_.data();
  t->dl_.strides = nullptr;
  t->dl_.byte_offset = 0;
  return t;
}

Tensor::~Tensor() { free_block(storage_, storage_bytes_); }

namespace {
std::mutex derived_mutex;  // kept data is set once and read on every call: one lock suffices
}  // namespace

std::shared_ptr<const void> Tensor::derived(const std::string& key) const {
  std::lock_guard<std::mutex> lock(derived_mutex);
  return derived_key_ == key ? derived_ : nullptr;
}

void Tensor::unseal() {
  std::lock_guard<std::mutex> lock(derived_mutex);
  sealed_ = false;
  derived_key_.clear();
  derived_.reset();
}

void Tensor::keep_derived(std::string key, std::shared_ptr<const void> data) const {
  std::lock_guard<std::mutex> lock(derived_mutex);
  derived_key_ = std::move(key);
  derived_ = std::move(data);
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow to infinity
  if (absx < 0x38800000u) {                                  // subnormal or zero
    float magic = std::bit_cast<float>(absx) + 0.5f;         // round to nearest even in the ULP
    return uint16_t(sign | (std::bit_cast<uint32_t>(magic) - std::bit_cast<uint32_t>(0.5f)));
  }
  uint32_t mant_odd = (absx >> 13) & 1u;
  absx += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return uint16_t(sign | (absx >> 13));
}

float bfloat_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t float_to_bfloat(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

double Tensor::get_f64(int64_t i) const {
  const DLDataType t = dl_.dtype;
  const char* p = static_cast<const char*>(data());
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 16) return half_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
      if (t.bits == 32) return reinterpret_cast<const float*>(p)[i];
      return reinterpret_cast<const double*>(p)[i];
    case kDLBfloat: return bfloat_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
    default: return static_cast<double>(get_i64(i));
  }
}

int64_t Tensor::get_i64(int64_t i) const {
  const DLDataType t = dl_.dtype;
  const char* p = static_cast<const char*>(data());
  if (t.code == kDLFloat || t.code == kDLBfloat) return static_cast<int64_t>(get_f64(i));
  if (is_bool(t)) return reinterpret_cast<const uint8_t*>(p)[i] != 0;
  bool s = t.code == kDLInt;
  switch (t.bits) {
    case 8:
      return s ? int64_t(reinterpret_cast<const int8_t*>(p)[i])
               : reinterpret_cast<const uint8_t*>(p)[i];
    case 16:
      return s ? int64_t(reinterpret_cast<const int16_t*>(p)[i])
               : reinterpret_cast<const uint16_t*>(p)[i];
    case 32:
      return s ? int64_t(reinterpret_cast<const int32_t*>(p)[i])
               : reinterpret_cast<const uint32_t*>(p)[i];
    default: return reinterpret_cast<const int64_t*>(p)[i];
  }
}

void Tensor::set_f64(int64_t i, double v) {
  const DLDataType t = dl_.dtype;
  char* p = static_cast<char*>(data());
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 16)
        reinterpret_cast<uint16_t*>(p)[i] = float_to_half(static_cast<float>(v));
      else if (t.bits == 32)
        reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      else
        reinterpret_cast<double*>(p)[i] = v;
      return;
    case kDLBfloat:
      reinterpret_cast<uint16_t*>(p)[i] = float_to_bfloat(static_cast<float>(v));
      return;
    default:
      if (std::isnan(v)) v = 0;
      set_i64(i, is_bool(t) ? (v != 0) : static_cast<int64_t>(v));
  }
}

void Tensor::set_i64(int64_t i, int64_t v) {
  const DLDataType t = dl_.dtype;
  char* p = static_cast<char*>(data());
  if (t.code == kDLFloat || t.code == kDLBfloat) return set_f64(i, static_cast<double>(v));
  if (is_bool(t)) {
    reinterpret_cast<uint8_t*>(p)[i] = v != 0;
    return;
  }
  switch (t.bits) {
    case 8: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case 16: reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case 32: reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    default: reinterpret_cast<int64_t*>(p)[i] = v; break;
  }
}

}  // namespace raxc::runtime
