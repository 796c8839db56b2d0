// Relax expressions (text-format.md §5.2, §5.7–§5.9, §5.11, §5.12): names, globals, tuples,
// literals, operator calls with attributes, the call_tir family and packed calls.
#include <cmath>
#include <cstring>
#include <limits>

#include "frontend/lower/distributed.h"
#include "frontend/lower/literals.h"
#include "frontend/lower/relax_function.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;
using ir::DataType;

// ------------------------------------------------------------------------------ names

const ir::PrimVar* ScopeNames::find_var(std::string_view name) const {
  if (signature) {
    auto it = signature->find(std::string(name));
    if (it != signature->end()) return it->second;
  }
  const Name* n = owner_.lookup(name);
  if (!n || n->kind != Name::Kind::Sym) return nullptr;
  if (!n->sym->bound && !allow_unbound) unbound_uses.emplace_back(name);
  return n->sym->var;
}

const ir::PrimExpr* ScopeNames::find_expr(std::string_view name) const {
  const Name* n = owner_.lookup(name);
  return n && n->kind == Name::Kind::PrimAlias ? n->prim : nullptr;
}

bool FunctionLowerer::is_shadowed(std::string_view prefix) const {
  return lookup(prefix) != nullptr;
}

std::string FunctionLowerer::relax_path(TSNode node) const {
  if (!cst().is(node, Kind::attribute)) return "";
  TSNode root = node;
  while (cst().is(root, Kind::attribute)) root = cst().field(root, Field::object);
  if (cst().is(root, Kind::identifier) && is_shadowed(cst().text(root))) return "";
  return namespace_path(ctx_, node, Namespace::Relax);
}

std::string FunctionLowerer::tir_path_of(TSNode node) const {
  return tir_path(ctx_, node, &names_);
}

bool FunctionLowerer::is_module_ref(TSNode node) const {
  if (cst().is(node, Kind::attribute)) return is_module_ref(cst().field(node, Field::object));
  if (!cst().is(node, Kind::identifier)) return false;
  std::string_view n = cst().text(node);
  if (const Name* entry = lookup(n)) return entry->kind == Name::Kind::Module;
  return !module_.class_name.empty() && n == module_.class_name;
}

void FunctionLowerer::report_unbound(Span at) {
  for (const std::string& name : names_.unbound_uses)
    error(diag::SymbolicVarDeclaredNotBound{.name = name}, at);
  names_.unbound_uses.clear();
}

const ir::PrimExpr* FunctionLowerer::lower_prim(TSNode node, DataType literal_default) {
  names_.unbound_uses.clear();
  PrimOptions options;
  options.mode = IntMode::Int64;
  if (literal_default != DataType::Int(64)) options.literal_dtype = literal_default;
  const ir::PrimExpr* e = lower_prim_expr(ctx_, node, names_, options);
  report_unbound(span(node));
  return e;
}

bool FunctionLowerer::is_number(TSNode node) const {
  if (cst().is(node, Kind::integer) || is_type(node, "float") || is_type(node, "true") ||
      is_type(node, "false"))
    return true;
  if (cst().is(node, Kind::unary_operator)) return is_number(cst().field(node, Field::argument));
  if (cst().is(node, Kind::parenthesized_expression))
    return is_number(cst().field(node, Field::value));
  return false;
}

// Does this expression denote a PrimExpr (symbolic variables, aliases, T.* calls)? Python
// number literals alone do not count.
bool FunctionLowerer::is_prim_expression(TSNode node) const {
  switch (cst().kind(node)) {
    case Kind::identifier: {
      const Name* n = lookup(cst().text(node));
      return n && (n->kind == Name::Kind::Sym || n->kind == Name::Kind::PrimAlias);
    }
    case Kind::call: {
      TSNode callee = cst().field(node, Field::function);
      return !tir_path_of(callee).empty();
    }
    case Kind::parenthesized_expression: return is_prim_expression(cst().field(node, Field::value));
    case Kind::unary_operator:
    case Kind::not_operator: return is_prim_expression(cst().field(node, Field::argument));
    case Kind::binary_operator:
    case Kind::boolean_operator:
    case Kind::comparison_operator: {
      TSNode l = cst().field(node, Field::left), r = cst().field(node, Field::right);
      bool lp = is_prim_expression(l), rp = is_prim_expression(r);
      return (lp || rp) && (lp || is_number(l)) && (rp || is_number(r));
    }
    default: return false;
  }
}

const ir::GlobalVar* FunctionLowerer::global_ref(TSNode node) {
  TSNode attr = cst().field(node, Field::attribute);
  std::string name = text(attr);
  if (!module_.find(name)) {
    error(diag::ModuleHasNoFunction{.function = name,
                                    .module = module_.class_name.empty() ? "the module"
                                                                         : module_.class_name},
          span(attr));
    return nullptr;
  }
  if (!cst().is(cst().field(node, Field::object), Kind::identifier)) {
    error(diag::ModuleHasNoFunction{.function = name, .module = module_.class_name}, span(attr));
    return nullptr;
  }
  auto* global = make<ir::GlobalVar>(name, span(node));
  record_name(span(attr), global);  // the name is the attribute: `f` of `cls.f`
  return global;
}

const ir::Expr* FunctionLowerer::lower_identifier(TSNode node) {
  std::string name = text(node);
  if (const Name* n = lookup(name)) {
    switch (n->kind) {
      case Name::Kind::Var: record_name(node, n->var); return n->var;
      case Name::Kind::Sym:
      case Name::Kind::PrimAlias: return lower_prim_value(node);
      case Name::Kind::String: return make<ir::StringImm>(n->str, span(node));
      case Name::Kind::Module:
        error(diag::ModuleUsedAsValue{.module = name}, span(node));
        return nullptr;
    }
  }
  if (const GlobalInfo* g = module_.find(name)) {
    (void)g;
    auto* global = make<ir::GlobalVar>(name, span(node));
    record_name(span(node), global);
    return global;
  }
  if (!module_.class_name.empty() && name == module_.class_name) {
    error(diag::ModuleUsedAsValue{.module = name}, span(node));
    return nullptr;
  }
  // An unresolved name stays in its expression as an error node, so that the expression and
  // the binding around it still lower (and the rest of the function with them).
  auto* unresolved = make<ir::ErrorExpr>(span(node), name);
  // Still the block's variable, though not visible here (RX1163 below, or reported already).
  if (auto left = left_dataflow_vars_.find(name); left != left_dataflow_vars_.end())
    record_name(node, left->second);
  if (poisoned_.count(name) || body_has_syntax_error_) return unresolved;  // reported already
  if (auto left = left_dataflow_.find(name); left != left_dataflow_.end()) {
    Diagnostic d = make_diagnostic(diag::DataflowVarNotOutput{.name = name}, span(node));
    if (!left->second.empty())
      d.fixes.push_back({.kind = DiagFix::Kind::AddToOutput, .target = left->second, .name = name});
    ctx_.diags.report(std::move(d));
    return unresolved;
  }

  error(diag::UndefinedName{.name = name}, span(node));
  return unresolved;
}

namespace {
bool is_sinfo_ctor(std::string_view path);
}

const ir::Expr* FunctionLowerer::lower_attribute(TSNode node) {
  if (is_module_ref(node)) return global_ref(node);
  std::string path = relax_path(node);
  if (!path.empty() && is_sinfo_ctor(path)) {
    error(diag::AnnotationUsedAsValue{.annotation = text(node)}, span(node));
    return nullptr;
  }
  // `f = R.add`: an operator written as a value; well-formedness says it can only be called
  // (WF-9, RX2026).
  if (!path.empty()) return make<ir::Op>("relax." + path, span(node));
  error(diag::UnsupportedInRelaxFunction{.construct = "attribute access '" + text(node) + "'"},
        span(node));
  return nullptr;
}

// ------------------------------------------------------------------------------ expressions

const ir::Expr* FunctionLowerer::lower_expr(TSNode node, LiteralMode literals) {
  switch (cst().kind(node)) {
    case Kind::identifier: return lower_identifier(node);
    case Kind::attribute: return lower_attribute(node);
    case Kind::call: return lower_call(node);
    case Kind::subscript: return lower_subscript(node);
    case Kind::tuple:
    case Kind::list:
    case Kind::expression_list: return lower_tuple(node, LiteralMode::PrimValue);
    case Kind::parenthesized_expression:
      return lower_expr(cst().field(node, Field::value), literals);
    case Kind::integer: return lower_literal(node, literals);
    case Kind::string:
    case Kind::concatenated_string: {
      std::optional<std::string> s = string_value(ctx_, node);
      return s ? make<ir::StringImm>(*s, span(node)) : nullptr;
    }
    case Kind::unary_operator:
      if (is_number(node)) return lower_literal(node, literals);
      return lower_unary(node);
    case Kind::binary_operator:
    case Kind::comparison_operator: return lower_binary(node);
    case Kind::boolean_operator:
    case Kind::not_operator:
      if (is_prim_expression(node)) return lower_prim_value(node);
      error(diag::BooleanOperatorOnRelaxValue{.expression = text(node)}, span(node));
      return nullptr;
    case Kind::none: error(diag::NoneAsRelaxValue{}, span(node)); return nullptr;
    case Kind::lambda:
    case Kind::dictionary:
    case Kind::conditional_expression:
    case Kind::slice:
      error(diag::NotRelaxExpression{.expression = text(node)}, span(node));
      return nullptr;
    default: break;
  }
  if (is_type(node, "float") || is_type(node, "true") || is_type(node, "false"))
    return lower_literal(node, literals);
  if (!ts_node_has_error(node))
    error(diag::NotRelaxExpression{.expression = text(node)}, span(node));
  return nullptr;
}

const ir::Expr* FunctionLowerer::lower_tuple(TSNode node, LiteralMode literals) {
  std::vector<const ir::Expr*> fields;
  bool ok = true;
  for (TSNode item : cst().named_children(node)) {
    const ir::Expr* e = lower_expr(item, literals);
    ok = ok && e;
    fields.push_back(e);
  }
  if (!ok) return nullptr;
  return make<ir::Tuple>(std::move(fields), span(node));
}

const ir::Expr* FunctionLowerer::lower_subscript(TSNode node) {
  TSNode value = cst().field(node, Field::value);
  std::vector<TSNode> subs = cst().fields(node, Field::subscript);
  // metadata["relax.expr.Constant"][i] (§3.6)
  if (cst().is(value, Kind::subscript)) {
    TSNode inner = cst().field(value, Field::value);
    if (cst().is(inner, Kind::identifier) && cst().text(inner) == "metadata" &&
        !lookup("metadata")) {
      std::vector<TSNode> keys = cst().fields(value, Field::subscript);
      std::optional<std::string> key;
      if (keys.size() == 1 && cst().is(keys[0], Kind::string)) key = string_value(ctx_, keys[0]);
      std::optional<IntLiteral> index;
      if (subs.size() == 1 && cst().is(subs[0], Kind::integer))
        index = parse_int_literal(cst().text(subs[0]));
      if (!key || !index || index->overflow) {
        error(diag::MalformedMetadataReference{}, span(node));
        return nullptr;
      }
      return make<ir::Constant>(DataType::Void(), std::vector<int64_t>{}, std::vector<uint8_t>{},
                                ir::Constant::MetadataRef{*key, int64_t(index->magnitude)},
                                span(node));
    }
  }
  if (subs.size() != 1 || !cst().is(subs[0], Kind::integer)) {
    error(diag::InvalidTupleIndexLiteral{}, span(node));
    return nullptr;
  }
  std::optional<IntLiteral> index = parse_int_literal(cst().text(subs[0]));
  if (!index || index->overflow ||
      index->magnitude > uint64_t(std::numeric_limits<int32_t>::max())) {
    error(diag::InvalidTupleIndexLiteral{}, span(node));
    return nullptr;
  }
  int64_t i = int64_t(index->magnitude);
  // (a, b)[0] folds to a (§5.7).
  TSNode unwrapped = value;
  while (cst().is(unwrapped, Kind::parenthesized_expression))
    unwrapped = cst().field(unwrapped, Field::value);
  if (cst().is(unwrapped, Kind::tuple)) {
    std::vector<TSNode> items = cst().named_children(unwrapped);
    if (size_t(i) >= items.size()) {
      error(diag::TupleLiteralIndexOutOfRange{.index = i, .field_count = items.size()},
            span(subs[0]));
      return nullptr;
    }
    // The other fields are folded away, but their names still denote what they denote.
    if (ctx_.source_map)
      for (size_t k = 0; k < items.size(); ++k)
        if (k != size_t(i)) record_unlowered_names(items[k], ctx_.source_map->size(), {});
    return lower_expr(items[size_t(i)]);
  }
  const ir::Expr* tuple = lower_expr(value);
  if (!tuple) return nullptr;
  if (auto* var = ir::dyn_cast<ir::Var>(tuple)) {
    auto it = facts_.find(var);
    if (it != facts_.end() && it->second.tuple_arity >= 0 && i >= it->second.tuple_arity) {
      error(diag::TupleLiteralIndexOutOfRange{.index = i, .field_count = it->second.tuple_arity},
            span(subs[0]));
      return nullptr;
    }
  }
  return make<ir::TupleGetItem>(tuple, i, span(node));
}

const ir::Expr* FunctionLowerer::lower_prim_value(TSNode node) {
  const ir::PrimExpr* e = lower_prim(node);
  return e ? make<ir::PrimValue>(e, span(node)) : nullptr;
}

namespace {
struct OpSugar {
  std::string_view text;
  const char* op;
};
constexpr OpSugar kSugar[] = {
    {"+", "relax.add"},     {"-", "relax.subtract"},       {"*", "relax.multiply"},
    {"/", "relax.divide"},  {"//", "relax.floor_divide"},  {"%", "relax.mod"},
    {"**", "relax.power"},  {"<", "relax.less"},           {"<=", "relax.less_equal"},
    {">", "relax.greater"}, {">=", "relax.greater_equal"},
};
// Elementwise operators whose operands must be tensors: a bare number is a mistake (§5.8).
constexpr const char* kTensorBinaryOps[] = {
    "add",     "subtract",    "multiply",   "divide",        "floor_divide", "mod",       "power",
    "less",    "less_equal",  "greater",    "greater_equal", "equal",        "not_equal", "maximum",
    "minimum", "logical_and", "logical_or", "bitwise_and",   "bitwise_or"};
}  // namespace

const ir::Expr* FunctionLowerer::lower_binary(TSNode node) {
  if (is_prim_expression(node)) return lower_prim_value(node);
  std::string op = text(field_by_name(node, "operator"));
  TSNode l = cst().field(node, Field::left), r = cst().field(node, Field::right);
  if (op == "==" || op == "!=") {
    error(diag::ComparisonOnRelaxValues{.op = op,
                                        .replacement = op == "==" ? "R.equal" : "R.not_equal"},
          span(node));
    return nullptr;
  }
  const OpSugar* sugar = nullptr;
  for (const OpSugar& s : kSugar)
    if (s.text == op) sugar = &s;
  if (!sugar) {
    error(diag::UnsupportedRelaxOperator{.op = op}, span(field_by_name(node, "operator")));
    return nullptr;
  }
  if (cst().is(l, Kind::comparison_operator) && cst().kind(node) == Kind::comparison_operator) {
    error(diag::UnsupportedRelaxOperator{.op = "chained comparison"}, span(node));
    return nullptr;
  }
  for (TSNode side : {l, r}) {
    if (is_number(side)) {
      error(diag::BareNumberWithTensor{.number = text(side), .op = op}, span(side));
      return nullptr;
    }
  }
  const ir::Expr* a = lower_expr(l);
  const ir::Expr* b = lower_expr(r);
  if (!a || !b) return nullptr;
  return make<ir::Call>(make<ir::Op>(sugar->op, span(field_by_name(node, "operator"))),
                        std::vector<const ir::Expr*>{a, b}, std::vector<const ir::StructInfo*>{},
                        ir::Attrs{}, span(node));
}

const ir::Expr* FunctionLowerer::lower_unary(TSNode node) {
  if (is_prim_expression(node)) return lower_prim_value(node);
  std::string op = text(field_by_name(node, "operator"));
  TSNode arg = cst().field(node, Field::argument);
  if (is_number(arg)) return lower_literal(node, LiteralMode::PrimValue);
  if (op != "-") {
    error(diag::UnsupportedRelaxOperator{.op = op}, span(node));
    return nullptr;
  }
  const ir::Expr* a = lower_expr(arg);
  if (!a) return nullptr;
  return make<ir::Call>(make<ir::Op>("relax.negative", span(node)), std::vector<const ir::Expr*>{a},
                        std::vector<const ir::StructInfo*>{}, ir::Attrs{}, span(node));
}

// ------------------------------------------------------------------------------ literals

namespace {

uint16_t float_to_half(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = int32_t((bits >> 23) & 0xFF) - 127 + 15;
  uint32_t mantissa = bits & 0x7FFFFF;
  if (((bits >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31) return uint16_t(sign | 0x7C00);
  if (exponent <= 0) {
    if (exponent < -10) return uint16_t(sign);
    mantissa |= 0x800000;
    uint32_t shift = uint32_t(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return uint16_t(half);
}

uint16_t float_to_bfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return uint16_t((bits >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

template <class T>
void append_bytes(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // hosts are little endian (x86-64, aarch64)
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

}  // namespace

// A Python number (`1`, `-2.5`, `True`) outside any call: a tensor constant when bound
// (`c = 1` is an int32 R.const), a PrimValue in argument positions (§10 item 6).
const ir::Expr* FunctionLowerer::lower_literal(TSNode node, LiteralMode literals) {
  if (literals == LiteralMode::PrimValue) {
    const ir::PrimExpr* e = lower_prim(node, DataType::Int(64));
    if (e && e->dtype.is_float() && e->dtype.bits == 32) {
      // A Python float argument is float64 (§5.8).
      if (auto* f = ir::dyn_cast<ir::FloatImm>(e))
        e = make<ir::FloatImm>(DataType::Float(64), f->value, f->span);
    }
    return e ? make<ir::PrimValue>(e, span(node)) : nullptr;
  }
  return lower_const_value(node, std::nullopt, span(node));
}

// Python's arithmetic on two literal scalars, as TVM's parser evaluates `R.const(15.0 / 14.0)`:
// `/` is true division, `//` and `%` floor, `**` a power; a bool counts as an int.
static std::optional<Scalar> fold_scalars(std::string_view op, Scalar a, Scalar b) {
  bool floats = a.tag == Scalar::Tag::Float || b.tag == Scalar::Tag::Float;
  double x = a.tag == Scalar::Tag::Float ? a.f : double(a.i);
  double y = b.tag == Scalar::Tag::Float ? b.f : double(b.i);
  Scalar r;
  if (op == "/" || (floats && op != "//" && op != "%") || op == "**") {
    r.tag = Scalar::Tag::Float;
    if (op == "+")
      r.f = x + y;
    else if (op == "-")
      r.f = x - y;
    else if (op == "*")
      r.f = x * y;
    else if (op == "/" && y != 0)
      r.f = x / y;
    else if (op == "**")
      r.f = std::pow(x, y);
    else
      return std::nullopt;
    // int ** non-negative int stays an int, as in Python.
    if (op == "**" && !floats && b.i >= 0 && std::fabs(r.f) < 9.0e18)
      r.tag = Scalar::Tag::Int, r.i = __int128(r.f);
    return r;
  }
  if (floats) {  // // and % on floats
    if (y == 0) return std::nullopt;
    double q = std::floor(x / y);
    r.tag = Scalar::Tag::Float;
    r.f = op == "//" ? q : x - q * y;
    return r;
  }
  __int128 i = a.i, j = b.i;
  if (op == "+")
    r.i = i + j;
  else if (op == "-")
    r.i = i - j;
  else if (op == "*")
    r.i = i * j;
  else if ((op == "//" || op == "%") && j != 0) {
    __int128 q = i / j;
    if ((i % j != 0) && ((i < 0) != (j < 0))) --q;  // floor, not truncation
    r.i = op == "//" ? q : i - q * j;
  } else {
    return std::nullopt;
  }
  return r;
}

bool FunctionLowerer::read_scalars(TSNode node, std::vector<Scalar>& out,
                                   std::vector<int64_t>& shape, size_t depth) {
  TSNode n = node;
  while (cst().is(n, Kind::parenthesized_expression)) n = cst().field(n, Field::value);
  if (cst().is(n, Kind::list) || cst().is(n, Kind::tuple)) {
    std::vector<TSNode> items = cst().named_children(n);
    if (shape.size() == depth)
      shape.push_back(int64_t(items.size()));
    else if (shape.size() < depth || shape[depth] != int64_t(items.size())) {
      error(diag::RaggedConstantList{}, span(n));
      return false;
    }
    for (TSNode item : items)
      if (!read_scalars(item, out, shape, depth + 1)) return false;
    return true;
  }
  if (shape.size() > depth) {
    error(diag::RaggedConstantList{}, span(n));
    return false;
  }
  bool negative = false;
  while (cst().is(n, Kind::unary_operator)) {
    std::string op = text(field_by_name(n, "operator"));
    if (op == "-")
      negative = !negative;
    else if (op != "+")
      break;
    n = cst().field(n, Field::argument);
    while (cst().is(n, Kind::parenthesized_expression)) n = cst().field(n, Field::value);
  }
  Scalar s;
  if (cst().is(n, Kind::integer)) {
    std::optional<IntLiteral> v = parse_int_literal(cst().text(n));
    if (!v || v->overflow) {
      error(diag::ConstantValueOverflow{.value = text(node), .target = "a 64-bit integer"},
            span(node));
      return false;
    }
    s.i = negative ? -__int128(v->magnitude) : __int128(v->magnitude);
  } else if (is_type(n, "float")) {
    std::optional<double> v = parse_float_literal(cst().text(n));
    if (!v) {
      error(diag::ConstantValueOverflow{.value = text(node), .target = "a float"}, span(node));
      return false;
    }
    s.tag = Scalar::Tag::Float;
    s.f = negative ? -*v : *v;
  } else if (is_type(n, "true") || is_type(n, "false")) {
    s.tag = Scalar::Tag::Bool;
    s.i = is_type(n, "true");
    if (negative) s.tag = Scalar::Tag::Int, s.i = -s.i;
  } else if (cst().is(n, Kind::string)) {
    std::optional<std::string> str = string_value(ctx_, n);
    if (!str) return false;
    std::string v = *str;
    bool neg = negative;
    if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
      neg = neg != (v[0] == '-');
      v = v.substr(1);
    }
    if (v != "inf" && v != "nan") {
      error(diag::NotConstantValue{.value = *str}, span(n));
      return false;
    }
    s.tag = Scalar::Tag::Float;
    s.f = v == "inf" ? std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::quiet_NaN();
    if (neg) s.f = -s.f;
  } else if (cst().is(n, Kind::binary_operator)) {
    std::vector<Scalar> a, b;
    std::vector<int64_t> scalar_shape;
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    std::optional<Scalar> v;
    if (read_scalars(cst().field(n, Field::left), a, scalar_shape, 0) && a.size() == 1 &&
        scalar_shape.empty() && read_scalars(cst().field(n, Field::right), b, scalar_shape, 0) &&
        b.size() == 1 && scalar_shape.empty())
      v = fold_scalars(cst().text(op), a[0], b[0]);
    if (!v) {
      error(diag::NotConstantValue{.value = text(n)}, span(n));
      return false;
    }
    s = *v;
    if (negative) s.f = -s.f, s.i = -s.i;
  } else {
    error(diag::NotConstantValue{.value = text(n)}, span(n));
    return false;
  }
  out.push_back(s);
  return true;
}

const ir::Expr* FunctionLowerer::lower_const_value(TSNode value, std::optional<DataType> dtype,
                                                   Span at) {
  std::vector<Scalar> scalars;
  std::vector<int64_t> shape;
  if (!read_scalars(value, scalars, shape, 0)) return nullptr;
  if (!dtype) {
    bool any_float = false, all_bool = !scalars.empty();
    for (const Scalar& s : scalars) {
      any_float = any_float || s.tag == Scalar::Tag::Float;
      all_bool = all_bool && s.tag == Scalar::Tag::Bool;
    }
    dtype = any_float ? DataType::Float(32) : all_bool ? DataType::Bool() : DataType::Int(32);
  }
  DataType dt = *dtype;
  std::vector<uint8_t> data;
  for (const Scalar& s : scalars) {
    if (dt.is_float()) {
      double v = s.tag == Scalar::Tag::Float ? s.f : double(s.i);
      if (dt.code == DataType::Code::Float && dt.bits == 64)
        append_bytes(data, v);
      else if (dt.code == DataType::Code::Float && dt.bits == 32)
        append_bytes(data, float(v));
      else if (dt.code == DataType::Code::Float && dt.bits == 16)
        append_bytes(data, float_to_half(float(v)));
      else if (dt.code == DataType::Code::BFloat && dt.bits == 16)
        append_bytes(data, float_to_bfloat16(float(v)));
      else {
        error(diag::UnsupportedConstantDtype{.dtype = dt.str()}, at);
        return nullptr;
      }
      continue;
    }
    if (s.tag == Scalar::Tag::Float) {
      error(diag::FloatInNonFloatConstant{.dtype = dt.str()}, at);
      return nullptr;
    }
    __int128 v = s.i;
    if (dt.is_bool()) {
      if (v != 0 && v != 1) {
        error(diag::ConstantValueOverflow{.value = std::to_string(int64_t(v)), .target = "bool"},
              at);
        return nullptr;
      }
      data.push_back(uint8_t(v));
      continue;
    }
    if (!dt.is_integer() || dt.lanes != 1 ||
        (dt.bits != 8 && dt.bits != 16 && dt.bits != 32 && dt.bits != 64)) {
      error(diag::UnsupportedConstantDtype{.dtype = dt.str()}, at);
      return nullptr;
    }
    bool fits = dt.is_uint()
                    ? (v >= 0 && (dt.bits == 64 || v < (__int128(1) << dt.bits)))
                    : (v >= -(__int128(1) << (dt.bits - 1)) && v < (__int128(1) << (dt.bits - 1)));
    if (!fits) {
      error(diag::ConstantValueOverflow{.value = text(value), .target = dt.str()}, at);
      return nullptr;
    }
    uint64_t bits = uint64_t(v);
    for (int byte = 0; byte < dt.bits / 8; ++byte) data.push_back(uint8_t(bits >> (8 * byte)));
  }
  return make<ir::Constant>(dt, std::move(shape), std::move(data), std::nullopt, at);
}

// ------------------------------------------------------------------------------ calls

// main-2026 renamed two keywords of the call builders (text-format.md §9): `out_ty=` is
// `out_sinfo=` and `ty_args=` is `sinfo_args=`. Both spellings mean the same argument.
static std::string canonical_keyword(std::string key) {
  if (key == "out_ty") return "out_sinfo";
  if (key == "ty_args") return "sinfo_args";
  return key;
}

CallArgs FunctionLowerer::split_args(TSNode call) {
  CallArgs args;
  for (TSNode a : cst().named_children(cst().field(call, Field::arguments))) {
    if (cst().is(a, Kind::keyword_argument)) {
      std::string key = canonical_keyword(text(cst().field(a, Field::name)));
      bool repeated = false;
      for (auto& [k, v] : args.keywords) repeated = repeated || k == key;
      // Reported once, here; the first value is the one lowered.
      if (repeated) {
        error(diag::DuplicateKeywordArgument{.argument = key}, span(a));
        continue;
      }
      args.keywords.emplace_back(key, cst().field(a, Field::value));
    } else {
      args.positional.push_back(a);
    }
  }
  return args;
}

// Binds positional and keyword arguments to parameter names (Python rules). Reports unknown
// keywords, duplicates and too many positionals; `what` names the callee in messages.
bool FunctionLowerer::bind_params(TSNode call, const CallArgs& args,
                                  const std::vector<std::string_view>& params,
                                  std::unordered_map<std::string, TSNode>& out,
                                  const std::string& what) {
  bool ok = true;
  if (args.positional.size() > params.size()) {
    error(
        diag::TooManyPositionalArguments{
            .callee = what, .max_count = params.size(), .given_count = args.positional.size()},
        span(args.positional[params.size()]));
    ok = false;
  }
  for (size_t i = 0; i < args.positional.size() && i < params.size(); ++i)
    out[std::string(params[i])] = args.positional[i];
  for (auto& [k, v] : args.keywords) {
    bool known = false;
    for (std::string_view p : params) known = known || p == k;
    if (!known) {
      error(diag::UnexpectedKeywordArgument{.callee = what, .keyword = k}, span(v));
      ok = false;
      continue;
    }
    if (out.count(k)) {
      error(diag::DuplicateKeywordArgument{.argument = k}, span(v));
      ok = false;
      continue;
    }
    out[k] = v;
  }
  (void)call;
  return ok;
}

const ir::Expr* FunctionLowerer::lower_call(TSNode node) {
  TSNode callee = cst().field(node, Field::function);
  std::string path = relax_path(callee);
  if (!path.empty()) return lower_op_call(node, path);
  if (!tir_path_of(callee).empty()) return lower_prim_value(node);
  const ir::Expr* fn = nullptr;
  if (cst().is(callee, Kind::attribute) && !is_module_ref(callee) &&
      cst().text(cst().field(callee, Field::attribute)) == "astype")
    return lower_astype(node);
  if (cst().is(callee, Kind::attribute) && is_module_ref(callee)) {
    fn = global_ref(callee);
  } else if (cst().is(callee, Kind::identifier)) {
    fn = lower_identifier(callee);
    // An unresolved callee was reported; the whole call is the error.
    if (fn && ir::isa<ir::ErrorExpr>(fn)) return make<ir::ErrorExpr>(span(node));
    if (fn && !ir::isa<ir::Var>(fn) && !ir::isa<ir::GlobalVar>(fn)) {
      error(diag::ExpressionNotCallable{.callee = text(callee)}, span(callee));
      return nullptr;
    }
  } else {
    error(diag::ExpressionNotCallable{.callee = text(callee)}, span(callee));
    return nullptr;
  }
  if (!fn) return nullptr;
  CallArgs args = split_args(node);
  if (!args.keywords.empty()) {
    error(diag::PositionalArgumentsOnly{.callee = text(callee)}, span(args.keywords[0].second));
    return nullptr;
  }
  std::vector<const ir::Expr*> lowered;
  bool ok = true;
  for (TSNode a : args.positional) {
    const ir::Expr* e = lower_expr(a);
    ok = ok && e;
    lowered.push_back(e);
  }
  if (!ok) return nullptr;
  return make<ir::Call>(fn, std::move(lowered), std::vector<const ir::StructInfo*>{}, ir::Attrs{},
                        span(node));
}

// `x.astype("float16")` → R.astype(x, dtype="float16") (§5.11).
const ir::Expr* FunctionLowerer::lower_astype(TSNode node) {
  TSNode callee = cst().field(node, Field::function);
  const ir::Expr* value = lower_expr(cst().field(callee, Field::object));
  if (!value) return nullptr;
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  if (!bind_params(node, args, {"dtype"}, p, "astype")) return nullptr;
  if (!p.count("dtype")) {
    error(diag::BuiltinArgumentMissing{.callee = "astype", .argument = "dtype"}, span(node));
    return nullptr;
  }
  std::optional<ir::AttrValue> dtype = lower_attr_value(p["dtype"]);
  if (!dtype) return nullptr;
  ir::Attrs attrs;
  attrs.entries.emplace_back("dtype", std::move(*dtype));
  return make<ir::Call>(make<ir::Op>("relax.astype", span(cst().field(callee, Field::attribute))),
                        std::vector<const ir::Expr*>{value}, std::vector<const ir::StructInfo*>{},
                        std::move(attrs), span(node));
}

namespace {
bool is_sinfo_ctor(std::string_view path) {
  return path == "Tensor" || path == "Shape" || path == "Prim" || path == "Tuple" ||
         path == "Object" || path == "Any" || path == "Callable" || path == "DTensor";
}
bool is_unsupported_builder(std::string_view path) {
  return path == "emit" || path == "emit_te" || path == "arg" || path == "func_name" ||
         path == "emit_match_cast" || path == "emit_var_binding" || path == "macro" ||
         path == "rewriter";
}
// A device mesh is global information or part of an annotation, never a Relax value.
bool is_device_mesh(std::string_view path) {
  return path == "device_mesh" || path == "dist.device_mesh";
}
}  // namespace

const ir::Expr* FunctionLowerer::lower_op_call(TSNode node, const std::string& path) {
  Span at = span(node);
  if (path == "const") return lower_const(node);
  if (path == "prim_value") {
    CallArgs args = split_args(node);
    std::unordered_map<std::string, TSNode> p;
    if (!bind_params(node, args, {"value"}, p, "R.prim_value") || !p.count("value")) {
      if (!p.count("value"))
        error(diag::BuiltinArgumentMissing{.callee = "R.prim_value", .argument = "value"}, at);
      return nullptr;
    }
    const ir::PrimExpr* e = lower_prim(p["value"]);
    if (auto* f = e ? ir::dyn_cast<ir::FloatImm>(e) : nullptr)
      if (is_type(p["value"], "float"))
        e = make<ir::FloatImm>(DataType::Float(64), f->value, f->span);
    return e ? make<ir::PrimValue>(e, at) : nullptr;
  }
  if (path == "str" || path == "dtype") {
    CallArgs args = split_args(node);
    std::unordered_map<std::string, TSNode> p;
    std::string what = "R." + path;
    if (!bind_params(node, args, {"value"}, p, what)) return nullptr;
    if (!p.count("value") || !cst().is(p["value"], Kind::string)) {
      error(diag::StringLiteralExpected{.what = what}, at);
      return nullptr;
    }
    std::optional<std::string> s = string_value(ctx_, p["value"]);
    if (!s) return nullptr;
    if (path == "str") return make<ir::StringImm>(*s, at);
    std::optional<DataType> dt = DataType::parse(*s);
    if (!dt) {
      error(diag::UnknownRelaxDtype{.dtype = *s}, span(p["value"]));
      return nullptr;
    }
    return make<ir::DataTypeImm>(*dt, at);
  }
  if (path == "shape" || path == "ShapeExpr") {
    CallArgs args = split_args(node);
    std::unordered_map<std::string, TSNode> p;
    if (!bind_params(node, args, {"value"}, p, "R." + path)) return nullptr;
    if (!p.count("value")) {
      error(diag::BuiltinArgumentMissing{.callee = "R." + path, .argument = "value"}, at);
      return nullptr;
    }
    return lower_shape_expr(node, p["value"]);
  }
  if (path == "tuple") {
    CallArgs args = split_args(node);
    if (!args.keywords.empty()) {
      error(diag::UnexpectedKeywordArgument{.callee = "R.tuple", .keyword = args.keywords[0].first},
            span(args.keywords[0].second));
      return nullptr;
    }
    std::vector<const ir::Expr*> fields;
    for (TSNode a : args.positional) {
      const ir::Expr* e = lower_expr(a);
      if (!e) return nullptr;
      fields.push_back(e);
    }
    return make<ir::Tuple>(std::move(fields), at);
  }
  if (path == "TupleGetItem") {
    CallArgs args = split_args(node);
    if (args.positional.size() != 2 || !cst().is(args.positional[1], Kind::integer)) {
      error(diag::InvalidTupleIndexLiteral{}, at);
      return nullptr;
    }
    const ir::Expr* t = lower_expr(args.positional[0]);
    std::optional<IntLiteral> i = parse_int_literal(cst().text(args.positional[1]));
    if (!t || !i || i->overflow) return nullptr;
    return make<ir::TupleGetItem>(t, int64_t(i->magnitude), at);
  }
  if (path == "ExternFunc") return lower_extern_func(node);
  if (path == "call_tir" || path == "call_tir_inplace" || path == "call_tir_with_grad" ||
      path == "call_dps_packed" || path == "dist.call_tir_local_view")
    return lower_call_tir(node, path);
  // R.dist.call_tir is call_tir with DTensor outputs; the printer chooses the spelling again.
  if (path == "dist.call_tir") return lower_call_tir(node, "call_tir");
  if (path == "dist.annotate_sharding" || path == "dist.redistribute")
    return lower_distribution_op(node, path);
  if (path == "dist.const") return lower_dist_const(node);
  if (path == "call_packed" || path == "call_pure_packed" || path == "call_inplace_packed")
    return lower_packed(node, path);
  if (path == "print") return lower_print(node, false);
  if (path == "assert_op") return lower_print(node, true);
  if (path == "match_cast") {
    error(diag::MatchCastNotWholeValue{}, at);
    return nullptr;
  }
  if (path == "output" || path == "func_attr" || path == "dataflow" || path == "function") {
    error(diag::StatementUsedAsExpression{.builtin = "R." + path}, at);
    return nullptr;
  }
  if (is_device_mesh(path)) {
    error(diag::UnsupportedInRelaxFunction{.construct = "R.device_mesh as a value (it belongs in "
                                                        "I.module_global_infos or an annotation)"},
          at);
    return nullptr;
  }
  if (is_unsupported_builder(path)) {
    error(diag::UnsupportedInRelaxFunction{.construct = "R." + path}, at);
    return nullptr;
  }
  if (is_sinfo_ctor(path)) {
    error(diag::AnnotationUsedAsValue{.annotation = text(cst().field(node, Field::function))}, at);
    return nullptr;
  }
  return lower_generic_op(node, "relax." + path);
}

const ir::Expr* FunctionLowerer::lower_extern_func(TSNode node) {
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  if (!bind_params(node, args, {"global_symbol", "struct_info"}, p, "R.ExternFunc")) return nullptr;
  if (!p.count("global_symbol") || !cst().is(p["global_symbol"], Kind::string)) {
    error(diag::StringLiteralExpected{.what = "R.ExternFunc"}, span(node));
    return nullptr;
  }
  std::optional<std::string> sym = string_value(ctx_, p["global_symbol"]);
  if (!sym) return nullptr;
  const ir::StructInfo* sinfo = nullptr;
  if (p.count("struct_info")) {
    sinfo = lower_sinfo(p["struct_info"], SInfoMode::Body);
    if (!sinfo) return nullptr;
  }
  return make<ir::ExternFunc>(*sym, sinfo, span(node));
}

const ir::Expr* FunctionLowerer::lower_shape_expr(TSNode node, TSNode values) {
  TSNode v = values;
  while (cst().is(v, Kind::parenthesized_expression) &&
         !cst().is(cst().field(v, Field::value), Kind::string))
    v = cst().field(v, Field::value);
  if (!cst().is(v, Kind::list) && !cst().is(v, Kind::tuple)) {
    error(diag::ShapeValuesNotSequence{.values = text(values)}, span(values));
    return nullptr;
  }
  std::vector<const ir::PrimExpr*> dims;
  for (TSNode item : cst().named_children(v)) {
    if (cst().is(item, Kind::string)) {
      error(diag::QuotedShapeDimension{.dimension = text(item)}, span(item));
      return nullptr;
    }
    const ir::PrimExpr* e = lower_prim(item);
    if (!e) return nullptr;
    if (!e->dtype.is_integer()) {
      error(diag::NonIntegerDimension{.dimension = text(item), .dtype = e->dtype.str()},
            span(item));
      return nullptr;
    }
    if (e->dtype != DataType::Int(64)) e = cast_prim(ctx_, DataType::Int(64), e, span(item));
    dims.push_back(e);
  }
  return make<ir::ShapeExpr>(std::move(dims), span(node));
}

const ir::Expr* FunctionLowerer::lower_const(TSNode node) {
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  if (!bind_params(node, args, {"value", "dtype"}, p, "R.const")) return nullptr;
  if (!p.count("value")) {
    error(diag::BuiltinArgumentMissing{.callee = "R.const", .argument = "value"}, span(node));
    return nullptr;
  }
  std::optional<DataType> dtype;
  if (p.count("dtype") && !cst().is(p["dtype"], Kind::none)) {
    TSNode d = p["dtype"];
    std::optional<std::string> s;
    if (cst().is(d, Kind::string)) s = string_value(ctx_, d);
    if (s) dtype = DataType::parse(*s);
    if (!dtype || dtype->is_void()) {
      error(diag::UnknownRelaxDtype{.dtype = s.value_or(text(d))}, span(d));
      return nullptr;
    }
  }
  return lower_const_value(p["value"], dtype, span(node));
}

// Positional arguments are expressions, keywords are attributes (§5.9); which parameters are
// which per op is decided by the op registry in the analysis.
const ir::Expr* FunctionLowerer::lower_generic_op(TSNode node, const std::string& op_name) {
  CallArgs args = split_args(node);
  std::string short_name = op_name.substr(6);
  bool tensor_only = false;
  for (const char* t : kTensorBinaryOps) tensor_only = tensor_only || short_name == t;
  std::vector<const ir::Expr*> lowered;
  bool ok = true;
  for (TSNode a : args.positional) {
    if (tensor_only && is_number(a)) {
      error(diag::BareNumberWithTensor{.number = text(a), .op = "R." + short_name}, span(a));
      ok = false;
      continue;
    }
    const ir::Expr* e = lower_expr(a);
    ok = ok && e;
    lowered.push_back(e);
  }
  std::vector<const ir::StructInfo*> sinfo_args;
  ir::Attrs attrs;
  for (auto& [key, value] : args.keywords) {
    if (key == "sinfo_args") {
      sinfo_args = lower_sinfo_list(value, false);
      continue;
    }
    std::optional<ir::AttrValue> v = lower_attr_value(value);
    if (!v) {
      ok = false;
      continue;
    }
    if (!attrs.find(key)) attrs.entries.emplace_back(key, std::move(*v));
  }
  if (!ok) return nullptr;
  Span callee_span = span(cst().field(node, Field::function));
  return make<ir::Call>(make<ir::Op>(op_name, callee_span), std::move(lowered),
                        std::move(sinfo_args), std::move(attrs), span(node));
}

// `sinfo_args=S` / `(S1, S2)` / `[S1, S2]`; `out_sinfo=[S1, S2]` is a tuple result
// (`list_is_tuple`), except that a one-element list is the element itself (§5.12).
std::vector<const ir::StructInfo*> FunctionLowerer::lower_sinfo_list(TSNode node,
                                                                     bool list_is_tuple) {
  std::vector<const ir::StructInfo*> result;
  // `(S)` is S in Python: parentheses alone never make a tuple.
  while (cst().is(node, Kind::parenthesized_expression)) node = cst().field(node, Field::value);
  if (cst().is(node, Kind::list) || cst().is(node, Kind::tuple)) {
    std::vector<const ir::StructInfo*> items;
    for (TSNode item : cst().named_children(node)) {
      const ir::StructInfo* s = lower_sinfo(item, SInfoMode::Body);
      if (!s) return {};
      items.push_back(s);
    }
    if (list_is_tuple && items.size() != 1) {
      result.push_back(make<ir::TupleSInfo>(std::move(items), span(node)));
    } else {
      result = std::move(items);
    }
    return result;
  }
  if (const ir::StructInfo* s = lower_sinfo(node, SInfoMode::Body)) result.push_back(s);
  return result;
}

// The argument tuple of call_tir-like ops: an inline tuple/list stays a Tuple, a single
// expression is wrapped unless it is known to be a tuple (§10 item 13).
const ir::Expr* FunctionLowerer::wrap_args_tuple(TSNode node, bool inplace) {
  TSNode n = node;
  while (cst().is(n, Kind::parenthesized_expression)) n = cst().field(n, Field::value);
  if (cst().is(n, Kind::tuple) || cst().is(n, Kind::list))
    return lower_tuple(n, LiteralMode::PrimValue);
  const ir::Expr* e = lower_expr(n);
  if (!e) return nullptr;
  bool known_tuple = false;
  if (auto* var = ir::dyn_cast<ir::Var>(e)) {
    auto it = facts_.find(var);
    known_tuple = it != facts_.end() && it->second.tuple_arity >= 0;
    if (inplace && known_tuple) {
      error(diag::CallTirInplaceTupleVariable{.tuple_var = var->name}, span(node));
      return nullptr;
    }
  }
  if (known_tuple || ir::isa<ir::Tuple>(e)) return e;
  return make<ir::Tuple>(std::vector<const ir::Expr*>{e}, span(node));
}

const ir::Expr* FunctionLowerer::lower_callee_symbol(TSNode node) {
  if (cst().is(node, Kind::string)) {
    std::optional<std::string> s = string_value(ctx_, node);
    return s ? make<ir::ExternFunc>(*s, nullptr, span(node)) : nullptr;
  }
  const ir::Expr* e = lower_expr(node);
  if (auto* s = e ? ir::dyn_cast<ir::StringImm>(e) : nullptr)
    return make<ir::ExternFunc>(s->value, nullptr, span(node));
  return e;
}

std::optional<std::vector<int64_t>> FunctionLowerer::lower_int_list(TSNode node) {
  std::vector<int64_t> out;
  std::vector<TSNode> items;
  if (cst().is(node, Kind::list) || cst().is(node, Kind::tuple))
    items = cst().named_children(node);
  else
    items = {node};
  for (TSNode item : items) {
    const ir::PrimExpr* e = is_number(item) ? lower_prim(item) : nullptr;
    auto* imm = e ? ir::dyn_cast<ir::IntImm>(e) : nullptr;
    if (!imm) {
      error(diag::IntegerLiteralExpected{.value = text(item)}, span(item));
      return std::nullopt;
    }
    out.push_back(imm->value);
  }
  return out;
}

const ir::Expr* FunctionLowerer::lower_call_tir(TSNode node, const std::string& path) {
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  std::vector<std::string_view> params;
  if (path == "call_tir" || path == "dist.call_tir_local_view")
    params = {"gvar", "args", "out_sinfo", "tir_vars"};
  if (path == "call_tir_inplace")
    params = {"gvar", "args", "inplace_indices", "out_sinfo", "tir_vars"};
  if (path == "call_tir_with_grad")
    params = {"gvar", "args", "out_sinfo", "te_grad_name", "te_grad_kwargs", "tir_vars"};
  if (path == "call_dps_packed") params = {"func", "args", "out_sinfo"};
  std::string what = "R." + path;
  if (!bind_params(node, args, params, p, what)) return nullptr;
  std::string callee_key(params[0]);
  for (std::string_view required :
       {std::string_view(params[0]), std::string_view("args"), std::string_view("out_sinfo")}) {
    if (!p.count(std::string(required))) {
      error(diag::BuiltinArgumentMissing{.callee = what, .argument = std::string(required)},
            span(node));
      return nullptr;
    }
  }
  const ir::Expr* callee = lower_callee_symbol(p[callee_key]);
  const ir::Expr* tuple = wrap_args_tuple(p["args"], path == "call_tir_inplace");
  std::vector<const ir::StructInfo*> out = lower_sinfo_list(p["out_sinfo"], true);
  if (!callee || !tuple || out.size() != 1) return nullptr;
  std::vector<const ir::Expr*> call_args{callee, tuple};
  if (p.count("tir_vars") && !cst().is(p["tir_vars"], Kind::none)) {
    TSNode tv = p["tir_vars"];
    const ir::Expr* shape = (cst().is(tv, Kind::list) || cst().is(tv, Kind::tuple))
                                ? lower_shape_expr(tv, tv)
                                : lower_expr(tv);
    if (!shape) return nullptr;
    call_args.push_back(shape);
  }
  ir::Attrs attrs;
  if (path == "call_tir_inplace") {
    if (!p.count("inplace_indices")) {
      error(diag::BuiltinArgumentMissing{.callee = what, .argument = "inplace_indices"},
            span(node));
      return nullptr;
    }
    std::optional<std::vector<int64_t>> indices = lower_int_list(p["inplace_indices"]);
    if (!indices) return nullptr;
    bool any = false;
    ir::AttrValue::List list;
    for (int64_t i : *indices) {
      if (i < -1) {
        error(diag::InvalidInplaceIndex{.index = i}, span(p["inplace_indices"]));
        return nullptr;
      }
      any = any || i >= 0;
      list.push_back(ir::AttrValue(i, span(p["inplace_indices"])));
    }
    if (!any) {
      error(diag::NoInplaceIndex{}, span(p["inplace_indices"]));
      return nullptr;
    }
    attrs.entries.emplace_back("inplace_indices",
                               ir::AttrValue(std::move(list), span(p["inplace_indices"])));
  }
  if (path == "call_tir_with_grad") {
    for (const char* key : {"te_grad_name", "te_grad_kwargs"}) {
      if (!p.count(key)) continue;
      std::optional<ir::AttrValue> v = lower_attr_value(p[key]);
      if (!v) return nullptr;
      attrs.entries.emplace_back(key, std::move(*v));
    }
  }
  Span callee_span = span(cst().field(node, Field::function));
  return make<ir::Call>(make<ir::Op>("relax." + path, callee_span), std::move(call_args),
                        std::move(out), std::move(attrs), span(node));
}

const ir::Expr* FunctionLowerer::lower_packed(TSNode node, const std::string& path) {
  CallArgs args = split_args(node);
  std::string what = "R." + path;
  if (args.positional.empty()) {
    error(diag::BuiltinArgumentMissing{.callee = what, .argument = "func"}, span(node));
    return nullptr;
  }
  const ir::Expr* callee = lower_callee_symbol(args.positional[0]);
  std::vector<const ir::Expr*> call_args;
  bool ok = callee != nullptr;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    const ir::Expr* e = lower_expr(args.positional[i]);
    ok = ok && e;
    call_args.push_back(e);
  }
  std::vector<const ir::StructInfo*> sinfo_args;
  bool has_sinfo = false;
  ir::Attrs attrs;
  for (auto& [key, value] : args.keywords) {
    if (key == "sinfo_args") {
      has_sinfo = true;
      sinfo_args = lower_sinfo_list(value, false);
      ok = ok && !sinfo_args.empty();
      continue;
    }
    if (key == "inplace_indices" && path == "call_inplace_packed") {
      std::optional<std::vector<int64_t>> indices = lower_int_list(value);
      if (!indices) return nullptr;
      ir::AttrValue::List list;
      for (int64_t i : *indices) list.push_back(ir::AttrValue(i, span(value)));
      attrs.entries.emplace_back(key, ir::AttrValue(std::move(list), span(value)));
      continue;
    }
    if (path != "call_packed") {
      error(diag::UnexpectedKeywordArgument{.callee = what, .keyword = key}, span(value));
      ok = false;
      continue;
    }
    std::optional<ir::AttrValue> v = lower_attr_value(value);
    if (!v) {
      ok = false;
      continue;
    }
    attrs.entries.emplace_back(key, std::move(*v));
  }
  (void)has_sinfo;  // without sinfo_args the result is R.Object
  if (!ok) return nullptr;
  Span callee_span = span(cst().field(node, Field::function));
  if (path == "call_packed")
    return make<ir::Call>(callee, std::move(call_args), std::move(sinfo_args), std::move(attrs),
                          span(node));
  call_args.insert(call_args.begin(), callee);
  return make<ir::Call>(make<ir::Op>("relax." + path, callee_span), std::move(call_args),
                        std::move(sinfo_args), std::move(attrs), span(node));
}

// R.print(*values, format="") → relax.print(format, values...);
// R.assert_op(cond, *format_args, format="") → relax.assert_op(cond, format, format_args...).
const ir::Expr* FunctionLowerer::lower_print(TSNode node, bool is_assert) {
  CallArgs args = split_args(node);
  std::string what = is_assert ? "R.assert_op" : "R.print";
  std::string format;
  Span format_span = span(node);
  std::vector<TSNode> values = args.positional;
  for (auto& [key, value] : args.keywords) {
    if (key == "format") {
      TSNode f = value;
      while (cst().is(f, Kind::parenthesized_expression)) f = cst().field(f, Field::value);
      if (cst().is(f, Kind::call) && relax_path(cst().field(f, Field::function)) == "str") {
        std::vector<TSNode> inner = cst().named_children(cst().field(f, Field::arguments));
        f = inner.size() == 1 ? inner[0] : TSNode{};
      }
      std::optional<std::string> s;
      if (!ts_node_is_null(f) && cst().is(f, Kind::string)) s = string_value(ctx_, f);
      if (!s) {
        error(diag::StringLiteralExpected{.what = what + " format"}, span(value));
        return nullptr;
      }
      format = *s;
      format_span = span(value);
    } else if (is_assert && key == "format_args") {
      values.push_back(value);
    } else if (is_assert && key == "condition") {
      values.insert(values.begin(), value);
    } else {
      error(diag::UnexpectedKeywordArgument{.callee = what, .keyword = key}, span(value));
      return nullptr;
    }
  }
  std::vector<const ir::Expr*> call_args;
  auto* fmt = make<ir::StringImm>(format, format_span);
  if (is_assert) {
    if (values.empty()) {
      error(diag::BuiltinArgumentMissing{.callee = what, .argument = "condition"}, span(node));
      return nullptr;
    }
    const ir::Expr* cond = lower_condition(values[0]);
    if (!cond) return nullptr;
    call_args = {cond, fmt};
    values.erase(values.begin());
    // A single list/tuple of format arguments is spread.
    if (values.size() == 1 && (cst().is(values[0], Kind::list) || cst().is(values[0], Kind::tuple)))
      values = cst().named_children(values[0]);
  } else {
    call_args = {fmt};
  }
  for (TSNode v : values) {
    const ir::Expr* e = lower_expr(v);
    if (!e) return nullptr;
    call_args.push_back(e);
  }
  Span callee_span = span(cst().field(node, Field::function));
  return make<ir::Call>(make<ir::Op>(is_assert ? "relax.assert_op" : "relax.print", callee_span),
                        std::move(call_args), std::vector<const ir::StructInfo*>{}, ir::Attrs{},
                        span(node));
}

// ------------------------------------------------------------------------------ attributes

namespace {
// Names visible inside `lambda i, j: ...` of an index map: the lambda parameters first.
class LambdaNames : public PrimNames {
 public:
  LambdaNames(const PrimNames& outer, std::vector<const ir::PrimVar*> params)
      : outer_(outer), params_(std::move(params)) {}
  const ir::PrimVar* find_var(std::string_view name) const override {
    for (const ir::PrimVar* p : params_)
      if (p->name == name) return p;
    return outer_.find_var(name);
  }
  const ir::PrimExpr* find_expr(std::string_view name) const override {
    for (const ir::PrimVar* p : params_)
      if (p->name == name) return nullptr;
    return outer_.find_expr(name);
  }

 private:
  const PrimNames& outer_;
  std::vector<const ir::PrimVar*> params_;
};
}  // namespace

const ir::IndexMap* FunctionLowerer::lower_index_map(TSNode lambda) {
  auto* map = make<ir::IndexMap>();
  map->span = span(lambda);
  TSNode params = cst().field(lambda, Field::parameters);
  if (!ts_node_is_null(params))
    for (TSNode p : cst().named_children(params))
      map->params.push_back(make<ir::PrimVar>(text(p), DataType::Int(64), span(p)));
  LambdaNames names(names_, map->params);
  TSNode body = cst().field(lambda, Field::body);
  std::vector<TSNode> results;
  if (cst().is(body, Kind::tuple) || cst().is(body, Kind::list))
    results = cst().named_children(body);
  else
    results = {body};
  for (TSNode r : results) {
    const ir::PrimExpr* e = lower_prim_expr(ctx_, r, names, IntMode::Int64);
    if (!e) return nullptr;
    map->results.push_back(e);
  }
  return map;
}

std::optional<ir::AttrValue> FunctionLowerer::lower_attr_value(TSNode node) {
  Span at = span(node);
  if (cst().is(node, Kind::parenthesized_expression) &&
      !cst().is(cst().field(node, Field::value), Kind::tuple))
    return lower_attr_value(cst().field(node, Field::value));
  if (cst().is(node, Kind::list) || cst().is(node, Kind::tuple)) {
    ir::AttrValue::List list;
    for (TSNode item : cst().named_children(node)) {
      std::optional<ir::AttrValue> v = lower_attr_value(item);
      if (!v) return std::nullopt;
      list.push_back(std::move(*v));
    }
    return ir::AttrValue(std::move(list), at);
  }
  if (cst().is(node, Kind::dictionary)) {
    ir::AttrValue::Dict dict;
    for (TSNode pair : cst().named_children(node)) {
      if (!cst().is(pair, Kind::pair)) continue;
      std::optional<ir::AttrValue> k = lower_attr_value(cst().field(pair, Field::key));
      std::optional<ir::AttrValue> v = lower_attr_value(cst().field(pair, Field::value));
      if (!k || !v) return std::nullopt;
      dict.emplace_back(std::move(*k), std::move(*v));
    }
    return ir::AttrValue(std::move(dict), at);
  }
  if (cst().is(node, Kind::lambda)) {
    const ir::IndexMap* map = lower_index_map(node);
    if (!map) return std::nullopt;
    return ir::AttrValue(map, at);
  }
  if (cst().is(node, Kind::call) || cst().is(node, Kind::attribute)) {
    TSNode callee = cst().is(node, Kind::call) ? cst().field(node, Field::function) : node;
    if (cst().is(node, Kind::call) && tir_path_of(callee) == "index_map") {
      std::vector<TSNode> args = cst().named_children(cst().field(node, Field::arguments));
      if (args.empty() || !cst().is(args[0], Kind::lambda)) {
        error(diag::IndexMapNeedsLambda{}, at);
        return std::nullopt;
      }
      const ir::IndexMap* map = lower_index_map(args[0]);
      if (!map) return std::nullopt;
      return ir::AttrValue(map, at);
    }
    std::string path = relax_path(callee);
    if (is_sinfo_ctor(path)) {
      const ir::StructInfo* s = lower_sinfo(node, SInfoMode::Body);
      if (!s) return std::nullopt;
      return ir::AttrValue(s, at);
    }
    if (cst().is(node, Kind::call) && (path == "dtype" || path == "str")) {
      const ir::Expr* e = lower_op_call(node, path);
      if (!e) return std::nullopt;
      if (auto* d = ir::dyn_cast<ir::DataTypeImm>(e)) return ir::AttrValue(d->value, at);
      return ir::AttrValue(ir::cast<ir::StringImm>(e)->value, at);
    }
  }
  if (is_number(node) || cst().is(node, Kind::string) || cst().is(node, Kind::none) ||
      cst().is(node, Kind::concatenated_string))
    return lower_literal_attr(ctx_, node);
  if (is_prim_expression(node)) {
    const ir::PrimExpr* e = lower_prim(node);
    if (!e) return std::nullopt;
    return ir::AttrValue(e, at);
  }
  const ir::Expr* e = lower_expr(node);
  if (!e) return std::nullopt;
  return ir::AttrValue(e, at);
}

// R.dist.annotate_sharding(input, device_mesh, placement) and R.dist.redistribute(...): the
// mesh and placement are attributes, kept as TVM prints them ("mesh[0]", "S[1], R"); whether the
// placement fits the input's rank is the operator's inference to check.
const ir::Expr* FunctionLowerer::lower_distribution_op(TSNode node, const std::string& path) {
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  std::string what = "R." + path;
  if (!bind_params(node, args, {"input", "device_mesh", "placement"}, p, what)) return nullptr;
  for (const char* required : {"input", "device_mesh", "placement"}) {
    if (p.count(required)) continue;
    error(diag::BuiltinArgumentMissing{.callee = what, .argument = required}, span(node));
    return nullptr;
  }
  const ir::Expr* input = lower_expr(p["input"]);
  const ir::DeviceMesh* mesh = resolve_device_mesh(ctx_, p["device_mesh"]);
  if (!input || !mesh) return nullptr;
  std::optional<ir::Placement> placement = lower_placement(ctx_, p["placement"], *mesh);
  if (!placement) return nullptr;
  if (mesh->global_info_key.empty()) {
    error(diag::MalformedDeviceMeshReference{.mesh = text(p["device_mesh"])},
          span(p["device_mesh"]));
    return nullptr;
  }
  ir::Attrs attrs;
  attrs.entries.emplace_back("device_mesh",
                             ir::AttrValue(ir::mesh_reference_text(*mesh), span(p["device_mesh"])));
  attrs.entries.emplace_back("placement",
                             ir::AttrValue(ir::placement_text(*placement), span(p["placement"])));
  Span callee_span = span(cst().field(node, Field::function));
  return make<ir::Call>(make<ir::Op>("relax." + path, callee_span),
                        std::vector<const ir::Expr*>{input}, std::vector<const ir::StructInfo*>{},
                        std::move(attrs), span(node));
}

// R.dist.const(value, struct_info): a constant whose StructInfo is the DTensor given; its value
// takes the DTensor's dtype, as TVM converts it.
const ir::Expr* FunctionLowerer::lower_dist_const(TSNode node) {
  CallArgs args = split_args(node);
  std::unordered_map<std::string, TSNode> p;
  if (!bind_params(node, args, {"value", "struct_info"}, p, "R.dist.const")) return nullptr;
  for (const char* required : {"value", "struct_info"}) {
    if (p.count(required)) continue;
    error(diag::BuiltinArgumentMissing{.callee = "R.dist.const", .argument = required}, span(node));
    return nullptr;
  }
  const ir::StructInfo* sinfo = lower_sinfo(p["struct_info"], SInfoMode::Body);
  if (!sinfo) return nullptr;
  const ir::TensorSInfo* dtensor = ir::as_dtensor(sinfo);
  if (!dtensor) {
    error(diag::DistConstNeedsDTensor{.struct_info = text(p["struct_info"])},
          span(p["struct_info"]));
    return nullptr;
  }
  std::optional<DataType> dtype;
  if (!dtensor->dtype.is_void()) dtype = dtensor->dtype;
  const ir::Expr* value = lower_const_value(p["value"], dtype, span(node));
  if (!value) return nullptr;
  auto* constant = const_cast<ir::Constant*>(ir::cast<ir::Constant>(value));  // made just now
  constant->dtensor = dtensor;
  return constant;
}

}  // namespace raxc::lower
