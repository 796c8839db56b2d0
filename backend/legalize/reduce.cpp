// Legalization of reductions and statistics (operators.md §3.9) and of softmax / log_softmax:
// reduction stages with T.init like TVM's topi (sum from 0, prod from 1, max from the dtype's
// lowest value, min from its highest), 16-bit floats accumulated in float32. mean divides the
// sum by the element count (integers: truncating, as TVM's divide); variance and std are the
// population statistics, computed in two passes (mean, then squared deviations) rather than
// from E[x²] - E[x]², which cancels catastrophically. softmax subtracts the row maximum first.
#include <algorithm>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

struct Reduction {
  std::vector<int> axes;  // normalised, ascending
  bool keepdims = false;
  size_t ndim = 0;
  bool reduced(size_t d) const { return std::find(axes.begin(), axes.end(), int(d)) != axes.end(); }
};

// Reads axis (None: every axis) and keepdims.
std::optional<Reduction> reduction_attrs(RuleContext& ctx, const ir::Buffer* x,
                                         std::string_view axis_name = "axis") {
  Reduction r;
  r.ndim = x->shape.size();
  std::optional<std::vector<int64_t>> axes = analysis::ops::attr_int_list(ctx.infer, axis_name);
  if (axes) {
    for (int64_t a : *axes) {
      int n = norm_axis(a, r.ndim);
      if (n < 0) return std::nullopt;
      r.axes.push_back(n);
    }
  } else {
    for (size_t d = 0; d < r.ndim; ++d) r.axes.push_back(int(d));
  }
  std::sort(r.axes.begin(), r.axes.end());
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  r.keepdims = analysis::ops::attr_bool(ctx.infer, "keepdims").value_or(false);
  return r;
}

// The shape of the reduced value as stored (keepdims or not).
Exprs reduced_shape(Builder& b, const ir::Buffer* x, const Reduction& r) {
  Exprs shape;
  for (size_t d = 0; d < r.ndim; ++d) {
    if (!r.reduced(d))
      shape.push_back(x->shape[d]);
    else if (r.keepdims)
      shape.push_back(b.i64(1));
  }
  return shape;
}

// The index of the reduced value for input position `in` (spatial parts of it).
Exprs reduced_index(Builder& b, const Exprs& in, const Reduction& r) {
  Exprs idx;
  for (size_t d = 0; d < r.ndim; ++d) {
    if (!r.reduced(d))
      idx.push_back(in[d]);
    else if (r.keepdims)
      idx.push_back(b.i64(0));
  }
  return idx;
}

using ElementFn = std::function<const PrimExpr*(const Exprs& in)>;
using Combine = std::function<const PrimExpr*(const PrimExpr* acc, const PrimExpr* v)>;

// acc[out] = init; acc[out] = combine(acc[out], element(in)) over the reduced axes.
const ir::Stmt* reduce_stage(RuleContext& ctx, const std::string& name, const ir::Buffer* x,
                             const Reduction& r, const ir::Buffer* acc, const PrimExpr* init,
                             const Combine& combine, const ElementFn& element) {
  Builder& b = ctx.b;
  Exprs extents = acc->shape;
  std::string kinds(acc->shape.size(), 'S');
  for (int a : r.axes) {
    extents.push_back(x->shape[a]);
    kinds += 'R';
  }
  size_t spatial = acc->shape.size();
  auto input_index = [&](const Exprs& v) {
    Exprs in(r.ndim);
    size_t s = 0, k = 0;
    for (size_t d = 0; d < r.ndim; ++d) {
      if (r.reduced(d)) {
        in[d] = v[spatial + k++];
        if (r.keepdims) ++s;
      } else {
        in[d] = v[s++];
      }
    }
    return in;
  };
  return b.stage(
      name, extents, kinds,
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + spatial);
        return b.store(acc, combine(b.load(acc, out), element(input_index(v))), out);
      },
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + spatial);
        return b.store(acc, init, out);
      });
}

const PrimExpr* count_of(Builder& b, const ir::Buffer* x, const Reduction& r, DataType t) {
  Exprs dims;
  for (int a : r.axes) dims.push_back(x->shape[a]);
  return b.cast(t, product(b, dims));
}

enum class Kind { Sum, Prod, Max, Min, Mean, Variance, Std };

const ir::Stmt* reduce_rule(RuleContext& ctx, Kind kind) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  std::optional<Reduction> r = reduction_attrs(ctx, x);
  if (!r) return ctx.refuse("an axis out of range");
  DataType t = x->dtype;
  DataType acc_t = compute_dtype(t);
  const ir::Buffer* o = ctx.out();
  Exprs shape = reduced_shape(b, x, *r);
  auto load_x = [&](const Exprs& in) { return b.cast(acc_t, b.load(x, in)); };
  Combine plus = [&](const PrimExpr* a, const PrimExpr* v) { return b.add(a, v); };
  std::vector<const ir::Stmt*> stages;
  // Stores directly into the output when no conversion follows.
  bool direct = acc_t == t &&
                (kind == Kind::Sum || kind == Kind::Prod || kind == Kind::Max || kind == Kind::Min);
  const ir::Buffer* acc =
      direct ? o : ctx.alloc(direct ? "" : std::string(o->name) + "_red", acc_t, shape);
  switch (kind) {
    case Kind::Sum:
    case Kind::Mean:
      stages.push_back(reduce_stage(ctx, "T_sum", x, *r, acc, b.constant(acc_t, 0), plus, load_x));
      break;
    case Kind::Prod:
      stages.push_back(reduce_stage(
          ctx, "T_prod", x, *r, acc, b.constant(acc_t, 1),
          [&](auto a, auto v) { return b.mul(a, v); }, load_x));
      break;
    case Kind::Max:
      stages.push_back(reduce_stage(
          ctx, "T_max", x, *r, acc, b.min_value(acc_t), [&](auto a, auto v) { return b.max(a, v); },
          load_x));
      break;
    case Kind::Min:
      stages.push_back(reduce_stage(
          ctx, "T_min", x, *r, acc, b.max_value(acc_t), [&](auto a, auto v) { return b.min(a, v); },
          load_x));
      break;
    case Kind::Variance:
    case Kind::Std: {
      const ir::Buffer* sum = ctx.alloc("T_sum", acc_t, shape);
      stages.push_back(reduce_stage(ctx, "T_sum", x, *r, sum, b.constant(acc_t, 0), plus, load_x));
      const PrimExpr* n = count_of(b, x, *r, acc_t);
      stages.push_back(reduce_stage(
          ctx, "T_sq_dev", x, *r, acc, b.constant(acc_t, 0), plus, [&](const Exprs& in) {
            const PrimExpr* mean = b.div(b.load(sum, reduced_index(b, in, *r)), n);
            const PrimExpr* d = b.sub(load_x(in), mean);
            return b.mul(d, d);
          }));
      break;
    }
  }
  if (!direct) {
    const PrimExpr* n = count_of(b, x, *r, acc_t);
    stages.push_back(elementwise(ctx, "T_" + std::string(o->name), [&](const Exprs& v) {
      const PrimExpr* a = b.load(acc, v);
      if (kind == Kind::Mean || kind == Kind::Variance || kind == Kind::Std) a = b.div(a, n);
      if (kind == Kind::Std) a = b.call(acc_t, "tir.sqrt", {a});
      return b.cast(t, a);
    }));
  }
  return b.seq(stages);
}

const ir::Stmt* sum_rule(RuleContext& c) { return reduce_rule(c, Kind::Sum); }
const ir::Stmt* prod_rule(RuleContext& c) { return reduce_rule(c, Kind::Prod); }
const ir::Stmt* max_rule(RuleContext& c) { return reduce_rule(c, Kind::Max); }
const ir::Stmt* min_rule(RuleContext& c) { return reduce_rule(c, Kind::Min); }
const ir::Stmt* mean_rule(RuleContext& c) { return reduce_rule(c, Kind::Mean); }
const ir::Stmt* variance_rule(RuleContext& c) { return reduce_rule(c, Kind::Variance); }
const ir::Stmt* std_rule(RuleContext& c) { return reduce_rule(c, Kind::Std); }

// argmax / argmin: the first index of the extreme value (int64), one pass keeping (index,
// value) pairs as TVM's topi does.
const ir::Stmt* arg_rule(RuleContext& ctx, bool is_max) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  std::optional<Reduction> r = reduction_attrs(ctx, x);
  if (!r) return ctx.refuse("an axis out of range");
  if (r->axes.size() != x->shape.size() && r->axes.size() != 1) return ctx.refuse("several axes");
  const ir::Buffer* o = ctx.out();
  Exprs shape = reduced_shape(b, x, *r);
  const ir::Buffer* idx = ctx.alloc("T_idx", DataType::Int(64), shape);
  const ir::Buffer* val = ctx.alloc("T_val", x->dtype, shape);
  // The flat position of `in` over the reduced axes: the index reported.
  auto flat = [&](const Exprs& in) {
    const PrimExpr* f = b.i64(0);
    for (int a : r->axes) f = b.add(b.mul(f, x->shape[a]), in[a]);
    return f;
  };
  Exprs extents = shape;
  std::string kinds(shape.size(), 'S');
  for (int a : r->axes) {
    extents.push_back(x->shape[a]);
    kinds += 'R';
  }
  size_t spatial = shape.size();
  auto input_index = [&](const Exprs& v) {
    Exprs in(r->ndim);
    size_t s = 0, k = 0;
    for (size_t d = 0; d < r->ndim; ++d) {
      if (r->reduced(d)) {
        in[d] = v[spatial + k++];
        if (r->keepdims) ++s;
      } else {
        in[d] = v[s++];
      }
    }
    return in;
  };
  std::vector<const ir::Stmt*> stages;
  stages.push_back(b.stage(
      is_max ? "T_argmax" : "T_argmin", extents, kinds,
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + spatial);
        Exprs in = input_index(v);
        const PrimExpr* xv = b.load(x, in);
        const PrimExpr* better =
            b.compare(is_max ? PrimKind::GT : PrimKind::LT, xv, b.load(val, out));
        return b.seq({b.store(idx, b.select(better, flat(in), b.load(idx, out)), out),
                      b.store(val, b.select(better, xv, b.load(val, out)), out)});
      },
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + spatial);
        return b.seq({b.store(idx, b.i64(-1), out),
                      b.store(val, is_max ? b.min_value(x->dtype) : b.max_value(x->dtype), out)});
      }));
  // The first element wins ties and the extreme of an all-lowest row is its first element.
  stages.push_back(elementwise(ctx, "T_arg", [&](const Exprs& v) {
    const PrimExpr* i = b.load(idx, v);
    return b.select(b.compare(PrimKind::LT, i, b.i64(0)), b.i64(0), i);
  }));
  (void)o;
  return b.seq(stages);
}
const ir::Stmt* argmax_rule(RuleContext& c) { return arg_rule(c, true); }
const ir::Stmt* argmin_rule(RuleContext& c) { return arg_rule(c, false); }

// softmax / log_softmax over one axis, stable: max, then sum of exp(x - max).
const ir::Stmt* softmax_common(RuleContext& ctx, bool log) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  Reduction r;
  r.ndim = x->shape.size();
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), r.ndim);
  if (axis < 0) return ctx.refuse("an axis out of range");
  r.axes = {axis};
  DataType t = x->dtype;
  DataType c = compute_dtype(t);
  Exprs shape = reduced_shape(b, x, r);
  const ir::Buffer* maxelem = ctx.alloc("T_softmax_maxelem", c, shape);
  const ir::Buffer* expsum = ctx.alloc("T_softmax_expsum", c, shape);
  auto load_x = [&](const Exprs& in) { return b.cast(c, b.load(x, in)); };
  std::vector<const ir::Stmt*> stages;
  stages.push_back(reduce_stage(
      ctx, "T_softmax_maxelem", x, r, maxelem, b.min_value(c),
      [&](auto a, auto v) { return b.max(a, v); }, load_x));
  auto shifted = [&](const Exprs& in) {
    return b.sub(load_x(in), b.load(maxelem, reduced_index(b, in, r)));
  };
  if (log) {
    stages.push_back(reduce_stage(
        ctx, "T_softmax_expsum", x, r, expsum, b.constant(c, 0),
        [&](auto a, auto v) { return b.add(a, v); },
        [&](const Exprs& in) { return b.call(c, "tir.exp", {shifted(in)}); }));
    stages.push_back(elementwise(ctx, "compute", [&](const Exprs& v) {
      const PrimExpr* sum = b.load(expsum, reduced_index(b, v, r));
      return b.cast(t, b.sub(shifted(v), b.call(c, "tir.log", {sum})));
    }));
    return b.seq(stages);
  }
  // softmax keeps the exponentials (T_softmax_exp, as TVM's topi): one exp per element.
  const ir::Buffer* exps = ctx.alloc("T_softmax_exp", c, x->shape);
  stages.push_back(b.stage(
      "T_softmax_exp", x->shape, std::string(x->shape.size(), 'S'),
      [&](const Exprs& v) { return b.store(exps, b.call(c, "tir.exp", {shifted(v)}), v); }));
  stages.push_back(reduce_stage(
      ctx, "T_softmax_expsum", x, r, expsum, b.constant(c, 0),
      [&](auto a, auto v) { return b.add(a, v); },
      [&](const Exprs& in) { return b.load(exps, in); }));
  stages.push_back(elementwise(ctx, "T_softmax_norm", [&](const Exprs& v) {
    return b.cast(t, b.div(b.load(exps, v), b.load(expsum, reduced_index(b, v, r))));
  }));
  return b.seq(stages);
}
const ir::Stmt* softmax_rule(RuleContext& c) { return softmax_common(c, false); }
const ir::Stmt* log_softmax_rule(RuleContext& c) { return softmax_common(c, true); }

// cross_entropy_with_logits(predictions, labels) = -sum(predictions * labels) / N, N the first
// extent for rank > 1 (predictions are log-probabilities), 1 otherwise.
const ir::Stmt* cross_entropy_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* y = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  Reduction r;
  r.ndim = x->shape.size();
  for (size_t d = 0; d < r.ndim; ++d) r.axes.push_back(int(d));
  const ir::Buffer* sum = ctx.alloc("T_sum", c, {});
  std::vector<const ir::Stmt*> stages;
  stages.push_back(reduce_stage(
      ctx, "T_sum", x, r, sum, b.constant(c, 0), [&](auto a, auto v) { return b.add(a, v); },
      [&](const Exprs& in) { return b.mul(b.cast(c, b.load(x, in)), b.cast(c, b.load(y, in))); }));
  const PrimExpr* n = r.ndim > 1 ? b.cast(c, x->shape[0]) : b.constant(c, 1);
  stages.push_back(elementwise(ctx, "T_divide", [&](const Exprs&) {
    return b.cast(t, b.div(b.sub(b.constant(c, 0), b.load(sum, {})), n));
  }));
  return b.seq(stages);
}

// nll_loss(predictions, targets, weights, reduction, ignore_index), predictions (N, C, d...) or
// (C,): element i loses -weights[t] * predictions[i, t, ...] (nothing where t is
// ignore_index); "sum" adds them, "mean" divides by the summed weights of the elements kept.
const ir::Stmt* nll_loss_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* pred = ctx.in(0);
  const ir::Buffer* target = ctx.in(1);
  const ir::Buffer* weights = ctx.inputs.size() > 2 ? ctx.in(2) : nullptr;
  const ir::Buffer* o = ctx.out();
  std::string reduction = analysis::ops::attr_string(ctx.infer, "reduction").value_or("mean");
  int64_t ignore = analysis::ops::attr_int(ctx.infer, "ignore_index").value_or(-100);
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return ctx.refuse("reduction \"" + reduction + "\"");
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  // The weight and the loss of the element at target position v.
  auto parts = [&](const Exprs& v) {
    const PrimExpr* cls = b.cast(DataType::Int(64), b.load(target, v));
    const PrimExpr* kept = b.compare(PrimKind::NE, cls, b.i64(ignore));
    Exprs pi;
    if (pred->shape.size() == 1) {
      pi.push_back(cls);
    } else {
      pi.push_back(v[0]);
      pi.push_back(cls);
      pi.insert(pi.end(), v.begin() + 1, v.end());
    }
    const PrimExpr* w = weights ? b.cast(c, b.load(weights, {cls})) : b.constant(c, 1);
    const PrimExpr* weight = b.if_then_else(kept, w, b.constant(c, 0));
    const PrimExpr* loss = b.if_then_else(
        kept, b.sub(b.constant(c, 0), b.mul(w, b.cast(c, b.load(pred, pi)))), b.constant(c, 0));
    return std::pair{weight, loss};
  };
  if (reduction == "none")
    return elementwise(ctx, "nll_loss", [&](const Exprs& v) { return b.cast(t, parts(v).second); });
  const ir::Buffer* loss_sum = ctx.alloc("nll_loss_sum", c, {});
  const ir::Buffer* weight_sum = ctx.alloc("nll_loss_weight", c, {});
  Exprs extents = target->shape;
  std::vector<const ir::Stmt*> stages;
  stages.push_back(b.stage(
      "nll_loss_red", extents, std::string(extents.size(), 'R'),
      [&](const Exprs& v) {
        auto [w, l] = parts(v);
        return b.seq({b.store(loss_sum, b.add(b.load(loss_sum, {}), l), {}),
                      b.store(weight_sum, b.add(b.load(weight_sum, {}), w), {})});
      },
      [&](const Exprs&) {
        return b.seq(
            {b.store(loss_sum, b.constant(c, 0), {}), b.store(weight_sum, b.constant(c, 0), {})});
      }));
  stages.push_back(elementwise(ctx, "nll_loss", [&](const Exprs&) {
    const PrimExpr* l = b.load(loss_sum, {});
    if (reduction == "mean") l = b.div(l, b.load(weight_sum, {}));
    return b.cast(t, l);
  }));
  return b.seq(stages);
}

}  // namespace

void add_reduce_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.sum", "sum", sum_rule},
                        {"relax.prod", "prod", prod_rule},
                        {"relax.max", "max", max_rule},
                        {"relax.min", "min", min_rule},
                        {"relax.mean", "mean", mean_rule},
                        {"relax.variance", "variance", variance_rule},
                        {"relax.std", "std", std_rule},
                        {"relax.argmax", "argmax", argmax_rule},
                        {"relax.argmin", "argmin", argmin_rule},
                        {"relax.nn.softmax", "softmax", softmax_rule},
                        {"relax.nn.log_softmax", "log_softmax", log_softmax_rule},
                        {"relax.nn.cross_entropy_with_logits", "cross_entropy_with_logits",
                         cross_entropy_rule},
                        {"relax.nn.nll_loss", "nll_loss", nll_loss_rule},
                    });
}

}  // namespace raxc::backend::legalize
