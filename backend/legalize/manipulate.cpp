// Legalization of shape manipulation, indexing and creation (operators.md §3.3, §3.5, §3.6):
// every output element reads the input element it comes from. reshape and its relatives
// (expand_dims, squeeze, flatten) go through the row-major flat position, as TVM's topi
// reshape does; concat picks its source with T.if_then_else so no out-of-range element is
// loaded; split and concat take their offsets from the (known) section extents.
#include <algorithm>
#include <optional>

#include "backend/legalize/rules.h"
#include "frontend/ir/equal.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

// The row-major flat position of `idx` in `shape`, and back (rules.h).
const PrimExpr* flatten_index(Builder& b, const Exprs& shape, const Exprs& idx) {
  const PrimExpr* f = b.i64(0);
  for (size_t d = 0; d < shape.size(); ++d) f = b.add(b.mul(f, shape[d]), idx[d]);
  return f;
}

Exprs unflatten_index(Builder& b, const Exprs& shape, const PrimExpr* flat) {
  Exprs idx(shape.size());
  const PrimExpr* stride = b.i64(1);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = b.floormod(b.floordiv(flat, stride), shape[d]);
    stride = b.mul(stride, shape[d]);
  }
  return idx;
}

namespace {

std::optional<int64_t> constant_of(const PrimExpr* e) {
  if (const auto* c = ir::dyn_cast<ir::IntImm>(e)) return c->value;
  return std::nullopt;
}

// The input index of a reshape from `from` to `to` at output index `v`, group by group: the
// shapes split into runs of axes of equal size — an axis the same on both sides (n and n), or
// constant axes whose products agree (768 and 12 × 64) — and only a run's own indices are
// flattened and split again. So (8, n, 768) → (8, n, 12, 64) reads x[v0, v1, v2 * 64 + v3],
// which vectorizes, where the flat position of the whole tensor needs a division and a
// remainder by n per element. Nullopt when the shapes do not split so.
std::optional<Exprs> grouped_reshape_index(Builder& b, const Exprs& from, const Exprs& to,
                                           const Exprs& v) {
  Exprs in(from.size(), nullptr);
  size_t i = 0, j = 0;
  auto is_one = [](const PrimExpr* e) { return constant_of(e) == int64_t(1); };
  while (i < from.size() || j < to.size()) {
    if (i < from.size() && is_one(from[i])) {  // an axis of extent 1 is always index 0
      in[i++] = b.i64(0);
      continue;
    }
    if (j < to.size() && is_one(to[j])) {
      ++j;
      continue;
    }
    if (i == from.size() || j == to.size()) return std::nullopt;
    if (ir::structural_equal(from[i], to[j])) {
      in[i++] = v[j++];
      continue;
    }
    // Constant axes on both sides until their products agree.
    size_t i0 = i, j0 = j;
    std::optional<int64_t> px = constant_of(from[i++]), py = constant_of(to[j++]);
    while (px && py && *px != *py && *px > 0 && *py > 0) {
      if (*px < *py) {
        if (i == from.size()) return std::nullopt;
        auto c = constant_of(from[i++]);
        px = c ? std::optional<int64_t>(*px * *c) : std::nullopt;
      } else {
        if (j == to.size()) return std::nullopt;
        auto c = constant_of(to[j++]);
        py = c ? std::optional<int64_t>(*py * *c) : std::nullopt;
      }
    }
    if (!px || !py || *px != *py) return std::nullopt;
    Exprs to_run(to.begin() + j0, to.begin() + j), at(v.begin() + j0, v.begin() + j);
    const PrimExpr* flat = flatten_index(b, to_run, at);
    if (i - i0 == 1) {
      in[i0] = flat;
    } else {
      // The run's flat position is below its size: the outermost axis needs no remainder.
      const PrimExpr* inner = b.i64(1);
      for (size_t k = i; k-- > i0 + 1;) {
        in[k] = b.floormod(b.floordiv(flat, inner), from[k]);
        inner = b.mul(inner, from[k]);
      }
      in[i0] = b.floordiv(flat, inner);
    }
  }
  return in;
}

// reshape, expand_dims, squeeze, flatten: the same element order, another shape.
const ir::Stmt* reshape_rule(RuleContext& ctx) {
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  return elementwise(ctx, "T_reshape", [&](const Exprs& v) {
    std::optional<Exprs> in = grouped_reshape_index(ctx.b, x->shape, o->shape, v);
    if (!in) in = unflatten_index(ctx.b, x->shape, flatten_index(ctx.b, o->shape, v));
    return ctx.b.load(x, *in);
  });
}

const ir::Stmt* permute_dims_rule(RuleContext& ctx) {
  const ir::Buffer* x = ctx.in(0);
  size_t n = x->shape.size();
  std::vector<int> axes;
  if (auto given = analysis::ops::attr_int_list(ctx.infer, "axes")) {
    for (int64_t a : *given) axes.push_back(norm_axis(a, n));
  } else {
    for (size_t d = n; d-- > 0;) axes.push_back(int(d));
  }
  if (axes.size() != n) return ctx.refuse("axes that are not a permutation");
  for (int a : axes)
    if (a < 0) return ctx.refuse("an axis out of range");
  return elementwise(ctx, "T_transpose", [&](const Exprs& v) {
    Exprs in(n);
    for (size_t i = 0; i < n; ++i) in[axes[i]] = v[i];
    return ctx.b.load(x, in);
  });
}

const ir::Stmt* broadcast_to_rule(RuleContext& ctx) {
  return elementwise(ctx, "T_broadcast_to", [&](const Exprs& v) {
    return ctx.b.load(ctx.in(0), broadcast_indices(ctx.b, ctx.in(0), v));
  });
}

// The value of input i where cond(i) first holds, trying 0, 1, ...; the last input is the
// fallback (T.if_then_else: only the chosen input is read, no index past another's end).
const PrimExpr* choose(RuleContext& ctx, const std::function<const PrimExpr*(size_t)>& cond,
                       const std::function<const PrimExpr*(size_t)>& load) {
  const PrimExpr* value = nullptr;
  for (size_t i = ctx.inputs.size(); i-- > 0;)
    value = value ? ctx.b.if_then_else(cond(i), load(i), value) : load(i);
  return value;
}

const ir::Stmt* concat_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), o->shape.size());
  if (axis < 0 || ctx.inputs.empty()) return ctx.refuse("this form of R.concat");
  return elementwise(ctx, "T_concat", [&](const Exprs& v) {
    // Offsets of each input along the axis; the last input is the fallback.
    std::vector<const PrimExpr*> offsets{b.i64(0)};
    for (const ir::Buffer* in : ctx.inputs)
      offsets.push_back(b.add(offsets.back(), in->shape[axis]));
    return choose(
        ctx, [&](size_t i) { return b.compare(PrimKind::LT, v[axis], offsets[i + 1]); },
        [&](size_t i) {
          Exprs idx = v;
          idx[axis] = b.sub(v[axis], offsets[i]);
          return b.load(ctx.inputs[i], idx);
        });
  });
}

// split: output k reads the input at its own offset along the axis.
const ir::Stmt* split_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), x->shape.size());
  if (axis < 0) return ctx.refuse("an axis out of range");
  std::vector<const ir::Stmt*> stages;
  const PrimExpr* offset = b.i64(0);
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    const ir::Buffer* o = ctx.outputs[k];
    stages.push_back(b.stage("T_split_sections" + (k ? "_" + std::to_string(k) : ""), o->shape,
                             std::string(o->shape.size(), 'S'), [&](const Exprs& v) {
                               Exprs idx = v;
                               idx[axis] = b.add(v[axis], offset);
                               return b.store(o, b.load(x, idx), v);
                             }));
    offset = b.add(offset, o->shape[axis]);
  }
  return b.seq(stages);
}

// take(x, indices, axis, mode): mode "fast" trusts the indices, "clip" clamps them, "wrap"
// takes them modulo the extent (negative indices count from the end).
const ir::Stmt* take_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* indices = ctx.in(1);
  std::optional<int64_t> given = analysis::ops::attr_int(ctx.infer, "axis");
  std::string mode = analysis::ops::attr_string(ctx.infer, "mode").value_or("fast");
  size_t ir_rank = indices->shape.size();
  bool flat = !given;
  int axis = flat ? 0 : norm_axis(*given, x->shape.size());
  if (axis < 0) return ctx.refuse("an axis out of range");
  const PrimExpr* extent = flat ? product(b, x->shape) : x->shape[axis];
  return elementwise(ctx, "T_take", [&](const Exprs& v) {
    Exprs iidx(v.begin() + axis, v.begin() + axis + ir_rank);
    const PrimExpr* i = b.cast(DataType::Int(64), b.load(indices, iidx));
    if (mode == "clip")
      i = b.min(b.max(i, b.i64(0)), b.sub(extent, b.i64(1)));
    else if (mode == "wrap")
      i = b.floormod(i, extent);
    if (flat) return b.load(x, unflatten_index(b, x->shape, i));
    Exprs idx(v.begin(), v.begin() + axis);
    idx.push_back(i);
    idx.insert(idx.end(), v.begin() + axis + ir_rank, v.end());
    return b.load(x, idx);
  });
}

// strided_slice: bounds canonicalised like TVM's (negative from the end, clamped to the
// extent; a negative stride starts at most at extent - 1).
const ir::Stmt* strided_slice_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  auto axes = analysis::ops::attr_int_list(ctx.infer, "axes");
  auto begin = analysis::ops::attr_prim_list(ctx.infer, "begin");
  auto strides = analysis::ops::attr_prim_list(ctx.infer, "strides");
  if (!axes || !begin || begin->size() != axes->size())
    return ctx.refuse("this form of R.strided_slice");
  size_t n = x->shape.size();
  std::vector<const PrimExpr*> start(n, b.i64(0)), step(n, b.i64(1));
  for (size_t i = 0; i < axes->size(); ++i) {
    int a = norm_axis((*axes)[i], n);
    if (a < 0) return ctx.refuse("an axis out of range");
    const PrimExpr* s = strides && i < strides->size() ? ctx.to_tir((*strides)[i]) : b.i64(1);
    const PrimExpr* bg = ctx.to_tir((*begin)[i]);
    int64_t sv = 0, bv = 0;
    if (!s || !bg || !literal(s, &sv) || sv == 0) return ctx.refuse("a symbolic or zero stride");
    s = b.cast(DataType::Int(64), s);
    bg = b.cast(DataType::Int(64), bg);
    const PrimExpr* dim = x->shape[a];
    if (literal(bg, &bv) && bv < 0)
      bg = b.add(bg, dim);
    else if (!literal(bg, &bv))
      bg = b.select(b.compare(PrimKind::LT, bg, b.i64(0)), b.add(bg, dim), bg);
    bg = sv > 0 ? b.min(b.max(bg, b.i64(0)), dim)
                : b.min(b.max(bg, b.i64(-1)), b.sub(dim, b.i64(1)));
    start[a] = bg;
    step[a] = s;
  }
  return elementwise(ctx, "T_strided_slice_with_axes", [&](const Exprs& v) {
    Exprs idx(n);
    for (size_t d = 0; d < n; ++d) idx[d] = b.add(start[d], b.mul(v[d], step[d]));
    return b.load(x, idx);
  });
}

// ---------------------------------------------------------------------------- creation
const ir::Stmt* fill_rule(RuleContext& ctx, double value) {
  const ir::Buffer* o = ctx.out();
  return elementwise(ctx, "T_full", [&](const Exprs&) { return ctx.b.constant(o->dtype, value); });
}
const ir::Stmt* zeros_rule(RuleContext& ctx) { return fill_rule(ctx, 0); }
const ir::Stmt* ones_rule(RuleContext& ctx) { return fill_rule(ctx, 1); }

// full(shape, fill_value) / full_like(x, fill_value): the fill value is a rank-0 tensor.
const ir::Stmt* full_rule(RuleContext& ctx) {
  const ir::Buffer* fill = ctx.inputs.back();
  if (!fill->shape.empty()) return ctx.refuse("a fill value that is not rank 0");
  return elementwise(ctx, "T_full", [&](const Exprs&) { return ctx.b.load(fill, {}); });
}

// arange(start, end, step): out[i] = start + i * step in the output dtype.
const ir::Stmt* arange_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  std::vector<const PrimExpr*> values;
  for (const ir::Expr* a : ctx.call.args) {
    const auto* pv = ir::dyn_cast<ir::PrimValue>(a);
    const PrimExpr* v = pv ? ctx.to_tir(pv->value) : nullptr;
    if (!v) return ctx.refuse("R.arange with bounds that are not scalars");
    values.push_back(v);
  }
  const PrimExpr* start = values.size() >= 2 ? values[0] : b.i64(0);
  const PrimExpr* step = values.size() >= 3 ? values[2] : b.i64(1);
  DataType t = o->dtype;
  DataType c = t.is_float() ? DataType::Float(64) : DataType::Int(64);
  return elementwise(ctx, "T_arange", [&](const Exprs& v) {
    return b.cast(t, b.add(b.cast(c, start), b.mul(b.cast(c, v[0]), b.cast(c, step))));
  });
}

// tril / triu: keep the elements with j - i <= k (tril) or >= k (triu) of the last two axes.
const ir::Stmt* tri_rule(RuleContext& ctx, bool lower) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const PrimExpr* k = b.i64(0);
  if (ctx.call.args.size() > 1) {
    const auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[1]);
    k = pv ? ctx.to_tir(pv->value) : nullptr;
    if (!k) return ctx.refuse("a diagonal offset that is not a scalar");
    k = b.cast(DataType::Int(64), k);
  } else if (auto kk = analysis::ops::attr_int(ctx.infer, "k")) {
    k = b.i64(*kk);
  }
  size_t n = x->shape.size();
  if (n < 2) return ctx.refuse("a tensor of rank below 2");
  return elementwise(ctx, lower ? "trilu" : "trilu", [&](const Exprs& v) {
    const PrimExpr* d = b.sub(v[n - 1], v[n - 2]);
    const PrimExpr* keep = b.compare(lower ? PrimKind::LE : PrimKind::GE, d, k);
    return b.select(keep, b.load(x, v), b.constant(x->dtype, 0));
  });
}
const ir::Stmt* tril_rule(RuleContext& c) { return tri_rule(c, true); }
const ir::Stmt* triu_rule(RuleContext& c) { return tri_rule(c, false); }

// stack: output index k along the new axis reads input k (picked lazily, as concat does).
const ir::Stmt* stack_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), o->shape.size());
  if (axis < 0 || ctx.inputs.empty()) return ctx.refuse("this form of R.stack");
  return elementwise(ctx, "T_stack", [&](const Exprs& v) {
    Exprs idx = v;
    idx.erase(idx.begin() + axis);
    return choose(
        ctx, [&](size_t i) { return b.compare(PrimKind::EQ, v[axis], b.i64(int64_t(i))); },
        [&](size_t i) { return b.load(ctx.inputs[i], idx); });
  });
}

const ir::Stmt* flip_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), x->shape.size());
  if (axis < 0) return ctx.refuse("an axis out of range");
  return elementwise(ctx, "T_reverse_sequence", [&](const Exprs& v) {
    Exprs idx = v;
    idx[axis] = b.sub(b.sub(x->shape[axis], b.i64(1)), v[axis]);
    return b.load(x, idx);
  });
}

// tile: each output axis wraps around the (right-aligned) input axis.
const ir::Stmt* tile_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  return elementwise(ctx, "T_tile", [&](const Exprs& v) {
    Exprs idx;
    size_t r = x->shape.size();
    for (size_t d = 0; d < r; ++d) idx.push_back(b.floormod(v[v.size() - r + d], x->shape[d]));
    return b.load(x, idx);
  });
}

// repeat: output position i along the axis reads input i // repeats (axis None: of the
// flattened input).
const ir::Stmt* repeat_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  std::optional<int64_t> repeats = analysis::ops::attr_int(ctx.infer, "repeats");
  std::optional<int64_t> given = analysis::ops::attr_int(ctx.infer, "axis");
  if (!repeats || *repeats <= 0) return ctx.refuse("a non-positive repeat count");
  if (!given) {
    return elementwise(ctx, "T_repeat", [&](const Exprs& v) {
      return b.load(x, unflatten_index(b, x->shape, b.floordiv(v[0], b.i64(*repeats))));
    });
  }
  int axis = norm_axis(*given, x->shape.size());
  if (axis < 0) return ctx.refuse("an axis out of range");
  return elementwise(ctx, "T_repeat", [&](const Exprs& v) {
    Exprs idx = v;
    idx[axis] = b.floordiv(v[axis], b.i64(*repeats));
    return b.load(x, idx);
  });
}

// collapse_sum_to / collapse_sum_like: sums the axes broadcasting would have stretched (the
// leading extra axes and those where the target is a literal 1).
const ir::Stmt* collapse_sum_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  size_t r = x->shape.size(), ro = o->shape.size();
  if (ro > r) return ctx.refuse("a target of higher rank");
  std::vector<size_t> reduced;
  for (size_t d = 0; d < r; ++d) {
    int64_t one = 0, xd = 0;
    bool lead = d < r - ro;
    bool stretched = !lead && literal(o->shape[d - (r - ro)], &one) && one == 1 &&
                     !(literal(x->shape[d], &xd) && xd == 1);
    if (lead || stretched) reduced.push_back(d);
  }
  Exprs extents = o->shape;
  std::string kinds(ro, 'S');
  for (size_t d : reduced) {
    extents.push_back(x->shape[d]);
    kinds += 'R';
  }
  return b.stage(
      "T_collapse_sum", extents, kinds,
      [&](const Exprs& v) {
        Exprs out(v.begin(), v.begin() + ro);
        Exprs in(r);
        size_t k = 0;
        for (size_t d = 0; d < r; ++d) {
          if (k < reduced.size() && reduced[k] == d)
            in[d] = v[ro + k++];
          else
            in[d] = v[d - (r - ro)];
        }
        return b.store(o, b.add(b.load(o, out), b.load(x, in)), out);
      },
      [&](const Exprs& v) {
        return b.store(o, b.constant(o->dtype, 0), Exprs(v.begin(), v.begin() + ro));
      });
}

// nn.pad in the modes that read the input at every output position (TVM's topi.nn.reflect_pad,
// replicate_pad, circular_pad): the source index of p = i - before is, on an axis of extent n,
// reflect: -p below 0 and 2(n - 1) - p past the end (one reflection, no edge repeat, as topi and
// numpy's "reflect"); replicate: p clamped to [0, n - 1]; circular: p mod n.
const ir::Stmt* index_pad(RuleContext& ctx, const std::string& mode,
                          const std::vector<int64_t>& width) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    return ctx.refuse("pad_mode \"" + mode + "\"");
  size_t n = x->shape.size();
  for (size_t d = 0; d < n; ++d) {
    int64_t extent = 0;
    bool known = literal(x->shape[d], &extent);
    int64_t most = std::max(width[2 * d], width[2 * d + 1]);
    if (most > 0 && known && (mode == "reflect" ? most >= extent : extent == 0))
      return ctx.refuse("pads as wide as the axis in mode \"" + mode + "\"");
  }
  return elementwise(ctx, "PadInput", [&](const Exprs& v) {
    Exprs idx;
    for (size_t d = 0; d < n; ++d) {
      const PrimExpr* p = b.sub(v[d], b.i64(width[2 * d]));
      const PrimExpr* last = b.sub(x->shape[d], b.i64(1));
      if (width[2 * d] == 0 && width[2 * d + 1] == 0) {
        idx.push_back(p);
      } else if (mode == "reflect") {
        const PrimExpr* low = b.select(b.compare(PrimKind::LT, p, b.i64(0)), b.sub(b.i64(0), p), p);
        idx.push_back(
            b.select(b.compare(PrimKind::GT, low, last), b.sub(b.mul(b.i64(2), last), low), low));
      } else if (mode == "replicate") {
        idx.push_back(b.min(b.max(p, b.i64(0)), last));
      } else {
        idx.push_back(b.floormod(p, x->shape[d]));
      }
    }
    return b.load(x, idx);
  });
}

// nn.pad in "constant" mode: pad_width is [before_0, after_0, before_1, ...].
const ir::Stmt* pad_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  std::string mode = analysis::ops::attr_string(ctx.infer, "pad_mode").value_or("constant");
  auto width = analysis::ops::attr_int_list(ctx.infer, "pad_width");
  double value = analysis::ops::attr_float(ctx.infer, "pad_value").value_or(0.0);
  size_t n = x->shape.size();
  if (!width || width->size() != 2 * n) return ctx.refuse("pad_width of another rank");
  if (mode != "constant") return index_pad(ctx, mode, *width);
  return elementwise(ctx, "PadInput", [&](const Exprs& v) {
    Exprs idx;
    const PrimExpr* inside = nullptr;
    for (size_t d = 0; d < n; ++d) {
      const PrimExpr* p = b.sub(v[d], b.i64((*width)[2 * d]));
      idx.push_back(p);
      const PrimExpr* ok = b.logical_and(b.compare(PrimKind::GE, p, b.i64(0)),
                                         b.compare(PrimKind::LT, p, x->shape[d]));
      inside = inside ? b.logical_and(inside, ok) : ok;
    }
    const PrimExpr* fill = b.constant(x->dtype, value);
    return inside ? b.if_then_else(inside, b.load(x, idx), fill) : b.load(x, idx);
  });
}

// one_hot(indices, on_value, off_value, depth, axis): a new axis of length depth.
const ir::Stmt* one_hot_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* indices = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  const PrimExpr* on = nullptr;
  const PrimExpr* off = nullptr;
  if (ctx.call.args.size() >= 3) {
    const auto* a = ir::dyn_cast<ir::PrimValue>(ctx.call.args[1]);
    const auto* c = ir::dyn_cast<ir::PrimValue>(ctx.call.args[2]);
    on = a ? ctx.to_tir(a->value) : nullptr;
    off = c ? ctx.to_tir(c->value) : nullptr;
  }
  if (!on || !off) return ctx.refuse("on / off values that are not scalars");
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(-1), o->shape.size());
  if (axis < 0) return ctx.refuse("an axis out of range");
  return elementwise(ctx, "T_one_hot", [&](const Exprs& v) {
    Exprs idx = v;
    idx.erase(idx.begin() + axis);
    const PrimExpr* i = b.cast(DataType::Int(64), b.load(indices, idx));
    return b.select(b.compare(PrimKind::EQ, i, v[axis]), b.cast(o->dtype, on),
                    b.cast(o->dtype, off));
  });
}

// An index map's result with its parameters replaced by `vars`, in int64 index arithmetic.
const PrimExpr* apply_index_map(Builder& b, const ir::IndexMap& map, const Exprs& vars,
                                const PrimExpr* e) {
  if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
    for (size_t i = 0; i < map.params.size(); ++i)
      if (map.params[i] == v) return vars[i];
    return nullptr;
  }
  if (const auto* i = ir::dyn_cast<ir::IntImm>(e)) return b.i64(i->value);
  if (const auto* c = ir::dyn_cast<ir::PrimCast>(e)) return apply_index_map(b, map, vars, c->value);
  if (const auto* bin = ir::dyn_cast<ir::PrimBinary>(e)) {
    const PrimExpr* x = apply_index_map(b, map, vars, bin->a);
    const PrimExpr* y = apply_index_map(b, map, vars, bin->b);
    if (!x || !y) return nullptr;
    switch (bin->kind) {
      case PrimKind::Add: return b.add(x, y);
      case PrimKind::Sub: return b.sub(x, y);
      case PrimKind::Mul: return b.mul(x, y);
      case PrimKind::FloorDiv: return b.floordiv(x, y);
      case PrimKind::FloorMod: return b.floormod(x, y);
      default: return b.binary(bin->kind, x, y);
    }
  }
  return nullptr;
}

// layout_transform(x, index_map, pad_value): every input element moves to index_map(i); an
// output larger than the input (padding) is filled with pad_value (0 when absent) first.
const ir::Stmt* layout_transform_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* o = ctx.out();
  analysis::ops::ParamValue mp = analysis::ops::param(ctx.infer, "index_map");
  const ir::IndexMap* map = nullptr;
  if (mp.attr)
    if (auto* m = mp.attr->get_if<const ir::IndexMap*>()) map = *m;
  if (!map || map->params.size() != x->shape.size() || map->results.size() != o->shape.size())
    return ctx.refuse("this index map");
  if (analysis::ops::attr_int_list(ctx.infer, "axis_separators") ||
      analysis::ops::attr_int_list(ctx.infer, "input_axis_separators"))
    return ctx.refuse("axis separators");
  const PrimExpr* pad = nullptr;
  analysis::ops::ParamValue pv = analysis::ops::param(ctx.infer, "pad_value");
  const ir::AttrValue* pa = pv.attr;
  if (pv.arg_index >= 0) {
    if (const auto* p = ir::dyn_cast<ir::PrimValue>(ctx.call.args[pv.arg_index]))
      pad = ctx.to_tir(p->value);
  } else if (pa && !pa->is_none()) {
    if (auto* d = pa->get_if<double>())
      pad = b.float_imm(DataType::Float(64), *d);
    else if (auto* i = pa->get_if<int64_t>())
      pad = b.i64(*i);
    else if (auto* e = pa->get_if<const PrimExpr*>())
      pad = ctx.to_tir(*e);
    else if (auto* ex = pa->get_if<const ir::Expr*>()) {
      if (const auto* p = ir::dyn_cast<ir::PrimValue>(*ex)) pad = ctx.to_tir(p->value);
    }
    if (!pad) return ctx.refuse("this pad_value");
  }
  std::vector<const ir::Stmt*> stages;
  int64_t in_n = 0, out_n = 0;
  bool same_size = literal(product(b, x->shape), &in_n) && literal(product(b, o->shape), &out_n) &&
                   in_n == out_n;
  if (!same_size || pad) {
    const PrimExpr* fill = pad ? b.cast(o->dtype, pad) : b.constant(o->dtype, 0);
    stages.push_back(elementwise(ctx, "T_layout_trans_pad", [&](const Exprs&) { return fill; }));
  }
  bool ok = true;
  stages.push_back(b.stage("T_layout_trans", x->shape, std::string(x->shape.size(), 'S'),
                           [&](const Exprs& v) -> const ir::Stmt* {
                             Exprs idx;
                             for (const PrimExpr* r : map->results) {
                               const PrimExpr* e = apply_index_map(b, *map, v, r);
                               if (!e) {
                                 ok = false;
                                 e = b.i64(0);
                               }
                               idx.push_back(e);
                             }
                             return b.store(o, b.load(x, v), idx);
                           }));
  if (!ok) return ctx.refuse("an index map this legalization does not read");
  return b.seq(stages);
}

// gather_elements(data, indices, axis): out[i] = data[i with i[axis] = indices[i]] (negative
// indices count from the end).
const ir::Stmt* gather_elements_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* indices = ctx.in(1);
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(0), x->shape.size());
  if (axis < 0 || indices->shape.size() != x->shape.size())
    return ctx.refuse("this form of R.gather_elements");
  return elementwise(ctx, "T_gather", [&](const Exprs& v) {
    Exprs idx = v;
    const PrimExpr* i = b.cast(DataType::Int(64), b.load(indices, v));
    idx[axis] = b.select(b.compare(PrimKind::LT, i, b.i64(0)), b.add(i, x->shape[axis]), i);
    return b.load(x, idx);
  });
}

// gather_nd(data, indices, batch_dims B): the first B axes of both are batch axes, gathered
// pairwise; indices (B..., Q..., M) address M axes of data after them, the rest of data's axes
// kept: out[b, q, r] = data[b, indices[b, q, 0..M), r].
const ir::Stmt* gather_nd_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* indices = ctx.in(1);
  int64_t m = 0;
  int64_t batch = analysis::ops::attr_int(ctx.infer, "batch_dims").value_or(0);
  if (batch < 0 || indices->shape.empty() || int64_t(indices->shape.size()) - 1 < batch ||
      !literal(indices->shape.back(), &m) || m < 1 || batch + m > int64_t(x->shape.size()))
    return ctx.refuse("a symbolic index depth or more batch and index axes than data has");
  size_t lead = indices->shape.size() - 1;
  return elementwise(ctx, "T_gather_nd", [&](const Exprs& v) {
    Exprs idx(v.begin(), v.begin() + batch);
    for (int64_t j = 0; j < m; ++j) {
      Exprs ii(v.begin(), v.begin() + lead);
      ii.push_back(b.i64(j));
      const PrimExpr* i = b.cast(DataType::Int(64), b.load(indices, ii));
      const PrimExpr* extent = x->shape[size_t(batch + j)];
      idx.push_back(b.select(b.compare(PrimKind::LT, i, b.i64(0)), b.add(i, extent), i));
    }
    idx.insert(idx.end(), v.begin() + lead, v.end());
    return b.load(x, idx);
  });
}

// eye_like(x, k): ones on the k-th diagonal of x's (2-D) shape.
const ir::Stmt* eye_like_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  const PrimExpr* k = b.i64(0);
  if (ctx.call.args.size() > 1) {
    const auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[1]);
    k = pv ? ctx.to_tir(pv->value) : nullptr;
    if (!k) return ctx.refuse("a diagonal offset that is not a scalar");
    k = b.cast(DataType::Int(64), k);
  }
  if (o->shape.size() != 2) return ctx.refuse("a tensor that is not 2-D");
  return elementwise(ctx, "T_eye", [&](const Exprs& v) {
    return b.select(b.compare(PrimKind::EQ, b.sub(v[1], v[0]), k), b.constant(o->dtype, 1),
                    b.constant(o->dtype, 0));
  });
}

}  // namespace

void add_manipulate_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.reshape", "reshape", reshape_rule},
                        {"relax.expand_dims", "expand_dims", reshape_rule},
                        {"relax.squeeze", "squeeze", reshape_rule},
                        {"relax.flatten", "reshape", reshape_rule},
                        {"relax.permute_dims", "transpose", permute_dims_rule},
                        {"relax.broadcast_to", "broadcast_to", broadcast_to_rule},
                        {"relax.concat", "concatenate", concat_rule},
                        {"relax.split", "split", split_rule},
                        {"relax.take", "take", take_rule},
                        {"relax.strided_slice", "strided_slice", strided_slice_rule},
                        {"relax.zeros", "zeros", zeros_rule},
                        {"relax.ones", "ones", ones_rule},
                        {"relax.zeros_like", "zeros", zeros_rule},
                        {"relax.ones_like", "ones", ones_rule},
                        {"relax.full", "full", full_rule},
                        {"relax.full_like", "full", full_rule},
                        {"relax.arange", "arange", arange_rule},
                        {"relax.tril", "tril", tril_rule},
                        {"relax.stack", "stack", stack_rule},
                        {"relax.flip", "flip", flip_rule},
                        {"relax.tile", "tile", tile_rule},
                        {"relax.repeat", "repeat", repeat_rule},
                        {"relax.collapse_sum_to", "collapse_sum", collapse_sum_rule},
                        {"relax.collapse_sum_like", "collapse_sum", collapse_sum_rule},
                        {"relax.nn.pad", "pad", pad_rule},
                        {"relax.nn.batch_flatten", "batch_flatten", reshape_rule},
                        {"relax.one_hot", "one_hot", one_hot_rule},
                        {"relax.layout_transform", "te_layout_transform", layout_transform_rule},
                        {"relax.eye_like", "eye", eye_like_rule},
                        {"relax.gather_elements", "gather_elements", gather_elements_rule},
                        {"relax.gather_nd", "gather_nd", gather_nd_rule},
                        {"relax.triu", "triu", triu_rule},
                    });
}

}  // namespace raxc::backend::legalize
