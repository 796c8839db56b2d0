// Neural-network operators R.nn.* (operators.md §3.10): activations, softmax, normalizations,
// dropout, convolutions, pooling, pad, attention, losses, pixel_shuffle.
#include <string>
#include <tuple>

#include "analysis/ops/common.h"
#include "analysis/ops/layout.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

// ------------------------------------------------------------------------ activations

const ir::StructInfo* infer_activation(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  if (!x) return unknown(ctx);
  std::string_view name = current_op(ctx).name;
  // relu and relu6 (sugar for clip(x, 0, 6), which checks no dtype) accept any dtype.
  if (name != "relax.nn.relu" && name != "relax.nn.relu6") require_float(ctx, *x, "data");
  for (std::string_view a : {"alpha", "beta", "threshold"})
    if (name != "relax.nn.prelu") attr_float(ctx, a);
  return x;
}

const ir::StructInfo* infer_prelu(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  tensor_arg(ctx, "alpha");
  if (!x) return unknown(ctx);
  require_float(ctx, *x, "data");
  if (x->ndim >= 0)
    normalize_axis(ctx, attr_int(ctx, "axis").value_or(1), x->ndim,
                   param_span(ctx, param(ctx, "axis")));
  return x;
}

const ir::StructInfo* infer_softmax(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  if (!x) return unknown(ctx);
  if (x->ndim < 0) return x;
  require_float(ctx, *x, "data");
  normalize_axis(ctx, axis.value_or(-1), x->ndim, param_span(ctx, param(ctx, "axis")));
  return x;
}

// ---------------------------------------------------------------------- normalizations

// Checks one parameter tensor (gamma, beta, ...) against the data on the normalized axes.
// Returns false when an extent could not be proven equal (the result degrades to rank-only).
bool check_norm_param(InferContext& ctx, const ir::TensorSInfo& data, const std::vector<int>& axes,
                      std::string_view name) {
  const ir::TensorSInfo* p = tensor_arg(ctx, name);
  if (!p) return true;
  Span at = param_span(ctx, param(ctx, name));
  if (p->dtype != data.dtype) {
    ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                           .operands = "'data' and '" + std::string(name) + "'",
                                           .first = data.dtype.str(),
                                           .second = p->dtype.str()},
               at);
    return true;
  }
  if (p->ndim != int(axes.size())) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = std::string(name),
                                               .ndim = std::to_string(axes.size()),
                                               .sinfo = sinfo_text(p)},
               at);
    return true;
  }
  auto dd = s_dims(data), pd = s_dims(*p);
  if (!dd || !pd) return true;
  bool decided = true;
  for (size_t i = 0; i < axes.size(); ++i) {
    const PrimExpr* a = (*dd)[size_t(axes[i])];
    const PrimExpr* b = (*pd)[i];
    arith::Proof pr = ctx.analyzer.compare(a, b);
    if (pr == arith::Proof::NotEqual) {
      ctx.report(
          diag::OperatorDimensionsDiffer{
              .op = op_text(ctx),
              .first_what = "dimension " + std::to_string(i) + " of '" + std::string(name) + "'",
              .first = prim_text(b),
              .second_what = "dimension " + std::to_string(axes[i]) + " of 'data'",
              .second = prim_text(a)},
          at);
      return true;
    }
    if (pr == arith::Proof::Unknown) {
      ctx.report(
          diag::DimensionsMaybeDiffer{
              .op = op_text(ctx),
              .first_what = "dimension " + std::to_string(i) + " of '" + std::string(name) + "'",
              .first = prim_text(b),
              .second_what = "dimension " + std::to_string(axes[i]) + " of 'data'",
              .second = prim_text(a)},
          at);
      ctx.assume_equal(b, a);
      decided = false;
    }
  }
  return decided;
}

const ir::StructInfo* infer_layer_norm(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  auto axes = attr_int_list(ctx, "axes");
  attr_float(ctx, "epsilon");
  if (!x) return unknown(ctx);
  require_float(ctx, *x, "data");
  if (x->ndim < 0 || !axes) return x;
  auto norm = normalize_axes(ctx, *axes, x->ndim, param_span(ctx, param(ctx, "axes")));
  if (!norm) return x;
  bool decided = true;
  bool is_rms = current_op(ctx).name == "relax.nn.rms_norm";
  for (std::string_view p : is_rms ? std::vector<std::string_view>{"weight"}
                                   : std::vector<std::string_view>{"gamma", "beta"})
    decided = check_norm_param(ctx, *x, *norm, p) && decided;
  return decided ? x : rank_only(ctx, x->ndim, x->dtype, x->vdevice);
}

const ir::StructInfo* infer_group_norm(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> groups = attr_int(ctx, "num_groups");
  std::optional<int64_t> channel = attr_int(ctx, "channel_axis");
  auto axes = attr_int_list(ctx, "axes");
  if (!x) return unknown(ctx);
  require_float(ctx, *x, "data");
  if (x->ndim < 0 || !channel || !axes) return x;
  auto c = normalize_axis(ctx, *channel, x->ndim, param_span(ctx, param(ctx, "channel_axis")));
  auto norm = normalize_axes(ctx, *axes, x->ndim, param_span(ctx, param(ctx, "axes")));
  if (!c || !norm) return x;
  for (int a : *norm)
    if (a == *c) {
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx),
              .attribute = "axes",
              .reason = "the channel axis must not be among the normalized axes"},
          param_span(ctx, param(ctx, "axes")));
      return x;
    }
  if (auto dims = s_dims(*x); dims && groups && *groups > 0) {
    if (auto ch = ctx.analyzer.as_int((*dims)[size_t(*c)]); ch && *ch % *groups != 0)
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = "num_groups",
                                         .reason = "the channel count " + std::to_string(*ch) +
                                                   " is not divisible by " +
                                                   std::to_string(*groups)},
          param_span(ctx, param(ctx, "num_groups")));
  }
  bool decided = true;
  for (std::string_view p : {"gamma", "beta"})
    decided = check_norm_param(ctx, *x, {*c}, p) && decided;
  return decided ? x : rank_only(ctx, x->ndim, x->dtype, x->vdevice);
}

const ir::StructInfo* infer_instance_norm(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  if (!x) return unknown(ctx);
  require_float(ctx, *x, "data");
  return x;
}

const ir::StructInfo* infer_batch_norm(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  const ir::TensorSInfo* mean = tensor_arg(ctx, "moving_mean");
  const ir::TensorSInfo* var = tensor_arg(ctx, "moving_var");
  if (!x) return unknown(ctx);
  require_float(ctx, *x, "data");
  bool decided = true;
  if (x->ndim >= 0 && axis) {
    auto a = normalize_axis(ctx, *axis, x->ndim, param_span(ctx, param(ctx, "axis")));
    if (a)
      for (std::string_view p : {"gamma", "beta", "moving_mean", "moving_var"})
        decided = check_norm_param(ctx, *x, {*a}, p) && decided;
  }
  std::vector<const ir::StructInfo*> fields;
  if (decided && mean && var) {
    fields = {x, mean, var};
  } else {
    fields = {rank_only(ctx, x->ndim, x->dtype, x->vdevice),
              rank_only(ctx, 1, x->dtype, x->vdevice), rank_only(ctx, 1, x->dtype, x->vdevice)};
  }
  return ctx.arena().make<ir::TupleSInfo>(std::move(fields));
}

const ir::StructInfo* infer_dropout(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  attr_float(ctx, "rate");
  if (!x) return unknown(ctx);
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{x, x});
}

// ---------------------------------------------------------------------------- layouts

// A spatial attribute list canonicalized to `n` values (an int or 1 value is repeated).
std::vector<const PrimExpr*> spatial_list(InferContext& ctx, std::string_view name, size_t n,
                                          int64_t dflt) {
  auto v = attr_prim_list(ctx, name);
  std::vector<const PrimExpr*> out;
  if (!v || v->empty()) return std::vector<const PrimExpr*>(n, ctx.analyzer.make_int(dflt));
  if (v->size() == 1) return std::vector<const PrimExpr*>(n, (*v)[0]);
  if (v->size() != n) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = std::string(name),
                                       .reason = "expected 1 or " + std::to_string(n) +
                                                 " values, got " + std::to_string(v->size())},
        param_span(ctx, param(ctx, name)));
    return std::vector<const PrimExpr*>(n, ctx.analyzer.make_int(dflt));
  }
  return *v;
}

// Padding: 1 value -> all sides, n values -> (p_i before, p_i after), 2n values -> as is.
// Returns [before_0..before_{n-1}, after_0..after_{n-1}].
std::vector<const PrimExpr*> padding_list(InferContext& ctx, size_t n) {
  auto v = attr_prim_list(ctx, "padding");
  const PrimExpr* zero = ctx.analyzer.make_int(0);
  if (!v || v->empty()) return std::vector<const PrimExpr*>(2 * n, zero);
  if (v->size() == 1) return std::vector<const PrimExpr*>(2 * n, (*v)[0]);
  if (v->size() == n) {
    std::vector<const PrimExpr*> out = *v;
    out.insert(out.end(), v->begin(), v->end());
    return out;
  }
  if (v->size() == 2 * n) return *v;
  ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                            .attribute = "padding",
                                            .reason = "expected 1, " + std::to_string(n) + " or " +
                                                      std::to_string(2 * n) + " values, got " +
                                                      std::to_string(v->size())},
             param_span(ctx, param(ctx, "padding")));
  return std::vector<const PrimExpr*>(2 * n, zero);
}

std::string spatial_letters(size_t n) { return n == 1 ? "W" : n == 2 ? "HW" : "DHW"; }

// Resolves the data and output layouts against the canonical NC(D)(H)W.
struct Layouts {
  std::optional<Layout> in, out;
  int in_rank = -1;
  int out_rank = -1;
  bool ok = true;
};

Layouts resolve_layouts(InferContext& ctx, std::string_view data_key, std::string_view out_key,
                        size_t n) {
  Layouts l;
  std::string canonical = "NC" + spatial_letters(n);
  std::string data = attr_string(ctx, data_key).value_or(canonical);
  std::string out = attr_string(ctx, out_key).value_or(data);
  l.in = parse_layout(data, canonical);
  if (!l.in) {
    ctx.report(
        diag::OperatorInvalidLayout{
            .op = op_text(ctx), .layout = data, .kind = "data (" + canonical + "-like)"},
        param_span(ctx, param(ctx, data_key)));
    l.ok = false;
  }
  bool data_valid = l.ok;
  l.out = parse_layout(out, canonical);
  if (!l.out && (data_valid || out != data)) {
    ctx.report(
        diag::OperatorInvalidLayout{
            .op = op_text(ctx), .layout = out, .kind = "output (" + canonical + "-like)"},
        param_span(ctx, param(ctx, out_key)));
    l.ok = false;
  }
  l.in_rank = data_valid ? layout_rank(data) : int(n + 2);
  l.out_rank = layout_rank(out);
  return l;
}

// Canonical dims [N, C, spatial...] (or [O, I, spatial...]) of a tensor in `layout`: a split
// axis is its outer extent times the factor; the sub-axis must have the factor as extent.
Dims from_layout(InferContext& ctx, const Dims& dims, const Layout& layout, std::string_view what) {
  auto& an = ctx.analyzer;
  Dims out;
  for (size_t i = 0; i < layout.primal.size(); ++i) {
    const PrimExpr* d = dims[size_t(layout.primal[i])];
    if (layout.split(i)) {
      const PrimExpr* factor = an.make_int(layout.factor[i]);
      check_dims_equal(ctx, dims[size_t(layout.sub[i])],
                       "sub-axis " + std::to_string(layout.sub[i]) + " of " + std::string(what),
                       factor, "its split factor", ctx.call.span);
      d = an.mul(d, factor);
    }
    out.push_back(d);
  }
  return out;
}

// Dims in `layout` from canonical ones.
Dims to_layout(InferContext& ctx, const Dims& canonical, const Layout& layout) {
  auto& an = ctx.analyzer;
  Dims out(size_t(layout.rank));
  for (size_t i = 0; i < canonical.size(); ++i) {
    if (!layout.split(i)) {
      out[size_t(layout.primal[i])] = canonical[i];
      continue;
    }
    const PrimExpr* factor = an.make_int(layout.factor[i]);
    out[size_t(layout.primal[i])] = an.floordiv(canonical[i], factor);
    out[size_t(layout.sub[i])] = factor;
  }
  return out;
}

// ------------------------------------------------------------------------ convolutions

template <size_t N, bool Transpose>
const ir::StructInfo* infer_conv(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  const ir::TensorSInfo* weight = tensor_arg(ctx, "weight");
  Layouts l = resolve_layouts(ctx, "data_layout", "out_layout", N);
  std::string kcanon = std::string(Transpose ? "IO" : "OI") + spatial_letters(N);
  std::string klayout = attr_string(ctx, "kernel_layout").value_or(kcanon);
  std::string kcanonical = "OI" + spatial_letters(N);
  std::optional<Layout> kpos = parse_layout(klayout, kcanonical);
  bool kvalid = kpos.has_value();
  if (!kvalid)
    ctx.report(
        diag::OperatorInvalidLayout{
            .op = op_text(ctx), .layout = klayout, .kind = "kernel (" + kcanon + "-like)"},
        param_span(ctx, param(ctx, "kernel_layout")));
  int64_t groups = attr_int(ctx, "groups").value_or(1);
  if (groups <= 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "groups", .reason = "groups must be positive"},
        param_span(ctx, param(ctx, "groups")));
    groups = 1;
  }
  std::optional<DataType> out_dtype = attr_dtype(ctx, "out_dtype");
  if (!data || !weight) return unknown(ctx, l.out_rank);
  DataType dtype =
      out_dtype && !out_dtype->is_void()
          ? *out_dtype
          : arith_dtype(ctx, data->dtype, weight->dtype, "data and weight", ctx.call.span);
  const ir::VDevice* vdev = binary_vdevice(ctx, data->vdevice, weight->vdevice);
  int weight_rank = kvalid ? layout_rank(klayout) : int(N + 2);
  for (auto [t, name, rank] :
       {std::tuple{data, "data", l.in_rank}, std::tuple{weight, "weight", weight_rank}})
    if (t->ndim >= 0 && t->ndim != rank) {
      ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                                 .parameter = name,
                                                 .ndim = std::to_string(rank),
                                                 .sinfo = sinfo_text(t)},
                 param_span(ctx, param(ctx, name)));
      return rank_only(ctx, l.out_rank, dtype, vdev);
    }
  auto dd = s_dims(*data), wd = s_dims(*weight);
  if (!l.ok || !kvalid || !l.in || !l.out || !kpos || !dd || !wd)
    return rank_only(ctx, l.out_rank, dtype, vdev);
  auto& an = ctx.analyzer;
  Dims x = from_layout(ctx, *dd, *l.in, "data");    // N, C, spatial...
  Dims w = from_layout(ctx, *wd, *kpos, "weight");  // O, I, spatial... (transpose: IO swap)
  const PrimExpr* g = an.make_int(groups);
  Span at = ctx.call.span;
  Dims strides = spatial_list(ctx, "strides", N, 1);
  Dims dilation = spatial_list(ctx, "dilation", N, 1);
  Dims pad = padding_list(ctx, N);
  Dims out{x[0]};
  if (!Transpose) {
    check_dims_equal(ctx, x[1], "the input channels", an.mul(w[1], g),
                     "weight input channels * groups", at);
    if (auto o = an.as_int(w[0]); o && *o % groups != 0)
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = "groups",
                                         .reason = "the output channel count " +
                                                   std::to_string(*o) + " is not divisible by " +
                                                   std::to_string(groups)},
          at);
    out.push_back(w[0]);
    for (size_t i = 0; i < N; ++i) {
      const PrimExpr* num = an.sub(an.sub(an.add(an.add(x[2 + i], pad[i]), pad[N + i]),
                                          an.mul(dilation[i], an.sub(w[2 + i], an.make_int(1)))),
                                   an.make_int(1));
      out.push_back(an.add(an.floordiv(num, strides[i]), an.make_int(1)));
    }
  } else {
    // The letters name the roles: w[0] is 'O' (output channels per group), w[1] is 'I'.
    const PrimExpr* wo = w[0];
    const PrimExpr* wi = w[1];
    check_dims_equal(ctx, x[1], "the input channels", wi, "weight input channels", at);
    if (auto i = an.as_int(wi); i && *i % groups != 0)
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = "groups",
                                         .reason = "the weight input channel count " +
                                                   std::to_string(*i) + " is not divisible by " +
                                                   std::to_string(groups)},
          at);
    Dims out_pad = spatial_list(ctx, "output_padding", N, 0);
    for (size_t i = 0; i < N; ++i) {
      auto op = an.as_int(out_pad[i]), st = an.as_int(strides[i]);
      if (op && st && *op >= *st)
        ctx.report(
            diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                           .attribute = "output_padding",
                                           .reason = "each value must be less than the stride"},
            param_span(ctx, param(ctx, "output_padding")));
    }
    out.push_back(an.mul(wo, g));
    for (size_t i = 0; i < N; ++i) {
      const PrimExpr* e = an.mul(an.sub(x[2 + i], an.make_int(1)), strides[i]);
      e = an.sub(e, an.add(pad[i], pad[N + i]));
      e = an.add(e, an.mul(dilation[i], an.sub(w[2 + i], an.make_int(1))));
      e = an.add(an.add(e, out_pad[i]), an.make_int(1));
      out.push_back(e);
    }
  }
  return make_tensor(ctx, to_layout(ctx, out, *l.out), dtype, vdev);
}

// ----------------------------------------------------------------------------- pooling

template <size_t N>
const ir::StructInfo* infer_pool(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  Layouts l = resolve_layouts(ctx, "layout", "out_layout", N);
  bool ceil_mode = attr_bool(ctx, "ceil_mode").value_or(false);
  attr_bool(ctx, "count_include_pad");
  if (!data) return unknown(ctx, l.out_rank);
  if (data->ndim >= 0 && data->ndim != l.in_rank) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = "data",
                                               .ndim = std::to_string(l.in_rank),
                                               .sinfo = sinfo_text(data)},
               ctx.arg_span(0));
    return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
  }
  auto dd = s_dims(*data);
  if (!l.ok || !l.in || !l.out || !dd)
    return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
  auto& an = ctx.analyzer;
  Dims x = from_layout(ctx, *dd, *l.in, "data");
  Dims pool = spatial_list(ctx, "pool_size", N, 1);
  Dims strides = spatial_list(ctx, "strides", N, 1);
  Dims dilation = spatial_list(ctx, "dilation", N, 1);
  Dims pad = padding_list(ctx, N);
  Dims out{x[0], x[1]};
  for (size_t i = 0; i < N; ++i) {
    const PrimExpr* num = an.sub(an.sub(an.add(an.add(x[2 + i], pad[i]), pad[N + i]),
                                        an.mul(dilation[i], an.sub(pool[i], an.make_int(1)))),
                                 an.make_int(1));
    if (ceil_mode) num = an.add(num, an.sub(strides[i], an.make_int(1)));
    const PrimExpr* raw = an.add(an.floordiv(num, strides[i]), an.make_int(1));
    if (ceil_mode) {
      // The last window must start inside the (front-padded) input.
      auto r = an.as_int(raw), s = an.as_int(strides[i]), h = an.as_int(an.add(x[2 + i], pad[i]));
      if (r && s && h) {
        if ((*r - 1) * *s >= *h) raw = an.make_int(*r - 1);
      } else {
        return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
      }
    }
    out.push_back(raw);
  }
  return make_tensor(ctx, to_layout(ctx, out, *l.out), data->dtype, data->vdevice);
}

template <size_t N>
const ir::StructInfo* infer_adaptive_pool(InferContext& ctx) {
  const ir::TensorSInfo* data = tensor_arg(ctx, "data");
  Layouts l = resolve_layouts(ctx, "layout", "out_layout", N);
  auto size = attr_prim_list(ctx, "output_size");
  if (!data) return unknown(ctx, l.out_rank);
  if (data->ndim >= 0 && data->ndim != l.in_rank) {
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = "data",
                                               .ndim = std::to_string(l.in_rank),
                                               .sinfo = sinfo_text(data)},
               ctx.arg_span(0));
    return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
  }
  auto dd = s_dims(*data);
  std::string layout = attr_string(ctx, "layout").value_or("NC" + spatial_letters(N));
  std::string out_layout = attr_string(ctx, "out_layout").value_or(layout);
  if (!l.ok || !l.in || !l.out || !dd) {
    if (data->shape && out_layout == layout && !size) return data;
    return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
  }
  Dims x = from_layout(ctx, *dd, *l.in, "data");
  if (size) {
    Dims s = *size;
    if (s.size() == 1) s = Dims(N, s[0]);
    if (s.size() != N) {
      ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                                .attribute = "output_size",
                                                .reason = "expected 1 or " + std::to_string(N) +
                                                          " values"},
                 param_span(ctx, param(ctx, "output_size")));
      return rank_only(ctx, l.out_rank, data->dtype, data->vdevice);
    }
    for (size_t i = 0; i < N; ++i) x[2 + i] = s[i];
  }
  return make_tensor(ctx, to_layout(ctx, x, *l.out), data->dtype, data->vdevice);
}

// --------------------------------------------------------------------------------- pad

const ir::StructInfo* infer_pad(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  auto widths = attr_prim_list(ctx, "pad_width");
  if (auto mode = attr_string(ctx, "pad_mode"); mode && *mode != "constant" && *mode != "reflect" &&
                                                *mode != "replicate" && *mode != "circular")
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx),
            .attribute = "pad_mode",
            .reason = "expected 'constant', 'reflect', 'replicate' or 'circular'"},
        param_span(ctx, param(ctx, "pad_mode")));
  if (!x) return unknown(ctx);
  if (x->ndim < 0 || !widths) return rank_only(ctx, x->ndim, x->dtype, nullptr);
  if (widths->size() != size_t(2 * x->ndim)) {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "pad_width",
                                              .reason = "expected " + std::to_string(2 * x->ndim) +
                                                        " values (before and after per axis)"},
               param_span(ctx, param(ctx, "pad_width")));
    return rank_only(ctx, x->ndim, x->dtype, nullptr);
  }
  auto dims = v_dims(*x);
  if (!dims) return rank_only(ctx, x->ndim, x->dtype, nullptr);
  auto& an = ctx.analyzer;
  Dims out;
  for (size_t i = 0; i < dims->size(); ++i)
    out.push_back(an.add(an.add((*dims)[i], (*widths)[2 * i]), (*widths)[2 * i + 1]));
  return make_tensor(ctx, std::move(out), x->dtype, nullptr);
}

// ----------------------------------------------------------------------------- losses

const ir::StructInfo* infer_cross_entropy(InferContext& ctx) {
  const ir::TensorSInfo* p = tensor_arg(ctx, "predictions");
  const ir::TensorSInfo* t = tensor_arg(ctx, "labels");
  if (!p || !t) return make_tensor(ctx, {}, DataType::Void(), nullptr);
  DataType dtype = arith_dtype(ctx, p->dtype, t->dtype, "predictions and labels", ctx.call.span);
  const ir::VDevice* vdev = binary_vdevice(ctx, p->vdevice, t->vdevice);
  if (p->ndim >= 0 && t->ndim >= 0 && p->ndim != t->ndim) {
    ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                          .operands = "predictions and labels",
                                          .first = p->ndim,
                                          .second = t->ndim},
               ctx.call.span);
  } else if (auto dp = v_dims(*p), dt = v_dims(*t); dp && dt) {
    for (size_t i = 0; i < dp->size(); ++i)
      if (ctx.analyzer.compare((*dp)[i], (*dt)[i]) == arith::Proof::NotEqual) {
        ctx.report(diag::OperatorDimensionsDiffer{.op = op_text(ctx),
                                                  .first_what = "dimension " + std::to_string(i) +
                                                                " of 'predictions'",
                                                  .first = prim_text((*dp)[i]),
                                                  .second_what = "that of 'labels'",
                                                  .second = prim_text((*dt)[i])},
                   ctx.call.span);
        break;
      }
  }
  return make_tensor(ctx, {}, dtype, vdev);
}

const ir::StructInfo* infer_nll_loss(InferContext& ctx) {
  const ir::TensorSInfo* p = tensor_arg(ctx, "predictions");
  const ir::TensorSInfo* t = tensor_arg(ctx, "targets");
  const ir::TensorSInfo* w = nullptr;
  if (arg_sinfo(ctx, "weights")) w = tensor_arg(ctx, "weights");
  std::string reduction = attr_string(ctx, "reduction").value_or("mean");
  attr_int(ctx, "ignore_index");
  if (reduction != "none" && reduction != "mean" && reduction != "sum")
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "reduction",
                                              .reason = "expected 'none', 'mean' or 'sum'"},
               param_span(ctx, param(ctx, "reduction")));
  if (!p || !t) return unknown(ctx);
  if (!t->dtype.is_void() && !t->dtype.is_integer())
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "targets",
                                               .expected = "an integer tensor",
                                               .sinfo = sinfo_text(t)},
               ctx.arg_span(1));
  DataType dtype =
      w ? arith_dtype(ctx, p->dtype, w->dtype, "predictions and weights", ctx.call.span) : p->dtype;
  if (p->ndim >= 0 && t->ndim >= 0 && t->ndim != std::max(p->ndim - 1, 0))
    ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                               .parameter = "targets",
                                               .ndim = std::to_string(std::max(p->ndim - 1, 0)),
                                               .sinfo = sinfo_text(t)},
               ctx.arg_span(1));
  if (w && w->ndim >= 0 && w->ndim != 1)
    ctx.report(
        diag::OperatorArgumentWrongRank{
            .op = op_text(ctx), .parameter = "weights", .ndim = "1", .sinfo = sinfo_text(w)},
        ctx.arg_span(2));
  if (reduction != "none") return make_tensor(ctx, {}, dtype, p->vdevice);
  auto dp = s_dims(*p);
  if (!dp || p->ndim < 1)
    return rank_only(ctx, p->ndim < 0 ? -1 : std::max(p->ndim - 1, 0), dtype, p->vdevice);
  if (p->ndim == 1) return make_tensor(ctx, {}, dtype, p->vdevice);
  Dims out{(*dp)[0]};
  out.insert(out.end(), dp->begin() + 2, dp->end());
  return make_tensor(ctx, std::move(out), dtype, p->vdevice);
}

const ir::StructInfo* infer_batch_flatten(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  if (!x) return unknown(ctx, 2);
  if (x->ndim < 0) return rank_only(ctx, 2, x->dtype, x->vdevice);
  if (x->ndim < 2) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "data",
                                               .expected = "at least 2-dimensional",
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return rank_only(ctx, 2, x->dtype, x->vdevice);
  }
  if (x->ndim == 2) return x;
  auto dims = s_dims(*x);
  if (!dims) return rank_only(ctx, 2, x->dtype, x->vdevice);
  Dims rest(dims->begin() + 1, dims->end());
  return make_tensor(ctx, {(*dims)[0], product(ctx, rest)}, x->dtype, x->vdevice);
}

// nn.attention / nn.attention_bias (operators.md §3.10): BSNH operands, every one of rank exactly
// 4; provable violations of batch, heads (query heads a multiple of key/value heads), sequence
// and head-size agreement are errors, and a bias is (batch or 1, heads or 1, seq_q or 1, seq_kv).
const ir::StructInfo* infer_attention(InferContext& ctx) {
  const ir::TensorSInfo* q = tensor_arg(ctx, "query");
  const ir::TensorSInfo* k = tensor_arg(ctx, "key");
  const ir::TensorSInfo* v = tensor_arg(ctx, "value");
  const ir::TensorSInfo* bias = tensor_arg(ctx, "bias");
  attr_float(ctx, "scale");
  attr_int(ctx, "window_size");
  if (auto mask = attr_string(ctx, "causal_mask");
      mask && *mask != "TopLeft" && *mask != "BottomRight")
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "causal_mask",
                                              .reason = "expected 'TopLeft' or 'BottomRight'"},
               param_span(ctx, param(ctx, "causal_mask")));
  if (!q || !k || !v) return unknown(ctx, 4);
  std::vector<std::pair<const ir::TensorSInfo*, const char*>> operands = {
      {q, "query"}, {k, "key"}, {v, "value"}};
  if (bias) operands.emplace_back(bias, "bias");
  for (auto [t, name] : operands)
    if (t->ndim != 4) {
      ctx.report(
          diag::OperatorArgumentWrongRank{
              .op = op_text(ctx), .parameter = name, .ndim = "4", .sinfo = sinfo_text(t)},
          param_span(ctx, param(ctx, name)));
      return rank_only(ctx, 4, q->dtype, q->vdevice);
    }
  auto dq = s_dims(*q), dk = s_dims(*k), dv = s_dims(*v);
  if (!dq || !dk || !dv) return rank_only(ctx, 4, q->dtype, q->vdevice);
  Span at = ctx.call.span;
  auto& an = ctx.analyzer;
  check_dims_equal(ctx, (*dk)[0], "the batch of 'key'", (*dq)[0], "that of 'query'", at);
  check_dims_equal(ctx, (*dv)[1], "the sequence length of 'value'", (*dk)[1], "that of 'key'", at);
  check_dims_equal(ctx, (*dk)[3], "the head size of 'key'", (*dq)[3], "that of 'query'", at);
  for (auto [heads, name] : {std::pair{(*dk)[2], "key"}, std::pair{(*dv)[2], "value"}}) {
    auto hq = an.as_int((*dq)[2]), hkv = an.as_int(heads);
    if (hq && hkv && *hkv > 0 && *hq % *hkv != 0)
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = name,
                                         .reason = "the " + std::to_string(*hq) +
                                                   " query heads are not a multiple of its " +
                                                   std::to_string(*hkv) + " heads"},
          at);
  }
  if (bias)
    if (auto db = s_dims(*bias)) {
      const char* what[] = {"the batch", "the heads", "the query sequence length"};
      const PrimExpr* want[] = {(*dq)[0], (*dq)[2], (*dq)[1]};
      for (size_t i = 0; i < 3; ++i)
        if (an.as_int((*db)[i]) != 1)
          check_dims_equal(ctx, (*db)[i], std::string(what[i]) + " of 'bias'", want[i],
                           "that of the query (or 1)", at);
      check_dims_equal(ctx, (*db)[3], "the last dimension of 'bias'", (*dk)[1],
                       "the key sequence length", at);
    }
  return make_tensor(ctx, {(*dq)[0], (*dq)[1], (*dq)[2], (*dv)[3]}, q->dtype, q->vdevice);
}

std::vector<ParamSpec> conv_attrs(bool transpose, size_t n) {
  using K = ArgKind;
  static const char* const data_layouts[] = {"", "\"NCW\"", "\"NCHW\"", "\"NCDHW\""};
  static const char* const kernel_layouts[] = {"", "\"OIW\"", "\"OIHW\"", "\"OIDHW\""};
  static const char* const tkernel_layouts[] = {"", "\"IOW\"", "\"IOHW\"", "\"IODHW\""};
  std::vector<ParamSpec> a = {{"strides", K::IntList, true, "1"},
                              {"padding", K::IntList, true, "0"}};
  if (transpose) a.push_back({"output_padding", K::IntList, true, "0"});
  a.push_back({"dilation", K::IntList, true, "1"});
  a.push_back({"groups", K::Int, true, "1"});
  a.push_back({"data_layout", K::String, true, data_layouts[n]});
  a.push_back(
      {"kernel_layout", K::String, true, transpose ? tkernel_layouts[n] : kernel_layouts[n]});
  a.push_back({"out_layout", K::String, true, "None"});
  a.push_back({"out_dtype", K::DType, true, "None"});
  return a;
}

std::vector<ParamSpec> pool_attrs(size_t n) {
  using K = ArgKind;
  static const char* const layouts[] = {"", "\"NCW\"", "\"NCHW\"", "\"NCDHW\""};
  return {{"pool_size", K::IntList, true, "1"},    {"strides", K::IntList, true, "1"},
          {"padding", K::IntList, true, "0"},      {"dilation", K::IntList, true, "1"},
          {"ceil_mode", K::Bool, true, "False"},   {"count_include_pad", K::Bool, true, "False"},
          {"layout", K::String, true, layouts[n]}, {"out_layout", K::String, true, "None"}};
}

const ir::StructInfo* infer_pixel_shuffle(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> r = attr_int(ctx, "upscale_factor");
  if (!x) return unknown(ctx);
  if (x->ndim >= 0 && x->ndim < 3) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "data",
                                               .expected = "at least 3-dimensional",
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return rank_only(ctx, x->ndim, x->dtype, nullptr);
  }
  auto dims = s_dims(*x);
  if (!dims || !r || *r <= 0) return rank_only(ctx, x->ndim, x->dtype, nullptr);
  auto& an = ctx.analyzer;
  size_t n = dims->size();
  Dims out = *dims;
  const PrimExpr* rr = an.make_int(*r * *r);
  if (auto c = an.as_int(out[n - 3]); c && *c % (*r * *r) != 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "upscale_factor",
                                       .reason = "the channel count " + std::to_string(*c) +
                                                 " is not divisible by " + std::to_string(*r * *r)},
        ctx.call.span);
    return rank_only(ctx, x->ndim, x->dtype, nullptr);
  }
  out[n - 3] = an.floordiv(out[n - 3], rr);
  out[n - 2] = an.mul(out[n - 2], an.make_int(*r));
  out[n - 1] = an.mul(out[n - 1], an.make_int(*r));
  return make_tensor(ctx, std::move(out), x->dtype, nullptr);
}

}  // namespace

void register_nn(std::vector<OpDef>& table) {
  using K = ArgKind;
  auto unary = [&](std::string_view name, std::string_view text, std::vector<ParamSpec> attrs,
                   std::string_view doc) {
    table.push_back(
        make_op(name, text, {{"data", K::Tensor}}, std::move(attrs), infer_activation, doc));
  };
  unary("relax.nn.relu", "R.nn.relu", {}, "max(x, 0)");
  // TVM's parser rewrites R.nn.relu6(x) to R.clip(x, 0, 6) (operators.md §3.2); registered so the
  // sugar is not an unknown operator. Its StructInfo is clip's: S(x).
  unary("relax.nn.relu6", "R.nn.relu6", {}, "min(max(x, 0), 6) (sugar for R.clip(x, 0, 6))");
  unary("relax.nn.gelu", "R.nn.gelu", {}, "Gaussian error linear unit (erf form)");
  unary("relax.nn.gelu_tanh", "R.nn.gelu_tanh", {}, "Gaussian error linear unit (tanh form)");
  unary("relax.nn.silu", "R.nn.silu", {}, "x * sigmoid(x)");
  unary("relax.nn.selu", "R.nn.selu", {}, "scaled exponential linear unit");
  unary("relax.nn.leakyrelu", "R.nn.leakyrelu", {{"alpha", K::Float, true, "0.01"}},
        "x if x > 0 else alpha * x");
  unary("relax.nn.softplus", "R.nn.softplus",
        {{"beta", K::Float, true, "1.0"}, {"threshold", K::Float, true, "20.0"}},
        "log(1 + exp(beta * x)) / beta");
  table.push_back(make_op("relax.nn.prelu", "R.nn.prelu",
                          {{"data", K::Tensor}, {"alpha", K::Tensor}},
                          {{"axis", K::Int, true, "1"}}, infer_prelu,
                          "x if x > 0 else alpha[c] * x along the channel axis"));
  for (auto [name, text, doc] :
       {std::tuple{"relax.nn.softmax", "R.nn.softmax", "softmax along an axis"},
        std::tuple{"relax.nn.log_softmax", "R.nn.log_softmax", "log of softmax along an axis"}})
    table.push_back(make_op(name, text, {{"data", K::Tensor}}, {{"axis", K::Int, true, "-1"}},
                            infer_softmax, doc));
  table.push_back(make_op("relax.nn.layer_norm", "R.nn.layer_norm",
                          {{"data", K::Tensor}, {"gamma", K::Tensor}, {"beta", K::Tensor}},
                          {{"axes", K::IntList},
                           {"epsilon", K::Float, true, "1e-05"},
                           {"center", K::Bool, true, "True"},
                           {"scale", K::Bool, true, "True"}},
                          infer_layer_norm, "layer normalization over the given axes"));
  table.push_back(make_op("relax.nn.rms_norm", "R.nn.rms_norm",
                          {{"data", K::Tensor}, {"weight", K::Tensor}},
                          {{"axes", K::IntList, true, "-1"}, {"epsilon", K::Float, true, "1e-05"}},
                          infer_layer_norm, "root-mean-square normalization over the given axes"));
  table.push_back(make_op("relax.nn.group_norm", "R.nn.group_norm",
                          {{"data", K::Tensor}, {"gamma", K::Tensor}, {"beta", K::Tensor}},
                          {{"num_groups", K::Int},
                           {"channel_axis", K::Int},
                           {"axes", K::IntList},
                           {"epsilon", K::Float, true, "1e-05"},
                           {"center", K::Bool, true, "True"},
                           {"scale", K::Bool, true, "True"}},
                          infer_group_norm, "group normalization"));
  table.push_back(make_op("relax.nn.instance_norm", "R.nn.instance_norm",
                          {{"data", K::Tensor}, {"gamma", K::Tensor}, {"beta", K::Tensor}},
                          {{"channel_axis", K::Int},
                           {"axes", K::IntList},
                           {"epsilon", K::Float, true, "1e-05"},
                           {"center", K::Bool, true, "True"},
                           {"scale", K::Bool, true, "True"}},
                          infer_instance_norm, "instance normalization"));
  table.push_back(make_op("relax.nn.batch_norm", "R.nn.batch_norm",
                          {{"data", K::Tensor},
                           {"gamma", K::Tensor},
                           {"beta", K::Tensor},
                           {"moving_mean", K::Tensor},
                           {"moving_var", K::Tensor}},
                          {{"axis", K::Int},
                           {"epsilon", K::Float, true, "1e-05"},
                           {"center", K::Bool, true, "True"},
                           {"scale", K::Bool, true, "True"},
                           {"momentum", K::Float, true, "0.1"},
                           {"training", K::Bool, true, "True"}},
                          infer_batch_norm,
                          "batch normalization; (output, new moving mean, new moving var)"));
  table.push_back(make_op("relax.nn.dropout", "R.nn.dropout", {{"data", K::Tensor}},
                          {{"rate", K::Float, true, "0.5"}}, infer_dropout,
                          "dropout; (output, mask)"));
  std::vector<ParamSpec> conv_args = {{"data", K::Tensor}, {"weight", K::Tensor}};
  table.push_back(make_op("relax.nn.conv1d", "R.nn.conv1d", conv_args, conv_attrs(false, 1),
                          infer_conv<1, false>, "1-D convolution (cross-correlation)"));
  table.push_back(make_op("relax.nn.conv2d", "R.nn.conv2d", conv_args, conv_attrs(false, 2),
                          infer_conv<2, false>, "2-D convolution (cross-correlation)"));
  table.push_back(make_op("relax.nn.conv3d", "R.nn.conv3d", conv_args, conv_attrs(false, 3),
                          infer_conv<3, false>, "3-D convolution (cross-correlation)"));
  table.push_back(make_op("relax.nn.conv1d_transpose", "R.nn.conv1d_transpose", conv_args,
                          conv_attrs(true, 1), infer_conv<1, true>, "1-D transposed convolution"));
  table.push_back(make_op("relax.nn.conv2d_transpose", "R.nn.conv2d_transpose", conv_args,
                          conv_attrs(true, 2), infer_conv<2, true>, "2-D transposed convolution"));
  table.push_back(make_op("relax.nn.conv3d_transpose", "R.nn.conv3d_transpose", conv_args,
                          conv_attrs(true, 3), infer_conv<3, true>, "3-D transposed convolution"));
  table.push_back(make_op("relax.nn.max_pool1d", "R.nn.max_pool1d", {{"data", K::Tensor}},
                          pool_attrs(1), infer_pool<1>, "1-D max pooling"));
  table.push_back(make_op("relax.nn.max_pool2d", "R.nn.max_pool2d", {{"data", K::Tensor}},
                          pool_attrs(2), infer_pool<2>, "2-D max pooling"));
  table.push_back(make_op("relax.nn.max_pool3d", "R.nn.max_pool3d", {{"data", K::Tensor}},
                          pool_attrs(3), infer_pool<3>, "3-D max pooling"));
  table.push_back(make_op("relax.nn.avg_pool1d", "R.nn.avg_pool1d", {{"data", K::Tensor}},
                          pool_attrs(1), infer_pool<1>, "1-D average pooling"));
  table.push_back(make_op("relax.nn.avg_pool2d", "R.nn.avg_pool2d", {{"data", K::Tensor}},
                          pool_attrs(2), infer_pool<2>, "2-D average pooling"));
  table.push_back(make_op("relax.nn.avg_pool3d", "R.nn.avg_pool3d", {{"data", K::Tensor}},
                          pool_attrs(3), infer_pool<3>, "3-D average pooling"));
  static const char* const layouts[] = {"", "\"NCW\"", "\"NCHW\"", "\"NCDHW\""};
  for (size_t n = 1; n <= 3; ++n) {
    static const char* const names[] = {"", "relax.nn.adaptive_avg_pool1d",
                                        "relax.nn.adaptive_avg_pool2d",
                                        "relax.nn.adaptive_avg_pool3d"};
    static const char* const texts[] = {"", "R.nn.adaptive_avg_pool1d", "R.nn.adaptive_avg_pool2d",
                                        "R.nn.adaptive_avg_pool3d"};
    InferFn fn = n == 1   ? infer_adaptive_pool<1>
                 : n == 2 ? infer_adaptive_pool<2>
                          : infer_adaptive_pool<3>;
    table.push_back(make_op(names[n], texts[n], {{"data", K::Tensor}},
                            {{"output_size", K::IntList, true, "None"},
                             {"layout", K::String, true, layouts[n]},
                             {"out_layout", K::String, true, "None"}},
                            fn, "adaptive average pooling to output_size"));
  }
  table.push_back(make_op("relax.nn.pad", "R.nn.pad", {{"data", K::Tensor}},
                          {{"pad_width", K::IntList},
                           {"pad_mode", K::String, true, "\"constant\""},
                           {"pad_value", K::Float, true, "0.0"}},
                          infer_pad, "pads every axis (flat [before_0, after_0, ...] widths)"));
  table.push_back(make_op("relax.nn.attention", "R.nn.attention",
                          {{"query", K::Tensor},
                           {"key", K::Tensor},
                           {"value", K::Tensor},
                           {"bias", K::Tensor, true, "None"}},
                          {{"scale", K::Float, true, "None"},
                           {"causal_mask", K::String, true, "None"},
                           {"window_size", K::Int, true, "None"}},
                          infer_attention, "multi-head attention in BSNH layout"));
  // operators.md §3.10: with a bias the registered op is relax.nn.attention_bias (4 operands).
  table.push_back(
      make_op("relax.nn.attention_bias", "R.nn.attention_bias",
              {{"query", K::Tensor}, {"key", K::Tensor}, {"value", K::Tensor}, {"bias", K::Tensor}},
              {{"scale", K::Float, true, "None"},
               {"causal_mask", K::String, true, "None"},
               {"window_size", K::Int, true, "None"}},
              infer_attention, "multi-head attention in BSNH layout with a bias"));
  table.push_back(make_op("relax.nn.cross_entropy_with_logits", "R.nn.cross_entropy_with_logits",
                          {{"predictions", K::Tensor}, {"labels", K::Tensor}}, {},
                          infer_cross_entropy, "-sum(predictions * labels) / batch (scalar)"));
  table.push_back(make_op(
      "relax.nn.nll_loss", "R.nn.nll_loss",
      {{"predictions", K::Tensor}, {"targets", K::Tensor}, {"weights", K::Tensor, true, "None"}},
      {{"reduction", K::String, true, "\"mean\""}, {"ignore_index", K::Int, true, "-100"}},
      infer_nll_loss, "negative log-likelihood loss"));
  table.push_back(make_op("relax.nn.batch_flatten", "R.nn.batch_flatten", {{"data", K::Tensor}}, {},
                          infer_batch_flatten, "reshapes to (batch, -1)"));
  table.push_back(make_op("relax.nn.pixel_shuffle", "R.nn.pixel_shuffle", {{"data", K::Tensor}},
                          {{"upscale_factor", K::Int}}, infer_pixel_shuffle,
                          "rearranges (C*r*r, H, W) into (C, H*r, W*r)"));
}

}  // namespace raxc::analysis::ops
