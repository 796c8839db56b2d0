// The symbolic shape prover: PrimExpr canonical form and three-valued equality.
//
// Canonical form: an integer polynomial over atoms (shape variables, and floordiv / floormod /
// min / max / select / other calls kept as canonicalised atoms), constants folded. Shape
// variables are non-negative int64. compare() answers Equal when the canonical forms are
// identical, NotEqual when the difference is provably never zero, Unknown otherwise.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/prim_expr.h"

namespace raxc::analysis::arith {

// A three-valued answer; never convert it to bool silently.
enum class Proof : uint8_t { Equal, NotEqual, Unknown };

using VarMap = std::unordered_map<const ir::PrimVar*, const ir::PrimExpr*>;

// Canonical forms are cached by node address, so an Analyzer must not outlive the PrimExprs it
// has seen (create one per function check). Printing: positive terms in first-appearance order,
// then a positive constant, then negative terms and a negative constant subtracted
// (`n * 2 + 1`, `h + 1 - kh`, `(b + 2) // 3`); floordiv/floormod keep constants inside their
// dividend as TVM prints them, but compare() sees through such shifts ((h - 1) // 2 + 1 equals
// (h + 1) // 2).
class Analyzer {
 public:
  // New nodes (simplified or substituted expressions, built results) are allocated in `arena`.
  explicit Analyzer(ir::Arena& arena);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  ir::Arena& arena() { return arena_; }

  Proof compare(const ir::PrimExpr* a, const ir::PrimExpr* b);
  // The value of `e` when it folds to an integer constant.
  std::optional<int64_t> as_int(const ir::PrimExpr* e);
  // True when e >= 0 (resp. > 0) is provable (shape variables are non-negative).
  bool prove_non_negative(const ir::PrimExpr* e);
  bool prove_positive(const ir::PrimExpr* e);
  // The canonical form printed back as a PrimExpr (`n * 2 + 1`); constants fold.
  const ir::PrimExpr* simplify(const ir::PrimExpr* e);

  // Builders for inference rules: fold constants and simplify, results in the arena.
  const ir::PrimExpr* make_int(int64_t value, ir::DataType dtype = ir::DataType::Int(64));
  const ir::PrimExpr* add(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* sub(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* mul(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* floordiv(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* floormod(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* min(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* max(const ir::PrimExpr* a, const ir::PrimExpr* b);

  // Replaces variables by the mapped expressions (then simplifies).
  const ir::PrimExpr* substitute(const ir::PrimExpr* e, const VarMap& map);

 private:
  struct Impl;
  ir::Arena& arena_;
  Impl* impl_;  // canonical-form cache
};

}  // namespace raxc::analysis::arith
