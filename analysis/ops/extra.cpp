// Less common operators (operators.md §3.13): quantization, nd gather/scatter, one_hot,
// bucketize, meshgrid, windows, collective communication, pixel_shuffle, affine_grid.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::StructInfo* unknown(InferContext& ctx, int ndim = -1) {
  return rank_only(ctx, ndim, DataType::Void(), nullptr);
}

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

const ir::StructInfo* infer_gather_nd(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* idx = tensor_arg(ctx, "indices");
  int64_t batch_dims = attr_int(ctx, "batch_dims").value_or(0);
  if (!data || !idx) return unknown(ctx);
  if (!idx->dtype.is_void() && idx->dtype != DataType::Int(64))
    ctx.report(DiagId::RX3118, ctx.arg_span(1),
               {op_text(ctx), "indices", "an int64 tensor", sinfo_text(idx)});
  auto dd = s_dims(*data), id = s_dims(*idx);
  if (!dd || !id || id->empty()) return rank_only(ctx, -1, data->dtype, data->vdevice);
  std::optional<int64_t> l = ctx.analyzer.as_int(id->back());
  if (!l || batch_dims < 0 || batch_dims + *l > int64_t(dd->size()))
    return rank_only(ctx, -1, data->dtype, data->vdevice);
  Dims out(id->begin(), id->end() - 1);
  out.insert(out.end(), dd->begin() + batch_dims + *l, dd->end());
  return make_tensor(ctx, std::move(out), data->dtype, data->vdevice);
}

const ir::StructInfo* infer_scatter_nd(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  tensor_arg(ctx, "indices");
  const ir::TensorSInfo* upd = tensor_arg(ctx, "updates");
  if (!data) return unknown(ctx);
  if (upd && !upd->dtype.is_void() && !data->dtype.is_void() && upd->dtype != data->dtype)
    ctx.report(DiagId::RX3108, ctx.call.span,
               {op_text(ctx), "data and updates", data->dtype.str(), upd->dtype.str()});
  if (!s_dims(*data)) return rank_only(ctx, data->ndim, data->dtype, data->vdevice);
  return data;
}

const ir::StructInfo* infer_one_hot(InferContext& ctx) {
  const ir::TensorSInfo* idx = tensor_arg(ctx, "indices");
  DataType dt = DataType::Void();
  const ir::StructInfo* on = arg_sinfo(ctx, "on_value");
  const ir::StructInfo* off = arg_sinfo(ctx, "off_value");
  auto* pon = ir::dyn_cast<ir::PrimSInfo>(on);
  auto* poff = ir::dyn_cast<ir::PrimSInfo>(off);
  for (auto [s, name] : {std::pair{on, "on_value"}, std::pair{off, "off_value"}})
    if (s && !ir::isa<ir::PrimSInfo>(s))
      ctx.report(DiagId::RX3107, param_span(ctx, param(ctx, name)),
                 {op_text(ctx), name, sinfo_text(s)});
  if (pon && poff)
    dt = arith_dtype(ctx, pon->dtype, poff->dtype, "on_value and off_value", ctx.call.span);
  std::optional<int64_t> depth = attr_int(ctx, "depth");
  int64_t axis = attr_int(ctx, "axis").value_or(-1);
  if (!idx) return rank_only(ctx, -1, dt, nullptr);
  if (idx->ndim < 0) return rank_only(ctx, -1, dt, idx->vdevice);
  int r = idx->ndim + 1;
  auto ax = normalize_axis(ctx, axis, r, param_span(ctx, param(ctx, "axis")));
  auto dims = s_dims(*idx);
  if (!ax || !dims || !depth) return rank_only(ctx, r, dt, idx->vdevice);
  Dims out = *dims;
  out.insert(out.begin() + *ax, ctx.analyzer.make_int(*depth));
  return make_tensor(ctx, std::move(out), dt, idx->vdevice);
}

const ir::StructInfo* infer_bucketize(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input_tensor");
  const ir::TensorSInfo* b = tensor_arg(ctx, "boundaries");
  bool out_int32 = attr_bool(ctx, "out_int32").value_or(false);
  attr_bool(ctx, "right");
  DataType dt = out_int32 ? DataType::Int(32) : DataType::Int(64);
  if (b && b->ndim >= 0 && b->ndim != 1)
    ctx.report(DiagId::RX3113, ctx.arg_span(1), {op_text(ctx), "boundaries", "1", sinfo_text(b)});
  if (!x) return rank_only(ctx, -1, dt, nullptr);
  return with_dtype(ctx, *x, dt);
}

const ir::StructInfo* infer_meshgrid(InferContext& ctx) {
  auto ts = tensor_tuple_arg(ctx, "tensors");
  if (auto ix = attr_string(ctx, "indexing"); ix && *ix != "ij" && *ix != "xy")
    ctx.report(DiagId::RX3116, param_span(ctx, param(ctx, "indexing")),
               {op_text(ctx), "indexing", "expected 'ij' or 'xy'"});
  if (!ts) return unknown(ctx);
  size_t n = ts->size();
  Dims lens;
  bool known = true;
  for (size_t i = 0; i < n; ++i) {
    const ir::TensorSInfo* t = (*ts)[i];
    if (t->ndim >= 0 && t->ndim != 1) {
      ctx.report(DiagId::RX3113, ctx.arg_span(0),
                 {op_text(ctx), "tensor " + std::to_string(i), "1", sinfo_text(t)});
      known = false;
      continue;
    }
    auto d = s_dims(*t);
    if (!d || d->size() != 1)
      known = false;
    else
      lens.push_back((*d)[0]);
  }
  std::vector<const ir::StructInfo*> fields;
  for (const ir::TensorSInfo* t : *ts)
    fields.push_back(
        known ? static_cast<const ir::StructInfo*>(make_tensor(ctx, lens, t->dtype, t->vdevice))
              : rank_only(ctx, int(n), t->dtype, t->vdevice));
  return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
}

const ir::StructInfo* infer_hamming_window(InferContext& ctx) {
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Float(32));
  if (dt.is_integer()) {
    ctx.report(DiagId::RX3116, param_span(ctx, param(ctx, "dtype")),
               {op_text(ctx), "dtype", "the window dtype must not be an integer type"});
  }
  const ir::StructInfo* s = arg_sinfo(ctx, "window_size");
  auto* p = ir::dyn_cast<ir::PrimSInfo>(s);
  if (s && !p)
    ctx.report(DiagId::RX3107, ctx.arg_span(0), {op_text(ctx), "window_size", sinfo_text(s)});
  const PrimExpr* size = nullptr;
  if (!ctx.call.args.empty())
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[0])) size = pv->value;
  if (!size && p) size = p->value;
  if (!size) return rank_only(ctx, 1, dt, nullptr);
  if (auto v = ctx.analyzer.as_int(size); v && *v < 1)
    ctx.report(DiagId::RX3116, ctx.arg_span(0),
               {op_text(ctx), "window_size", "the window size must be at least 1"});
  return make_tensor(ctx, {size}, dt, nullptr);
}

const ir::StructInfo* infer_same_tensor(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  attr_string(ctx, "op_type");
  attr_bool(ctx, "in_group");
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

const ir::StructInfo* infer_allgather(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<int64_t> workers = attr_int(ctx, "num_workers");
  if (!x) return unknown(ctx);
  auto dims = v_dims(*x);
  if (!dims || dims->empty() || !workers) return x;
  Dims out = *dims;
  out[0] = ctx.analyzer.mul(out[0], ctx.analyzer.make_int(*workers));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_scatter_from_worker0(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<int64_t> workers = attr_int(ctx, "num_workers");
  int64_t axis = attr_int(ctx, "axis").value_or(0);
  if (!x) return unknown(ctx);
  if (x->ndim < 0 || !workers || *workers <= 0) return x;
  auto ax = normalize_axis(ctx, axis, x->ndim, param_span(ctx, param(ctx, "axis")));
  auto dims = v_dims(*x);
  if (!ax || !dims) return x;
  auto& an = ctx.analyzer;
  const PrimExpr* d = (*dims)[size_t(*ax)];
  if (auto v = an.as_int(d); v && *v % *workers != 0) {
    ctx.report(DiagId::RX3116, ctx.call.span,
               {op_text(ctx), "num_workers",
                "dimension " + std::to_string(*ax) + " of size " + std::to_string(*v) +
                    " is not divisible by " + std::to_string(*workers)});
    return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  Dims out = *dims;
  out[size_t(*ax)] = an.floordiv(d, an.make_int(*workers));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_pixel_shuffle(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> r = attr_int(ctx, "upscale_factor");
  if (!x) return unknown(ctx);
  if (x->ndim >= 0 && x->ndim < 3) {
    ctx.report(DiagId::RX3118, ctx.arg_span(0),
               {op_text(ctx), "data", "at least 3-dimensional", sinfo_text(x)});
    return rank_only(ctx, x->ndim, x->dtype, nullptr);
  }
  auto dims = s_dims(*x);
  if (!dims || !r || *r <= 0) return rank_only(ctx, x->ndim, x->dtype, nullptr);
  auto& an = ctx.analyzer;
  size_t n = dims->size();
  Dims out = *dims;
  const PrimExpr* rr = an.make_int(*r * *r);
  if (auto c = an.as_int(out[n - 3]); c && *c % (*r * *r) != 0) {
    ctx.report(DiagId::RX3116, ctx.call.span,
               {op_text(ctx), "upscale_factor",
                "the channel count " + std::to_string(*c) + " is not divisible by " +
                    std::to_string(*r * *r)});
    return rank_only(ctx, x->ndim, x->dtype, nullptr);
  }
  out[n - 3] = an.floordiv(out[n - 3], rr);
  out[n - 2] = an.mul(out[n - 2], an.make_int(*r));
  out[n - 1] = an.mul(out[n - 1], an.make_int(*r));
  return make_tensor(ctx, std::move(out), x->dtype, nullptr);
}

const ir::StructInfo* infer_affine_grid(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<ShapeOperand> size = shape_operand(ctx, "size");
  attr_bool(ctx, "align_corners");
  if (!x) return unknown(ctx, 4);
  if (x->ndim >= 0 && x->ndim != 3) {
    ctx.report(DiagId::RX3113, ctx.arg_span(0), {op_text(ctx), "data", "3", sinfo_text(x)});
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  }
  auto dims = s_dims(*x);
  if (!dims || !size || !size->dims || size->dims->size() != 2)
    return rank_only(ctx, 4, x->dtype, x->vdevice);
  return make_tensor(ctx,
                     {(*dims)[0], ctx.analyzer.make_int(2), (*size->dims)[0], (*size->dims)[1]},
                     x->dtype, x->vdevice);
}

}  // namespace

void register_extra(std::vector<OpDef>& table) {
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
  table.push_back(make_op("relax.gather_nd", "R.gather_nd",
                          {{"data", K::Tensor}, {"indices", K::Tensor}},
                          {{"batch_dims", K::Int, true, "0"}}, infer_gather_nd,
                          "gathers slices by index tuples (ONNX GatherND)"));
  table.push_back(make_op("relax.scatter_nd", "R.scatter_nd",
                          {{"data", K::Tensor}, {"indices", K::Tensor}, {"updates", K::Tensor}},
                          {{"reduction", K::String, true, "\"update\""}}, infer_scatter_nd,
                          "scatters updates by index tuples (ONNX ScatterND)"));
  table.push_back(make_op("relax.one_hot", "R.one_hot",
                          {{"indices", K::Tensor}, {"on_value", K::Prim}, {"off_value", K::Prim}},
                          {{"depth", K::Int}, {"axis", K::Int, true, "-1"}}, infer_one_hot,
                          "one-hot encoding with a new axis of length depth"));
  table.push_back(make_op(
      "relax.bucketize", "R.bucketize", {{"input_tensor", K::Tensor}, {"boundaries", K::Tensor}},
      {{"out_int32", K::Bool, true, "False"}, {"right", K::Bool, true, "False"}}, infer_bucketize,
      "bucket index of each element (torch.bucketize)"));
  table.push_back(make_op("relax.meshgrid", "R.meshgrid", {{"tensors", K::Tuple}},
                          {{"indexing", K::String, true, "\"ij\""}}, infer_meshgrid,
                          "coordinate grids from 1-D tensors"));
  table.push_back(make_op(
      "relax.hamming_window", "R.hamming_window",
      {{"window_size", K::Prim}, {"periodic", K::Prim}, {"alpha", K::Prim}, {"beta", K::Prim}},
      {{"dtype", K::DType, true, "\"float32\""}}, infer_hamming_window,
      "a Hamming window of window_size points"));
  table.push_back(
      make_op("relax.ccl.allreduce", "R.ccl.allreduce", {{"x", K::Tensor}},
              {{"op_type", K::String, true, "\"sum\""}, {"in_group", K::Bool, true, "True"}},
              infer_same_tensor, "all-reduce across workers"));
  table.push_back(make_op("relax.ccl.broadcast_from_worker0", "R.ccl.broadcast_from_worker0",
                          {{"x", K::Tensor}}, {}, infer_same_tensor,
                          "broadcasts worker 0's tensor to all workers"));
  table.push_back(make_op("relax.ccl.allgather", "R.ccl.allgather", {{"x", K::Tensor}},
                          {{"num_workers", K::Int}, {"in_group", K::Bool, true, "True"}},
                          infer_allgather, "gathers every worker's tensor along axis 0"));
  table.push_back(make_op("relax.ccl.scatter_from_worker0", "R.ccl.scatter_from_worker0",
                          {{"x", K::Tensor}},
                          {{"num_workers", K::Int}, {"axis", K::Int, true, "0"}},
                          infer_scatter_from_worker0, "splits worker 0's tensor among workers"));
  table.push_back(make_op("relax.nn.pixel_shuffle", "R.nn.pixel_shuffle", {{"data", K::Tensor}},
                          {{"upscale_factor", K::Int}}, infer_pixel_shuffle,
                          "rearranges (C*r*r, H, W) into (C, H*r, W*r)"));
  table.push_back(make_op("relax.image.affine_grid", "R.image.affine_grid",
                          {{"data", K::Tensor}, {"size", K::Shape}},
                          {{"align_corners", K::Bool, true, "False"}}, infer_affine_grid,
                          "a sampling grid from affine matrices (batch, 2, H, W)"));
}

}  // namespace raxc::analysis::ops
