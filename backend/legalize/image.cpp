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
// the roi) is refused.
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

}  // namespace

void add_image_rules(std::vector<Rule>& t) {
  t.push_back({"relax.image.resize2d", "resize2d", resize2d_rule});
  t.push_back({"relax.image.resize3d", "resize3d", resize3d_rule});
  t.push_back({"relax.image.affine_grid", "affine_grid", affine_grid_rule});
}

}  // namespace raxc::backend::legalize
