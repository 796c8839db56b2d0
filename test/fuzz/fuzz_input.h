// Reading structured choices out of a fuzzer's bytes, shared by the fuzz targets.
//
// A target's input is "TEXT\0CONTROL": the text a user could type, then (optionally) bytes that
// steer what the target does with it (edits to apply, requests to send). Keeping the text first
// and whole means the seed corpora are plain .rx files and libFuzzer's mutations of them stay
// readable; the control bytes are consumed one choice at a time and run out gracefully (every
// choice then returns its lowest value), so any byte string is a valid input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace raxc::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) {
    std::string_view all(reinterpret_cast<const char*>(data), size);
    size_t nul = all.find('\0');
    text_ = all.substr(0, nul);
    if (nul != std::string_view::npos) control_ = all.substr(nul + 1);
  }

  std::string_view text() const { return text_; }
  bool has_control() const { return !control_.empty(); }
  bool exhausted() const { return control_.empty(); }

  // A value in [0, bound) (0 when bound is 0 or the control bytes are used up).
  uint32_t choose(uint32_t bound) {
    if (bound <= 1) return 0;
    uint32_t value = 0;
    for (uint32_t span = 1; span < bound && !control_.empty(); span <<= 8) {
      value = (value << 8) | static_cast<uint8_t>(control_.front());
      control_.remove_prefix(1);
    }
    return value % bound;
  }

  // Up to `max` raw control bytes.
  std::string_view bytes(size_t max) {
    size_t n = control_.size() < max ? control_.size() : max;
    std::string_view out = control_.substr(0, n);
    control_.remove_prefix(n);
    return out;
  }

 private:
  std::string_view text_;
  std::string_view control_;
};

}  // namespace raxc::fuzz
