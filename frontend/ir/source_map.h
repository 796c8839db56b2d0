// The source map of one lowered definition: every name written in it that lowering resolved,
// with the IR entity it denotes — a Relax variable or parameter (ir::Var), a shape variable
// (ir::PrimVar), or another global (ir::GlobalVar, by name). The entries are recorded by the
// lowering's own scopes as it resolves each name (frontend/lower/), so editor queries
// (definition, references, rename, hover, highlighting; analysis/engine.h) use the one name
// resolver the compiler uses instead of guessing again from names and positions.
//
// Every entry's span is the name exactly as a token of the document covers it
// (frontend/document.h Token): an identifier, or the content between the quotes of a quoted
// shape variable ("n"). Spans are the definition's IR offsets (see frontend/document.h, "Span
// translation"). An entry whose span equals its entity's own span (for a quoted shape variable:
// the span inside the quotes) is where the entity is introduced.
//
// The pointers point into the arena of the definition the map belongs to: the map lives and dies
// with that definition's ir::GlobalDef.
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "frontend/ir/expr.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/span.h"

namespace raxc::ir {

struct NameRef {
  enum class Kind : uint8_t { Var, PrimVar, Global };
  Kind kind = Kind::Var;
  Span span;  // IR offsets; see the header comment
  const void* entity = nullptr;

  const ir::Var* var() const {
    return kind == Kind::Var ? static_cast<const Var*>(entity) : nullptr;
  }
  const ir::PrimVar* prim_var() const {
    return kind == Kind::PrimVar ? static_cast<const PrimVar*>(entity) : nullptr;
  }
  const ir::GlobalVar* global() const {
    return kind == Kind::Global ? static_cast<const GlobalVar*>(entity) : nullptr;
  }
};

class SourceMap {
 public:
  // ---- recording (the lowering), in any order; finish() once the definition is lowered
  void record(Span span, const Var* var) { add(NameRef::Kind::Var, span, var); }
  void record(Span span, const PrimVar* var) { add(NameRef::Kind::PrimVar, span, var); }
  void record(Span span, const GlobalVar* global) { add(NameRef::Kind::Global, span, global); }
  void mark_param(const Var* var) { params_.insert(var); }
  // Lowering replaced `from` by `to` (an if-branch's last binding becomes the if's result
  // variable, text-format.md §5.5): the names that denoted `from` denote `to`.
  void redirect(const Var* from, const Var* to);
  // Entries made so far (a lowering step compares against it to see what it recorded).
  size_t size() const { return refs_.size(); }
  bool recorded_since(size_t mark, Span span) const;
  // Sorts the entries by position; one entry per span, the last recorded one winning (a binding
  // target is first seen as a use of an older variable only if a step looked it up before the
  // binding was made).
  void finish();
  // Forgets everything (the definition failed to lower: its arena is gone).
  void clear();

  // ---- queries (after finish())
  // The entry whose span is exactly `span`, or null.
  const NameRef* at(Span span) const;
  // Every entry, ordered by position.
  const std::vector<NameRef>& refs() const { return refs_; }
  bool is_param(const Var* var) const { return params_.count(var) > 0; }

 private:
  void add(NameRef::Kind kind, Span span, const void* entity) {
    if (entity && !span.empty()) refs_.push_back(NameRef{kind, span, entity});
  }
  std::vector<NameRef> refs_;
  std::unordered_set<const Var*> params_;
};

}  // namespace raxc::ir
