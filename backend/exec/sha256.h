// SHA-256 (FIPS 180-4), for the keys of the compiled-code cache: the executable computes them
// without LLVM (kernel_cache.h), so it cannot use LLVM's.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace raxc::backend {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The digest as 64 lowercase hex digits; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes hashed
};

}  // namespace raxc::backend
