// Legalization of image.resize2d / resize3d (operators.md §3.13, ONNX Resize as TVM's topi
// computes it; resize3d the same per axis over D, H, W) and image.affine_grid.
// Each output position maps to an input coordinate by the coordinate_transformation_mode
// (scale = in / out):
//   half_pixel          (x + 0.5) * scale - 0.5
//   pytorch_half_pixel  the same, 0 when the output extent is 1
//   align_corners       x * (in - 1) / (out - 1), 0 when the output extent is 1
//   asymmetric          x * scale
//   tf_half_pixel_for_nn  (x + 0.5) * scale
// then `nearest_neighbor` rounds it (rounding_method round = half to even, round_prefer_floor,
// round_prefer_ceil, floor, ceil), `linear` interpolates the two neighbours and `cubic` the
// four (Keys' kernel with cubic_alpha; cubic_exclude drops the taps outside the image and
// renormalises). Taps are clamped to the image, as TVM and PyTorch do. Arithmetic in float32
// (float64 for float64 data); the result is cast to out_dtype. tf_crop_and_resize (it needs
// the roi) is refused. grid_sample follows PyTorch's grid_sampler (below).
#include <cmath>
#include <functional>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

struct Resize {
  std::string mode, method, rounding;
  double alpha = -0.75;
  bool exclude = false;
  DataType f;
};

// The input coordinate of output index x along an axis of extent `in` resized to `out`.
const PrimExpr* source(Builder& b, const Resize& r, const PrimExpr* x, const PrimExpr* in,
                       const PrimExpr* out) {
  DataType f = r.f;
  const PrimExpr* xf = b.cast(f, x);
  const PrimExpr* scale = b.div(b.cast(f, in), b.cast(f, out));
  const PrimExpr* half = b.float_imm(f, 0.5);
  const PrimExpr* one_out = b.compare(PrimKind::EQ, out, b.i64(1));
  if (r.mode == "half_pixel") return b.sub(b.mul(b.add(xf, half), scale), half);
  if (r.mode == "pytorch_half_pixel")
    return b.select(one_out, b.float_imm(f, 0), b.sub(b.mul(b.add(xf, half), scale), half));
  if (r.mode == "align_corners") {
    const PrimExpr* ratio =
        b.div(b.cast(f, b.sub(in, b.i64(1))), b.cast(f, b.max(b.sub(out, b.i64(1)), b.i64(1))));
    return b.select(one_out, b.float_imm(f, 0), b.mul(xf, ratio));
  }
  if (r.mode == "asymmetric") return b.mul(xf, scale);
  if (r.mode == "tf_half_pixel_for_nn") return b.mul(b.add(xf, half), scale);
  return nullptr;
}

const PrimExpr* clamp_index(Builder& b, const PrimExpr* i, const PrimExpr* extent) {
  return b.min(b.max(i, b.i64(0)), b.sub(extent, b.i64(1)));
}

const PrimExpr* nearest(Builder& b, const Resize& r, const PrimExpr* c) {
  DataType f = r.f;
  const PrimExpr* half = b.float_imm(f, 0.5);
  const PrimExpr* v = nullptr;
  if (r.rounding == "round" || r.rounding.empty())
    v = b.call(f, "tir.round", {c});
  else if (r.rounding == "round_prefer_floor")
    v = b.call(f, "tir.ceil", {b.sub(c, half)});
  else if (r.rounding == "round_prefer_ceil")
    v = b.call(f, "tir.floor", {b.add(c, half)});
  else if (r.rounding == "floor")
    v = b.call(f, "tir.floor", {c});
  else if (r.rounding == "ceil")
    v = b.call(f, "tir.ceil", {c});
  return v ? b.cast(DataType::Int(64), v) : nullptr;
}

// Keys' cubic convolution weight at distance t.
const PrimExpr* cubic_weight(Builder& b, const Resize& r, const PrimExpr* t) {
  DataType f = r.f;
  auto k = [&](double v) { return b.float_imm(f, v); };
  const PrimExpr* a = k(r.alpha);
  const PrimExpr* t2 = b.mul(t, t);
  const PrimExpr* t3 = b.mul(t2, t);
  const PrimExpr* near = b.add(b.sub(b.mul(b.add(a, k(2)), t3), b.mul(b.add(a, k(3)), t2)), k(1));
  const PrimExpr* far =
      b.sub(b.add(b.sub(b.mul(a, t3), b.mul(b.mul(k(5), a), t2)), b.mul(b.mul(k(8), a), t)),
            b.mul(k(4), a));
  return b.select(b.compare(PrimKind::LE, t, k(1)), near, far);
}

// The taps (index, weight) along one axis for input coordinate c of an axis of extent n.
std::vector<std::pair<const PrimExpr*, const PrimExpr*>> taps(Builder& b, const Resize& r,
                                                              const PrimExpr* c,
                                                              const PrimExpr* n) {
  DataType f = r.f;
  const PrimExpr* base_f = b.call(f, "tir.floor", {c});
  const PrimExpr* base = b.cast(DataType::Int(64), base_f);
  const PrimExpr* frac = b.sub(c, base_f);
  std::vector<std::pair<const PrimExpr*, const PrimExpr*>> out;
  if (r.method == "linear") {
    out.push_back({clamp_index(b, base, n), b.sub(b.float_imm(f, 1), frac)});
    out.push_back({clamp_index(b, b.add(base, b.i64(1)), n), frac});
    return out;
  }
  for (int k = -1; k <= 2; ++k) {
    const PrimExpr* i = b.add(base, b.i64(k));
    const PrimExpr* w = cubic_weight(b, r, b.call(f, "tir.fabs", {b.sub(frac, b.float_imm(f, k))}));
    if (r.exclude) {
      const PrimExpr* inside =
          b.logical_and(b.compare(PrimKind::GE, i, b.i64(0)), b.compare(PrimKind::LT, i, n));
      w = b.select(inside, w, b.float_imm(f, 0));
    }
    out.push_back({clamp_index(b, i, n), w});
  }
  return out;
}

// resize2d / resize3d: the spatial letters (D,) H, W of the layout are resized; every other
// axis is kept.
const ir::Stmt* resize_rule(RuleContext& ctx, size_t dims) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  Resize r;
  std::string layout =
      analysis::ops::attr_string(ctx.infer, "layout").value_or(dims == 2 ? "NCHW" : "NCDHW");
  r.mode = analysis::ops::attr_string(ctx.infer, "coordinate_transformation_mode")
               .value_or("half_pixel");
  r.method = analysis::ops::attr_string(ctx.infer, "method").value_or("linear");
  r.rounding = analysis::ops::attr_string(ctx.infer, "rounding_method").value_or("round");
  r.alpha = analysis::ops::attr_float(ctx.infer, "cubic_alpha").value_or(-0.75);
  r.exclude = analysis::ops::attr_int(ctx.infer, "cubic_exclude").value_or(0) != 0;
  r.f = x->dtype == DataType::Float(64) ? DataType::Float(64) : DataType::Float(32);
  std::vector<size_t> axes;
  for (char letter : std::string("DHW").substr(3 - dims)) axes.push_back(layout.find(letter));
  bool ok = layout.size() == dims + 2 && x->shape.size() == dims + 2;
  for (size_t a : axes) ok = ok && a != std::string::npos;
  if (!ok) return ctx.refuse("layout \"" + layout + "\"");
  if (r.method != "nearest_neighbor" && r.method != "linear" && r.method != "cubic")
    return ctx.refuse("method \"" + r.method + "\"");
  if (!source(b, r, b.i64(0), b.i64(1), b.i64(1)))
    return ctx.refuse("coordinate_transformation_mode \"" + r.mode + "\"");
  if (r.method == "nearest_neighbor" && !nearest(b, r, b.float_imm(r.f, 0)))
    return ctx.refuse("rounding_method \"" + r.rounding + "\"");
  return elementwise(ctx, "resize", [&](const Exprs& v) {
    Exprs coord;
    for (size_t a : axes) coord.push_back(source(b, r, v[a], x->shape[a], o->shape[a]));
    auto at = [&](const Exprs& pos) {
      Exprs idx = v;
      for (size_t i = 0; i < axes.size(); ++i) idx[axes[i]] = pos[i];
      return b.cast(r.f, b.load(x, idx));
    };
    if (r.method == "nearest_neighbor") {
      Exprs pos;
      for (size_t i = 0; i < axes.size(); ++i)
        pos.push_back(clamp_index(b, nearest(b, r, coord[i]), x->shape[axes[i]]));
      return b.cast(o->dtype, at(pos));
    }
    std::vector<std::vector<std::pair<const PrimExpr*, const PrimExpr*>>> per_axis;
    for (size_t i = 0; i < axes.size(); ++i)
      per_axis.push_back(taps(b, r, coord[i], x->shape[axes[i]]));
    const PrimExpr* sum = nullptr;
    const PrimExpr* norm = nullptr;
    // Every combination of one tap per axis, its weight the product of the axes' weights.
    std::function<void(size_t, Exprs&, const PrimExpr*)> walk = [&](size_t i, Exprs& pos,
                                                                    const PrimExpr* w) {
      if (i == axes.size()) {
        const PrimExpr* term = b.mul(w, at(pos));
        sum = sum ? b.add(sum, term) : term;
        norm = norm ? b.add(norm, w) : w;
        return;
      }
      for (auto& [index, weight] : per_axis[i]) {
        pos.push_back(index);
        walk(i + 1, pos, w ? b.mul(w, weight) : weight);
        pos.pop_back();
      }
    };
    Exprs pos;
    walk(0, pos, nullptr);
    if (r.method == "cubic" && r.exclude) sum = b.div(sum, norm);
    return b.cast(o->dtype, sum);
  });
}
const ir::Stmt* resize2d_rule(RuleContext& c) { return resize_rule(c, 2); }
const ir::Stmt* resize3d_rule(RuleContext& c) { return resize_rule(c, 3); }

// affine_grid(data (batch, 2, 3), size (H, W)) -> (batch, 2, H, W): the affine map of each
// normalised output position (x, y): data[n, k, 0] * x + data[n, k, 1] * y + data[n, k, 2].
// align_corners=True spaces the positions from -1 to 1 as TVM's topi.image.affine_grid (which
// TVM's legalization uses whatever the attribute, its step (2 - 1e-7) / (extent - 1)
// included); align_corners=False takes the pixel centres (2i + 1) / extent - 1, PyTorch's.
const ir::Stmt* affine_grid_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  bool corners = analysis::ops::attr_bool(ctx.infer, "align_corners").value_or(false);
  if (data->shape.size() != 3 || o->shape.size() != 4)
    return ctx.refuse("this form of R.image.affine_grid");
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  if (corners) {
    for (size_t a : {2, 3}) {
      int64_t n = 0;
      if (!literal(o->shape[a], &n) || n < 2)
        return ctx.refuse("align_corners with a target extent that is not a literal above 1");
    }
  }
  auto normalised = [&](const PrimExpr* i, const PrimExpr* extent) {
    const PrimExpr* fi = b.cast(c, i);
    if (corners) {
      int64_t n = 0;
      literal(extent, &n);
      return b.add(b.float_imm(c, -1.0), b.mul(fi, b.float_imm(c, (2.0 - 1e-7) / double(n - 1))));
    }
    const PrimExpr* fe = b.cast(c, extent);
    return b.sub(b.div(b.add(b.mul(fi, b.float_imm(c, 2.0)), b.float_imm(c, 1.0)), fe),
                 b.float_imm(c, 1.0));
  };
  return elementwise(ctx, "affine_grid", [&](const Exprs& v) {
    const PrimExpr* y = normalised(v[2], o->shape[2]);
    const PrimExpr* xx = normalised(v[3], o->shape[3]);
    auto coef = [&](int64_t j) { return b.cast(c, b.load(data, {v[0], v[1], b.i64(j)})); };
    return b.cast(t, b.add(b.add(b.mul(coef(0), xx), b.mul(coef(1), y)), coef(2)));
  });
}

// grid_sample(data (N, C, H, W), grid (N, 2, Ho, Wo)): PyTorch's grid_sampler_2d. A grid value
// g in [-1, 1] maps to the pixel (g + 1) / 2 * (n - 1) with align_corners, else
// ((g + 1) * n - 1) / 2. padding_mode border clamps the coordinate to [0, n - 1], reflection
// reflects it about the image's edges (the corner pixels' centres with align_corners, else
// their outer edges) then clamps; zeros reads 0 outside. `nearest` rounds half to even,
// `bilinear` weighs the 4 neighbours, `bicubic` the 16 (Keys, a = -0.75) with the padding
// applied to each tap, as PyTorch does.
struct Sampler {
  std::string method, padding;
  bool corners = true;
  DataType f;
};

const PrimExpr* unnormalise(Builder& b, const Sampler& s, const PrimExpr* g, const PrimExpr* n) {
  DataType f = s.f;
  const PrimExpr* nf = b.cast(f, n);
  const PrimExpr *one = b.float_imm(f, 1), *half = b.float_imm(f, 0.5);
  if (s.corners) return b.mul(b.mul(b.add(g, one), half), b.sub(nf, one));
  return b.mul(b.sub(b.mul(b.add(g, one), nf), one), half);
}

// Reflects c into [lo2 / 2, hi2 / 2] (PyTorch's reflect_coordinates, c - min made positive).
const PrimExpr* reflect(Builder& b, DataType f, const PrimExpr* c, const PrimExpr* lo2,
                        const PrimExpr* hi2) {
  const PrimExpr* half = b.float_imm(f, 0.5);
  const PrimExpr* lo = b.mul(lo2, half);
  const PrimExpr* span = b.mul(b.sub(hi2, lo2), half);
  const PrimExpr* safe = b.max(span, b.float_imm(f, 1e-30));
  const PrimExpr* d = b.call(f, "tir.fabs", {b.sub(c, lo)});
  const PrimExpr* flips = b.call(f, "tir.floor", {b.div(d, safe)});
  const PrimExpr* extra = b.sub(d, b.mul(flips, safe));
  const PrimExpr* even =
      b.compare(PrimKind::EQ, b.floormod(b.cast(DataType::Int(64), flips), b.i64(2)), b.i64(0));
  const PrimExpr* r = b.select(even, b.add(extra, lo), b.add(b.sub(span, extra), lo));
  return b.select(b.compare(PrimKind::EQ, span, b.float_imm(f, 0)), b.float_imm(f, 0), r);
}

// The padding mode applied to a source coordinate of an axis of extent n.
const PrimExpr* pad_coordinate(Builder& b, const Sampler& s, const PrimExpr* c, const PrimExpr* n) {
  DataType f = s.f;
  const PrimExpr* top = b.sub(b.cast(f, n), b.float_imm(f, 1));
  auto clip = [&](const PrimExpr* v) { return b.min(b.max(v, b.float_imm(f, 0)), top); };
  if (s.padding == "border") return clip(c);
  if (s.padding != "reflection") return c;
  const PrimExpr* nf = b.cast(f, n);
  if (s.corners) return clip(reflect(b, f, c, b.float_imm(f, 0), b.mul(top, b.float_imm(f, 2))));
  return clip(
      reflect(b, f, c, b.float_imm(f, -1), b.sub(b.mul(nf, b.float_imm(f, 2)), b.float_imm(f, 1))));
}

const ir::Stmt* grid_sample_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* grid = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  Sampler s;
  s.method = analysis::ops::attr_string(ctx.infer, "method").value_or("bilinear");
  s.padding = analysis::ops::attr_string(ctx.infer, "padding_mode").value_or("zeros");
  s.corners = analysis::ops::attr_bool(ctx.infer, "align_corners").value_or(true);
  std::string layout = analysis::ops::attr_string(ctx.infer, "layout").value_or("NCHW");
  s.f = x->dtype == DataType::Float(64) ? DataType::Float(64) : DataType::Float(32);
  if (layout != "NCHW") return ctx.refuse("layout \"" + layout + "\"");
  if (s.method != "nearest" && s.method != "bilinear" && s.method != "bicubic")
    return ctx.refuse("method \"" + s.method + "\"");
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection")
    return ctx.refuse("padding_mode \"" + s.padding + "\"");
  if (x->shape.size() != 4 || grid->shape.size() != 4)
    return ctx.refuse("data or grid of a rank other than 4");
  const PrimExpr* H = x->shape[2];
  const PrimExpr* W = x->shape[3];
  return elementwise(ctx, "grid_sample", [&](const Exprs& v) {
    DataType f = s.f;
    auto g = [&](int64_t k) { return b.cast(f, b.load(grid, {v[0], b.i64(k), v[2], v[3]})); };
    const PrimExpr* ix = unnormalise(b, s, g(0), W);
    const PrimExpr* iy = unnormalise(b, s, g(1), H);
    // The pixel (yi, xi), 0 outside the image (loaded at a clamped position, then masked).
    auto pixel = [&](const PrimExpr* yi, const PrimExpr* xi) {
      const PrimExpr* inside = b.logical_and(
          b.logical_and(b.compare(PrimKind::GE, yi, b.i64(0)), b.compare(PrimKind::LT, yi, H)),
          b.logical_and(b.compare(PrimKind::GE, xi, b.i64(0)), b.compare(PrimKind::LT, xi, W)));
      const PrimExpr* value =
          b.cast(f, b.load(x, {v[0], v[1], clamp_index(b, yi, H), clamp_index(b, xi, W)}));
      return b.select(inside, value, b.float_imm(f, 0));
    };
    auto floor_i = [&](const PrimExpr* c) {
      return b.cast(DataType::Int(64), b.call(f, "tir.floor", {c}));
    };
    if (s.method == "bicubic") {
      // Taps at floor - 1 .. floor + 2 on each axis, each tap's coordinate padded on its own.
      Resize keys;
      keys.alpha = -0.75;
      keys.f = f;
      const PrimExpr* x0 = b.call(f, "tir.floor", {ix});
      const PrimExpr* y0 = b.call(f, "tir.floor", {iy});
      const PrimExpr* tx = b.sub(ix, x0);
      const PrimExpr* ty = b.sub(iy, y0);
      auto weight = [&](const PrimExpr* t, int k) {
        return cubic_weight(b, keys, b.call(f, "tir.fabs", {b.sub(t, b.float_imm(f, k))}));
      };
      auto tap = [&](const PrimExpr* base, int k, const PrimExpr* n) {
        return floor_i(pad_coordinate(b, s, b.add(base, b.float_imm(f, k)), n));
      };
      const PrimExpr* sum = nullptr;
      for (int j = -1; j <= 2; ++j)
        for (int i = -1; i <= 2; ++i) {
          const PrimExpr* term =
              b.mul(b.mul(weight(ty, j), weight(tx, i)), pixel(tap(y0, j, H), tap(x0, i, W)));
          sum = sum ? b.add(sum, term) : term;
        }
      return b.cast(o->dtype, sum);
    }
    ix = pad_coordinate(b, s, ix, W);
    iy = pad_coordinate(b, s, iy, H);
    if (s.method == "nearest") {
      auto round = [&](const PrimExpr* c) {
        return b.cast(DataType::Int(64), b.call(f, "tir.round", {c}));
      };
      return b.cast(o->dtype, pixel(round(iy), round(ix)));
    }
    const PrimExpr* x0 = b.call(f, "tir.floor", {ix});
    const PrimExpr* y0 = b.call(f, "tir.floor", {iy});
    const PrimExpr* tx = b.sub(ix, x0);
    const PrimExpr* ty = b.sub(iy, y0);
    const PrimExpr* one = b.float_imm(f, 1);
    const PrimExpr* xi = b.cast(DataType::Int(64), x0);
    const PrimExpr* yi = b.cast(DataType::Int(64), y0);
    const PrimExpr* xi1 = b.add(xi, b.i64(1));
    const PrimExpr* yi1 = b.add(yi, b.i64(1));
    const PrimExpr* sum = b.add(b.add(b.mul(b.mul(b.sub(one, ty), b.sub(one, tx)), pixel(yi, xi)),
                                      b.mul(b.mul(b.sub(one, ty), tx), pixel(yi, xi1))),
                                b.add(b.mul(b.mul(ty, b.sub(one, tx)), pixel(yi1, xi)),
                                      b.mul(b.mul(ty, tx), pixel(yi1, xi1))));
    return b.cast(o->dtype, sum);
  });
}

}  // namespace

void add_image_rules(std::vector<Rule>& t) {
  t.push_back({"relax.image.resize2d", "resize2d", resize2d_rule});
  t.push_back({"relax.image.resize3d", "resize3d", resize3d_rule});
  t.push_back({"relax.image.affine_grid", "affine_grid", affine_grid_rule});
  t.push_back({"relax.image.grid_sample", "grid_sample", grid_sample_rule});
}

}  // namespace raxc::backend::legalize
