// Structural equality of IR nodes as written: same kinds and fields, immediates by value,
// variables and buffers by identity, no arithmetic (`n + 1` and `1 + n` differ; the analysis's
// prover in analysis/arith decides such things). The lowering asks it whether a match_cast's
// annotation repeats its target, the printer whether an annotation repeats a call's sinfo_args
// or a loop repeats its block's domain.
#pragma once
#include "frontend/ir/prim_expr.h"
#include "frontend/ir/struct_info.h"

namespace raxc::ir {

bool structural_equal(const PrimExpr* a, const PrimExpr* b);
bool structural_equal(const StructInfo* a, const StructInfo* b);

}  // namespace raxc::ir
