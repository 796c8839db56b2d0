// Shared lookups of the IDE layer (see context.h).
#include "ide/context.h"

#include <cctype>

#include "frontend/ir/visitor.h"
#include "frontend/printer/printer.h"

namespace raxc::ide::detail {

std::vector<FunctionAt> functions(FileRef file) {
  std::vector<FunctionAt> out;
  const frontend::Document* document = file.engine.document(file.key);
  if (!document) return out;
  for (const auto& def : document->definitions()) {
    if (!def->global || !def->global->function()) continue;
    FunctionAt f;
    f.name = def->name;
    f.range = def->text_span();
    f.lowered = def->global->function();
    f.normalized = file.engine.normalized(file.key, def->name);
    f.inference = file.engine.inference(file.key, def->name);
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<FunctionAt> function_at(FileRef file, uint32_t offset) {
  for (FunctionAt& f : functions(file))
    if (f.range.contains(offset) || f.range.end == offset) return std::move(f);
  return std::nullopt;
}

Span text_span(FileRef file, Span ir_span) {
  const frontend::Document* document = file.engine.document(file.key);
  return document ? document->to_text(ir_span) : ir_span;
}

bool in_comment(std::string_view text, uint32_t offset) {
  size_t line = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  size_t i = line == std::string_view::npos || offset == 0 ? 0 : line + 1;
  char quote = 0;
  for (; i < offset && i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return true;
    }
  }
  return false;
}

bool is_word_char(char c) {
  return c == '_' || std::isalnum(static_cast<unsigned char>(c)) || c & 0x80;
}

bool on_word(std::string_view text, uint32_t offset) {
  if (offset >= text.size() || in_comment(text, offset)) return false;
  char c = text[offset];
  return is_word_char(c) || c == '"' || c == '\'';
}

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  static const char* const reserved[] = {
      "False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
      "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
      "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
      "while",   "with",     "yield",    "R",      "T",    "I",      "cls"};
  for (const char* word : reserved)
    if (name == word) return false;
  for (char c : name)
    if (!is_word_char(c)) return false;
  return true;
}

const ir::Binding* binding_of(const ir::Function* f, const ir::Var* var) {
  struct Finder : ir::Visitor {
    const ir::Var* var;
    const ir::Binding* found = nullptr;
    explicit Finder(const ir::Var* v) : var(v) {}
    void on_binding(const ir::Binding& b) override {
      if (b.var == var) found = &b;
    }
  } finder(var);
  finder.visit(f);
  return finder.found;
}

std::string print(const ir::StructInfo* sinfo) {
  return sinfo ? printer::print_struct_info(sinfo) : std::string();
}

}  // namespace raxc::ide::detail
