// Element-wise unary operators, astype/wrap_param and clip (operators.md §3.2, §3.4).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* unary_result(InferContext& ctx, const ir::TensorSInfo& x, DataType dtype) {
  const ir::VDevice* vdev = x.vdevice;
  if (!ctx.call.sinfo_args.empty())
    if (auto* t = ir::dyn_cast<ir::TensorSInfo>(ctx.call.sinfo_args[0])) vdev = t->vdevice;
  return ctx.arena().make<ir::TensorSInfo>(x.shape, dtype, vdev, x.ndim);
}

const ir::StructInfo* infer_same(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return rank_only(ctx, -1, DataType::Void(), nullptr);
  return unary_result(ctx, *x, x->dtype);
}

const ir::StructInfo* infer_float_only(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return rank_only(ctx, -1, DataType::Void(), nullptr);
  require_float(ctx, *x, "x");
  return unary_result(ctx, *x, x->dtype);
}

const ir::StructInfo* infer_check(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return rank_only(ctx, -1, DataType::Bool(), nullptr);
  return unary_result(ctx, *x, DataType::Bool());
}

const ir::StructInfo* infer_astype(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  DataType dt = dtype.value_or(DataType::Void());
  if (!x) return rank_only(ctx, -1, dt, nullptr);
  return with_dtype(ctx, *x, dt);
}

const ir::StructInfo* infer_clip(InferContext& ctx) {
  for (std::string_view bound : {"min", "max"}) {
    const ir::StructInfo* s = arg_sinfo(ctx, bound);
    if (s && !ir::isa<ir::PrimSInfo>(s))
      ctx.report(
          diag::OperatorArgumentNotPrimValue{
              .op = op_text(ctx), .parameter = std::string(bound), .sinfo = sinfo_text(s)},
          param_span(ctx, param(ctx, bound)));
  }
  return infer_same(ctx);
}

}  // namespace

void register_unary(std::vector<OpDef>& table) {
  struct Entry {
    std::string_view name, text, doc;
    InferFn infer;
  };
  static const Entry entries[] = {
      {"relax.abs", "R.abs", "element-wise absolute value", infer_same},
      {"relax.negative", "R.negative", "element-wise negation (-x)", infer_same},
      {"relax.square", "R.square", "element-wise x * x", infer_same},
      {"relax.sign", "R.sign", "element-wise sign (1, 0 or -1)", infer_same},
      {"relax.floor", "R.floor", "element-wise floor", infer_same},
      {"relax.ceil", "R.ceil", "element-wise ceiling", infer_same},
      {"relax.trunc", "R.trunc", "element-wise truncation toward zero", infer_same},
      {"relax.round", "R.round", "element-wise round half to even", infer_same},
      {"relax.bitwise_not", "R.bitwise_not", "element-wise bitwise not", infer_same},
      {"relax.logical_not", "R.logical_not", "element-wise logical not", infer_same},
      {"relax.exp", "R.exp", "element-wise exponential (float)", infer_float_only},
      {"relax.log", "R.log", "element-wise natural logarithm (float)", infer_float_only},
      {"relax.sqrt", "R.sqrt", "element-wise square root (float)", infer_float_only},
      {"relax.rsqrt", "R.rsqrt", "element-wise 1 / sqrt(x) (float)", infer_float_only},
      {"relax.sigmoid", "R.sigmoid", "element-wise logistic sigmoid (float)", infer_float_only},
      {"relax.tanh", "R.tanh", "element-wise hyperbolic tangent (float)", infer_float_only},
      {"relax.sin", "R.sin", "element-wise sine (float)", infer_float_only},
      {"relax.cos", "R.cos", "element-wise cosine (float)", infer_float_only},
      {"relax.tan", "R.tan", "element-wise tangent (float)", infer_float_only},
      {"relax.asin", "R.asin", "element-wise arc sine (float)", infer_float_only},
      {"relax.acos", "R.acos", "element-wise arc cosine (float)", infer_float_only},
      {"relax.atan", "R.atan", "element-wise arc tangent (float)", infer_float_only},
      {"relax.sinh", "R.sinh", "element-wise hyperbolic sine (float)", infer_float_only},
      {"relax.cosh", "R.cosh", "element-wise hyperbolic cosine (float)", infer_float_only},
      {"relax.asinh", "R.asinh", "element-wise inverse hyperbolic sine (float)", infer_float_only},
      {"relax.acosh", "R.acosh", "element-wise inverse hyperbolic cosine (float)",
       infer_float_only},
      {"relax.atanh", "R.atanh", "element-wise inverse hyperbolic tangent (float)",
       infer_float_only},
      {"relax.erf", "R.erf", "element-wise error function (float)", infer_float_only},
      {"relax.isnan", "R.isnan", "element-wise NaN test (bool result)", infer_check},
      {"relax.isinf", "R.isinf", "element-wise infinity test (bool result)", infer_check},
      {"relax.isfinite", "R.isfinite", "element-wise finiteness test (bool result)", infer_check},
  };
  for (const Entry& e : entries)
    table.push_back(make_op(e.name, e.text, {{"x", ArgKind::Tensor}}, {}, e.infer, e.doc));
  table.push_back(make_op("relax.astype", "R.astype", {{"x", ArgKind::Tensor}},
                          {{"dtype", ArgKind::DType}}, infer_astype,
                          "converts every element to dtype"));
  table.push_back(make_op(
      "relax.wrap_param", "R.wrap_param", {{"data", ArgKind::Tensor}},
      {{"dtype", ArgKind::DType, true, "\"float32\""}},
      [](InferContext& ctx) -> const ir::StructInfo* {
        const ir::TensorSInfo* x = tensor_arg(ctx, "data");
        DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Float(32));
        if (!x) return rank_only(ctx, -1, dt, nullptr);
        return with_dtype(ctx, *x, dt);
      },
      "marks a model parameter, cast to dtype"));
  table.push_back(make_op("relax.clip", "R.clip",
                          {{"x", ArgKind::Tensor}, {"min", ArgKind::Prim}, {"max", ArgKind::Prim}},
                          {}, infer_clip, "clamps every element into [min, max]"));
}

}  // namespace raxc::analysis::ops
