// CST → AST lowering of one `.rx` file (text-format.md). Reports RX1xxx diagnostics for the
// parse-time rules and keeps going with the other definitions after an error.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"
#include "frontend/lower/cst.h"

namespace raxc::lower {

std::unique_ptr<ir::IRModule> lower_file(const cst::Cst& cst, TSNode root, DiagnosticSink& diags);

// ---------------------------------------------------------------- one definition at a time
// What the Engine (analysis/engine.h, through frontend/document.h) uses to re-lower only the
// definitions whose text changed: lower_file() is lower_outline() followed by
// lower_definition() for every definition, in order.

struct ModuleScope;
class Namespaces;

struct ModuleOutline {
  // Everything but `globals`: top-level kind, name, attributes, global infos, vdevices.
  std::unique_ptr<ir::IRModule> module;
  // The definitions to lower (relax/prim functions, R.ExternFunc bindings), in source order;
  // duplicates (already reported) are left out.
  std::vector<TSNode> definitions;
  // The texts and positions of every statement the module-level IR comes from (imports, class
  // header, I.module_attrs, ...). When it is unchanged, the old module-level IR is still right.
  std::string header_key;
  // Name, kind and return-annotation facts of every declared global: what lowering a body may
  // ask about the other globals (text-format.md §3.3).
  std::string declarations_key;
  std::shared_ptr<const ModuleScope> scope;
  std::shared_ptr<const Namespaces> namespaces;
};

// Pass 1 of lower_file(): imports, module decorators, attributes and global infos, and the
// declaration of every global. Reports the diagnostics of those parts only.
ModuleOutline lower_outline(const cst::Cst& cst, TSNode root, DiagnosticSink& diags);

// Lowers one of `outline.definitions` into a GlobalDef with its own arena (nullopt when it
// failed; the reason is reported). `module` provides the module-level IR (vdevices) the body may
// refer to: the outline's module or an equivalent older one (same header_key).
std::optional<ir::GlobalDef> lower_definition(const cst::Cst& cst, const ModuleOutline& outline,
                                              ir::IRModule& module, TSNode definition,
                                              DiagnosticSink& diags);

}  // namespace raxc::lower
