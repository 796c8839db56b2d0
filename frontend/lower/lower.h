// CST → AST lowering of one `.rx` file (text-format.md). Reports RX1xxx diagnostics for the
// parse-time rules and keeps going with the other definitions after an error.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/ir/hash.h"
#include "frontend/ir/module.h"
#include "frontend/ir/source_map.h"
#include "frontend/lower/cst.h"

namespace raxc::lower {

std::unique_ptr<ir::IRModule> lower_file(const cst::Cst& cst, TSNode root, DiagnosticSink& diags);

// ---------------------------------------------------------------- one definition at a time
// What the Engine (analysis/engine.h, through frontend/document.h) uses to re-lower only the
// definitions whose text changed: lower_file() is lower_outline() followed by
// lower_definition() for every definition, in order.

struct ModuleScope;
class Namespaces;

// The texts and positions of every statement the module-level IR comes from (imports, the class
// header, I.module_attrs, ...), and the name of a lone function (no class). While it is
// unchanged, the old module-level IR is still right.
struct HeaderKey {
  struct Statement {
    uint32_t begin = 0;  // IR offset
    std::string text;
    bool operator==(const Statement&) const = default;
  };
  std::vector<Statement> statements;
  std::optional<std::string> lone_function;
  bool operator==(const HeaderKey&) const = default;
};

// What lowering a body may ask about another global (text-format.md §3.3).
struct DeclarationFacts {
  enum class Kind : uint8_t { Relax, Prim, Extern };
  Kind kind = Kind::Relax;
  bool has_return_annotation = false;
  bool returns_void = false;
  bool operator==(const DeclarationFacts&) const = default;
};
// Every declared global by name.
using Declarations = std::map<std::string, DeclarationFacts, std::less<>>;

struct ModuleOutline {
  // Everything but `globals`: top-level kind, name, attributes, global infos, vdevices.
  std::unique_ptr<ir::IRModule> module;
  // The definitions to lower (relax/prim functions, R.ExternFunc bindings), in source order;
  // duplicates (already reported) are left out.
  std::vector<TSNode> definitions;
  HeaderKey header_key;
  // The facts of every declared global: when a global's facts change, the bodies that mention
  // it are lowered again.
  Declarations declarations;
  std::shared_ptr<const ModuleScope> scope;
  std::shared_ptr<const Namespaces> namespaces;
};

// Pass 1 of lower_file(): imports, module decorators, attributes and global infos, and the
// declaration of every global. Reports the diagnostics of those parts only.
ModuleOutline lower_outline(const cst::Cst& cst, TSNode root, DiagnosticSink& diags);

// Lowers one of `outline.definitions` into a GlobalDef with its own arena (nullopt when it
// failed; the reason is reported). `module` provides the module-level IR (vdevices) the body may
// refer to: the outline's module or an equivalent older one (same header_key). When
// `source_map` is given, every name the definition's Relax scopes resolve is recorded in it
// (frontend/ir/source_map.h); it is empty when the definition failed.
std::optional<ir::GlobalDef> lower_definition(const cst::Cst& cst, const ModuleOutline& outline,
                                              ir::IRModule& module, TSNode definition,
                                              DiagnosticSink& diags,
                                              ir::SourceMap* source_map = nullptr);

}  // namespace raxc::lower

template <>
struct std::hash<raxc::lower::HeaderKey> {
  size_t operator()(const raxc::lower::HeaderKey& k) const {
    size_t h = 0;
    for (const auto& statement : k.statements) {
      raxc::hash_combine(h, statement.begin);
      raxc::hash_combine(h, statement.text);
    }
    raxc::hash_combine(h, k.lone_function);
    return h;
  }
};

template <>
struct std::hash<raxc::lower::DeclarationFacts> {
  size_t operator()(const raxc::lower::DeclarationFacts& f) const {
    return size_t(f.kind) | size_t(f.has_return_annotation) << 8 | size_t(f.returns_void) << 9;
  }
};
