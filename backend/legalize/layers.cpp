// Legalization of the layer operators of operators.md §3.10 that keep their own shape rules:
// batch_norm (TVM's topi.nn.batch_norm: with `training` the statistics of the batch, biased
// variance, and the moving statistics updated with `momentum`; without, the moving statistics
// and the moving statistics returned unchanged), dropout (its inference meaning: TVM leaves
// dropout to the frontends and does not legalize it), pixel_shuffle (topi.nn.pixel_shuffle) and
// adaptive_avg_pool1d/2d/3d (topi.nn.adaptive_pool: the window of output index i spans
// [floor(i * in / out), ceil((i + 1) * in / out)) on each spatial axis).
#include <string>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// batch_norm(data, gamma, beta, moving_mean, moving_var, axis, epsilon, center, scale,
// momentum, training) -> (out, mean, var). 16-bit floats compute in float32.
const ir::Stmt* batch_norm_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  size_t r = x->shape.size();
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(1), r);
  if (axis < 0 || ctx.inputs.size() != 5 || ctx.outputs.size() != 3)
    return ctx.refuse("this form of R.nn.batch_norm");
  for (size_t i = 1; i < 5; ++i)
    if (ctx.in(i)->shape.size() != 1) return ctx.refuse("parameters that are not 1-D");
  double eps = analysis::ops::attr_float(ctx.infer, "epsilon").value_or(1e-5);
  double momentum = analysis::ops::attr_float(ctx.infer, "momentum").value_or(0.1);
  bool center = analysis::ops::attr_bool(ctx.infer, "center").value_or(true);
  bool scale = analysis::ops::attr_bool(ctx.infer, "scale").value_or(true);
  bool training = analysis::ops::attr_bool(ctx.infer, "training").value_or(true);
  if (training && !(momentum >= 0 && momentum <= 1))
    return ctx.refuse("a momentum outside [0, 1] (TVM asserts the range)");
  DataType t = x->dtype;
  DataType c = compute_dtype(t);
  const PrimExpr* channels = x->shape[axis];
  auto load = [&](size_t i, const PrimExpr* ch) { return b.cast(c, b.load(ctx.in(i), {ch})); };
  auto load_x = [&](const Exprs& v) { return b.cast(c, b.load(x, v)); };
  std::vector<const ir::Stmt*> stages;
  const ir::Buffer* mean = nullptr;
  const ir::Buffer* var = nullptr;
  if (training) {
    // The statistics over every axis but `axis`: extents (channel, the others...).
    Exprs extents{channels}, others;
    for (size_t d = 0; d < r; ++d)
      if (int(d) != axis) {
        extents.push_back(x->shape[d]);
        others.push_back(x->shape[d]);
      }
    std::string kinds = "S" + std::string(r - 1, 'R');
    auto input_index = [&](const Exprs& v) {
      Exprs in(r);
      size_t k = 1;
      for (size_t d = 0; d < r; ++d) in[d] = int(d) == axis ? v[0] : v[k++];
      return in;
    };
    const PrimExpr* count = b.cast(c, product(b, others));
    mean = ctx.alloc("T_mean", c, {channels});
    var = ctx.alloc("T_var", c, {channels});
    auto reduction = [&](const std::string& name, const ir::Buffer* acc,
                         const std::function<const PrimExpr*(const Exprs&)>& element) {
      return b.stage(
          name, extents, kinds,
          [&](const Exprs& v) {
            return b.store(acc, b.add(b.load(acc, {v[0]}), element(input_index(v))), {v[0]});
          },
          [&](const Exprs& v) { return b.store(acc, b.constant(c, 0), {v[0]}); });
    };
    stages.push_back(reduction("T_mean", mean, load_x));
    stages.push_back(b.stage("T_mean_divide", {channels}, "S", [&](const Exprs& v) {
      return b.store(mean, b.div(b.load(mean, v), count), v);
    }));
    stages.push_back(reduction("T_var", var, [&](const Exprs& in) {
      const PrimExpr* d = b.sub(load_x(in), b.load(mean, {in[axis]}));
      return b.mul(d, d);
    }));
    stages.push_back(b.stage("T_var_divide", {channels}, "S", [&](const Exprs& v) {
      return b.store(var, b.div(b.load(var, v), count), v);
    }));
  }
  auto stat = [&](const ir::Buffer* batch, size_t moving, const PrimExpr* ch) {
    return batch ? b.load(batch, {ch}) : load(moving, ch);
  };
  stages.push_back(elementwise(ctx, "T_batch_norm", [&](const Exprs& v) {
    const PrimExpr* ch = v[axis];
    const PrimExpr* y =
        b.div(b.sub(load_x(v), stat(mean, 3, ch)),
              b.call(c, "tir.sqrt", {b.add(stat(var, 4, ch), b.float_imm(c, eps))}));
    if (scale) y = b.mul(y, load(1, ch));
    if (center) y = b.add(y, load(2, ch));
    return b.cast(t, y);
  }));
  // The moving statistics: (1 - momentum) * moving + momentum * batch when training, else
  // the moving statistics as they are.
  for (size_t k = 1; k <= 2; ++k) {
    const ir::Buffer* o = ctx.out(k);
    const ir::Buffer* batch = k == 1 ? mean : var;
    stages.push_back(
        b.stage(k == 1 ? "T_moving_mean" : "T_moving_var", {channels}, "S", [&](const Exprs& v) {
          const PrimExpr* m = load(2 + k, v[0]);
          if (batch)
            m = b.add(b.mul(b.float_imm(c, 1 - momentum), m),
                      b.mul(b.float_imm(c, momentum), b.load(batch, v)));
          return b.store(o, b.cast(o->dtype, m), v);
        }));
  }
  return b.seq(stages);
}

// dropout(data, rate) -> (output, mask): the inference meaning, as TVM's frontends lower it
// (ONNX Dropout outside training, PyTorch eval mode): the output is the data and the mask
// keeps every element (ones of the data's dtype).
const ir::Stmt* dropout_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  if (ctx.outputs.size() != 2) return ctx.refuse("this form of R.nn.dropout");
  const ir::Buffer* x = ctx.in(0);
  std::string kinds(x->shape.size(), 'S');
  return b.seq({b.stage("T_dropout", x->shape, kinds,
                        [&](const Exprs& v) { return b.store(ctx.out(0), b.load(x, v), v); }),
                b.stage("T_dropout_mask", x->shape, kinds, [&](const Exprs& v) {
                  return b.store(ctx.out(1), b.constant(ctx.out(1)->dtype, 1), v);
                })});
}

// pixel_shuffle(data, r): out[..., c, h, w] = data[..., c*r*r + (h % r)*r + w % r, h / r, w / r].
const ir::Stmt* pixel_shuffle_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  std::optional<int64_t> factor = analysis::ops::attr_int(ctx.infer, "upscale_factor");
  if (!factor || *factor <= 0 || x->shape.size() < 3)
    return ctx.refuse("an upscale_factor that is not positive");
  const PrimExpr* f = b.i64(*factor);
  size_t n = x->shape.size();
  return elementwise(ctx, "PixelShuffle", [&](const Exprs& v) {
    Exprs in(v.begin(), v.end() - 3);
    const PrimExpr *ch = v[n - 3], *h = v[n - 2], *w = v[n - 1];
    in.push_back(b.add(b.add(b.mul(ch, b.i64(*factor * *factor)), b.mul(b.floormod(h, f), f)),
                       b.floormod(w, f)));
    in.push_back(b.floordiv(h, f));
    in.push_back(b.floordiv(w, f));
    return b.load(x, in);
  });
}

// adaptive_avg_pool{1,2,3}d(data, output_size, layout): the output's spatial extents are the
// result's shape; each output element averages its window (TVM's topi.nn.adaptive_pool).
const ir::Stmt* adaptive_avg_pool_rule(RuleContext& ctx, size_t dims) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  static const char* const defaults[] = {"", "NCW", "NCHW", "NCDHW"};
  std::string layout = analysis::ops::attr_string(ctx.infer, "layout").value_or(defaults[dims]);
  std::string out_layout = analysis::ops::attr_string(ctx.infer, "out_layout").value_or(layout);
  if (out_layout != layout) return ctx.refuse("an out_layout other than the layout");
  if (layout.size() != x->shape.size()) return ctx.refuse("layout \"" + layout + "\"");
  std::vector<size_t> spatial;
  for (char letter : std::string("DHW").substr(3 - dims)) {
    size_t p = layout.find(letter);
    if (p == std::string::npos) return ctx.refuse("layout \"" + layout + "\"");
    spatial.push_back(p);
  }
  for (char l : layout)
    if (l < 'A' || l > 'Z') return ctx.refuse("layout \"" + layout + "\" with split axes");
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  const ir::Buffer* acc = ctx.alloc("adaptive_pool_sum", c, {});
  return b.loops("ax", o->shape, [&](const Exprs& v) -> const ir::Stmt* {
    Exprs start, extent;
    for (size_t s : spatial) {
      const PrimExpr *in = x->shape[s], *out = o->shape[s];
      const PrimExpr* lo = b.floordiv(b.mul(v[s], in), out);
      const PrimExpr* hi =
          b.floordiv(b.sub(b.add(b.mul(b.add(v[s], b.i64(1)), in), out), b.i64(1)), out);
      start.push_back(lo);
      extent.push_back(b.sub(hi, lo));
    }
    const ir::Stmt* sum = b.loops("rv", extent, [&](const Exprs& k) {
      Exprs in = v;
      for (size_t d = 0; d < spatial.size(); ++d) in[spatial[d]] = b.add(start[d], k[d]);
      return b.store(acc, b.add(b.load(acc, {}), b.cast(c, b.load(x, in))), {});
    });
    const PrimExpr* avg = b.div(b.load(acc, {}), b.cast(c, product(b, extent)));
    return b.seq({b.store(acc, b.constant(c, 0), {}), sum, b.store(o, b.cast(t, avg), v)});
  });
}
const ir::Stmt* adaptive_avg_pool1d_rule(RuleContext& c) { return adaptive_avg_pool_rule(c, 1); }
const ir::Stmt* adaptive_avg_pool2d_rule(RuleContext& c) { return adaptive_avg_pool_rule(c, 2); }
const ir::Stmt* adaptive_avg_pool3d_rule(RuleContext& c) { return adaptive_avg_pool_rule(c, 3); }

}  // namespace

void add_layer_rules(std::vector<Rule>& t) {
  t.insert(t.end(),
           {
               {"relax.nn.batch_norm", "batch_norm", batch_norm_rule},
               {"relax.nn.dropout", "dropout", dropout_rule},
               {"relax.nn.pixel_shuffle", "pixel_shuffle", pixel_shuffle_rule},
               {"relax.nn.adaptive_avg_pool1d", "adaptive_avg_pool1d", adaptive_avg_pool1d_rule},
               {"relax.nn.adaptive_avg_pool2d", "adaptive_avg_pool2d", adaptive_avg_pool2d_rule},
               {"relax.nn.adaptive_avg_pool3d", "adaptive_avg_pool3d", adaptive_avg_pool3d_rule},
           });
}

}  // namespace raxc::backend::legalize
