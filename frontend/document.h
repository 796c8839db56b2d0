// An open document for the Engine (analysis/engine.h) and the language server: text, an
// incrementally re-parsed tree-sitter tree, and the IR lowered one top-level definition at a
// time. After an edit only the definitions whose text changed are lowered again; the others are
// reused as they are, even when text before them moved.
//
// Span translation. A reused definition keeps the spans it was lowered with, so those no longer
// match the text once something before it grew or shrank. Each lowering of a definition
// therefore gets a range of "IR offsets" of its own (the lowering adds a bias to every span):
// the first full lowering uses the text offsets themselves, every later re-lowering a fresh
// range past everything handed out before. An IR span belongs to exactly one definition, and
// to_text() turns it into text offsets with that definition's current position; to_ir() does
// the reverse for a text offset inside a definition. Spans of module-level IR (vdevices,
// attributes) are text offsets: the module-level IR is lowered again whenever one of its
// statements changes text or position (ModuleOutline::header_key).
//
// This header does not expose tree-sitter: the analysis never sees it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"
#include "frontend/ir/source_map.h"
#include "frontend/printer/printer.h"

namespace raxc::frontend {

// Replace the bytes [begin, end) of the current text by `text` (the LSP's change event in byte
// offsets). Out-of-range offsets are clamped.
struct TextEdit {
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string text;
};

// One top-level definition as last lowered.
struct Definition {
  uint64_t id = 0;        // new for every lowering: caches keyed on it are valid while it lives
  std::string name;       // the global's name ("" when the declaration has none)
  std::string text;       // its source text (decorators included)
  uint32_t begin = 0;     // where it starts in the current text
  uint32_t ir_begin = 0;  // where its IR spans start (see the header comment)
  std::optional<ir::GlobalDef> global;  // nullopt when lowering failed (reported)
  std::vector<Diagnostic> diagnostics;  // its lowering diagnostics, in IR offsets
  // Every name the lowering resolved in it, with what it denotes (IR offsets): the one name
  // resolver editor queries use (frontend/ir/source_map.h). Empty when lowering failed.
  ir::SourceMap source_map;

  Span text_span() const { return {begin, begin + uint32_t(text.size())}; }
  Span ir_span() const { return {ir_begin, ir_begin + uint32_t(text.size())}; }
};

// A name written in the text, for definition / references / rename.
struct Token {
  enum class Kind : uint8_t {
    Identifier,  // `x`, a parameter, a binding target, a def name
    Attribute,   // the `f` of `cls.f` / `R.add`: `object` holds the text before the dot
    String,      // the content of a string literal (`"n"` in R.Tensor(("n", 4)))
  };
  Kind kind = Kind::Identifier;
  Span span;  // text offsets
  std::string text;
  std::string object;  // Attribute: the object when it is a plain identifier, else ""
};

struct LoweringStats {
  bool full = false;               // the module-level IR changed: everything was lowered again
  size_t lowered = 0;              // definitions lowered by the last update
  size_t reused = 0;               // definitions kept as they were
  bool full_syntax_check = true;   // false: only the changed definitions were syntax-checked
  size_t declarations_reused = 0;  // globals declared from the last outline, not the tree
  bool scope_shared = false;       // the outline's scope of globals is the last outline's
  size_t definitions_syntax_checked = 0;  // by the composed check (the changed ones)
  bool syntax_checked_beside = false;     // ... one of them beside the outline (second core)
};

// Runs `body` on a thread with a large stack and waits for it (also declared in frontend.h): the
// lowering and the analysis recurse over the tree.
void run_with_large_stack(const std::function<void()>& body);

class Document {
 public:
  explicit Document(std::string text);
  // The same text as `other`, starting from a copy of its syntax tree: tree-sitter shares the
  // nodes of the two trees until one of them is edited, so a second Document of one file (the
  // language server keeps two) costs its IR, not another tree. `other` is only read.
  explicit Document(const Document& other, std::nullptr_t /*not a copy: no IR is shared*/);
  ~Document();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  const std::string& text() const;

  // Applies the edits in order (each in the coordinates of the text the previous one left),
  // re-parses incrementally and re-lowers what changed.
  void apply(std::span<const TextEdit> edits);
  void replace(std::string text);  // the whole text at once
  // Makes the document what a fresh Document of its text would be. Tree-sitter's incremental
  // re-parse of a text with syntax errors can recover from them differently than a parse from
  // scratch (it reuses subtrees of the old tree), so after edits the syntax tree, and what is
  // read from it, may differ from `raxc check`'s. When the tree has errors and came from an
  // incremental parse, this parses the text from scratch and, if the trees differ, lowers
  // everything again from the fresh one; if they are the same, it reads again the definitions
  // with errors in them (an update kept any whose text it did not change, and an earlier tree
  // may have recovered from their errors otherwise). A whole-file parse: callers run it when the
  // text is at rest (the language server, once the document has been quiet). True when anything
  // changed.
  bool settle();
  bool settled() const;  // settle() would change nothing and parse nothing

  // The module as of the last update: module-level IR plus the globals that lowered, in source
  // order. Valid until the next update.
  const ir::IRModule& module() const;
  const std::vector<std::shared_ptr<Definition>>& definitions() const;
  const LoweringStats& stats() const;

  // Syntax, module-level and lowering diagnostics, in text offsets, sorted by position. Lowering
  // diagnostics inside a definition with a syntax error are left out (consequences of it).
  std::vector<Diagnostic> diagnostics() const;
  // True when a syntax error lies in `range`, or the region around one (the definition that
  // holds it, as the indentation shows) overlaps it: analysing that code would only report
  // consequences of the error.
  bool overlaps_syntax_error(Span range) const;
  // Every comment of the text (for printing; their spans are text offsets).
  const std::vector<printer::Comment>& comments() const;

  // IR offsets <-> text offsets. A span that belongs to no definition is returned as it is
  // (module-level IR), clamped to the text.
  Span to_text(Span ir_span) const;
  Diagnostic to_text(Diagnostic d) const;
  // The definition containing text offset `offset` (its end included), or null.
  const Definition* definition_at(uint32_t offset) const;
  // The definition an IR span belongs to, or null.
  const Definition* definition_of_ir(Span ir_span) const;
  std::optional<uint32_t> to_ir(uint32_t text_offset) const;

  // The name token whose span contains `offset` (or ends at it), if any.
  std::optional<Token> token_at(uint32_t offset) const;
  // Every name token inside `range` (text offsets), in order.
  std::vector<Token> tokens_in(Span range) const;
  // The same, one at a time (no list of a whole document's tokens is built).
  void for_each_token(Span range, const std::function<void(const Token&)>& visit) const;
  // The spans of the syntax nodes around `offset`, innermost first, each strictly larger than
  // the previous one (selection ranges: name, call, binding, block, function, module).
  std::vector<Span> enclosing_spans(uint32_t offset) const;

  // True when the IR offsets equal the text offsets everywhere (nothing was re-lowered since
  // the last full lowering, and nothing moved): printing with comments() is then exact.
  bool offsets_are_text_offsets() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace raxc::frontend
