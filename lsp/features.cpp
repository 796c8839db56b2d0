#include "lsp/features.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "ide/ide.h"
#include "lsp/jsonrpc.h"

namespace raxc::lsp {
namespace {

using nlohmann::json;

// LSP DiagnosticSeverity: 1 Error, 2 Warning, 3 Information, 4 Hint.
int lsp_severity(Severity severity) {
  switch (severity) {
    case Severity::Error: return 1;
    case Severity::Warning: return 2;
    case Severity::Note: return 3;
  }
  return 1;
}

// Unused bindings are shown greyed out (a hint tagged Unnecessary), not as a warning.
bool is_unused_binding(const Diagnostic& d) { return d.id == DiagId::RX4009; }

std::string url_for(const std::string& url_template, const char* code) {
  std::string url = url_template;
  for (size_t at; (at = url.find("{code}")) != std::string::npos;) url.replace(at, 6, code);
  return url;
}

// The byte offset of params.position in the snapshot's text (clamped).
uint32_t request_offset(const Snapshot& snapshot, const json& params,
                        const FeatureOptions& options) {
  auto position = params.is_object() && params.contains("position")
                      ? parse_position(params["position"])
                      : std::nullopt;
  if (!position) throw RequestError{error_code::kInvalidParams, "missing or invalid position"};
  return offset_at(*snapshot.file, *position, options.encoding);
}

json location(const Snapshot& snapshot, Span span, const FeatureOptions& options) {
  return {{"uri", snapshot.uri}, {"range", range_json(*snapshot.file, span, options.encoding)}};
}

// LSP SymbolKind values used here.
constexpr int kSymbolModule = 2, kSymbolNamespace = 3, kSymbolFunction = 12;

json symbol_json(const SourceFile& file, const analysis::DocumentSymbol& s,
                 PositionEncoding encoding) {
  using Kind = analysis::DocumentSymbol::Kind;
  int kind = kSymbolFunction;
  const char* detail = "R.function";
  switch (s.kind) {
    case Kind::Module: kind = kSymbolModule, detail = "I.ir_module"; break;
    case Kind::Function: break;
    case Kind::PrimFunc: detail = "T.prim_func"; break;
    case Kind::ExternFunc: detail = "R.ExternFunc"; break;
    case Kind::DataflowBlock: kind = kSymbolNamespace, detail = "R.dataflow"; break;
  }
  Span range = s.range, selection = s.selection;
  // selectionRange must lie inside range.
  if (selection.begin < range.begin || selection.end > range.end)
    selection = {range.begin, range.begin};
  json children = json::array();
  for (const auto& child : s.children) children.push_back(symbol_json(file, child, encoding));
  return {{"name", s.name.empty() ? std::string("<anonymous>") : s.name},
          {"detail", detail},
          {"kind", kind},
          {"range", range_json(file, range, encoding)},
          {"selectionRange", range_json(file, selection, encoding)},
          {"children", std::move(children)}};
}

// An ide::FileRef over a snapshot (its engine holds the snapshot's text under its URI).
ide::FileRef file_of(const Snapshot& snapshot) { return {*snapshot.engine, snapshot.uri}; }

json hover_contents(const ide::HoverInfo& info, bool markdown) {
  // The code first (the float's first line is what a person reads), then plain sentences: no
  // headings, which Neovim 0.7's float and plain-text clients show raw.
  std::string value;
  if (markdown) {
    value = "```python\n" + info.code + "\n```";
    for (const std::string& note : info.notes) value += "\n\n" + note;
    if (!info.documentation.empty()) value += "\n\n---\n\n" + info.documentation;
    return {{"kind", "markdown"}, {"value", value}};
  }
  value = info.code;
  for (const std::string& note : info.notes) {
    std::string plain;
    for (char c : note)
      if (c != '`') plain += c;
    value += "\n\n" + plain;
  }
  if (!info.documentation.empty()) value += "\n\n" + info.documentation;
  return {{"kind", "plaintext"}, {"value", value}};
}

}  // namespace

json diagnostic_json(const SourceFile& file, const Diagnostic& d, const FeatureOptions& options) {
  json item = {{"range", range_json(file, d.span, options.encoding)},
               {"severity", is_unused_binding(d) ? 4 : lsp_severity(d.severity)},
               {"code", code(d.id)},
               {"source", "raxc"},
               {"message", d.message}};
  if (!options.diagnostic_url.empty())
    item["codeDescription"] = {{"href", url_for(options.diagnostic_url, code(d.id))}};
  if (is_unused_binding(d)) item["tags"] = json::array({1});  // DiagnosticTag.Unnecessary
  if (d.related.empty()) return item;
  if (options.related_information) {
    json related = json::array();
    for (const RelatedInfo& r : d.related)
      related.push_back(
          {{"location",
            {{"uri", file.path()}, {"range", range_json(file, r.span, options.encoding)}}},
           {"message", r.message}});
    item["relatedInformation"] = std::move(related);
  } else {
    // Without client support the notes still reach the user, inside the message.
    std::string& message = item["message"].get_ref<std::string&>();
    for (const RelatedInfo& r : d.related) {
      LineCol at = file.location(r.span.begin);
      message +=
          "\n" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + r.message;
    }
  }
  return item;
}

json diagnostics_json(const Snapshot& snapshot, const FeatureOptions& options) {
  json out = json::array();
  for (const Diagnostic& d : snapshot.diagnostics)
    out.push_back(diagnostic_json(*snapshot.file, d, options));
  return out;
}

json document_symbols(const Snapshot& snapshot, const FeatureOptions& options) {
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  for (const auto& s : snapshot.engine->document_symbols(snapshot.uri))
    out.push_back(symbol_json(*snapshot.file, s, options.encoding));
  return out;
}

json hover(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  std::optional<ide::HoverInfo> info = ide::hover(file_of(snapshot), offset);
  if (!info) return nullptr;
  return {{"contents", hover_contents(*info, options.hover_markdown)},
          {"range", range_json(*snapshot.file, info->range, options.encoding)}};
}

json definition(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  std::optional<Span> span = ide::definition(file_of(snapshot), offset);
  if (!span) return nullptr;
  return json::array({location(snapshot, *span, options)});
}

json references(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  bool include_declaration = true;
  if (params.contains("context") && params["context"].is_object())
    include_declaration = params["context"].value("includeDeclaration", true);
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  for (const ide::Reference& r : ide::references(file_of(snapshot), offset, include_declaration))
    out.push_back(location(snapshot, r.span, options));
  return out;
}

json document_highlight(const Snapshot& snapshot, const json& params,
                        const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  // DocumentHighlightKind: 2 Read for uses, 3 Write for the binding.
  for (const ide::Reference& r : ide::references(file_of(snapshot), offset, true))
    out.push_back({{"range", range_json(*snapshot.file, r.span, options.encoding)},
                   {"kind", r.is_definition ? 3 : 2}});
  return out;
}

namespace {

void add_folds(const SourceFile& file, const analysis::DocumentSymbol& s, json& out) {
  uint32_t first = file.location(s.range.begin).line - 1;
  uint32_t last =
      file.location(s.range.end > s.range.begin ? s.range.end - 1 : s.range.end).line - 1;
  if (last > first) out.push_back({{"startLine", first}, {"endLine", last}, {"kind", "region"}});
  for (const auto& child : s.children) add_folds(file, child, out);
}

}  // namespace

json folding_ranges(const Snapshot& snapshot, const json&, const FeatureOptions&) {
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  for (const auto& s : snapshot.engine->document_symbols(snapshot.uri)) {
    if (s.kind == analysis::DocumentSymbol::Kind::Module) {
      for (const auto& child : s.children) add_folds(*snapshot.file, child, out);
    } else {
      add_folds(*snapshot.file, s, out);
    }
  }
  return out;
}

namespace {

// The formatting edits of the lines the formatter changes (of `lines` only, when given).
json format_edits(const Snapshot& snapshot, const FeatureOptions& options,
                  std::optional<std::pair<uint32_t, uint32_t>> lines) {
  ide::FormatResult result = ide::format(snapshot.file->text());
  if (!result.formatted) {
    // Formatting never prints a module that did not lower cleanly; the person is told why
    // (clients show a null result as "nothing to do").
    if (options.show_message) options.show_message(result.error);
    return nullptr;
  }
  json edits = json::array();
  for (const ide::TextHunk& h : ide::format_hunks(snapshot.file->text(), *result.formatted, lines))
    edits.push_back(
        {{"range", range_json(*snapshot.file, h.replaced, options.encoding)}, {"newText", h.text}});
  return edits;
}

}  // namespace

json formatting(const Snapshot& snapshot, const json&, const FeatureOptions& options) {
  return format_edits(snapshot, options, std::nullopt);
}

json range_formatting(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  std::optional<Span> range = parse_range(*snapshot.file, params.at("range"), options.encoding);
  if (!range) throw RequestError{error_code::kInvalidParams, "range: expected a range"};
  // Whole lines: a range that ends at the start of a line does not take that line.
  uint32_t first = snapshot.file->location(range->begin).line - 1;
  uint32_t end_line = snapshot.file->location(range->end).line - 1;
  if (range->end > range->begin && range->end == snapshot.file->line_begin(end_line + 1))
    end_line = std::max(first, end_line - 1);
  return format_edits(snapshot, options, std::pair{first, end_line});
}

json prepare_rename(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  std::optional<ide::RenameTarget> target = ide::prepare_rename(file_of(snapshot), offset);
  if (!target) return nullptr;
  return {{"range", range_json(*snapshot.file, target->span, options.encoding)},
          {"placeholder", target->name}};
}

json rename(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!params.contains("newName") || !params["newName"].is_string())
    throw RequestError{error_code::kInvalidParams, "missing newName"};
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  ide::RenameResult result = ide::rename(file_of(snapshot), offset, params["newName"]);
  if (!result.error.empty()) throw RequestError{error_code::kRequestFailed, result.error};
  json edits = json::array();
  for (const ide::Edit& e : result.edits)
    edits.push_back(
        {{"range", range_json(*snapshot.file, e.span, options.encoding)}, {"newText", e.new_text}});
  return {{"changes", {{snapshot.uri, std::move(edits)}}}};
}

json inlay_hints(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  const SourceFile& file = *snapshot.file;
  Span range{0, file.size()};
  if (params.contains("range")) {
    auto parsed = parse_range(file, params["range"], options.encoding);
    if (!parsed) throw RequestError{error_code::kInvalidParams, "invalid range"};
    range = *parsed;
  }
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  for (const ide::InlayHint& h : ide::inlay_hints(file_of(snapshot), range)) {
    json hint = {{"position", to_json(position_at(file, h.offset, options.encoding))},
                 {"kind", 1},  // InlayHintKind.Type
                 {"paddingLeft", false},
                 {"label", h.label}};
    if (h.label != ": " + h.struct_info)
      hint["data"] = {{"structInfo", h.struct_info}};  // the tooltip, sent on inlayHint/resolve
    out.push_back(std::move(hint));
  }
  return out;
}

namespace {

// LSP CompletionItemKind.
int completion_kind(ide::CompletionItem::Kind kind) {
  using K = ide::CompletionItem::Kind;
  switch (kind) {
    case K::Variable: return 6;
    case K::Function:
    case K::Operator: return 3;
    case K::Namespace: return 9;
    case K::StructInfo: return 7;
    case K::Keyword: return 14;
    case K::DType: return 20;
  }
  return 1;
}

json completion_json(const ide::CompletionItem& item, bool snippets) {
  json out = {{"label", item.label}, {"kind", completion_kind(item.kind)}};
  if (!item.detail.empty()) out["detail"] = item.detail;
  if (!item.documentation.empty()) out["documentation"] = item.documentation;
  if (item.kind == ide::CompletionItem::Kind::Operator && snippets) {
    std::string snippet = item.label + "(";
    for (size_t i = 0; i < item.required_arguments.size(); ++i)
      snippet += (i ? ", " : "") + std::string("${") + std::to_string(i + 1) + ":" +
                 item.required_arguments[i] + "}";
    out["insertText"] = snippet + ")$0";
    out["insertTextFormat"] = 2;  // Snippet
  }
  return out;
}

}  // namespace

json completion(const Snapshot* snapshot, const std::string& before_cursor, Position cursor,
                const FeatureOptions& options) {
  json items = json::array();
  std::vector<ide::CompletionItem> found;
  if (snapshot && snapshot->engine) {
    std::lock_guard lock(snapshot->query_mutex);
    const SourceFile& file = *snapshot->file;
    // Variables bound before the cursor's line of the analysed text.
    uint32_t offset = file.line_begin(std::min<uint32_t>(cursor.line + 1, file.line_count()));
    ide::FileRef ref = file_of(*snapshot);
    found = ide::completion(&ref, before_cursor, offset);
  } else {
    found = ide::completion(nullptr, before_cursor, 0);
  }
  for (const ide::CompletionItem& item : found)
    items.push_back(completion_json(item, options.snippet_support));
  return items;
}

json signature_help(const Snapshot* snapshot, const std::string& before_cursor) {
  std::optional<ide::SignatureInfo> info;
  if (snapshot && snapshot->engine) {
    std::lock_guard lock(snapshot->query_mutex);
    ide::FileRef ref = file_of(*snapshot);
    info = ide::signature_help(&ref, before_cursor);
  } else {
    info = ide::signature_help(nullptr, before_cursor);
  }
  if (!info) return nullptr;
  json params = json::array();
  for (auto [begin, end] : info->parameters) params.push_back({{"label", {begin, end}}});
  json signature = {{"label", info->label}, {"parameters", std::move(params)}};
  if (!info->documentation.empty())
    signature["documentation"] = {{"kind", "markdown"}, {"value", info->documentation}};
  return {{"signatures", json::array({std::move(signature)})},
          {"activeSignature", 0},
          {"activeParameter", info->active_parameter}};
}

}  // namespace raxc::lsp

// ------------------------------------------------------------------------ selection ranges

namespace raxc::lsp {

json selection_ranges(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  if (!params.is_object() || !params.contains("positions") || !params["positions"].is_array())
    throw RequestError{error_code::kInvalidParams, "missing positions"};
  const SourceFile& file = *snapshot.file;
  json out = json::array();
  std::lock_guard lock(snapshot.query_mutex);
  const frontend::Document* document =
      snapshot.engine ? snapshot.engine->document(snapshot.uri) : nullptr;
  for (const json& p : params["positions"]) {
    auto position = parse_position(p);
    if (!position) throw RequestError{error_code::kInvalidParams, "invalid position"};
    uint32_t offset = offset_at(file, *position, options.encoding);
    std::vector<Span> spans;
    if (document) spans = document->enclosing_spans(offset);
    if (spans.empty()) spans.push_back({offset, offset});
    // Outermost first, each nested as the parent of the next.
    json range;
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
      json node = {{"range", range_json(file, *it, options.encoding)}};
      if (!range.is_null()) node["parent"] = std::move(range);
      range = std::move(node);
    }
    out.push_back(std::move(range));
  }
  return out;
}

}  // namespace raxc::lsp
