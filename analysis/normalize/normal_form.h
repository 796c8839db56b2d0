// The normal-form criteria of the seed spec ("Normal Form" 1-5) as a read-only check, shared by
// normalize() (to return a function untouched when it is already normal) and the
// well-formedness checker (which reports what normalize() could not fix: RX2000-RX2003).
#pragma once
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/ir/expr.h"

namespace raxc::analysis {

// Var, DataflowVar, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm and, as
// callees, ExternFunc and Op: the expressions that never need a binding of their own.
bool is_atom(const ir::Expr* e);
// An atom, or a Tuple whose fields are leaves (the spec counts tuples as leaves).
bool is_leaf(const ir::Expr* e);
// Operators whose custom normalization wants the PrimFunc arguments as a tuple literal.
bool is_call_tir_family(const ir::Expr* op);

// True when `f` (and every function nested in it) is in normal form.
bool is_normal_form(const ir::Function* f);
// Reports every violation of normal form in `f` (RX2000-RX2003).
void check_normal_form(const ir::Function* f, DiagnosticSink& diags);

// "the call to 'relax.add'", "an 'if' expression", ...: names an expression in messages.
std::string describe_expr(const ir::Expr* e);

}  // namespace raxc::analysis
