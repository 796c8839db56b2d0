// Operand views (fuse.h, after the element-wise fusion): a float32 product's operand that a
// kernel only gathers from one tensor, element for element at an affine index,
//
//   q = R.call_tir(fused_reshape_transpose, (q1,))   out[b, h, i, j] = q1[b, i, h · 64 + j]
//   s = R.call_dps_packed("raxc.matmul_scale_f32", (q, k, scale))
//
// becomes a view the product reads in place: "raxc.matmul_view_scale_f32"(q1, k…, scale,
// R.shape(a's shape), R.shape(a's map), R.shape(b's shape), R.shape(b's map)), the map being
// the gather's offsets and coefficients (runtime/matmul.cpp, viewed_operand: strides computed
// from the tensor's shape at run time, so a symbolic sequence length stays symbolic), and the
// kernel goes. That is attention's reshapes and transposes of q, k and v, as a module spells
// them (R.reshape then R.permute_dims) and as PyTorch's exported MultiheadAttention does
// (Slice, Reshape, Transpose): one copy of each per call, 1 % of the transformer block's time
// on one thread, and three tensors fewer allocated.
//
// The gather must read one input, a compact float32 buffer, at indices each of which is a sum
// of the block variables times integer constants plus a constant; its result is used by the
// product alone; the view must read A's rows in order (its last axis at stride 1) and B's rows
// or its columns in order (a transposed B is read as R.linear reads its weight). Outside a
// dataflow block only bindings that write fresh tensors (fusion::writes_fresh_only: an imported
// attention's products and constants stand between its v and the product that reads it) may
// stand between the gather and the product. A product's operands of one axis are left as they are.
#include <optional>
#include <string>
#include <vector>

#include "backend/fuse/fuse.h"
#include "backend/fuse/stage.h"

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
      if (!a && !b) continue;
      std::vector<const ir::Expr*> args = fields;
      for (auto [view, at] : {std::pair{&a, size_t(0)}, std::pair{&b, size_t(1)}}) {
        if (*view) {
          args[at] = (*view)->base;
          dropped[(*view)->binding] = true;
        }
      }
      for (const auto& view : {a, b}) {
        args.push_back(view ? view->shape : empty_shape(call->span));
        args.push_back(view ? view->map : empty_shape(call->span));
      }
      auto* fused = arena_.make<ir::Call>(
          call->op,
          std::vector<const ir::Expr*>{
              arena_.make<ir::ExternFunc>("raxc.matmul_view" + *epilogue + "_f32", nullptr,
                                          call->args[0]->span),
              arena_.make<ir::Tuple>(args, call->args[1]->span)},
          call->sinfo_args, call->attrs, call->span);
      auto* binding = arena_.make<ir::Binding>(*in[i]);
      binding->value = fused;
      out[i] = binding;
      changed = true;
      ++folded_;
    }
    if (!changed) return block;
    auto* copy = arena_.make<ir::BindingBlock>(*block);
    copy->bindings.clear();
    for (size_t i = 0; i < out.size(); ++i)
      if (!dropped[i]) copy->bindings.push_back(out[i]);
    return copy;
  }

  // `operand` of the product at binding `at` as a view, when a gather kernel made it for this
  // product alone.
  std::optional<View> view_of(const ir::BindingBlock& block, size_t at, const ir::Expr* operand,
                              bool is_b, const fusion::UseCounts& uses,
                              const std::vector<bool>& dropped) {
    const auto* v = ir::dyn_cast<ir::Var>(operand);
    if (!v || uses.of(v) != 1) return std::nullopt;
    size_t def = 0;
    while (def < at && block.bindings[def]->var != v) ++def;
    if (def == at || dropped[def] || block.bindings[def]->is_match_cast()) return std::nullopt;
    const ir::Call* call = fusion::as_call_tir(block.bindings[def]->value);
    if (!call || (!block.is_dataflow && !fusion::only_fresh_between(block, def, at)))
      return std::nullopt;
    const ir::GlobalDef* g = m_.find(ir::cast<ir::GlobalVar>(call->args[0])->name);
    std::optional<fusion::Stage> stage =
        g && g->prim_func() ? fusion::single_stage(*g->prim_func()) : std::nullopt;
    std::optional<Gather> gather = stage ? as_gather(*stage) : std::nullopt;
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
    return View{def, inputs[0], shape, arena_.make<ir::ShapeExpr>(map, call->span)};
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
