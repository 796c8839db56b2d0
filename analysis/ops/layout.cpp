// Parsing layout strings (layout.h).
#include "analysis/ops/layout.h"

namespace raxc::analysis::ops {

bool Layout::any_split() const {
  for (int s : sub)
    if (s >= 0) return true;
  return false;
}

bool Layout::is_canonical() const {
  for (size_t i = 0; i < primal.size(); ++i)
    if (primal[i] != int(i) || split(i)) return false;
  return true;
}

int layout_rank(std::string_view text) {
  int rank = 0;
  for (char c : text) rank += (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  return rank;
}

std::optional<Layout> parse_layout(std::string_view text, std::string_view canonical) {
  Layout l;
  size_t n = canonical.size();
  l.primal.assign(n, -1);
  l.sub.assign(n, -1);
  l.factor.assign(n, 1);
  int64_t pending = 0;  // the factor read before a sub-axis
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (pending > (int64_t(1) << 40)) return std::nullopt;
      pending = pending * 10 + (c - '0');
      continue;
    }
    bool upper = c >= 'A' && c <= 'Z';
    bool lower = c >= 'a' && c <= 'z';
    if (!upper && !lower) return std::nullopt;
    size_t axis = canonical.find(upper ? c : char(c - 'a' + 'A'));
    if (axis == std::string_view::npos) return std::nullopt;
    if (upper) {
      if (pending || l.primal[axis] >= 0) return std::nullopt;
      l.primal[axis] = l.rank++;
    } else {
      if (pending <= 0 || l.sub[axis] >= 0) return std::nullopt;
      l.sub[axis] = l.rank++;
      l.factor[axis] = pending;
      pending = 0;
    }
  }
  if (pending) return std::nullopt;
  for (int p : l.primal)
    if (p < 0) return std::nullopt;
  return l;
}

}  // namespace raxc::analysis::ops
