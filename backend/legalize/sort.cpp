// Legalization of sort, argsort and topk (operators.md §3.12): per row along the axis, the
// values and their original positions are copied into scratch rows and ordered by a stable
// exchange sort (ties keep their input order, as numpy's stable sort and TVM's), then copied
// out (topk: the first k). Quadratic in the row length: a first landing that runs and gives
// the reference's answers, not a fast sort.
#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

struct SortSpec {
  int axis = -1;
  bool descending = false;
  int64_t k = -1;                       // topk: how many to keep; -1 all
  bool median = false;                  // keep the element at (n - 1) // 2 (the lower median)
  bool flat = false;                    // median over every element (axis None)
  bool keepdims = false;                // median: the reduced axes stay as 1
  const ir::Buffer* values = nullptr;   // output of the sorted values, or null
  const ir::Buffer* indices = nullptr;  // output of the positions, or null
};

const ir::Stmt* sort_rows(RuleContext& ctx, const SortSpec& s) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  size_t r = x->shape.size();
  const PrimExpr* n = s.flat ? product(b, x->shape) : x->shape[s.axis];
  // One scratch row per call (reused row after row).
  const ir::Buffer* val = ctx.alloc("sort_values", x->dtype, {n});
  const ir::Buffer* pos = ctx.alloc("sort_indices", DataType::Int(64), {n});
  std::vector<const ir::PrimVar*> outer;
  Exprs idx(r);
  for (size_t d = 0; d < r; ++d) {
    if (int(d) == s.axis || s.flat) continue;
    const ir::PrimVar* v = b.var("ax" + std::to_string(d));
    outer.push_back(v);
    idx[d] = v;
  }
  auto at = [&](const PrimExpr* e) {
    if (s.flat) return unflatten_index(b, x->shape, e);
    Exprs i = idx;
    i[s.axis] = e;
    return i;
  };
  // Where a median goes: the outer index without the axis (keepdims: 0 there).
  auto median_at = [&]() {
    Exprs i;
    for (size_t d = 0; d < r; ++d) {
      bool reduced = s.flat || int(d) == s.axis;
      if (!reduced)
        i.push_back(idx[d]);
      else if (s.keepdims)
        i.push_back(b.i64(0));
    }
    return i;
  };
  const ir::PrimVar* c = b.var("i");
  const ir::Stmt* copy_in =
      b.loop(c, n, b.seq({b.store(val, b.load(x, at(c)), {c}), b.store(pos, c, {c})}));
  // for p in range(n): for q in range(n - 1 - p): if out of order: swap q and q + 1.
  const ir::PrimVar* p = b.var("p");
  const ir::PrimVar* q = b.var("q");
  const PrimExpr* q1 = b.add(q, b.i64(1));
  const PrimExpr* later = b.load(val, {q1});
  const PrimExpr* earlier = b.load(val, {q});
  const PrimExpr* wrong = b.compare(s.descending ? PrimKind::LT : PrimKind::GT, earlier, later);
  const ir::PrimVar* tv = b.var("tv", x->dtype);
  const ir::PrimVar* ti = b.var("ti");
  const ir::Stmt* swap = b.arena().make<ir::LetStmt>(
      tv, earlier,
      b.arena().make<ir::LetStmt>(
          ti, b.load(pos, {q}),
          b.seq({b.store(val, later, {q}), b.store(pos, b.load(pos, {q1}), {q}),
                 b.store(val, tv, {q1}), b.store(pos, ti, {q1})})));
  const ir::Stmt* pass = b.loop(p, n,
                                b.loop(q, b.sub(b.sub(n, b.i64(1)), p),
                                       b.arena().make<ir::IfThenElse>(wrong, swap, nullptr)));
  const ir::PrimVar* o = b.var("j");
  const PrimExpr* keep = s.k >= 0 ? b.min(b.i64(s.k), n) : n;
  std::vector<const ir::Stmt*> outs;
  const PrimExpr* from = o;
  Exprs to = at(o);
  if (s.median) {
    from = b.floordiv(b.sub(n, b.i64(1)), b.i64(2));
    to = median_at();
  }
  if (s.values) outs.push_back(b.store(s.values, b.load(val, {from}), to));
  if (s.indices)
    outs.push_back(b.store(s.indices, b.cast(s.indices->dtype, b.load(pos, {from})), to));
  const ir::Stmt* copy_out = s.median ? b.seq(outs) : b.loop(o, keep, b.seq(outs));
  const ir::Stmt* row = b.seq({copy_in, pass, copy_out});
  for (size_t i = outer.size(); i-- > 0;) {
    size_t d = 0;
    for (size_t k = 0, seen = 0; k < r; ++k) {
      if (int(k) == s.axis || s.flat) continue;
      if (seen++ == i) d = k;
    }
    row = b.loop(outer[i], x->shape[d], row);
  }
  return row;
}

const ir::Stmt* sort_rule(RuleContext& ctx) {
  SortSpec s;
  s.axis =
      norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), ctx.in(0)->shape.size());
  if (s.axis < 0) return ctx.refuse("an axis out of range");
  s.descending = analysis::ops::attr_bool(ctx.infer, "descending").value_or(false);
  s.values = ctx.out();
  return sort_rows(ctx, s);
}

const ir::Stmt* argsort_rule(RuleContext& ctx) {
  SortSpec s;
  s.axis =
      norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), ctx.in(0)->shape.size());
  if (s.axis < 0) return ctx.refuse("an axis out of range");
  s.descending = analysis::ops::attr_bool(ctx.infer, "descending").value_or(false);
  s.indices = ctx.out();
  return sort_rows(ctx, s);
}

// topk: ret_type "both" gives (values, indices), "values" / "indices" one of them.
const ir::Stmt* topk_rule(RuleContext& ctx) {
  SortSpec s;
  s.axis =
      norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), ctx.in(0)->shape.size());
  if (s.axis < 0) return ctx.refuse("an axis out of range");
  s.descending = analysis::ops::attr_bool(ctx.infer, "largest").value_or(true);
  s.k = analysis::ops::attr_int(ctx.infer, "k").value_or(1);
  if (s.k < 1) return ctx.refuse("k below 1 (all elements)");
  std::string ret = analysis::ops::attr_string(ctx.infer, "ret_type").value_or("both");
  if (ret == "both") {
    if (ctx.outputs.size() != 2) return ctx.refuse("this result");
    s.values = ctx.out(0);
    s.indices = ctx.out(1);
  } else if (ret == "values") {
    s.values = ctx.out();
  } else {
    s.indices = ctx.out();
  }
  return sort_rows(ctx, s);
}

// median(x, axis, keepdims): the lower median (sorted position (n - 1) // 2, torch.median);
// one axis gives (values, indices), no axis the median of every element. An empty row has no
// median: its output element is left as allocated.
const ir::Stmt* median_rule(RuleContext& ctx) {
  SortSpec s;
  s.median = true;
  s.keepdims = analysis::ops::attr_bool(ctx.infer, "keepdims").value_or(false);
  auto axes = analysis::ops::attr_int_list(ctx.infer, "axis");
  size_t r = ctx.in(0)->shape.size();
  if (axes && axes->size() > 1) return ctx.refuse("several axes");
  if (axes && !axes->empty()) {
    s.axis = norm_axis((*axes)[0], r);
    if (s.axis < 0) return ctx.refuse("an axis out of range");
    if (ctx.outputs.size() != 2) return ctx.refuse("this result");
    s.values = ctx.out(0);
    s.indices = ctx.out(1);
  } else {
    s.flat = true;
    s.axis = 0;
    s.values = ctx.out();
  }
  if (r == 0) {
    s.flat = true;
    s.axis = 0;
  }
  const ir::Stmt* body = sort_rows(ctx, s);
  // An empty row: nothing to pick (numpy gives NaN); the guard keeps the load in bounds.
  const PrimExpr* n = s.flat ? product(ctx.b, ctx.in(0)->shape) : ctx.in(0)->shape[s.axis];
  int64_t len = 0;
  if (literal(n, &len) && len > 0) return body;
  return ctx.b.when(ctx.b.compare(PrimKind::GT, n, ctx.b.i64(0)), body);
}

}  // namespace

void add_sort_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.sort", "sort", sort_rule},
                        {"relax.argsort", "argsort", argsort_rule},
                        {"relax.topk", "topk", topk_rule},
                        {"relax.median", "median", median_rule},
                    });
}

}  // namespace raxc::backend::legalize
