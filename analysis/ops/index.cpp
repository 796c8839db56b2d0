// Indexing, selection, sorting and set operators (operators.md §3.6, §3.7, §3.12), with the
// index-tuple gather_nd/scatter_nd and bucketize.
#include <algorithm>

#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

// ---------------------------------------------------------------------------- take

const ir::StructInfo* infer_take(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  const ir::StructInfo* is = arg_sinfo(ctx, "indices");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  if (auto mode = attr_string(ctx, "mode");
      mode && *mode != "fast" && *mode != "clip" && *mode != "wrap" && *mode != "nan")
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx),
            .attribute = "mode",
            .reason = "expected 'fast', 'clip', 'wrap' or 'nan', not '" + *mode + "'"},
        param_span(ctx, param(ctx, "mode")));
  if (!x || !is) return unknown(ctx);
  int idx_rank = 0;
  std::optional<Dims> idx_dims = Dims{};
  DataType idx_dtype;
  if (auto* t = ir::dyn_cast<ir::TensorSInfo>(is)) {
    idx_rank = t->ndim;
    idx_dims = s_dims(*t);
    idx_dtype = t->dtype;
  } else if (auto* p = ir::dyn_cast<ir::PrimSInfo>(is)) {
    idx_dtype = p->dtype;
  } else {
    ctx.report(
        diag::OperatorArgumentNotTensor{
            .op = op_text(ctx), .parameter = "indices", .sinfo = sinfo_text(is)},
        ctx.arg_span(1));
    return rank_only(ctx, -1, x->dtype, x->vdevice);
  }
  if (!idx_dtype.is_void() && !idx_dtype.is_integer())
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "indices",
                                               .expected = "an integer tensor",
                                               .sinfo = sinfo_text(is)},
               ctx.arg_span(1));
  else if (idx_dtype.is_void())  // operators.md §3.6: an unknown index dtype only warns
    ctx.report(
        diag::OperandDtypeUnknown{
            .op = op_text(ctx), .operand = "indices", .expected = "an integer type"},
        ctx.arg_span(1));
  if (!axis && x->ndim != 1) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx) + "' without 'axis",
                                               .parameter = "x",
                                               .ndim = "1",
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return rank_only(ctx, -1, x->dtype, x->vdevice);
  }
  if (x->ndim < 0 || idx_rank < 0) return rank_only(ctx, -1, x->dtype, x->vdevice);
  std::optional<int> ax =
      normalize_axis(ctx, axis.value_or(0), x->ndim, param_span(ctx, param(ctx, "axis")));
  int out_rank = x->ndim + idx_rank - 1;
  auto xd = s_dims(*x);
  if (!ax || !xd || !idx_dims) return rank_only(ctx, out_rank, x->dtype, x->vdevice);
  Dims out(xd->begin(), xd->begin() + *ax);
  out.insert(out.end(), idx_dims->begin(), idx_dims->end());
  out.insert(out.end(), xd->begin() + *ax + 1, xd->end());
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

// -------------------------------------------------------------------- strided_slice

// Values of a tuple-of-Prim operand: known PrimExprs per field, or nullopt.
std::optional<Dims> prim_tuple_values(InferContext& ctx, std::string_view name, bool* bad) {
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) {
    ParamValue v = param(ctx, name);
    if (v.attr) return attr_prim_list(ctx, name);
    return std::nullopt;
  }
  if (ir::isa<ir::ObjectSInfo>(s)) return std::nullopt;
  auto* t = ir::dyn_cast<ir::TupleSInfo>(s);
  if (!t) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = std::string(name),
                                               .expected = "a tuple of integers",
                                               .sinfo = sinfo_text(s)},
               param_span(ctx, param(ctx, name)));
    *bad = true;
    return std::nullopt;
  }
  Dims out;
  bool known = true;
  for (const ir::StructInfo* f : t->fields) {
    auto* p = ir::dyn_cast<ir::PrimSInfo>(f);
    if (!p || (!p->dtype.is_void() && !p->dtype.is_integer())) {
      ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                                 .parameter = std::string(name),
                                                 .expected = "a tuple of integers",
                                                 .sinfo = sinfo_text(s)},
                 param_span(ctx, param(ctx, name)));
      *bad = true;
      return std::nullopt;
    }
    if (!p->value) known = false;
    out.push_back(p->value);
  }
  if (!known) return std::nullopt;
  return out;
}

const ir::StructInfo* infer_strided_slice(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  bool bad = false;
  auto axes = prim_tuple_values(ctx, "axes", &bad);
  auto begin = prim_tuple_values(ctx, "begin", &bad);
  auto end = prim_tuple_values(ctx, "end", &bad);
  std::optional<Dims> strides;
  bool has_strides = param(ctx, "strides").present();
  if (has_strides) strides = prim_tuple_values(ctx, "strides", &bad);
  bool inbound = attr_bool(ctx, "assume_inbound").value_or(false);
  if (!x) return unknown(ctx);
  auto fallback = [&] { return rank_only(ctx, x->ndim, x->dtype, x->vdevice); };
  if (bad || !axes || !begin || !end || (has_strides && !strides)) return fallback();
  size_t n = axes->size();
  if (begin->size() != n || end->size() != n || (strides && strides->size() != n)) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx),
            .attribute = "begin",
            .reason = "axes, begin, end and strides must have the same length"},
        ctx.call.span);
    return fallback();
  }
  if (x->ndim < 0) return fallback();
  std::vector<int64_t> axis_values;
  for (const PrimExpr* a : *axes) {
    auto v = ctx.analyzer.as_int(a);
    if (!v) return fallback();
    axis_values.push_back(*v);
  }
  auto norm = normalize_axes(ctx, axis_values, x->ndim, ctx.arg_span(1));
  auto dims = v_dims(*x);
  if (!norm || !dims) return fallback();
  auto& an = ctx.analyzer;
  Dims out = *dims;
  for (size_t i = 0; i < n; ++i) {
    const PrimExpr* L = (*dims)[size_t((*norm)[i])];
    const PrimExpr* b = (*begin)[i];
    const PrimExpr* e = (*end)[i];
    const PrimExpr* s = strides ? (*strides)[i] : an.make_int(1);
    std::optional<int64_t> sv = an.as_int(s);
    if (sv && *sv == 0) {
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx), .attribute = "strides", .reason = "a stride must not be 0"},
          ctx.call.span);
      return fallback();
    }
    if (!sv) return fallback();
    if (inbound) {
      out[size_t((*norm)[i])] =
          *sv > 0 ? an.floordiv(an.add(an.sub(e, b), an.make_int(*sv - 1)), s)
                  : an.floordiv(an.add(an.sub(b, e), an.make_int(-*sv - 1)), an.make_int(-*sv));
      continue;
    }
    // Canonicalize negative indices (when their sign is known), then clamp.
    auto canon = [&](const PrimExpr* v) -> const PrimExpr* {
      std::optional<int64_t> c = an.as_int(v);
      if (c && *c < 0) v = an.add(v, L);
      if (*sv > 0) return an.min(an.max(v, an.make_int(0)), L);
      return an.min(an.max(v, an.make_int(-1)), an.sub(L, an.make_int(1)));
    };
    if (auto c = an.as_int(b); !c && !an.prove_non_negative(b)) return fallback();
    if (auto c = an.as_int(e); !c && !an.prove_non_negative(e)) return fallback();
    const PrimExpr* b2 = canon(b);
    const PrimExpr* e2 = canon(e);
    const PrimExpr* len =
        *sv > 0 ? an.floordiv(an.add(an.sub(e2, b2), an.make_int(*sv - 1)), s)
                : an.floordiv(an.add(an.sub(b2, e2), an.make_int(-*sv - 1)), an.make_int(-*sv));
    if (auto lv = an.as_int(len); lv && *lv < 0) len = an.make_int(0);
    out[size_t((*norm)[i])] = len;
  }
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

// operators.md §3.6: begin/end/strides are 1-D int64 tensors with a literal length equal to x's
// rank (errors otherwise; an unknown dtype only warns); an unknown-rank x warns and gives an
// unknown-rank result. The extents are data dependent: Tensor[ndim = x.ndim].
const ir::StructInfo* infer_dynamic_strided_slice(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (x && x->ndim < 0)
    ctx.report(
        diag::OperandRankUnknown{
            .op = op_text(ctx), .operand = "x", .what = "the lengths of begin, end and strides"},
        ctx.arg_span(0));
  for (std::string_view n : {"begin", "end", "strides"}) {
    const ir::TensorSInfo* t = tensor_arg(ctx, n);
    if (!t) continue;
    Span at = param_span(ctx, param(ctx, n));
    std::string name(n);
    if (t->ndim != 1) {
      ctx.report(
          diag::OperatorArgumentWrongRank{
              .op = op_text(ctx), .parameter = name, .ndim = "1", .sinfo = sinfo_text(t)},
          at);
      continue;
    }
    if (t->dtype.is_void())
      ctx.report(
          diag::OperandDtypeUnknown{.op = op_text(ctx), .operand = name, .expected = "int64"}, at);
    else if (t->dtype != DataType::Int(64))
      ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                                 .parameter = name,
                                                 .expected = "an int64 tensor",
                                                 .sinfo = sinfo_text(t)},
                 at);
    auto dims = s_dims(*t);
    std::optional<int64_t> len = dims ? ctx.analyzer.as_int((*dims)[0]) : std::nullopt;
    if (!len) {
      ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                                 .parameter = name,
                                                 .expected = "a 1-D tensor of literal length",
                                                 .sinfo = sinfo_text(t)},
                 at);
      continue;
    }
    if (x && x->ndim >= 0 && *len != x->ndim)
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = name,
                                         .reason = std::to_string(*len) + " entries for a " +
                                                   std::to_string(x->ndim) + "-dimensional tensor"},
          at);
  }
  if (!x) return unknown(ctx);
  return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
}

// ---------------------------------------------------------------------------- where

const ir::StructInfo* infer_where(InferContext& ctx) {
  const ir::TensorSInfo* c = tensor_arg(ctx, "condition");
  const ir::TensorSInfo* a = tensor_arg(ctx, "x1");
  const ir::TensorSInfo* b = tensor_arg(ctx, "x2");
  if (!c || !a || !b) return unknown(ctx);
  if (!c->dtype.is_bool())
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "condition",
                                               .expected = "a bool tensor",
                                               .sinfo = sinfo_text(c)},
               ctx.arg_span(0));
  DataType dtype = arith_dtype(ctx, a->dtype, b->dtype, "x1 and x2", ctx.call.span);
  const ir::VDevice* vdev = first_vdevice({c, a, b});
  int ndim = (c->ndim < 0 || a->ndim < 0 || b->ndim < 0)
                 ? -1
                 : std::max(c->ndim, std::max(a->ndim, b->ndim));
  auto dc = s_dims(*c), da = s_dims(*a), db = s_dims(*b);
  if (dc && da && db) {
    auto ab = broadcast(ctx, *da, *db, sinfo_text(a), sinfo_text(b), ctx.call.span);
    if (ab) {
      auto all = broadcast(ctx, *dc, *ab, sinfo_text(c), dims_text(*ab), ctx.call.span);
      if (all) return make_tensor(ctx, std::move(*all), dtype, vdev);
    }
    return rank_only(ctx, ndim, dtype, vdev);
  }
  if (c->shape && c->shape == a->shape && a->shape == b->shape)
    return ctx.arena().make<ir::TensorSInfo>(c->shape, dtype, vdev, c->ndim);
  return rank_only(ctx, ndim, dtype, vdev);
}

// ---------------------------------------------------------------- argmax / argmin

const ir::StructInfo* infer_arg_reduce(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  bool keepdims = attr_bool(ctx, "keepdims").value_or(false);
  DataType i64 = DataType::Int(64);
  if (!x) return rank_only(ctx, -1, i64, nullptr);
  std::optional<int> ax;
  if (axis && x->ndim >= 0) {
    ax = normalize_axis(ctx, *axis, x->ndim, param_span(ctx, param(ctx, "axis")));
    if (!ax) return rank_only(ctx, keepdims ? x->ndim : x->ndim - 1, i64, x->vdevice);
  }
  int r = x->ndim;
  int out_rank = keepdims ? r : !axis ? 0 : r < 0 ? -1 : r - 1;
  auto dims = s_dims(*x);
  auto& an = ctx.analyzer;
  if (!dims) {
    if (!axis && keepdims && r >= 0)
      return make_tensor(ctx, Dims(size_t(r), an.make_int(1)), i64, x->vdevice);
    if (out_rank == 0) return make_tensor(ctx, {}, i64, x->vdevice);
    return rank_only(ctx, out_rank, i64, x->vdevice);
  }
  Dims out;
  for (int i = 0; i < r; ++i) {
    bool reduced = !axis || i == *ax;
    if (!reduced)
      out.push_back((*dims)[size_t(i)]);
    else if (keepdims)
      out.push_back(an.make_int(1));
  }
  return make_tensor(ctx, std::move(out), i64, x->vdevice);
}

// ---------------------------------------------------------------- sort / argsort / topk

const ir::StructInfo* infer_sort(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  attr_int(ctx, "axis");
  attr_bool(ctx, "descending");
  if (!x) return unknown(ctx);
  return x;
}

const ir::StructInfo* infer_argsort(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  attr_int(ctx, "axis");
  attr_bool(ctx, "descending");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Int(32));
  if (!x) return rank_only(ctx, -1, dt, nullptr);
  return with_dtype(ctx, *x, dt.is_void() ? x->dtype : dt);
}

const ir::StructInfo* infer_topk(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  int64_t k = attr_int(ctx, "k").value_or(1);
  int64_t axis = attr_int(ctx, "axis").value_or(-1);
  std::string ret = attr_string(ctx, "ret_type").value_or("both");
  attr_bool(ctx, "largest");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Int(32));
  if (ret != "both" && ret != "values" && ret != "indices") {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "ret_type",
                                              .reason = "expected 'both', 'values' or 'indices'"},
               param_span(ctx, param(ctx, "ret_type")));
    ret = "both";
  }
  if (!x) return unknown(ctx);
  DataType idx_dt = dt.is_void() ? x->dtype : dt;
  const ir::TensorSInfo* values;
  const ir::TensorSInfo* indices;
  auto dims = s_dims(*x);
  if (!dims || x->ndim < 0) {
    values = rank_only(ctx, x->ndim, x->dtype, x->vdevice);
    indices = rank_only(ctx, x->ndim, idx_dt, x->vdevice);
  } else {
    int ax = int(axis < 0 ? axis + x->ndim : axis);
    Dims out = *dims;
    if (ax >= 0 && ax < x->ndim && k > 0) {
      auto extent = ctx.analyzer.as_int(out[size_t(ax)]);
      if (!extent || k < *extent) out[size_t(ax)] = ctx.analyzer.make_int(k);
    }
    values = make_tensor(ctx, out, x->dtype, x->vdevice);
    indices = make_tensor(ctx, out, idx_dt, x->vdevice);
  }
  if (ret == "values") return values;
  if (ret == "indices") return indices;
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{values, indices});
}

// --------------------------------------------------------------------------- unique

const ir::StructInfo* infer_unique(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  attr_bool(ctx, "sorted");
  bool ri = attr_bool(ctx, "return_index").value_or(false);
  bool rv = attr_bool(ctx, "return_inverse").value_or(false);
  bool rc = attr_bool(ctx, "return_counts").value_or(false);
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  if (!x) return unknown(ctx);
  if (axis && x->ndim >= 0)
    normalize_axis(ctx, *axis, x->ndim, param_span(ctx, param(ctx, "axis")));
  auto& an = ctx.analyzer;
  DataType i64 = DataType::Int(64);
  bool scalar = x->ndim == 0;
  const ir::StructInfo* values = scalar ? make_tensor(ctx, {an.make_int(1)}, x->dtype, x->vdevice)
                                        : rank_only(ctx, axis ? x->ndim : 1, x->dtype, x->vdevice);
  std::vector<const ir::StructInfo*> fields{values};
  for (bool want : {ri, rv, rc})
    if (want)
      fields.push_back(scalar ? make_tensor(ctx, {an.make_int(1)}, i64, x->vdevice)
                              : rank_only(ctx, 1, i64, x->vdevice));
  if (fields.size() == 1) return values;
  return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
}

const ir::StructInfo* infer_nonzero(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  return rank_only(ctx, 2, DataType::Int(64), x ? x->vdevice : nullptr);
}

// ------------------------------------------------- index_tensor, index_put, slice_scatter
// Importer helpers for PyTorch's advanced indexing (operators.md §3.13: "results follow the
// PyTorch shapes").

// The index tensors of index_tensor / index_put: a tuple of integer tensors, at most one per
// dimension of `data`. nullopt (after reporting) when the tuple itself is unusable.
std::optional<std::vector<const ir::TensorSInfo*>> index_tensors(InferContext& ctx,
                                                                 const ir::TensorSInfo& data) {
  auto idx = tensor_tuple_arg(ctx, "indices");
  if (!idx) return std::nullopt;
  Span at = param_span(ctx, param(ctx, "indices"));
  if (idx->empty()) {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "indices",
                                              .reason = "at least one index tensor is needed"},
               at);
    return std::nullopt;
  }
  // Boolean masks are not integer indices here: their result length is data dependent.
  for (size_t i = 0; i < idx->size(); ++i) {
    DataType dt = (*idx)[i]->dtype;
    if (!dt.is_void() && (!dt.is_integer() || dt.is_bool()))
      ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                                 .parameter = "index " + std::to_string(i),
                                                 .expected = "an integer tensor",
                                                 .sinfo = sinfo_text((*idx)[i])},
                 at);
  }
  if (data.ndim >= 0 && idx->size() > size_t(data.ndim)) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "indices",
                                       .reason = std::to_string(idx->size()) +
                                                 " index tensors for a " +
                                                 std::to_string(data.ndim) + "-dimensional tensor"},
        at);
    return std::nullopt;
  }
  return idx;
}

// R.index_tensor(data, indices) = data[i0, ..., ik-1] (PyTorch): the index shapes broadcast
// together (numpy rules, §2.5) to B, and the result is B + data.shape[k:].
const ir::StructInfo* infer_index_tensor(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  if (!data) {
    tensor_tuple_arg(ctx, "indices");
    return unknown(ctx);
  }
  auto idx = index_tensors(ctx, *data);
  if (!idx) return rank_only(ctx, -1, data->dtype, data->vdevice);
  int k = int(idx->size());
  int b_rank = 0;
  for (const ir::TensorSInfo* t : *idx) {
    if (t->ndim < 0) return rank_only(ctx, -1, data->dtype, data->vdevice);
    b_rank = std::max(b_rank, t->ndim);
  }
  if (data->ndim < 0) return rank_only(ctx, -1, data->dtype, data->vdevice);
  int out_rank = b_rank + data->ndim - k;
  auto dd = v_dims(*data);
  std::optional<Dims> b = v_dims(*(*idx)[0]);
  Span at = param_span(ctx, param(ctx, "indices"));
  for (int i = 1; i < k && b; ++i) {
    auto di = v_dims(*(*idx)[size_t(i)]);
    if (!di) {
      b.reset();
      break;
    }
    b = broadcast(ctx, *b, *di, "index " + std::to_string(i - 1) + " (so far)",
                  "index " + std::to_string(i), at);
  }
  if (!b || !dd) return rank_only(ctx, out_rank, data->dtype, data->vdevice);
  Dims out = *b;
  out.insert(out.end(), dd->begin() + k, dd->end());
  return make_tensor(ctx, std::move(out), data->dtype, data->vdevice);
}

// R.index_put(data, indices, values, accumulate=False) = data.index_put_(indices, values): a copy
// of data with the indexed elements replaced (or accumulated); S(data).
const ir::StructInfo* infer_index_put(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* values = tensor_arg(ctx, "values");
  attr_bool(ctx, "accumulate");
  if (!data) {
    tensor_tuple_arg(ctx, "indices");
    return unknown(ctx);
  }
  index_tensors(ctx, *data);
  if (values && !values->dtype.is_void() && !data->dtype.is_void() && values->dtype != data->dtype)
    ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                           .operands = "data and values",
                                           .first = data->dtype.str(),
                                           .second = values->dtype.str()},
               ctx.call.span);
  return data;
}

// A Prim operand of slice_scatter (start, end, step): its value when known; RX3107 for
// anything that is not a PrimValue.
const PrimExpr* prim_value_of(InferContext& ctx, std::string_view name, bool* ok) {
  ParamValue v = param(ctx, name);
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) {
    if (v.attr) {  // given by keyword: an integer attribute value
      if (auto* i = v.attr->get_if<int64_t>()) return ctx.analyzer.make_int(*i);
      if (auto* p = v.attr->get_if<const PrimExpr*>()) return *p;
      if (auto* e = v.attr->get_if<const ir::Expr*>())
        if (auto* pv = ir::dyn_cast<ir::PrimValue>(*e)) return pv->value;
      ctx.report(
          diag::OperatorArgumentNotPrimValue{
              .op = op_text(ctx), .parameter = std::string(name), .sinfo = "?"},
          param_span(ctx, v));
      *ok = false;
    }
    return nullptr;
  }
  auto* p = ir::dyn_cast<ir::PrimSInfo>(s);
  if (!p) {
    ctx.report(
        diag::OperatorArgumentNotPrimValue{
            .op = op_text(ctx), .parameter = std::string(name), .sinfo = sinfo_text(s)},
        param_span(ctx, v));
    *ok = false;
    return nullptr;
  }
  if (v.arg_index >= 0)
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[size_t(v.arg_index)]))
      return pv->value;
  return p->value;
}

// R.slice_scatter(input_tensor, src, start, end, step, axis=0) =
// torch.slice_scatter(input, src, axis, start, end, step): a copy of the input whose slice
// start:end:step on `axis` is replaced by src. src has the input's rank and dtype, the input's
// extents off the axis, and the slice length on it. Result S(input_tensor).
const ir::StructInfo* infer_slice_scatter(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input_tensor");
  const ir::TensorSInfo* src = tensor_arg(ctx, "src");
  bool ok = true;
  const PrimExpr* start = prim_value_of(ctx, "start", &ok);
  const PrimExpr* end = prim_value_of(ctx, "end", &ok);
  const PrimExpr* step = prim_value_of(ctx, "step", &ok);
  int64_t axis = attr_int(ctx, "axis").value_or(0);
  if (!x) return unknown(ctx);
  auto& an = ctx.analyzer;
  // The literal step (0 when symbolic); a plain integer keeps GCC's maybe-uninitialized quiet.
  bool step_literal = false;
  int64_t stride = 0;
  if (step != nullptr)
    if (auto v = an.as_int(step)) {
      step_literal = true;
      stride = *v;
    }
  if (step_literal && stride <= 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "step", .reason = "the step must be positive"},
        param_span(ctx, param(ctx, "step")));
    ok = false;
  }
  if (!src) return x;
  if (!src->dtype.is_void() && !x->dtype.is_void() && src->dtype != x->dtype)
    ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                           .operands = "input_tensor and src",
                                           .first = x->dtype.str(),
                                           .second = src->dtype.str()},
               ctx.call.span);
  if (x->ndim >= 0 && src->ndim >= 0 && x->ndim != src->ndim) {
    ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                          .operands = "input_tensor and src",
                                          .first = x->ndim,
                                          .second = src->ndim},
               ctx.call.span);
    return x;
  }
  if (x->ndim < 0) return x;
  auto ax = normalize_axis(ctx, axis, x->ndim, param_span(ctx, param(ctx, "axis")));
  auto xd = v_dims(*x);
  auto sd = v_dims(*src);
  if (!ax || !xd || !sd) return x;
  for (size_t i = 0; i < xd->size(); ++i) {
    if (int(i) == *ax) continue;
    std::string what = "dimension " + std::to_string(i) + " of";
    if (!check_dims_equal(ctx, (*sd)[i], what + " src", (*xd)[i], "that of input_tensor",
                          ctx.call.span))
      return x;
  }
  // The slice length, when start, end, step and the axis length are all literals (PyTorch
  // slicing: negative indices count from the end, then clamp to [0, L]).
  std::optional<int64_t> len = an.as_int((*xd)[size_t(*ax)]);
  std::optional<int64_t> b, e;
  if (start != nullptr) b = an.as_int(start);
  if (end != nullptr) e = an.as_int(end);
  if (ok && len && b && e && step_literal && stride > 0) {
    auto canon = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + *len : v, 0, *len); };
    int64_t lo = canon(*b), hi = canon(*e);
    int64_t n = hi > lo ? (hi - lo + stride - 1) / stride : 0;
    check_dims_equal(ctx, (*sd)[size_t(*ax)], "the extent of src on the sliced axis",
                     an.make_int(n), "the slice length", ctx.call.span);
  }
  return x;
}

const ir::StructInfo* infer_gather_nd(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* idx = tensor_arg(ctx, "indices");
  int64_t batch_dims = attr_int(ctx, "batch_dims").value_or(0);
  if (!data || !idx) return unknown(ctx);
  if (!idx->dtype.is_void() && idx->dtype != DataType::Int(64))
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "indices",
                                               .expected = "an int64 tensor",
                                               .sinfo = sinfo_text(idx)},
               ctx.arg_span(1));
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
    ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                           .operands = "data and updates",
                                           .first = data->dtype.str(),
                                           .second = upd->dtype.str()},
               ctx.call.span);
  if (!s_dims(*data)) return rank_only(ctx, data->ndim, data->dtype, data->vdevice);
  return data;
}

const ir::StructInfo* infer_bucketize(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input_tensor");
  const ir::TensorSInfo* b = tensor_arg(ctx, "boundaries");
  bool out_int32 = attr_bool(ctx, "out_int32").value_or(false);
  attr_bool(ctx, "right");
  DataType dt = out_int32 ? DataType::Int(32) : DataType::Int(64);
  if (b && b->ndim >= 0 && b->ndim != 1)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "boundaries", .ndim = "1", .sinfo = sinfo_text(b)},
        ctx.arg_span(1));
  if (!x) return rank_only(ctx, -1, dt, nullptr);
  return with_dtype(ctx, *x, dt);
}

}  // namespace

void register_index(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.take", "R.take", {{"x", K::Tensor}, {"indices", K::Tensor}},
                          {{"axis", K::Int, true, "None"}, {"mode", K::String, true, "\"fast\""}},
                          infer_take, "gathers elements or slices of x at indices along an axis"));
  table.push_back(make_op("relax.strided_slice", "R.strided_slice",
                          {{"x", K::Tensor},
                           {"axes", K::IntList},
                           {"begin", K::IntList},
                           {"end", K::IntList},
                           {"strides", K::IntList, true, "None"}},
                          {{"assume_inbound", K::Bool, true, "False"}}, infer_strided_slice,
                          "slices x[begin:end:stride] on the listed axes"));
  table.push_back(make_op(
      "relax.dynamic_strided_slice", "R.dynamic_strided_slice",
      {{"x", K::Tensor}, {"begin", K::Tensor}, {"end", K::Tensor}, {"strides", K::Tensor}}, {},
      infer_dynamic_strided_slice, "strided slice with run-time begin/end/strides tensors"));
  table.push_back(make_op("relax.where", "R.where",
                          {{"condition", K::Tensor}, {"x1", K::Tensor}, {"x2", K::Tensor}}, {},
                          infer_where, "selects x1 where condition holds, else x2 (broadcasting)"));
  table.push_back(make_op("relax.argmax", "R.argmax", {{"x", K::Tensor}},
                          {{"axis", K::Int, true, "None"}, {"keepdims", K::Bool, true, "False"}},
                          infer_arg_reduce, "index of the maximum along an axis (int64)"));
  table.push_back(make_op("relax.argmin", "R.argmin", {{"x", K::Tensor}},
                          {{"axis", K::Int, true, "None"}, {"keepdims", K::Bool, true, "False"}},
                          infer_arg_reduce, "index of the minimum along an axis (int64)"));
  table.push_back(make_op("relax.sort", "R.sort", {{"x", K::Tensor}},
                          {{"axis", K::Int, true, "-1"}, {"descending", K::Bool, true, "False"}},
                          infer_sort, "sorts along an axis"));
  table.push_back(make_op("relax.argsort", "R.argsort", {{"data", K::Tensor}},
                          {{"axis", K::Int, true, "-1"},
                           {"descending", K::Bool, true, "False"},
                           {"dtype", K::DType, true, "\"int32\""}},
                          infer_argsort, "indices that sort data along an axis"));
  table.push_back(make_op("relax.topk", "R.topk", {{"data", K::Tensor}},
                          {{"k", K::Int, true, "1"},
                           {"axis", K::Int, true, "-1"},
                           {"ret_type", K::String, true, "\"both\""},
                           {"largest", K::Bool, true, "True"},
                           {"dtype", K::DType, true, "\"int32\""}},
                          infer_topk, "the k largest (or smallest) elements and their indices"));
  table.push_back(make_op("relax.unique", "R.unique", {{"x", K::Tensor}},
                          {{"sorted", K::Bool, true, "True"},
                           {"return_index", K::Bool, true, "False"},
                           {"return_inverse", K::Bool, true, "False"},
                           {"return_counts", K::Bool, true, "False"},
                           {"axis", K::Int, true, "None"}},
                          infer_unique, "the distinct elements (data-dependent length)"));
  table.push_back(make_op("relax.index_tensor", "R.index_tensor",
                          {{"data", K::Tensor}, {"indices", K::Tuple}}, {}, infer_index_tensor,
                          "advanced indexing data[indices] (PyTorch)"));
  table.push_back(make_op("relax.index_put", "R.index_put",
                          {{"data", K::Tensor}, {"indices", K::Tuple}, {"values", K::Tensor}},
                          {{"accumulate", K::Bool, true, "False"}}, infer_index_put,
                          "data with data[indices] set to (or accumulated with) values"));
  table.push_back(make_op("relax.slice_scatter", "R.slice_scatter",
                          {{"input_tensor", K::Tensor},
                           {"src", K::Tensor},
                           {"start", K::Prim},
                           {"end", K::Prim},
                           {"step", K::Prim}},
                          {{"axis", K::Int, true, "0"}}, infer_slice_scatter,
                          "input_tensor with the slice start:end:step on axis replaced by src"));
  table.push_back(make_op("relax.nonzero", "R.nonzero", {{"x", K::Tensor}}, {}, infer_nonzero,
                          "indices of the non-zero elements, shape (ndim, count)"));
  table.push_back(make_op("relax.gather_nd", "R.gather_nd",
                          {{"data", K::Tensor}, {"indices", K::Tensor}},
                          {{"batch_dims", K::Int, true, "0"}}, infer_gather_nd,
                          "gathers slices by index tuples (ONNX GatherND)"));
  table.push_back(make_op("relax.scatter_nd", "R.scatter_nd",
                          {{"data", K::Tensor}, {"indices", K::Tensor}, {"updates", K::Tensor}},
                          {{"reduction", K::String, true, "\"update\""}}, infer_scatter_nd,
                          "scatters updates by index tuples (ONNX ScatterND)"));
  table.push_back(make_op(
      "relax.bucketize", "R.bucketize", {{"input_tensor", K::Tensor}, {"boundaries", K::Tensor}},
      {{"out_int32", K::Bool, true, "False"}, {"right", K::Bool, true, "False"}}, infer_bucketize,
      "bucket index of each element (torch.bucketize)"));
}

}  // namespace raxc::analysis::ops
