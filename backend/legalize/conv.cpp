// Legalization of convolution, transposed convolution and pooling (operators.md §3.10). A
// layout names where the batch (N), channel (C) and spatial (D, H, W) axes of the data are,
// and the output (O), input (I) and spatial axes of a kernel: any order of those letters runs
// (NCHW, NHWC, OIHW, HWIO, OHWI, ...), with sub-indexed axes too (NCHW4c, OIHW4o; TVM's
// layouts, read by analysis/ops/layout.h), and out_layout may differ from the data layout. The
// loop nests run over the output in its own layout and address the input and kernel through
// their layouts by canonical index (a split axis i as (i // factor, i % factor)), so NHWC or
// NCHW4c needs no transpose. Attribute lists of one value apply to every spatial axis; padding of n
// values pads both sides alike, of 2n values gives the befores then the afters.
#include "analysis/ops/layout.h"
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

using analysis::ops::Layout;

// A buffer in a layout, read by canonical axis (N, C, spatial... or O, I, spatial...): a split
// axis is addressed as (i // factor, i % factor) and spans outer extent * factor.
Exprs place(Builder& b, const Layout& l, const Exprs& canonical) {
  Exprs idx(size_t(l.rank));
  for (size_t i = 0; i < canonical.size(); ++i) {
    if (!l.split(i)) {
      idx[size_t(l.primal[i])] = canonical[i];
      continue;
    }
    idx[size_t(l.primal[i])] = b.floordiv(canonical[i], b.i64(l.factor[i]));
    idx[size_t(l.sub[i])] = b.floormod(canonical[i], b.i64(l.factor[i]));
  }
  return idx;
}

const PrimExpr* extent(Builder& b, const ir::Buffer* buf, const Layout& l, size_t axis) {
  const PrimExpr* e = buf->shape[size_t(l.primal[axis])];
  return l.split(axis) ? b.mul(e, b.i64(l.factor[axis])) : e;
}

// The canonical index along `axis` of the loop variables `v` over a buffer in layout `l`.
const PrimExpr* index_of(Builder& b, const Exprs& v, const Layout& l, size_t axis) {
  const PrimExpr* e = v[size_t(l.primal[axis])];
  return l.split(axis) ? b.add(b.mul(e, b.i64(l.factor[axis])), v[size_t(l.sub[axis])]) : e;
}

struct Window {
  size_t n = 0;
  Layout data, out;  // against NC + spatial
  std::vector<int64_t> strides, dilation, pad_before, pad_after;
};

std::optional<std::vector<int64_t>> per_axis(RuleContext& ctx, std::string_view name, size_t n,
                                             int64_t fallback) {
  std::vector<int64_t> v =
      analysis::ops::attr_int_list(ctx.infer, name).value_or(std::vector<int64_t>{fallback});
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n) return std::nullopt;
  return v;
}

// The geometry of a conv / pool call with n spatial axes, or the reason it cannot run.
std::optional<Window> window(RuleContext& ctx, size_t n, const char* layout_attr,
                             const std::string& canonical, std::string* why) {
  std::string layout = analysis::ops::attr_string(ctx.infer, layout_attr).value_or(canonical);
  std::string out_layout = analysis::ops::attr_string(ctx.infer, "out_layout").value_or(layout);
  std::optional<Layout> in = analysis::ops::parse_layout(layout, canonical);
  std::optional<Layout> out = analysis::ops::parse_layout(out_layout, canonical);
  if (!in || !out) {
    *why = "layout \"" + layout + "\" / out_layout \"" + out_layout + "\"";
    return std::nullopt;
  }
  Window w;
  w.n = n;
  w.data = *in;
  w.out = *out;
  auto strides = per_axis(ctx, "strides", n, 1);
  auto dilation = per_axis(ctx, "dilation", n, 1);
  std::vector<int64_t> pad =
      analysis::ops::attr_int_list(ctx.infer, "padding").value_or(std::vector<int64_t>{0});
  if (pad.size() == 1) pad.assign(2 * n, pad[0]);
  if (pad.size() == n) pad.insert(pad.end(), pad.begin(), pad.end());
  if (!strides || !dilation || pad.size() != 2 * n) {
    *why = "strides, dilation or padding of another length";
    return std::nullopt;
  }
  w.strides = *strides;
  w.dilation = *dilation;
  w.pad_before.assign(pad.begin(), pad.begin() + n);
  w.pad_after.assign(pad.begin() + n, pad.end());
  return w;
}

const char* const kData[] = {"", "NCW", "NCHW", "NCDHW"};

// The number of spatial axes of conv2d, max_pool3d, ...: the digit before the 'd' of the
// operator's name (the data's rank does not say it once a layout splits an axis).
size_t spatial_rank(const RuleContext& ctx) {
  const std::string& name = ir::cast<ir::Op>(ctx.call.op)->name;
  for (char c : {'1', '2', '3'})
    if (name.find(std::string(1, c) + "d") != std::string::npos) return size_t(c - '0');
  return 0;
}

// The geometry shared by conv and conv_transpose: the window, the kernel's axes, groups.
struct ConvSetup {
  Window w;
  Layout kernel;  // against OI + spatial (IO + spatial for a transposed convolution)
  int64_t groups = 1;
};

std::optional<ConvSetup> conv_setup(RuleContext& ctx, const char* kernel_canonical_io) {
  size_t n = spatial_rank(ctx);
  if (n == 0) {
    ctx.why = "operands of this rank";
    return std::nullopt;
  }
  std::string canonical = std::string(kernel_canonical_io) + std::string(kData[n] + 2);
  std::string kl = analysis::ops::attr_string(ctx.infer, "kernel_layout").value_or(canonical);
  std::optional<Layout> kernel = analysis::ops::parse_layout(kl, canonical);
  if (!kernel) {
    ctx.why = "kernel_layout \"" + kl + "\"";
    return std::nullopt;
  }
  std::optional<Window> w = window(ctx, n, "data_layout", kData[n], &ctx.why);
  if (!w) return std::nullopt;
  return ConvSetup{*w, *kernel, analysis::ops::attr_int(ctx.infer, "groups").value_or(1)};
}

// conv1d / conv2d / conv3d: cross-correlation with strides, padding (zeros), dilation and
// groups (kernel OI...: O output channels, I input channels per group).
const ir::Stmt* conv_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* k = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  std::optional<ConvSetup> setup = conv_setup(ctx, "OI");
  if (!setup) return nullptr;
  const Window& w = setup->w;
  const Layout &D = w.data, &O = w.out, &K = setup->kernel;
  size_t n = w.n, ro = o->shape.size();
  // float32 2-D convolutions in NCHW / OIHW: the runtime's direct convolution kernel.
  DataType f32 = DataType::Float(32);
  if (n == 2 && x->dtype == f32 && k->dtype == f32 && o->dtype == f32 && D.is_canonical() &&
      O.is_canonical() && K.is_canonical()) {
    ctx.packed_scalars = {w.strides[0],    w.strides[1],   w.pad_before[0],
                          w.pad_before[1], w.pad_after[0], w.pad_after[1],
                          w.dilation[0],   w.dilation[1],  setup->groups};
    return ctx.use_packed("raxc.conv2d_nchw_f32");
  }
  const PrimExpr* per_group = extent(b, k, K, 1);
  // Output channels per group: o / out_per_group is the group of output channel o.
  const PrimExpr* out_per_group = b.floordiv(extent(b, o, O, 1), b.i64(setup->groups));
  Exprs reduce{per_group};
  for (size_t i = 0; i < n; ++i) reduce.push_back(extent(b, k, K, 2 + i));
  return accumulate(ctx, "conv", reduce, [&](const Exprs& v, DataType acc_t) {
    const PrimExpr* oc = index_of(b, v, O, 1);
    const PrimExpr* c = v[ro];
    const PrimExpr* channel = b.add(b.mul(b.floordiv(oc, out_per_group), per_group), c);
    Exprs data_index{index_of(b, v, O, 0), channel}, kernel_index{oc, c};
    const PrimExpr* inside = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* p =
          b.add(b.sub(b.mul(index_of(b, v, O, 2 + i), b.i64(w.strides[i])), b.i64(w.pad_before[i])),
                b.mul(v[ro + 1 + i], b.i64(w.dilation[i])));
      data_index.push_back(p);
      kernel_index.push_back(v[ro + 1 + i]);
      const PrimExpr* ok = b.logical_and(b.compare(PrimKind::GE, p, b.i64(0)),
                                         b.compare(PrimKind::LT, p, extent(b, x, D, 2 + i)));
      inside = inside ? b.logical_and(inside, ok) : ok;
    }
    DataType t = o->dtype;
    const PrimExpr* xv = b.if_then_else(
        inside, b.cast(acc_t, b.cast(t, b.load(x, place(b, D, data_index)))), b.constant(acc_t, 0));
    const PrimExpr* kv = b.cast(acc_t, b.cast(t, b.load(k, place(b, K, kernel_index))));
    return b.mul(xv, kv);
  });
}

// conv1d/2d/3d_transpose (kernel IO...: I input channels, O output channels per group): the
// gradient of a convolution, read as a gather: output position y takes input position
// (y + pad - k * dilation) / stride wherever that divides exactly and lies inside the input.
// output_padding only widens the (known) output shape.
const ir::Stmt* conv_transpose_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* k = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  std::optional<ConvSetup> setup = conv_setup(ctx, "IO");
  if (!setup) return nullptr;
  const Window& w = setup->w;
  const Layout &D = w.data, &O = w.out, &K = setup->kernel;
  size_t n = w.n, ro = o->shape.size();
  const PrimExpr* in_per_group = b.floordiv(extent(b, x, D, 1), b.i64(setup->groups));
  const PrimExpr* out_per_group = extent(b, k, K, 1);
  Exprs reduce{in_per_group};
  for (size_t i = 0; i < n; ++i) reduce.push_back(extent(b, k, K, 2 + i));
  return accumulate(ctx, "conv_transpose", reduce, [&](const Exprs& v, DataType acc_t) {
    const PrimExpr* oc = index_of(b, v, O, 1);
    const PrimExpr* c = b.add(b.mul(b.floordiv(oc, out_per_group), in_per_group), v[ro]);
    Exprs data_index{index_of(b, v, O, 0), c}, kernel_index{c, b.floormod(oc, out_per_group)};
    const PrimExpr* valid = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* tpos = b.sub(b.add(index_of(b, v, O, 2 + i), b.i64(w.pad_before[i])),
                                   b.mul(v[ro + 1 + i], b.i64(w.dilation[i])));
      const PrimExpr* stride = b.i64(w.strides[i]);
      const PrimExpr* p = b.floordiv(tpos, stride);
      data_index.push_back(p);
      kernel_index.push_back(v[ro + 1 + i]);
      const PrimExpr* ok =
          b.logical_and(b.logical_and(b.compare(PrimKind::GE, tpos, b.i64(0)),
                                      b.compare(PrimKind::EQ, b.floormod(tpos, stride), b.i64(0))),
                        b.compare(PrimKind::LT, p, extent(b, x, D, 2 + i)));
      valid = valid ? b.logical_and(valid, ok) : ok;
    }
    DataType t = o->dtype;
    const PrimExpr* xv = b.if_then_else(
        valid, b.cast(acc_t, b.cast(t, b.load(x, place(b, D, data_index)))), b.constant(acc_t, 0));
    const PrimExpr* kv = b.cast(acc_t, b.cast(t, b.load(k, place(b, K, kernel_index))));
    return b.mul(xv, kv);
  });
}

// max_pool / avg_pool. Padded positions never win a max; an average divides by the positions
// inside the input, or (count_include_pad) inside the padded input, so a ceil_mode window past
// the padding does not count its overhang.
const ir::Stmt* pool_rule(RuleContext& ctx, bool is_max) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  size_t n = spatial_rank(ctx);
  if (n == 0) return ctx.refuse("operands of this rank");
  std::optional<Window> w = window(ctx, n, "layout", kData[n], &ctx.why);
  if (!w) return nullptr;
  auto size = per_axis(ctx, "pool_size", n, 1);
  if (!size) return ctx.refuse("a pool_size of another length");
  const Layout &D = w->data, &O = w->out;
  bool include_pad = analysis::ops::attr_bool(ctx.infer, "count_include_pad").value_or(false);
  DataType t = x->dtype;
  DataType acc_t = compute_dtype(t);
  Exprs extents = o->shape;
  std::string kinds(o->shape.size(), 'S');
  for (size_t i = 0; i < n; ++i) {
    extents.push_back(b.i64((*size)[i]));
    kinds += 'R';
  }
  size_t ro = o->shape.size();
  // The input position of a window element, and whether it is inside the (padded) input.
  auto position = [&](const Exprs& v, size_t i) {
    return b.add(
        b.sub(b.mul(index_of(b, v, O, 2 + i), b.i64(w->strides[i])), b.i64(w->pad_before[i])),
        b.mul(v[ro + i], b.i64(w->dilation[i])));
  };
  auto within = [&](const Exprs& v, bool padded) {
    const PrimExpr* all = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* pos = position(v, i);
      const PrimExpr* size = extent(b, x, D, 2 + i);
      const PrimExpr* lo = padded ? b.i64(-w->pad_before[i]) : b.i64(0);
      const PrimExpr* hi = padded ? b.add(size, b.i64(w->pad_after[i])) : size;
      const PrimExpr* ok =
          b.logical_and(b.compare(PrimKind::GE, pos, lo), b.compare(PrimKind::LT, pos, hi));
      all = all ? b.logical_and(all, ok) : ok;
    }
    return all;
  };
  auto input_index = [&](const Exprs& v) {
    Exprs index{index_of(b, v, O, 0), index_of(b, v, O, 1)};
    for (size_t i = 0; i < n; ++i) index.push_back(position(v, i));
    return place(b, D, index);
  };
  auto reduction = [&](const std::string& name, const ir::Buffer* acc, const PrimExpr* init,
                       const std::function<const PrimExpr*(const PrimExpr*, const Exprs&)>& step) {
    return b.stage(
        name, extents, kinds,
        [&](const Exprs& v) {
          Exprs out(v.begin(), v.begin() + ro);
          return b.store(acc, step(b.load(acc, out), v), out);
        },
        [&](const Exprs& v) { return b.store(acc, init, Exprs(v.begin(), v.begin() + ro)); });
  };
  if (is_max) {
    return reduction("pool_max", o, b.min_value(t), [&](const PrimExpr* a, const Exprs& v) {
      return b.if_then_else(within(v, false), b.max(a, b.load(x, input_index(v))), a);
    });
  }
  const ir::Buffer* sum = ctx.alloc("pool_sum", acc_t, o->shape);
  const ir::Buffer* count = ctx.alloc("pool_count", acc_t, o->shape);
  std::vector<const ir::Stmt*> stages;
  stages.push_back(reduction("pool_sum", sum, b.constant(acc_t, 0), [&](auto a, const Exprs& v) {
    return b.add(a, b.if_then_else(within(v, false), b.cast(acc_t, b.load(x, input_index(v))),
                                   b.constant(acc_t, 0)));
  }));
  stages.push_back(reduction(
      "pool_count", count, b.constant(acc_t, 0),
      [&](auto a, const Exprs& v) { return b.add(a, b.cast(acc_t, within(v, include_pad))); }));
  stages.push_back(elementwise(ctx, "pool_avg", [&](const Exprs& v) {
    const PrimExpr* c = b.load(count, v);
    return b.cast(t, b.div(b.load(sum, v), b.max(c, b.constant(acc_t, 1))));
  }));
  return b.seq(stages);
}
const ir::Stmt* max_pool_rule(RuleContext& c) { return pool_rule(c, true); }
const ir::Stmt* avg_pool_rule(RuleContext& c) { return pool_rule(c, false); }

}  // namespace

void add_conv_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.nn.conv1d", "conv1d", conv_rule},
                        {"relax.nn.conv2d", "conv2d", conv_rule},
                        {"relax.nn.conv3d", "conv3d", conv_rule},
                        {"relax.nn.conv1d_transpose", "conv1d_transpose", conv_transpose_rule},
                        {"relax.nn.conv2d_transpose", "conv2d_transpose", conv_transpose_rule},
                        {"relax.nn.conv3d_transpose", "conv3d_transpose", conv_transpose_rule},
                        {"relax.nn.max_pool1d", "max_pool1d", max_pool_rule},
                        {"relax.nn.max_pool2d", "max_pool2d", max_pool_rule},
                        {"relax.nn.max_pool3d", "max_pool3d", max_pool_rule},
                        {"relax.nn.avg_pool1d", "avg_pool1d", avg_pool_rule},
                        {"relax.nn.avg_pool2d", "avg_pool2d", avg_pool_rule},
                        {"relax.nn.avg_pool3d", "avg_pool3d", avg_pool_rule},
                    });
}

}  // namespace raxc::backend::legalize
