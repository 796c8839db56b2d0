// The questions about the IR that every stage asks, each answered by one walk (visitor.h):
// variables of a PrimExpr, shape variables of a StructInfo, shape variables an expression
// mentions, free variables, the globals an expression names or calls, the variables a scope
// defines. Results list each node once, in walk (source) order, so callers that report or
// number things get the same answer every run.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "frontend/ir/expr.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/ir/struct_info.h"
#include "frontend/ir/tir.h"

namespace raxc::ir {

// ------------------------------------------------------------------------- shape variables

// The variables of a PrimExpr, in order of first occurrence. collect_prim_vars appends those not
// yet in `out`. A PrimLet's own variable is listed only where its body uses it.
void collect_prim_vars(const PrimExpr* e, std::vector<const PrimVar*>& out);
std::vector<const PrimVar*> prim_vars(const PrimExpr* e);

// Calls `f` on every node of `e`, parents before children.
void for_each_prim_expr(const PrimExpr* e, const std::function<void(const PrimExpr*)>& f);

// Whether a TIR call reaches outside the kernel (packed and extern calls, pointers and handles,
// printing): such a call may not be repeated, reordered or moved to another thread. Math and
// T.if_then_else do not.
bool has_effects(const PrimCall& call);

// What TIR statements refer to: every variable they read, and every buffer they load, store or
// view (a T.match_buffer's source); what a loop body moved into its own function must take.
struct TirReferences {
  std::unordered_set<const PrimVar*> vars;
  std::unordered_set<const Buffer*> buffers;
};
TirReferences tir_references(const std::vector<const Stmt*>& stmts);

// Which positions of a StructInfo shape_vars looks at.
enum class ShapeVarPositions : uint8_t {
  // Every variable in every dimension, PrimStructInfo value and ShapeStructInfo value, also
  // inside expressions (`n * 2`) and in a Callable's parameters: the variables that matching the
  // StructInfo against a value brings into scope when they are not in scope yet (the seed spec's
  // derivation rules: "add any unbound shape variables in S to Σ"; erase_to_well_defined inserts
  // a FuncStructInfo's parameters' variables the same way).
  Any,
  // Only a variable standing alone as a dimension or value, outside Callables: the binding
  // positions proper of well-formedness rules 5 and 6 ("a dimension consisting of x will bind x;
  // 2*x is not a binding"). A Callable's parameters bind inside the Callable only.
  Lone,
};

// The shape variables in the binding positions of `s`, each once, in order of first occurrence.
// collect_shape_vars appends those not yet in `out`.
//
// The return of a FuncStructInfo is never a binding position, in either mode: matching a
// function against R.Callable binds variables from the parameters, and the return can only use
// those or variables already in scope (seed spec: get_shape_var_mapping "don't look at the
// return field; it's not a binding position"; erase_to_well_defined puts only the parameters'
// variables in scope; well-formedness rule 4 limits a return annotation to variables in scope or
// introduced by the parameters). A variable that appears only in a Callable's return is
// therefore not bound by the annotation: it has to be in scope already.
void collect_shape_vars(const StructInfo* s, std::vector<const PrimVar*>& out,
                        ShapeVarPositions positions = ShapeVarPositions::Any);
std::vector<const PrimVar*> shape_vars(const StructInfo* s,
                                       ShapeVarPositions positions = ShapeVarPositions::Any);

// Every shape variable `e` mentions, bound or used, each once, in walk order: in PrimValues,
// ShapeExprs and every annotation inside `e` (parameters, returns, bindings, match_cast targets,
// sinfo_args; Callable returns included, since this is about mentions, not bindings).
std::vector<const PrimVar*> mentioned_shape_vars(const Expr* e);

// --------------------------------------------------------------------------- Relax variables

// The variables `e` uses but does not bind, each once, in order of first use: what a closure
// of `e` captures (seed spec, "Closures"). A Relax variable is bound inside `e` when it is a
// parameter of a function in `e` (`e` itself included) or the variable of a binding in `e`; a
// local function's own binding variable is free in the function (it is bound around it). Uses
// in annotations count (`R.Tensor(s)` uses `s`).
//
// A shape variable is bound inside `e` where it stands alone in a binding position (shape_vars,
// Lone) of a parameter annotation, a match_cast target or an R.Callable's parameters in `e`;
// `n` in `R.Tensor((n * 2,))` is a use. Variables are identified by address, and the text format
// gives each signature's string dimension ("n") a variable of its own, so this is exact for
// them. A nested signature that names an outer variable bare (`R.Tensor((3, w))`, `w` bound by
// the enclosing function) refers to the outer variable, which matching there only checks; seen
// from `e` alone that is a binding position too, so `w` counts as bound by `e`.
struct FreeVars {
  std::vector<const Var*> vars;
  std::vector<const PrimVar*> shape_vars;
};
FreeVars free_vars(const Expr* e);

// A variable bound inside a scope: a parameter (binding == null, function set) or the variable
// of a binding (binding set, function == null).
struct DefinedVar {
  const Var* var;
  const Binding* binding = nullptr;
  const Function* function = nullptr;
};

// Every Relax variable `e` binds, nested functions included: each function's parameters before
// its body, a binding's variable after the variables its value binds (a binding's variable comes
// into scope once its value is evaluated).
std::vector<DefinedVar> defined_vars(const Expr* e);

// ----------------------------------------------------------------------------------- globals

// The names of the globals `e` refers to (calls, call_tir callees, plain references), each once,
// in walk order.
std::vector<std::string> global_names_in(const Expr* e);

// The names of the globals `e` calls: a GlobalVar in callee position (`Module.f(x)`), nested
// functions included, in first-call order, each once. A global passed as a value
// (`R.call_tir(Module.kernel, ...)`, `g = Module.f`) is named but not called.
std::vector<std::string> called_globals(const Expr* e);

}  // namespace raxc::ir
