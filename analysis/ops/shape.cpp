// Shape values (operators.md §3.11): the run-time shape of a tensor, its size, and the
// conversions between a shape and a 1-D int64 tensor.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* infer_shape_of(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return ctx.arena().make<ir::ShapeSInfo>(std::nullopt, -1);
  if (auto dims = s_dims(*x)) return ctx.arena().make<ir::ShapeSInfo>(*dims, x->ndim);
  return ctx.arena().make<ir::ShapeSInfo>(std::nullopt, x->ndim);
}

const ir::StructInfo* infer_size(InferContext& ctx) {
  tensor_arg(ctx, "x");
  return make_tensor(ctx, {}, DataType::Int(64), nullptr);
}

const ir::StructInfo* infer_tensor_to_shape(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return ctx.arena().make<ir::ShapeSInfo>(std::nullopt, -1);
  if (x->ndim != 1) {
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "x", .ndim = "1", .sinfo = sinfo_text(x)},
        ctx.arg_span(0));
    return ctx.arena().make<ir::ShapeSInfo>(std::nullopt, -1);
  }
  int ndim = -1;
  if (auto dims = v_dims(*x))
    if (auto k = ctx.analyzer.as_int((*dims)[0])) ndim = int(*k);
  return ctx.arena().make<ir::ShapeSInfo>(std::nullopt, ndim);
}

const ir::StructInfo* infer_shape_to_tensor(InferContext& ctx) {
  const ir::ShapeSInfo* s = shape_arg(ctx, "x");
  if (!s || s->ndim < 0) return rank_only(ctx, 1, DataType::Int(64), nullptr);
  return make_tensor(ctx, {ctx.analyzer.make_int(s->ndim)}, DataType::Int(64), nullptr);
}

}  // namespace

void register_shape(std::vector<OpDef>& table) {
  using K = ArgKind;
  // Shape values are the language's own: only R.size is a tensor operator.
  table.push_back(language(make_op("relax.shape_of", "R.shape_of", {{"x", K::Tensor}}, {},
                                   infer_shape_of, "the run-time shape of a tensor")));
  table.push_back(make_op("relax.size", "R.size", {{"x", K::Tensor}}, {}, infer_size,
                          "the number of elements of a tensor (int64 scalar)"));
  table.push_back(
      language(make_op("relax.tensor_to_shape", "R.tensor_to_shape", {{"x", K::Tensor}}, {},
                       infer_tensor_to_shape, "reads a 1-D int64 tensor as a shape value")));
  table.push_back(
      language(make_op("relax.shape_to_tensor", "R.shape_to_tensor", {{"x", K::Shape}}, {},
                       infer_shape_to_tensor, "a 1-D int64 tensor holding a shape's dims")));
}

}  // namespace raxc::analysis::ops
