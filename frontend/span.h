// A half-open range of UTF-8 byte offsets into one source file. Every IR node and every
// diagnostic carries one; line/column views are computed on demand by the SourceFile.
#pragma once
#include <cstdint>

namespace raxc {

struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;

  bool empty() const { return begin == end; }
  bool contains(uint32_t offset) const { return begin <= offset && offset < end; }
  friend bool operator==(const Span&, const Span&) = default;
};

}  // namespace raxc
