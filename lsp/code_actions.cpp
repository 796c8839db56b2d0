// textDocument/codeAction: quick fixes for the diagnostics in the requested range and rewrites
// at the cursor. Every edit is computed from the snapshot's text and the diagnostic's template
// arguments (Diagnostic::args), never by parsing a message.
//
//   RX4001  argument only possibly compatible  -> bind `a_cast = R.match_cast(a, <param>)`
//   RX4002  body only possibly compatible      -> match_cast the returned value
//   RX1163  dataflow var used after its block  -> add it to the block's R.output(...)
//   cursor on an unannotated binding           -> annotate with the inferred StructInfo
//   cursor on an annotated binding             -> replace the annotation by the inferred one
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "frontend/printer/printer.h"
#include "lsp/features.h"
#include "lsp/jsonrpc.h"

namespace raxc::lsp {
namespace {

using nlohmann::json;

// ------------------------------------------------------------------------ text helpers

bool is_word_char(char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); }

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), is_word_char);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool contains_word(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    bool left = at == 0 || !is_word_char(text[at - 1]);
    bool right = at + word.size() >= text.size() || !is_word_char(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// `base`, or `base_1`, `base_2`, ...: the first name that appears nowhere in `text`.
std::string fresh_name(std::string_view text, const std::string& base) {
  if (!contains_word(text, base)) return base;
  for (int i = 1;; ++i)
    if (std::string name = base + "_" + std::to_string(i); !contains_word(text, name)) return name;
}

// The line of `offset`: its first byte and its indentation.
struct Line {
  uint32_t begin = 0;
  std::string indent;
};

Line line_of(const SourceFile& file, uint32_t offset) {
  Line line;
  line.begin = file.line_begin(file.location(offset).line);
  const std::string& text = file.text();
  for (uint32_t i = line.begin; i < text.size() && (text[i] == ' ' || text[i] == '\t'); ++i)
    line.indent += text[i];
  return line;
}

// Top-level comma-separated pieces between the call's outermost parentheses, as spans.
std::vector<Span> call_arguments(const std::string& text, Span call) {
  size_t open = text.find('(', call.begin);
  if (open == std::string::npos || open >= call.end) return {};
  std::vector<Span> pieces;
  int depth = 0;
  uint32_t start = uint32_t(open + 1);
  for (uint32_t i = start; i < call.end; ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        pieces.push_back({start, i});
        return pieces;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      pieces.push_back({start, i});
      start = i + 1;
    }
  }
  return {};
}

// Shape variables named in a printed StructInfo: identifiers that are not namespaces,
// constructors, keywords, keyword-argument names or inside strings.
std::vector<std::string> shape_variables(const std::string& sinfo) {
  static const std::regex strings("\"[^\"]*\"");
  static const std::regex qualified("\\b[A-Za-z_]\\w*\\.[A-Za-z_]\\w*");
  static const std::regex keywords("\\b[A-Za-z_]\\w*\\s*=");
  std::string s = std::regex_replace(sinfo, strings, " ");
  s = std::regex_replace(s, qualified, " ");
  s = std::regex_replace(s, keywords, " ");
  static const std::set<std::string> reserved = {"True", "False", "None"};
  std::vector<std::string> names;
  static const std::regex word("\\b[A-Za-z_]\\w*\\b");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator();
       ++it) {
    std::string name = it->str();
    if (!reserved.count(name) && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

// ------------------------------------------------------------------------ the request

class CodeActions {
 public:
  CodeActions(const Snapshot& snapshot, const FeatureOptions& options)
      : snapshot_(snapshot), options_(options), file_(*snapshot.file), text_(file_.text()) {}

  json run(const json& params) {
    Span range = requested_range(params);
    for (const Diagnostic& d : snapshot_.diagnostics) {
      if (d.span.end < range.begin || d.span.begin > range.end) continue;
      switch (d.id) {
        case DiagId::RX4001: match_cast_argument(d); break;
        case DiagId::RX4002: match_cast_return(d); break;
        case DiagId::RX1163: add_output(d); break;
        case DiagId::RX4009: remove_binding(d); break;
        default: break;
      }
    }
    annotate(range.begin);
    return std::move(actions_);
  }

 private:
  Span requested_range(const json& params) {
    if (!params.is_object() || !params.contains("range"))
      throw RequestError{error_code::kInvalidParams, "missing range"};
    auto range = parse_range(file_, params["range"], options_.encoding);
    if (!range) throw RequestError{error_code::kInvalidParams, "invalid range"};
    return *range;
  }

  json edit(Span span, const std::string& new_text) const {
    return {{"range", range_json(file_, span, options_.encoding)}, {"newText", new_text}};
  }

  void add(const std::string& title, const char* kind, json edits, const Diagnostic* fixes) {
    json action = {{"title", title},
                   {"kind", kind},
                   {"edit", {{"changes", {{snapshot_.uri, std::move(edits)}}}}}};
    if (fixes) {
      action["diagnostics"] = json::array({diagnostic_json(file_, *fixes, options_)});
      action["isPreferred"] = true;
    }
    actions_.push_back(std::move(action));
  }

  // The text of the Relax function containing `offset` (document symbols), for name checks.
  Span enclosing_function(uint32_t offset) const {
    if (!snapshot_.engine) return {0, file_.size()};
    std::vector<analysis::DocumentSymbol> symbols =
        snapshot_.engine->document_symbols(snapshot_.uri);
    for (const auto& s : symbols) {
      if (s.kind != analysis::DocumentSymbol::Kind::Module) {
        if (s.range.contains(offset)) return s.range;
        continue;
      }
      for (const auto& f : s.children)
        if (f.range.contains(offset)) return f.range;
    }
    return {0, file_.size()};
  }

  // `value_cast = R.match_cast(value, sinfo)` inserted on its own line before `at`, after a
  // `T.int64()` declaration for each shape variable of `sinfo` the function does not name yet
  // (a callee's variable that no argument determined). A name the function already uses is
  // taken to be the function's own variable: the cast then also checks that dimension.
  json cast_lines(uint32_t at, const std::string& value, const std::string& sinfo,
                  const std::string& cast_name) {
    Span function = enclosing_function(at);
    std::string_view body(text_.data() + function.begin, function.end - function.begin);
    Line line = line_of(file_, at);
    std::string declarations;
    for (const std::string& var : shape_variables(sinfo))
      if (!contains_word(body, var)) declarations += line.indent + var + " = T.int64()\n";
    std::string cast = line.indent + cast_name + " = R.match_cast(" + value + ", " + sinfo + ")\n";
    return edit({line.begin, line.begin}, declarations + cast);
  }

  // RX4001 args: {index, callee, argument StructInfo, parameter, parameter StructInfo, why}.
  void match_cast_argument(const Diagnostic& d) {
    if (d.args.size() < 5) return;
    size_t index = std::stoul(d.args[0]);
    std::vector<Span> pieces = call_arguments(text_, d.span);
    if (index >= pieces.size()) return;
    Span piece = pieces[index];
    std::string_view raw(text_.data() + piece.begin, piece.end - piece.begin);
    std::string_view argument = trim(raw);
    if (!is_identifier(argument)) return;
    Span argument_span{uint32_t(piece.begin + (argument.data() - raw.data())),
                       uint32_t(piece.begin + (argument.data() - raw.data()) + argument.size())};
    Span function = enclosing_function(d.span.begin);
    std::string_view body(text_.data() + function.begin, function.end - function.begin);
    std::string cast_name = fresh_name(body, std::string(argument) + "_cast");
    json edits = json::array({cast_lines(d.span.begin, std::string(argument), d.args[4], cast_name),
                              edit(argument_span, cast_name)});
    add("Check '" + std::string(argument) + "' against '" + d.args[4] + "' with R.match_cast",
        "quickfix", std::move(edits), &d);
  }

  // RX4002 args: {function, body StructInfo, return annotation, why}; the span is the value.
  void match_cast_return(const Diagnostic& d) {
    if (d.args.size() < 3) return;
    std::string value(text_.substr(d.span.begin, d.span.end - d.span.begin));
    if (!is_identifier(value)) return;
    Span function = enclosing_function(d.span.begin);
    std::string_view body(text_.data() + function.begin, function.end - function.begin);
    std::string cast_name = fresh_name(body, value + "_cast");
    json edits = json::array(
        {cast_lines(d.span.begin, value, d.args[2], cast_name), edit(d.span, cast_name)});
    add("Check the returned '" + value + "' against '" + d.args[2] + "' with R.match_cast",
        "quickfix", std::move(edits), &d);
  }

  // RX1163 args: {name}. Adds the name to the R.output(...) of the dataflow block binding it.
  void add_output(const Diagnostic& d) {
    if (d.args.empty() || !snapshot_.engine) return;
    const std::string& name = d.args[0];
    std::regex binds("(^|\\n)[ \\t]*" + name + "[ \\t]*(:[^\\n=]*)?=[^=]");
    const analysis::DocumentSymbol* block = nullptr;
    std::vector<analysis::DocumentSymbol> symbols =
        snapshot_.engine->document_symbols(snapshot_.uri);
    auto visit = [&](const analysis::DocumentSymbol& s, auto& self) -> void {
      if (s.kind == analysis::DocumentSymbol::Kind::DataflowBlock && s.range.end <= d.span.begin &&
          std::regex_search(text_.begin() + s.range.begin, text_.begin() + s.range.end, binds))
        block = &s;
      for (const auto& child : s.children) self(child, self);
    };
    for (const auto& s : symbols) visit(s, visit);
    if (!block) return;
    // The block's symbol covers its bindings; its R.output(...) follows them, before the use.
    size_t output = text_.find("R.output(", block->range.begin);
    if (output == std::string::npos || output >= d.span.begin) return;
    std::vector<Span> listed = call_arguments(text_, {uint32_t(output), d.span.begin});
    if (listed.empty()) return;
    Span last = listed.back();
    bool empty = listed.size() == 1 &&
                 trim(std::string_view(text_).substr(last.begin, last.end - last.begin)).empty();
    std::string insert = empty ? name : ", " + name;
    add("Add '" + name + "' to R.output(...)", "quickfix",
        json::array({edit({last.end, last.end}, insert)}), &d);
  }

  // RX4009 args: {name}; the span is the name. Deletes the whole statement, which may continue
  // over several lines inside brackets.
  void remove_binding(const Diagnostic& d) {
    if (d.args.empty()) return;
    Line line = line_of(file_, d.span.begin);
    int depth = 0;
    bool in_string = false;
    size_t end = d.span.end;
    for (; end < text_.size(); ++end) {
      char c = text_[end];
      if (c == '"') in_string = !in_string;
      if (in_string) continue;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (c == '\n' && depth <= 0) break;
    }
    uint32_t stop = uint32_t(std::min(end + 1, text_.size()));
    add("Remove the unused binding '" + d.args[0] + "'", "quickfix",
        json::array({edit({line.begin, stop}, "")}), &d);
  }

  // Rewrites at the cursor: the binding whose name is there.
  void annotate(uint32_t offset) {
    if (!snapshot_.engine) return;
    auto at = snapshot_.engine->struct_info_at(snapshot_.uri, offset);
    const frontend::Document* document = snapshot_.engine->document(snapshot_.uri);
    if (!at || !at->var || !at->struct_info || !document) return;
    Span name = document->to_text(at->var->span);
    if (!name.contains(offset) && name.end != offset) return;  // a use, not the binding
    if (text_.compare(name.begin, name.end - name.begin, at->var->name) != 0) return;
    std::string inferred = printer::print_struct_info(at->struct_info);
    size_t after = name.end;
    while (after < text_.size() && text_[after] == ' ') ++after;
    bool annotated = after < text_.size() && text_[after] == ':';
    if (!annotated && at->annotation == nullptr) {
      // Only bindings (`name = value`), not parameters (always annotated) or loop targets.
      if (after >= text_.size() || text_[after] != '=') return;
      add("Annotate '" + at->var->name + "' with its inferred StructInfo", "refactor.rewrite",
          json::array({edit({name.end, name.end}, ": " + inferred)}), nullptr);
      return;
    }
    if (!at->annotation || at->annotation->span.empty()) return;
    Span annotation = document->to_text(at->annotation->span);
    if (annotation.begin <= name.end || annotation.end > text_.size()) return;
    // An annotated variable has the annotation's StructInfo: ask for the value's instead.
    size_t equals = text_.find('=', annotation.end);
    size_t value = text_.find_first_not_of(" \t", equals + 1);
    if (equals == std::string::npos || value == std::string::npos) return;
    auto value_at = snapshot_.engine->struct_info_at(snapshot_.uri, uint32_t(value));
    if (!value_at || !value_at->struct_info) return;
    inferred = printer::print_struct_info(value_at->struct_info);
    if (printer::print_struct_info(at->annotation) == inferred) return;
    add("Replace the annotation of '" + at->var->name + "' by its inferred StructInfo",
        "refactor.rewrite", json::array({edit(annotation, inferred)}), nullptr);
  }

  const Snapshot& snapshot_;
  const FeatureOptions& options_;
  const SourceFile& file_;
  const std::string& text_;
  json actions_ = json::array();
};

}  // namespace

json code_actions(const Snapshot& snapshot, const json& params, const FeatureOptions& options) {
  std::lock_guard lock(snapshot.query_mutex);
  return CodeActions(snapshot, options).run(params);
}

}  // namespace raxc::lsp
