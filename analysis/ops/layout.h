// Layout strings of the layout-aware operators (convolutions, pooling): "NCHW", "NHWC",
// "OIHW", "HWIO", and sub-indexed ones such as "NCHW4c" or "OIHW4o4i", where a lowercase axis
// is the inner part of the uppercase axis of the same letter split by the factor written
// before it (TVM's tir.Layout). A Layout maps each axis of a canonical order ("NCHW", "OIHW")
// to the positions holding it, so inference (analysis/ops/nn.cpp) and the kernels
// (backend/legalize/conv.cpp) read every layout through one description.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace raxc::analysis::ops {

struct Layout {
  // By canonical axis: the position of its primal axis, of its sub-axis (-1: not split) and
  // the split factor (1: not split).
  std::vector<int> primal, sub;
  std::vector<int64_t> factor;
  int rank = 0;  // primal and sub-axes

  bool split(size_t axis) const { return sub[axis] >= 0; }
  bool any_split() const;
  // The canonical order itself (NCHW, OIHW): no axis moved or split.
  bool is_canonical() const;
};

// The layout `text` read against `canonical`; nullopt when it is not a layout of those axes
// (a missing or repeated letter, a sub-axis without a factor or without its primal axis).
std::optional<Layout> parse_layout(std::string_view text, std::string_view canonical);

// The number of axes of a tensor in `text` (letters; the factors' digits are no axes).
int layout_rank(std::string_view text);

}  // namespace raxc::analysis::ops
