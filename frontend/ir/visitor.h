// The one walk over the IR: Relax expressions, binding blocks, bindings and functions, StructInfo,
// PrimExpr and TIR statements, in source order. A question about the IR ("which variables are
// free here", "which globals does this function call") is a Visitor that overrides the hooks it
// needs; the questions everybody asks are answered once, in walks.h. Analyses that compute
// something of their own per node (inference, the printer, the well-formedness checker) keep
// their own recursion; a question that only collects or finds nodes belongs here.
#pragma once
#include "frontend/ir/expr.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/ir/struct_info.h"
#include "frontend/ir/tir.h"

namespace raxc::ir {

// What a walk enters besides the tree it starts from. The defaults walk Relax code only (what
// most questions about a function's code need, and the cheapest walk); annotations and
// dimensions are entered by the walks that ask about them.
struct WalkOptions {
  // A Relax walk also enters StructInfo annotations: of parameters, of a function's return, of
  // binding variables, match_cast targets, a call's sinfo_args, an ExternFunc's StructInfo. A
  // variable's annotation is walked where the variable is bound, not at its uses.
  bool annotations = false;
  // Walks enter PrimExprs: of PrimValues and ShapeExprs, of StructInfo dimensions and values, of
  // TIR statements and buffers. (A walk started at a PrimExpr always walks it.)
  bool prim_exprs = false;
  // A StructInfo walk enters the return of a FuncStructInfo (R.Callable). The walks after binding
  // positions leave it out (see shape_vars in walks.h).
  bool callable_returns = true;
};

// A pre-order walk: each hook is called on a node before its children are walked, the children
// in source order. A hook may call skip_children() to leave the children of the node it was just
// given unwalked. Attributes (R.func_attr, call attributes, loop annotations) are not walked.
class Visitor {
 public:
  explicit Visitor(WalkOptions options = {}) : options_(options) {}
  virtual ~Visitor() = default;

  // ---- Relax
  virtual void on_expr(const Expr*) {}
  // After on_expr of the function, before its parameters' annotations and its body.
  virtual void on_function(const Function&) {}
  virtual void on_block(const BindingBlock&) {}
  // Before the binding's annotations and value.
  virtual void on_binding(const Binding&) {}
  // After the binding's value: where its variable comes into scope.
  virtual void after_binding(const Binding&) {}
  // ---- StructInfo and PrimExpr
  virtual void on_struct_info(const StructInfo*) {}
  virtual void on_prim_expr(const PrimExpr*) {}
  // ---- TIR
  virtual void on_stmt(const Stmt*) {}
  // Where a buffer is declared (a PrimFunc's buffer_map, T.alloc_buffer, T.match_buffer), before
  // its shape, strides and offset; not at each load or store.
  virtual void on_buffer(const Buffer&) {}

  // Null nodes are skipped, so optional fields can be passed as they are.
  void visit(const Expr* e);
  void visit(const StructInfo* s);
  void visit(const PrimExpr* e);
  void visit(const Stmt* s);
  void visit(const PrimFunc& f);

 protected:
  void skip_children() { skip_ = true; }
  const WalkOptions& options() const { return options_; }

 private:
  void visit_seq(const SeqExpr* seq);
  void visit_binding(const Binding& b);
  void visit_prim_exprs(const std::vector<const PrimExpr*>& values);
  void visit_region(const std::vector<PrimRange>& region);
  void visit_buffer(const Buffer* b);
  // True once when the last hook asked to skip the children of its node.
  bool skipped() {
    bool s = skip_;
    skip_ = false;
    return s;
  }

  WalkOptions options_;
  bool skip_ = false;
};

}  // namespace raxc::ir
