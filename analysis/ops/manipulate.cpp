// Shape manipulation operators (operators.md §3.5).
#include <algorithm>

#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

// --------------------------------------------------------------------------- reshape

const ir::StructInfo* infer_reshape(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  if (!x || !shape) return unknown(ctx);
  auto old_dims = v_dims(*x);
  if (!shape->dims) return tensor_of_shape(ctx, *shape, x->dtype, x->vdevice);
  // Construction-time rewriting of -1 / 0 (only for literal shapes).
  Dims dims = *shape->dims;
  int minus_one = -1;
  bool rewritten = false;
  Span at = ctx.arg_span(1);
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<int64_t> v = ctx.analyzer.as_int(dims[i]);
    if (!v || *v > 0) continue;
    if (*v == -1 && minus_one < 0) {
      minus_one = int(i);
    } else if (*v == 0 && old_dims && i < old_dims->size()) {
      dims[i] = (*old_dims)[i];
      rewritten = true;
    } else {
      std::string why = *v == -1  ? "at most one dimension may be -1"
                        : *v == 0 ? "0 copies an input dimension, which needs a known input shape"
                                  : "every dimension must be positive, except a single -1";
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx), .attribute = "shape", .reason = why},
          at);
      return rank_only(ctx, int(dims.size()), x->dtype, x->vdevice);
    }
  }
  if (minus_one >= 0) {
    if (!old_dims) {
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx),
              .attribute = "shape",
              .reason =
                  "-1 needs an input tensor of known shape, but '" + sinfo_text(x) + "' has none"},
          at);
      return rank_only(ctx, int(dims.size()), x->dtype, x->vdevice);
    }
    Dims others;
    for (size_t i = 0; i < dims.size(); ++i)
      if (int(i) != minus_one) others.push_back(dims[i]);
    dims[size_t(minus_one)] = ctx.analyzer.floordiv(product(ctx, *old_dims), product(ctx, others));
    rewritten = true;
  }
  if (old_dims) {
    const PrimExpr* before = product(ctx, *old_dims);
    const PrimExpr* after = product(ctx, dims);
    arith::Proof p = ctx.analyzer.compare(before, after);
    if (p == arith::Proof::NotEqual) {
      ctx.report(diag::ReshapeElementCountDiffers{.op = op_text(ctx),
                                                  .input = sinfo_text(x),
                                                  .input_elements = prim_text(before),
                                                  .shape = dims_text(dims),
                                                  .shape_elements = prim_text(after)},
                 at);
    } else if (p == arith::Proof::Unknown && minus_one < 0) {
      ctx.report(
          diag::ReshapeElementCountUnproven{
              .op = op_text(ctx), .input = sinfo_text(x), .shape = dims_text(dims)},
          at);
    }
  }
  if (!rewritten && ir::isa<ir::ShapeExpr>(shape->expr))
    return tensor_of_shape(ctx, *shape, x->dtype, x->vdevice);
  return make_tensor(ctx, std::move(dims), x->dtype, x->vdevice);
}

// ---------------------------------------------------------------------- permute_dims

const ir::StructInfo* infer_permute_dims(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  bool ok = true;
  auto axes = attr_int_list(ctx, "axes", &ok);
  if (!x) return unknown(ctx);
  if (x->ndim < 0) return rank_only(ctx, axes ? int(axes->size()) : -1, x->dtype, x->vdevice);
  int r = x->ndim;
  std::vector<int> perm;
  if (axes) {
    if (int(axes->size()) != r) {
      ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                                .attribute = "axes",
                                                .reason = std::to_string(axes->size()) +
                                                          " axes given for a " + std::to_string(r) +
                                                          "-dimensional tensor"},
                 param_span(ctx, param(ctx, "axes")));
      return rank_only(ctx, r, x->dtype, x->vdevice);
    }
    auto norm = normalize_axes(ctx, *axes, r, param_span(ctx, param(ctx, "axes")));
    if (!norm) return rank_only(ctx, r, x->dtype, x->vdevice);
    perm = *norm;
  } else {
    for (int i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  bool identity = true;
  for (int i = 0; i < r; ++i) identity = identity && perm[size_t(i)] == i;
  if (identity) return x;
  auto dims = s_dims(*x);
  if (!dims) return rank_only(ctx, r, x->dtype, x->vdevice);
  Dims out;
  for (int p : perm) out.push_back((*dims)[size_t(p)]);
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

// ---------------------------------------------------------------- expand_dims / squeeze

const ir::StructInfo* infer_expand_dims(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  auto axes = attr_int_list(ctx, "axis");
  if (!x) return unknown(ctx);
  if (!axes || axes->empty()) return x;
  if (x->ndim < 0) return rank_only(ctx, -1, x->dtype, x->vdevice);
  int out_rank = x->ndim + int(axes->size());
  auto norm = normalize_axes(ctx, *axes, out_rank, param_span(ctx, param(ctx, "axis")));
  if (!norm) return rank_only(ctx, out_rank, x->dtype, x->vdevice);
  auto dims = s_dims(*x);
  if (!dims) return rank_only(ctx, out_rank, x->dtype, x->vdevice);
  Dims out(size_t(out_rank), nullptr);
  for (int a : *norm) out[size_t(a)] = ctx.analyzer.make_int(1);
  size_t next = 0;
  for (auto& d : out)
    if (!d) d = (*dims)[next++];
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_squeeze(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  auto axes = attr_int_list(ctx, "axis");
  if (!x) return unknown(ctx);
  if (axes && axes->empty()) return x;
  if (x->ndim < 0) return rank_only(ctx, -1, x->dtype, x->vdevice);
  int r = x->ndim;
  std::vector<bool> remove(size_t(r), false);
  auto values = v_dims(*x);
  if (axes) {
    auto norm = normalize_axes(ctx, *axes, r, param_span(ctx, param(ctx, "axis")));
    if (!norm) return rank_only(ctx, r, x->dtype, x->vdevice);
    if (!values) return rank_only(ctx, r - int(norm->size()), x->dtype, x->vdevice);
    for (int a : *norm) {
      std::optional<int64_t> v = ctx.analyzer.as_int((*values)[size_t(a)]);
      remove[size_t(a)] = !v || *v == 1;  // a literal other than 1 is kept (PyTorch rule)
    }
  } else {
    if (!values) return rank_only(ctx, -1, x->dtype, x->vdevice);
    for (int i = 0; i < r; ++i) {
      std::optional<int64_t> v = ctx.analyzer.as_int((*values)[size_t(i)]);
      if (!v) return rank_only(ctx, -1, x->dtype, x->vdevice);
      remove[size_t(i)] = *v == 1;
    }
  }
  Dims out;
  for (int i = 0; i < r; ++i)
    if (!remove[size_t(i)]) out.push_back((*values)[size_t(i)]);
  if (!ir::isa<ir::ShapeExpr>(x->shape)) {
    if (int(out.size()) == r) return x;
    return rank_only(ctx, axes ? int(out.size()) : -1, x->dtype, x->vdevice);
  }
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_flatten(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  if (!x) return unknown(ctx, 1);
  if (x->ndim == 0) return make_tensor(ctx, {ctx.analyzer.make_int(1)}, x->dtype, x->vdevice);
  if (x->ndim == 1) return x;
  auto dims = s_dims(*x);
  if (!dims) return rank_only(ctx, 1, x->dtype, x->vdevice);
  return make_tensor(ctx, {product(ctx, *dims)}, x->dtype, x->vdevice);
}

// ------------------------------------------------------------------------ concat / stack

// dtype of several tensors: first known; a different known one is RX3108; any void -> void.
DataType common_dtype(InferContext& ctx, const std::vector<const ir::TensorSInfo*>& ts, Span at) {
  DataType first = DataType::Void();
  bool any_void = false;
  for (const ir::TensorSInfo* t : ts) {
    if (t->dtype.is_void()) {
      any_void = true;
    } else if (first.is_void()) {
      first = t->dtype;
    } else if (t->dtype != first) {
      ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                             .operands = "all input tensors",
                                             .first = first.str(),
                                             .second = t->dtype.str()},
                 at);
    }
  }
  return any_void ? DataType::Void() : first;
}

const ir::StructInfo* infer_concat(InferContext& ctx) {
  auto ts = tensor_tuple_arg(ctx, "tensors");
  bool ok = true;
  std::optional<int64_t> axis = attr_int(ctx, "axis", &ok);
  bool axis_none = !axis && ok;
  ParamValue axis_param = param(ctx, "axis");
  if (!axis_param.present()) axis = 0, axis_none = false;
  if (!ts) return unknown(ctx);
  Span at = ctx.arg_span(0);
  if (ts->empty()) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "tensors", .reason = "at least one tensor is needed"},
        at);
    return unknown(ctx);
  }
  DataType dtype = common_dtype(ctx, *ts, at);
  const ir::VDevice* vdev = first_vdevice(*ts);
  int rank = axis_none ? 1 : -1;
  for (const ir::TensorSInfo* t : *ts) {
    if (t->ndim < 0) continue;
    if (rank < 0) {
      rank = t->ndim;
    } else if (t->ndim != rank) {
      ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                            .operands = "all input tensors",
                                            .first = rank,
                                            .second = t->ndim},
                 at);
      return rank_only(ctx, -1, dtype, vdev);
    }
  }
  if (rank < 0) return ts->size() == 1 ? (*ts)[0] : rank_only(ctx, -1, dtype, vdev);
  std::optional<int> ax = normalize_axis(ctx, axis.value_or(0), rank, param_span(ctx, axis_param));
  if (!ax) return rank_only(ctx, rank, dtype, vdev);
  if (ts->size() == 1) return (*ts)[0];
  std::vector<Dims> all;
  bool all_literal = true;
  for (const ir::TensorSInfo* t : *ts) {
    auto d = v_dims(*t);
    if (!d) return rank_only(ctx, rank, dtype, vdev);
    all_literal = all_literal && ir::isa<ir::ShapeExpr>(t->shape);
    all.push_back(std::move(*d));
  }
  bool undecided = false;
  for (int d = 0; d < rank; ++d) {
    if (d == *ax) continue;
    for (size_t i = 1; i < all.size(); ++i) {
      arith::Proof p = ctx.analyzer.compare(all[i][size_t(d)], all[0][size_t(d)]);
      if (p == arith::Proof::NotEqual) {
        ctx.report(diag::OperatorDimensionsDiffer{.op = op_text(ctx),
                                                  .first_what = "dimension " + std::to_string(d) +
                                                                " of input " + std::to_string(i),
                                                  .first = prim_text(all[i][size_t(d)]),
                                                  .second_what = "that of input 0",
                                                  .second = prim_text(all[0][size_t(d)])},
                   at);
        return rank_only(ctx, rank, dtype, vdev);
      }
      if (p == arith::Proof::Unknown) {
        if (!undecided)
          ctx.report(diag::DimensionsMaybeDiffer{.op = op_text(ctx),
                                                 .first_what = "dimension " + std::to_string(d) +
                                                               " of input " + std::to_string(i),
                                                 .first = prim_text(all[i][size_t(d)]),
                                                 .second_what = "that of input 0",
                                                 .second = prim_text(all[0][size_t(d)])},
                     at);
        undecided = true;
      }
    }
  }
  if (undecided || !all_literal) return rank_only(ctx, rank, dtype, vdev);
  const PrimExpr* extent = ctx.analyzer.make_int(0);
  for (const Dims& d : all) extent = ctx.analyzer.add(extent, d[size_t(*ax)]);
  Dims out = all[0];
  out[size_t(*ax)] = extent;
  return make_tensor(ctx, std::move(out), dtype, vdev);
}

const ir::StructInfo* infer_stack(InferContext& ctx) {
  auto ts = tensor_tuple_arg(ctx, "tensors");
  if (!ts) return unknown(ctx);
  Span at = ctx.arg_span(0);
  if (ts->empty()) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "tensors", .reason = "at least one tensor is needed"},
        at);
    return unknown(ctx);
  }
  DataType dtype = common_dtype(ctx, *ts, at);
  const ir::VDevice* vdev = first_vdevice(*ts);
  int r = (*ts)[0]->ndim;
  if (r < 0) return rank_only(ctx, -1, dtype, vdev);
  for (const ir::TensorSInfo* t : *ts)
    if (t->ndim >= 0 && t->ndim != r) {
      ctx.report(
          diag::OperatorRankMismatch{
              .op = op_text(ctx), .operands = "all input tensors", .first = r, .second = t->ndim},
          at);
      return rank_only(ctx, r + 1, dtype, vdev);
    }
  auto ax = normalize_axis(ctx, attr_int(ctx, "axis").value_or(0), r + 1,
                           param_span(ctx, param(ctx, "axis")));
  if (!ax) return rank_only(ctx, r + 1, dtype, vdev);
  std::vector<Dims> all;
  bool literal = true;
  for (const ir::TensorSInfo* t : *ts) {
    auto d = v_dims(*t);
    if (!d) return rank_only(ctx, r + 1, dtype, vdev);
    literal = literal && ir::isa<ir::ShapeExpr>(t->shape);
    all.push_back(*d);
  }
  bool all_equal = true;
  for (size_t i = 1; i < all.size(); ++i)
    for (int d = 0; d < r; ++d) {
      arith::Proof p = ctx.analyzer.compare(all[i][size_t(d)], all[0][size_t(d)]);
      if (p == arith::Proof::NotEqual) {
        ctx.report(diag::OperatorDimensionsDiffer{.op = op_text(ctx),
                                                  .first_what = "dimension " + std::to_string(d) +
                                                                " of input " + std::to_string(i),
                                                  .first = prim_text(all[i][size_t(d)]),
                                                  .second_what = "that of input 0",
                                                  .second = prim_text(all[0][size_t(d)])},
                   at);
        return rank_only(ctx, r + 1, dtype, vdev);
      }
      all_equal = all_equal && p == arith::Proof::Equal;
    }
  if (!all_equal || (!literal && all.size() > 1)) return rank_only(ctx, r + 1, dtype, vdev);
  Dims out = all[0];
  out.insert(out.begin() + *ax, ctx.analyzer.make_int(int64_t(all.size())));
  return make_tensor(ctx, std::move(out), dtype, vdev);
}

// ------------------------------------------------------------------------------- split

const ir::StructInfo* infer_split(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  bool ok = true;
  // indices_or_sections: an integer (sections) or a list (indices).
  std::optional<int64_t> sections;
  std::optional<Dims> indices;
  ParamValue ios = param(ctx, "indices_or_sections");
  Span ios_span = param_span(ctx, ios);
  bool is_list = false;
  if (ios.attr) is_list = ios.attr->get_if<ir::AttrValue::List>() != nullptr;
  if (ios.arg_index >= 0)
    is_list = ir::isa<ir::Tuple>(ctx.call.args[size_t(ios.arg_index)]) ||
              ir::isa<ir::ShapeExpr>(ctx.call.args[size_t(ios.arg_index)]);
  if (is_list)
    indices = attr_prim_list(ctx, "indices_or_sections", &ok);
  else
    sections = attr_int(ctx, "indices_or_sections", &ok);
  int64_t axis_value = attr_int(ctx, "axis").value_or(0);
  if (!x || !ok || (!indices && !sections)) return unknown(ctx);
  if (sections && *sections <= 0) {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "indices_or_sections",
                                              .reason = "the number of sections must be positive"},
               ios_span);
    return unknown(ctx);
  }
  std::optional<int> axis;
  if (x->ndim >= 0) {
    axis = normalize_axis(ctx, axis_value, x->ndim, param_span(ctx, param(ctx, "axis")));
    if (!axis) return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  if ((indices && indices->empty()) || (sections && *sections == 1)) return x;
  size_t k = indices ? indices->size() + 1 : size_t(*sections);
  auto dims = s_dims(*x);
  std::vector<const ir::StructInfo*> fields;
  if (!dims || !axis) {
    for (size_t i = 0; i < k; ++i) fields.push_back(rank_only(ctx, x->ndim, x->dtype, x->vdevice));
    return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
  }
  auto& an = ctx.analyzer;
  const PrimExpr* len = (*dims)[size_t(*axis)];
  std::vector<const PrimExpr*> extents;
  if (indices) {
    auto clamp = [&](const PrimExpr* v) { return an.min(an.max(v, an.make_int(0)), len); };
    const PrimExpr* left = an.make_int(0);
    for (size_t i = 0; i <= indices->size(); ++i) {
      const PrimExpr* right = i < indices->size() ? clamp((*indices)[i]) : len;
      extents.push_back(an.max(an.sub(right, left), an.make_int(0)));
      if (i < indices->size()) left = clamp((*indices)[i]);
    }
  } else {
    const PrimExpr* n = an.make_int(*sections);
    const PrimExpr* c = an.floordiv(an.add(len, an.make_int(*sections - 1)), n);
    for (size_t i = 0; i + 1 < k; ++i) extents.push_back(c);
    const PrimExpr* last = an.sub(len, an.mul(c, an.make_int(*sections - 1)));
    if (auto v = an.as_int(last); v && *v <= 0) {
      // TVM infers a negative extent here (ceil-sized chunks run out); clamp it to 0.
      ctx.report(diag::SplitLeavesEmptySection{.op = op_text(ctx),
                                               .axis = *axis,
                                               .size = prim_text(len),
                                               .sections = *sections,
                                               .section_size = prim_text(c)},
                 ios_span);
      last = an.make_int(0);
    }
    extents.push_back(last);
  }
  for (const PrimExpr* e : extents) {
    Dims out = *dims;
    out[size_t(*axis)] = e;
    fields.push_back(make_tensor(ctx, std::move(out), x->dtype, x->vdevice));
  }
  return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
}

// ------------------------------------------------------------------------- broadcast_to

const ir::StructInfo* infer_broadcast_to(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  if (!x || !shape) return unknown(ctx);
  Span at = ctx.arg_span(1);
  if (x->ndim >= 0 && shape->ndim >= 0 && shape->ndim < x->ndim) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "shape",
                                       .reason = "the target rank " + std::to_string(shape->ndim) +
                                                 " is less than the input rank " +
                                                 std::to_string(x->ndim)},
        at);
    return tensor_of_shape(ctx, *shape, x->dtype, x->vdevice);
  }
  auto in = v_dims(*x);
  if (in && shape->dims) {
    const Dims& tgt = *shape->dims;
    for (size_t k = 0; k < in->size(); ++k) {
      const PrimExpr* a = (*in)[in->size() - 1 - k];
      const PrimExpr* b = tgt[tgt.size() - 1 - k];
      if (ctx.analyzer.as_int(a) == 1) continue;
      arith::Proof p = ctx.analyzer.compare(a, b);
      if (p == arith::Proof::NotEqual) {
        ctx.report(diag::CannotBroadcast{.op = op_text(ctx),
                                         .first_dim = prim_text(a),
                                         .first = sinfo_text(x),
                                         .second_dim = prim_text(b),
                                         .second = dims_text(tgt)},
                   at);
        break;
      }
      if (p == arith::Proof::Unknown) {
        ctx.report(diag::MaybeNotBroadcastable{.op = op_text(ctx),
                                               .first_dim = prim_text(a),
                                               .first = sinfo_text(x),
                                               .second_dim = prim_text(b),
                                               .second = dims_text(tgt)},
                   at);
        break;
      }
    }
  }
  return tensor_of_shape(ctx, *shape, x->dtype, x->vdevice);
}

// ----------------------------------------------------------------- repeat / tile / flip

const ir::StructInfo* infer_repeat(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> repeats = attr_int(ctx, "repeats");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  if (!x || !repeats) return unknown(ctx);
  std::optional<int> ax;
  if (axis && x->ndim >= 0) {
    ax = normalize_axis(ctx, *axis, x->ndim, param_span(ctx, param(ctx, "axis")));
    if (!ax) return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  auto dims = s_dims(*x);
  auto& an = ctx.analyzer;
  if (!dims) {
    if (!axis) return rank_only(ctx, 1, x->dtype, x->vdevice);
    return *repeats == 1 ? x : rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  if (!ax)
    return make_tensor(ctx, {an.mul(product(ctx, *dims), an.make_int(*repeats))}, x->dtype,
                       x->vdevice);
  Dims out = *dims;
  out[size_t(*ax)] = an.mul(out[size_t(*ax)], an.make_int(*repeats));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_tile(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  auto repeats = attr_int_list(ctx, "repeats");
  if (!x || !repeats) return unknown(ctx);
  int l = int(repeats->size()), r = x->ndim;
  auto dims = s_dims(*x);
  if (!dims) {
    if (r < 0) return rank_only(ctx, -1, x->dtype, x->vdevice);
    if (l > r) return rank_only(ctx, l, x->dtype, x->vdevice);
    bool ones = std::all_of(repeats->begin(), repeats->end(), [](int64_t v) { return v == 1; });
    return ones ? x : rank_only(ctx, r, x->dtype, x->vdevice);
  }
  int n = std::max(l, r);
  Dims out;
  auto& an = ctx.analyzer;
  for (int i = 0; i < n; ++i) {
    int di = i - (n - r), ri = i - (n - l);
    const PrimExpr* d = di >= 0 ? (*dims)[size_t(di)] : an.make_int(1);
    int64_t rep = ri >= 0 ? (*repeats)[size_t(ri)] : 1;
    out.push_back(an.mul(d, an.make_int(rep)));
  }
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

// R.reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0) (HEAD only; ONNX
// ReverseSequence): for every batch entry b, the first seq_lengths[b] elements along seq_axis are
// reversed. SI: S(data) (operators.md §3.13); seq_lengths is a 1-D integer tensor with one length
// per batch entry, and the two axes are distinct axes of data.
const ir::StructInfo* infer_reverse_sequence(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  const ir::TensorSInfo* lens = tensor_arg(ctx, "seq_lengths");
  bool ok = true;
  int64_t seq_axis = attr_int(ctx, "seq_axis", &ok).value_or(1);
  int64_t batch_axis = attr_int(ctx, "batch_axis", &ok).value_or(0);
  if (!x) return unknown(ctx);
  Span lens_at = param_span(ctx, param(ctx, "seq_lengths"));
  if (lens && lens->ndim >= 0 && lens->ndim != 1)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "seq_lengths", .ndim = "1", .sinfo = sinfo_text(lens)},
        lens_at);
  if (lens && !lens->dtype.is_void() && (!lens->dtype.is_integer() || lens->dtype.is_bool()))
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "seq_lengths",
                                               .expected = "an integer tensor",
                                               .sinfo = sinfo_text(lens)},
               lens_at);
  if (x->ndim < 0 || !ok) return x;  // no axis checks after an attribute type error
  auto sa = normalize_axis(ctx, seq_axis, x->ndim, param_span(ctx, param(ctx, "seq_axis")));
  auto ba = normalize_axis(ctx, batch_axis, x->ndim, param_span(ctx, param(ctx, "batch_axis")));
  if (!sa || !ba) return x;
  if (*sa == *ba) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "batch_axis",
                                       .reason = "seq_axis and batch_axis must be different axes"},
        param_span(ctx, param(ctx, "batch_axis")));
    return x;
  }
  auto xd = v_dims(*x);
  auto ld = lens && lens->ndim == 1 ? v_dims(*lens) : std::nullopt;
  if (xd && ld)
    check_dims_equal(ctx, (*ld)[0], "the length of seq_lengths", (*xd)[size_t(*ba)],
                     "the batch extent of data", ctx.call.span);
  return x;
}

const ir::StructInfo* infer_flip(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  if (!x) return unknown(ctx);
  if (axis && x->ndim >= 0)
    normalize_axis(ctx, *axis, x->ndim, param_span(ctx, param(ctx, "axis")));
  return x;
}

// ------------------------------------------------------------------------ collapse_sum

void check_collapse(InferContext& ctx, const Dims& data, const Dims& target, Span at,
                    const std::string& data_text) {
  size_t t = target.size();
  for (size_t k = 0; k < data.size() && t > 0; ++k) {
    const PrimExpr* d = data[data.size() - 1 - k];
    const PrimExpr* g = target[t - 1];
    --t;
    if (ctx.analyzer.as_int(g) == 1) continue;
    arith::Proof p = ctx.analyzer.compare(d, g);
    if (p == arith::Proof::Equal) continue;
    // TVM rejects undecidable symbolic pairs too; both are errors here.
    ctx.report(diag::CannotBroadcast{.op = op_text(ctx),
                                     .first_dim = prim_text(d),
                                     .first = data_text,
                                     .second_dim = prim_text(g),
                                     .second = dims_text(target)},
               at);
    return;
  }
}

const ir::StructInfo* infer_collapse_sum_to(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  if (!x || !shape) return unknown(ctx);
  auto d = v_dims(*x);
  if (d && shape->dims) check_collapse(ctx, *d, *shape->dims, ctx.call.span, sinfo_text(x));
  return tensor_of_shape(ctx, *shape, x->dtype, x->vdevice);
}

const ir::StructInfo* infer_collapse_sum_like(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  const ir::TensorSInfo* target = tensor_arg(ctx, "collapse_target");
  if (!x || !target) return unknown(ctx);
  auto d = v_dims(*x);
  auto t = v_dims(*target);
  if (d && t) check_collapse(ctx, *d, *t, ctx.call.span, sinfo_text(x));
  return ctx.arena().make<ir::TensorSInfo>(target->shape, x->dtype, target->vdevice, target->ndim);
}

// --------------------------------------------------------------------- layout_transform

// [lowest, highest] value of an index expression when each of `params` ranges over
// [0, extent - 1]; nullopt outside the affine forms (constant factors, positive divisors).
std::optional<std::pair<const PrimExpr*, const PrimExpr*>> index_range(
    arith::Analyzer& an, const PrimExpr* e, const std::vector<const ir::PrimVar*>& params,
    const Dims& extents) {
  for (size_t i = 0; i < params.size(); ++i)
    if (e == params[i]) return std::pair{an.make_int(0), an.sub(extents[i], an.make_int(1))};
  if (auto c = an.as_int(e)) return std::pair{e, e};
  const auto* bin = ir::dyn_cast<ir::PrimBinary>(e);
  if (!bin) return std::nullopt;
  auto a = index_range(an, bin->a, params, extents);
  if (!a) return std::nullopt;
  auto [lo, hi] = *a;
  if (bin->kind == ir::PrimKind::Add || bin->kind == ir::PrimKind::Sub) {
    auto b = index_range(an, bin->b, params, extents);
    if (!b) return std::nullopt;
    if (bin->kind == ir::PrimKind::Add)
      return std::pair{an.add(lo, b->first), an.add(hi, b->second)};
    return std::pair{an.sub(lo, b->second), an.sub(hi, b->first)};
  }
  std::optional<int64_t> c = an.as_int(bin->b);
  if (!c || *c <= 0) return std::nullopt;
  const PrimExpr* k = an.make_int(*c);
  switch (bin->kind) {
    case ir::PrimKind::Mul: return std::pair{an.mul(lo, k), an.mul(hi, k)};
    case ir::PrimKind::FloorDiv: return std::pair{an.floordiv(lo, k), an.floordiv(hi, k)};
    case ir::PrimKind::FloorMod:
      // The whole residue range unless the operand provably stays below the divisor.
      if (auto l = an.as_int(lo), h = an.as_int(hi); l && h && *l >= 0 && *h < *c)
        return std::pair{lo, hi};
      return std::pair{an.make_int(0), an.make_int(*c - 1)};
    default: return std::nullopt;
  }
}

const ir::StructInfo* infer_layout_transform(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  ParamValue mp = param(ctx, "index_map");
  const ir::IndexMap* map = nullptr;
  if (mp.attr) {
    if (auto* m = mp.attr->get_if<const ir::IndexMap*>()) map = *m;
  }
  if (!x) return unknown(ctx);
  if (!map) {
    if (mp.present())
      ctx.report(diag::OperatorParameterWrongKind{.op = op_text(ctx),
                                                  .parameter = "index_map",
                                                  .expected = "an index map (a lambda)",
                                                  .actual = "a non-lambda value"},
                 param_span(ctx, mp));
    return rank_only(ctx, -1, x->dtype, x->vdevice);
  }
  int out_rank = int(map->results.size());
  if (x->ndim >= 0 && x->ndim != int(map->params.size())) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = "x",
                                               .ndim = std::to_string(map->params.size()),
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return rank_only(ctx, out_rank, x->dtype, x->vdevice);
  }
  auto dims = v_dims(*x);
  if (!dims) return rank_only(ctx, out_rank, x->dtype, x->vdevice);
  // The extent of each result is one past its largest value over the input's index box, by
  // interval arithmetic over the affine forms index maps use (v, v * c, sums, v // c, v % c:
  // `(i0, i1 // 4, i2, i3, i1 % 4)` and its inverse `(i0, i1 * 4 + i4, i2, i3)`); a result
  // outside those forms leaves the shape unknown.
  Dims out;
  for (const PrimExpr* res : map->results) {
    auto range = index_range(ctx.analyzer, res, map->params, *dims);
    if (!range) return rank_only(ctx, out_rank, x->dtype, x->vdevice);
    out.push_back(ctx.analyzer.add(range->second, ctx.analyzer.make_int(1)));
  }
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

// ------------------------------------------------------------ gather / scatter elements

const ir::StructInfo* infer_gather_elements(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* idx = tensor_arg(ctx, "indices");
  if (!data || !idx) return unknown(ctx);
  if (!idx->dtype.is_void() && !idx->dtype.is_int())
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "indices",
                                               .expected = "a signed integer tensor",
                                               .sinfo = sinfo_text(idx)},
               ctx.arg_span(1));
  if (data->ndim < 0 || idx->ndim < 0) return rank_only(ctx, -1, data->dtype, data->vdevice);
  normalize_axis(ctx, attr_int(ctx, "axis").value_or(0), data->ndim,
                 param_span(ctx, param(ctx, "axis")));
  if (data->ndim != idx->ndim)
    ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                          .operands = "data and indices",
                                          .first = data->ndim,
                                          .second = idx->ndim},
               ctx.call.span);
  return ctx.arena().make<ir::TensorSInfo>(idx->shape, data->dtype, data->vdevice, idx->ndim);
}

const ir::StructInfo* infer_scatter_elements(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* idx = tensor_arg(ctx, "indices");
  const ir::TensorSInfo* upd = tensor_arg(ctx, "updates");
  if (!data) return unknown(ctx);
  if (data->ndim < 0) return rank_only(ctx, -1, data->dtype, data->vdevice);
  if (idx && upd) {
    if ((idx->ndim >= 0 && idx->ndim != data->ndim) || (upd->ndim >= 0 && upd->ndim != data->ndim))
      ctx.report(
          diag::OperatorRankMismatch{
              .op = op_text(ctx),
              .operands = "data, indices and updates",
              .first = data->ndim,
              .second = idx->ndim >= 0 && idx->ndim != data->ndim ? idx->ndim : upd->ndim},
          ctx.call.span);
    if (!upd->dtype.is_void() && !data->dtype.is_void() && upd->dtype != data->dtype)
      ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                             .operands = "data and updates",
                                             .first = data->dtype.str(),
                                             .second = upd->dtype.str()},
                 ctx.call.span);
    if (!idx->dtype.is_void() && !idx->dtype.is_integer())
      ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                                 .parameter = "indices",
                                                 .expected = "an integer tensor",
                                                 .sinfo = sinfo_text(idx)},
                 ctx.arg_span(1));
  }
  auto dims = s_dims(*data);
  if (!dims) return rank_only(ctx, data->ndim, data->dtype, data->vdevice);
  return data;
}

}  // namespace

void register_manipulate(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.reshape", "R.reshape", {{"x", K::Tensor}, {"shape", K::Shape}}, {},
                          infer_reshape, "reinterprets x with a new shape of equal size"));
  table.push_back(make_op("relax.permute_dims", "R.permute_dims", {{"x", K::Tensor}},
                          {{"axes", K::IntList, true, "None"}}, infer_permute_dims,
                          "permutes the axes (reverses them when axes is None)"));
  table.push_back(make_op("relax.expand_dims", "R.expand_dims", {{"x", K::Tensor}},
                          {{"axis", K::IntList}}, infer_expand_dims,
                          "inserts unit axes at the given output positions"));
  table.push_back(make_op("relax.squeeze", "R.squeeze", {{"x", K::Tensor}},
                          {{"axis", K::IntList, true, "None"}}, infer_squeeze,
                          "removes unit axes (all of them when axis is None)"));
  table.push_back(make_op("relax.flatten", "R.flatten", {{"x", K::Tensor}}, {}, infer_flatten,
                          "flattens x to one dimension"));
  table.push_back(make_op("relax.concat", "R.concat", {{"tensors", K::Tuple}},
                          {{"axis", K::Int, true, "0"}}, infer_concat,
                          "concatenates a tuple of tensors along an axis"));
  table.push_back(make_op("relax.stack", "R.stack", {{"tensors", K::Tuple}},
                          {{"axis", K::Int, true, "0"}}, infer_stack,
                          "stacks a tuple of equally shaped tensors along a new axis"));
  table.push_back(make_op("relax.split", "R.split", {{"x", K::Tensor}},
                          {{"indices_or_sections", K::Other}, {"axis", K::Int, true, "0"}},
                          infer_split, "splits x into sections or at indices along an axis"));
  table.push_back(make_op("relax.broadcast_to", "R.broadcast_to",
                          {{"x", K::Tensor}, {"shape", K::Shape}}, {}, infer_broadcast_to,
                          "broadcasts x to a shape"));
  table.push_back(make_op("relax.repeat", "R.repeat", {{"data", K::Tensor}},
                          {{"repeats", K::Int}, {"axis", K::Int, true, "None"}}, infer_repeat,
                          "repeats elements (of the flattened tensor when axis is None)"));
  table.push_back(make_op("relax.tile", "R.tile", {{"data", K::Tensor}}, {{"repeats", K::IntList}},
                          infer_tile, "tiles data by repeats per axis"));
  table.push_back(make_op("relax.flip", "R.flip", {{"data", K::Tensor}}, {{"axis", K::Int}},
                          infer_flip, "reverses the order of elements along an axis"));
  table.push_back(make_op("relax.reverse_sequence", "R.reverse_sequence",
                          {{"data", K::Tensor}, {"seq_lengths", K::Tensor}},
                          {{"seq_axis", K::Int, true, "1"}, {"batch_axis", K::Int, true, "0"}},
                          infer_reverse_sequence,
                          "reverses the first seq_lengths[b] elements along seq_axis per batch"));
  table.push_back(make_op("relax.collapse_sum_to", "R.collapse_sum_to",
                          {{"data", K::Tensor}, {"shape", K::Shape}}, {}, infer_collapse_sum_to,
                          "sums data over broadcast axes down to shape"));
  table.push_back(make_op("relax.collapse_sum_like", "R.collapse_sum_like",
                          {{"data", K::Tensor}, {"collapse_target", K::Tensor}}, {},
                          infer_collapse_sum_like,
                          "sums data over broadcast axes down to the target's shape"));
  table.push_back(make_op("relax.layout_transform", "R.layout_transform", {{"x", K::Tensor}},
                          {{"index_map", K::Other},
                           {"pad_value", K::Prim, true, "None"},
                           {"axis_separators", K::IntList, true, "None"},
                           {"input_axis_separators", K::IntList, true, "None"}},
                          infer_layout_transform, "moves elements by an index map (with padding)"));
  table.push_back(make_op("relax.gather_elements", "R.gather_elements",
                          {{"data", K::Tensor}, {"indices", K::Tensor}},
                          {{"axis", K::Int, true, "0"}}, infer_gather_elements,
                          "gathers elements along an axis (torch.gather)"));
  table.push_back(
      make_op("relax.scatter_elements", "R.scatter_elements",
              {{"data", K::Tensor}, {"indices", K::Tensor}, {"updates", K::Tensor}},
              {{"axis", K::Int, true, "0"}, {"reduction", K::String, true, "\"update\""}},
              infer_scatter_elements, "scatters updates into data along an axis"));
}

}  // namespace raxc::analysis::ops
