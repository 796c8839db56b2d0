// The IDE layer: what an editor asks about one open document, answered in plain data and in
// editor terms (text offsets, labels, edits), from the analysis engine. It knows nothing of
// the Language Server Protocol: lsp/ converts its requests into these calls and these results
// into JSON, and schedules; a test or another front end can call the same functions.
//
// Every function reads one engine at one text and is a pure function of it. The caller holds
// whatever lock the engine needs (its const queries fill lazy caches) and passes the document's
// key. Offsets are byte offsets into the engine's current text of that document.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/engine.h"
#include "frontend/diagnostics.h"
#include "frontend/span.h"

namespace raxc::ide {

// One open document of an engine: what every query starts from.
struct FileRef {
  const analysis::Engine& engine;
  const std::string& key;
};

// A replacement of the text in `span` (offsets of the document's current text).
struct Edit {
  Span span;
  std::string new_text;
};

// ---------------------------------------------------------------------------------- hover

// What hovering shows: a block of code (Python syntax: a name with its StructInfo, or an
// operator's signature) first, then sentences, then the documentation. Never empty.
struct HoverInfo {
  Span range;                      // what the hover is about
  std::string code;                // e.g. `a: R.Tensor((n, 128), dtype="float32")`
  std::vector<std::string> notes;  // plain sentences; code inside them is in backticks
  std::string documentation;       // an operator's doc, or empty
};

// The variable, parameter, shape variable, global, operator call or StructInfo annotation at
// `offset`; nullopt on whitespace, comments, punctuation and keywords.
std::optional<HoverInfo> hover(FileRef file, uint32_t offset);

// ---------------------------------------------------------------------------------- navigation

// Where the symbol at `offset` is introduced.
std::optional<Span> definition(FileRef file, uint32_t offset);

struct Reference {
  Span span;
  bool is_definition = false;
};
// Every occurrence of the symbol at `offset`, each span once (the definition first when asked).
std::vector<Reference> references(FileRef file, uint32_t offset, bool include_declaration);

// The name token that a rename at `offset` would replace, and its text.
struct RenameTarget {
  Span span;
  std::string name;
};
std::optional<RenameTarget> prepare_rename(FileRef file, uint32_t offset);
// The edits renaming the symbol at `offset` to `new_name`; an error message when `new_name` is
// not a valid name or there is nothing to rename.
struct RenameResult {
  std::vector<Edit> edits;
  std::string error;  // empty on success
};
RenameResult rename(FileRef file, uint32_t offset, const std::string& new_name);

// ---------------------------------------------------------------------------------- inlay hints

// `: R.Tensor(...)` after the name of every binding without an annotation, in `range`.
struct InlayHint {
  uint32_t offset;          // after the name
  std::string label;        // ": " + StructInfo, cut with "…" after kMaxInlayLabel characters
  std::string struct_info;  // the whole StructInfo (the tooltip when the label is cut)
};
inline constexpr size_t kMaxInlayLabel = 40;
std::vector<InlayHint> inlay_hints(FileRef file, Span range);

// ---------------------------------------------------------------------------------- completion

struct CompletionItem {
  enum class Kind : uint8_t { Variable, Function, Operator, Namespace, StructInfo, Keyword, DType };
  std::string label;
  Kind kind = Kind::Variable;
  std::string detail;         // a StructInfo or a signature
  std::string documentation;  // an operator's doc
  // For an operator: the names of its required arguments, which an editor that takes snippets
  // turns into placeholders (`R.add(${1:x1}, ${2:x2})`); others insert the label alone.
  std::vector<std::string> required_arguments;
};

// Completion for the text before the cursor (`before_cursor`, the current text of the
// document up to the cursor, which may be newer than the analysed text): after `R.`/`T.`/`I.`
// the operators and StructInfo constructors, after `cls.` the module's functions, inside a
// string a dtype, after a call's `(` or `,` its keyword arguments and the variables in scope,
// elsewhere the variables in scope. `file` is the last analysis (may be absent), `offset` the
// cursor in the analysed text (only used to find the function and the variables before it).
std::vector<CompletionItem> completion(const FileRef* file, std::string_view before_cursor,
                                       uint32_t offset);

// ---------------------------------------------------------------------------------- signatures

struct SignatureInfo {
  std::string label;                                  // `R.add(x1, x2)`
  std::vector<std::pair<size_t, size_t>> parameters;  // [begin, end) of each in the label
  std::string documentation;
  size_t active_parameter = 0;
};
// The call the cursor is inside, from the text before it (like completion); unclosed calls and
// calls spanning lines included. nullopt outside a known call.
std::optional<SignatureInfo> signature_help(const FileRef* file, std::string_view before_cursor);

// The written signature of an operator from its table row: arguments, the StructInfo
// parameters the parser takes into sinfo_args, attributes with defaults.
std::string operator_signature(std::string_view op_text);

// ---------------------------------------------------------------------------------- fixes

// A code action: edits with a title. A quick fix names the diagnostic it fixes.
struct Fix {
  enum class Kind : uint8_t { QuickFix, Rewrite };
  std::string title;
  Kind kind = Kind::QuickFix;
  std::vector<Edit> edits;
  std::optional<size_t> diagnostic;  // index into the diagnostics given
  bool preferred = false;
};
// The fixes of every diagnostic whose range meets `range` (anywhere in it, including its
// start and end), then the rewrites of the binding at `range.begin`.
std::vector<Fix> fixes(FileRef file, Span range, const std::vector<Diagnostic>& diagnostics);

// ---------------------------------------------------------------------------------- formatting

// The document's text in `raxc fmt`'s form, or why it cannot be formatted (the first syntax
// error, with its line and column).
struct FormatResult {
  std::optional<std::string> formatted;
  std::string error;
};
FormatResult format(const std::string& text);

// `formatted` as edits of `text`'s lines: the hunks of a line diff, each replacing whole lines,
// in document order, so an editor keeps cursors and marks where the formatter changes nothing.
// With `lines` (0-based, first and last), only the hunks that touch those lines (range
// formatting; the rest of the document stays as it is).
struct TextHunk {
  Span replaced;  // in `text`
  std::string text;
};
std::vector<TextHunk> format_hunks(const std::string& text, const std::string& formatted,
                                   std::optional<std::pair<uint32_t, uint32_t>> lines = {});

}  // namespace raxc::ide
