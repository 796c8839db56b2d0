#include "analysis/lint/unused.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "analysis/ops/registry.h"
#include "frontend/ir/visitor.h"

namespace raxc::analysis {
namespace {

// A value whose only purpose is its result: dropping its binding cannot change behaviour.
bool has_no_effect(const ir::Expr* value) {
  const auto* call = ir::dyn_cast<ir::Call>(value);
  // An `if` may hold impure calls; a local function may be a closure's use.
  if (!call) return !ir::isa<ir::If>(value) && !ir::isa<ir::Function>(value);
  const auto* op = ir::dyn_cast<ir::Op>(call->op);
  if (!op) return false;  // a module function, a closure or a packed function: may be impure
  const ops::OpDef* def = ops::find_op(op->name);
  return def && def->purity == ops::Purity::Pure;
}

class UnusedBindings : public ir::Visitor {
 public:
  // Annotations too: `R.Tensor(s, "float32")` uses the shape variable `s`.
  UnusedBindings() : ir::Visitor(ir::WalkOptions{.annotations = true}) {}
  void on_expr(const ir::Expr* e) override {
    if (const auto* var = ir::dyn_cast<ir::Var>(e)) used_.insert(var);
    // A name that did not resolve (an error already reported) may have meant any binding of
    // that name: calling those unused would follow from that error.
    if (const auto* error = ir::dyn_cast<ir::ErrorExpr>(e); error && error->is_unresolved_name())
      unresolved_.insert(error->name);
  }
  void on_binding(const ir::Binding& b) override {
    if (!b.match_cast && !b.var->name.empty() && b.var->name[0] != '_' && has_no_effect(b.value))
      candidates_.push_back(&b);
  }
  void report(DiagnosticSink& diags) const {
    for (const ir::Binding* b : candidates_) {
      if (used_.count(b->var) || unresolved_.count(b->var->name)) continue;
      Diagnostic d = make_diagnostic(diag::UnusedBinding{.binding = b->var->name}, b->var->span);
      // Removing the statement is safe: its value has no effect (has_no_effect).
      d.fixes.push_back({.kind = DiagFix::Kind::RemoveStatement,
                         .target = b->var->span,
                         .statement = b->span,
                         .name = b->var->name});
      diags.report(std::move(d));
    }
  }

 private:
  std::unordered_set<const ir::Var*> used_;
  std::unordered_set<std::string> unresolved_;
  std::vector<const ir::Binding*> candidates_;
};

}  // namespace

void check_unused_bindings(const ir::Function* f, DiagnosticSink& diags) {
  if (!f) return;
  UnusedBindings lint;
  lint.visit(f);
  lint.report(diags);
}

}  // namespace raxc::analysis
