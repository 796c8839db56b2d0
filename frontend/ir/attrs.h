// Attribute values: function attributes (R.func_attr / T.func_attr), module attributes, operator
// call attributes (keywords of R.<op>(...)), loop/block annotations, global infos. A small
// JSON-like value with a few IR leaves.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "frontend/ir/dtype.h"
#include "frontend/span.h"

namespace raxc::ir {

struct PrimExpr;
struct PrimVar;
struct StructInfo;
struct Expr;

// `T.index_map(lambda i, j: (i, j // 4))` or a bare lambda attribute.
struct IndexMap {
  std::vector<const PrimVar*> params;
  std::vector<const PrimExpr*> results;
  Span span;
};

struct AttrValue {
  struct None {
    friend bool operator==(None, None) { return true; }
  };
  using List = std::vector<AttrValue>;
  // Keys are usually strings, but TIR dictionaries may be keyed by variables.
  using Dict = std::vector<std::pair<AttrValue, AttrValue>>;
  // A dtype written as a string where a dtype is expected stays a string; DataType is used when
  // the source says so explicitly (R.dtype(...)).
  using Value = std::variant<None, bool, int64_t, double, std::string, List, Dict, const PrimExpr*,
                             const IndexMap*, const StructInfo*, const Expr*, DataType>;

  Value value;
  Span span;

  AttrValue() = default;
  AttrValue(Value value, Span span = {}) : value(std::move(value)), span(span) {}

  template <class T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }
  bool is_none() const { return std::holds_alternative<None>(value); }
};

// Ordered (source order) key → value; keys are unique (lowering reports duplicates).
struct Attrs {
  std::vector<std::pair<std::string, AttrValue>> entries;

  const AttrValue* find(std::string_view key) const {
    for (auto& [k, v] : entries)
      if (k == key) return &v;
    return nullptr;
  }
  bool empty() const { return entries.empty(); }
};

}  // namespace raxc::ir
