// Creation operators (operators.md §3.3), with one_hot, meshgrid and hamming_window.
#include <algorithm>
#include <cmath>

#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::StructInfo* infer_full(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  const ir::TensorSInfo* fill = tensor_arg(ctx, "fill_value");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  if (fill && fill->ndim != 0)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "fill_value", .ndim = "0", .sinfo = sinfo_text(fill)},
        param_span(ctx, param(ctx, "fill_value")));
  DataType dt = dtype && !dtype->is_void() ? *dtype : (fill ? fill->dtype : DataType::Void());
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, fill ? fill->vdevice : nullptr);
}

const ir::StructInfo* infer_full_like(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  const ir::TensorSInfo* fill = tensor_arg(ctx, "fill_value");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  if (fill && fill->ndim != 0)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "fill_value", .ndim = "0", .sinfo = sinfo_text(fill)},
        param_span(ctx, param(ctx, "fill_value")));
  if (!x) return rank_only(ctx, -1, dtype.value_or(DataType::Void()), nullptr);
  return with_dtype(ctx, *x, dtype && !dtype->is_void() ? *dtype : x->dtype);
}

const ir::StructInfo* infer_zeros(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  DataType dt = dtype.value_or(DataType::Void());
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, nullptr);
}

const ir::StructInfo* infer_zeros_like(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  if (!x) return rank_only(ctx, -1, dtype.value_or(DataType::Void()), nullptr);
  return with_dtype(ctx, *x, dtype && !dtype->is_void() ? *dtype : x->dtype);
}

// A PrimValue operand of arange/eye: its PrimExpr, or RX3107.
const ir::PrimExpr* prim_operand(InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  if (!v.present()) return nullptr;
  const ir::Expr* e = nullptr;
  if (v.arg_index >= 0) e = ctx.call.args[size_t(v.arg_index)];
  if (auto* pv = ir::dyn_cast<ir::PrimValue>(e)) return pv->value;
  if (v.attr) {
    if (auto* i = v.attr->get_if<int64_t>()) return ctx.analyzer.make_int(*i);
    if (auto* d = v.attr->get_if<double>())
      return ctx.arena().make<ir::FloatImm>(DataType::Float(64), *d);
    if (auto* p = v.attr->get_if<const ir::PrimExpr*>()) return *p;
    if (v.attr->is_none()) return nullptr;
  }
  if (e) {
    const ir::StructInfo* s = arg_sinfo(ctx, name);
    if (auto* ps = ir::dyn_cast<ir::PrimSInfo>(s); ps && ps->value) return ps->value;
  }
  ctx.report(
      diag::OperatorArgumentNotPrimValue{
          .op = op_text(ctx),
          .parameter = std::string(name),
          .sinfo = arg_sinfo(ctx, name) ? sinfo_text(arg_sinfo(ctx, name)) : "a non-PrimValue"},
      param_span(ctx, v));
  return nullptr;
}

// A literal numeric operand as a double (IntImm or FloatImm), for arange's constant lengths.
std::optional<double> literal_number(InferContext& ctx, const ir::PrimExpr* e) {
  if (auto i = ctx.analyzer.as_int(e)) return double(*i);
  if (auto* f = ir::dyn_cast<ir::FloatImm>(e)) return f->value;
  return std::nullopt;
}

// operators.md §3.3: TVM's length of arange is floordiv(end - start + step - 1, step) for integer
// operands (only right for a positive step and a non-empty range: arange(5, 0, -1) gets 7) and
// ceil((end - start) / step) otherwise (negative for an empty range). For constant operands the
// spec's fix is max(0, ceildiv(end - start, step)), with the TVM discrepancy flagged (RX4106).
const ir::StructInfo* infer_arange(InferContext& ctx) {
  const ir::PrimExpr* start = prim_operand(ctx, "start");
  const ir::PrimExpr* end = prim_operand(ctx, "end");
  const ir::PrimExpr* step = prim_operand(ctx, "step");
  if (!end) {  // arange(n) means arange(0, n, 1)
    end = start;
    start = ctx.analyzer.make_int(0);
  }
  if (!step) step = ctx.analyzer.make_int(1);
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  if (!start || !end) return rank_only(ctx, 1, dtype.value_or(DataType::Void()), nullptr);
  bool all_int = start->dtype.is_integer() && end->dtype.is_integer() && step->dtype.is_integer();
  DataType dt =
      dtype && !dtype->is_void() ? *dtype : (all_int ? DataType::Int(64) : DataType::Float(32));
  auto& an = ctx.analyzer;
  auto s = literal_number(ctx, start), e = literal_number(ctx, end), st = literal_number(ctx, step);
  if (st && *st == 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "step", .reason = "the step must not be zero"},
        param_span(ctx, param(ctx, "step")));
    return rank_only(ctx, 1, dt, nullptr);
  }
  if (s && e && st) {
    int64_t tvm_count;
    int64_t count;
    if (all_int) {
      auto is = int64_t(*s), ie = int64_t(*e), ist = int64_t(*st);
      int64_t span = ie - is;
      // TVM: floordiv(span + step - 1, step) (Python floor division).
      int64_t num = span + ist - 1;
      tvm_count = num / ist - ((num % ist != 0) && ((num < 0) != (ist < 0)) ? 1 : 0);
      // Exact: ceildiv(span, step), clamped at 0.
      int64_t q = span / ist;
      if (span % ist != 0 && ((span < 0) == (ist < 0))) ++q;
      count = std::max<int64_t>(q, 0);
    } else {
      tvm_count = int64_t(std::ceil(float(*e - *s) / *st));
      count = std::max<int64_t>(int64_t(std::ceil((*e - *s) / *st)), 0);
    }
    if (count != tvm_count)
      ctx.report(
          diag::ArangeLengthDiffersFromTvm{
              .op = op_text(ctx), .count = count, .tvm_count = tvm_count},
          ctx.call.span);
    return make_tensor(ctx, {an.make_int(count)}, dt, nullptr);
  }
  if (!all_int) return rank_only(ctx, 1, dt, nullptr);
  // Symbolic operands: TVM's formula as written (the spec's fix is for constant operands only).
  const ir::PrimExpr* count =
      an.floordiv(an.sub(an.add(an.sub(end, start), step), an.make_int(1)), step);
  return make_tensor(ctx, {count}, dt, nullptr);
}

const ir::StructInfo* infer_eye(InferContext& ctx) {
  const ir::PrimExpr* n = prim_operand(ctx, "n");
  const ir::PrimExpr* m = prim_operand(ctx, "m");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Float(32));
  if (!n) return rank_only(ctx, 2, dt, nullptr);
  if (!m) m = n;
  return make_tensor(ctx, {n, m}, dt, nullptr);
}

const ir::StructInfo* infer_eye_like(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  if (!x) return rank_only(ctx, 2, dtype.value_or(DataType::Void()), nullptr);
  if (x->ndim != -1 && x->ndim != 2)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "x", .ndim = "2", .sinfo = sinfo_text(x)},
        ctx.arg_span(0));
  DataType dt = dtype && !dtype->is_void() ? *dtype : x->dtype;
  if (!x->shape) return rank_only(ctx, 2, dt, x->vdevice);
  return with_dtype(ctx, *x, dt);
}

const ir::StructInfo* infer_tri(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  const ir::StructInfo* k = arg_sinfo(ctx, "k");
  if (k && !ir::isa<ir::PrimSInfo>(k))
    ctx.report(
        diag::OperatorArgumentNotPrimValue{
            .op = op_text(ctx), .parameter = "k", .sinfo = sinfo_text(k)},
        ctx.arg_span(1));
  if (!x) return rank_only(ctx, -1, DataType::Void(), nullptr);
  if (x->ndim != -1 && x->ndim < 2)
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "x",
                                               .expected = "at least 2-dimensional",
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
  return x;
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
      ctx.report(
          diag::OperatorArgumentNotPrimValue{
              .op = op_text(ctx), .parameter = name, .sinfo = sinfo_text(s)},
          param_span(ctx, param(ctx, name)));
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

const ir::StructInfo* infer_meshgrid(InferContext& ctx) {
  auto ts = tensor_tuple_arg(ctx, "tensors");
  if (auto ix = attr_string(ctx, "indexing"); ix && *ix != "ij" && *ix != "xy")
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "indexing", .reason = "expected 'ij' or 'xy'"},
        param_span(ctx, param(ctx, "indexing")));
  if (!ts) return unknown(ctx);
  size_t n = ts->size();
  Dims lens;
  bool known = true;
  for (size_t i = 0; i < n; ++i) {
    const ir::TensorSInfo* t = (*ts)[i];
    if (t->ndim >= 0 && t->ndim != 1) {
      ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                                 .parameter = "tensor " + std::to_string(i),
                                                 .ndim = "1",
                                                 .sinfo = sinfo_text(t)},
                 ctx.arg_span(0));
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
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "dtype",
                                       .reason = "the window dtype must not be an integer type"},
        param_span(ctx, param(ctx, "dtype")));
  }
  const ir::StructInfo* s = arg_sinfo(ctx, "window_size");
  auto* p = ir::dyn_cast<ir::PrimSInfo>(s);
  if (s && !p)
    ctx.report(
        diag::OperatorArgumentNotPrimValue{
            .op = op_text(ctx), .parameter = "window_size", .sinfo = sinfo_text(s)},
        ctx.arg_span(0));
  const PrimExpr* size = nullptr;
  if (!ctx.call.args.empty())
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[0])) size = pv->value;
  if (!size && p) size = p->value;
  if (!size) return rank_only(ctx, 1, dt, nullptr);
  if (auto v = ctx.analyzer.as_int(size); v && *v < 1)
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "window_size",
                                              .reason = "the window size must be at least 1"},
               ctx.arg_span(0));
  return make_tensor(ctx, {size}, dt, nullptr);
}

}  // namespace

void register_create(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.full", "R.full",
                          {{"shape", ArgKind::Shape}, {"fill_value", ArgKind::Tensor}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_full,
                          "a tensor of the given shape filled with a scalar"));
  table.push_back(make_op("relax.full_like", "R.full_like",
                          {{"x", ArgKind::Tensor}, {"fill_value", ArgKind::Tensor}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_full_like,
                          "a tensor shaped like x filled with a scalar"));
  table.push_back(make_op("relax.zeros", "R.zeros", {{"shape", ArgKind::Shape}},
                          {{"dtype", ArgKind::DType}}, infer_zeros,
                          "a tensor of zeros of the given shape"));
  table.push_back(make_op("relax.ones", "R.ones", {{"shape", ArgKind::Shape}},
                          {{"dtype", ArgKind::DType}}, infer_zeros,
                          "a tensor of ones of the given shape"));
  table.push_back(make_op("relax.zeros_like", "R.zeros_like", {{"x", ArgKind::Tensor}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_zeros_like,
                          "a tensor of zeros shaped like x"));
  table.push_back(make_op("relax.ones_like", "R.ones_like", {{"x", ArgKind::Tensor}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_zeros_like,
                          "a tensor of ones shaped like x"));
  table.push_back(make_op("relax.arange", "R.arange",
                          {{"start", ArgKind::Prim},
                           {"end", ArgKind::Prim, true, "None"},
                           {"step", ArgKind::Prim, true, "1"}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_arange,
                          "evenly spaced values in [start, end)"));
  table.push_back(make_op(
      "relax.eye", "R.eye",
      {{"n", ArgKind::Prim}, {"m", ArgKind::Prim, true, "None"}, {"k", ArgKind::Prim, true, "0"}},
      {{"dtype", ArgKind::DType, true, "\"float32\""}}, infer_eye,
      "a 2-D tensor with ones on the k-th diagonal"));
  table.push_back(make_op("relax.eye_like", "R.eye_like",
                          {{"x", ArgKind::Tensor}, {"k", ArgKind::Prim, true, "0"}},
                          {{"dtype", ArgKind::DType, true, "None"}}, infer_eye_like,
                          "an identity-like tensor shaped like x"));
  table.push_back(make_op("relax.tril", "R.tril",
                          {{"x", ArgKind::Tensor}, {"k", ArgKind::Prim, true, "0"}}, {}, infer_tri,
                          "keeps the lower triangle (j - i <= k) of the last two axes"));
  table.push_back(make_op("relax.triu", "R.triu",
                          {{"x", ArgKind::Tensor}, {"k", ArgKind::Prim, true, "0"}}, {}, infer_tri,
                          "keeps the upper triangle (j - i >= k) of the last two axes"));
  table.push_back(make_op("relax.one_hot", "R.one_hot",
                          {{"indices", K::Tensor}, {"on_value", K::Prim}, {"off_value", K::Prim}},
                          {{"depth", K::Int}, {"axis", K::Int, true, "-1"}}, infer_one_hot,
                          "one-hot encoding with a new axis of length depth"));
  table.push_back(make_op("relax.meshgrid", "R.meshgrid", {{"tensors", K::Tuple}},
                          {{"indexing", K::String, true, "\"ij\""}}, infer_meshgrid,
                          "coordinate grids from 1-D tensors"));
  table.push_back(make_op(
      "relax.hamming_window", "R.hamming_window",
      {{"window_size", K::Prim}, {"periodic", K::Prim}, {"alpha", K::Prim}, {"beta", K::Prim}},
      {{"dtype", K::DType, true, "\"float32\""}}, infer_hamming_window,
      "a Hamming window of window_size points"));
}

}  // namespace raxc::analysis::ops
