// Legalization of convolution, transposed convolution and pooling (operators.md §3.10). A
// layout names where the batch (N), channel (C) and spatial (D, H, W) axes of the data are,
// and the output (O), input (I) and spatial axes of a kernel: any order of those letters runs
// (NCHW, NHWC, OIHW, HWIO, OHWI, ...; out_layout must equal the data layout, as TVM's topi
// asks); layouts with split sub-axes (NCHW16c) are refused. The loop nests run over the output
// in its own layout and address the input and kernel through the axis positions, so NHWC needs
// no transpose. Attribute lists of one value apply to every spatial axis; padding of n values
// pads both sides alike, of 2n values gives the befores then the afters.
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// The positions of a layout's axes: the outer (N or O) and inner (C or I) letters and the
// spatial ones in D, H, W order.
struct Axes {
  int outer = 0, inner = 1;
  std::vector<int> spatial;
};

std::optional<Axes> layout_axes(const std::string& layout, const std::string& canonical) {
  if (layout.size() != canonical.size()) return std::nullopt;
  Axes a;
  for (size_t i = 0; i < canonical.size(); ++i) {
    size_t at = layout.find(canonical[i]);
    if (at == std::string::npos) return std::nullopt;
    if (i == 0)
      a.outer = int(at);
    else if (i == 1)
      a.inner = int(at);
    else
      a.spatial.push_back(int(at));
  }
  return a;
}

struct Window {
  size_t n = 0;
  Axes data;
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
  std::optional<Axes> axes = layout_axes(layout, canonical);
  if (!axes || out_layout != layout) {
    *why = "layout \"" + layout + "\" / out_layout \"" + out_layout + "\"";
    return std::nullopt;
  }
  Window w;
  w.n = n;
  w.data = *axes;
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

// A buffer index from the positions of its logical axes.
Exprs place(size_t rank, const Axes& a, const PrimExpr* outer, const PrimExpr* inner,
            const Exprs& spatial) {
  Exprs idx(rank);
  idx[a.outer] = outer;
  idx[a.inner] = inner;
  for (size_t i = 0; i < spatial.size(); ++i) idx[a.spatial[i]] = spatial[i];
  return idx;
}

// The geometry shared by conv and conv_transpose: the window, the kernel's axes, groups.
struct ConvSetup {
  Window w;
  Axes kernel;
  int64_t groups = 1;
};

std::optional<ConvSetup> conv_setup(RuleContext& ctx, const char* kernel_canonical_io) {
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* k = ctx.in(1);
  size_t n = x->shape.size() - 2;
  if (x->shape.size() < 3 || n > 3 || k->shape.size() != n + 2) {
    ctx.why = "operands of this rank";
    return std::nullopt;
  }
  std::string canonical = std::string(kernel_canonical_io) + std::string(kData[n] + 2);
  std::string kl = analysis::ops::attr_string(ctx.infer, "kernel_layout").value_or(canonical);
  std::optional<Axes> kernel = layout_axes(kl, canonical);
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
  const Axes &D = w.data, &K = setup->kernel;
  size_t n = w.n, ro = o->shape.size();
  const PrimExpr* per_group = k->shape[K.inner];
  // Output channels per group: o / out_per_group is the group of output channel o.
  const PrimExpr* out_per_group = b.floordiv(o->shape[D.inner], b.i64(setup->groups));
  Exprs reduce{per_group};
  for (size_t i = 0; i < n; ++i) reduce.push_back(k->shape[K.spatial[i]]);
  return accumulate(ctx, "conv", reduce, [&](const Exprs& v, DataType acc_t) {
    const PrimExpr* oc = v[D.inner];
    const PrimExpr* c = v[ro];
    const PrimExpr* channel = b.add(b.mul(b.floordiv(oc, out_per_group), per_group), c);
    Exprs pos, taps;
    const PrimExpr* inside = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* p =
          b.add(b.sub(b.mul(v[D.spatial[i]], b.i64(w.strides[i])), b.i64(w.pad_before[i])),
                b.mul(v[ro + 1 + i], b.i64(w.dilation[i])));
      pos.push_back(p);
      taps.push_back(v[ro + 1 + i]);
      const PrimExpr* ok = b.logical_and(b.compare(PrimKind::GE, p, b.i64(0)),
                                         b.compare(PrimKind::LT, p, x->shape[D.spatial[i]]));
      inside = inside ? b.logical_and(inside, ok) : ok;
    }
    DataType t = o->dtype;
    const PrimExpr* xv = b.if_then_else(
        inside, b.cast(acc_t, b.cast(t, b.load(x, place(ro, D, v[D.outer], channel, pos)))),
        b.constant(acc_t, 0));
    const PrimExpr* kv =
        b.cast(acc_t, b.cast(t, b.load(k, place(k->shape.size(), K, oc, c, taps))));
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
  const Axes &D = w.data, &K = setup->kernel;
  size_t n = w.n, ro = o->shape.size();
  const PrimExpr* in_per_group = b.floordiv(x->shape[D.inner], b.i64(setup->groups));
  const PrimExpr* out_per_group = k->shape[K.inner];
  Exprs reduce{in_per_group};
  for (size_t i = 0; i < n; ++i) reduce.push_back(k->shape[K.spatial[i]]);
  return accumulate(ctx, "conv_transpose", reduce, [&](const Exprs& v, DataType acc_t) {
    const PrimExpr* oc = v[D.inner];
    const PrimExpr* c = b.add(b.mul(b.floordiv(oc, out_per_group), in_per_group), v[ro]);
    Exprs pos, taps;
    const PrimExpr* valid = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* tpos = b.sub(b.add(v[D.spatial[i]], b.i64(w.pad_before[i])),
                                   b.mul(v[ro + 1 + i], b.i64(w.dilation[i])));
      const PrimExpr* stride = b.i64(w.strides[i]);
      const PrimExpr* p = b.floordiv(tpos, stride);
      pos.push_back(p);
      taps.push_back(v[ro + 1 + i]);
      const PrimExpr* ok =
          b.logical_and(b.logical_and(b.compare(PrimKind::GE, tpos, b.i64(0)),
                                      b.compare(PrimKind::EQ, b.floormod(tpos, stride), b.i64(0))),
                        b.compare(PrimKind::LT, p, x->shape[D.spatial[i]]));
      valid = valid ? b.logical_and(valid, ok) : ok;
    }
    DataType t = o->dtype;
    const PrimExpr* xv =
        b.if_then_else(valid, b.cast(acc_t, b.cast(t, b.load(x, place(ro, D, v[D.outer], c, pos)))),
                       b.constant(acc_t, 0));
    const PrimExpr* kv = b.cast(
        acc_t,
        b.cast(t, b.load(k, place(k->shape.size(), K, c, b.floormod(oc, out_per_group), taps))));
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
  size_t n = x->shape.size() - 2;
  if (x->shape.size() < 3 || n > 3) return ctx.refuse("operands of this rank");
  std::optional<Window> w = window(ctx, n, "layout", kData[n], &ctx.why);
  if (!w) return nullptr;
  auto size = per_axis(ctx, "pool_size", n, 1);
  if (!size) return ctx.refuse("a pool_size of another length");
  const Axes& D = w->data;
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
    return b.add(b.sub(b.mul(v[D.spatial[i]], b.i64(w->strides[i])), b.i64(w->pad_before[i])),
                 b.mul(v[ro + i], b.i64(w->dilation[i])));
  };
  auto within = [&](const Exprs& v, bool padded) {
    const PrimExpr* all = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const PrimExpr* pos = position(v, i);
      const PrimExpr* extent = x->shape[D.spatial[i]];
      const PrimExpr* lo = padded ? b.i64(-w->pad_before[i]) : b.i64(0);
      const PrimExpr* hi = padded ? b.add(extent, b.i64(w->pad_after[i])) : extent;
      const PrimExpr* ok =
          b.logical_and(b.compare(PrimKind::GE, pos, lo), b.compare(PrimKind::LT, pos, hi));
      all = all ? b.logical_and(all, ok) : ok;
    }
    return all;
  };
  auto input_index = [&](const Exprs& v) {
    Exprs pos;
    for (size_t i = 0; i < n; ++i) pos.push_back(position(v, i));
    return place(ro, D, v[D.outer], v[D.inner], pos);
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
