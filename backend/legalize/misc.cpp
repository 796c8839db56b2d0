// Legalization of quantize / dequantize (operators.md §3.13) and of the collective operators
// over a group of one. quantize computes round(x / scale) + zero_point in float32 (round half
// to even, TVM's tir.round), clamps to the range of out_dtype and casts; dequantize computes
// (q - zero_point) * scale in float32. scale and zero_point are scalars (rank 0 or one
// element) or one value per index of `axis`. A collective over a single worker is the
// identity: allreduce of one tensor is that tensor, allgather / scatter_from_worker0 over
// num_workers = 1 keep the shape, broadcast_from_worker0 copies (the single-device meaning of
// the issue's §1); another num_workers needs several devices and is refused.
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;

namespace {

// scale[...] / zero_point[...] at output index v: a scalar or per-axis parameter.
const PrimExpr* parameter(Builder& b, const ir::Buffer* p, const Exprs& v, int axis) {
  if (p->shape.empty()) return b.load(p, {});
  int64_t n = 0;
  if (p->shape.size() == 1 && literal(p->shape[0], &n) && n == 1) return b.load(p, {b.i64(0)});
  return b.load(p, {v[axis]});
}

const ir::Stmt* qdq_rule(RuleContext& ctx, bool quantize) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* scale = ctx.in(1);
  const ir::Buffer* zp = ctx.in(2);
  const ir::Buffer* o = ctx.out();
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), x->shape.size());
  bool per_axis = scale->shape.size() == 1 || zp->shape.size() == 1;
  if (axis < 0 && per_axis && !x->shape.empty()) return ctx.refuse("an axis out of range");
  if (scale->shape.size() > 1 || zp->shape.size() > 1)
    return ctx.refuse("scale or zero_point of rank above 1");
  DataType f = DataType::Float(32);
  return elementwise(ctx, quantize ? "quantized" : "dequantized", [&](const Exprs& v) {
    const PrimExpr* s = b.cast(f, parameter(b, scale, v, axis));
    const PrimExpr* z = b.cast(f, parameter(b, zp, v, axis));
    const PrimExpr* xv = b.cast(f, b.load(x, v));
    if (!quantize) return b.cast(o->dtype, b.mul(b.sub(xv, z), s));
    const PrimExpr* q = b.add(b.call(f, "tir.round", {b.div(xv, s)}), z);
    q = b.min(b.max(q, b.cast(f, b.min_value(o->dtype))), b.cast(f, b.max_value(o->dtype)));
    return b.cast(o->dtype, q);
  });
}
const ir::Stmt* quantize_rule(RuleContext& c) { return qdq_rule(c, true); }
const ir::Stmt* dequantize_rule(RuleContext& c) { return qdq_rule(c, false); }

const ir::Stmt* single_worker_rule(RuleContext& ctx) {
  std::optional<int64_t> workers = analysis::ops::attr_int(ctx.infer, "num_workers");
  if (workers && *workers != 1)
    return ctx.refuse("num_workers = " + std::to_string(*workers) +
                      ": one CPU is a group of one worker");
  std::string op = analysis::ops::attr_string(ctx.infer, "op_type").value_or("sum");
  if (op != "sum" && op != "prod" && op != "min" && op != "max" && op != "avg")
    return ctx.refuse("op_type \"" + op + "\"");
  return elementwise(ctx, "T_identity", [&](const Exprs& v) { return ctx.b.load(ctx.in(0), v); });
}

}  // namespace

void add_misc_rules(std::vector<Rule>& t) {
  t.insert(t.end(),
           {
               {"relax.quantize", "quantize", quantize_rule},
               {"relax.dequantize", "dequantize", dequantize_rule},
               {"relax.ccl.allreduce", "allreduce", single_worker_rule},
               {"relax.ccl.allgather", "allgather", single_worker_rule},
               {"relax.ccl.broadcast_from_worker0", "broadcast_from_worker0", single_worker_rule},
               {"relax.ccl.scatter_from_worker0", "scatter_from_worker0", single_worker_rule},
           });
}

}  // namespace raxc::backend::legalize
