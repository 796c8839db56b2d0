// The named walks of walks.h, each a small Visitor: what it collects and which options it walks
// with (annotations, PrimExprs, Callable returns) is the whole definition of its question.
#include "frontend/ir/walks.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "frontend/ir/arena.h"
#include "frontend/ir/visitor.h"

namespace raxc::ir {
namespace {

// Appends each new element once, keeping the order of first insertion. `out` may arrive
// non-empty (the collect_* entry points): what it holds counts as already seen. Most answers
// have a handful of elements, found fastest by a linear search; a set takes over for long ones.
template <class T>
class OrderedSet {
 public:
  explicit OrderedSet(std::vector<T>& out) : out_(out) {}
  void add(T value) {
    if (out_.size() < kLinear) {
      if (std::find(out_.begin(), out_.end(), value) == out_.end()) out_.push_back(value);
      return;
    }
    if (seen_.empty()) seen_.insert(out_.begin(), out_.end());
    if (seen_.insert(value).second) out_.push_back(value);
  }

 private:
  static constexpr size_t kLinear = 32;
  std::vector<T>& out_;
  std::unordered_set<T> seen_;
};

class PrimVarCollector : public Visitor {
 public:
  PrimVarCollector(WalkOptions options, std::vector<const PrimVar*>& out)
      : Visitor(options), vars_(out) {}
  void on_prim_expr(const PrimExpr* e) override {
    if (const auto* v = dyn_cast<PrimVar>(e)) vars_.add(v);
  }

 private:
  OrderedSet<const PrimVar*> vars_;
};

// ShapeVarPositions::Lone: a lone variable in a dimension or value; nothing inside a Callable.
class LoneShapeVarCollector : public Visitor {
 public:
  explicit LoneShapeVarCollector(std::vector<const PrimVar*>& out)
      : Visitor(WalkOptions{.callable_returns = false}), vars_(out) {}
  void on_struct_info(const StructInfo* s) override {
    switch (s->kind) {
      case SInfoKind::Prim: return lone(cast<PrimSInfo>(s)->value);
      case SInfoKind::Shape:
        if (const auto& values = cast<ShapeSInfo>(s)->values)
          for (const PrimExpr* d : *values) lone(d);
        return;
      case SInfoKind::Tensor:
        if (const auto* shape = dyn_cast<ShapeExpr>(cast<TensorSInfo>(s)->shape))
          for (const PrimExpr* d : shape->values) lone(d);
        return;
      case SInfoKind::Func: return skip_children();
      case SInfoKind::Tuple:
      case SInfoKind::Object: return;
    }
  }

 private:
  void lone(const PrimExpr* e) {
    if (const auto* v = dyn_cast<PrimVar>(e)) vars_.add(v);
  }
  OrderedSet<const PrimVar*> vars_;
};

// The names of the GlobalVars met, each once; with `calls_only`, only those in callee position.
std::vector<std::string> globals_in(const Expr* e, bool calls_only) {
  struct Collector : Visitor {
    bool calls_only = false;
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen;
    void on_expr(const Expr* x) override {
      const Expr* named = x;
      if (calls_only) {
        const auto* call = dyn_cast<Call>(x);
        named = call ? call->op : nullptr;
      }
      if (const auto* gv = dyn_cast<GlobalVar>(named))
        if (seen.insert(gv->name).second) names.push_back(gv->name);
    }
  } collector;
  collector.calls_only = calls_only;
  collector.visit(e);
  return std::move(collector.names);
}

}  // namespace

void collect_prim_vars(const PrimExpr* e, std::vector<const PrimVar*>& out) {
  if (e == nullptr) return;
  PrimVarCollector(WalkOptions{.prim_exprs = true}, out).visit(e);
}

std::vector<const PrimVar*> prim_vars(const PrimExpr* e) {
  std::vector<const PrimVar*> out;
  collect_prim_vars(e, out);
  return out;
}

void for_each_prim_expr(const PrimExpr* e, const std::function<void(const PrimExpr*)>& f) {
  struct Each : Visitor {
    const std::function<void(const PrimExpr*)>& f;
    explicit Each(const std::function<void(const PrimExpr*)>& f)
        : Visitor({.prim_exprs = true}), f(f) {}
    void on_prim_expr(const PrimExpr* x) override { f(x); }
  };
  if (e) Each(f).visit(e);
}

bool has_effects(const PrimCall& call) {
  std::string_view op = call.op;
  return op.find("call") != std::string_view::npos || op.find("ptr") != std::string_view::npos ||
         op.find("address") != std::string_view::npos || op.starts_with("tir.tvm_") ||
         op.find("handle") != std::string_view::npos || op.find("print") != std::string_view::npos;
}

TirReferences tir_references(const std::vector<const Stmt*>& stmts) {
  class Collector : public Visitor {
   public:
    explicit Collector(TirReferences& out) : Visitor({.prim_exprs = true}), out_(out) {}

   private:
    void on_prim_expr(const PrimExpr* e) override {
      if (const auto* v = dyn_cast<PrimVar>(e)) out_.vars.insert(v);
      if (const auto* load = dyn_cast<BufferLoad>(e)) out_.buffers.insert(load->buffer);
    }
    void on_stmt(const Stmt* s) override {
      if (const auto* store = dyn_cast<BufferStore>(s)) out_.buffers.insert(store->buffer);
      if (const auto* b = dyn_cast<Block>(s))
        for (const MatchBufferRegion& m : b->match_buffers) out_.buffers.insert(m.source.buffer);
    }
    TirReferences& out_;
  };
  TirReferences refs;
  Collector collector(refs);
  for (const Stmt* s : stmts) collector.visit(s);
  return refs;
}

void collect_shape_vars(const StructInfo* s, std::vector<const PrimVar*>& out,
                        ShapeVarPositions positions) {
  if (s == nullptr) return;
  if (positions == ShapeVarPositions::Lone) return LoneShapeVarCollector(out).visit(s);
  PrimVarCollector(WalkOptions{.prim_exprs = true, .callable_returns = false}, out).visit(s);
}

std::vector<const PrimVar*> shape_vars(const StructInfo* s, ShapeVarPositions positions) {
  std::vector<const PrimVar*> out;
  collect_shape_vars(s, out, positions);
  return out;
}

std::vector<const PrimVar*> mentioned_shape_vars(const Expr* e) {
  std::vector<const PrimVar*> out;
  PrimVarCollector(WalkOptions{.annotations = true, .prim_exprs = true}, out).visit(e);
  return out;
}

FreeVars free_vars(const Expr* e) {
  struct Collector : Visitor {
    Collector() : Visitor(WalkOptions{.annotations = true, .prim_exprs = true}) {}
    std::vector<const Var*> used;
    std::unordered_set<const Var*> seen, bound;
    std::vector<const PrimVar*> used_shapes;
    std::unordered_set<const PrimVar*> seen_shapes, bound_shapes;

    void bind_shapes(const StructInfo* s) {
      for (const PrimVar* v : shape_vars(s, ShapeVarPositions::Lone)) bound_shapes.insert(v);
    }
    // An R.Callable binds its parameters' variables for itself (its return uses them).
    void on_struct_info(const StructInfo* s) override {
      if (const auto* f = dyn_cast<FuncSInfo>(s); f && f->params)
        for (const StructInfo* p : *f->params) bind_shapes(p);
    }
    void on_expr(const Expr* x) override {
      if (const auto* v = dyn_cast<Var>(x))
        if (seen.insert(v).second) used.push_back(v);
    }
    void on_function(const Function& f) override {
      for (const Var* p : f.params) {
        if (p == nullptr) continue;
        bound.insert(p);
        bind_shapes(p->annotation);
      }
    }
    void on_binding(const Binding& b) override {
      if (b.var != nullptr) bound.insert(b.var);
      bind_shapes(b.match_cast);
    }
    void on_prim_expr(const PrimExpr* x) override {
      if (const auto* v = dyn_cast<PrimVar>(x)) {
        if (seen_shapes.insert(v).second) used_shapes.push_back(v);
      } else if (const auto* let = dyn_cast<PrimLet>(x)) {
        bound_shapes.insert(let->var);
      }
    }
  } collector;
  collector.visit(e);
  FreeVars out;
  for (const Var* v : collector.used)
    if (!collector.bound.count(v)) out.vars.push_back(v);
  for (const PrimVar* v : collector.used_shapes)
    if (!collector.bound_shapes.count(v)) out.shape_vars.push_back(v);
  return out;
}

std::vector<DefinedVar> defined_vars(const Expr* e) {
  struct Collector : Visitor {
    std::vector<DefinedVar> out;
    void on_function(const Function& f) override {
      for (const Var* p : f.params)
        if (p != nullptr) out.push_back({p, nullptr, &f});
    }
    void after_binding(const Binding& b) override {
      if (b.var != nullptr) out.push_back({b.var, &b, nullptr});
    }
  } collector;
  collector.visit(e);
  return std::move(collector.out);
}

std::vector<std::string> global_names_in(const Expr* e) { return globals_in(e, false); }

std::vector<std::string> called_globals(const Expr* e) { return globals_in(e, true); }

}  // namespace raxc::ir
