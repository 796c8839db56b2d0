// Code actions: the fixes the diagnostics in a range carry, and the rewrites of the binding at
// the cursor. A diagnostic's fixes were attached where it was emitted, in terms of the program
// (frontend/diagnostics.h, DiagFix: which binding, which annotation, which call argument and
// what StructInfo); this file only spells them as edits. The text is read for what the IR does
// not keep — indentation, where a statement's line ends, where a call's argument is written
// (bracket counting) — never to find what a fix is about.
//
//   MatchCastBinding   RX4000: `x_value = value`, then `x = R.match_cast(x_value, A)`
//   ReplaceAnnotation  RX4000: take the inferred StructInfo
//   MatchCastArgument  RX4001: bind `a_cast = R.match_cast(a, <param>)`, pass it instead
//   MatchCastReturn    RX4002: the same for the returned variable
//   AddToOutput        RX1163: add the variable to the block's R.output(...)
//   RemoveStatement    RX4009: remove the unused binding's statement
//   cursor on a binding's name -> annotate with / replace by the inferred StructInfo
#include <algorithm>
#include <cctype>
#include <set>

#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"
#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The first byte of the line of `offset` and its indentation.
struct Line {
  uint32_t begin = 0;
  std::string indent;
};

Line line_of(const std::string& text, uint32_t offset) {
  Line line;
  size_t newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  line.begin = newline == std::string::npos ? 0 : uint32_t(newline + 1);
  for (uint32_t i = line.begin; i < text.size() && (text[i] == ' ' || text[i] == '\t'); ++i)
    line.indent += text[i];
  return line;
}

// Where the statement containing `offset` ends: the newline at bracket depth 0 (statements
// continue over lines inside brackets), or the end of the text.
uint32_t statement_end(const std::string& text, uint32_t offset) {
  int depth = 0;
  bool in_string = false;
  size_t end = offset;
  for (; end < text.size(); ++end) {
    char c = text[end];
    if (c == '"') in_string = !in_string;
    if (in_string) continue;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '\n' && depth <= 0) break;
  }
  return uint32_t(end);
}

// Top-level comma-separated pieces between a call's outermost parentheses, as spans.
std::vector<Span> call_arguments(const std::string& text, Span call) {
  size_t open = text.find('(', call.begin);
  if (open == std::string::npos || open >= call.end) return {};
  std::vector<Span> pieces;
  int depth = 0;
  uint32_t start = uint32_t(open + 1);
  for (uint32_t i = start; i < call.end && i < text.size(); ++i) {
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

// The names a function already uses (variables and shape variables), for fresh names and for
// shape variables a fix must declare.
struct FunctionNames {
  std::set<std::string> vars;
  std::set<std::string> shape_vars;
  bool taken(const std::string& name) const { return vars.count(name) || shape_vars.count(name); }
};

FunctionNames names_of(const ir::Function* f) {
  FunctionNames names;
  if (!f) return names;
  for (const ir::DefinedVar& d : ir::defined_vars(f))
    if (d.var) names.vars.insert(d.var->name);
  for (const ir::PrimVar* v : ir::mentioned_shape_vars(f)) names.shape_vars.insert(v->name);
  return names;
}

std::string fresh_name(const FunctionNames& names, const std::string& base) {
  if (!names.taken(base)) return base;
  for (int i = 1;; ++i)
    if (std::string name = base + "_" + std::to_string(i); !names.taken(name)) return name;
}

class FixCollector {
 public:
  FixCollector(FileRef file, const std::vector<Diagnostic>& diagnostics)
      : file_(file), text_(*file.engine.text(file.key)), diagnostics_(diagnostics) {}

  std::vector<Fix> run(Span range) {
    for (size_t i = 0; i < diagnostics_.size(); ++i) {
      const Diagnostic& d = diagnostics_[i];
      if (d.span.end < range.begin || d.span.begin > range.end) continue;
      current_ = i;
      for (const DiagFix& fix : d.fixes) render(d, fix);
    }
    current_.reset();
    rewrite_binding(range.begin);
    return std::move(fixes_);
  }

 private:
  void render(const Diagnostic& d, const DiagFix& fix) {
    switch (fix.kind) {
      case DiagFix::Kind::MatchCastBinding: match_cast_binding(d, fix); break;
      case DiagFix::Kind::ReplaceAnnotation:
        add("Annotate '" + fix.name + "' with its inferred StructInfo '" + fix.sinfo + "'",
            {{fix.target, fix.sinfo}}, fix.preferred);
        break;
      case DiagFix::Kind::MatchCastArgument: match_cast_argument(d, fix); break;
      case DiagFix::Kind::MatchCastReturn: match_cast_return(d, fix); break;
      case DiagFix::Kind::AddToOutput: add_output(fix); break;
      case DiagFix::Kind::RemoveStatement: remove_statement(fix); break;
    }
  }

  void add(std::string title, std::vector<Edit> edits, bool preferred = true) {
    Fix fix;
    fix.title = std::move(title);
    fix.kind = current_ ? Fix::Kind::QuickFix : Fix::Kind::Rewrite;
    fix.edits = std::move(edits);
    fix.diagnostic = current_;
    fix.preferred = current_.has_value() && preferred;
    fixes_.push_back(std::move(fix));
  }

  // `T.int64()` declarations for the shape variables a cast mentions that the function does not
  // name yet (a callee's variable no argument determined), each on its own line at `indent`. A
  // name the function uses is the function's own variable: the cast then checks that dimension.
  static std::string declarations(const std::vector<std::string>& shape_vars,
                                  const FunctionNames& names, const std::string& indent) {
    std::string out;
    for (const std::string& v : shape_vars)
      if (!names.shape_vars.count(v) && !names.vars.count(v)) out += indent + v + " = T.int64()\n";
    return out;
  }

  // `name: A = value` -> `name_value = value` and the cast on a line of its own after it.
  void match_cast_binding(const Diagnostic& d, const DiagFix& fix) {
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f || fix.value.begin <= fix.target.end) return;
    FunctionNames names = names_of(f->lowered);
    std::string value_name = fresh_name(names, fix.name + "_value");
    Line line = line_of(text_, fix.target.begin);
    uint32_t end = statement_end(text_, fix.value.end);
    std::string cast = declarations(fix.shape_vars, names, line.indent) + line.indent + fix.name +
                       " = R.match_cast(" + value_name + ", " + fix.sinfo + ")";
    add("Check '" + fix.name + "' against '" + fix.sinfo + "' with R.match_cast",
        {{{fix.target.begin, fix.value.begin}, value_name + " = "}, {{end, end}, "\n" + cast}},
        fix.preferred);
  }

  // `value_cast = R.match_cast(value, sinfo)` on its own line before the statement at `at`.
  Edit cast_lines(uint32_t at, const std::string& value, const DiagFix& fix,
                  const std::string& cast_name, const FunctionNames& names) {
    Line line = line_of(text_, at);
    std::string cast =
        line.indent + cast_name + " = R.match_cast(" + value + ", " + fix.sinfo + ")\n";
    return {{line.begin, line.begin}, declarations(fix.shape_vars, names, line.indent) + cast};
  }

  void match_cast_argument(const Diagnostic& d, const DiagFix& fix) {
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    std::vector<Span> pieces = call_arguments(text_, fix.target);
    if (!f || fix.argument < 0 || size_t(fix.argument) >= pieces.size()) return;
    Span piece = pieces[size_t(fix.argument)];
    std::string_view raw(text_.data() + piece.begin, piece.end - piece.begin);
    std::string_view argument = trim(raw);
    if (argument != fix.name) return;  // written another way (a keyword argument)
    uint32_t begin = uint32_t(piece.begin + (argument.data() - raw.data()));
    FunctionNames names = names_of(f->lowered);
    std::string cast_name = fresh_name(names, fix.name + "_cast");
    add("Check '" + fix.name + "' against '" + fix.sinfo + "' with R.match_cast",
        {cast_lines(fix.statement.begin, fix.name, fix, cast_name, names),
         {{begin, uint32_t(begin + argument.size())}, cast_name}},
        fix.preferred);
  }

  void match_cast_return(const Diagnostic& d, const DiagFix& fix) {
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f || fix.target.end > text_.size() || fix.target.end < fix.target.begin ||
        text_.compare(fix.target.begin, fix.target.end - fix.target.begin, fix.name) != 0)
      return;
    FunctionNames names = names_of(f->lowered);
    std::string cast_name = fresh_name(names, fix.name + "_cast");
    add("Check the returned '" + fix.name + "' against '" + fix.sinfo + "' with R.match_cast",
        {cast_lines(fix.statement.begin, fix.name, fix, cast_name, names), {fix.target, cast_name}},
        fix.preferred);
  }

  // The name joins the end of the R.output(...) argument list.
  void add_output(const DiagFix& fix) {
    std::vector<Span> listed = call_arguments(text_, fix.target);
    if (listed.empty()) return;
    Span tail = listed.back();
    bool empty = listed.size() == 1 &&
                 trim(std::string_view(text_).substr(tail.begin, tail.end - tail.begin)).empty();
    add("Add '" + fix.name + "' to R.output(...)",
        {{{tail.end, tail.end}, empty ? fix.name : ", " + fix.name}}, fix.preferred);
  }

  // Deletes the whole statement, with its line.
  void remove_statement(const DiagFix& fix) {
    Line line = line_of(text_, fix.target.begin);
    uint32_t end = statement_end(text_, fix.target.end);
    uint32_t stop = uint32_t(std::min<size_t>(end + 1, text_.size()));
    add("Remove the unused binding '" + fix.name + "'", {{{line.begin, stop}, ""}}, fix.preferred);
  }

  // Rewrites at the cursor: the binding whose name is there gets its inferred StructInfo as its
  // annotation (added, or replacing one that says something else).
  void rewrite_binding(uint32_t offset) {
    std::optional<analysis::Symbol> symbol = file_.engine.symbol_at(file_.key, offset);
    if (!symbol || symbol->kind != analysis::SymbolKind::Var || !symbol->var) return;
    if (!symbol->definition.contains(offset) && symbol->definition.end != offset) return;
    std::optional<detail::FunctionAt> f = detail::function_at(file_, offset);
    if (!f || !f->normalized || !f->inference) return;
    const ir::Binding* b = detail::binding_of(f->normalized, symbol->var);
    if (!b || b->is_match_cast()) return;
    auto value = f->inference->expr_sinfo.find(b->value);
    if (value == f->inference->expr_sinfo.end() || !value->second) return;
    std::string inferred = detail::print(value->second);
    const ir::StructInfo* annotation = symbol->var->annotation;
    Span name = symbol->definition;
    if (!annotation) {
      add("Annotate '" + symbol->name + "' with its inferred StructInfo",
          {{{name.end, name.end}, ": " + inferred}});
      return;
    }
    if (annotation->span.empty() || detail::print(annotation) == inferred) return;
    add("Replace the annotation of '" + symbol->name + "' by its inferred StructInfo",
        {{detail::text_span(file_, annotation->span), inferred}});
  }

  FileRef file_;
  const std::string& text_;
  const std::vector<Diagnostic>& diagnostics_;
  std::optional<size_t> current_;
  std::vector<Fix> fixes_;
};

}  // namespace

std::vector<Fix> fixes(FileRef file, Span range, const std::vector<Diagnostic>& diagnostics) {
  if (!file.engine.text(file.key)) return {};
  return FixCollector(file, diagnostics).run(range);
}

}  // namespace raxc::ide
