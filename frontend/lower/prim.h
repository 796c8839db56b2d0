// PrimExpr and TIR lowering. Used by the Relax lowering for shapes, R.prim_value and R.Prim, and
// for whole @T.prim_func definitions.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ir/module.h"
#include "frontend/lower/context.h"

namespace raxc::lower {

// Names visible to a PrimExpr: symbolic shape variables (Relax) or TIR variables and buffers.
class PrimNames {
 public:
  virtual ~PrimNames() = default;
  virtual const ir::PrimVar* find_var(std::string_view name) const = 0;
  virtual const ir::Buffer* find_buffer(std::string_view) const { return nullptr; }
  // A name that stands for an expression rather than a variable: Relax parse-time aliases
  // (`k = n * 2`) and TIR mutable scalars (a load of their 0-d buffer). Checked before find_var.
  virtual const ir::PrimExpr* find_expr(std::string_view) const { return nullptr; }
};

// How a bare integer literal is typed: int64 in Relax shapes and prim values (§10 item 6),
// int32 (or the other operand's dtype) inside TIR.
enum class IntMode : uint8_t { Int64, Int32 };

// Lowers an expression node to a PrimExpr; reports a diagnostic and returns null on error.
const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    IntMode mode);

// A dimension written as a string in a Relax signature ("n * 2", "T.max(n, 1)"): parses the
// string's content as an expression; spans of the result point inside the string.
const ir::PrimExpr* lower_prim_string(LowerContext& ctx, TSNode string_node,
                                      const PrimNames& names);

// --- Finer-grained entry points (used by the TIR lowering; usable by anyone) ---

struct PrimOptions {
  IntMode mode = IntMode::Int32;
  // The dtype a bare Python literal takes when no operand decides it (a store into a float
  // buffer, an annotated let). Only literals adopt it; other expressions keep their dtype.
  std::optional<ir::DataType> literal_dtype;
};
const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    const PrimOptions& options);

// `lhs <op> rhs` for an already lowered `lhs` (augmented assignment `A[i] += v`); `op` is the
// Python operator without '=' ("+", "//", …). Same dtype rules as a written binary operator.
const ir::PrimExpr* lower_prim_update(LowerContext& ctx, const ir::PrimExpr* lhs,
                                      std::string_view op, TSNode rhs, const PrimNames& names,
                                      IntMode mode, Span span);

// The indices of `A[i, j]` (a subscript node) into `buffer`, lowered as TIR (int32 literals):
// slices (RX1317) and a count that is not the buffer's rank (RX1313) are reported, nullopt.
std::optional<std::vector<const ir::PrimExpr*>> lower_buffer_indices(LowerContext& ctx,
                                                                     TSNode subscript,
                                                                     const ir::Buffer* buffer,
                                                                     const PrimNames& names);

// `value` converted to `dtype`: a folded immediate for IntImm/FloatImm, the value itself when the
// dtype already matches, otherwise a Cast.
const ir::PrimExpr* cast_prim(LowerContext& ctx, ir::DataType dtype, const ir::PrimExpr* value,
                              Span span);

// If `node` is an attribute path rooted at a prefix bound to the TIR namespace (`T.axis.remap`,
// `tir.exp`), the path after the prefix ("axis.remap"); "" otherwise. A name defined in `names`
// shadows the prefix (text-format.md §10 item 24).
std::string tir_path(const LowerContext& ctx, TSNode node, const PrimNames* names = nullptr);
// `T.float32` / `T.int64` (an attribute naming a dtype of the TIR namespace): the dtype.
std::optional<ir::DataType> tir_dtype_attribute(const LowerContext& ctx, TSNode node,
                                                const PrimNames* names = nullptr);

// Lowers one `prim_function` node (the decorated def) into ctx.arena.
const ir::PrimFunc* lower_prim_func(LowerContext& ctx, TSNode prim_function);

}  // namespace raxc::lower
