// Legalization of matmul (operators.md §3.8) and the normalisations of §3.10. matmul follows
// numpy: a 1-D operand is promoted and its axis dropped, batch axes broadcast, the product is
// computed in out_dtype (TVM casts both operands to it) and 16-bit floats accumulate in
// float32. layer_norm and rms_norm compute their statistics in float32 (two passes: mean, then
// squared deviations) and scale by gamma / weight over the normalised axes.
#include <algorithm>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;

namespace {

const ir::Stmt* matmul_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* a = ctx.in(0);
  const ir::Buffer* c = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  size_t ra = a->shape.size(), rc = c->shape.size(), ro = o->shape.size();
  if (ra == 0 || rc == 0) return ctx.refuse("a rank-0 operand");
  DataType t = o->dtype;
  DataType acc_t = compute_dtype(t);
  const PrimExpr* k = a->shape[ra - 1];
  // Output axes: batch..., i (when a is not 1-D), j (when c is not 1-D); then the reduction.
  size_t batch = ro - (ra > 1 ? 1 : 0) - (rc > 1 ? 1 : 0);
  bool direct = acc_t == t;
  const ir::Buffer* acc = direct ? o : ctx.alloc("matmul_acc", acc_t, o->shape);
  Exprs extents = o->shape;
  extents.push_back(k);
  std::string kinds(ro, 'S');
  kinds += 'R';
  auto operand_index = [&](const ir::Buffer* m, const Exprs& v, bool left) {
    size_t r = m->shape.size();
    Exprs idx;
    if (r == 1) return Exprs{v[ro]};
    // Batch axes of m, right-aligned against the output's batch axes (a literal 1 stretches).
    size_t mb = r - 2;
    for (size_t d = 0; d < mb; ++d) {
      int64_t one = 0;
      bool stretch = literal(m->shape[d], &one) && one == 1;
      idx.push_back(stretch ? b.i64(0) : v[batch - mb + d]);
    }
    if (left) {
      idx.push_back(v[batch]);
      idx.push_back(v[ro]);
    } else {
      idx.push_back(v[ro]);
      idx.push_back(v[ro - 1]);
    }
    return idx;
  };
  std::vector<const ir::Stmt*> stages;
  stages.push_back(b.stage(
      "matmul", extents, kinds,
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + ro);
        const PrimExpr* x = b.cast(acc_t, b.cast(t, b.load(a, operand_index(a, v, true))));
        const PrimExpr* y = b.cast(acc_t, b.cast(t, b.load(c, operand_index(c, v, false))));
        return b.store(acc, b.add(b.load(acc, out), b.mul(x, y)), out);
      },
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + ro);
        return b.store(acc, b.constant(acc_t, 0), out);
      }));
  if (!direct)
    stages.push_back(
        elementwise(ctx, "T_cast", [&](const Exprs& v) { return b.cast(t, b.load(acc, v)); }));
  return b.seq(stages);
}

// layer_norm(data, gamma, beta, axes, epsilon, center, scale) and rms_norm(data, weight, axes,
// epsilon).
const ir::Stmt* norm_rule(RuleContext& ctx, bool rms) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  size_t n = x->shape.size();
  std::vector<int> axes;
  auto given = analysis::ops::attr_int_list(ctx.infer, "axes");
  for (int64_t a : given.value_or(std::vector<int64_t>{-1})) {
    int d = norm_axis(a, n);
    if (d < 0) return ctx.refuse("an axis out of range");
    axes.push_back(d);
  }
  std::sort(axes.begin(), axes.end());
  double eps = analysis::ops::attr_float(ctx.infer, "epsilon").value_or(1e-5);
  bool center = rms ? false : analysis::ops::attr_bool(ctx.infer, "center").value_or(true);
  bool scale = rms ? true : analysis::ops::attr_bool(ctx.infer, "scale").value_or(true);
  DataType t = x->dtype;
  DataType c = compute_dtype(t);
  auto reduced = [&](size_t d) {
    return std::find(axes.begin(), axes.end(), int(d)) != axes.end();
  };
  Exprs stat_shape;
  for (size_t d = 0; d < n; ++d)
    if (!reduced(d)) stat_shape.push_back(x->shape[d]);
  Exprs extents = stat_shape;
  std::string kinds(stat_shape.size(), 'S');
  Exprs red_dims;
  for (int a : axes) {
    extents.push_back(x->shape[a]);
    red_dims.push_back(x->shape[a]);
    kinds += 'R';
  }
  size_t spatial = stat_shape.size();
  auto input_index = [&](const Exprs& v) {
    Exprs in(n);
    size_t s = 0, k = 0;
    for (size_t d = 0; d < n; ++d) in[d] = reduced(d) ? v[spatial + k++] : v[s++];
    return in;
  };
  auto stat_index = [&](const Exprs& in) {
    Exprs idx;
    for (size_t d = 0; d < n; ++d)
      if (!reduced(d)) idx.push_back(in[d]);
    return idx;
  };
  auto param_index = [&](const Exprs& in) {
    Exprs idx;
    for (int a : axes) idx.push_back(in[a]);
    return idx;
  };
  const PrimExpr* count = b.cast(c, product(b, red_dims));
  auto load_x = [&](const Exprs& in) { return b.cast(c, b.load(x, in)); };
  const ir::Buffer* mean = rms ? nullptr : ctx.alloc("T_mean", c, stat_shape);
  const ir::Buffer* sq = ctx.alloc(rms ? "T_sq_sum" : "T_var", c, stat_shape);
  std::vector<const ir::Stmt*> stages;
  auto reduction = [&](const std::string& name, const ir::Buffer* acc,
                       const std::function<const PrimExpr*(const Exprs&)>& element) {
    return b.stage(
        name, extents, kinds,
        [&](const Exprs& v) {
          Exprs out(v.begin(), v.begin() + spatial);
          return b.store(acc, b.add(b.load(acc, out), element(input_index(v))), out);
        },
        [&](const Exprs& v) {
          Exprs out(v.begin(), v.begin() + spatial);
          return b.store(acc, b.constant(c, 0), out);
        });
  };
  auto mean_at = [&](const Exprs& in) { return b.div(b.load(mean, stat_index(in)), count); };
  if (!rms) {
    stages.push_back(reduction("T_mean", mean, load_x));
    stages.push_back(reduction("T_var", sq, [&](const Exprs& in) {
      const PrimExpr* d = b.sub(load_x(in), mean_at(in));
      return b.mul(d, d);
    }));
  } else {
    stages.push_back(reduction("T_sq_sum", sq, [&](const Exprs& in) {
      const PrimExpr* v = load_x(in);
      return b.mul(v, v);
    }));
  }
  const ir::Buffer* gamma = scale ? ctx.in(1) : nullptr;
  const ir::Buffer* beta = center && ctx.inputs.size() > 2 ? ctx.in(2) : nullptr;
  stages.push_back(elementwise(ctx, rms ? "T_rms_norm" : "T_layer_norm", [&](const Exprs& v) {
    const PrimExpr* var = b.div(b.load(sq, stat_index(v)), count);
    const PrimExpr* inv = b.call(c, "tir.rsqrt", {b.add(var, b.float_imm(c, eps))});
    const PrimExpr* centred = rms ? load_x(v) : b.sub(load_x(v), mean_at(v));
    const PrimExpr* y = b.mul(centred, inv);
    if (gamma) y = b.mul(y, b.cast(c, b.load(gamma, param_index(v))));
    if (beta) y = b.add(y, b.cast(c, b.load(beta, param_index(v))));
    return b.cast(t, y);
  }));
  return b.seq(stages);
}
const ir::Stmt* layer_norm_rule(RuleContext& c) { return norm_rule(c, false); }
const ir::Stmt* rms_norm_rule(RuleContext& c) { return norm_rule(c, true); }

}  // namespace

void add_nn_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.matmul", "matmul", matmul_rule},
                        {"relax.nn.layer_norm", "layer_norm", layer_norm_rule},
                        {"relax.nn.rms_norm", "rms_norm", rms_norm_rule},
                    });
}

}  // namespace raxc::backend::legalize
