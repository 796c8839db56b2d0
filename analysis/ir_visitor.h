// A pre-order walk over Relax IR shared by the engine's queries and the lints.
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/expr.h"

namespace raxc::analysis {

// Pre-order walk over a function's expressions, bindings and blocks (nested functions too).
class IrVisitor {
 public:
  virtual ~IrVisitor() = default;
  virtual void on_expr(const ir::Expr*) {}
  virtual void on_binding(const ir::Binding&) {}
  virtual void on_block(const ir::BindingBlock&) {}
  virtual void on_function(const ir::Function&) {}

  void visit(const ir::Expr* e) {
    if (!e) return;
    on_expr(e);
    switch (e->kind) {
      case ir::ExprKind::Tuple:
        for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) visit(f);
        break;
      case ir::ExprKind::SeqExpr: {
        const auto* seq = ir::cast<ir::SeqExpr>(e);
        for (const ir::BindingBlock* block : seq->blocks) {
          on_block(*block);
          for (const ir::Binding* b : block->bindings) {
            on_binding(*b);
            visit(b->value);
          }
        }
        visit(seq->body);
        break;
      }
      case ir::ExprKind::Function: {
        const auto* f = ir::cast<ir::Function>(e);
        on_function(*f);
        visit(f->body);
        break;
      }
      case ir::ExprKind::If: {
        const auto* i = ir::cast<ir::If>(e);
        visit(i->cond);
        visit(i->true_branch);
        visit(i->false_branch);
        break;
      }
      case ir::ExprKind::Call: {
        const auto* c = ir::cast<ir::Call>(e);
        visit(c->op);
        for (const ir::Expr* a : c->args) visit(a);
        break;
      }
      case ir::ExprKind::TupleGetItem: visit(ir::cast<ir::TupleGetItem>(e)->tuple); break;
      default: break;
    }
  }
};

// The names of the globals `e` refers to (calls, call_tir callees, plain references), each
// once, in walk order.
inline std::vector<std::string> global_names_in(const ir::Expr* e) {
  struct Collector : IrVisitor {
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen;
    void on_expr(const ir::Expr* x) override {
      if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(x))
        if (seen.insert(gv->name).second) names.push_back(gv->name);
    }
  } collector;
  collector.visit(e);
  return std::move(collector.names);
}

}  // namespace raxc::analysis
