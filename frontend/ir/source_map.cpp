// The source map of a lowered definition (source_map.h): sorting, lookup and redirection.
#include "frontend/ir/source_map.h"

#include <algorithm>

namespace raxc::ir {

void SourceMap::redirect(const Var* from, const Var* to) {
  if (!from || !to || from == to) return;
  for (NameRef& r : refs_)
    if (r.kind == NameRef::Kind::Var && r.entity == from) r.entity = to;
}

bool SourceMap::recorded_since(size_t mark, Span span) const {
  for (size_t i = mark; i < refs_.size(); ++i)
    if (refs_[i].span == span) return true;
  return false;
}

void SourceMap::finish() {
  std::stable_sort(refs_.begin(), refs_.end(), [](const NameRef& a, const NameRef& b) {
    return a.span.begin != b.span.begin ? a.span.begin < b.span.begin : a.span.end < b.span.end;
  });
  // Keep the last of equal spans: stable_sort left them in recording order.
  std::vector<NameRef> unique;
  unique.reserve(refs_.size());
  for (const NameRef& r : refs_) {
    if (!unique.empty() && unique.back().span == r.span)
      unique.back() = r;
    else
      unique.push_back(r);
  }
  refs_ = std::move(unique);
}

void SourceMap::clear() {
  refs_.clear();
  params_.clear();
}

const NameRef* SourceMap::at(Span span) const {
  auto it = std::lower_bound(refs_.begin(), refs_.end(), span, [](const NameRef& r, Span s) {
    return r.span.begin != s.begin ? r.span.begin < s.begin : r.span.end < s.end;
  });
  return it != refs_.end() && it->span == span ? &*it : nullptr;
}

}  // namespace raxc::ir
