// Legalization of the region-of-interest pooling operators of R.vision (operators.md §3.13),
// as TVM's topi.vision computes them. rois are (num_roi, 5): batch index, x1, y1, x2, y2 in
// input coordinates times spatial_scale.
//   roi_align: each output bin averages (mode "avg") or takes the maximum ("max") of a grid of
//     bilinear samples, sample_ratio per axis or ceil(roi extent / pooled extent); the roi
//     extents are at least 1 unless `aligned` (TVM's definition has no half-pixel shift); a
//     sample beyond one pixel outside the image reads 0, others clamp to the image.
//   roi_pool: the roi corners rounded half away from zero, extents at least 1; output bin
//     (ph, pw) takes the maximum over rows [floor(ph * bin_h), ceil((ph + 1) * bin_h)) and the
//     columns likewise, offset by the roi's start and clamped to the image; an empty bin is 0.
// Both walk the variable-size bins with serial loops. get_valid_counts compacts the boxes
// above a score threshold (TVM's definition, below).
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

struct RoiLayout {
  size_t c, h, w;  // positions of C, H, W in the data and the output
};

std::optional<RoiLayout> roi_layout(RuleContext& ctx, bool nhwc_ok) {
  std::string layout = analysis::ops::attr_string(ctx.infer, "layout").value_or("NCHW");
  if (layout == "NCHW") return RoiLayout{1, 2, 3};
  if (layout == "NHWC" && nhwc_ok) return RoiLayout{3, 1, 2};
  ctx.refuse("layout \"" + layout + "\"");
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> pooled(RuleContext& ctx) {
  auto p = analysis::ops::attr_int_list(ctx.infer, "pooled_size");
  if (!p || p->empty() || p->size() > 2) return std::nullopt;
  return std::pair{(*p)[0], p->back()};
}

const ir::Stmt* roi_align_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  const ir::Buffer* rois = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  auto L = roi_layout(ctx, true);
  auto size = pooled(ctx);
  if (!L) return nullptr;
  if (!size || data->shape.size() != 4 || rois->shape.size() != 2)
    return ctx.refuse("this form of R.vision.roi_align");
  std::string mode = analysis::ops::attr_string(ctx.infer, "mode").value_or("avg");
  if (mode != "avg" && mode != "max") return ctx.refuse("mode \"" + mode + "\"");
  bool avg = mode == "avg";
  bool aligned = analysis::ops::attr_bool(ctx.infer, "aligned").value_or(false);
  int64_t ratio = analysis::ops::attr_int(ctx.infer, "sample_ratio").value_or(-1);
  double scale = analysis::ops::attr_float(ctx.infer, "spatial_scale").value_or(1.0);
  DataType f = compute_dtype(rois->dtype);
  DataType acc_t = compute_dtype(o->dtype);
  const PrimExpr *H = data->shape[L->h], *W = data->shape[L->w];
  const ir::Buffer* acc = ctx.alloc("roi_align_acc", acc_t, {});
  auto fc = [&](double v) { return b.float_imm(f, v); };
  return b.loops("ax", o->shape, [&](const Exprs& v) -> const ir::Stmt* {
    const PrimExpr *i = v[0], *c = v[L->c], *ph = v[L->h], *pw = v[L->w];
    auto roi = [&](int64_t k) { return b.mul(b.cast(f, b.load(rois, {i, b.i64(k)})), fc(scale)); };
    const PrimExpr* batch = b.cast(DataType::Int(64), b.cast(f, b.load(rois, {i, b.i64(0)})));
    const PrimExpr *x1 = roi(1), *y1 = roi(2);
    const PrimExpr* roi_h = b.sub(roi(4), y1);
    const PrimExpr* roi_w = b.sub(roi(3), x1);
    if (!aligned) {
      roi_h = b.max(roi_h, fc(1));
      roi_w = b.max(roi_w, fc(1));
    }
    const PrimExpr* bin_h = b.div(roi_h, fc(double(size->first)));
    const PrimExpr* bin_w = b.div(roi_w, fc(double(size->second)));
    const PrimExpr* grid_h =
        ratio > 0 ? b.i64(ratio) : b.cast(DataType::Int(64), b.call(f, "tir.ceil", {bin_h}));
    const PrimExpr* grid_w =
        ratio > 0 ? b.i64(ratio) : b.cast(DataType::Int(64), b.call(f, "tir.ceil", {bin_w}));
    const PrimExpr* start_h = b.add(y1, b.mul(b.cast(f, ph), bin_h));
    const PrimExpr* start_w = b.add(x1, b.mul(b.cast(f, pw), bin_w));
    const PrimExpr* count = b.cast(acc_t, b.mul(grid_h, grid_w));
    auto at = [&](const PrimExpr* y, const PrimExpr* x) {
      Exprs idx(4);
      idx[0] = batch;
      idx[L->c] = c;
      idx[L->h] = y;
      idx[L->w] = x;
      return b.cast(f, b.load(data, idx));
    };
    const ir::Stmt* grid = b.loops("r", {grid_h, grid_w}, [&](const Exprs& r) {
      const PrimExpr* y =
          b.add(start_h, b.div(b.mul(b.add(b.cast(f, r[0]), fc(0.5)), bin_h), b.cast(f, grid_h)));
      const PrimExpr* x =
          b.add(start_w, b.div(b.mul(b.add(b.cast(f, r[1]), fc(0.5)), bin_w), b.cast(f, grid_w)));
      const PrimExpr* outside = b.logical_or(
          b.logical_or(b.compare(PrimKind::LT, y, fc(-1)), b.compare(PrimKind::LT, x, fc(-1))),
          b.logical_or(b.compare(PrimKind::GT, y, b.cast(f, H)),
                       b.compare(PrimKind::GT, x, b.cast(f, W))));
      const PrimExpr* yc = b.min(b.max(y, fc(0)), b.cast(f, b.sub(H, b.i64(1))));
      const PrimExpr* xc = b.min(b.max(x, fc(0)), b.cast(f, b.sub(W, b.i64(1))));
      const PrimExpr* y0 = b.cast(DataType::Int(64), b.call(f, "tir.floor", {yc}));
      const PrimExpr* y1i = b.cast(DataType::Int(64), b.call(f, "tir.ceil", {yc}));
      const PrimExpr* x0 = b.cast(DataType::Int(64), b.call(f, "tir.floor", {xc}));
      const PrimExpr* x1i = b.cast(DataType::Int(64), b.call(f, "tir.ceil", {xc}));
      const PrimExpr* ly = b.sub(yc, b.cast(f, y0));
      const PrimExpr* lx = b.sub(xc, b.cast(f, x0));
      const PrimExpr* top = b.add(at(y0, x0), b.mul(b.sub(at(y0, x1i), at(y0, x0)), lx));
      const PrimExpr* bottom = b.add(at(y1i, x0), b.mul(b.sub(at(y1i, x1i), at(y1i, x0)), lx));
      const PrimExpr* val =
          b.cast(acc_t, b.select(outside, fc(0), b.add(top, b.mul(b.sub(bottom, top), ly))));
      const PrimExpr* old = b.load(acc, {});
      return b.store(acc, avg ? b.add(old, b.div(val, count)) : b.max(old, val), {});
    });
    return b.seq({b.store(acc, avg ? b.constant(acc_t, 0) : b.min_value(acc_t), {}), grid,
                  b.store(o, b.cast(o->dtype, b.load(acc, {})), v)});
  });
}

const ir::Stmt* roi_pool_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  const ir::Buffer* rois = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  auto L = roi_layout(ctx, false);
  auto size = pooled(ctx);
  if (!L) return nullptr;
  if (!size || data->shape.size() != 4 || rois->shape.size() != 2)
    return ctx.refuse("this form of R.vision.roi_pool");
  double scale = analysis::ops::attr_float(ctx.infer, "spatial_scale").value_or(1.0);
  DataType f = compute_dtype(rois->dtype);
  DataType t = o->dtype;
  const PrimExpr *H = data->shape[2], *W = data->shape[3];
  const ir::Buffer* acc = ctx.alloc("roi_pool_max", t, {});
  auto fc = [&](double v) { return b.float_imm(f, v); };
  auto to_int = [&](const PrimExpr* e) { return b.cast(DataType::Int(64), e); };
  return b.loops("ax", o->shape, [&](const Exprs& v) -> const ir::Stmt* {
    const PrimExpr *i = v[0], *c = v[1], *ph = v[2], *pw = v[3];
    // Rounded half away from zero, as ONNX MaxRoiPool (floor(x + 0.5)).
    auto corner = [&](int64_t k) {
      return to_int(
          b.call(f, "tir.floor",
                 {b.add(b.mul(b.cast(f, b.load(rois, {i, b.i64(k)})), fc(scale)), fc(0.5))}));
    };
    const PrimExpr* batch = to_int(b.cast(f, b.load(rois, {i, b.i64(0)})));
    const PrimExpr *sw = corner(1), *sh = corner(2);
    const PrimExpr* roi_h = b.max(b.add(b.sub(corner(4), sh), b.i64(1)), b.i64(1));
    const PrimExpr* roi_w = b.max(b.add(b.sub(corner(3), sw), b.i64(1)), b.i64(1));
    const PrimExpr* bin_h = b.div(b.cast(f, roi_h), fc(double(size->first)));
    const PrimExpr* bin_w = b.div(b.cast(f, roi_w), fc(double(size->second)));
    auto bound = [&](const PrimExpr* p, const PrimExpr* bin, const char* fn, const PrimExpr* start,
                     const PrimExpr* extent) {
      const PrimExpr* e = b.add(to_int(b.call(f, fn, {b.mul(b.cast(f, p), bin)})), start);
      return b.min(b.max(e, b.i64(0)), extent);
    };
    const PrimExpr* h0 = bound(ph, bin_h, "tir.floor", sh, H);
    const PrimExpr* h1 = bound(b.add(ph, b.i64(1)), bin_h, "tir.ceil", sh, H);
    const PrimExpr* w0 = bound(pw, bin_w, "tir.floor", sw, W);
    const PrimExpr* w1 = bound(b.add(pw, b.i64(1)), bin_w, "tir.ceil", sw, W);
    const PrimExpr* empty =
        b.logical_or(b.compare(PrimKind::LE, h1, h0), b.compare(PrimKind::LE, w1, w0));
    const ir::Stmt* scan = b.loops(
        "r", {b.max(b.sub(h1, h0), b.i64(0)), b.max(b.sub(w1, w0), b.i64(0))}, [&](const Exprs& r) {
          const PrimExpr* x = b.load(data, {batch, c, b.add(h0, r[0]), b.add(w0, r[1])});
          return b.store(acc, b.max(b.load(acc, {}), x), {});
        });
    return b.seq({b.store(acc, b.min_value(t), {}), scan,
                  b.store(o, b.select(empty, b.constant(t, 0), b.load(acc, {})), v)});
  });
}

// get_valid_counts(data (B, N, L), score_threshold, id_index, score_index) -> (valid_count
// (B,) int32, out (B, N, L), out_indices (B, N) int32), TVM's definition: per batch, the boxes
// whose score exceeds the threshold (and, with id_index >= 0, whose class id is not negative)
// move to the front in order with their original index; every later slot holds -1.
const ir::Stmt* get_valid_counts_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  if (ctx.outputs.size() != 3 || data->shape.size() != 3)
    return ctx.refuse("this form of R.vision.get_valid_counts");
  const ir::Buffer *count = ctx.out(0), *out = ctx.out(1), *indices = ctx.out(2);
  double threshold = analysis::ops::attr_float(ctx.infer, "score_threshold").value_or(0.0);
  int64_t id_index = analysis::ops::attr_int(ctx.infer, "id_index").value_or(0);
  int64_t score_index = analysis::ops::attr_int(ctx.infer, "score_index").value_or(1);
  int64_t length = 0;
  if (literal(data->shape[2], &length) &&
      (score_index < 0 || score_index >= length || id_index >= length))
    return ctx.refuse("a score_index or id_index outside the box");
  DataType t = data->dtype;
  const PrimExpr* L = data->shape[2];
  const ir::Buffer* n = ctx.alloc("valid", DataType::Int(64), {});
  const ir::Stmt* body = b.loops("i", {data->shape[0]}, [&](const Exprs& i) {
    const ir::Stmt* anchors = b.loops("j", {data->shape[1]}, [&](const Exprs& j) {
      const PrimExpr* k = b.load(n, {});
      const PrimExpr* keep =
          b.compare(ir::PrimKind::GT, b.load(data, {i[0], j[0], b.i64(score_index)}),
                    b.constant(t, threshold));
      if (id_index >= 0)
        keep = b.logical_and(
            keep, b.compare(ir::PrimKind::GE, b.load(data, {i[0], j[0], b.i64(id_index)}),
                            b.constant(t, 0)));
      const ir::Stmt* move =
          b.seq({b.loops("e", {L},
                         [&](const Exprs& e) {
                           return b.store(out, b.load(data, {i[0], j[0], e[0]}), {i[0], k, e[0]});
                         }),
                 b.store(indices, j[0], {i[0], k}), b.store(n, b.add(k, b.i64(1)), {})});
      const ir::Stmt* clear =
          b.seq({b.loops("e", {L},
                         [&](const Exprs& e) {
                           return b.store(out, b.constant(t, -1), {i[0], j[0], e[0]});
                         }),
                 b.store(indices, b.i64(-1), {i[0], j[0]})});
      return b.seq(
          {b.when(keep, move), b.when(b.compare(ir::PrimKind::GE, j[0], b.load(n, {})), clear)});
    });
    return b.seq({b.store(n, b.i64(0), {}), anchors, b.store(count, b.load(n, {}), {i[0]})});
  });
  return body;
}

// A list of numbers given as an attribute (variances=(0.1, 0.1, 0.2, 0.2)); nullopt when absent
// or not numbers.
std::optional<std::vector<double>> number_list(RuleContext& ctx, std::string_view name) {
  analysis::ops::ParamValue v = analysis::ops::param(ctx.infer, name);
  auto number = [](const ir::AttrValue& a) -> std::optional<double> {
    if (auto* d = a.get_if<double>()) return *d;
    if (auto* i = a.get_if<int64_t>()) return double(*i);
    const ir::PrimExpr* e = nullptr;
    if (auto* p = a.get_if<const ir::PrimExpr*>()) e = *p;
    if (auto* x = a.get_if<const ir::Expr*>())
      if (auto* pv = ir::dyn_cast<ir::PrimValue>(*x)) e = pv->value;
    if (auto* f = e ? ir::dyn_cast<ir::FloatImm>(e) : nullptr) return f->value;
    if (auto* i = e ? ir::dyn_cast<ir::IntImm>(e) : nullptr) return double(i->value);
    return std::nullopt;
  };
  if (!v.attr) return std::nullopt;
  std::vector<double> out;
  if (auto* l = v.attr->get_if<ir::AttrValue::List>()) {
    for (const ir::AttrValue& item : *l) {
      auto x = number(item);
      if (!x) return std::nullopt;
      out.push_back(*x);
    }
    return out;
  }
  return std::nullopt;
}

// multibox_transform_loc(cls_pred (B, C, N), loc_pred (B, 4N), anchor (1, N, 4)) -> (boxes
// (B, N, 4), scores (B, C, N)), TVM's topi (TFLite's DecodeCenterSizeBoxes): anchors are
// (left, top, right, bottom), encodings (x, y, w, h) scaled by `variances`; the boxes are
// (ymin, xmin, ymax, xmax), clipped to [0, 1] with `clip`; the scores are the softmax over the
// classes, zero below `threshold`, and zero for class 0 unless keep_background.
const ir::Stmt* multibox_transform_loc_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer *cls = ctx.in(0), *loc = ctx.in(1), *anchor = ctx.in(2);
  if (ctx.outputs.size() != 2 || cls->shape.size() != 3 || loc->shape.size() != 2 ||
      anchor->shape.size() != 3)
    return ctx.refuse("this form of R.vision.multibox_transform_loc");
  analysis::ops::ParamValue given = analysis::ops::param(ctx.infer, "variances");
  auto var = given.present() ? number_list(ctx, "variances")
                             : std::optional<std::vector<double>>({0.1, 0.1, 0.2, 0.2});
  if (!var || var->size() != 4) return ctx.refuse("variances that are not 4 numbers");
  bool clip = analysis::ops::attr_bool(ctx.infer, "clip").value_or(true);
  double threshold = analysis::ops::attr_float(ctx.infer, "threshold").value_or(0.01);
  bool background = analysis::ops::attr_bool(ctx.infer, "keep_background").value_or(false);
  const ir::Buffer *boxes = ctx.out(0), *scores = ctx.out(1);
  DataType t = cls->dtype;
  DataType c = compute_dtype(t);
  auto fc = [&](double v) { return b.float_imm(c, v); };
  std::vector<const ir::Stmt*> stages;
  stages.push_back(b.stage("multibox_boxes", boxes->shape, "SSS", [&](const Exprs& v) {
    auto anc = [&](int64_t k) { return b.cast(c, b.load(anchor, {b.i64(0), v[1], b.i64(k)})); };
    auto enc = [&](int64_t k) {
      return b.cast(c, b.load(loc, {v[0], b.add(b.mul(v[1], b.i64(4)), b.i64(k))}));
    };
    const PrimExpr *left = anc(0), *top = anc(1), *right = anc(2), *bottom = anc(3);
    const PrimExpr* ah = b.sub(bottom, top);
    const PrimExpr* aw = b.sub(right, left);
    const PrimExpr* yc =
        b.add(b.mul(b.mul(enc(1), fc((*var)[1])), ah), b.mul(b.add(top, bottom), fc(0.5)));
    const PrimExpr* xc =
        b.add(b.mul(b.mul(enc(0), fc((*var)[0])), aw), b.mul(b.add(left, right), fc(0.5)));
    const PrimExpr* hh =
        b.mul(b.mul(fc(0.5), b.call(c, "tir.exp", {b.mul(enc(3), fc((*var)[3]))})), ah);
    const PrimExpr* hw =
        b.mul(b.mul(fc(0.5), b.call(c, "tir.exp", {b.mul(enc(2), fc((*var)[2]))})), aw);
    const PrimExpr* part[4] = {b.sub(yc, hh), b.sub(xc, hw), b.add(yc, hh), b.add(xc, hw)};
    if (clip)
      for (auto& p : part) p = b.max(fc(0), b.min(fc(1), p));
    const PrimExpr* k = v[2];
    const PrimExpr* val =
        b.select(b.compare(PrimKind::EQ, k, b.i64(0)), part[0],
                 b.select(b.compare(PrimKind::EQ, k, b.i64(1)), part[1],
                          b.select(b.compare(PrimKind::EQ, k, b.i64(2)), part[2], part[3])));
    return b.store(boxes, b.cast(boxes->dtype, val), v);
  }));
  // Softmax over the classes (axis 1), stable: the maximum first.
  const PrimExpr *B = cls->shape[0], *C = cls->shape[1], *N = cls->shape[2];
  const ir::Buffer* mx = ctx.alloc("multibox_max", c, {B, N});
  const ir::Buffer* sum = ctx.alloc("multibox_sum", c, {B, N});
  auto x = [&](const PrimExpr* bb, const PrimExpr* cc, const PrimExpr* n) {
    return b.cast(c, b.load(cls, {bb, cc, n}));
  };
  stages.push_back(b.stage(
      "multibox_max", {B, N, C}, "SSR",
      [&](const Exprs& v) {
        return b.store(mx, b.max(b.load(mx, {v[0], v[1]}), x(v[0], v[2], v[1])), {v[0], v[1]});
      },
      [&](const Exprs& v) {
        return b.store(mx, b.min_value(c), {v[0], v[1]});
      }));
  stages.push_back(b.stage(
      "multibox_sum", {B, N, C}, "SSR",
      [&](const Exprs& v) {
        const PrimExpr* e =
            b.call(c, "tir.exp", {b.sub(x(v[0], v[2], v[1]), b.load(mx, {v[0], v[1]}))});
        return b.store(sum, b.add(b.load(sum, {v[0], v[1]}), e), {v[0], v[1]});
      },
      [&](const Exprs& v) {
        return b.store(sum, b.constant(c, 0), {v[0], v[1]});
      }));
  stages.push_back(b.stage("multibox_scores", scores->shape, "SSS", [&](const Exprs& v) {
    const PrimExpr* p =
        b.div(b.call(c, "tir.exp", {b.sub(x(v[0], v[1], v[2]), b.load(mx, {v[0], v[2]}))}),
              b.load(sum, {v[0], v[2]}));
    p = b.select(b.compare(PrimKind::GE, p, fc(threshold)), p, fc(0));
    if (!background) p = b.select(b.compare(PrimKind::EQ, v[1], b.i64(0)), fc(0), p);
    return b.store(scores, b.cast(scores->dtype, p), v);
  }));
  return b.seq(stages);
}

}  // namespace

void add_vision_rules(std::vector<Rule>& t) {
  t.insert(t.end(),
           {
               {"relax.vision.roi_align", "roi_align", roi_align_rule},
               {"relax.vision.roi_pool", "roi_pool", roi_pool_rule},
               {"relax.vision.get_valid_counts", "get_valid_counts", get_valid_counts_rule},
               {"relax.vision.multibox_transform_loc", "multibox_transform_loc",
                multibox_transform_loc_rule},
           });
}

}  // namespace raxc::backend::legalize
