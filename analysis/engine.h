// The Engine: one analysis behind `raxc check` and the language server. It keeps
// open documents, re-analyses them incrementally after edits, and answers the queries an editor
// asks: diagnostics, the StructInfo at a position, definition and uses of a symbol, a global's
// signature, document symbols.
//
// Pipeline per Relax function: lowered ir::Function -> normalize -> check_function_well_formed
// -> infer_function (signatures of the other globals through signature_of); per module:
// check_module_well_formed. Syntax, lowering, well-formedness and inference diagnostics come
// out together. A function with syntax or lowering errors is analysed as well: lowering put an
// ir::ErrorExpr where the text is wrong, whose StructInfo is the unknown one (ir::is_unknown,
// frontend/ir/struct_info.h), which is compatible with everything and causes no diagnostic, so
// the rest of the function has the StructInfo and diagnostics of a clean file. The module-level
// checks still wait for a module without errors.
//
// Incremental by function. An update re-parses with tree-sitter (incrementally), re-lowers only
// the top-level definitions whose text changed (frontend/document.h), and re-analyses a
// function when it was re-lowered or when the signature (printed FuncStructInfo) of a global it
// references changed since its last analysis. Everything else, diagnostics included, is reused;
// spans of reused definitions are translated to their current position. Verdicts that depend on
// other functions' bodies (mutual recursion, RX2022 / RX2025) follow the call graph: when an
// update adds or removes a call of a global in some function, every function from which a call
// chain leads to it is re-analysed too (analysis/well_formed/call_graph.h); an edit that changes
// no call edges re-analyses only the edited function.
//
// Offsets: every Span and offset in this API is a 0-based UTF-8 byte offset into the document's
// current text (SourceFile converts to line/column and UTF-16). IR pointers returned by queries
// (Var, Expr, StructInfo, GlobalDef) stay valid until the next update() / replace() / close() of
// that document.
//
// Thread-safety: none inside. An Engine is used by one thread at a time (the language server
// serialises its calls: updates and queries from the same thread, or under one mutex). Separate
// Engine objects are independent.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/infer/infer.h"
#include "frontend/diagnostics.h"
#include "frontend/document.h"
#include "frontend/ir/module.h"
#include "frontend/source.h"

namespace raxc::analysis {

using frontend::TextEdit;

// What the last open / update did (tests, the benchmark, LSP logging).
struct UpdateStats {
  bool full = false;       // module-level IR changed: every definition was lowered again
  size_t definitions = 0;  // top-level definitions in the document
  size_t relowered = 0;    // definitions lowered by this update
  size_t functions = 0;    // Relax functions in the document
  size_t reanalysed = 0;   // Relax functions normalised + checked + inferred by this update
};

struct StructInfoAt {
  Span span;                                    // what the answer is about (text offsets)
  std::string name;                             // the variable's name, when it is one
  const ir::Var* var = nullptr;                 // a variable (its binding or one of its uses)
  const ir::Expr* expr = nullptr;               // otherwise the innermost expression
  const ir::StructInfo* struct_info = nullptr;  // inferred
  const ir::StructInfo* annotation = nullptr;   // the variable's annotation, if written
};

enum class SymbolKind : uint8_t {
  Var,        // a Relax variable bound in a function body
  Param,      // a parameter (of a global or a nested function)
  ShapeVar,   // a symbolic shape variable (`n` in R.Tensor(("n", 4)))
  Function,   // a global Relax function
  PrimFunc,   // a global PrimFunc (also reached through call_tir)
  ExternFunc  // a global R.ExternFunc
};

struct Symbol {
  SymbolKind kind = SymbolKind::Var;
  std::string name;
  Span definition;  // where it is introduced (the name), text offsets
  Span scope;       // where uses can be: the enclosing global, or the whole document
  const ir::Var* var = nullptr;
  const ir::PrimVar* prim_var = nullptr;
  const ir::GlobalDef* global = nullptr;
};

struct DocumentSymbol {
  enum class Kind : uint8_t { Module, Function, PrimFunc, ExternFunc, DataflowBlock };
  Kind kind = Kind::Function;
  std::string name;
  Span range;      // the whole construct
  Span selection;  // its name (or `with R.dataflow()` for a block)
  std::vector<DocumentSymbol> children;
};

class Engine {
 public:
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ---- documents, identified by a key of the caller's choice (a path or a URI)
  void open(const std::string& key, std::string text);  // re-opening replaces the text
  // Opens `key` at the text `other` holds for it, sharing other's syntax tree (see
  // frontend::Document's constructor): a second Engine of a large document costs its IR and
  // analysis, not another tree. False when `other` does not hold `key`. `other` is only read.
  bool open_like(const std::string& key, const Engine& other);
  // Applies incremental edits (in order, each in the coordinates the previous one left) and
  // re-analyses. False when the document is not open.
  bool update(const std::string& key, std::span<const TextEdit> edits);
  bool replace(const std::string& key, std::string text);
  // Makes the analysis exactly that of a fresh Engine opened on the same text: see
  // frontend::Document::settle (an incremental parse of text with syntax errors may recover
  // differently). A whole-file parse when the text has syntax errors, else nothing; for a text
  // at rest. True when the diagnostics or anything else may have changed.
  bool settle(const std::string& key);
  bool settled(const std::string& key) const;  // settle() would do nothing (or not open)
  void close(const std::string& key);
  bool is_open(const std::string& key) const;

  const std::string* text(const std::string& key) const;
  // Line map of the current text (built on first use after each update).
  const SourceFile* source(const std::string& key) const;
  const frontend::Document* document(const std::string& key) const;
  const UpdateStats* last_update(const std::string& key) const;

  // ---- queries (null / empty for a document that is not open)

  // Every diagnostic: syntax, lowering, module and function well-formedness, inference; text
  // offsets; syntax first, then module-level ones, then each definition's in source order.
  // Severities are the registry's: apply user settings by reporting into a DiagnosticSink.
  std::vector<Diagnostic> diagnostics(const std::string& key) const;

  // The StructInfo at `offset`: the variable whose name is there (binding, parameter or use),
  // else the innermost expression whose span contains it.
  std::optional<StructInfoAt> struct_info_at(const std::string& key, uint32_t offset) const;

  // The symbol whose name is at `offset` (Relax vars, params, shape variables, globals via
  // `cls.f`, PrimFuncs referenced by call_tir), as lowering resolved that name: the definition's
  // source map (frontend/ir/source_map.h), so a shadowed or rebound name is the variable the
  // compiler sees there. Names inside PrimFunc bodies are not resolved (their scopes are TIR's).
  std::optional<Symbol> symbol_at(const std::string& key, uint32_t offset) const;
  // Every name token in `range` with the symbol it resolves to (semantic highlighting), in
  // order: one pass, a lookup in the definition's source map per token, nothing materialised.
  void for_each_symbol(
      const std::string& key, Span range,
      const std::function<void(const frontend::Token&, const std::optional<Symbol>&)>& visit) const;
  // Every name lowering resolved inside `range` (text offsets), with its symbol, in text order:
  // each definition's source map and its own name, read directly. The same answers as
  // for_each_symbol gives for the tokens that resolve, without walking the syntax tree (semantic
  // highlighting of a whole document: the tree of a large module has millions of nodes).
  void for_each_resolved(const std::string& key, Span range,
                         const std::function<void(Span, const Symbol&)>& visit) const;
  // Every occurrence of that symbol (the definition first when asked for), from the source maps.
  std::vector<Span> references(const std::string& key, uint32_t offset,
                               bool include_definition = true) const;

  // The signature of a global as written (signature_of: a missing return annotation is
  // R.Object), or null.
  const ir::StructInfo* signature(const std::string& key, std::string_view global) const;
  // The signature callers see: a Relax function without a return annotation returns what its
  // body infers (caller_signature), the rest as signature(). New nodes go to `arena`.
  const ir::StructInfo* caller_signature(const std::string& key, std::string_view global,
                                         ir::Arena& arena) const;
  // The inferred StructInfo of a bound variable or parameter of any function, or null.
  const ir::StructInfo* inferred(const std::string& key, const ir::Var* var) const;
  // The inference of one global Relax function, or null (not a function, or not analysed
  // because its definition has errors).
  const FunctionInference* inference(const std::string& key, std::string_view global) const;
  // The normal form of a global Relax function as analysed (what inference() describes and the
  // backend runs), or null under the same conditions as inference().
  const ir::Function* normalized(const std::string& key, std::string_view global) const;

  // Module -> functions -> dataflow blocks.
  std::vector<DocumentSymbol> document_symbols(const std::string& key) const;

  struct State;  // one open document (opaque; engine.cpp)

 private:
  State* find(const std::string& key) const;
  // Opens `key` on the document `make_document` builds (on the large stack) and analyses it.
  void install(const std::string& key,
               const std::function<std::unique_ptr<frontend::Document>()>& make_document);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace raxc::analysis
