// A complete, deterministic, indented S-expression dump of the IR (every node, every field), for
// tests and debugging: `raxc parse --dump=ast`. Pointers are never printed.
//
// With `var_names = false`, Relax variables, TIR variables and buffers are printed as `%0`, `%1`,
// … in order of first appearance in the dump, so two modules that are equal up to renaming of
// local names dump identically. That is the AST equality of the printer's round-trip tests.
#pragma once
#include <string>

#include "frontend/ir/module.h"

namespace raxc::ir {

struct DumpOptions {
  bool spans = false;      // append `@begin:end` to every node that has a span
  bool var_names = true;   // false: number variables instead of naming them
};

std::string dump_module(const IRModule& module, const DumpOptions& options = {});
std::string dump_expr(const Expr* expr, const DumpOptions& options = {});
std::string dump_struct_info(const StructInfo* sinfo, const DumpOptions& options = {});
std::string dump_prim_expr(const PrimExpr* expr, const DumpOptions& options = {});
std::string dump_stmt(const Stmt* stmt, const DumpOptions& options = {});

}  // namespace raxc::ir
