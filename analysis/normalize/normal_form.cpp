#include "analysis/normalize/normal_form.h"

#include "frontend/ir/arena.h"

namespace raxc::analysis {

bool is_atom(const ir::Expr* e) {
  switch (e->kind) {
    case ir::ExprKind::Var:
    case ir::ExprKind::DataflowVar:
    case ir::ExprKind::GlobalVar:
    case ir::ExprKind::Constant:
    case ir::ExprKind::ShapeExpr:
    case ir::ExprKind::PrimValue:
    case ir::ExprKind::StringImm:
    case ir::ExprKind::DataTypeImm:
    case ir::ExprKind::ExternFunc:
    case ir::ExprKind::Op:
    case ir::ExprKind::Error: return true;  // has no parts, so nothing to normalise
    default: return false;
  }
}

bool is_leaf(const ir::Expr* e) {
  if (auto* t = ir::dyn_cast<ir::Tuple>(e)) {
    for (const ir::Expr* field : t->fields)
      if (!is_leaf(field)) return false;
    return true;
  }
  return is_atom(e);
}

bool is_call_tir_family(const ir::Expr* op) {
  auto* o = ir::dyn_cast<ir::Op>(op);
  return o && (o->name == "relax.call_tir" || o->name == "relax.call_tir_inplace" ||
               o->name == "relax.call_tir_with_grad");
}

std::string describe_expr(const ir::Expr* e) {
  switch (e->kind) {
    case ir::ExprKind::Call: {
      const ir::Expr* op = ir::cast<ir::Call>(e)->op;
      if (auto* o = ir::dyn_cast<ir::Op>(op)) return "the call to '" + o->name + "'";
      if (auto* g = ir::dyn_cast<ir::GlobalVar>(op)) return "the call to '" + g->name + "'";
      if (auto* v = ir::dyn_cast<ir::Var>(op)) return "the call to '" + v->name + "'";
      if (auto* x = ir::dyn_cast<ir::ExternFunc>(op))
        return "the call to '" + x->global_symbol + "'";
      return "a call";
    }
    case ir::ExprKind::If: return "an 'if' expression";
    case ir::ExprKind::Function: return "a function";
    case ir::ExprKind::TupleGetItem: return "a tuple index";
    case ir::ExprKind::SeqExpr: return "a sequence of bindings";
    case ir::ExprKind::Tuple: return "a tuple";
    default: return "an expression";
  }
}

namespace {

// Walks a function in normal-form terms. With a sink it reports every violation; without one
// it stops at the first (the fast "is it already normal?" question of normalize()).
class NormalFormChecker {
 public:
  explicit NormalFormChecker(DiagnosticSink* diags) : diags_(diags) {}

  bool function(const ir::Function* f) {
    seq(f->body);
    return ok_;
  }

 private:
  bool done() const { return !ok_ && !diags_; }

  void fail(DiagPayload what, Span span) {
    ok_ = false;
    if (diags_) diags_->report(make_diagnostic(std::move(what), span));
  }

  void seq(const ir::SeqExpr* s) {
    const ir::BindingBlock* previous = nullptr;
    for (const ir::BindingBlock* block : s->blocks) {
      if (done()) return;
      if (block->bindings.empty())
        fail(diag::UnconsolidatedBindingBlocks{.reason = "an empty binding block"}, block->span);
      if (previous && previous->is_dataflow == block->is_dataflow)
        fail(diag::UnconsolidatedBindingBlocks{.reason = block->is_dataflow
                                                             ? "two consecutive dataflow blocks"
                                                             : "two consecutive binding blocks"},
             block->span);
      previous = block;
      for (const ir::Binding* b : block->bindings) value(b->value);
    }
    if (!done()) leaf(s->body);
  }

  // A sub-expression position: must be a leaf (tuples: leaves all the way down).
  void leaf(const ir::Expr* e) {
    if (done()) return;
    if (auto* t = ir::dyn_cast<ir::Tuple>(e)) {
      for (const ir::Expr* field : t->fields) leaf(field);
      return;
    }
    if (is_atom(e)) return;
    fail(diag::NestedExpressionNotBound{.expression = describe_expr(e)}, e->span);
  }

  // The right-hand side of a binding: a leaf, or a non-leaf whose sub-expressions are leaves.
  void value(const ir::Expr* e) {
    if (done()) return;
    switch (e->kind) {
      case ir::ExprKind::Call: return call(ir::cast<ir::Call>(e));
      case ir::ExprKind::If: {
        auto* i = ir::cast<ir::If>(e);
        leaf(i->cond);
        seq(i->true_branch);
        seq(i->false_branch);
        return;
      }
      case ir::ExprKind::TupleGetItem: return leaf(ir::cast<ir::TupleGetItem>(e)->tuple);
      case ir::ExprKind::Function: return seq(ir::cast<ir::Function>(e)->body);
      case ir::ExprKind::SeqExpr:
        return fail(diag::MisplacedBindingSequence{.detail = ""}, e->span);
      default: return leaf(e);
    }
  }

  void call(const ir::Call* c) {
    if (!is_atom(c->op)) leaf(c->op);
    for (const ir::Expr* arg : c->args) leaf(arg);
    if (is_call_tir_family(c->op) && c->args.size() >= 2 && !ir::isa<ir::Tuple>(c->args[1])) {
      auto* var = ir::dyn_cast<ir::Var>(c->args[1]);
      fail(diag::CallArgumentsNotTupleLiteral{.op = ir::cast<ir::Op>(c->op)->name,
                                              .arguments =
                                                  var ? var->name : describe_expr(c->args[1])},
           c->args[1]->span);
    }
  }

  DiagnosticSink* diags_;
  bool ok_ = true;
};

}  // namespace

bool is_normal_form(const ir::Function* f) { return NormalFormChecker(nullptr).function(f); }

void check_normal_form(const ir::Function* f, DiagnosticSink& diags) {
  NormalFormChecker(&diags).function(f);
}

}  // namespace raxc::analysis
