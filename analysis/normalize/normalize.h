// The spec's normal form (seed spec "Normal Form") as an IR -> IR pass: leaf /
// non-leaf rules with tuples as leaves, SeqExpr only in function bodies and If branches (and
// always there), consolidated binding blocks, empty blocks dropped, call_tir-family arguments as
// a tuple literal. Temporaries take the span of the sub-expression they bind, so diagnostics
// still point at what the user wrote.
#pragma once
#include "frontend/ir/arena.h"
#include "frontend/ir/expr.h"

namespace raxc::analysis {

// Returns `f` itself when it is already in normal form (the common case: TVM prints normalised
// IR); otherwise a normalised copy whose new nodes live in `arena`. Unchanged sub-trees are
// shared, never copied.
const ir::Function* normalize(const ir::Function* f, ir::Arena& arena);

}  // namespace raxc::analysis
