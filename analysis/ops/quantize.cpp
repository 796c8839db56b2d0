// Quantization operators (operators.md §3.13): quantize and dequantize by scale and zero point.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* infer_quantize(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  tensor_arg(ctx, "scale");
  tensor_arg(ctx, "zero_point");
  bool is_quantize = current_op(ctx).name == "relax.quantize";
  DataType dflt = is_quantize ? DataType::Int(8) : DataType::Float(32);
  DataType dt = attr_dtype(ctx, "out_dtype").value_or(dflt);
  if (!x) return rank_only(ctx, -1, dt, nullptr);
  if (x->ndim >= 0)
    normalize_axis(ctx, attr_int(ctx, "axis").value_or(-1), x->ndim,
                   param_span(ctx, param(ctx, "axis")));
  return with_dtype(ctx, *x, dt);
}

}  // namespace

void register_quantize(std::vector<OpDef>& table) {
  using K = ArgKind;
  std::vector<ParamSpec> q_args = {
      {"data", K::Tensor}, {"scale", K::Tensor}, {"zero_point", K::Tensor}};
  table.push_back(make_op("relax.quantize", "R.quantize", q_args,
                          {{"axis", K::Int, true, "-1"}, {"out_dtype", K::DType, true, "\"int8\""}},
                          infer_quantize, "round(x / scale) + zero_point, clipped to out_dtype"));
  table.push_back(
      make_op("relax.dequantize", "R.dequantize", q_args,
              {{"axis", K::Int, true, "-1"}, {"out_dtype", K::DType, true, "\"float32\""}},
              infer_quantize, "(x - zero_point) * scale in out_dtype"));
}

}  // namespace raxc::analysis::ops
