// Legalization of image.resize2d (operators.md §3.13, ONNX Resize as TVM's topi computes it).
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

const ir::Stmt* resize2d_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  Resize r;
  std::string layout = analysis::ops::attr_string(ctx.infer, "layout").value_or("NCHW");
  r.mode = analysis::ops::attr_string(ctx.infer, "coordinate_transformation_mode")
               .value_or("half_pixel");
  r.method = analysis::ops::attr_string(ctx.infer, "method").value_or("linear");
  r.rounding = analysis::ops::attr_string(ctx.infer, "rounding_method").value_or("round");
  r.alpha = analysis::ops::attr_float(ctx.infer, "cubic_alpha").value_or(-0.75);
  r.exclude = analysis::ops::attr_int(ctx.infer, "cubic_exclude").value_or(0) != 0;
  r.f = x->dtype == DataType::Float(64) ? DataType::Float(64) : DataType::Float(32);
  size_t hp = layout.find('H'), wp = layout.find('W');
  if (layout.size() != 4 || hp == std::string::npos || wp == std::string::npos ||
      x->shape.size() != 4)
    return ctx.refuse("layout \"" + layout + "\"");
  if (r.method != "nearest_neighbor" && r.method != "linear" && r.method != "cubic")
    return ctx.refuse("method \"" + r.method + "\"");
  if (!source(b, r, b.i64(0), b.i64(1), b.i64(1)))
    return ctx.refuse("coordinate_transformation_mode \"" + r.mode + "\"");
  if (r.method == "nearest_neighbor" && !nearest(b, r, b.float_imm(r.f, 0)))
    return ctx.refuse("rounding_method \"" + r.rounding + "\"");
  const PrimExpr *H = x->shape[hp], *W = x->shape[wp];
  return elementwise(ctx, "resize", [&](const Exprs& v) {
    const PrimExpr* cy = source(b, r, v[hp], H, o->shape[hp]);
    const PrimExpr* cx = source(b, r, v[wp], W, o->shape[wp]);
    auto at = [&](const PrimExpr* y, const PrimExpr* xx) {
      Exprs idx = v;
      idx[hp] = y;
      idx[wp] = xx;
      return b.cast(r.f, b.load(x, idx));
    };
    if (r.method == "nearest_neighbor")
      return b.cast(o->dtype,
                    at(clamp_index(b, nearest(b, r, cy), H), clamp_index(b, nearest(b, r, cx), W)));
    auto ty = taps(b, r, cy, H), tx = taps(b, r, cx, W);
    const PrimExpr* sum = nullptr;
    const PrimExpr* norm = nullptr;
    for (auto& [iy, wy] : ty)
      for (auto& [ix, wx] : tx) {
        const PrimExpr* w = b.mul(wy, wx);
        const PrimExpr* term = b.mul(w, at(iy, ix));
        sum = sum ? b.add(sum, term) : term;
        norm = norm ? b.add(norm, w) : w;
      }
    if (r.method == "cubic" && r.exclude) sum = b.div(sum, norm);
    return b.cast(o->dtype, sum);
  });
}

}  // namespace

void add_image_rules(std::vector<Rule>& t) {
  t.push_back({"relax.image.resize2d", "resize2d", resize2d_rule});
}

}  // namespace raxc::backend::legalize
