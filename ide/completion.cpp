// Completion. It reads the text before the cursor as it is now (the person is typing; the last
// analysis may be a few keystrokes old and the line is usually unfinished), and the last
// analysis for what only the IR knows: the variables in scope and their StructInfo, the
// module's functions. Wherever an expression can start (after `=`, after `(` or `,` of an
// unclosed call, at the start of a line) it offers the variables in scope; after `R.` the
// operators; inside a call its keyword arguments too.
#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/ops/registry.h"
#include "frontend/ir/walks.h"
#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {
namespace {

using Kind = CompletionItem::Kind;

bool ends_with_word(std::string_view prefix, std::string_view word) {
  if (prefix.size() < word.size() || prefix.substr(prefix.size() - word.size()) != word)
    return false;
  if (prefix.size() == word.size()) return true;
  char before = prefix[prefix.size() - word.size() - 1];
  return !(before == '.' || detail::is_word_char(before));
}

// The parameters and variables of the Relax function around `offset` bound before it, with
// their StructInfo when the function was analysed. Works from the lowered IR, so a function
// with errors elsewhere still offers its names.
void add_variables_in_scope(FileRef file, uint32_t offset, std::vector<CompletionItem>& items) {
  std::optional<detail::FunctionAt> f = detail::function_at(file, offset);
  if (!f) return;
  std::map<std::string, std::string> seen;  // name -> StructInfo (sorted, each name once)
  for (const ir::DefinedVar& defined : ir::defined_vars(f->lowered)) {
    const ir::Var* var = defined.var;
    if (!var || var->name.empty() || var->name == "_") continue;
    if (detail::text_span(file, var->span).begin >= offset) continue;
    const ir::StructInfo* sinfo = file.engine.inferred(file.key, var);
    seen[var->name] = detail::print(sinfo ? sinfo : var->annotation);
  }
  for (auto& [name, sinfo] : seen) items.push_back({name, Kind::Variable, sinfo, "", {}});
}

void add_dtypes(std::vector<CompletionItem>& items) {
  for (const char* dtype : {"float32", "float16", "bfloat16", "float64", "int64", "int32", "int16",
                            "int8", "uint8", "uint32", "bool", "e4m3_float8", "e5m2_float8"})
    items.push_back({dtype, Kind::DType, "", "", {}});
}

// After `R.` / `T.` / `I.` (and `R.nn.` ...): the operators of that namespace, each
// sub-namespace once, and for `R.` the StructInfo constructors and decorators.
void add_namespace_members(std::string_view path, std::vector<CompletionItem>& items) {
  std::string wanted = std::string(path) + ".";
  for (const auto& op : analysis::ops::all_ops()) {
    std::string_view text = op.text;
    if (text.substr(0, wanted.size()) != wanted) continue;
    std::string_view name = text.substr(wanted.size());
    if (size_t dot = name.find('.'); dot != std::string_view::npos) {
      std::string sub(name.substr(0, dot));
      bool seen = std::any_of(items.begin(), items.end(),
                              [&](const CompletionItem& i) { return i.label == sub; });
      if (!seen) items.push_back({sub, Kind::Namespace, "", "", {}});
      continue;
    }
    CompletionItem item{
        std::string(name), Kind::Operator, operator_signature(op.text), std::string(op.doc), {}};
    for (const auto& p : op.args)
      if (!p.optional) item.required_arguments.emplace_back(p.name);
    items.push_back(std::move(item));
  }
  if (path == "R") {
    for (const char* sinfo : {"Tensor", "Shape", "Tuple", "Object", "Prim", "Callable"})
      items.push_back({sinfo, Kind::StructInfo, "StructInfo", "", {}});
    for (const char* word : {"function", "dataflow", "output", "match_cast", "func_attr"})
      items.push_back({word, Kind::Keyword, "", "", {}});
  }
}

void add_module_functions(FileRef file, std::vector<CompletionItem>& items) {
  for (const auto& module : file.engine.document_symbols(file.key))
    for (const auto& f : module.children) {
      if (f.kind == analysis::DocumentSymbol::Kind::DataflowBlock) continue;
      items.push_back(
          {f.name, Kind::Function, detail::print(file.engine.signature(file.key, f.name)), "", {}});
    }
}

// `R`, `R.nn`, `T` when `before` ends with such a namespace path (before its final dot).
std::optional<std::string> namespace_path(std::string_view before) {
  size_t begin = before.size();
  while (begin > 0 && (detail::is_word_char(before[begin - 1]) || before[begin - 1] == '.'))
    --begin;
  std::string_view path = before.substr(begin);
  for (std::string_view ns : {"R", "T", "I"})
    if (path == ns || path.substr(0, ns.size() + 1) == std::string(ns) + ".")
      return std::string(path);
  return std::nullopt;
}

}  // namespace

std::vector<CompletionItem> completion(const FileRef* file, std::string_view before_cursor,
                                       uint32_t offset) {
  std::vector<CompletionItem> items;
  // Drop the partial word being typed: the client filters by it.
  size_t word = before_cursor.size();
  while (word > 0 && detail::is_word_char(before_cursor[word - 1])) --word;
  std::string_view before = before_cursor.substr(0, word);
  size_t line = before.rfind('\n');
  std::string_view this_line = line == std::string_view::npos ? before : before.substr(line + 1);
  // Inside a string literal (an odd number of quotes before the cursor on its line): dtypes.
  if (std::count(this_line.begin(), this_line.end(), '"') % 2 == 1) {
    add_dtypes(items);
    return items;
  }
  if (!before.empty() && before.back() == '.') {
    before.remove_suffix(1);
    if (std::optional<std::string> path = namespace_path(before)) {
      add_namespace_members(*path, items);
    } else if (file && (ends_with_word(before, "cls") || ends_with_word(before, "Module"))) {
      add_module_functions(*file, items);
    }
    return items;
  }
  // Anywhere else an expression may start: keyword arguments of the open call, then names.
  for (const std::string& keyword : detail::open_call_keywords(before_cursor))
    items.push_back({keyword + "=", Kind::Keyword, "keyword argument", "", {}});
  if (file) add_variables_in_scope(*file, offset, items);
  return items;
}

}  // namespace raxc::ide
