// Element-wise binary operators (operators.md §2.5-§2.7, §3.1) and the fused x1 * x2 + x3
// (ewise_fma).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

// The operand as seen by broadcasting: a Prim is a (1,)-shaped tensor.
struct Operand {
  const ir::StructInfo* sinfo = nullptr;
  const ir::TensorSInfo* tensor = nullptr;  // null for Prim
  DataType dtype;
  int ndim = -1;
};

std::optional<Operand> operand(InferContext& ctx, std::string_view name) {
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) return std::nullopt;
  Operand o;
  o.sinfo = s;
  if (auto* t = ir::dyn_cast<ir::TensorSInfo>(s)) {
    o.tensor = t;
    o.dtype = t->dtype;
    o.ndim = t->ndim;
    return o;
  }
  if (auto* p = ir::dyn_cast<ir::PrimSInfo>(s)) {
    o.dtype = p->dtype;
    o.ndim = 1;
    return o;
  }
  ctx.report(
      diag::OperatorArgumentNotTensor{
          .op = op_text(ctx), .parameter = std::string(name), .sinfo = sinfo_text(s)},
      param_span(ctx, param(ctx, name)));
  return std::nullopt;
}

std::optional<std::vector<const ir::PrimExpr*>> operand_dims(InferContext& ctx, const Operand& o) {
  if (o.tensor) return v_dims(*o.tensor);
  return std::vector<const ir::PrimExpr*>{ctx.analyzer.make_int(1)};
}

const ir::StructInfo* infer_binary_impl(InferContext& ctx, bool comparison) {
  std::optional<Operand> a = operand(ctx, "x1");
  std::optional<Operand> b = operand(ctx, "x2");
  if (!a || !b)
    return rank_only(ctx, -1, comparison ? DataType::Bool() : DataType::Void(), nullptr);
  DataType dtype = comparison
                       ? DataType::Bool()
                       : arith_dtype(ctx, a->dtype, b->dtype, "both operands", ctx.call.span);
  if (!a->tensor && !b->tensor) return ctx.arena().make<ir::PrimSInfo>(dtype, nullptr);
  const ir::VDevice* vdev = binary_vdevice(ctx, a->tensor ? a->tensor->vdevice : nullptr,
                                           b->tensor ? b->tensor->vdevice : nullptr);
  int ndim = (a->ndim < 0 || b->ndim < 0) ? -1 : std::max(a->ndim, b->ndim);
  // operators.md §2.7: a Prim counts as shape (1,), so a 0-d tensor with a Prim gives (1,).
  // Reproduced for compatibility and flagged, since a numpy-faithful result would be 0-d.
  const Operand* tensor_side = a->tensor ? &*a : &*b;
  const Operand* prim_side = a->tensor ? &*b : &*a;
  if (!prim_side->tensor && tensor_side->ndim == 0)
    ctx.report(diag::ZeroDimPrimValueResultShape{.op = op_text(ctx)}, ctx.call.span);
  auto da = operand_dims(ctx, *a);
  auto db = operand_dims(ctx, *b);
  if (da && db) {
    bool conflict = false;
    std::string na = sinfo_text(a->sinfo), nb = sinfo_text(b->sinfo);
    auto dims = broadcast(ctx, *da, *db, na, nb, ctx.call.span, &conflict);
    if (dims) return make_tensor(ctx, std::move(*dims), dtype, vdev);
  }
  if (a->tensor && b->tensor && a->tensor->shape && a->tensor->shape == b->tensor->shape)
    return ctx.arena().make<ir::TensorSInfo>(a->tensor->shape, dtype, vdev, a->tensor->ndim);
  return rank_only(ctx, ndim, dtype, vdev);
}

const ir::StructInfo* infer_arith(InferContext& ctx) { return infer_binary_impl(ctx, false); }
const ir::StructInfo* infer_compare(InferContext& ctx) { return infer_binary_impl(ctx, true); }

std::vector<ParamSpec> binary_params() {
  return {{"x1", ArgKind::Tensor}, {"x2", ArgKind::Tensor}};
}

const ir::StructInfo* infer_ewise_fma(InferContext& ctx) {
  const ir::TensorSInfo* a = tensor_arg(ctx, "x1");
  const ir::TensorSInfo* b = tensor_arg(ctx, "x2");
  const ir::TensorSInfo* c = tensor_arg(ctx, "x3");
  if (!a || !b || !c) return unknown(ctx);
  if (a->ndim >= 0 &&
      ((b->ndim >= 0 && b->ndim != a->ndim) || (c->ndim >= 0 && c->ndim != a->ndim))) {
    ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                          .operands = "all three operands",
                                          .first = a->ndim,
                                          .second = b->ndim != a->ndim ? b->ndim : c->ndim},
               ctx.call.span);
    return rank_only(ctx, -1, a->dtype, a->vdevice);
  }
  DataType dtype = DataType::Void();
  if (!a->dtype.is_void() && !b->dtype.is_void() && !c->dtype.is_void()) {
    if (a->dtype != b->dtype || a->dtype != c->dtype)
      ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                             .operands = "all three operands",
                                             .first = a->dtype.str(),
                                             .second = (a->dtype != b->dtype ? b : c)->dtype.str()},
                 ctx.call.span);
    dtype = a->dtype;
  }
  const ir::VDevice* vdev = first_vdevice({a, b, c});
  auto da = s_dims(*a), db = s_dims(*b), dc = s_dims(*c);
  if (da && db && dc) {
    for (size_t i = 0; i < da->size(); ++i) {
      if (!check_dims_equal(ctx, (*db)[i], "dimension " + std::to_string(i) + " of x2", (*da)[i],
                            "that of x1", ctx.call.span) ||
          !check_dims_equal(ctx, (*dc)[i], "dimension " + std::to_string(i) + " of x3", (*da)[i],
                            "that of x1", ctx.call.span))
        break;
    }
    return make_tensor(ctx, *da, dtype, vdev);
  }
  return rank_only(ctx, a->ndim, dtype, vdev);
}

}  // namespace

void register_binary(std::vector<OpDef>& table) {
  struct Entry {
    std::string_view name, text, doc;
    bool comparison;
  };
  static const Entry entries[] = {
      {"relax.add", "R.add", "element-wise addition with numpy broadcasting", false},
      {"relax.subtract", "R.subtract", "element-wise subtraction with broadcasting", false},
      {"relax.multiply", "R.multiply", "element-wise multiplication with broadcasting", false},
      {"relax.divide", "R.divide", "element-wise true division with broadcasting", false},
      {"relax.floor_divide", "R.floor_divide", "element-wise floor division with broadcasting",
       false},
      {"relax.mod", "R.mod", "element-wise truncating remainder with broadcasting", false},
      {"relax.floor_mod", "R.floor_mod", "element-wise floor remainder with broadcasting", false},
      {"relax.power", "R.power", "element-wise power with broadcasting", false},
      {"relax.maximum", "R.maximum", "element-wise maximum with broadcasting", false},
      {"relax.minimum", "R.minimum", "element-wise minimum with broadcasting", false},
      {"relax.atan2", "R.atan2", "element-wise arc tangent of x1 / x2", false},
      {"relax.log_add_exp", "R.log_add_exp", "element-wise log(exp(x1) + exp(x2))", false},
      {"relax.logical_and", "R.logical_and", "element-wise logical and", false},
      {"relax.logical_or", "R.logical_or", "element-wise logical or", false},
      {"relax.logical_xor", "R.logical_xor", "element-wise logical xor", false},
      {"relax.bitwise_and", "R.bitwise_and", "element-wise bitwise and", false},
      {"relax.bitwise_or", "R.bitwise_or", "element-wise bitwise or", false},
      {"relax.bitwise_xor", "R.bitwise_xor", "element-wise bitwise xor", false},
      {"relax.left_shift", "R.left_shift", "element-wise left shift", false},
      {"relax.right_shift", "R.right_shift", "element-wise right shift", false},
      {"relax.equal", "R.equal", "element-wise x1 == x2 (bool result)", true},
      {"relax.not_equal", "R.not_equal", "element-wise x1 != x2 (bool result)", true},
      {"relax.less", "R.less", "element-wise x1 < x2 (bool result)", true},
      {"relax.less_equal", "R.less_equal", "element-wise x1 <= x2 (bool result)", true},
      {"relax.greater", "R.greater", "element-wise x1 > x2 (bool result)", true},
      {"relax.greater_equal", "R.greater_equal", "element-wise x1 >= x2 (bool result)", true},
  };
  for (const Entry& e : entries)
    table.push_back(make_op(e.name, e.text, binary_params(), {},
                            e.comparison ? infer_compare : infer_arith, e.doc));
  table.push_back(
      make_op("relax.ewise_fma", "R.ewise_fma",
              {{"x1", ArgKind::Tensor}, {"x2", ArgKind::Tensor}, {"x3", ArgKind::Tensor}}, {},
              infer_ewise_fma, "x1 * x2 + x3 on equally shaped tensors"));
}

}  // namespace raxc::analysis::ops
