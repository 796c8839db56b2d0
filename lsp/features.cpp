#include "lsp/features.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/ops/registry.h"
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"
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

std::string op_signature(const analysis::ops::OpDef& op) {
  std::string text = std::string(op.text) + "(";
  bool first = true;
  auto add = [&](const analysis::ops::ParamSpec& p, bool attribute) {
    if (!first) text += ", ";
    first = false;
    text += p.name;
    if (attribute || p.optional)
      text += "=" + (p.default_text.empty() ? std::string("None") : std::string(p.default_text));
  };
  for (const auto& p : op.args) add(p, false);
  if (op.variadic && !op.args.empty())
    text.insert(text.rfind(std::string(op.args.back().name)), "*");
  for (const auto& p : op.attrs) add(p, true);
  return text + ")";
}

const char* symbol_kind_name(analysis::SymbolKind kind, const ir::Var* var) {
  switch (kind) {
    case analysis::SymbolKind::Var:
      return var && var->is_dataflow() ? "dataflow variable" : "variable";
    case analysis::SymbolKind::Param: return "parameter";
    case analysis::SymbolKind::ShapeVar: return "shape variable";
    case analysis::SymbolKind::Function: return "function";
    case analysis::SymbolKind::PrimFunc: return "prim_func";
    case analysis::SymbolKind::ExternFunc: return "extern function";
  }
  return "symbol";
}

std::string fence(const std::string& code) { return "```python\n" + code + "\n```"; }

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
  const analysis::Engine& engine = *snapshot.engine;
  std::optional<analysis::Symbol> symbol = engine.symbol_at(snapshot.uri, offset);
  std::optional<analysis::StructInfoAt> at = engine.struct_info_at(snapshot.uri, offset);
  if (!symbol && !at) return nullptr;

  std::string markdown;
  Span range = at ? at->span : symbol->definition;
  if (symbol) {
    markdown = "### " + std::string(symbol_kind_name(symbol->kind, symbol->var)) + " `" +
               symbol->name + "`";
    const ir::StructInfo* sinfo = at ? at->struct_info : nullptr;
    if (symbol->kind == analysis::SymbolKind::ShapeVar) {
      LineCol where = snapshot.file->location(symbol->definition.begin);
      markdown += "\n\n" + fence(symbol->name + ": T.int64") + "\n\nbound at line " +
                  std::to_string(where.line) + ", column " + std::to_string(where.column);
    } else if (sinfo) {
      markdown += "\n\n" + fence(symbol->name + ": " + printer::print_struct_info(sinfo));
    }
    if (at && at->annotation && sinfo) {
      std::string annotation = printer::print_struct_info(at->annotation);
      if (annotation != printer::print_struct_info(sinfo))
        markdown += "\n\nannotation: `" + annotation + "`";
    }
  } else {
    markdown = "### expression";
    const ir::Call* call = at->expr ? ir::dyn_cast<ir::Call>(at->expr) : nullptr;
    const ir::Op* op = call && call->op ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
    const analysis::ops::OpDef* def = op ? analysis::ops::find_op(op->name) : nullptr;
    if (def)
      markdown = "### operator `" + std::string(def->text) + "`\n\n" + fence(op_signature(*def));
    if (at->struct_info)
      markdown += "\n\nresult: `" + printer::print_struct_info(at->struct_info) + "`";
    if (def && !def->doc.empty()) markdown += "\n\n---\n\n" + std::string(def->doc);
  }
  return {{"contents", {{"kind", "markdown"}, {"value", markdown}}},
          {"range", range_json(*snapshot.file, range, options.encoding)}};
}

json definition(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  auto symbol = snapshot.engine->symbol_at(snapshot.uri, offset);
  if (!symbol) return nullptr;
  return json::array({location(snapshot, symbol->definition, options)});
}

json references(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  bool include_declaration = true;
  if (params.contains("context") && params["context"].is_object())
    include_declaration = params["context"].value("includeDeclaration", true);
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  for (Span span : snapshot.engine->references(snapshot.uri, offset, include_declaration))
    out.push_back(location(snapshot, span, options));
  return out;
}

json document_highlight(const Snapshot& snapshot, const json& params,
                        const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  json out = json::array();
  if (!snapshot.engine) return out;
  std::lock_guard lock(snapshot.query_mutex);
  auto symbol = snapshot.engine->symbol_at(snapshot.uri, offset);
  if (!symbol) return out;
  // DocumentHighlightKind: 2 Read for uses, 3 Write for the binding.
  for (Span span : snapshot.engine->references(snapshot.uri, offset, true)) {
    out.push_back({{"range", range_json(*snapshot.file, span, options.encoding)},
                   {"kind", span == symbol->definition ? 3 : 2}});
  }
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

json formatting(const Snapshot& snapshot, const json&, const FeatureOptions& options) {
  const std::string& text = snapshot.file->text();
  frontend::ParsedFile parsed = frontend::parse_file(text);
  if (parsed.has_errors()) return nullptr;  // never print a module that did not lower cleanly
  std::string formatted = printer::print_module(*parsed.module, {}, parsed.comments, text);
  if (formatted == text) return json::array();
  Span all{0, snapshot.file->size()};
  return json::array(
      {{{"range", range_json(*snapshot.file, all, options.encoding)}, {"newText", formatted}}});
}

namespace {

bool is_identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  static const char* const keywords[] = {
      "False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
      "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
      "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
      "while",   "with",     "yield",    "R",      "T",    "I",      "cls"};
  for (const char* k : keywords)
    if (name == k) return false;
  for (unsigned char c : name)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c >= 0x80))
      return false;
  return true;
}

}  // namespace

json prepare_rename(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  auto symbol = snapshot.engine->symbol_at(snapshot.uri, offset);
  const frontend::Document* document = snapshot.engine->document(snapshot.uri);
  auto token = document ? document->token_at(offset) : std::nullopt;
  if (!symbol || !token || token->text != symbol->name) return nullptr;
  return {{"range", range_json(*snapshot.file, token->span, options.encoding)},
          {"placeholder", symbol->name}};
}

json rename(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  uint32_t offset = request_offset(snapshot, params, options);
  if (!params.contains("newName") || !params["newName"].is_string())
    throw RequestError{error_code::kInvalidParams, "missing newName"};
  std::string name = params["newName"];
  if (!is_identifier(name))
    throw RequestError{error_code::kRequestFailed, "'" + name + "' is not a valid name"};
  if (!snapshot.engine) return nullptr;
  std::lock_guard lock(snapshot.query_mutex);
  auto symbol = snapshot.engine->symbol_at(snapshot.uri, offset);
  if (!symbol) throw RequestError{error_code::kRequestFailed, "nothing to rename here"};
  json edits = json::array();
  for (Span span : snapshot.engine->references(snapshot.uri, offset, true))
    edits.push_back(
        {{"range", range_json(*snapshot.file, span, options.encoding)}, {"newText", name}});
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
  const analysis::Engine& engine = *snapshot.engine;
  const frontend::Document* document = engine.document(snapshot.uri);
  if (!document) return out;
  std::vector<std::pair<uint32_t, std::string>> hints;  // (offset after the name, StructInfo)
  for (const auto& module : engine.document_symbols(snapshot.uri)) {
    std::vector<const analysis::DocumentSymbol*> functions;
    if (module.kind == analysis::DocumentSymbol::Kind::Module) {
      for (const auto& f : module.children) functions.push_back(&f);
    } else {
      functions.push_back(&module);
    }
    for (const analysis::DocumentSymbol* f : functions) {
      if (f->kind != analysis::DocumentSymbol::Kind::Function) continue;
      if (f->range.end <= range.begin || f->range.begin >= range.end) continue;
      const analysis::FunctionInference* inference = engine.inference(snapshot.uri, f->name);
      if (!inference) continue;
      for (const auto& [var, sinfo] : inference->var_sinfo) {
        if (!var || !sinfo || var->annotation) continue;
        Span name = document->to_text(var->span);
        if (name.end < range.begin || name.end > range.end) continue;
        // Only binding sites written as the bare name (not parameters, which are annotated).
        if (file.text().compare(name.begin, name.end - name.begin, var->name) != 0) continue;
        hints.emplace_back(name.end, printer::print_struct_info(sinfo));
      }
    }
  }
  std::sort(hints.begin(), hints.end());
  constexpr size_t kMaxLabel = 40;
  for (auto& [offset, text] : hints) {
    json hint = {{"position", to_json(position_at(file, offset, options.encoding))},
                 {"kind", 1},  // InlayHintKind.Type
                 {"paddingLeft", false}};
    if (text.size() > kMaxLabel) {
      hint["label"] = ": " + text.substr(0, kMaxLabel) + "…";
      hint["data"] = {{"structInfo", text}};  // the tooltip, sent on inlayHint/resolve
    } else {
      hint["label"] = ": " + text;
    }
    out.push_back(std::move(hint));
  }
  return out;
}

namespace {

// LSP CompletionItemKind values used here.
constexpr int kItemFunction = 3, kItemClass = 7, kItemModule = 9, kItemEnumMember = 20,
              kItemKeyword = 14;

json snippet_item(const analysis::ops::OpDef& op, std::string_view name) {
  std::string snippet = std::string(name) + "(";
  int index = 0;
  for (const auto& p : op.args) {
    if (p.optional) break;
    if (index > 0) snippet += ", ";
    ++index;
    snippet += "${" + std::to_string(index) + ":" + std::string(p.name) + "}";
  }
  snippet += ")$0";
  return {{"label", std::string(name)}, {"kind", kItemFunction},
          {"detail", op_signature(op)}, {"documentation", std::string(op.doc)},
          {"insertText", snippet},      {"insertTextFormat", 2}};  // Snippet
}

// The parameters and variables of the Relax function at `cursor` (a line of the snapshot's
// text) bound before that line, with their inferred StructInfo.
void add_variables_in_scope(const Snapshot& snapshot, Position cursor, json& items) {
  constexpr int kItemVariable = 6;
  if (!snapshot.engine) return;
  const SourceFile& file = *snapshot.file;
  uint32_t offset = file.line_begin(std::min<uint32_t>(cursor.line + 1, file.line_count()));
  std::lock_guard lock(snapshot.query_mutex);
  const analysis::Engine& engine = *snapshot.engine;
  const frontend::Document* document = engine.document(snapshot.uri);
  if (!document) return;
  for (const auto& module : engine.document_symbols(snapshot.uri)) {
    std::vector<const analysis::DocumentSymbol*> functions;
    if (module.kind == analysis::DocumentSymbol::Kind::Module) {
      for (const auto& f : module.children) functions.push_back(&f);
    } else {
      functions.push_back(&module);
    }
    for (const analysis::DocumentSymbol* f : functions) {
      if (f->kind != analysis::DocumentSymbol::Kind::Function || !f->range.contains(offset))
        continue;
      const analysis::FunctionInference* inference = engine.inference(snapshot.uri, f->name);
      if (!inference) return;
      std::map<std::string, std::string> seen;  // name -> StructInfo (sorted, no duplicates)
      for (const auto& [var, sinfo] : inference->var_sinfo) {
        if (!var || var->name.empty() || document->to_text(var->span).begin >= offset) continue;
        seen[var->name] = sinfo ? printer::print_struct_info(sinfo) : "";
      }
      for (const auto& [name, sinfo] : seen)
        items.push_back({{"label", name}, {"kind", kItemVariable}, {"detail", sinfo}});
      return;
    }
  }
}

bool ends_with_word(std::string_view prefix, std::string_view word) {
  if (prefix.size() < word.size() || prefix.substr(prefix.size() - word.size()) != word)
    return false;
  if (prefix.size() == word.size()) return true;
  char before = prefix[prefix.size() - word.size() - 1];
  return !(before == '_' || before == '.' || std::isalnum(static_cast<unsigned char>(before)));
}

}  // namespace

json completion(const Snapshot* snapshot, const std::string& line_prefix, Position cursor) {
  json items = json::array();
  std::string_view prefix = line_prefix;
  // Drop the partial word being typed: the client filters by it.
  size_t word = prefix.size();
  while (word > 0 &&
         (prefix[word - 1] == '_' || std::isalnum(static_cast<unsigned char>(prefix[word - 1]))))
    --word;
  std::string_view before = prefix.substr(0, word);
  // Inside a string literal (an odd number of quotes before the cursor): dtypes.
  if (std::count(before.begin(), before.end(), '"') % 2 == 1) {
    for (const char* dtype :
         {"float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8", "uint8",
          "uint32", "bool", "e4m3_float8", "e5m2_float8"})
      items.push_back({{"label", dtype}, {"kind", kItemEnumMember}});
    return items;
  }
  if (before.empty() || before.back() != '.') {
    if (snapshot) add_variables_in_scope(*snapshot, cursor, items);
    return items;
  }
  before.remove_suffix(1);
  for (std::string_view ns : {"R", "T", "I"}) {
    if (!ends_with_word(before, ns)) continue;
    std::string wanted = std::string(ns) + ".";
    for (const auto& op : analysis::ops::all_ops()) {
      std::string_view text = op.text;
      if (text.substr(0, wanted.size()) != wanted) continue;
      std::string_view name = text.substr(wanted.size());
      if (name.find('.') != std::string_view::npos) {
        // R.nn.conv2d: offer the sub-namespace once.
        std::string sub(name.substr(0, name.find('.')));
        bool seen = std::any_of(items.begin(), items.end(),
                                [&](const json& i) { return i["label"] == sub; });
        if (!seen) items.push_back({{"label", sub}, {"kind", kItemModule}});
        continue;
      }
      items.push_back(snippet_item(op, name));
    }
    if (ns == "R") {
      for (const char* sinfo : {"Tensor", "Shape", "Tuple", "Object", "Prim", "Callable"})
        items.push_back({{"label", sinfo}, {"kind", kItemClass}, {"detail", "StructInfo"}});
      for (const char* word : {"function", "dataflow", "output", "match_cast", "func_attr"})
        items.push_back({{"label", word}, {"kind", kItemKeyword}});
    }
    return items;
  }
  bool globals = ends_with_word(before, "cls") || ends_with_word(before, "Module");
  if (globals && snapshot && snapshot->engine) {
    std::lock_guard lock(snapshot->query_mutex);
    for (const auto& module : snapshot->engine->document_symbols(snapshot->uri)) {
      for (const auto& f : module.children) {
        if (f.kind == analysis::DocumentSymbol::Kind::DataflowBlock) continue;
        json item = {{"label", f.name}, {"kind", kItemFunction}};
        if (const ir::StructInfo* sig = snapshot->engine->signature(snapshot->uri, f.name))
          item["detail"] = printer::print_struct_info(sig);
        items.push_back(std::move(item));
      }
    }
  }
  return items;
}

}  // namespace raxc::lsp

// ------------------------------------------------------------------------ signature help

namespace raxc::lsp {
namespace {

// The call the cursor is inside: the callee as written ("R.nn.conv2d", "cls.helper") and the
// text of its arguments up to the cursor. Scans back over balanced brackets and strings.
struct OpenCall {
  std::string callee;
  std::string arguments;
};

std::optional<OpenCall> open_call(std::string_view text) {
  int depth = 0;
  for (size_t i = text.size(); i-- > 0;) {
    char c = text[i];
    if (c == ')' || c == ']' || c == '}') ++depth;
    if (c == '[' || c == '{') --depth;
    if (c != '(') continue;
    if (depth > 0) {
      --depth;
      continue;
    }
    size_t end = i;
    size_t begin = end;
    while (begin > 0 && (text[begin - 1] == '.' || text[begin - 1] == '_' ||
                         std::isalnum(static_cast<unsigned char>(text[begin - 1]))))
      --begin;
    if (begin == end) return std::nullopt;  // a parenthesised expression or a tuple
    return OpenCall{std::string(text.substr(begin, end - begin)), std::string(text.substr(i + 1))};
  }
  return std::nullopt;
}

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

const analysis::ops::OpDef* find_op_by_text(std::string_view text) {
  for (const auto& op : analysis::ops::all_ops())
    if (op.text == text) return &op;
  return nullptr;
}

// Index of the argument being written: top-level commas, or the keyword's position.
size_t active_argument(const std::string& arguments, const std::vector<std::string>& names) {
  size_t index = 0, start = 0;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    char c = arguments[i];
    if (c == '"') in_string = !in_string;
    if (in_string) continue;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) ++index, start = i + 1;
  }
  std::string current = arguments.substr(start);
  size_t equals = current.find('=');
  if (equals != std::string::npos) {
    std::string keyword(trim_view(std::string_view(current).substr(0, equals)));
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == keyword) return k;
  }
  return index;
}

json signature_json(const std::string& label, const std::vector<std::string>& parameters,
                    const std::vector<std::pair<size_t, size_t>>& offsets, const std::string& doc) {
  json params = json::array();
  for (size_t i = 0; i < parameters.size(); ++i)
    params.push_back({{"label", {offsets[i].first, offsets[i].second}}});
  json signature = {{"label", label}, {"parameters", std::move(params)}};
  if (!doc.empty()) signature["documentation"] = {{"kind", "markdown"}, {"value", doc}};
  return signature;
}

// "R.add(x1, x2)" with the [begin, end) of every parameter in the label.
json op_signature_help(const analysis::ops::OpDef& op, std::vector<std::string>& names) {
  std::string label = std::string(op.text) + "(";
  std::vector<std::pair<size_t, size_t>> offsets;
  auto add = [&](const analysis::ops::ParamSpec& p, bool attribute) {
    if (!names.empty()) label += ", ";
    size_t begin = label.size();
    label += p.name;
    if (attribute || p.optional)
      label += "=" + (p.default_text.empty() ? std::string("None") : std::string(p.default_text));
    offsets.emplace_back(begin, label.size());
    names.emplace_back(p.name);
  };
  for (const auto& p : op.args) add(p, false);
  for (const auto& p : op.attrs) add(p, true);
  label += ")";
  return signature_json(label, names, offsets, std::string(op.doc));
}

// "helper(a: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor(...)" for a module function.
std::optional<json> global_signature_help(const Snapshot& snapshot, const std::string& name,
                                          std::vector<std::string>& names) {
  const frontend::Document* document = snapshot.engine->document(snapshot.uri);
  const ir::GlobalDef* global = document ? document->module().find(name) : nullptr;
  const ir::Function* f = global ? global->function() : nullptr;
  if (!f) return std::nullopt;
  std::string label = name + "(";
  std::vector<std::pair<size_t, size_t>> offsets;
  for (const ir::Var* p : f->params) {
    if (!names.empty()) label += ", ";
    size_t begin = label.size();
    label += p->name;
    if (p->annotation) label += ": " + printer::print_struct_info(p->annotation);
    offsets.emplace_back(begin, label.size());
    names.push_back(p->name);
  }
  label += ")";
  if (f->ret_struct_info) label += " -> " + printer::print_struct_info(f->ret_struct_info);
  return signature_json(label, names, offsets, "");
}

}  // namespace

json signature_help(const Snapshot* snapshot, const std::string& before_cursor) {
  std::optional<OpenCall> call = open_call(before_cursor);
  if (!call) return nullptr;
  std::vector<std::string> names;
  json signature;
  if (const analysis::ops::OpDef* op = find_op_by_text(call->callee)) {
    signature = op_signature_help(*op, names);
  } else {
    size_t dot = call->callee.rfind('.');
    if (!snapshot || !snapshot->engine || dot == std::string::npos) return nullptr;
    std::lock_guard lock(snapshot->query_mutex);
    auto global = global_signature_help(*snapshot, call->callee.substr(dot + 1), names);
    if (!global) return nullptr;
    signature = std::move(*global);
  }
  size_t active = active_argument(call->arguments, names);
  return {{"signatures", json::array({std::move(signature)})},
          {"activeSignature", 0},
          {"activeParameter", active}};
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
