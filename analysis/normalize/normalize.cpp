#include "analysis/normalize/normalize.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/normalize/normal_form.h"
#include "frontend/ir/walks.h"

namespace raxc::analysis {
namespace {

// Collects every variable name of a function (nested functions included) so temporaries get
// names that read well in printed IR and never look like a user's variable.
class NameSource {
 public:
  explicit NameSource(const ir::Function* f) : root_(f) {}

  std::string next() {
    if (!collected_)
      for (const ir::DefinedVar& d : ir::defined_vars(root_)) used_.insert(d.var->name);
    collected_ = true;
    for (;;) {
      std::string name = counter_ == 0 ? "lv" : "lv" + std::to_string(counter_);
      ++counter_;
      if (used_.insert(name).second) return name;
    }
  }

 private:
  const ir::Function* root_;
  bool collected_ = false;
  std::unordered_set<std::string> used_;
  int counter_ = 0;
};

// The blocks of the SeqExpr being rebuilt. Bindings are emitted with the kind of block they
// belong in; consecutive blocks of one kind are merged and empty ones dropped by finish().
class BlockEmitter {
 public:
  void emit(const ir::Binding* b, bool dataflow, const ir::BindingBlock* source) {
    if (pending_.empty() || pending_.back().dataflow != dataflow)
      pending_.push_back({dataflow, {}, source});
    pending_.back().bindings.push_back(b);
  }

  // The blocks after consolidation; a block equal to its source block is the source itself.
  std::vector<const ir::BindingBlock*> finish(ir::Arena& arena) {
    std::vector<const ir::BindingBlock*> out;
    for (Pending& p : pending_) {
      if (p.bindings.empty()) continue;
      const ir::BindingBlock* src = p.source;
      if (src && src->is_dataflow == p.dataflow && src->bindings == p.bindings) {
        out.push_back(src);
        continue;
      }
      Span span = src ? src->span : Span{};
      if (span.empty()) span = {p.bindings.front()->span.begin, p.bindings.back()->span.end};
      out.push_back(
          arena.make<ir::BindingBlock>(ir::BindingBlock{p.dataflow, std::move(p.bindings), span}));
    }
    return out;
  }

 private:
  struct Pending {
    bool dataflow;
    std::vector<const ir::Binding*> bindings;
    const ir::BindingBlock* source;
  };
  std::vector<Pending> pending_;
};

// Where new temporaries go while one binding (or the SeqExpr body) is normalised.
struct EmitContext {
  BlockEmitter& out;
  bool dataflow;                   // temporaries become DataflowVars
  const ir::BindingBlock* source;  // the block being rewritten (for sharing)
};

class Normalizer {
 public:
  Normalizer(ir::Arena& arena, const ir::Function* root) : arena_(arena), names_(root) {}

  const ir::Function* function(const ir::Function* f) {
    const ir::SeqExpr* body = seq(f->body);
    if (body == f->body) return f;
    return arena_.make<ir::Function>(f->params, body, f->ret_struct_info, f->is_pure, f->is_private,
                                     f->attrs, f->span, f->name_span);
  }

 private:
  const ir::SeqExpr* seq(const ir::SeqExpr* s) {
    BlockEmitter out;
    for (const ir::BindingBlock* block : s->blocks)
      for (const ir::Binding* b : block->bindings)
        binding(b, EmitContext{out, block->is_dataflow, block});
    const ir::Expr* body = to_leaf(s->body, EmitContext{out, false, nullptr});
    std::vector<const ir::BindingBlock*> blocks = out.finish(arena_);
    if (body == s->body && blocks == s->blocks) return s;
    return arena_.make<ir::SeqExpr>(std::move(blocks), body, s->span);
  }

  void binding(const ir::Binding* b, const EmitContext& ctx) {
    const ir::Expr* value = b->value;
    value = non_leaf(value, ctx);
    remember_tuple(b, value);
    if (value != b->value)
      b = arena_.make<ir::Binding>(ir::Binding{b->var, value, b->match_cast, b->span});
    ctx.out.emit(b, ctx.dataflow, ctx.source);
  }

  // A SeqExpr used as a value: its bindings join the current scope and its body replaces it
  // (`as_value`: the body may stay a non-leaf, it becomes the binding's value). Inside a
  // dataflow block an ordinary block cannot be inlined: the SeqExpr stays (RX2001).
  const ir::Expr* flatten(const ir::SeqExpr* nested, const EmitContext& ctx, bool as_value) {
    if (ctx.dataflow)
      for (const ir::BindingBlock* block : nested->blocks)
        if (!block->is_dataflow && !block->bindings.empty()) return seq(nested);
    for (const ir::BindingBlock* block : nested->blocks)
      for (const ir::Binding* b : block->bindings)
        binding(b, EmitContext{ctx.out, block->is_dataflow, nullptr});
    return as_value ? non_leaf(nested->body, ctx) : to_leaf(nested->body, ctx);
  }

  // The right-hand side of a binding: the node itself may be a non-leaf, its children not.
  const ir::Expr* non_leaf(const ir::Expr* e, const EmitContext& ctx) {
    switch (e->kind) {
      case ir::ExprKind::Call: return call(ir::cast<ir::Call>(e), ctx);
      case ir::ExprKind::If: {
        auto* i = ir::cast<ir::If>(e);
        const ir::Expr* cond = to_leaf(i->cond, ctx);
        const ir::SeqExpr* t = seq(i->true_branch);
        const ir::SeqExpr* f = seq(i->false_branch);
        if (cond == i->cond && t == i->true_branch && f == i->false_branch) return e;
        return arena_.make<ir::If>(cond, t, f, i->span);
      }
      case ir::ExprKind::TupleGetItem: {
        auto* g = ir::cast<ir::TupleGetItem>(e);
        const ir::Expr* tuple = to_leaf(g->tuple, ctx);
        if (tuple == g->tuple) return e;
        return arena_.make<ir::TupleGetItem>(tuple, g->index, g->span);
      }
      case ir::ExprKind::Function: return function(ir::cast<ir::Function>(e));
      case ir::ExprKind::SeqExpr: return flatten(ir::cast<ir::SeqExpr>(e), ctx, /*as_value=*/true);
      default: return to_leaf(e, ctx);
    }
  }

  // A sub-expression position: atoms stay, tuples keep their shape with leaf fields, anything
  // else is bound to a fresh temporary carrying the sub-expression's span.
  const ir::Expr* to_leaf(const ir::Expr* e, const EmitContext& ctx) {
    if (is_atom(e)) return e;
    if (auto* t = ir::dyn_cast<ir::Tuple>(e)) return tuple(t, ctx);
    if (auto* s = ir::dyn_cast<ir::SeqExpr>(e)) {
      const ir::Expr* flat = flatten(s, ctx, /*as_value=*/false);
      return is_leaf(flat) ? flat : bind(flat, ctx, e->span);
    }
    return bind(non_leaf(e, ctx), ctx, e->span);
  }

  const ir::Expr* tuple(const ir::Tuple* t, const EmitContext& ctx) {
    std::vector<const ir::Expr*> fields;
    fields.reserve(t->fields.size());
    bool changed = false;
    for (const ir::Expr* field : t->fields) {
      fields.push_back(to_leaf(field, ctx));
      changed = changed || fields.back() != field;
    }
    if (!changed) return t;
    return arena_.make<ir::Tuple>(std::move(fields), t->span);
  }

  const ir::Var* bind(const ir::Expr* value, const EmitContext& ctx, Span span) {
    auto* var = arena_.make<ir::Var>(ctx.dataflow, names_.next(), nullptr, span);
    ctx.out.emit(arena_.make<ir::Binding>(ir::Binding{var, value, nullptr, span}), ctx.dataflow,
                 nullptr);
    return var;
  }

  const ir::Expr* call(const ir::Call* c, const EmitContext& ctx) {
    const ir::Expr* op = is_atom(c->op) ? c->op : to_leaf(c->op, ctx);
    bool changed = op != c->op;
    std::vector<const ir::Expr*> args;
    args.reserve(c->args.size());
    for (size_t i = 0; i < c->args.size(); ++i) {
      const ir::Expr* arg = c->args[i];
      if (i == 1 && is_call_tir_family(op)) arg = call_tir_args(arg, ctx);
      args.push_back(to_leaf(arg, ctx));
      changed = changed || args.back() != c->args[i];
    }
    if (!changed) return c;
    return arena_.make<ir::Call>(op, std::move(args), c->sinfo_args, c->attrs, c->span);
  }

  // call_tir's custom rule: the PrimFunc arguments as a tuple literal. A variable holding a
  // tuple of known arity is spelled out field by field; otherwise it stays (RX2003).
  const ir::Expr* call_tir_args(const ir::Expr* arg, const EmitContext& ctx) {
    auto* var = ir::dyn_cast<ir::Var>(arg);
    if (!var) return arg;
    int arity = tuple_arity(var);
    if (arity < 0) return arg;
    std::vector<const ir::Expr*> fields;
    for (int i = 0; i < arity; ++i)
      fields.push_back(bind(arena_.make<ir::TupleGetItem>(var, i, arg->span), ctx, arg->span));
    return arena_.make<ir::Tuple>(std::move(fields), arg->span);
  }

  int tuple_arity(const ir::Var* var) const {
    if (auto* t = var->annotation ? ir::dyn_cast<ir::TupleSInfo>(var->annotation) : nullptr)
      return static_cast<int>(t->fields.size());
    auto it = tuple_arity_.find(var);
    return it == tuple_arity_.end() ? -1 : it->second;
  }

  void remember_tuple(const ir::Binding* b, const ir::Expr* value) {
    if (!b->var) return;
    if (auto* t = b->match_cast ? ir::dyn_cast<ir::TupleSInfo>(b->match_cast) : nullptr)
      tuple_arity_[b->var] = static_cast<int>(t->fields.size());
    else if (auto* t = ir::dyn_cast<ir::Tuple>(value))
      tuple_arity_[b->var] = static_cast<int>(t->fields.size());
    else if (auto* v = ir::dyn_cast<ir::Var>(value); v && tuple_arity(v) >= 0)
      tuple_arity_[b->var] = tuple_arity(v);
  }

  ir::Arena& arena_;
  NameSource names_;
  std::unordered_map<const ir::Var*, int> tuple_arity_;
};

}  // namespace

const ir::Function* normalize(const ir::Function* f, ir::Arena& arena) {
  if (is_normal_form(f)) return f;
  return Normalizer(arena, f).function(f);
}

}  // namespace raxc::analysis
