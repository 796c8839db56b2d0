// Signature help and written signatures. An operator's signature comes from its row of the
// operator table (arguments, the StructInfo parameters the parser takes into sinfo_args,
// attributes with defaults); a module function's from its parameters. The open call is found in
// the text before the cursor, which may be unfinished: calls left open and spanning lines are
// the normal case while a person types.
#include <algorithm>
#include <cctype>

#include "analysis/ops/registry.h"
#include "frontend/printer/printer.h"
#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {
namespace {

const analysis::ops::OpDef* find_op_by_text(std::string_view text) {
  for (const auto& op : analysis::ops::all_ops())
    if (op.text == text) return &op;
  return nullptr;
}

// Builds "name(a, b=None)" remembering where each parameter is and its name.
struct SignatureBuilder {
  SignatureInfo info;
  std::vector<std::string> names;

  explicit SignatureBuilder(std::string_view callee) { info.label = std::string(callee) + "("; }
  void add(std::string_view name, std::string_view suffix = {}) {
    if (!names.empty()) info.label += ", ";
    size_t begin = info.label.size();
    info.label += std::string(name) + std::string(suffix);
    info.parameters.emplace_back(begin, info.label.size());
    names.emplace_back(name);
  }
  void close(std::string_view tail = {}) { info.label += ")" + std::string(tail); }
};

std::string default_suffix(const analysis::ops::ParamSpec& p, bool attribute) {
  if (!attribute && !p.optional) return "";
  return "=" + (p.default_text.empty() ? std::string("None") : std::string(p.default_text));
}

SignatureBuilder op_signature(const analysis::ops::OpDef& op) {
  SignatureBuilder b(op.text);
  // Required arguments, the StructInfo parameters, then optional ones: the order the text
  // format's calls are written in (`R.call_tir(gvar, args, out_sinfo, tir_vars=None)`).
  for (size_t i = 0; i < op.args.size(); ++i) {
    const auto& p = op.args[i];
    if (p.optional) continue;
    bool star = op.variadic && i + 1 == op.args.size();
    b.add(star ? "*" + std::string(p.name) : std::string(p.name));
  }
  for (const auto& p : op.struct_info_params) b.add(p.name, default_suffix(p, false));
  for (const auto& p : op.args)
    if (p.optional) b.add(p.name, default_suffix(p, false));
  for (const auto& p : op.attrs) b.add(p.name, default_suffix(p, true));
  b.close();
  b.info.documentation = std::string(op.doc);
  return b;
}

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
    size_t begin = i;
    while (begin > 0 && (text[begin - 1] == '.' || detail::is_word_char(text[begin - 1]))) --begin;
    if (begin == i) return std::nullopt;  // a parenthesised expression or a tuple
    return OpenCall{std::string(text.substr(begin, i - begin)), std::string(text.substr(i + 1))};
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
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
  std::string_view current = std::string_view(arguments).substr(start);
  size_t equals = current.find('=');
  if (equals != std::string_view::npos) {
    std::string_view keyword = trim(current.substr(0, equals));
    // The newest dialect's spellings (text-format.md §9).
    if (keyword == "out_ty") keyword = "out_sinfo";
    if (keyword == "ty_args") keyword = "sinfo_args";
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == keyword || names[k] == "*" + std::string(keyword)) return k;
  }
  // A variadic parameter takes every further positional argument.
  for (size_t k = 0; k < names.size() && k < index; ++k)
    if (!names[k].empty() && names[k][0] == '*') return k;
  return index;
}

// "helper(a: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor(...)" for a module function.
std::optional<SignatureBuilder> global_signature(FileRef file, const std::string& name) {
  const frontend::Document* document = file.engine.document(file.key);
  const ir::GlobalDef* global = document ? document->module().find(name) : nullptr;
  const ir::Function* f = global ? global->function() : nullptr;
  if (!f) return std::nullopt;
  SignatureBuilder b(name);
  for (const ir::Var* p : f->params)
    b.add(p->name, p->annotation ? ": " + detail::print(p->annotation) : std::string());
  b.close(f->ret_struct_info ? " -> " + detail::print(f->ret_struct_info) : std::string());
  return b;
}

}  // namespace

std::string operator_signature(std::string_view op_text) {
  const analysis::ops::OpDef* op = find_op_by_text(op_text);
  return op ? op_signature(*op).info.label : std::string(op_text);
}

std::optional<SignatureInfo> signature_help(const FileRef* file, std::string_view before_cursor) {
  std::optional<OpenCall> call = open_call(before_cursor);
  if (!call) return std::nullopt;
  std::optional<SignatureBuilder> b;
  if (const analysis::ops::OpDef* op = find_op_by_text(call->callee)) {
    b = op_signature(*op);
  } else {
    size_t dot = call->callee.rfind('.');
    if (!file || dot == std::string::npos) return std::nullopt;
    b = global_signature(*file, call->callee.substr(dot + 1));
  }
  if (!b) return std::nullopt;
  b->info.active_parameter = active_argument(call->arguments, b->names);
  return std::move(b->info);
}

std::vector<std::string> detail::open_call_keywords(std::string_view before_cursor) {
  std::optional<OpenCall> call = open_call(before_cursor);
  const analysis::ops::OpDef* op = call ? find_op_by_text(call->callee) : nullptr;
  std::vector<std::string> out;
  if (!op) return out;
  for (const auto& p : op->struct_info_params) out.emplace_back(p.name);
  for (const auto& p : op->args)
    if (p.optional) out.emplace_back(p.name);
  for (const auto& p : op->attrs) out.emplace_back(p.name);
  return out;
}

}  // namespace raxc::ide
