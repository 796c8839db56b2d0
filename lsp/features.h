// LSP results computed from one Snapshot (through its analysis::Engine). Pure functions of
// (snapshot, request params): they run on whichever thread answers the request, lock the
// snapshot's query mutex, and never touch server state. Malformed params throw RequestError
// (-32602).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "lsp/position.h"
#include "lsp/snapshot.h"

namespace raxc::lsp {

struct FeatureOptions {
  PositionEncoding encoding = PositionEncoding::Utf16;
  // codeDescription.href for a code; "{code}" is replaced by e.g. "RX1001". Empty: no href.
  std::string diagnostic_url = "";
  bool related_information = true;  // the client supports relatedInformation
  bool snippet_support = false;     // completionItem.snippetSupport (LSP: false when absent)
  bool hover_markdown = true;       // hover.contentFormat lists markdown (or is absent)
  // Tells the person something no result can carry (window/showMessage), e.g. why a document
  // cannot be formatted. May be empty.
  std::function<void(const std::string&)> show_message;
};

// The "diagnostics" array of publishDiagnostics: severity, code, codeDescription, source
// "raxc", relatedInformation (in the same document), tag Unnecessary (1) for "unused" ones.
nlohmann::json diagnostics_json(const Snapshot& snapshot, const FeatureOptions& options);
// One of them (also the `diagnostics` of a quick fix). Related locations are in `file`, whose
// path is the document's URI.
nlohmann::json diagnostic_json(const SourceFile& file, const Diagnostic& d,
                               const FeatureOptions& options);

// CodeAction[] for params.range (lsp/code_actions.cpp): quick fixes for the diagnostics there
// (R.match_cast for a possibly-compatible argument or result, a missing R.output entry) and
// rewrites of the binding at the cursor (annotate with / replace by the inferred StructInfo).
nlohmann::json code_actions(const Snapshot& snapshot, const nlohmann::json& params,
                            const FeatureOptions& options);

// Hierarchical DocumentSymbol[]: the module, its functions, their dataflow blocks.
nlohmann::json document_symbols(const Snapshot& snapshot, const FeatureOptions& options);

// ide::hover as MarkupContent: the code block first, then sentences (markdown, or plain text for
// clients whose contentFormat does not list markdown). null when there is nothing under the
// cursor.
nlohmann::json hover(const Snapshot& snapshot, const nlohmann::json& params,
                     const FeatureOptions& options);
nlohmann::json definition(const Snapshot& snapshot, const nlohmann::json& params,
                          const FeatureOptions& options);
nlohmann::json references(const Snapshot& snapshot, const nlohmann::json& params,
                          const FeatureOptions& options);
nlohmann::json document_highlight(const Snapshot& snapshot, const nlohmann::json& params,
                                  const FeatureOptions& options);

// SelectionRange[] for params.positions: name -> expression -> statement -> block -> function
// -> module, from the syntax tree of the snapshot's text.
nlohmann::json selection_ranges(const Snapshot& snapshot, const nlohmann::json& params,
                                const FeatureOptions& options);

// FoldingRange[] for functions and dataflow blocks that span several lines.
nlohmann::json folding_ranges(const Snapshot& snapshot, const nlohmann::json& params,
                              const FeatureOptions& options);
// TextEdit[] turning the text into `raxc fmt`'s output (comments kept): one edit per run of
// changed lines, [] when it is already formatted; null when it has syntax errors, after telling
// the person which one through options.show_message.
nlohmann::json formatting(const Snapshot& snapshot, const nlohmann::json& params,
                          const FeatureOptions& options);
// rangeFormatting: the edits of formatting() that touch the lines of params.range.
nlohmann::json range_formatting(const Snapshot& snapshot, const nlohmann::json& params,
                                const FeatureOptions& options);

// prepareRename: {range, placeholder} of the renamable symbol under the cursor (locals,
// parameters, shape variables, globals), null elsewhere (operators, keywords, blank space).
nlohmann::json prepare_rename(const Snapshot& snapshot, const nlohmann::json& params,
                              const FeatureOptions& options);
// rename: a WorkspaceEdit replacing every occurrence; RequestFailed for an invalid new name.
nlohmann::json rename(const Snapshot& snapshot, const nlohmann::json& params,
                      const FeatureOptions& options);

// InlayHint[]: `: R.Tensor(...)` after every binding without an annotation, in params.range;
// labels longer than 40 characters are cut with "…" and the full StructInfo is the tooltip.
nlohmann::json inlay_hints(const Snapshot& snapshot, const nlohmann::json& params,
                           const FeatureOptions& options);

// CompletionItem[] (ide::completion) for the text before the cursor (`before_cursor`, a window
// of the current text, not the snapshot's, so typing never waits for an analysis). Operators
// come as snippets only to clients that declared snippetSupport.
nlohmann::json completion(const Snapshot* snapshot, const std::string& before_cursor,
                          Position cursor, const FeatureOptions& options);

// SignatureHelp for the call the cursor is in, from the text before the cursor (the current
// text, like completion): an operator's registry signature and doc, or a module function's
// parameters (`cls.f(`); the active parameter from the commas or the keyword being written.
// null outside a known call.
nlohmann::json signature_help(const Snapshot* snapshot, const std::string& before_cursor);

}  // namespace raxc::lsp
