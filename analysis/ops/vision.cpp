// Detection post-processing operators R.vision.* (operators.md §3.13, brief): fixed-rank
// outputs derived from the input shapes and attributes.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::StructInfo* tuple_of(InferContext& ctx, std::vector<const ir::StructInfo*> fields) {
  return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
}

// dims of a tensor argument with a required rank; nullopt (after RX3113) on a rank mismatch or
// when the shape is unknown.
std::optional<Dims> ranked_dims(InferContext& ctx, std::string_view name, int rank,
                                const ir::TensorSInfo** out = nullptr) {
  const ir::TensorSInfo* t = tensor_arg(ctx, name);
  if (out) *out = t;
  if (!t) return std::nullopt;
  if (t->ndim >= 0 && t->ndim != rank) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = std::string(name),
                                               .ndim = std::to_string(rank),
                                               .sinfo = sinfo_text(t)},
               param_span(ctx, param(ctx, name)));
    return std::nullopt;
  }
  return s_dims(*t);
}

const ir::StructInfo* infer_all_class_nms(InferContext& ctx) {
  const ir::TensorSInfo* boxes = nullptr;
  const ir::TensorSInfo* scores = nullptr;
  auto b = ranked_dims(ctx, "boxes", 3, &boxes);
  auto s = ranked_dims(ctx, "scores", 3, &scores);
  std::string format = attr_string(ctx, "output_format").value_or("onnx");
  DataType i64 = DataType::Int(64);
  auto& an = ctx.analyzer;
  if (format != "onnx" && format != "tensorflow") {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "output_format",
                                              .reason = "expected 'onnx' or 'tensorflow'"},
               param_span(ctx, param(ctx, "output_format")));
    format = "onnx";
  }
  DataType score_dt = scores ? scores->dtype : DataType::Void();
  if (!b || !s) {
    if (format == "onnx")
      return tuple_of(
          ctx, {rank_only(ctx, 2, i64, nullptr), make_tensor(ctx, {an.make_int(1)}, i64, nullptr)});
    return tuple_of(ctx, {rank_only(ctx, 3, i64, nullptr), rank_only(ctx, 2, score_dt, nullptr),
                          rank_only(ctx, 1, i64, nullptr)});
  }
  const PrimExpr* batch = (*b)[0];
  const PrimExpr* classes = (*s)[1];
  const PrimExpr* num_boxes = (*b)[1];
  check_dims_equal(ctx, (*s)[0], "the batch of 'scores'", batch, "that of 'boxes'", ctx.call.span);
  check_dims_equal(ctx, (*s)[2], "the box count of 'scores'", num_boxes, "that of 'boxes'",
                   ctx.call.span);
  const PrimExpr* per_batch = an.mul(classes, num_boxes);
  if (format == "onnx")
    return tuple_of(ctx,
                    {make_tensor(ctx, {an.mul(batch, per_batch), an.make_int(3)}, i64, nullptr),
                     make_tensor(ctx, {an.make_int(1)}, i64, nullptr)});
  return tuple_of(ctx, {make_tensor(ctx, {batch, per_batch, an.make_int(2)}, i64, nullptr),
                        make_tensor(ctx, {batch, per_batch}, score_dt, nullptr),
                        make_tensor(ctx, {batch}, i64, nullptr)});
}

const ir::StructInfo* infer_get_valid_counts(InferContext& ctx) {
  const ir::TensorSInfo* data = nullptr;
  auto d = ranked_dims(ctx, "data", 3, &data);
  attr_float(ctx, "score_threshold");
  attr_int(ctx, "id_index");
  attr_int(ctx, "score_index");
  DataType i32 = DataType::Int(32);
  if (!data)
    return tuple_of(ctx,
                    {rank_only(ctx, 1, i32, nullptr), rank_only(ctx, 3, DataType::Void(), nullptr),
                     rank_only(ctx, 2, i32, nullptr)});
  if (!d)
    return tuple_of(
        ctx, {rank_only(ctx, 1, i32, data->vdevice), data, rank_only(ctx, 2, i32, data->vdevice)});
  return tuple_of(ctx, {make_tensor(ctx, {(*d)[0]}, i32, data->vdevice), data,
                        make_tensor(ctx, {(*d)[0], (*d)[1]}, i32, data->vdevice)});
}

const ir::StructInfo* infer_nms(InferContext& ctx) {
  const ir::TensorSInfo* data = nullptr;
  auto d = ranked_dims(ctx, "data", 3, &data);
  tensor_arg(ctx, "valid_count");
  tensor_arg(ctx, "indices");
  bool return_indices = attr_bool(ctx, "return_indices").value_or(true);
  double sigma = attr_float(ctx, "soft_nms_sigma").value_or(0.0);
  DataType i32 = DataType::Int(32);
  if (!data) return rank_only(ctx, -1, DataType::Void(), nullptr);
  if (!return_indices) return data;
  const ir::StructInfo* idx;
  const ir::StructInfo* count;
  if (d) {
    idx = make_tensor(ctx, {(*d)[0], (*d)[1]}, i32, data->vdevice);
    count = make_tensor(ctx, {(*d)[0], ctx.analyzer.make_int(1)}, i32, data->vdevice);
  } else {
    idx = rank_only(ctx, 2, i32, data->vdevice);
    count = rank_only(ctx, 2, i32, data->vdevice);
  }
  if (sigma > 0.0) return tuple_of(ctx, {data, idx, count});
  return tuple_of(ctx, {idx, count});
}

const ir::StructInfo* infer_multibox_transform_loc(InferContext& ctx) {
  const ir::TensorSInfo* cls = nullptr;
  auto c = ranked_dims(ctx, "cls_prob", 3, &cls);
  tensor_arg(ctx, "loc_pred");
  tensor_arg(ctx, "anchor");
  if (!cls)
    return tuple_of(ctx, {rank_only(ctx, 3, DataType::Void(), nullptr),
                          rank_only(ctx, 3, DataType::Void(), nullptr)});
  if (!c) return tuple_of(ctx, {rank_only(ctx, 3, cls->dtype, cls->vdevice), cls});
  return tuple_of(ctx, {make_tensor(ctx, {(*c)[0], (*c)[2], ctx.analyzer.make_int(4)}, cls->dtype,
                                    cls->vdevice),
                        cls});
}

// roi_align and roi_pool: data (N, C, H, W) or NHWC, rois (num_rois, 5); the output has one
// pooled_size window per region.
const ir::StructInfo* infer_roi_align(InferContext& ctx) {
  const ir::TensorSInfo* x = nullptr;
  auto d = ranked_dims(ctx, "data", 4, &x);
  auto r = ranked_dims(ctx, "rois", 2);
  auto pooled = attr_prim_list(ctx, "pooled_size");
  attr_float(ctx, "spatial_scale");  // type-checked (RX3103); no influence on the shape
  std::string layout = attr_string(ctx, "layout").value_or("NCHW");
  if (!x) return rank_only(ctx, 4, DataType::Void(), nullptr);
  if (layout != "NCHW" && layout != "NHWC") {
    ctx.report(
        diag::OperatorInvalidLayout{
            .op = op_text(ctx), .layout = layout, .kind = "data (NCHW or NHWC)"},
        param_span(ctx, param(ctx, "layout")));
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  }
  if (!d || !r || !pooled || pooled->empty() || pooled->size() > 2)
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  const PrimExpr* ph = (*pooled)[0];
  const PrimExpr* pw = pooled->size() == 2 ? (*pooled)[1] : ph;
  const PrimExpr* channels = layout == "NCHW" ? (*d)[1] : (*d)[3];
  Dims out = layout == "NCHW" ? Dims{(*r)[0], channels, ph, pw} : Dims{(*r)[0], ph, pw, channels};
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

}  // namespace

void register_vision(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.vision.all_class_non_max_suppression",
                          "R.vision.all_class_non_max_suppression",
                          {{"boxes", K::Tensor},
                           {"scores", K::Tensor},
                           {"max_output_boxes_per_class", K::Tensor},
                           {"iou_threshold", K::Tensor},
                           {"score_threshold", K::Tensor}},
                          {{"output_format", K::String, true, "\"onnx\""}}, infer_all_class_nms,
                          "non-maximum suppression over all classes (ONNX / TensorFlow outputs)"));
  table.push_back(
      make_op("relax.vision.get_valid_counts", "R.vision.get_valid_counts", {{"data", K::Tensor}},
              {{"score_threshold", K::Float, true, "0.0"},
               {"id_index", K::Int, true, "0"},
               {"score_index", K::Int, true, "1"}},
              infer_get_valid_counts, "counts and compacts the boxes above a score threshold"));
  table.push_back(make_op("relax.vision.non_max_suppression", "R.vision.non_max_suppression",
                          {{"data", K::Tensor}, {"valid_count", K::Tensor}, {"indices", K::Tensor}},
                          {{"max_output_size", K::Int, true, "-1"},
                           {"iou_threshold", K::Float, true, "0.5"},
                           {"force_suppress", K::Bool, true, "False"},
                           {"top_k", K::Int, true, "-1"},
                           {"coord_start", K::Int, true, "2"},
                           {"score_index", K::Int, true, "1"},
                           {"id_index", K::Int, true, "0"},
                           {"return_indices", K::Bool, true, "True"},
                           {"invalid_to_bottom", K::Bool, true, "False"},
                           {"soft_nms_sigma", K::Float, true, "0.0"},
                           {"score_threshold", K::Float, true, "0.0"}},
                          infer_nms, "non-maximum suppression of detection boxes"));
  table.push_back(make_op("relax.vision.multibox_transform_loc", "R.vision.multibox_transform_loc",
                          {{"cls_prob", K::Tensor}, {"loc_pred", K::Tensor}, {"anchor", K::Tensor}},
                          {{"clip", K::Bool, true, "True"},
                           {"threshold", K::Float, true, "0.01"},
                           {"variances", K::Other, true, "(0.1, 0.1, 0.2, 0.2)"},
                           {"keep_background", K::Bool, true, "False"}},
                          infer_multibox_transform_loc,
                          "decodes SSD box predictions against anchors"));
  table.push_back(make_op("relax.vision.roi_align", "R.vision.roi_align",
                          {{"data", K::Tensor}, {"rois", K::Tensor}},
                          {{"pooled_size", K::IntList},
                           {"spatial_scale", K::Float},
                           {"sample_ratio", K::Int, true, "-1"},
                           {"aligned", K::Bool, true, "False"},
                           {"layout", K::String, true, "\"NCHW\""},
                           {"mode", K::String, true, "\"avg\""}},
                          infer_roi_align, "region-of-interest align pooling"));
  // roi_pool: max pooling over each region; same output layout as roi_align,
  // (num_rois, C, pooled_h, pooled_w) for NCHW.
  table.push_back(make_op("relax.vision.roi_pool", "R.vision.roi_pool",
                          {{"data", K::Tensor}, {"rois", K::Tensor}},
                          {{"pooled_size", K::IntList},
                           {"spatial_scale", K::Float},
                           {"layout", K::String, true, "\"NCHW\""}},
                          infer_roi_align, "region-of-interest max pooling"));
  // R.device(dev_type, index) is lowered as a call; it only appears as hint_on_device's target.
  table.push_back(language(make_op(
      "relax.device", "R.device", {{"dev_type", K::Prim}, {"index", K::Prim, true, "0"}}, {},
      [](InferContext& ctx) { return object(ctx); },
      "a device (type code, index), the target of R.hint_on_device")));
}

}  // namespace raxc::analysis::ops
