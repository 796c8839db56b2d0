// Legalization of the gradient operators R.grad.* (operators.md §3.13), the backward passes
// TVM's autodiff emits, each the derivative of its forward operator as PyTorch's autograd
// computes it (the reference of the tests): checkpoints and no_grad are the identity at run
// time; take_backward adds each output gradient at the position it was taken from;
// nll_loss_backward is -weight[target] * output_grad at the target class (divided by the sum of
// the selected weights for "mean", zero at ignore_index); the 2-D pool backward passes walk the
// windows of the forward (NCHW, padding [top, left, bottom, right]) with serial loops: a max
// window sends its gradient to its first maximum inside the input, an average window spreads it
// over the positions the forward averaged.
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// start_checkpoint / end_checkpoint / no_grad: every tensor of the input copied to the result.
const ir::Stmt* identity_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  if (ctx.inputs.size() != ctx.outputs.size()) return ctx.refuse("this form of the operator");
  std::vector<const ir::Stmt*> stages;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const ir::Buffer* o = ctx.out(i);
    stages.push_back(b.stage("T_identity", o->shape, std::string(o->shape.size(), 'S'),
                             [&](const Exprs& v) { return b.store(o, b.load(ctx.in(i), v), v); }));
  }
  if (stages.empty()) return ctx.refuse("an input without tensors");
  return b.seq(stages);
}

const ir::Stmt* zero_output(RuleContext& ctx) {
  return elementwise(ctx, "T_zeros",
                     [&](const Exprs&) { return ctx.b.constant(ctx.out()->dtype, 0); });
}

// take_backward(output_grad, x, indices, axis): zeros like x, then output_grad[..., j..., ...]
// added at x[..., indices[j...], ...] (axis None: x flattened). Negative indices wrap.
const ir::Stmt* take_backward_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* og = ctx.in(0);
  const ir::Buffer* x = ctx.in(1);
  const ir::Buffer* indices = ctx.in(2);
  const ir::Buffer* o = ctx.out();
  std::optional<int64_t> given = analysis::ops::attr_int(ctx.infer, "axis");
  size_t r = x->shape.size(), k = indices->shape.size();
  int axis = given ? norm_axis(*given, r) : 0;
  if (axis < 0 || (!given && og->shape.size() != k) || (given && og->shape.size() != r - 1 + k))
    return ctx.refuse("this form of R.grad.take_backward");
  std::vector<const ir::Stmt*> stages{zero_output(ctx)};
  stages.push_back(b.loops("i", og->shape, [&](const Exprs& v) {
    Exprs j(v.begin() + axis, v.begin() + axis + k);
    const PrimExpr* pos = b.cast(DataType::Int(64), b.load(indices, j));
    const PrimExpr* extent = given ? x->shape[axis] : product(b, x->shape);
    pos = b.select(b.compare(PrimKind::LT, pos, b.i64(0)), b.add(pos, extent), pos);
    Exprs at;
    if (!given) {
      at = unflatten_index(b, x->shape, pos);
    } else {
      at.assign(v.begin(), v.begin() + axis);
      at.push_back(pos);
      at.insert(at.end(), v.begin() + axis + k, v.end());
    }
    return b.store(o, b.add(b.load(o, at), b.load(og, v)), at);
  }));
  return b.seq(stages);
}

// nll_loss_backward(output_grad, predictions, targets[, weights], reduction, ignore_index):
// predictions (C,), (N, C) or (N, C, d...); targets without the class axis; output_grad
// broadcasts against the targets (a scalar for "mean" / "sum"; TVM broadcasts it whatever the
// reduction, as its corpus programs write).
const ir::Stmt* nll_loss_backward_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* og = ctx.in(0);
  const ir::Buffer* pred = ctx.in(1);
  const ir::Buffer* target = ctx.in(2);
  const ir::Buffer* weights = ctx.inputs.size() > 3 ? ctx.in(3) : nullptr;
  const ir::Buffer* o = ctx.out();
  std::string reduction = analysis::ops::attr_string(ctx.infer, "reduction").value_or("mean");
  int64_t ignore = analysis::ops::attr_int(ctx.infer, "ignore_index").value_or(-100);
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return ctx.refuse("reduction \"" + reduction + "\"");
  size_t r = pred->shape.size();
  size_t ca = r == 1 ? 0 : 1;  // the class axis
  if (target->shape.size() + 1 != r || og->shape.size() > target->shape.size())
    return ctx.refuse("targets or an output gradient of this rank");
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  auto target_index = [&](const Exprs& v) {
    Exprs ti;
    for (size_t d = 0; d < r; ++d)
      if (d != ca) ti.push_back(v[d]);
    return ti;
  };
  // The weight of a target class, zero for ignore_index.
  auto weight_of = [&](const PrimExpr* cls) {
    const PrimExpr* w = weights ? b.cast(c, b.load(weights, {cls})) : b.float_imm(c, 1);
    return b.select(b.compare(PrimKind::EQ, cls, b.i64(ignore)), b.float_imm(c, 0), w);
  };
  std::vector<const ir::Stmt*> stages;
  const ir::Buffer* total = nullptr;
  if (reduction == "mean") {
    total = ctx.alloc("T_weight_sum", c, {});
    Exprs extents = target->shape;
    std::string kinds(extents.size(), 'R');
    if (extents.empty()) {
      stages.push_back(b.stage("T_weight_sum", {b.i64(1)}, "R", [&](const Exprs&) {
        return b.store(total, weight_of(b.cast(DataType::Int(64), b.load(target, {}))), {});
      }));
    } else {
      stages.push_back(b.stage(
          "T_weight_sum", extents, kinds,
          [&](const Exprs& v) {
            return b.store(
                total,
                b.add(b.load(total, {}), weight_of(b.cast(DataType::Int(64), b.load(target, v)))),
                {});
          },
          [&](const Exprs&) { return b.store(total, b.constant(c, 0), {}); }));
    }
  }
  stages.push_back(elementwise(ctx, "T_nll_loss_backward", [&](const Exprs& v) {
    Exprs ti = target_index(v);
    const PrimExpr* cls = b.cast(DataType::Int(64), b.load(target, ti));
    const PrimExpr* g = b.cast(c, b.load(og, broadcast_indices(b, og, ti)));
    if (total) g = b.div(g, b.load(total, {}));
    const PrimExpr* val = b.sub(b.float_imm(c, 0), b.mul(weight_of(cls), g));
    return b.cast(t, b.select(b.compare(PrimKind::EQ, v[ca], cls), val, b.float_imm(c, 0)));
  }));
  return b.seq(stages);
}

// The 2-D pool attributes of a backward pass: window, strides, dilation, padding [t, l, b, r].
struct Pool2d {
  int64_t size[2], stride[2], dilation[2], pad[4];
};

std::optional<Pool2d> pool2d(RuleContext& ctx) {
  auto get = [&](const char* name, size_t want,
                 int64_t dflt) -> std::optional<std::vector<int64_t>> {
    auto v = analysis::ops::attr_int_list(ctx.infer, name).value_or(std::vector<int64_t>{dflt});
    if (v.size() == 1) v.assign(want, v[0]);
    if (want == 4 && v.size() == 2) v = {v[0], v[1], v[0], v[1]};
    if (v.size() != want) return std::nullopt;
    return v;
  };
  auto size = get("pool_size", 2, 1), stride = get("strides", 2, 1), dil = get("dilation", 2, 1),
       pad = get("padding", 4, 0);
  if (!size || !stride || !dil || !pad) return std::nullopt;
  Pool2d p;
  for (int i = 0; i < 2; ++i) {
    p.size[i] = (*size)[i];
    p.stride[i] = (*stride)[i];
    p.dilation[i] = (*dil)[i];
  }
  for (int i = 0; i < 4; ++i) p.pad[i] = (*pad)[i];
  return p;
}

const ir::Stmt* pool_backward_rule(RuleContext& ctx, bool is_max) {
  Builder& b = ctx.b;
  const ir::Buffer* og = ctx.in(0);
  const ir::Buffer* x = ctx.in(1);
  const ir::Buffer* o = ctx.out();
  std::string layout = analysis::ops::attr_string(ctx.infer, "layout").value_or("NCHW");
  if (layout != "NCHW" || x->shape.size() != 4 || og->shape.size() != 4)
    return ctx.refuse("a layout other than NCHW");
  std::optional<Pool2d> p = pool2d(ctx);
  if (!p) return ctx.refuse("pool attributes of another length");
  bool include_pad = analysis::ops::attr_bool(ctx.infer, "count_include_pad").value_or(false);
  DataType t = o->dtype;
  DataType c = compute_dtype(t);
  const ir::Buffer* best = ctx.alloc("pool_best", t, {});
  const ir::Buffer* where = ctx.alloc("pool_argmax", DataType::Int(64), {});
  const ir::Buffer* count = ctx.alloc("pool_count", c, {});
  std::vector<const ir::Stmt*> stages{zero_output(ctx)};
  stages.push_back(b.loops("i", og->shape, [&](const Exprs& v) {
    auto pos = [&](const Exprs& k, int a) {
      return b.add(b.sub(b.mul(v[2 + a], b.i64(p->stride[a])), b.i64(p->pad[a])),
                   b.mul(k[a], b.i64(p->dilation[a])));
    };
    auto inside = [&](const Exprs& k, bool padded) {
      const PrimExpr* all = nullptr;
      for (int a = 0; a < 2; ++a) {
        const PrimExpr* lo = padded ? b.i64(-p->pad[a]) : b.i64(0);
        const PrimExpr* hi =
            padded ? b.add(x->shape[2 + a], b.i64(p->pad[2 + a])) : x->shape[2 + a];
        const PrimExpr* ok = b.logical_and(b.compare(PrimKind::GE, pos(k, a), lo),
                                           b.compare(PrimKind::LT, pos(k, a), hi));
        all = all ? b.logical_and(all, ok) : ok;
      }
      return all;
    };
    Exprs window{b.i64(p->size[0]), b.i64(p->size[1])};
    auto at = [&](const Exprs& k) { return Exprs{v[0], v[1], pos(k, 0), pos(k, 1)}; };
    const PrimExpr* g = b.load(og, v);
    if (is_max) {
      // The first maximum inside the input, in row-major window order (padding never wins).
      const ir::Stmt* scan = b.loops("k", window, [&](const Exprs& k) {
        const PrimExpr* xv = b.load(x, at(k));
        const PrimExpr* better = b.logical_or(b.compare(PrimKind::LT, b.load(where, {}), b.i64(0)),
                                              b.compare(PrimKind::GT, xv, b.load(best, {})));
        const PrimExpr* flat = b.add(b.mul(pos(k, 0), x->shape[3]), pos(k, 1));
        return b.when(inside(k, false),
                      b.when(better, b.seq({b.store(best, xv, {}), b.store(where, flat, {})})));
      });
      const PrimExpr* w = b.load(where, {});
      Exprs target{v[0], v[1], b.floordiv(w, x->shape[3]), b.floormod(w, x->shape[3])};
      return b.seq({b.store(where, b.i64(-1), {}), scan,
                    b.when(b.compare(PrimKind::GE, w, b.i64(0)),
                           b.store(o, b.add(b.load(o, target), g), target))});
    }
    const ir::Stmt* counting = b.loops("k", window, [&](const Exprs& k) {
      return b.store(count, b.add(b.load(count, {}), b.cast(c, inside(k, include_pad))), {});
    });
    const ir::Stmt* spread = b.loops("k", window, [&](const Exprs& k) {
      const PrimExpr* share = b.div(b.cast(c, g), b.max(b.load(count, {}), b.float_imm(c, 1)));
      return b.when(inside(k, false),
                    b.store(o, b.cast(t, b.add(b.cast(c, b.load(o, at(k))), share)), at(k)));
    });
    return b.seq({b.store(count, b.constant(c, 0), {}), counting, spread});
  }));
  return b.seq(stages);
}
const ir::Stmt* max_pool2d_backward_rule(RuleContext& c) { return pool_backward_rule(c, true); }
const ir::Stmt* avg_pool2d_backward_rule(RuleContext& c) { return pool_backward_rule(c, false); }

}  // namespace

void add_grad_rules(std::vector<Rule>& t) {
  t.insert(t.end(),
           {
               {"relax.grad.start_checkpoint", "start_checkpoint", identity_rule},
               {"relax.grad.end_checkpoint", "end_checkpoint", identity_rule},
               {"relax.grad.no_grad", "no_grad", identity_rule},
               {"relax.grad.take_backward", "take_backward", take_backward_rule},
               {"relax.grad.nll_loss_backward", "nll_loss_backward", nll_loss_backward_rule},
               {"relax.grad.max_pool2d_backward", "max_pool2d_backward", max_pool2d_backward_rule},
               {"relax.grad.avg_pool2d_backward", "avg_pool2d_backward", avg_pool2d_backward_rule},
           });
}

}  // namespace raxc::backend::legalize
