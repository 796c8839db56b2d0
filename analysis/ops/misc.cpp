// Shapes, devices, allocation / VM operators, gradients, image and misc operators
// (operators.md §3.11, §3.13).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::StructInfo* unit(InferContext& ctx) {
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{});
}

const ir::StructInfo* unknown(InferContext& ctx, int ndim = -1) {
  return rank_only(ctx, ndim, DataType::Void(), nullptr);
}

// ------------------------------------------------------------------------------ shapes

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
    ctx.report(DiagId::RX3113, ctx.arg_span(0), {op_text(ctx), "x", "1", sinfo_text(x)});
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

const ir::StructInfo* infer_object(InferContext& ctx) { return object(ctx); }

const ir::StructInfo* infer_identity(InferContext& ctx) {
  const ir::StructInfo* s = ctx.args.empty() ? nullptr : ctx.args[0];
  return s ? s : object(ctx);
}

const ir::StructInfo* infer_tensor_identity(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, current_op(ctx).args[0].name);
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

// ----------------------------------------------------------------------------- devices

// "kind", "kind:i", "kind:i:scope" or "vdevice:i" against the module's vdevice list.
const ir::VDevice* resolve_vdevice(InferContext& ctx, const std::string& text) {
  std::string kind = text, scope;
  int64_t index = 0;
  size_t colon = text.find(':');
  if (colon != std::string::npos) {
    kind = text.substr(0, colon);
    std::string rest = text.substr(colon + 1);
    size_t colon2 = rest.find(':');
    if (colon2 != std::string::npos) {
      scope = rest.substr(colon2 + 1);
      rest = rest.substr(0, colon2);
    }
    index = std::atoll(rest.c_str());
  }
  if (ctx.module) {
    const auto& list = ctx.module->vdevices;
    if (kind == "vdevice") return index < int64_t(list.size()) ? list[size_t(index)] : nullptr;
    int64_t seen = 0;
    for (const ir::VDevice* v : list)
      if (v->target_kind == kind && seen++ == index) return v;
    return nullptr;
  }
  auto* v = ctx.arena().make<ir::VDevice>();
  v->target_kind = kind;
  v->dev_id = index;
  if (!scope.empty()) v->mem_scope = scope;
  return v;
}

const ir::StructInfo* infer_to_vdevice(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<std::string> dst = attr_string(ctx, "dst_vdevice");
  if (!x) return unknown(ctx);
  if (!dst) return x;
  const ir::VDevice* v = resolve_vdevice(ctx, *dst);
  if (!v) {
    ctx.report(DiagId::RX3116, param_span(ctx, param(ctx, "dst_vdevice")),
               {op_text(ctx), "dst_vdevice",
                "'" + *dst + "' is not listed in the module's vdevice global_info"});
    return x;
  }
  return ctx.arena().make<ir::TensorSInfo>(x->shape, x->dtype, v, x->ndim);
}

// --------------------------------------------------------------------------- allocation

const ir::StructInfo* infer_builtin_alloc_tensor(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Void());
  attr_int(ctx, "runtime_device_index");
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, nullptr);
}

const ir::StructInfo* infer_memory_alloc_tensor(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Void());
  attr_int(ctx, "offset");
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, nullptr);
}

const ir::StructInfo* infer_memory_view(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<DataType> dt = attr_dtype(ctx, "dtype");
  if (!x) return unknown(ctx);
  DataType dtype = dt && !dt->is_void() ? *dt : x->dtype;
  if (param(ctx, "shape").present()) {
    if (auto shape = shape_operand(ctx, "shape"))
      return tensor_of_shape(ctx, *shape, dtype, x->vdevice);
  }
  return with_dtype(ctx, *x, dtype);
}

// ---------------------------------------------------------------------------- ewise_fma

const ir::StructInfo* infer_ewise_fma(InferContext& ctx) {
  const ir::TensorSInfo* a = tensor_arg(ctx, "x1");
  const ir::TensorSInfo* b = tensor_arg(ctx, "x2");
  const ir::TensorSInfo* c = tensor_arg(ctx, "x3");
  if (!a || !b || !c) return unknown(ctx);
  if (a->ndim >= 0 &&
      ((b->ndim >= 0 && b->ndim != a->ndim) || (c->ndim >= 0 && c->ndim != a->ndim))) {
    ctx.report(DiagId::RX3122, ctx.call.span,
               {op_text(ctx), "all three operands", std::to_string(a->ndim),
                std::to_string(b->ndim != a->ndim ? b->ndim : c->ndim)});
    return rank_only(ctx, -1, a->dtype, a->vdevice);
  }
  DataType dtype = DataType::Void();
  if (!a->dtype.is_void() && !b->dtype.is_void() && !c->dtype.is_void()) {
    if (a->dtype != b->dtype || a->dtype != c->dtype)
      ctx.report(DiagId::RX3108, ctx.call.span,
                 {op_text(ctx), "all three operands", a->dtype.str(),
                  (a->dtype != b->dtype ? b : c)->dtype.str()});
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

// ---------------------------------------------------------------------------- gradients

// The gradient of an op has the StructInfo of the forward input named `like`.
const ir::StructInfo* infer_grad_like(InferContext& ctx, std::string_view like) {
  for (const ParamSpec& p : current_op(ctx).args)
    if (p.kind == ArgKind::Tensor && arg_sinfo(ctx, p.name) && p.name != like && !p.optional)
      tensor_arg(ctx, p.name);
  const ir::TensorSInfo* x = tensor_arg(ctx, like);
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

const ir::StructInfo* infer_pool_backward(InferContext& ctx) {
  return infer_grad_like(ctx, "data");
}
const ir::StructInfo* infer_nll_backward(InferContext& ctx) {
  return infer_grad_like(ctx, "predictions");
}
const ir::StructInfo* infer_take_backward(InferContext& ctx) { return infer_grad_like(ctx, "x"); }

// ------------------------------------------------------------------------------- image

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
    ctx.report(DiagId::RX3116, ctx.arg_span(1),
               {op_text(ctx), "size", "expected " + std::to_string(N) + " values"});
    return rank_only(ctx, int(N + 2), dtype, x->vdevice);
  }
  bool simple = layout.size() == N + 2;
  for (char c : layout) simple = simple && c >= 'A' && c <= 'Z';
  if (!simple) return rank_only(ctx, x->ndim, dtype, x->vdevice);
  if (x->ndim >= 0 && x->ndim != int(N + 2)) {
    ctx.report(DiagId::RX3113, ctx.arg_span(0),
               {op_text(ctx), "data", std::to_string(N + 2), sinfo_text(x)});
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

}  // namespace

void register_misc(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.shape_of", "R.shape_of", {{"x", K::Tensor}}, {}, infer_shape_of,
                          "the run-time shape of a tensor"));
  table.push_back(make_op("relax.size", "R.size", {{"x", K::Tensor}}, {}, infer_size,
                          "the number of elements of a tensor (int64 scalar)"));
  table.push_back(make_op("relax.tensor_to_shape", "R.tensor_to_shape", {{"x", K::Tensor}}, {},
                          infer_tensor_to_shape, "reads a 1-D int64 tensor as a shape value"));
  table.push_back(make_op("relax.shape_to_tensor", "R.shape_to_tensor", {{"x", K::Shape}}, {},
                          infer_shape_to_tensor, "a 1-D int64 tensor holding a shape's dims"));
  table.push_back(make_op("relax.null_value", "R.null_value", {}, {}, infer_object,
                          "a null object (placeholder for an omitted argument)"));
  table.push_back(
      make_op("relax.hint_on_device", "R.hint_on_device", {{"data", K::Tensor}},
              {{"dst_vdevice", K::Other}, {"memory_scope", K::String, true, "\"global\""}},
              infer_tensor_identity, "hints that data should live on a device"));
  table.push_back(make_op("relax.to_vdevice", "R.to_vdevice", {{"data", K::Tensor}},
                          {{"dst_vdevice", K::String}}, infer_to_vdevice,
                          "copies data to a virtual device of the module"));
  table.push_back(make_op("relax.builtin.alloc_tensor", "R.builtin.alloc_tensor",
                          {{"shape", K::Shape}},
                          {{"dtype", K::DType},
                           {"runtime_device_index", K::Int},
                           {"storage_scope", K::String, true, "\"global\""}},
                          infer_builtin_alloc_tensor, "allocates a tensor"));
  table.push_back(make_op("relax.builtin.stop_lift_params", "R.builtin.stop_lift_params",
                          {{"x", K::Tensor}}, {}, infer_tensor_identity,
                          "marks the end of parameter lifting (identity)"));
  table.push_back(make_op("relax.memory.alloc_storage", "R.memory.alloc_storage",
                          {{"size", K::Shape}},
                          {{"virtual_device_index", K::Int},
                           {"storage_scope", K::String, true, "\"global\""},
                           {"dtype", K::DType}},
                          infer_object, "allocates a storage block"));
  table.push_back(make_op("relax.memory.alloc_tensor", "R.memory.alloc_tensor",
                          {{"storage", K::Any}},
                          {{"offset", K::Int},
                           {"shape", K::Shape},
                           {"dtype", K::DType},
                           {"runtime_device_index", K::Int, true, "0"}},
                          infer_memory_alloc_tensor, "creates a tensor inside a storage block"));
  table.push_back(make_op("relax.memory.kill_storage", "R.memory.kill_storage",
                          {{"storage", K::Any}}, {}, unit, "ends a storage block's lifetime",
                          Purity::Impure));
  table.push_back(make_op("relax.memory.kill_tensor", "R.memory.kill_tensor", {{"tensor", K::Any}},
                          {}, unit, "ends a tensor's lifetime", Purity::Impure));
  table.push_back(make_op("relax.memory.view", "R.memory.view", {{"data", K::Tensor}},
                          {{"shape", K::Shape, true, "None"},
                           {"dtype", K::DType, true, "None"},
                           {"relative_byte_offset", K::Prim, true, "None"}},
                          infer_memory_view, "a view of data with a new shape/dtype"));
  table.push_back(make_op("relax.vm.alloc_storage", "R.vm.alloc_storage", {{"size", K::Shape}},
                          {{"runtime_device_index", K::Int},
                           {"dtype", K::DType},
                           {"storage_scope", K::String, true, "\"global\""}},
                          infer_object, "allocates a VM storage block"));
  table.push_back(make_op("relax.vm.alloc_tensor", "R.vm.alloc_tensor", {{"storage", K::Any}},
                          {{"offset", K::Int},
                           {"shape", K::Shape},
                           {"dtype", K::DType},
                           {"runtime_device_index", K::Int, true, "0"}},
                          infer_memory_alloc_tensor, "creates a tensor inside a VM storage block"));
  table.push_back(make_op("relax.vm.kill_object", "R.vm.kill_object", {{"obj", K::Any}}, {}, unit,
                          "ends an object's lifetime", Purity::Impure));
  table.push_back(
      make_op("relax.vm.call_tir_dyn", "R.vm.call_tir_dyn", {{"func", K::Other}, {"args", K::Any}},
              {}, unit, "calls a PrimFunc with outputs and shape values in args", Purity::Impure));
  table.push_back(make_op("relax.ewise_fma", "R.ewise_fma",
                          {{"x1", K::Tensor}, {"x2", K::Tensor}, {"x3", K::Tensor}}, {},
                          infer_ewise_fma, "x1 * x2 + x3 on equally shaped tensors"));
  // Gradients (produced by autodiff, also written in tests).
  std::vector<ParamSpec> pool_bwd_attrs = {{"pool_size", K::IntList},
                                           {"strides", K::IntList, true, "1"},
                                           {"padding", K::IntList, true, "0"},
                                           {"dilation", K::IntList, true, "1"},
                                           {"ceil_mode", K::Bool, true, "False"},
                                           {"count_include_pad", K::Bool, true, "False"},
                                           {"layout", K::String, true, "\"NCHW\""},
                                           {"out_layout", K::String, true, "None"}};
  table.push_back(make_op("relax.grad.max_pool2d_backward", "R.grad.max_pool2d_backward",
                          {{"output_grad", K::Tensor}, {"data", K::Tensor}}, pool_bwd_attrs,
                          infer_pool_backward, "gradient of max_pool2d (shaped like data)"));
  table.push_back(make_op("relax.grad.avg_pool2d_backward", "R.grad.avg_pool2d_backward",
                          {{"output_grad", K::Tensor}, {"data", K::Tensor}}, pool_bwd_attrs,
                          infer_pool_backward, "gradient of avg_pool2d (shaped like data)"));
  table.push_back(
      make_op("relax.grad.nll_loss_backward", "R.grad.nll_loss_backward",
              {{"output_grad", K::Tensor},
               {"predictions", K::Tensor},
               {"targets", K::Tensor},
               {"weights", K::Tensor, true, "None"}},
              {{"reduction", K::String, true, "\"mean\""}, {"ignore_index", K::Int, true, "-100"}},
              infer_nll_backward, "gradient of nll_loss (shaped like predictions)"));
  table.push_back(make_op("relax.grad.take_backward", "R.grad.take_backward",
                          {{"output_grad", K::Tensor}, {"x", K::Tensor}, {"indices", K::Tensor}},
                          {{"axis", K::Int, true, "None"}}, infer_take_backward,
                          "gradient of take (shaped like x)"));
  for (auto [name, text, doc] :
       {std::tuple{"relax.grad.start_checkpoint", "R.grad.start_checkpoint",
                   "marks the start of a gradient checkpoint (identity)"},
        std::tuple{"relax.grad.end_checkpoint", "R.grad.end_checkpoint",
                   "marks the end of a gradient checkpoint (identity)"},
        std::tuple{"relax.grad.no_grad", "R.grad.no_grad", "stops gradient flow (identity)"}})
    table.push_back(make_op(name, text, {{"input", K::Any}}, {}, infer_identity, doc));
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
  register_vision(table);
  register_extra(table);
}

}  // namespace raxc::analysis::ops
