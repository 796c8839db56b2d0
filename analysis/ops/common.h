// Shared machinery of the operator inference rules (operators.md §2.13): argument binding
// (positional or keyword, Python-style), typed attribute readers, tensor/shape/tuple argument
// checks, broadcasting, dtype and vdevice rules, axis normalization and StructInfo builders.
// Internal to analysis/ops.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/ops/registry.h"
#include "frontend/ir/struct_info.h"

namespace raxc::analysis::ops {

// Each family registers its operators into the table (called once, from registry.cpp).
void register_binary(std::vector<OpDef>& table);
void register_unary(std::vector<OpDef>& table);
void register_create(std::vector<OpDef>& table);
void register_manipulate(std::vector<OpDef>& table);
void register_index(std::vector<OpDef>& table);
void register_linalg(std::vector<OpDef>& table);
void register_reduce(std::vector<OpDef>& table);
void register_nn(std::vector<OpDef>& table);
void register_calls(std::vector<OpDef>& table);
void register_shape(std::vector<OpDef>& table);
void register_memory(std::vector<OpDef>& table);
void register_grad(std::vector<OpDef>& table);
void register_image(std::vector<OpDef>& table);
void register_vision(std::vector<OpDef>& table);
void register_quantize(std::vector<OpDef>& table);
void register_ccl(std::vector<OpDef>& table);
void register_distributed(std::vector<OpDef>& table);
void register_inspect(std::vector<OpDef>& table);

// The OpDef of the call being inferred (set by infer_call before running the rule).
const OpDef& current_op(const InferContext& ctx);

// Where one parameter's value comes from: a positional argument (index into call.args) or a
// keyword attribute. Neither: absent (the default applies).
struct ParamValue {
  int arg_index = -1;
  const ir::AttrValue* attr = nullptr;
  bool present() const { return arg_index >= 0 || attr != nullptr; }
};
ParamValue param(const InferContext& ctx, std::string_view name);

// The source text name of the operator ("R.add") for messages.
std::string op_text(const InferContext& ctx);
Span param_span(const InferContext& ctx, const ParamValue& v);
std::string sinfo_text(const ir::StructInfo* s);
std::string dims_text(const std::vector<const ir::PrimExpr*>& dims);
std::string prim_text(const ir::PrimExpr* e);

// ------------------------------------------------------------------ typed attribute readers
// Each returns nullopt when the parameter is absent or None; on a value of the wrong type it
// reports RX3103 and sets `ok` false (when given).
std::optional<int64_t> attr_int(InferContext& ctx, std::string_view name, bool* ok = nullptr);
std::optional<double> attr_float(InferContext& ctx, std::string_view name, bool* ok = nullptr);
std::optional<bool> attr_bool(InferContext& ctx, std::string_view name, bool* ok = nullptr);
std::optional<std::string> attr_string(InferContext& ctx, std::string_view name,
                                       bool* ok = nullptr);
// A dtype attribute: "float32", R.dtype("float32"), "" / "void" / None = void.
std::optional<ir::DataType> attr_dtype(InferContext& ctx, std::string_view name,
                                       bool* ok = nullptr);
// A list of integers; a single integer is a one-element list (axis=1 -> [1]).
std::optional<std::vector<int64_t>> attr_int_list(InferContext& ctx, std::string_view name,
                                                  bool* ok = nullptr);
// A list of PrimExprs (integers or symbolic); a ShapeExpr / tuple of PrimValues too.
std::optional<std::vector<const ir::PrimExpr*>> attr_prim_list(InferContext& ctx,
                                                               std::string_view name,
                                                               bool* ok = nullptr);

// ---------------------------------------------------------------------- argument accessors
// The StructInfo of a positional parameter (nullptr when absent).
const ir::StructInfo* arg_sinfo(const InferContext& ctx, std::string_view name);
// The tensor StructInfo of parameter `name`, or RX3104 and nullptr.
const ir::TensorSInfo* tensor_arg(InferContext& ctx, std::string_view name);
// Fields of a tuple-of-tensors parameter, or RX3106 and nullopt.
std::optional<std::vector<const ir::TensorSInfo*>> tensor_tuple_arg(InferContext& ctx,
                                                                    std::string_view name);
// A shape parameter: ShapeSInfo (or RX3105 and nullptr).
const ir::ShapeSInfo* shape_arg(InferContext& ctx, std::string_view name);

// A shape operand: a ShapeExpr, a shape variable, or a tuple/list of integers (a Python tuple
// becomes a ShapeExpr). `expr` is what a result tensor's shape field should be (null if the
// values are unknown and no variable holds them). RX3105 and nullopt for anything else.
struct ShapeOperand {
  const ir::Expr* expr = nullptr;
  std::optional<std::vector<const ir::PrimExpr*>> dims;
  int ndim = -1;
};
std::optional<ShapeOperand> shape_operand(InferContext& ctx, std::string_view name);
// Tensor StructInfo whose shape is the operand.
const ir::TensorSInfo* tensor_of_shape(InferContext& ctx, const ShapeOperand& shape,
                                       ir::DataType dtype, const ir::VDevice* vdev);

// S-known dims (literal ShapeExpr) and V-known dims (also through a shape variable).
std::optional<std::vector<const ir::PrimExpr*>> s_dims(const ir::TensorSInfo& t);
std::optional<std::vector<const ir::PrimExpr*>> v_dims(const ir::TensorSInfo& t);

// ------------------------------------------------------------------------- builders
const ir::TensorSInfo* make_tensor(InferContext& ctx, std::vector<const ir::PrimExpr*> dims,
                                   ir::DataType dtype, const ir::VDevice* vdev);
const ir::TensorSInfo* rank_only(InferContext& ctx, int ndim, ir::DataType dtype,
                                 const ir::VDevice* vdev);
// Same shape (field) as `t`, new dtype.
const ir::TensorSInfo* with_dtype(InferContext& ctx, const ir::TensorSInfo& t, ir::DataType dtype);
const ir::StructInfo* object(InferContext& ctx);
// A tensor of rank `ndim` (-1: unknown rank) and unknown dtype: the answer when an operand
// is missing or wrong (already reported).
const ir::StructInfo* unknown(InferContext& ctx, int ndim = -1);

// ------------------------------------------------------------------------- rules
// arith_dtype (§2.6): void if either is void; mismatch (neither bool) -> RX3108; `what` names
// the operands in the message ("both operands").
ir::DataType arith_dtype(InferContext& ctx, ir::DataType a, ir::DataType b, std::string_view what,
                         Span at);
// Broadcasting (§2.5): result dims, or nullopt when undecided (RX4101) or in conflict (RX3109).
std::optional<std::vector<const ir::PrimExpr*>> broadcast(InferContext& ctx,
                                                          const std::vector<const ir::PrimExpr*>& a,
                                                          const std::vector<const ir::PrimExpr*>& b,
                                                          std::string_view a_name,
                                                          std::string_view b_name, Span at,
                                                          bool* conflict = nullptr);
// Normalizes `axis` for rank `ndim` (§2.10); RX3110 and nullopt when out of range.
std::optional<int> normalize_axis(InferContext& ctx, int64_t axis, int ndim, Span at);
std::optional<std::vector<int>> normalize_axes(InferContext& ctx, const std::vector<int64_t>& axes,
                                               int ndim, Span at);
// The first defined vdevice (conflicts drop it).
const ir::VDevice* first_vdevice(const std::vector<const ir::TensorSInfo*>& tensors);
// binary_vdevice (§2.9): conflict -> RX3117.
const ir::VDevice* binary_vdevice(InferContext& ctx, const ir::VDevice* a, const ir::VDevice* b);
// Reports RX3112 when `t` has a known non-float dtype.
bool require_float(InferContext& ctx, const ir::TensorSInfo& t, std::string_view name);
// Three-valued dimension equality check: NotEqual -> RX3114 (returns false), Unknown -> RX4102.
bool check_dims_equal(InferContext& ctx, const ir::PrimExpr* a, std::string_view a_what,
                      const ir::PrimExpr* b, std::string_view b_what, Span at);
// The product of dims (simplified).
const ir::PrimExpr* product(InferContext& ctx, const std::vector<const ir::PrimExpr*>& dims);

// Builds an OpDef compactly.
OpDef make_op(std::string_view name, std::string_view text, std::vector<ParamSpec> args,
              std::vector<ParamSpec> attrs, InferFn infer, std::string_view doc,
              Purity purity = Purity::Pure);
// `def` marked as an operator of the language itself (OpDef::language).
inline OpDef language(OpDef def) {
  def.language = true;
  return def;
}

}  // namespace raxc::analysis::ops
