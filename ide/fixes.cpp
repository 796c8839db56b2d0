// Code actions: the fixes of the diagnostics in a range and the rewrites of the binding at the
// cursor. What a fix changes is found in the IR (the binding, the annotation, the callee's
// parameter StructInfo and its shape variables) and in the diagnostic's typed position; the
// text is read only for what the IR does not keep (where an argument is written, where a
// statement ends), by bracket counting, never by matching printed IR.
//
//   RX4000  annotation only possibly compatible  -> match_cast the value; or take the inferred
//   RX4001  argument only possibly compatible    -> bind `a_cast = R.match_cast(a, <param>)`
//   RX4002  body only possibly compatible        -> match_cast the returned value
//   RX1163  dataflow var used after its block    -> add it to the block's R.output(...)
//   RX4009  unused binding                       -> remove the statement
//   cursor on a binding's name                   -> annotate with / replace by the inferred
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

// The binding of the variable named `name` whose statement contains `offset`.
const ir::Binding* binding_named(FileRef file, const ir::Function* f, const std::string& name,
                                 uint32_t offset) {
  struct Finder : ir::Visitor {
    FileRef file;
    const std::string& name;
    uint32_t offset;
    const ir::Binding* found = nullptr;
    Finder(FileRef fr, const std::string& n, uint32_t o) : file(fr), name(n), offset(o) {}
    void on_binding(const ir::Binding& b) override {
      if (b.var && b.var->name == name && detail::text_span(file, b.span).contains(offset))
        found = &b;
    }
  } finder(file, name, offset);
  finder.visit(f);
  return finder.found;
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
      switch (d.id) {
        case DiagId::RX4000: annotation_possibly(d); break;
        case DiagId::RX4001: match_cast_argument(d); break;
        case DiagId::RX4002: match_cast_return(d); break;
        case DiagId::RX1163: add_output(d); break;
        case DiagId::RX4009: remove_binding(d); break;
        default: break;
      }
    }
    current_.reset();
    rewrite_binding(range.begin);
    return std::move(fixes_);
  }

 private:
  void add(std::string title, std::vector<Edit> edits, bool preferred = true) {
    Fix fix;
    fix.title = std::move(title);
    fix.kind = current_ ? Fix::Kind::QuickFix : Fix::Kind::Rewrite;
    fix.edits = std::move(edits);
    fix.diagnostic = current_;
    fix.preferred = current_.has_value() && preferred;
    fixes_.push_back(std::move(fix));
  }

  // `T.int64()` declarations for the shape variables of `sinfo` the function does not name yet
  // (a callee's variable no argument determined), each on its own line at `indent`. A name the
  // function uses is the function's own variable: the cast then checks that dimension too.
  std::string declarations(const ir::StructInfo* sinfo, const FunctionNames& names,
                           const std::string& indent) {
    std::string out;
    for (const ir::PrimVar* v : ir::shape_vars(sinfo))
      if (!names.shape_vars.count(v->name) && !names.vars.count(v->name))
        out += indent + v->name + " = T.int64()\n";
    return out;
  }

  // RX4000 args: {annotation, name, relation, inferred, why}; the span is the value.
  void annotation_possibly(const Diagnostic& d) {
    if (d.args.size() < 4) return;
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f) return;
    const ir::Binding* b = binding_named(file_, f->lowered, d.args[1], d.span.begin);
    if (!b || !b->var->annotation || b->var->span.empty()) return;
    Span name = detail::text_span(file_, b->var->span);
    Span annotation = detail::text_span(file_, b->var->annotation->span);
    uint32_t end = statement_end(text_, d.span.end);
    size_t equals = text_.find('=', annotation.end);
    if (equals == std::string::npos || equals >= d.span.begin) return;
    uint32_t value = uint32_t(text_.find_first_not_of(" \t", equals + 1));
    FunctionNames names = names_of(f->lowered);
    std::string value_name = fresh_name(names, b->var->name + "_value");
    Line line = line_of(text_, name.begin);
    std::string cast = declarations(b->var->annotation, names, line.indent) + line.indent +
                       b->var->name + " = R.match_cast(" + value_name + ", " + d.args[0] + ")";
    add("Check '" + b->var->name + "' against '" + d.args[0] + "' with R.match_cast",
        {{{name.begin, value}, value_name + " = "}, {{end, end}, "\n" + cast}});
    add("Annotate '" + b->var->name + "' with its inferred StructInfo '" + d.args[3] + "'",
        {{annotation, d.args[3]}}, false);
  }

  // `value_cast = R.match_cast(value, sinfo)` on its own line before the statement at `at`.
  Edit cast_lines(uint32_t at, const std::string& value, const ir::StructInfo* sinfo,
                  const std::string& printed, const std::string& cast_name,
                  const FunctionNames& names) {
    Line line = line_of(text_, at);
    std::string cast =
        line.indent + cast_name + " = R.match_cast(" + value + ", " + printed + ")\n";
    return {{line.begin, line.begin}, declarations(sinfo, names, line.indent) + cast};
  }

  // The StructInfo of parameter `index` of the global the call at `call` calls.
  const ir::StructInfo* callee_parameter(const ir::Function* f, Span call, size_t index) {
    struct Finder : ir::Visitor {
      FileRef file;
      Span call;
      const ir::Call* found = nullptr;
      Finder(FileRef fr, Span c) : file(fr), call(c) {}
      void on_expr(const ir::Expr* e) override {
        if (const auto* c = ir::dyn_cast<ir::Call>(e))
          if (detail::text_span(file, c->span) == call) found = c;
      }
    } finder(file_, call);
    finder.visit(f);
    const auto* callee = finder.found ? ir::dyn_cast<ir::GlobalVar>(finder.found->op) : nullptr;
    const ir::StructInfo* sig = callee ? file_.engine.signature(file_.key, callee->name) : nullptr;
    const auto* fn = sig ? ir::dyn_cast<ir::FuncSInfo>(sig) : nullptr;
    if (!fn || !fn->params || index >= fn->params->size()) return nullptr;
    return (*fn->params)[index];
  }

  // RX4001 args: {index, callee, argument StructInfo, parameter, parameter StructInfo, why}.
  void match_cast_argument(const Diagnostic& d) {
    if (d.args.size() < 5) return;
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f) return;
    size_t index = std::stoul(d.args[0]);
    const ir::StructInfo* parameter = callee_parameter(f->lowered, d.span, index);
    std::vector<Span> pieces = call_arguments(text_, d.span);
    if (!parameter || index >= pieces.size()) return;
    Span piece = pieces[index];
    std::string_view raw(text_.data() + piece.begin, piece.end - piece.begin);
    std::string_view argument = trim(raw);
    if (!detail::is_identifier(argument)) return;
    uint32_t begin = uint32_t(piece.begin + (argument.data() - raw.data()));
    FunctionNames names = names_of(f->lowered);
    std::string cast_name = fresh_name(names, std::string(argument) + "_cast");
    add("Check '" + std::string(argument) + "' against '" + d.args[4] + "' with R.match_cast",
        {cast_lines(d.span.begin, std::string(argument), parameter, d.args[4], cast_name, names),
         {{begin, uint32_t(begin + argument.size())}, cast_name}});
  }

  // RX4002 args: {function, body StructInfo, return annotation, why}; the span is the value.
  void match_cast_return(const Diagnostic& d) {
    if (d.args.size() < 3) return;
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f || !f->lowered->ret_struct_info) return;
    std::string value(text_.substr(d.span.begin, d.span.end - d.span.begin));
    if (!detail::is_identifier(value)) return;
    FunctionNames names = names_of(f->lowered);
    std::string cast_name = fresh_name(names, value + "_cast");
    add("Check the returned '" + value + "' against '" + d.args[2] + "' with R.match_cast",
        {cast_lines(d.span.begin, value, f->lowered->ret_struct_info, d.args[2], cast_name, names),
         {d.span, cast_name}});
  }

  // RX1163 args: {name}. Adds the name to the R.output(...) of the dataflow block binding it.
  void add_output(const Diagnostic& d) {
    if (d.args.empty()) return;
    const std::string& name = d.args[0];
    std::optional<detail::FunctionAt> f = detail::function_at(file_, d.span.begin);
    if (!f) return;
    // The last binding of the dataflow block (before the use) that binds `name`.
    struct Finder : ir::Visitor {
      const std::string& name;
      const ir::BindingBlock* block = nullptr;
      explicit Finder(const std::string& n) : name(n) {}
      void on_block(const ir::BindingBlock& b) override {
        if (!b.is_dataflow) return;
        for (const ir::Binding* binding : b.bindings)
          if (binding && binding->var && binding->var->name == name) block = &b;
      }
    } finder(name);
    finder.visit(f->lowered);
    if (!finder.block || finder.block->bindings.empty()) return;
    Span last = detail::text_span(file_, finder.block->bindings.back()->span);
    // R.output(...) follows the block's bindings, before the use.
    size_t output = text_.find("R.output(", last.end);
    if (output == std::string::npos || output >= d.span.begin) return;
    std::vector<Span> listed = call_arguments(text_, {uint32_t(output), d.span.begin});
    if (listed.empty()) return;
    Span tail = listed.back();
    bool empty = listed.size() == 1 &&
                 trim(std::string_view(text_).substr(tail.begin, tail.end - tail.begin)).empty();
    add("Add '" + name + "' to R.output(...)",
        {{{tail.end, tail.end}, empty ? name : ", " + name}});
  }

  // RX4009 args: {name}; the span is the name. Deletes the whole statement.
  void remove_binding(const Diagnostic& d) {
    if (d.args.empty()) return;
    Line line = line_of(text_, d.span.begin);
    uint32_t end = statement_end(text_, d.span.end);
    uint32_t stop = uint32_t(std::min<size_t>(end + 1, text_.size()));
    add("Remove the unused binding '" + d.args[0] + "'", {{{line.begin, stop}, ""}});
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
