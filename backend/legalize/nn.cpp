// Legalization of matmul (operators.md §3.8) and the normalisations of §3.10. matmul follows
// numpy: a 1-D operand is promoted and its axis dropped, batch axes broadcast, the product is
// computed in out_dtype (TVM casts both operands to it) and 16-bit floats accumulate in
// float32. float32 matmul and linear lower to the runtime's packed kernels
// (backend/runtime/matmul.cpp) through R.call_dps_packed; the loop nests stay for other dtypes.
// layer_norm and rms_norm compute their statistics in float32 (two passes: mean, then squared
// deviations) and scale by gamma / weight over the normalised axes.
#include <algorithm>
#include <cmath>
#include <optional>

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
  // float32 throughout: the packed, register-tiled kernel of the runtime (runtime/matmul.cpp),
  // which computes the same numpy semantics, symbolic and broadcast batch axes included.
  DataType f32 = DataType::Float(32);
  if (a->dtype == f32 && c->dtype == f32 && t == f32) return ctx.use_packed("raxc.matmul_f32");
  const PrimExpr* k = a->shape[ra - 1];
  // Output axes: batch..., i (when a is not 1-D), j (when c is not 1-D); then the reduction.
  size_t batch = ro - (ra > 1 ? 1 : 0) - (rc > 1 ? 1 : 0);
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
  return accumulate(ctx, "matmul", {k}, [&](const Exprs& v, DataType acc_t) {
    const PrimExpr* x = b.cast(acc_t, b.cast(t, b.load(a, operand_index(a, v, true))));
    const PrimExpr* y = b.cast(acc_t, b.cast(t, b.load(c, operand_index(c, v, false))));
    return b.mul(x, y);
  });
}

// linear(data, weight, bias) = data @ weight^T + bias, weight (out_features, in_features).
const ir::Stmt* linear_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* w = ctx.in(1);
  const ir::Buffer* bias = ctx.inputs.size() > 2 ? ctx.in(2) : nullptr;
  const ir::Buffer* o = ctx.out();
  size_t ro = o->shape.size();
  if (x->shape.empty() || w->shape.size() != 2 || ro != x->shape.size())
    return ctx.refuse("this form of R.linear");
  DataType t = o->dtype;
  // float32 throughout: the runtime's packed kernel, the weight packed from its rows.
  DataType f32 = DataType::Float(32);
  if (x->dtype == f32 && w->dtype == f32 && t == f32 && (!bias || bias->dtype == f32))
    return ctx.use_packed("raxc.linear_f32");
  DataType acc_t = compute_dtype(t);
  const ir::Buffer* acc = ctx.alloc("T_matmul_NT", acc_t, o->shape);
  Exprs extents = o->shape;
  extents.push_back(x->shape.back());
  std::string kinds(ro, 'S');
  kinds += 'R';
  std::vector<const ir::Stmt*> stages;
  stages.push_back(b.stage(
      "T_matmul_NT", extents, kinds,
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + ro);
        Exprs xi(v.begin(), v.begin() + ro - 1);
        xi.push_back(v[ro]);
        const PrimExpr* prod = b.mul(b.cast(acc_t, b.cast(t, b.load(x, xi))),
                                     b.cast(acc_t, b.cast(t, b.load(w, {v[ro - 1], v[ro]}))));
        return b.store(acc, b.add(b.load(acc, out), prod), out);
      },
      [&](const Exprs& v) {
        return b.store(acc, b.constant(acc_t, 0), Exprs(v.begin(), v.begin() + ro));
      }));
  stages.push_back(elementwise(ctx, "T_add", [&](const Exprs& v) {
    const PrimExpr* y = b.load(acc, v);
    if (bias) y = b.add(y, b.cast(acc_t, b.load(bias, broadcast_indices(b, bias, v))));
    return b.cast(t, y);
  }));
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

// group_norm / instance_norm: statistics over the channels of one group (instance_norm: each
// channel its own group) and the `axes`, two passes in float32; gamma and beta are indexed by
// the channel.
const ir::Stmt* grouped_norm_rule(RuleContext& ctx, bool instance) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  size_t r = x->shape.size();
  int ca = norm_axis(analysis::ops::attr_int(ctx.infer, "channel_axis").value_or(1), r);
  auto given = analysis::ops::attr_int_list(ctx.infer, "axes");
  if (ca < 0 || !given) return ctx.refuse("this channel axis or axes");
  std::vector<bool> reduced(r, false);
  for (int64_t a : *given) {
    int d = norm_axis(a, r);
    if (d < 0 || d == ca) return ctx.refuse("an axis out of range");
    reduced[d] = true;
  }
  const PrimExpr* channels = x->shape[ca];
  const PrimExpr* groups =
      instance ? channels : b.i64(analysis::ops::attr_int(ctx.infer, "num_groups").value_or(1));
  const PrimExpr* per_group = b.floordiv(channels, groups);
  double eps = analysis::ops::attr_float(ctx.infer, "epsilon").value_or(1e-5);
  bool center = analysis::ops::attr_bool(ctx.infer, "center").value_or(true);
  bool scale = analysis::ops::attr_bool(ctx.infer, "scale").value_or(true);
  DataType t = x->dtype;
  DataType c = compute_dtype(t);
  Exprs stat_shape;
  for (size_t d = 0; d < r; ++d) {
    if (int(d) == ca)
      stat_shape.push_back(groups);
    else if (!reduced[d])
      stat_shape.push_back(x->shape[d]);
  }
  Exprs extents = stat_shape, red_dims{per_group};
  std::string kinds(stat_shape.size(), 'S');
  extents.push_back(per_group);
  kinds += 'R';
  for (size_t d = 0; d < r; ++d)
    if (reduced[d]) {
      extents.push_back(x->shape[d]);
      red_dims.push_back(x->shape[d]);
      kinds += 'R';
    }
  size_t spatial = stat_shape.size();
  auto input_index = [&](const Exprs& v) {
    Exprs in(r);
    size_t s = 0, k = spatial + 1;
    for (size_t d = 0; d < r; ++d) {
      if (int(d) == ca)
        in[d] = b.add(b.mul(v[s++], per_group), v[spatial]);
      else if (reduced[d])
        in[d] = v[k++];
      else
        in[d] = v[s++];
    }
    return in;
  };
  auto stat_index = [&](const Exprs& in) {
    Exprs idx;
    for (size_t d = 0; d < r; ++d) {
      if (int(d) == ca)
        idx.push_back(b.floordiv(in[d], per_group));
      else if (!reduced[d])
        idx.push_back(in[d]);
    }
    return idx;
  };
  const PrimExpr* count = b.cast(c, product(b, red_dims));
  auto load_x = [&](const Exprs& in) { return b.cast(c, b.load(x, in)); };
  const ir::Buffer* mean = ctx.alloc("T_mean", c, stat_shape);
  const ir::Buffer* var = ctx.alloc("T_var", c, stat_shape);
  auto reduction = [&](const std::string& name, const ir::Buffer* acc,
                       const std::function<const PrimExpr*(const Exprs&)>& element) {
    return b.stage(
        name, extents, kinds,
        [&](const Exprs& v) {
          Exprs out(v.begin(), v.begin() + spatial);
          return b.store(acc, b.add(b.load(acc, out), element(input_index(v))), out);
        },
        [&](const Exprs& v) {
          return b.store(acc, b.constant(c, 0), Exprs(v.begin(), v.begin() + spatial));
        });
  };
  auto mean_at = [&](const Exprs& in) { return b.div(b.load(mean, stat_index(in)), count); };
  std::vector<const ir::Stmt*> stages;
  stages.push_back(reduction("T_mean", mean, load_x));
  stages.push_back(reduction("T_var", var, [&](const Exprs& in) {
    const PrimExpr* d = b.sub(load_x(in), mean_at(in));
    return b.mul(d, d);
  }));
  const ir::Buffer* gamma = scale ? ctx.in(1) : nullptr;
  const ir::Buffer* beta = center ? ctx.in(2) : nullptr;
  stages.push_back(
      elementwise(ctx, instance ? "T_instance_norm" : "T_group_norm", [&](const Exprs& v) {
        const PrimExpr* inv = b.call(
            c, "tir.rsqrt", {b.add(b.div(b.load(var, stat_index(v)), count), b.float_imm(c, eps))});
        const PrimExpr* y = b.mul(b.sub(load_x(v), mean_at(v)), inv);
        if (gamma) y = b.mul(y, b.cast(c, b.load(gamma, {v[ca]})));
        if (beta) y = b.add(y, b.cast(c, b.load(beta, {v[ca]})));
        return b.cast(t, y);
      }));
  return b.seq(stages);
}
const ir::Stmt* group_norm_rule(RuleContext& c) { return grouped_norm_rule(c, false); }
const ir::Stmt* instance_norm_rule(RuleContext& c) { return grouped_norm_rule(c, true); }

// attention(query, key, value[, bias]) in BSNH: softmax(Q·Kᵀ·scale + bias, masked) · V per
// head, stable (row maximum first), in float32 for 16-bit floats. Query heads share key /
// value heads in groups (heads_q / heads_kv each). A causal mask keeps t <= s + offset, offset
// 0 (TopLeft) or seq_kv - seq_q (BottomRight); a window_size w keeps t > s + offset - w (the
// w most recent keys, sliding-window attention; TVM leaves it to its attention kernels);
// masked scores take the dtype's lowest value.
const ir::Stmt* attention_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* q = ctx.in(0);
  const ir::Buffer* k = ctx.in(1);
  const ir::Buffer* v = ctx.in(2);
  const ir::Buffer* bias = ctx.inputs.size() > 3 ? ctx.in(3) : nullptr;
  const ir::Buffer* o = ctx.out();
  if (q->shape.size() != 4 || k->shape.size() != 4 || v->shape.size() != 4)
    return ctx.refuse("operands that are not rank 4");
  std::optional<int64_t> window = analysis::ops::attr_int(ctx.infer, "window_size");
  if (window && *window < 1) return ctx.refuse("a window_size below 1");
  std::string mask = analysis::ops::attr_string(ctx.infer, "causal_mask").value_or("");
  if (!mask.empty() && mask != "TopLeft" && mask != "BottomRight")
    return ctx.refuse("causal_mask \"" + mask + "\"");
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  int64_t head_dim = 0;
  std::optional<double> scale = analysis::ops::attr_float(ctx.infer, "scale");
  const PrimExpr* scale_e = nullptr;
  if (scale)
    scale_e = b.float_imm(c, *scale);
  else if (literal(q->shape[3], &head_dim))
    scale_e = b.float_imm(c, 1.0 / std::sqrt(double(head_dim)));
  else
    scale_e = b.call(c, "tir.rsqrt", {b.cast(c, q->shape[3])});
  const PrimExpr *B = q->shape[0], *S = q->shape[1], *N = q->shape[2], *T = k->shape[1];
  const PrimExpr* group = b.floordiv(N, k->shape[2]);
  const ir::Buffer* scores = ctx.alloc("T_attention_scores", c, {B, N, S, T});
  const ir::Buffer* rmax = ctx.alloc("T_attention_max", c, {B, N, S});
  const ir::Buffer* exps = ctx.alloc("T_attention_exp", c, {B, N, S, T});
  const ir::Buffer* rsum = ctx.alloc("T_attention_sum", c, {B, N, S});
  std::vector<const ir::Stmt*> stages;
  // scores[b, n, s, t] = sum_h q[b, s, n, h] * k[b, t, n / group, h]
  stages.push_back(b.stage(
      "T_attention_scores", {B, N, S, T, q->shape[3]}, "SSSSR",
      [&](const Exprs& x) {
        Exprs out(x.begin(), x.begin() + 4);
        const PrimExpr* prod =
            b.mul(b.cast(c, b.load(q, {x[0], x[2], x[1], x[4]})),
                  b.cast(c, b.load(k, {x[0], x[3], b.floordiv(x[1], group), x[4]})));
        return b.store(scores, b.add(b.load(scores, out), prod), out);
      },
      [&](const Exprs& x) {
        return b.store(scores, b.constant(c, 0), Exprs(x.begin(), x.begin() + 4));
      }));
  // The logit of (b, n, s, t): scaled score plus bias, or the lowest value where masked.
  auto logit = [&](const Exprs& x) {
    const PrimExpr* val = b.mul(b.load(scores, {x[0], x[1], x[2], x[3]}), scale_e);
    if (bias) {
      Exprs bi = broadcast_indices(b, bias, {x[0], x[1], x[2], x[3]});
      val = b.add(val, b.cast(c, b.load(bias, bi)));
    }
    // The diagonal of query s is key s + offset; the causal mask drops the keys after it, a
    // window the keys window_size or more before it.
    const PrimExpr* diagonal = b.add(x[2], mask == "BottomRight" ? b.sub(T, S) : b.i64(0));
    const PrimExpr* keep = nullptr;
    if (!mask.empty()) keep = b.compare(ir::PrimKind::LE, x[3], diagonal);
    if (window) {
      const PrimExpr* near = b.compare(ir::PrimKind::GT, x[3], b.sub(diagonal, b.i64(*window)));
      keep = keep ? b.logical_and(keep, near) : near;
    }
    return keep ? b.select(keep, val, b.min_value(c)) : val;
  };
  stages.push_back(b.stage(
      "T_attention_max", {B, N, S, T}, "SSSR",
      [&](const Exprs& x) {
        Exprs out(x.begin(), x.begin() + 3);
        return b.store(rmax, b.max(b.load(rmax, out), logit(x)), out);
      },
      [&](const Exprs& x) {
        return b.store(rmax, b.min_value(c), Exprs(x.begin(), x.begin() + 3));
      }));
  stages.push_back(b.stage("T_attention_exp", {B, N, S, T}, "SSSS", [&](const Exprs& x) {
    const PrimExpr* e = b.call(c, "tir.exp", {b.sub(logit(x), b.load(rmax, {x[0], x[1], x[2]}))});
    return b.store(exps, e, x);
  }));
  stages.push_back(b.stage(
      "T_attention_sum", {B, N, S, T}, "SSSR",
      [&](const Exprs& x) {
        Exprs out(x.begin(), x.begin() + 3);
        return b.store(rsum, b.add(b.load(rsum, out), b.load(exps, x)), out);
      },
      [&](const Exprs& x) {
        return b.store(rsum, b.constant(c, 0), Exprs(x.begin(), x.begin() + 3));
      }));
  // out[b, s, n, h] = sum_t exp[b, n, s, t] * v[b, t, n / group, h] / sum[b, n, s]
  const ir::Buffer* acc = c == t ? o : ctx.alloc("T_attention_acc", c, o->shape);
  stages.push_back(b.stage(
      "T_attention", {B, S, N, o->shape[3], T}, "SSSSR",
      [&](const Exprs& x) {
        Exprs out(x.begin(), x.begin() + 4);
        const PrimExpr* p =
            b.div(b.load(exps, {x[0], x[2], x[1], x[4]}), b.load(rsum, {x[0], x[2], x[1]}));
        const PrimExpr* val = b.cast(c, b.load(v, {x[0], x[4], b.floordiv(x[2], group), x[3]}));
        return b.store(acc, b.add(b.load(acc, out), b.mul(p, val)), out);
      },
      [&](const Exprs& x) {
        return b.store(acc, b.constant(c, 0), Exprs(x.begin(), x.begin() + 4));
      }));
  if (acc != o)
    stages.push_back(
        elementwise(ctx, "T_cast", [&](const Exprs& x) { return b.cast(t, b.load(acc, x)); }));
  return b.seq(stages);
}

}  // namespace

void add_nn_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.matmul", "matmul", matmul_rule},
                        {"relax.linear", "linear", linear_rule},
                        {"relax.nn.attention", "attention", attention_rule},
                        {"relax.nn.attention_bias", "attention_bias", attention_rule},
                        {"relax.nn.layer_norm", "layer_norm", layer_norm_rule},
                        {"relax.nn.rms_norm", "rms_norm", rms_norm_rule},
                        {"relax.nn.group_norm", "group_norm", group_norm_rule},
                        {"relax.nn.instance_norm", "instance_norm", instance_norm_rule},
                    });
}

}  // namespace raxc::backend::legalize
