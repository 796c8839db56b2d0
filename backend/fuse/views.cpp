// Operand views (fuse.h, after the element-wise fusion): a float32 product's operand that a
// kernel only gathers from one tensor, element for element at an affine index,
//
//   q = R.call_tir(fused_reshape_transpose, (q1,))   out[b, h, i, j] = q1[b, i, h · 64 + j]
//   s = R.call_dps_packed("raxc.matmul_scale_f32", (q, k, scale))
//
// becomes a view the product reads in place: "raxc.matmul_view_scale_f32"(q1, k…, scale,
// R.shape(a's shape), R.shape(a's map), R.shape(b's shape), R.shape(b's map), R.shape(),
// R.shape()), the map being the gather's offsets and coefficients (runtime/matmul.cpp,
// viewed_operand: strides computed from the tensor's shape at run time, so a symbolic sequence
// length stays symbolic), and the kernel goes. And a product whose result a kernel only
// reorders, for it alone, writes the reordered tensor through a view (the last two shapes):
//
//   a0 = R.call_dps_packed("raxc.matmul_f32", (p, v))
//   a = R.call_tir(fused_transpose_reshape, (a0,))    out[b, i, h · 64 + j] = a0[b, h, i, j]
//
// That is attention's reshapes and transposes of q, k and v and of its context, as a module
// spells them (R.reshape, R.permute_dims) and as PyTorch's exported MultiheadAttention does
// (Slice, Reshape, Transpose): one copy of each per call, a kernel each to compile, and four
// tensors fewer allocated.
//
// An operand's gather must read one input, a compact float32 buffer, at indices each of which is
// a sum of the block variables times integer constants plus a constant; its result is used by
// the product alone; the view must read A's rows in order (its last axis at stride 1) and B's
// rows or its columns in order (a transposed B is read as R.linear reads its weight), at
// strides above 0. The result's gather must read each index of the result as one digit of its
// own (an axis, or its quotient or remainder by a constant), every digit of more than one value
// once, so that it is a reordering; the product must not add a residual (read at the result's
// own indices). Outside a dataflow block only bindings that write fresh tensors
// (fusion::writes_fresh_only: an imported attention's products and constants stand between its
// v and the product that reads it) may stand between a gather and the product. Operands of one
// axis are left as they are.
#include <optional>
#include <string>
#include <vector>

#include "backend/fuse/fuse.h"
#include "backend/fuse/stage.h"
#include "frontend/ir/equal.h"

namespace raxc::backend {
namespace {

// An index as Σ coef[e] · (block variable e) + constant.
struct Affine {
  std::vector<int64_t> coef;
  int64_t constant = 0;
};

std::optional<Affine> affine(const ir::PrimExpr* e, const std::vector<ir::IterVar>& vars) {
  if (const auto* i = ir::dyn_cast<ir::IntImm>(e))
    return Affine{std::vector<int64_t>(vars.size()), i->value};
  if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
    for (size_t d = 0; d < vars.size(); ++d)
      if (vars[d].var == v) {
        Affine a{std::vector<int64_t>(vars.size()), 0};
        a.coef[d] = 1;
        return a;
      }
    return std::nullopt;
  }
  const auto* both = ir::dyn_cast<ir::PrimBinary>(e);
  if (!both || !both->dtype.is_int()) return std::nullopt;
  std::optional<Affine> x = affine(both->a, vars), y = affine(both->b, vars);
  if (!x || !y) return std::nullopt;
  auto constant = [](const Affine& a) {
    for (int64_t c : a.coef)
      if (c != 0) return false;
    return true;
  };
  int64_t sign = 1;
  switch (e->kind) {
    case ir::PrimKind::Sub: sign = -1; [[fallthrough]];
    case ir::PrimKind::Add:
      for (size_t d = 0; d < vars.size(); ++d) x->coef[d] += sign * y->coef[d];
      x->constant += sign * y->constant;
      return x;
    case ir::PrimKind::Mul: {
      if (!constant(*x) && !constant(*y)) return std::nullopt;
      const Affine& scale = constant(*x) ? *x : *y;
      Affine out = constant(*x) ? *y : *x;
      for (int64_t& c : out.coef) c *= scale.constant;
      out.constant *= scale.constant;
      return out;
    }
    default: return std::nullopt;
  }
}

// A kernel's gather: its input read at K + C · index, C an axis of the input × the output's.
struct Gather {
  std::vector<int64_t> offsets;             // K, one per axis of the input
  std::vector<std::vector<int64_t>> coefs;  // C[d][e]
};

std::optional<Gather> as_gather(const fusion::Stage& s) {
  if (s.inputs.size() != 1) return std::nullopt;
  const ir::Buffer* x = s.inputs[0];
  const auto* load = ir::dyn_cast<ir::BufferLoad>(s.store->value);
  ir::DataType f32 = ir::DataType::Float(32);
  if (!load || load->buffer != x || x->dtype != f32 || s.store->buffer->dtype != f32 ||
      !x->strides.empty() || x->elem_offset || load->indices.size() != x->shape.size())
    return std::nullopt;
  Gather g;
  for (const ir::PrimExpr* index : load->indices) {
    std::optional<Affine> a = affine(index, s.block->iter_vars);
    if (!a) return std::nullopt;
    g.offsets.push_back(a->constant);
    g.coefs.push_back(a->coef);
  }
  return g;
}

// Whether the view reads along output axis `axis` at stride 1 whatever the input's shape: only
// the input's last axis moves with it, by 1.
bool unit_stride(const Gather& g, size_t axis) {
  for (size_t d = 0; d < g.coefs.size(); ++d)
    if (g.coefs[d][axis] != (d + 1 == g.coefs.size() ? 1 : 0)) return false;
  return true;
}

// Whether every stride and offset of the view is at least 0 and the one along `axis` above 0
// (the kernels take no rows at a stride of 0 or backwards: a reversed or broadcast matrix keeps
// its kernel).
bool forward(const Gather& g, size_t axis) {
  bool moves = false;
  for (size_t d = 0; d < g.coefs.size(); ++d) {
    if (g.offsets[d] < 0) return false;
    for (int64_t c : g.coefs[d])
      if (c < 0) return false;
    moves |= g.coefs[d][axis] > 0;
  }
  return moves;
}

// `R.call_dps_packed("raxc.matmul<epilogue>_f32", (a, b, ...))`: its symbol's epilogue part.
std::optional<std::string> product_epilogue(const ir::Expr* e) {
  const auto* call = e ? ir::dyn_cast<ir::Call>(e) : nullptr;
  const auto* op = call ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
  if (!op || op->name != "relax.call_dps_packed" || call->args.size() != 2 ||
      !ir::isa<ir::Tuple>(call->args[1]) || call->sinfo_args.size() != 1)
    return std::nullopt;
  const auto* f = ir::dyn_cast<ir::ExternFunc>(call->args[0]);
  const std::string prefix = "raxc.matmul", suffix = "_f32";
  if (!f || f->global_symbol.size() < prefix.size() + suffix.size() ||
      f->global_symbol.compare(0, prefix.size(), prefix) != 0 ||
      f->global_symbol.compare(f->global_symbol.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string middle = f->global_symbol.substr(
      prefix.size(), f->global_symbol.size() - prefix.size() - suffix.size());
  if (middle.compare(0, 5, "_view") == 0) return std::nullopt;
  return middle;
}

// A digit of a gather's output index: axis `axis`'s variable, whole (divisor 0) or split by
// `divisor` into its quotient (high) or remainder.
struct Digit {
  size_t axis = 0;
  int64_t divisor = 0;
  bool high = false;
};

std::optional<Digit> as_digit(const ir::PrimExpr* e, const std::vector<ir::IterVar>& vars) {
  auto var_axis = [&](const ir::PrimExpr* v) -> std::optional<size_t> {
    for (size_t d = 0; d < vars.size(); ++d)
      if (vars[d].var == v) return d;
    return std::nullopt;
  };
  if (auto axis = var_axis(e)) return Digit{*axis, 0, false};
  const auto* both = ir::dyn_cast<ir::PrimBinary>(e);
  const auto* divisor = both ? ir::dyn_cast<ir::IntImm>(both->b) : nullptr;
  if (!divisor || divisor->value <= 1 ||
      (e->kind != ir::PrimKind::FloorDiv && e->kind != ir::PrimKind::FloorMod))
    return std::nullopt;
  auto axis = var_axis(both->a);
  if (!axis) return std::nullopt;
  return Digit{*axis, divisor->value, e->kind == ir::PrimKind::FloorDiv};
}

bool same_extent(const ir::PrimExpr* a, int64_t b) {
  const auto* i = ir::dyn_cast<ir::IntImm>(a);
  return i && i->value == b;
}

// For a gather out[w] = r[idx(w)] (its only input r, shaped `result`; out shaped `gathered`)
// whose every index of r is one digit of w's axes, each digit of more than one value read by
// exactly one axis of r of its extent (so the gather is a bijection, a reordering): the map of
// r's index into out's, M[j][e] (out's axis j × r's axis e) so that element e of r lies at
// out[Σ_e M[j][e] · index_e]. nullopt otherwise.
std::optional<std::vector<std::vector<int64_t>>> digit_permutation(
    const fusion::Stage& s, const std::vector<const ir::PrimExpr*>& result,
    const std::vector<const ir::PrimExpr*>& gathered) {
  const auto* load = ir::dyn_cast<ir::BufferLoad>(s.store->value);
  ir::DataType f32 = ir::DataType::Float(32);
  const auto& vars = s.block->iter_vars;
  if (s.inputs.size() != 1 || !load || load->buffer != s.inputs[0] ||
      load->indices.size() != result.size() || vars.size() != gathered.size() ||
      s.store->buffer->dtype != f32 || load->buffer->dtype != f32)
    return std::nullopt;
  std::vector<std::vector<int64_t>> map(gathered.size(), std::vector<int64_t>(result.size(), 0));
  std::vector<int64_t> divisor(vars.size(), -1);  // per axis: -1 unseen, 0 whole, else split
  std::vector<int> reads(2 * vars.size(), 0);     // per digit (axis, high?): readers
  for (size_t e = 0; e < result.size(); ++e) {
    const ir::PrimExpr* index = load->indices[e];
    if (const auto* zero = ir::dyn_cast<ir::IntImm>(index)) {
      if (zero->value != 0 || !same_extent(result[e], 1)) return std::nullopt;
      continue;
    }
    std::optional<Digit> d = as_digit(index, vars);
    if (!d || (divisor[d->axis] >= 0 && divisor[d->axis] != d->divisor)) return std::nullopt;
    divisor[d->axis] = d->divisor;
    ++reads[2 * d->axis + d->high];
    const ir::PrimExpr* extent = gathered[d->axis];
    if (d->divisor == 0) {
      if (!ir::structural_equal(extent, result[e])) return std::nullopt;
      map[d->axis][e] = 1;
      continue;
    }
    const auto* whole = ir::dyn_cast<ir::IntImm>(extent);
    if (!whole || whole->value % d->divisor != 0 ||
        !same_extent(result[e], d->high ? whole->value / d->divisor : d->divisor))
      return std::nullopt;
    map[d->axis][e] = d->high ? d->divisor : 1;
  }
  // Every digit of more than one value read exactly once (an axis never read must have extent 1).
  for (size_t j = 0; j < vars.size(); ++j) {
    if (divisor[j] < 0) {
      if (!same_extent(gathered[j], 1)) return std::nullopt;
      continue;
    }
    if (reads[2 * j] != 1 || (divisor[j] > 0 && reads[2 * j + 1] != 1)) return std::nullopt;
  }
  return map;
}

class ViewPass {
 public:
  explicit ViewPass(LoweredModule& lowered) : m_(lowered.module), arena_(*lowered.module.arena) {}

  size_t run() {
    fusion::rewrite_functions(m_, [&](const ir::Function* f) {
      return fusion::rewrite_blocks(f, arena_,
                                    [&](const ir::BindingBlock* b, const fusion::UseCounts& uses) {
                                      return rewrite(b, uses);
                                    });
    });
    return folded_;
  }

 private:
  // An operand of the product at binding `at` as a view: the gather's binding, its input, the
  // R.shape of the view's shape and of its map.
  struct View {
    size_t binding = 0;
    const ir::Expr* base = nullptr;
    const ir::Expr* shape = nullptr;
    const ir::Expr* map = nullptr;
  };

  const ir::BindingBlock* rewrite(const ir::BindingBlock* block, const fusion::UseCounts& uses) {
    const auto& in = block->bindings;
    std::vector<const ir::Binding*> out(in.begin(), in.end());
    std::vector<bool> dropped(in.size(), false);
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      std::optional<std::string> epilogue =
          in[i]->is_match_cast() ? std::nullopt : product_epilogue(in[i]->value);
      if (!epilogue) continue;
      const auto* call = ir::cast<ir::Call>(in[i]->value);
      const auto& fields = ir::cast<ir::Tuple>(call->args[1])->fields;
      std::optional<View> a = view_of(*block, i, fields[0], false, uses, dropped);
      std::optional<View> b = view_of(*block, i, fields[1], true, uses, dropped);
      // The residual is read at the result's indices: a product with one writes its result.
      std::optional<View> c = epilogue->find("_residual") == std::string::npos
                                  ? result_view(*block, i, uses, dropped)
                                  : std::nullopt;
      if (!a && !b && !c) continue;
      std::vector<const ir::Expr*> args = fields;
      for (auto [view, at] : {std::pair{&a, size_t(0)}, std::pair{&b, size_t(1)}}) {
        if (*view) {
          args[at] = (*view)->base;
          dropped[(*view)->binding] = true;
        }
      }
      for (const auto& view : {a, b, c}) {
        args.push_back(view ? view->shape : empty_shape(call->span));
        args.push_back(view ? view->map : empty_shape(call->span));
      }
      // With a view of its result, the product writes the gather's tensor, bound here to the
      // gather's variable (nothing between used it: it was defined later).
      const ir::Binding* result = c ? in[c->binding] : in[i];
      if (c) dropped[c->binding] = true;
      auto* fused = arena_.make<ir::Call>(
          call->op,
          std::vector<const ir::Expr*>{
              arena_.make<ir::ExternFunc>("raxc.matmul_view" + *epilogue + "_f32", nullptr,
                                          call->args[0]->span),
              arena_.make<ir::Tuple>(args, call->args[1]->span)},
          ir::cast<ir::Call>(result->value)->sinfo_args, call->attrs, call->span);
      auto* binding = arena_.make<ir::Binding>(*result);
      binding->value = fused;
      out[i] = binding;
      changed = true;
      ++folded_;
    }
    if (!changed) return block;
    return fusion::kept_bindings(arena_, *block, out, dropped);
  }

  // `operand` of the product at binding `at` as a view, when a gather kernel made it for this
  // product alone.
  std::optional<View> view_of(const ir::BindingBlock& block, size_t at, const ir::Expr* operand,
                              bool is_b, const fusion::UseCounts& uses,
                              const std::vector<bool>& dropped) {
    std::optional<fusion::SoleProducer> producer =
        fusion::sole_producer(m_, block, at, operand, uses, dropped);
    if (!producer) return std::nullopt;
    const ir::Call* call = producer->call;
    std::optional<Gather> gather = as_gather(producer->stage);
    const auto& inputs = ir::cast<ir::Tuple>(call->args[1])->fields;
    const auto* sinfo = ir::dyn_cast<ir::TensorSInfo>(call->sinfo_args[0]);
    const auto* shape = sinfo ? ir::dyn_cast<ir::ShapeExpr>(sinfo->shape) : nullptr;
    if (!gather || inputs.size() != 1 || !shape || shape->values.size() < 2) return std::nullopt;
    size_t rank = shape->values.size();
    // A's rows are read in order, its rows apart; B's rows or (a transposed B) its columns.
    bool rows_in_order = unit_stride(*gather, rank - 1) && forward(*gather, rank - 2);
    bool columns_in_order = is_b && unit_stride(*gather, rank - 2) && forward(*gather, rank - 1);
    if (!rows_in_order && !columns_in_order) return std::nullopt;
    std::vector<const ir::PrimExpr*> map;
    for (int64_t k : gather->offsets) map.push_back(integer(k));
    for (const auto& row : gather->coefs)
      for (int64_t c : row) map.push_back(integer(c));
    return View{producer->binding, inputs[0], shape, arena_.make<ir::ShapeExpr>(map, call->span)};
  }

  // The product's result at binding `at` as a view of the tensor a kernel gathers from it alone,
  // when that gather only reorders its elements (a permutation of the digits of its indices:
  // attention's context transposed back and its heads merged, out[0, i, h·64 + j] = r[0, h,
  // i, j]): the gather's binding, and the result's shape and its map into the gather's tensor.
  std::optional<View> result_view(const ir::BindingBlock& block, size_t at,
                                  const fusion::UseCounts& uses, const std::vector<bool>& dropped) {
    const ir::Var* r = block.bindings[at]->var;
    if (uses.of(r) != 1) return std::nullopt;
    size_t use = at + 1;
    for (; use < block.bindings.size(); ++use) {
      const ir::Call* call = fusion::as_call_tir(block.bindings[use]->value);
      if (call && ir::cast<ir::Tuple>(call->args[1])->fields.size() == 1 &&
          ir::cast<ir::Tuple>(call->args[1])->fields[0] == r)
        break;
    }
    if (use == block.bindings.size() || dropped[use] || block.bindings[use]->is_match_cast())
      return std::nullopt;
    const ir::Call* call = fusion::as_call_tir(block.bindings[use]->value);
    std::optional<fusion::Stage> stage = fusion::stage_of(m_, *call);
    const auto* product_sinfo =
        ir::dyn_cast<ir::TensorSInfo>(ir::cast<ir::Call>(block.bindings[at]->value)->sinfo_args[0]);
    const auto* gather_sinfo = ir::dyn_cast<ir::TensorSInfo>(call->sinfo_args[0]);
    const auto* result_shape =
        product_sinfo ? ir::dyn_cast<ir::ShapeExpr>(product_sinfo->shape) : nullptr;
    const auto* gather_shape =
        gather_sinfo ? ir::dyn_cast<ir::ShapeExpr>(gather_sinfo->shape) : nullptr;
    if (!stage || !result_shape || !gather_shape || result_shape->values.size() < 2)
      return std::nullopt;
    std::optional<std::vector<std::vector<int64_t>>> map =
        digit_permutation(*stage, result_shape->values, gather_shape->values);
    if (!map) return std::nullopt;
    // The result's rows are written in order and apart.
    size_t rank = result_shape->values.size();
    Gather as_view{std::vector<int64_t>(map->size(), 0), *map};
    if (!unit_stride(as_view, rank - 1) || !forward(as_view, rank - 2)) return std::nullopt;
    std::vector<const ir::PrimExpr*> values(map->size(), integer(0));
    for (const auto& row : *map)
      for (int64_t c : row) values.push_back(integer(c));
    return View{use, nullptr, result_shape, arena_.make<ir::ShapeExpr>(values, call->span)};
  }

  const ir::PrimExpr* integer(int64_t value) {
    return arena_.make<ir::IntImm>(ir::DataType::Int(64), value);
  }

  const ir::Expr* empty_shape(Span span) {
    return arena_.make<ir::ShapeExpr>(std::vector<const ir::PrimExpr*>{}, span);
  }

  ir::IRModule& m_;
  ir::Arena& arena_;
  size_t folded_ = 0;
};

}  // namespace

size_t fold_operand_views(LoweredModule& lowered) { return ViewPass(lowered).run(); }

}  // namespace raxc::backend
