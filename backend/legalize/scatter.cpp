// Legalization of the scatter family, scans and reverse_sequence (operators.md §3.5, §3.9,
// §3.13). A scatter copies `data` into the output, then walks the updates in order with serial
// loops (later updates of one position see the earlier ones, as ONNX ScatterElements /
// ScatterND define it) and combines each with the element it addresses. A scan carries the
// running value along its axis in a serial loop (linear, not the quadratic prefix sum).
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// An index into an extent with negative values counting from the end.
const PrimExpr* wrap_negative(Builder& b, const PrimExpr* i, const PrimExpr* extent) {
  i = b.cast(DataType::Int(64), i);
  return b.select(b.compare(PrimKind::LT, i, b.i64(0)), b.add(i, extent), i);
}

// The combination of the old element and an update for a scatter's `reduction`; null when
// unknown. "mean" sums here and divides afterwards.
const PrimExpr* combine(Builder& b, const std::string& reduction, const PrimExpr* old,
                        const PrimExpr* update) {
  if (reduction == "update") return update;
  if (reduction == "add" || reduction == "mean") return b.add(old, update);
  if (reduction == "mul") return b.mul(old, update);
  if (reduction == "max") return b.max(old, update);
  if (reduction == "min") return b.min(old, update);
  return nullptr;
}

const ir::Stmt* copy_data(RuleContext& ctx) {
  return elementwise(ctx, "T_scatter_copy",
                     [&](const Exprs& v) { return ctx.b.load(ctx.in(0), v); });
}

// For reduction "mean": the output divided by one plus the number of updates each position got
// (the data element counts once, as torch.scatter_reduce with include_self).
const ir::Stmt* mean_stage(RuleContext& ctx, const ir::Buffer* count) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  DataType c = compute_dtype(o->dtype);
  return b.stage("T_scatter_mean", o->shape, std::string(o->shape.size(), 'S'),
                 [&](const Exprs& v) {
                   const PrimExpr* n = b.cast(c, b.add(b.load(count, v), b.i64(1)));
                   return b.store(o, b.cast(o->dtype, b.div(b.cast(c, b.load(o, v)), n)), v);
                 });
}

// scatter_elements(data, indices, updates, axis, reduction): out[i with i[axis] =
// indices[i]] = f(old, updates[i]) for every position i of indices.
const ir::Stmt* scatter_elements_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* indices = ctx.in(1);
  const ir::Buffer* updates = ctx.in(2);
  const ir::Buffer* o = ctx.out();
  std::string reduction = analysis::ops::attr_string(ctx.infer, "reduction").value_or("update");
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), o->shape.size());
  if (axis < 0 || indices->shape.size() != o->shape.size())
    return ctx.refuse("an axis out of range");
  bool mean = reduction == "mean";
  const ir::Buffer* count =
      mean ? ctx.alloc("scatter_count", DataType::Int(64), o->shape) : nullptr;
  std::vector<const ir::Stmt*> stages{copy_data(ctx)};
  if (count)
    stages.push_back(b.stage("T_scatter_count", o->shape, std::string(o->shape.size(), 'S'),
                             [&](const Exprs& v) { return b.store(count, b.i64(0), v); }));
  bool ok = true;
  stages.push_back(b.loops("i", indices->shape, [&](const Exprs& i) -> const ir::Stmt* {
    Exprs at = i;
    at[axis] = wrap_negative(b, b.load(indices, i), o->shape[axis]);
    const PrimExpr* value = combine(b, reduction, b.load(o, at), b.load(updates, i));
    if (!value) {
      ok = false;
      return b.store(o, b.load(o, at), at);
    }
    const ir::Stmt* s = b.store(o, value, at);
    if (count) s = b.seq({s, b.store(count, b.add(b.load(count, at), b.i64(1)), at)});
    return s;
  }));
  if (!ok) return ctx.refuse("reduction \"" + reduction + "\"");
  if (count) stages.push_back(mean_stage(ctx, count));
  return b.seq(stages);
}

// scatter_nd(data, indices, updates, reduction): indices (..., M) address the first M axes;
// updates have indices' leading shape followed by data's trailing axes.
const ir::Stmt* scatter_nd_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* indices = ctx.in(1);
  const ir::Buffer* updates = ctx.in(2);
  const ir::Buffer* o = ctx.out();
  std::string reduction = analysis::ops::attr_string(ctx.infer, "reduction").value_or("update");
  int64_t m = 0;
  if (indices->shape.empty() || !literal(indices->shape.back(), &m) || m < 1 ||
      m > int64_t(o->shape.size()))
    return ctx.refuse("a symbolic or out-of-range index depth");
  if (reduction == "mean" || !combine(b, reduction, b.i64(0), b.i64(0)))
    return ctx.refuse("reduction \"" + reduction + "\"");
  size_t lead = indices->shape.size() - 1;
  return b.seq({copy_data(ctx), b.loops("i", updates->shape, [&](const Exprs& i) {
                  Exprs at;
                  for (int64_t j = 0; j < m; ++j) {
                    Exprs ii(i.begin(), i.begin() + lead);
                    ii.push_back(b.i64(j));
                    at.push_back(wrap_negative(b, b.load(indices, ii), o->shape[j]));
                  }
                  at.insert(at.end(), i.begin() + lead, i.end());
                  return b.store(o, combine(b, reduction, b.load(o, at), b.load(updates, i)), at);
                })});
}

// reverse_sequence(data, seq_lengths, seq_axis, batch_axis): along seq_axis, the first
// seq_lengths[b] elements of batch b reversed, the rest kept (ONNX ReverseSequence).
const ir::Stmt* reverse_sequence_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* lengths = ctx.in(1);
  size_t r = x->shape.size();
  int seq = norm_axis(analysis::ops::attr_int(ctx.infer, "seq_axis").value_or(1), r);
  int batch = norm_axis(analysis::ops::attr_int(ctx.infer, "batch_axis").value_or(0), r);
  if (seq < 0 || batch < 0 || seq == batch) return ctx.refuse("these axes");
  return elementwise(ctx, "T_reverse_sequence", [&](const Exprs& v) {
    const PrimExpr* n = b.cast(DataType::Int(64), b.load(lengths, {v[batch]}));
    n = b.min(b.max(n, b.i64(0)), x->shape[seq]);
    Exprs idx = v;
    idx[seq] =
        b.select(b.compare(PrimKind::LT, v[seq], n), b.sub(b.sub(n, b.i64(1)), v[seq]), v[seq]);
    return b.load(x, idx);
  });
}

// cumsum / cumprod(data, axis, dtype, exclusive): a running sum (product) along the axis, in
// the result dtype (the input is cast first, as TVM's topi does); axis None scans the
// flattened input.
const ir::Stmt* scan_rule(RuleContext& ctx, bool product) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  bool exclusive = analysis::ops::attr_bool(ctx.infer, "exclusive").value_or(false);
  std::optional<int64_t> given = analysis::ops::attr_int(ctx.infer, "axis");
  DataType t = o->dtype;
  const PrimExpr* identity = b.constant(t, product ? 1 : 0);
  auto op = [&](const PrimExpr* a, const PrimExpr* c) {
    return product ? b.mul(a, c) : b.add(a, c);
  };
  // The input element at output index `idx` (flattened: through the row-major position).
  std::function<const PrimExpr*(const Exprs&)> input;
  int axis = 0;
  if (!given) {
    if (o->shape.size() != 1) return ctx.refuse("a flattened scan whose result is not 1-D");
    input = [&](const Exprs& idx) {
      return b.cast(t, b.load(x, unflatten_index(b, x->shape, idx[0])));
    };
  } else {
    axis = norm_axis(*given, x->shape.size());
    if (axis < 0) return ctx.refuse("an axis out of range");
    input = [&](const Exprs& idx) { return b.cast(t, b.load(x, idx)); };
  }
  Exprs outer = o->shape;
  const PrimExpr* n = outer[axis];
  outer[axis] = b.i64(1);
  return b.loops("ax", outer, [&](const Exprs& v) {
    const ir::PrimVar* k = b.var("k");
    Exprs at = v;
    at[axis] = k;
    // The running value lives in the output: out[k] = out[k - 1] op x[k] (exclusive: x[k - 1]).
    Exprs prev = v;
    prev[axis] = b.sub(k, b.i64(1));
    const PrimExpr* first = exclusive ? identity : input(at);
    const PrimExpr* next =
        exclusive ? op(b.load(o, prev), input(prev)) : op(b.load(o, prev), input(at));
    return b.loop(k, n,
                  b.arena().make<ir::IfThenElse>(b.compare(PrimKind::EQ, k, b.i64(0)),
                                                 b.store(o, first, at), b.store(o, next, at)));
  });
}
const ir::Stmt* cumsum_rule(RuleContext& c) { return scan_rule(c, false); }
const ir::Stmt* cumprod_rule(RuleContext& c) { return scan_rule(c, true); }

}  // namespace

void add_scatter_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.scatter_elements", "scatter_elements", scatter_elements_rule},
                        {"relax.scatter_nd", "scatter_nd", scatter_nd_rule},
                        {"relax.reverse_sequence", "reverse_sequence", reverse_sequence_rule},
                        {"relax.cumsum", "cumsum", cumsum_rule},
                        {"relax.cumprod", "cumprod", cumprod_rule},
                    });
}

}  // namespace raxc::backend::legalize
