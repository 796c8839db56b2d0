// Image operators R.image.* (operators.md §3.13): resize2d/3d, affine_grid and grid_sample
// (TVM's R.image.grid_sample: the grid laid out (batch, 2, H, W) like affine_grid's output).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

template <size_t N>
const ir::StructInfo* infer_resize(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<ShapeOperand> size = shape_operand(ctx, "size");
  std::string canonical = N == 2 ? "NCHW" : "NCDHW";
  std::string layout = attr_string(ctx, "layout").value_or(canonical);
  std::optional<DataType> out = attr_dtype(ctx, "out_dtype");
  if (!x) return unknown(ctx, int(N + 2));
  DataType dtype = out && !out->is_void() ? *out : x->dtype;
  if (size && size->ndim >= 0 && size->ndim != int(N) && !(size->ndim == 1)) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "size",
                                       .reason = "expected " + std::to_string(N) + " values"},
        ctx.arg_span(1));
    return rank_only(ctx, int(N + 2), dtype, x->vdevice);
  }
  bool simple = layout.size() == N + 2;
  for (char c : layout) simple = simple && c >= 'A' && c <= 'Z';
  if (!simple) return rank_only(ctx, x->ndim, dtype, x->vdevice);
  if (x->ndim >= 0 && x->ndim != int(N + 2)) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = "data",
                                               .ndim = std::to_string(N + 2),
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return rank_only(ctx, int(N + 2), dtype, x->vdevice);
  }
  auto dims = s_dims(*x);
  if (!dims || !size || !size->dims || !ir::isa<ir::ShapeExpr>(size->expr))
    return rank_only(ctx, int(N + 2), dtype, x->vdevice);
  Dims s = *size->dims;
  if (s.size() == 1) s = Dims(N, s[0]);
  Dims out_dims = *dims;
  std::string spatial = N == 2 ? "HW" : "DHW";
  for (size_t i = 0; i < N; ++i) {
    size_t p = layout.find(spatial[i]);
    if (p == std::string::npos) return rank_only(ctx, int(N + 2), dtype, x->vdevice);
    out_dims[p] = s[i];
  }
  return make_tensor(ctx, std::move(out_dims), dtype, x->vdevice);
}

const ir::StructInfo* infer_affine_grid(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<ShapeOperand> size = shape_operand(ctx, "size");
  attr_bool(ctx, "align_corners");
  if (!x) return unknown(ctx, 4);
  if (x->ndim >= 0 && x->ndim != 3) {
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "data", .ndim = "3", .sinfo = sinfo_text(x)},
        ctx.arg_span(0));
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  }
  auto dims = s_dims(*x);
  if (!dims || !size || !size->dims || size->dims->size() != 2)
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  return make_tensor(ctx,
                     {(*dims)[0], ctx.analyzer.make_int(2), (*size->dims)[0], (*size->dims)[1]},
                     x->dtype, x->vdevice);
}

// grid_sample(data (N, C, H, W), grid (N, 2, Ho, Wo)) -> (N, C, Ho, Wo), data's dtype.
const ir::StructInfo* infer_grid_sample(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  const ir::TensorSInfo* g = tensor_arg(ctx, "grid");
  attr_string(ctx, "method");
  attr_string(ctx, "layout");
  attr_string(ctx, "padding_mode");
  attr_bool(ctx, "align_corners");
  if (!x || !g) return unknown(ctx, 4);
  for (auto [t, name] : {std::pair{x, "data"}, std::pair{g, "grid"}}) {
    if (t->ndim >= 0 && t->ndim != 4) {
      ctx.report(
          diag::OperatorArgumentWrongRank{
              .op = op_text(ctx), .parameter = name, .ndim = "4", .sinfo = sinfo_text(t)},
          ctx.arg_span(name == std::string("data") ? 0 : 1));
      return rank_only(ctx, 4, x->dtype, x->vdevice);
    }
  }
  auto xd = s_dims(*x);
  auto gd = s_dims(*g);
  if (!xd || !gd) return rank_only(ctx, 4, x->dtype, x->vdevice);
  return make_tensor(ctx, {(*xd)[0], (*xd)[1], (*gd)[2], (*gd)[3]}, x->dtype, x->vdevice);
}

}  // namespace

void register_image(std::vector<OpDef>& table) {
  using K = ArgKind;
  std::vector<ParamSpec> resize_attrs = {
      {"roi", K::Other, true, "None"},
      {"layout", K::String, true, "\"NCHW\""},
      {"method", K::String, true, "\"linear\""},
      {"coordinate_transformation_mode", K::String, true, "\"half_pixel\""},
      {"rounding_method", K::String, true, "\"round\""},
      {"cubic_alpha", K::Float, true, "-0.75"},
      {"cubic_exclude", K::Int, true, "0"},
      {"extrapolation_value", K::Float, true, "0.0"},
      {"out_dtype", K::DType, true, "None"}};
  table.push_back(make_op("relax.image.resize2d", "R.image.resize2d",
                          {{"data", K::Tensor}, {"size", K::Shape}}, resize_attrs, infer_resize<2>,
                          "resizes the spatial dims (ONNX Resize)"));
  resize_attrs[1].default_text = "\"NCDHW\"";
  table.push_back(make_op("relax.image.resize3d", "R.image.resize3d",
                          {{"data", K::Tensor}, {"size", K::Shape}}, resize_attrs, infer_resize<3>,
                          "resizes the 3 spatial dims (ONNX Resize)"));
  table.push_back(make_op("relax.image.affine_grid", "R.image.affine_grid",
                          {{"data", K::Tensor}, {"size", K::Shape}},
                          {{"align_corners", K::Bool, true, "False"}}, infer_affine_grid,
                          "a sampling grid from affine matrices (batch, 2, H, W)"));
  table.push_back(make_op(
      "relax.image.grid_sample", "R.image.grid_sample", {{"data", K::Tensor}, {"grid", K::Tensor}},
      {{"method", K::String, true, "\"bilinear\""},
       {"layout", K::String, true, "\"NCHW\""},
       {"padding_mode", K::String, true, "\"zeros\""},
       {"align_corners", K::Bool, true, "True"}},
      infer_grid_sample,
      "samples data at the normalised positions of grid (batch, 2, H, W): x then y in [-1, 1] "
      "(PyTorch's grid_sample, ONNX GridSample)"));
}

}  // namespace raxc::analysis::ops
