// CST → AST lowering of one `.rx` file (text-format.md). Reports RX1xxx diagnostics for the
// parse-time rules and keeps going with the other definitions after an error.
#pragma once
#include <cstdint>
#include <functional>
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
// A global as pass 1 declared it from its statement (text offsets), kept so that the next
// outline of an edited document can take it again without reading the statement's tree.
struct DeclaredStatement {
  uint32_t begin = 0, end = 0;  // the statement
  std::string name;
  Span name_span;
  DeclarationFacts facts;
};

struct ModuleOutline {
  // Everything but `globals`: top-level kind, name, attributes, global infos, vdevices.
  std::unique_ptr<ir::IRModule> module;
  // The definitions to lower (relax/prim functions, R.ExternFunc bindings), in source order;
  // duplicates (already reported) are left out.
  std::vector<TSNode> definitions;
  HeaderKey header_key;
  std::shared_ptr<const ModuleScope> scope;
  std::shared_ptr<const Namespaces> namespaces;
  // Every declared global in source order (duplicates left out): when a global's facts change,
  // the bodies that mention it are lowered again. For a module class, also the namespaces they
  // were read under (imports after the class do not count); null for a lone function.
  std::vector<DeclaredStatement> declared;
  std::shared_ptr<const Namespaces> declared_under;
  size_t declarations_reused = 0;  // taken from OutlineReuse instead of the tree
  bool scope_shared = false;       // `scope` is OutlineReuse's previous one (the same declarations)
};

// The outline before some edits, and what they left alone. lower_outline takes a statement's
// declaration from `previous` when the statement's text is unchanged and was declared under
// the same namespaces: a keystroke inside one function reads one signature, not every one. When
// it declares the same globals as `previous` (names and facts, in order), it shares
// `previous->scope` instead of building another (`previous` needs only `declared`,
// `declared_under` and `scope`).
struct OutlineReuse {
  const ModuleOutline* previous = nullptr;
  // True when the text [begin, end) (current offsets) is as it was, at old_offset(begin).
  std::function<bool(uint32_t begin, uint32_t end)> unchanged;
  std::function<uint32_t(uint32_t at)> old_offset;
};

// Pass 1 of lower_file(): imports, module decorators, attributes and global infos, and the
// declaration of every global. Reports the diagnostics of those parts only.
ModuleOutline lower_outline(const cst::Cst& cst, TSNode root, DiagnosticSink& diags,
                            const OutlineReuse* reuse = nullptr);

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
