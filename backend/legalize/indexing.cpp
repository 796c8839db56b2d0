// Legalization of PyTorch's indexing helpers (operators.md §3.13): index_tensor is advanced
// indexing data[i0, i1, ...] (the index tensors broadcast together; the result is their
// broadcast shape followed by the axes not indexed), index_put writes (or, with `accumulate`,
// adds) values at those positions in order (serial loops: a repeated position sees the earlier
// writes, as torch's index_put_ on CPU), slice_scatter replaces the slice start:end:step of an
// axis by src. Negative indices count from the end of their axis, as in PyTorch.
#include <algorithm>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

const PrimExpr* wrap(Builder& b, const PrimExpr* i, const PrimExpr* extent) {
  i = b.cast(DataType::Int(64), i);
  return b.select(b.compare(PrimKind::LT, i, b.i64(0)), b.add(i, extent), i);
}

// The broadcast shape of the index tensors (right-aligned; a literal 1 stretches).
Exprs broadcast_shape(Builder& b, const std::vector<const ir::Buffer*>& indices) {
  size_t rank = 0;
  for (const ir::Buffer* i : indices) rank = std::max(rank, i->shape.size());
  Exprs shape(rank, b.i64(1));
  for (const ir::Buffer* i : indices)
    for (size_t d = 0; d < i->shape.size(); ++d) {
      int64_t one = 0;
      if (!(literal(i->shape[d], &one) && one == 1))
        shape[rank - i->shape.size() + d] = i->shape[d];
    }
  return shape;
}

// The data index addressed by the broadcast position `at` and the trailing indices `rest`.
Exprs data_index(Builder& b, const ir::Buffer* data, const std::vector<const ir::Buffer*>& indices,
                 const Exprs& at, const Exprs& rest) {
  Exprs idx;
  for (size_t j = 0; j < indices.size(); ++j)
    idx.push_back(
        wrap(b, b.load(indices[j], broadcast_indices(b, indices[j], at)), data->shape[j]));
  idx.insert(idx.end(), rest.begin(), rest.end());
  return idx;
}

const ir::Stmt* index_tensor_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  std::vector<const ir::Buffer*> indices(ctx.inputs.begin() + 1, ctx.inputs.end());
  const ir::Buffer* o = ctx.out();
  size_t k = indices.size();
  if (k == 0 || k > data->shape.size()) return ctx.refuse("this number of index tensors");
  for (const ir::Buffer* i : indices)
    if (!i->dtype.is_integer()) return ctx.refuse("index tensors that are not integers");
  size_t rest = data->shape.size() - k;
  if (o->shape.size() < rest) return ctx.refuse("this form of R.index_tensor");
  size_t lead = o->shape.size() - rest;
  return elementwise(ctx, "T_index_tensor", [&](const Exprs& v) {
    Exprs at(v.begin(), v.begin() + lead), tail(v.begin() + lead, v.end());
    return b.load(data, data_index(b, data, indices, at, tail));
  });
}

const ir::Stmt* index_put_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* data = ctx.in(0);
  std::vector<const ir::Buffer*> indices(ctx.inputs.begin() + 1, ctx.inputs.end() - 1);
  const ir::Buffer* values = ctx.inputs.back();
  const ir::Buffer* o = ctx.out();
  size_t k = indices.size();
  if (k == 0 || k > data->shape.size() || ctx.inputs.size() < 3)
    return ctx.refuse("this number of index tensors");
  for (const ir::Buffer* i : indices)
    if (!i->dtype.is_integer()) return ctx.refuse("index tensors that are not integers");
  bool accumulate = analysis::ops::attr_bool(ctx.infer, "accumulate").value_or(false);
  Exprs extents = broadcast_shape(b, indices);
  size_t lead = extents.size();
  extents.insert(extents.end(), data->shape.begin() + k, data->shape.end());
  if (values->shape.size() > extents.size()) return ctx.refuse("values of a higher rank");
  std::vector<const ir::Stmt*> stages{
      elementwise(ctx, "T_index_put_copy", [&](const Exprs& v) { return b.load(data, v); })};
  stages.push_back(b.loops("i", extents, [&](const Exprs& v) {
    Exprs at(v.begin(), v.begin() + lead), tail(v.begin() + lead, v.end());
    Exprs idx = data_index(b, data, indices, at, tail);
    const PrimExpr* value = b.cast(o->dtype, b.load(values, broadcast_indices(b, values, v)));
    if (accumulate) value = b.add(b.load(o, idx), value);
    return b.store(o, value, idx);
  }));
  return b.seq(stages);
}

// slice_scatter(input, src, start, end, step, axis): positions start, start + step, ... below
// end on `axis` take src's elements in order; the others keep input's. start and end count from
// the end when negative and are clamped to the axis.
const ir::Stmt* slice_scatter_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* src = ctx.in(1);
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), x->shape.size());
  if (axis < 0 || src->shape.size() != x->shape.size()) return ctx.refuse("an axis out of range");
  const PrimExpr* bound[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    const auto* pv =
        ctx.call.args.size() > i + 2 ? ir::dyn_cast<ir::PrimValue>(ctx.call.args[i + 2]) : nullptr;
    bound[i] = pv ? ctx.to_tir(pv->value) : nullptr;
  }
  if (!bound[0] || !bound[1]) return ctx.refuse("start or end that is not a scalar");
  const PrimExpr* step = bound[2] ? b.cast(DataType::Int(64), bound[2]) : b.i64(1);
  int64_t s = 0;
  if (!literal(step, &s) || s < 1) return ctx.refuse("a step that is not a positive literal");
  const PrimExpr* n = x->shape[axis];
  auto clamp = [&](const PrimExpr* e) {
    e = b.cast(DataType::Int(64), e);
    e = b.select(b.compare(PrimKind::LT, e, b.i64(0)), b.add(e, n), e);
    return b.min(b.max(e, b.i64(0)), n);
  };
  const PrimExpr* start = clamp(bound[0]);
  const PrimExpr* end = clamp(bound[1]);
  return elementwise(ctx, "T_slice_scatter", [&](const Exprs& v) {
    const PrimExpr* off = b.sub(v[axis], start);
    const PrimExpr* pos = b.floordiv(off, step);
    const PrimExpr* hit =
        b.logical_and(b.logical_and(b.compare(PrimKind::GE, off, b.i64(0)),
                                    b.compare(PrimKind::LT, v[axis], end)),
                      b.logical_and(b.compare(PrimKind::EQ, b.floormod(off, step), b.i64(0)),
                                    b.compare(PrimKind::LT, pos, src->shape[axis])));
    Exprs si = v;
    si[axis] = pos;
    return b.if_then_else(hit, b.load(src, si), b.load(x, v));
  });
}

}  // namespace

void add_indexing_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.index_tensor", "index_tensor", index_tensor_rule},
                        {"relax.index_put", "index_put", index_put_rule},
                        {"relax.slice_scatter", "slice_scatter", slice_scatter_rule},
                    });
}

}  // namespace raxc::backend::legalize
