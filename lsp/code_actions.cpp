// textDocument/codeAction: the fixes ide::fixes finds for the requested range (quick fixes of
// the diagnostics there, anywhere in their range, and rewrites of the binding at the cursor),
// as CodeAction objects with a WorkspaceEdit.
#include "ide/ide.h"
#include "lsp/features.h"
#include "lsp/jsonrpc.h"

namespace raxc::lsp {

using nlohmann::json;

json code_actions(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  if (!params.is_object() || !params.contains("range"))
    throw RequestError{error_code::kInvalidParams, "missing range"};
  const SourceFile& file = *snapshot.file;
  std::optional<Span> range = parse_range(file, params["range"], options.encoding);
  if (!range) throw RequestError{error_code::kInvalidParams, "invalid range"};
  json actions = json::array();
  if (!snapshot.engine) return actions;
  std::lock_guard lock(snapshot.query_mutex);
  for (const ide::Fix& fix :
       ide::fixes({*snapshot.engine, snapshot.uri}, *range, snapshot.diagnostics)) {
    json edits = json::array();
    for (const ide::Edit& e : fix.edits)
      edits.push_back(
          {{"range", range_json(file, e.span, options.encoding)}, {"newText", e.new_text}});
    json action = {{"title", fix.title},
                   {"kind", fix.kind == ide::Fix::Kind::QuickFix ? "quickfix" : "refactor.rewrite"},
                   {"edit", {{"changes", {{snapshot.uri, std::move(edits)}}}}}};
    if (fix.diagnostic)
      action["diagnostics"] =
          json::array({diagnostic_json(file, snapshot.diagnostics[*fix.diagnostic], options)});
    if (fix.preferred) action["isPreferred"] = true;
    actions.push_back(std::move(action));
  }
  return actions;
}

}  // namespace raxc::lsp
