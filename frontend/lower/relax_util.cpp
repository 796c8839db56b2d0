// Small helpers shared by the module-level and function-level Relax lowering.
#include <cmath>

#include "frontend/lower/literals.h"
#include "frontend/lower/relax_function.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;

bool is_identifier(std::string_view text) {
  if (text.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(text[0])) return false;
  for (char c : text)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

std::string namespace_path(const LowerContext& ctx, TSNode node, Namespace ns) {
  const cst::Cst& cst = ctx.cst;
  std::vector<std::string_view> parts;
  while (cst.is(node, Kind::attribute)) {
    parts.push_back(cst.text(cst.field(node, Field::attribute)));
    node = cst.field(node, Field::object);
  }
  if (!cst.is(node, Kind::identifier) || parts.empty()) return "";
  const Namespace* found = ctx.namespaces.find(cst.text(node));
  if (!found || *found != ns) return "";
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!path.empty()) path += '.';
    path += *it;
  }
  return path;
}

std::optional<std::string> string_value(LowerContext& ctx, TSNode node) {
  std::string error;
  std::optional<std::string> s = decode_string(ctx.cst, node, &error);
  if (!s)
    ctx.diags.report(
        make_diagnostic(diag::MalformedStringLiteral{.reason = error}, ctx.cst.span(node)));
  return s;
}

bool is_void_annotation(const LowerContext& ctx, TSNode value) {
  const cst::Cst& cst = ctx.cst;
  TSNode callee = cst.is(value, Kind::call) ? cst.field(value, Field::function) : value;
  if (namespace_path(ctx, callee, Namespace::Relax) != "Tuple") return false;
  if (!cst.is(value, Kind::call)) return true;
  std::vector<TSNode> args = cst.named_children(cst.field(value, Field::arguments));
  if (args.empty()) return true;
  return args.size() == 1 && (cst.is(args[0], Kind::list) || cst.is(args[0], Kind::tuple)) &&
         cst.named_children(args[0]).empty();
}

std::optional<ir::AttrValue> lower_literal_attr(LowerContext& ctx, TSNode node) {
  const cst::Cst& cst = ctx.cst;
  Span at = cst.span(node);
  auto fail = [&]() -> std::optional<ir::AttrValue> {
    ctx.diags.report(
        make_diagnostic(diag::LiteralExpected{.value = std::string(cst.text(node))}, at));
    return std::nullopt;
  };
  if (cst.is(node, Kind::parenthesized_expression))
    return lower_literal_attr(ctx, cst.field(node, Field::value));
  if (cst.is(node, Kind::string) || cst.is(node, Kind::concatenated_string)) {
    std::optional<std::string> s = string_value(ctx, node);
    if (!s) return std::nullopt;
    return ir::AttrValue(*s, at);
  }
  if (cst.is(node, Kind::none)) return ir::AttrValue(ir::AttrValue::None{}, at);
  if (is_type(node, "true")) return ir::AttrValue(true, at);
  if (is_type(node, "false")) return ir::AttrValue(false, at);
  bool negative = false;
  TSNode n = node;
  while (cst.is(n, Kind::unary_operator)) {
    std::string_view op = cst.text(field_by_name(n, "operator"));
    if (op == "-")
      negative = !negative;
    else if (op != "+")
      return fail();
    n = cst.field(n, Field::argument);
  }
  if (cst.is(n, Kind::integer)) {
    std::optional<IntLiteral> v = parse_int_literal(cst.text(n));
    if (!v || v->overflow || v->magnitude > uint64_t(INT64_MAX) + (negative ? 1 : 0)) {
      ctx.diags.report(make_diagnostic(
          diag::ConstantValueOverflow{.value = std::string(cst.text(node)), .target = "int64"},
          at));
      return std::nullopt;
    }
    int64_t value = negative ? int64_t(0 - v->magnitude) : int64_t(v->magnitude);
    return ir::AttrValue(value, at);
  }
  if (is_type(n, "float")) {
    std::optional<double> v = parse_float_literal(cst.text(n));
    if (!v) return fail();
    return ir::AttrValue(negative ? -*v : *v, at);
  }
  if (n.id != node.id) return fail();
  if (cst.is(node, Kind::list) || cst.is(node, Kind::tuple)) {
    ir::AttrValue::List list;
    for (TSNode item : cst.named_children(node)) {
      std::optional<ir::AttrValue> v = lower_literal_attr(ctx, item);
      if (!v) return std::nullopt;
      list.push_back(std::move(*v));
    }
    return ir::AttrValue(std::move(list), at);
  }
  if (cst.is(node, Kind::dictionary)) {
    ir::AttrValue::Dict dict;
    for (TSNode pair : cst.named_children(node)) {
      if (!cst.is(pair, Kind::pair)) continue;
      std::optional<ir::AttrValue> k = lower_literal_attr(ctx, cst.field(pair, Field::key));
      std::optional<ir::AttrValue> v = lower_literal_attr(ctx, cst.field(pair, Field::value));
      if (!k || !v) return std::nullopt;
      dict.emplace_back(std::move(*k), std::move(*v));
    }
    return ir::AttrValue(std::move(dict), at);
  }
  return fail();
}

}  // namespace raxc::lower
