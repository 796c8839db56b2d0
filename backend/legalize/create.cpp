// Legalization of the creation operators that take no tensor (eye, hamming_window) or build
// coordinate tensors (meshgrid), and of bucketize (operators.md §3.7, §3.13). eye puts ones
// where j - i == k; hamming_window is alpha - beta * cos(2 pi n / N), N the window size when
// periodic and the size less one when symmetric, a window of one point being [1] (PyTorch's
// definition, which TVM's topi follows); bucketize counts the boundaries below each element
// (`right`: at or below), torch.bucketize's index into sorted boundaries.
#include <numbers>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// The value of R.prim_value argument i, in the PrimFunc's variables; null when it is not one.
const PrimExpr* prim_arg(RuleContext& ctx, size_t i) {
  if (i >= ctx.call.args.size()) return nullptr;
  const auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[i]);
  return pv ? ctx.to_tir(pv->value) : nullptr;
}

const PrimExpr* truthy(Builder& b, const PrimExpr* x) {
  return x->dtype.is_bool() ? x : b.compare(PrimKind::NE, x, b.constant(x->dtype, 0));
}

// eye(n, m, k, dtype): ones on the k-th diagonal of the (n, m) result.
const ir::Stmt* eye_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  const PrimExpr* k = b.i64(0);
  if (ctx.call.args.size() > 2) {
    k = prim_arg(ctx, 2);
    if (!k) return ctx.refuse("a diagonal offset that is not a scalar");
    k = b.cast(DataType::Int(64), k);
  }
  return elementwise(ctx, "T_eye", [&](const Exprs& v) {
    return b.select(b.compare(PrimKind::EQ, b.sub(v[1], v[0]), k), b.constant(o->dtype, 1),
                    b.constant(o->dtype, 0));
  });
}

const ir::Stmt* hamming_window_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  const PrimExpr* periodic = prim_arg(ctx, 1);
  const PrimExpr* alpha = prim_arg(ctx, 2);
  const PrimExpr* beta = prim_arg(ctx, 3);
  if (!periodic || !alpha || !beta) return ctx.refuse("arguments that are not scalars");
  DataType c = DataType::Float(64);  // the cosine's argument in double, rounded once
  const PrimExpr* size = o->shape[0];
  const PrimExpr* n =
      b.select(truthy(b, periodic), b.cast(c, size), b.sub(b.cast(c, size), b.float_imm(c, 1)));
  return elementwise(ctx, "T_hamming_window", [&](const Exprs& v) {
    const PrimExpr* angle = b.div(b.mul(b.float_imm(c, 2 * std::numbers::pi), b.cast(c, v[0])), n);
    const PrimExpr* w =
        b.sub(b.cast(c, alpha), b.mul(b.cast(c, beta), b.call(c, "tir.cos", {angle})));
    return b.cast(o->dtype,
                  b.select(b.compare(PrimKind::EQ, size, b.i64(1)), b.float_imm(c, 1), w));
  });
}

// meshgrid((x0, x1, ...), indexing): output i takes x_i along its axis; "xy" swaps the first
// two axes of every output (numpy's Cartesian indexing), which the result's StructInfo allows
// only when the first two inputs have the same length.
const ir::Stmt* meshgrid_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  std::string indexing = analysis::ops::attr_string(ctx.infer, "indexing").value_or("ij");
  if (indexing != "ij" && indexing != "xy") return ctx.refuse("indexing \"" + indexing + "\"");
  size_t n = ctx.inputs.size();
  if (ctx.outputs.size() != n) return ctx.refuse("this form of R.meshgrid");
  if (indexing == "xy" && n >= 2) {
    // operators.md §3.13: the inferred StructInfo ignores "xy" (numpy swaps the first two axes),
    // so the swapped grid fits the result only when those two lengths are equal.
    int64_t a = 0, c = 0;
    const ir::Buffer* o = ctx.out(0);
    bool same = o->shape[0] == o->shape[1] ||
                (literal(o->shape[0], &a) && literal(o->shape[1], &c) && a == c);
    if (!same)
      return ctx.refuse(
          "indexing \"xy\" over inputs of different lengths (the inferred "
          "StructInfo keeps the \"ij\" shape, as TVM's does)");
  }
  std::vector<const ir::Stmt*> stages;
  for (size_t i = 0; i < n; ++i) {
    const ir::Buffer* o = ctx.out(i);
    size_t axis = i;
    if (indexing == "xy" && n >= 2 && i < 2) axis = 1 - i;
    stages.push_back(
        b.stage("T_meshgrid", o->shape, std::string(o->shape.size(), 'S'),
                [&](const Exprs& v) { return b.store(o, b.load(ctx.in(i), {v[axis]}), v); }));
  }
  return b.seq(stages);
}

// bucketize(input, boundaries, out_int32, right): the number of boundaries below (right: at or
// below) each element, summed over the sorted boundaries.
const ir::Stmt* bucketize_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* bounds = ctx.in(1);
  if (bounds->shape.size() != 1) return ctx.refuse("boundaries that are not 1-D");
  bool right = analysis::ops::attr_bool(ctx.infer, "right").value_or(false);
  size_t r = x->shape.size();
  return accumulate(ctx, "T_bucketize", {bounds->shape[0]}, [&](const Exprs& v, DataType acc) {
    Exprs at(v.begin(), v.begin() + r);
    const PrimExpr* bv = b.load(bounds, {v[r]});
    const PrimExpr* xv = b.load(x, at);
    if (bv->dtype != xv->dtype) bv = b.cast(xv->dtype, bv);
    return b.cast(acc, b.compare(right ? PrimKind::LE : PrimKind::LT, bv, xv));
  });
}

}  // namespace

void add_create_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.eye", "eye", eye_rule},
                        {"relax.hamming_window", "hamming_window", hamming_window_rule},
                        {"relax.meshgrid", "meshgrid", meshgrid_rule},
                        {"relax.bucketize", "bucketize", bucketize_rule},
                    });
}

}  // namespace raxc::backend::legalize
