// TIR lowering: literal values (strings, bools, ints, dtypes) and attribute dictionaries of
// decorators, blocks and loops; PrimExprs themselves are lowered by prim.cpp.
#include "frontend/lower/tir_lowerer.h"

namespace raxc::lower::tir_lowering {

namespace {

std::string_view node_type(TSNode node) { return ts_node_type(node); }

}  // namespace

void TirLowerer::error(DiagPayload what, Span span) {
  ctx_.diags.report(make_diagnostic(std::move(what), span));
}

void TirLowerer::error(DiagPayload what, TSNode node) { error(std::move(what), cst_.span(node)); }

const ir::PrimExpr* TirLowerer::expr(TSNode node, std::optional<DataType> literal_dtype) {
  if (ts_node_is_null(node)) return nullptr;
  return lower_prim_expr(ctx_, node, names_, PrimOptions{IntMode::Int32, literal_dtype});
}

const ir::PrimExpr* TirLowerer::cast(DataType dt, const ir::PrimExpr* e, Span sp) {
  return e ? cast_prim(ctx_, dt, e, sp) : nullptr;
}

const ir::Stmt* TirLowerer::seq(std::vector<const ir::Stmt*> stmts, Span sp) {
  if (stmts.size() == 1) return stmts[0];
  return ctx_.make<ir::SeqStmt>(std::move(stmts), sp);
}

const ir::PrimExpr* TirLowerer::int_imm(DataType dt, int64_t v, Span sp) {
  return ctx_.make<ir::IntImm>(dt, v, sp);
}

TirLowerer::Args TirLowerer::args_of(TSNode call) const {
  Args args;
  for (TSNode child : cst_.named_children(cst_.field(call, Field::arguments))) {
    if (cst_.is(child, Kind::keyword_argument)) {
      args.keywords.emplace_back(text(cst_.field(child, Field::name)),
                                 cst_.field(child, Field::value));
    } else {
      args.positional.push_back(child);
    }
  }
  return args;
}

std::optional<std::string> TirLowerer::string_value(TSNode node) {
  if (!cst_.is(node, Kind::string) && !cst_.is(node, Kind::concatenated_string))
    return std::nullopt;
  std::string why;
  auto s = decode_string(cst_, node, &why);
  if (!s) error(diag::InvalidPrimStringLiteral{.reason = why}, node);
  return s;
}

std::optional<bool> TirLowerer::bool_value(TSNode node) {
  if (node_type(node) == "true") return true;
  if (node_type(node) == "false") return false;
  return std::nullopt;
}

std::optional<int64_t> TirLowerer::int_value(TSNode node) {
  bool negative = false;
  if (cst_.is(node, Kind::unary_operator) &&
      cst_.text(ts_node_child_by_field_name(node, "operator", 8)) == "-") {
    negative = true;
    node = cst_.field(node, Field::argument);
  }
  if (!cst_.is(node, Kind::integer)) return std::nullopt;
  auto lit = parse_int_literal(cst_.text(node));
  if (!lit || lit->overflow || lit->magnitude > uint64_t(INT64_MAX)) return std::nullopt;
  return negative ? -int64_t(lit->magnitude) : int64_t(lit->magnitude);
}

std::optional<DataType> TirLowerer::dtype_value(TSNode node) {
  if (auto s = string_value(node)) {
    if (auto dt = DataType::parse(*s)) return dt;
    error(diag::InvalidTirDtype{.dtype = *s}, node);
    return std::nullopt;
  }
  if (auto dt = tir_dtype_attribute(ctx_, node, &names_)) return dt;
  error(diag::InvalidTirDtype{.dtype = text(node)}, node);
  return std::nullopt;
}

std::optional<ir::AttrValue> TirLowerer::attr_value(TSNode node) {
  Span sp = span(node);
  if (auto b = bool_value(node)) return ir::AttrValue(*b, sp);
  if (cst_.is(node, Kind::none)) return ir::AttrValue(ir::AttrValue::None{}, sp);
  if (auto i = int_value(node)) return ir::AttrValue(*i, sp);
  if (node_type(node) == "float") {
    if (auto f = parse_float_literal(cst_.text(node))) return ir::AttrValue(*f, sp);
  }
  if (cst_.is(node, Kind::string) || cst_.is(node, Kind::concatenated_string)) {
    auto s = string_value(node);
    if (!s) return std::nullopt;
    return ir::AttrValue(*s, sp);
  }
  if (cst_.is(node, Kind::list) || cst_.is(node, Kind::tuple)) {
    ir::AttrValue::List list;
    for (TSNode item : cst_.named_children(node)) {
      auto v = attr_value(item);
      if (!v) return std::nullopt;
      list.push_back(std::move(*v));
    }
    return ir::AttrValue(std::move(list), sp);
  }
  if (cst_.is(node, Kind::dictionary)) {
    ir::AttrValue::Dict dict;
    for (TSNode pair : cst_.named_children(node)) {
      if (!cst_.is(pair, Kind::pair)) {
        error(diag::InvalidAttributeValue{.value = text(pair)}, pair);
        return std::nullopt;
      }
      auto k = attr_value(cst_.field(pair, Field::key));
      auto v = attr_value(cst_.field(pair, Field::value));
      if (!k || !v) return std::nullopt;
      dict.emplace_back(std::move(*k), std::move(*v));
    }
    return ir::AttrValue(std::move(dict), sp);
  }
  if (cst_.is(node, Kind::parenthesized_expression))
    return attr_value(cst_.field(node, Field::value));
  // `T.bool(True)` as older printers wrote bool attributes.
  if (cst_.is(node, Kind::call) && path(node) == "bool") {
    Args a = args_of(node);
    if (a.positional.size() == 1)
      if (auto b = bool_value(a.positional[0])) return ir::AttrValue(*b, sp);
  }
  if (cst_.is(node, Kind::lambda) || cst_.is(node, Kind::conditional_expression) ||
      cst_.is(node, Kind::attribute) || cst_.kind(node) == Kind::Other) {
    error(diag::InvalidAttributeValue{.value = text(node)}, node);
    return std::nullopt;
  }
  const ir::PrimExpr* e = expr(node);
  if (!e) return std::nullopt;
  return ir::AttrValue(e, sp);
}

void TirLowerer::attr_dict(TSNode node, ir::Attrs& attrs, const char* what) {
  if (!cst_.is(node, Kind::dictionary)) {
    error(diag::InvalidTirConstruct{.construct = what,
                                    .problem = "expected a dictionary {\"key\": value}"},
          node);
    return;
  }
  for (TSNode pair : cst_.named_children(node)) {
    if (!cst_.is(pair, Kind::pair)) {  // `{"a"}`: a set, or an entry without its value
      error(diag::InvalidTirConstruct{.construct = what,
                                      .problem = "expected \"key\": value entries"},
            pair);
      continue;
    }
    TSNode key = cst_.field(pair, Field::key);
    auto k = string_value(key);
    if (!k) {
      error(diag::InvalidTirConstruct{.construct = what, .problem = "keys must be strings"}, key);
      continue;
    }
    auto v = attr_value(cst_.field(pair, Field::value));
    if (!v) continue;
    bool replaced = false;
    for (auto& [ek, ev] : attrs.entries) {
      if (ek == *k) {
        ev = std::move(*v);
        replaced = true;
      }
    }
    if (!replaced) attrs.entries.emplace_back(*k, std::move(*v));
  }
}

}  // namespace raxc::lower::tir_lowering
