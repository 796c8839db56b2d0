// PrimExpr lowering (text-format.md §1 prim_expr, §4.6, §6.4–6.6, §10 items 6 and 21).
//
// Sub-expressions made only of Python literals are folded the way Python evaluates them before
// TVM ever sees them (`2 * 3` is the int 6). A literal becomes a PrimExpr only when it meets a
// PrimExpr operand, whose dtype it adopts (TVMScript's `_auto_broadcast`), or at the end, where
// it takes the mode's default dtype (int32 in TIR, int64 in Relax shapes; float32 for floats).
#include "frontend/lower/prim.h"

#include <tree_sitter/api.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "frontend/lower/literals.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;
using ir::DataType;
using ir::PrimKind;

namespace {

using Int = __int128;

// A value met while lowering: a Python literal (still foldable) or a PrimExpr.
struct Val {
  enum class Tag : uint8_t { Expr, Int, Float, Bool, Str };
  Tag tag = Tag::Expr;
  const ir::PrimExpr* expr = nullptr;
  Int i = 0;
  double f = 0;
  std::string s;
  Span span;

  static Val of(const ir::PrimExpr* e) {
    Val v;
    v.expr = e;
    v.span = e->span;
    return v;
  }
  static Val integer(Int i, Span span) {
    Val v;
    v.tag = Tag::Int;
    v.i = i;
    v.span = span;
    return v;
  }
  static Val real(double f, Span span) {
    Val v;
    v.tag = Tag::Float;
    v.f = f;
    v.span = span;
    return v;
  }
  static Val boolean(bool b, Span span) {
    Val v;
    v.tag = Tag::Bool;
    v.i = b;
    v.span = span;
    return v;
  }
  bool is_expr() const { return tag == Tag::Expr; }
  bool is_number() const { return tag == Tag::Int || tag == Tag::Float || tag == Tag::Bool; }
};
using Result = std::optional<Val>;

std::string int_to_string(Int v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 m = negative ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  std::string digits;
  while (m) {
    digits.insert(digits.begin(), char('0' + int(m % 10)));
    m /= 10;
  }
  return negative ? "-" + digits : digits;
}

bool fits(Int v, DataType dt) {
  if (dt.is_bool()) return v == 0 || v == 1;
  if (dt.bits == 0 || dt.bits > 64) return false;
  if (dt.code == DataType::Code::UInt) {
    return v >= 0 && (dt.bits == 64 || v < (Int(1) << dt.bits));
  }
  Int limit = Int(1) << (dt.bits - 1);
  return v >= -limit && v < limit;
}

Int floor_div(Int a, Int b) {
  Int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Int floor_mod(Int a, Int b) { return a - floor_div(a, b) * b; }

DataType with_lanes(DataType dt, uint16_t lanes) {
  dt.lanes = lanes;
  return dt;
}

bool same_type(DataType a, DataType b) { return a == b; }

struct BinOp {
  std::string_view text;
  PrimKind kind;          // for node-building ops
  const char* intrinsic;  // bit ops lower to calls; null otherwise
};

constexpr BinOp kBinOps[] = {
    {"+", PrimKind::Add, nullptr},
    {"-", PrimKind::Sub, nullptr},
    {"*", PrimKind::Mul, nullptr},
    {"/", PrimKind::Div, nullptr},
    {"//", PrimKind::FloorDiv, nullptr},
    {"%", PrimKind::FloorMod, nullptr},
    {"<", PrimKind::LT, nullptr},
    {"<=", PrimKind::LE, nullptr},
    {">", PrimKind::GT, nullptr},
    {">=", PrimKind::GE, nullptr},
    {"==", PrimKind::EQ, nullptr},
    {"!=", PrimKind::NE, nullptr},
    {"and", PrimKind::And, nullptr},
    {"or", PrimKind::Or, nullptr},
    {"<<", PrimKind::Call, "tir.shift_left"},
    {">>", PrimKind::Call, "tir.shift_right"},
    {"&", PrimKind::Call, "tir.bitwise_and"},
    {"|", PrimKind::Call, "tir.bitwise_or"},
    {"^", PrimKind::Call, "tir.bitwise_xor"},
};

const BinOp* find_binop(std::string_view text) {
  for (const BinOp& op : kBinOps)
    if (op.text == text) return &op;
  return nullptr;
}

bool is_comparison(PrimKind k) { return k >= PrimKind::EQ && k <= PrimKind::GE; }

// Unary math intrinsics: result dtype = argument dtype (bool for the predicates).
constexpr const char* kUnaryMath[] = {
    "exp",   "exp2",    "exp10", "log",   "log2",     "log10",    "log1p", "sqrt",       "rsqrt",
    "tanh",  "sigmoid", "erf",   "fabs",  "floor",    "ceil",     "round", "nearbyint",  "trunc",
    "sin",   "cos",     "tan",   "asin",  "acos",     "atan",     "sinh",  "cosh",       "asinh",
    "acosh", "atanh",   "isnan", "isinf", "isfinite", "popcount", "clz",   "bitwise_not"};
constexpr const char* kBinaryMath[] = {"pow",         "atan2",       "fmod",       "hypot",
                                       "copysign",    "nextafter",   "ldexp",      "shift_left",
                                       "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"};

template <size_t N>
bool in_list(const char* const (&list)[N], std::string_view name) {
  for (const char* item : list)
    if (name == item) return true;
  return false;
}

// Largest finite value of a float dtype (T.max_value / T.min_value).
std::optional<double> float_max(DataType dt) {
  switch (dt.code) {
    case DataType::Code::Float:
      if (dt.bits == 16) return 65504.0;
      if (dt.bits == 32) return double(std::numeric_limits<float>::max());
      if (dt.bits == 64) return std::numeric_limits<double>::max();
      return std::nullopt;
    case DataType::Code::BFloat: return 3.3895313892515355e+38;
    case DataType::Code::Float8E4M3FN: return 448.0;
    case DataType::Code::Float8E5M2: return 57344.0;
    default: return std::nullopt;
  }
}

class PrimLowerer {
 public:
  PrimLowerer(LowerContext& ctx, const cst::Cst& cst, const PrimNames& names, IntMode mode,
              int64_t shift = 0, Span clamp = {})
      : ctx_(ctx), cst_(cst), names_(names), mode_(mode), shift_(shift), clamp_(clamp) {}

  // The whole expression as a PrimExpr (literals take `literal_dtype` or the mode default).
  const ir::PrimExpr* lower(TSNode node, std::optional<DataType> literal_dtype = std::nullopt) {
    Result v = value(node);
    if (!v) return nullptr;
    return to_expr(*v, literal_dtype);
  }

  const ir::PrimExpr* update(const ir::PrimExpr* lhs, std::string_view op, TSNode rhs, Span span) {
    Result b = value(rhs);
    if (!b) return nullptr;
    const BinOp* bin = find_binop(op);
    if (!bin || op == "and" || op == "or" || is_comparison(bin->kind)) {
      error(DiagId::RX1307, span, {std::string(op) + "="});
      return nullptr;
    }
    Result r = binary(*bin, Val::of(lhs), *b, span);
    return r ? to_expr(*r, std::nullopt) : nullptr;
  }

  Span span(TSNode node) const {
    Span s = cst_.span(node);
    s.begin = uint32_t(int64_t(s.begin) + shift_);
    s.end = uint32_t(int64_t(s.end) + shift_);
    if (!clamp_.empty()) {
      if (s.begin < clamp_.begin || s.begin > clamp_.end) s.begin = clamp_.begin;
      if (s.end > clamp_.end || s.end < s.begin) s.end = clamp_.end;
    }
    return s;
  }

 private:
  template <class T, class... Args>
  const T* make(Args&&... args) {
    return ctx_.make<T>(std::forward<Args>(args)...);
  }
  void error(DiagId id, Span span, std::vector<std::string> args) {
    ctx_.diags.report(make_diagnostic(id, span, std::move(args)));
  }
  std::string text(TSNode node) const { return std::string(cst_.text(node)); }
  static TSNode op_node(TSNode node) { return ts_node_child_by_field_name(node, "operator", 8); }

  // ---------------------------------------------------------------- dispatch
  Result value(TSNode node) {
    switch (cst_.kind(node)) {
      case Kind::integer: return integer(node);
      case Kind::string:
      case Kind::concatenated_string: return string(node);
      case Kind::identifier: return name(node);
      case Kind::parenthesized_expression: return value(cst_.field(node, Field::value));
      case Kind::unary_operator: return unary(node);
      case Kind::not_operator: return logical_not(node);
      case Kind::binary_operator:
      case Kind::boolean_operator: return binary_node(node);
      case Kind::comparison_operator: return comparison(node);
      case Kind::subscript: return load(node);
      case Kind::call: return call(node);
      case Kind::none: return unsupported(node, "None");
      case Kind::tuple: return unsupported(node, "a tuple");
      case Kind::list: return unsupported(node, "a list");
      case Kind::dictionary: return unsupported(node, "a dictionary");
      case Kind::lambda: return unsupported(node, "a lambda");
      case Kind::conditional_expression:
        return unsupported(node, "a conditional expression (use T.Select or T.if_then_else)");
      case Kind::attribute: return unsupported(node, "'" + text(node) + "' without a call");
      case Kind::slice: {
        error(DiagId::RX1317, span(node), {});
        return std::nullopt;
      }
      default: break;
    }
    // `float`, `true`, `false` are C++ keywords, so they are matched by type name.
    std::string_view type = ts_node_type(node);
    if (type == "float") return real(node);
    if (type == "true") return Val::boolean(true, span(node));
    if (type == "false") return Val::boolean(false, span(node));
    return unsupported(node, "'" + text(node) + "'");
  }

  Result unsupported(TSNode node, std::string what) {
    error(DiagId::RX1303, span(node), {std::move(what)});
    return std::nullopt;
  }

  // ---------------------------------------------------------------- atoms
  Result integer(TSNode node) {
    auto lit = parse_int_literal(cst_.text(node));
    if (!lit) {
      error(DiagId::RX1300, span(node), {text(node)});
      return std::nullopt;
    }
    if (lit->overflow) {
      error(DiagId::RX1310, span(node), {text(node), "a 64-bit integer"});
      return std::nullopt;
    }
    return Val::integer(Int(lit->magnitude), span(node));
  }

  Result real(TSNode node) {
    auto f = parse_float_literal(cst_.text(node));
    if (!f) {
      error(DiagId::RX1300, span(node), {text(node)});
      return std::nullopt;
    }
    return Val::real(*f, span(node));
  }

  Result string(TSNode node) {
    std::string why;
    auto s = decode_string(cst_, node, &why);
    if (!s) {
      error(DiagId::RX1301, span(node), {why});
      return std::nullopt;
    }
    Val v;
    v.tag = Val::Tag::Str;
    v.s = std::move(*s);
    v.span = span(node);
    return v;
  }

  Result name(TSNode node) {
    std::string_view n = cst_.text(node);
    if (const ir::PrimExpr* alias = names_.find_expr(n)) return Val::of(alias);
    if (const ir::PrimVar* var = names_.find_var(n)) {
      Val v = Val::of(var);
      v.span = span(node);
      return v;
    }
    if (names_.find_buffer(n)) {
      error(DiagId::RX1312, span(node), {std::string(n)});
      return std::nullopt;
    }
    error(DiagId::RX1302, span(node), {std::string(n)});
    return std::nullopt;
  }

  // ---------------------------------------------------------------- operators
  Result unary(TSNode node) {
    std::string_view op = cst_.text(op_node(node));
    Result a = value(cst_.field(node, Field::argument));
    if (!a) return std::nullopt;
    Span sp = span(node);
    if (op == "+") return a;
    if (op == "-") {
      if (a->tag == Val::Tag::Float) return Val::real(-a->f, sp);
      if (a->tag == Val::Tag::Int || a->tag == Val::Tag::Bool) return Val::integer(-a->i, sp);
      if (a->tag == Val::Tag::Str) return bad_operand(node, "-", *a);
      if (const auto* imm = ir::dyn_cast<ir::IntImm>(a->expr)) {
        if (!imm->dtype.is_uint() && imm->value != std::numeric_limits<int64_t>::min())
          return Val::of(make<ir::IntImm>(imm->dtype, -imm->value, sp));
      }
      if (const auto* imm = ir::dyn_cast<ir::FloatImm>(a->expr))
        return Val::of(make<ir::FloatImm>(imm->dtype, -imm->value, sp));
      // TVM's __neg__ multiplies by a constant -1 of the operand's dtype.
      DataType dt = a->expr->dtype;
      const ir::PrimExpr* minus_one =
          dt.is_float() ? static_cast<const ir::PrimExpr*>(make<ir::FloatImm>(dt, -1.0, sp))
                        : make<ir::IntImm>(dt, -1, sp);
      return Val::of(make<ir::PrimBinary>(PrimKind::Mul, dt, a->expr, minus_one, sp));
    }
    // '~'
    if (a->tag == Val::Tag::Int || a->tag == Val::Tag::Bool) return Val::integer(~a->i, sp);
    if (!a->is_expr() || a->expr->dtype.is_float()) return bad_operand(node, "~", *a);
    return Val::of(make<ir::PrimCall>(a->expr->dtype, "tir.bitwise_not",
                                      std::vector<const ir::PrimExpr*>{a->expr}, sp));
  }

  Result bad_operand(TSNode node, std::string_view op, const Val& a) {
    error(DiagId::RX1309, span(node), {std::string(op), describe(a), describe(a)});
    return std::nullopt;
  }

  std::string describe(const Val& v) const {
    switch (v.tag) {
      case Val::Tag::Expr: return v.expr->dtype.str();
      case Val::Tag::Int: return "int literal";
      case Val::Tag::Float: return "float literal";
      case Val::Tag::Bool: return "bool literal";
      case Val::Tag::Str: return "string";
    }
    return "?";
  }

  Result logical_not(TSNode node) {
    Result a = value(cst_.field(node, Field::argument));
    if (!a) return std::nullopt;
    Span sp = span(node);
    if (a->tag == Val::Tag::Float) return Val::boolean(a->f == 0, sp);
    if (a->tag == Val::Tag::Int || a->tag == Val::Tag::Bool) return Val::boolean(a->i == 0, sp);
    if (a->tag == Val::Tag::Str) return bad_operand(node, "not", *a);
    const ir::PrimExpr* e = as_bool(*a, node, "not");
    if (!e) return std::nullopt;
    return Val::of(make<ir::PrimNot>(e, sp));
  }

  const ir::PrimExpr* as_bool(const Val& v, TSNode node, std::string_view op) {
    if (v.is_expr() && v.expr->dtype.is_bool()) return v.expr;
    if (v.tag == Val::Tag::Bool) return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
    error(DiagId::RX1339, span(node), {std::string(op), describe(v)});
    return nullptr;
  }

  Result binary_node(TSNode node) {
    std::string_view op = cst_.text(op_node(node));
    const BinOp* bin = find_binop(op);
    if (!bin) {
      error(DiagId::RX1307, span(op_node(node)), {std::string(op)});
      return std::nullopt;
    }
    Result a = value(cst_.field(node, Field::left));
    Result b = value(cst_.field(node, Field::right));
    if (!a || !b) return std::nullopt;
    return binary(*bin, *a, *b, span(node));
  }

  Result comparison(TSNode node) {
    TSNode left = cst_.field(node, Field::left);
    if (cst_.is(left, Kind::comparison_operator)) {
      error(DiagId::RX1308, span(node), {});
      return std::nullopt;
    }
    std::string_view op = cst_.text(op_node(node));
    const BinOp* bin = find_binop(op);
    if (!bin) {
      error(DiagId::RX1307, span(op_node(node)), {std::string(op)});
      return std::nullopt;
    }
    Result a = value(left);
    Result b = value(cst_.field(node, Field::right));
    if (!a || !b) return std::nullopt;
    return binary(*bin, *a, *b, span(node));
  }

 public:
  // `a op b` with TVMScript's literal adoption and TVM's BinaryOpMatchTypes.
  Result binary(const BinOp& op, Val a, Val b, Span sp) {
    if (a.tag == Val::Tag::Str || b.tag == Val::Tag::Str) {
      error(DiagId::RX1309, sp, {std::string(op.text), describe(a), describe(b)});
      return std::nullopt;
    }
    if (a.is_number() && b.is_number()) return fold(op, a, b, sp);
    if (op.kind == PrimKind::And || op.kind == PrimKind::Or) return logic(op, a, b, sp);
    // One side is a PrimExpr: the literal adopts its dtype.
    const ir::PrimExpr* x = a.is_expr() ? a.expr : adopt(a, b.expr->dtype);
    const ir::PrimExpr* y = b.is_expr() ? b.expr : adopt(b, a.expr->dtype);
    if (!x || !y) return std::nullopt;
    if (!match_types(x, y, op.text, sp)) return std::nullopt;
    return Val::of(build(op, x, y, sp));
  }

  const ir::PrimExpr* build(const BinOp& op, const ir::PrimExpr* x, const ir::PrimExpr* y,
                            Span sp) {
    if (op.intrinsic)
      return make<ir::PrimCall>(x->dtype, op.intrinsic, std::vector<const ir::PrimExpr*>{x, y}, sp);
    DataType dt = is_comparison(op.kind) ? with_lanes(DataType::Bool(), x->dtype.lanes) : x->dtype;
    return make<ir::PrimBinary>(op.kind, dt, x, y, sp);
  }

  const ir::PrimExpr* build_kind(PrimKind kind, const ir::PrimExpr* x, const ir::PrimExpr* y,
                                 Span sp) {
    BinOp op{"", kind, nullptr};
    return build(op, x, y, sp);
  }

 private:
  Result logic(const BinOp& op, const Val& a, const Val& b, Span sp) {
    const ir::PrimExpr* x = as_bool_span(a, op.text, sp);
    const ir::PrimExpr* y = x ? as_bool_span(b, op.text, sp) : nullptr;
    if (!x || !y) return std::nullopt;
    return Val::of(make<ir::PrimBinary>(op.kind, DataType::Bool(), x, y, sp));
  }

  const ir::PrimExpr* as_bool_span(const Val& v, std::string_view op, Span sp) {
    if (v.is_expr() && v.expr->dtype.is_bool()) return v.expr;
    if (v.tag == Val::Tag::Bool) return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
    error(DiagId::RX1339, sp, {std::string(op), describe(v)});
    return nullptr;
  }

  // Python evaluation of two literals.
  Result fold(const BinOp& op, const Val& a, const Val& b, Span sp) {
    bool real = a.tag == Val::Tag::Float || b.tag == Val::Tag::Float;
    double fa = a.tag == Val::Tag::Float ? a.f : double(a.i);
    double fb = b.tag == Val::Tag::Float ? b.f : double(b.i);
    auto truthy = [](const Val& v) { return v.tag == Val::Tag::Float ? v.f != 0 : v.i != 0; };
    switch (op.kind) {
      case PrimKind::And: return truthy(a) ? b : a;
      case PrimKind::Or: return truthy(a) ? a : b;
      case PrimKind::LT: return Val::boolean(real ? fa < fb : a.i < b.i, sp);
      case PrimKind::LE: return Val::boolean(real ? fa <= fb : a.i <= b.i, sp);
      case PrimKind::GT: return Val::boolean(real ? fa > fb : a.i > b.i, sp);
      case PrimKind::GE: return Val::boolean(real ? fa >= fb : a.i >= b.i, sp);
      case PrimKind::EQ: return Val::boolean(real ? fa == fb : a.i == b.i, sp);
      case PrimKind::NE: return Val::boolean(real ? fa != fb : a.i != b.i, sp);
      default: break;
    }
    if (op.intrinsic) {
      if (real) {
        error(DiagId::RX1309, sp, {std::string(op.text), describe(a), describe(b)});
        return std::nullopt;
      }
      Int r = 0;
      if (op.text == "<<") r = (b.i < 0 || b.i > 63) ? Int(0) : a.i << int(b.i);
      if (op.text == ">>") r = (b.i < 0) ? Int(0) : a.i >> int(b.i > 100 ? 100 : b.i);
      if (op.text == "&") r = a.i & b.i;
      if (op.text == "|") r = a.i | b.i;
      if (op.text == "^") r = a.i ^ b.i;
      return Val::integer(r, sp);
    }
    bool divides =
        op.kind == PrimKind::Div || op.kind == PrimKind::FloorDiv || op.kind == PrimKind::FloorMod;
    if (divides && (real ? fb == 0 : b.i == 0)) {
      error(DiagId::RX1316, sp, {});
      return std::nullopt;
    }
    if (real || op.kind == PrimKind::Div) {
      switch (op.kind) {
        case PrimKind::Add: return Val::real(fa + fb, sp);
        case PrimKind::Sub: return Val::real(fa - fb, sp);
        case PrimKind::Mul: return Val::real(fa * fb, sp);
        case PrimKind::Div: return Val::real(fa / fb, sp);
        case PrimKind::FloorDiv: return Val::real(std::floor(fa / fb), sp);
        case PrimKind::FloorMod: return Val::real(fa - std::floor(fa / fb) * fb, sp);
        default: break;
      }
    } else {
      Int r = 0;
      bool overflow = false;
      switch (op.kind) {
        case PrimKind::Add: overflow = __builtin_add_overflow(a.i, b.i, &r); break;
        case PrimKind::Sub: overflow = __builtin_sub_overflow(a.i, b.i, &r); break;
        case PrimKind::Mul: overflow = __builtin_mul_overflow(a.i, b.i, &r); break;
        case PrimKind::FloorDiv: r = floor_div(a.i, b.i); break;
        case PrimKind::FloorMod: r = floor_mod(a.i, b.i); break;
        default: break;
      }
      if (overflow) {
        error(DiagId::RX1310, sp, {"of this constant expression", "a 128-bit integer"});
        return std::nullopt;
      }
      return Val::integer(r, sp);
    }
    return std::nullopt;
  }

 public:
  // Converts a literal to a PrimExpr of `dt` (TVMScript `_auto_broadcast`): ints take an integer
  // dtype as is and a float dtype as FloatImm; floats take a float dtype, else float32.
  const ir::PrimExpr* adopt(const Val& v, DataType dt) {
    switch (v.tag) {
      case Val::Tag::Expr: return v.expr;
      case Val::Tag::Bool: return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
      case Val::Tag::Int:
        if (dt.is_float()) return make<ir::FloatImm>(dt, double(v.i), v.span);
        if (dt.is_bool() && !fits(v.i, dt)) dt = DataType::Int(32);
        if (dt.is_handle() || dt.is_void()) dt = default_int(v.i);
        return int_imm(v.i, dt, v.span);
      case Val::Tag::Float:
        return make<ir::FloatImm>(dt.is_float() ? dt : DataType::Float(32), v.f, v.span);
      case Val::Tag::Str: return make<ir::PrimStringImm>(v.s, v.span);
    }
    return nullptr;
  }

  DataType default_int(Int v) const {
    if (mode_ == IntMode::Int64) return DataType::Int(64);
    return fits(v, DataType::Int(32)) ? DataType::Int(32) : DataType::Int(64);
  }

  const ir::PrimExpr* int_imm(Int v, DataType dt, Span sp) {
    if (!fits(v, with_lanes(dt, 1))) {
      error(DiagId::RX1310, sp, {int_to_string(v), dt.str()});
      return nullptr;
    }
    return make<ir::IntImm>(dt, int64_t(v), sp);
  }

  // The final conversion of a value: literals take `hint` when given, else the defaults.
  const ir::PrimExpr* to_expr(const Val& v, std::optional<DataType> hint) {
    switch (v.tag) {
      case Val::Tag::Expr: return v.expr;
      case Val::Tag::Int: return hint ? adopt(v, *hint) : int_imm(v.i, default_int(v.i), v.span);
      case Val::Tag::Float:
        return make<ir::FloatImm>(hint && hint->is_float() ? *hint : DataType::Float(32), v.f,
                                  v.span);
      case Val::Tag::Bool:
        if (hint && !hint->is_bool()) return adopt(Val::integer(v.i, v.span), *hint);
        return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
      case Val::Tag::Str: error(DiagId::RX1303, v.span, {"a string"}); return nullptr;
    }
    return nullptr;
  }

  // TVM's BinaryOpMatchTypes: int↔float casts the int side; same kind, different width widens.
  bool match_types(const ir::PrimExpr*& x, const ir::PrimExpr*& y, std::string_view op, Span sp) {
    DataType lt = x->dtype, rt = y->dtype;
    if (same_type(lt, rt)) return true;
    if (lt.is_handle() || rt.is_handle() || lt.is_void() || rt.is_void() || lt.lanes != rt.lanes) {
      error(DiagId::RX1309, sp, {std::string(op), lt.str(), rt.str()});
      return false;
    }
    if (lt.is_float() && !rt.is_float()) {
      y = cast(lt, y, sp);
    } else if (!lt.is_float() && rt.is_float()) {
      x = cast(rt, x, sp);
    } else if (lt.is_bool() != rt.is_bool()) {
      // bool with an integer: widen the bool.
      if (lt.is_bool())
        x = cast(rt, x, sp);
      else
        y = cast(lt, y, sp);
    } else if (lt.bits != rt.bits || lt.code != rt.code) {
      bool left_wider = lt.bits > rt.bits || (lt.bits == rt.bits && lt.is_int());
      if (left_wider)
        y = cast(lt, y, sp);
      else
        x = cast(rt, x, sp);
    }
    return true;
  }

  const ir::PrimExpr* cast(DataType dt, const ir::PrimExpr* e, Span sp) {
    if (e->dtype == dt) return e;
    if (const auto* imm = ir::dyn_cast<ir::IntImm>(e)) {
      if (dt.is_float()) return make<ir::FloatImm>(dt, double(imm->value), imm->span);
      if (dt.is_integer() && fits(Int(imm->value), dt))
        return make<ir::IntImm>(dt, imm->value, imm->span);
      if (dt.is_bool()) return make<ir::IntImm>(dt, imm->value != 0, imm->span);
    }
    if (const auto* imm = ir::dyn_cast<ir::FloatImm>(e)) {
      if (dt.is_float()) return make<ir::FloatImm>(dt, imm->value, imm->span);
      if (dt.is_integer() && std::isfinite(imm->value) && fits(Int(imm->value), dt))
        return make<ir::IntImm>(dt, int64_t(imm->value), imm->span);
    }
    return make<ir::PrimCast>(dt, e, sp);
  }

 private:
  // ---------------------------------------------------------------- buffer loads
  Result load(TSNode node) {
    TSNode target = cst_.field(node, Field::value);
    if (!cst_.is(target, Kind::identifier)) {
      return unsupported(node, "subscript of '" + text(target) + "'");
    }
    std::string_view n = cst_.text(target);
    const ir::Buffer* buffer = names_.find_buffer(n);
    if (!buffer) {
      if (names_.find_var(n) || names_.find_expr(n)) {
        error(DiagId::RX1314, span(target), {std::string(n)});
      } else {
        error(DiagId::RX1302, span(target), {std::string(n)});
      }
      return std::nullopt;
    }
    auto indices = buffer_indices(node, buffer);
    if (!indices) return std::nullopt;
    return Val::of(make<ir::BufferLoad>(buffer->dtype, buffer, std::move(*indices), span(node)));
  }

 public:
  std::optional<std::vector<const ir::PrimExpr*>> buffer_indices(TSNode subscript,
                                                                 const ir::Buffer* buffer) {
    std::vector<TSNode> items = cst_.fields(subscript, Field::subscript);
    // `A[()]`: a 0-d buffer; `A[(i, j)]` is the same as `A[i, j]`.
    if (items.size() == 1 && cst_.is(items[0], Kind::tuple)) items = cst_.named_children(items[0]);
    std::vector<const ir::PrimExpr*> indices;
    bool ok = true;
    for (TSNode item : items) {
      if (cst_.is(item, Kind::slice)) {
        error(DiagId::RX1317, span(item), {});
        ok = false;
        continue;
      }
      const ir::PrimExpr* e = lower(item);
      if (!e) ok = false;
      indices.push_back(e);
    }
    if (!ok) return std::nullopt;
    if (indices.size() != buffer->shape.size()) {
      error(DiagId::RX1313, span(subscript),
            {buffer->name, std::to_string(buffer->shape.size()), std::to_string(indices.size())});
      return std::nullopt;
    }
    return indices;
  }

 private:
  // ---------------------------------------------------------------- calls
  struct Args {
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string_view, TSNode>> keywords;
    TSNode find(std::string_view key) const {
      for (auto& [k, v] : keywords)
        if (k == key) return v;
      return TSNode{};
    }
  };

  Args collect_args(TSNode call) {
    Args args;
    for (TSNode child : cst_.named_children(cst_.field(call, Field::arguments))) {
      if (cst_.is(child, Kind::keyword_argument)) {
        args.keywords.emplace_back(cst_.text(cst_.field(child, Field::name)),
                                   cst_.field(child, Field::value));
      } else {
        args.positional.push_back(child);
      }
    }
    return args;
  }

  Result call(TSNode node) {
    TSNode callee = cst_.field(node, Field::function);
    std::string path = tir_path_of(callee);
    if (path.empty()) {
      return unsupported(node, "a call to '" + text(callee) + "'");
    }
    Args args = collect_args(node);
    Span sp = span(node);
    if (auto dt = DataType::parse(path); dt && path != "handle" && path != "void")
      return typed(node, path, *dt, args, sp);
    return intrinsic(node, path, args, sp);
  }

  std::string tir_path_of(TSNode callee) {
    // tir_path works on ctx_.cst; for string-parsed expressions we need our own CST.
    std::vector<std::string_view> parts;
    TSNode n = callee;
    while (cst_.is(n, Kind::attribute)) {
      parts.push_back(cst_.text(cst_.field(n, Field::attribute)));
      n = cst_.field(n, Field::object);
    }
    if (!cst_.is(n, Kind::identifier) || parts.empty()) return "";
    std::string_view prefix = cst_.text(n);
    if (names_.find_var(prefix) || names_.find_buffer(prefix) || names_.find_expr(prefix))
      return "";
    const Namespace* ns = ctx_.namespaces.find(prefix);
    if (!ns || *ns != Namespace::Tir) return "";
    std::string path;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (!path.empty()) path += '.';
      path += *it;
    }
    return path;
  }

  bool arity(TSNode node, std::string_view name, const Args& args, size_t lo, size_t hi,
             const char* expectation) {
    if (args.positional.size() >= lo && args.positional.size() <= hi) return true;
    error(DiagId::RX1305, span(node), {std::string(name), expectation});
    return false;
  }

  bool no_keywords(TSNode node, std::string_view name, const Args& args,
                   std::initializer_list<std::string_view> allowed = {}) {
    for (auto& [k, v] : args.keywords) {
      bool ok = false;
      for (auto a : allowed) ok = ok || a == k;
      if (!ok) {
        error(DiagId::RX1305, span(node),
              {std::string(name), "no keyword argument '" + std::string(k) + "'"});
        return false;
      }
    }
    return true;
  }

  // `T.int64(5)`, `T.float32("inf")`, `T.bool(True)`, `T.int32(expr)` (cast).
  Result typed(TSNode node, const std::string& name, DataType dt, const Args& args, Span sp) {
    if (args.positional.empty()) {
      error(DiagId::RX1318, sp, {name});
      return std::nullopt;
    }
    if (!no_keywords(node, name, args) ||
        !arity(node, name, args, 1, 1, "one value: a literal, a string or a PrimExpr"))
      return std::nullopt;
    TSNode arg = args.positional[0];
    Result v = value(arg);
    if (!v) return std::nullopt;
    switch (v->tag) {
      case Val::Tag::Str: return special_float(arg, name, dt, v->s, sp);
      case Val::Tag::Int:
      case Val::Tag::Bool: {
        if (dt.is_float()) return Val::of(make<ir::FloatImm>(dt, double(v->i), sp));
        if (dt.is_bool()) return Val::of(make<ir::IntImm>(dt, v->i != 0, sp));
        const ir::PrimExpr* e = int_imm(v->i, dt, sp);
        return e ? Result(Val::of(e)) : std::nullopt;
      }
      case Val::Tag::Float: {
        if (dt.is_float()) return Val::of(make<ir::FloatImm>(dt, v->f, sp));
        const ir::PrimExpr* f = make<ir::FloatImm>(DataType::Float(32), v->f, v->span);
        return Val::of(cast(dt, f, sp));
      }
      case Val::Tag::Expr: return Val::of(cast(dt, v->expr, sp));
    }
    return std::nullopt;
  }

  Result special_float(TSNode arg, const std::string& name, DataType dt, const std::string& s,
                       Span sp) {
    if (dt.is_float()) {
      double value;
      if (s == "inf" || s == "+inf") {
        value = std::numeric_limits<double>::infinity();
      } else if (s == "-inf") {
        value = -std::numeric_limits<double>::infinity();
      } else if (s == "nan" || s == "-nan") {
        value = std::numeric_limits<double>::quiet_NaN();
      } else if (auto f = parse_float_literal(s)) {
        value = *f;
      } else {
        error(DiagId::RX1315, span(arg), {s, "T." + name});
        return std::nullopt;
      }
      return Val::of(make<ir::FloatImm>(dt, value, sp));
    }
    if (auto lit = parse_int_literal(s); lit && !lit->overflow && dt.is_integer()) {
      const ir::PrimExpr* e = int_imm(Int(lit->magnitude), dt, sp);
      return e ? Result(Val::of(e)) : std::nullopt;
    }
    error(DiagId::RX1315, span(arg), {s, "T." + name});
    return std::nullopt;
  }

  std::optional<DataType> dtype_arg(TSNode node) {
    Result v = value(node);
    if (!v) return std::nullopt;
    if (v->tag != Val::Tag::Str) {
      error(DiagId::RX1306, span(node), {text(node)});
      return std::nullopt;
    }
    auto dt = DataType::parse(v->s);
    if (!dt) error(DiagId::RX1306, span(node), {v->s});
    return dt;
  }

  // Lowers every positional argument to a PrimExpr (strings become StringImm).
  std::optional<std::vector<Val>> values(const std::vector<TSNode>& nodes, size_t from = 0) {
    std::vector<Val> out;
    bool ok = true;
    for (size_t i = from; i < nodes.size(); ++i) {
      Result v = value(nodes[i]);
      if (!v) {
        ok = false;
        continue;
      }
      out.push_back(*v);
    }
    if (!ok) return std::nullopt;
    return out;
  }

  Result binary_call(TSNode node, std::string_view name, PrimKind kind, const Args& args, Span sp) {
    if (!no_keywords(node, name, args) || !arity(node, name, args, 2, 2, "two arguments"))
      return std::nullopt;
    auto vals = values(args.positional);
    if (!vals) return std::nullopt;
    BinOp op{name, kind, nullptr};
    if ((*vals)[0].is_number() && (*vals)[1].is_number()) {
      // T.min(1, 2) etc.: no Python folding applies; build with default dtypes.
      const ir::PrimExpr* x = to_expr((*vals)[0], std::nullopt);
      const ir::PrimExpr* y = to_expr((*vals)[1], x ? std::optional(x->dtype) : std::nullopt);
      if (!x || !y) return std::nullopt;
      if (!match_types(x, y, name, sp)) return std::nullopt;
      return Val::of(build(op, x, y, sp));
    }
    return binary(op, (*vals)[0], (*vals)[1], sp);
  }

  // Two operands matched as for a binary operator, returned as PrimExprs.
  std::optional<std::pair<const ir::PrimExpr*, const ir::PrimExpr*>> matched(const Val& a,
                                                                             const Val& b,
                                                                             std::string_view op,
                                                                             Span sp) {
    const ir::PrimExpr* x = a.is_expr() ? a.expr : nullptr;
    const ir::PrimExpr* y = b.is_expr() ? b.expr : nullptr;
    if (!x && !y) {
      x = to_expr(a, std::nullopt);
      if (!x) return std::nullopt;
    }
    if (!x) x = adopt(a, y->dtype);
    if (!y) y = adopt(b, x->dtype);
    if (!x || !y) return std::nullopt;
    if (a.tag == Val::Tag::Str || b.tag == Val::Tag::Str || !match_types(x, y, op, sp)) {
      if (a.tag == Val::Tag::Str || b.tag == Val::Tag::Str)
        error(DiagId::RX1309, sp, {std::string(op), describe(a), describe(b)});
      return std::nullopt;
    }
    return std::pair{x, y};
  }

  Result intrinsic(TSNode node, const std::string& name, const Args& args, Span sp) {
    static const std::pair<std::string_view, PrimKind> kNodeCalls[] = {
        {"min", PrimKind::Min},
        {"max", PrimKind::Max},
        {"floordiv", PrimKind::FloorDiv},
        {"floormod", PrimKind::FloorMod},
        {"truncdiv", PrimKind::Div},
        {"truncmod", PrimKind::Mod},
        {"Min", PrimKind::Min},
        {"Max", PrimKind::Max},
        {"FloorDiv", PrimKind::FloorDiv},
        {"FloorMod", PrimKind::FloorMod},
        {"Div", PrimKind::Div},
        {"Mod", PrimKind::Mod},
        {"Add", PrimKind::Add},
        {"Sub", PrimKind::Sub},
        {"Mul", PrimKind::Mul},
        {"EQ", PrimKind::EQ},
        {"NE", PrimKind::NE},
        {"LT", PrimKind::LT},
        {"LE", PrimKind::LE},
        {"GT", PrimKind::GT},
        {"GE", PrimKind::GE},
        {"And", PrimKind::And},
        {"Or", PrimKind::Or},
    };
    for (auto& [n, kind] : kNodeCalls)
      if (name == n) return binary_call(node, name, kind, args, sp);
    if (name == "ceildiv") return ceildiv(node, args, sp);
    if (name == "Not") {
      if (!no_keywords(node, name, args) || !arity(node, name, args, 1, 1, "one argument"))
        return std::nullopt;
      Result a = value(args.positional[0]);
      if (!a) return std::nullopt;
      const ir::PrimExpr* e = as_bool(*a, node, "T.Not");
      return e ? Result(Val::of(make<ir::PrimNot>(e, sp))) : std::nullopt;
    }
    if (name == "Cast" || name == "cast") return cast_call(node, name, args, sp);
    if (name == "Select" || name == "if_then_else") return select(node, name, args, sp);
    if (name == "likely") {
      if (!no_keywords(node, name, args) || !arity(node, name, args, 1, 1, "one condition"))
        return std::nullopt;
      Result a = value(args.positional[0]);
      if (!a) return std::nullopt;
      const ir::PrimExpr* e = to_expr(*a, std::nullopt);
      if (!e) return std::nullopt;
      return Val::of(
          make<ir::PrimCall>(e->dtype, "tir.likely", std::vector<const ir::PrimExpr*>{e}, sp));
    }
    if (name == "abs") return abs(node, args, sp);
    if (in_list(kUnaryMath, name)) return math1(node, name, args, sp);
    if (in_list(kBinaryMath, name)) return math2(node, name, args, sp);
    if (name == "max_value" || name == "min_value" || name == "infinity")
      return limit(node, name, args, sp);
    if (name == "reinterpret") return typed_call(node, name, "tir.reinterpret", args, sp);
    if (name == "call_extern") return typed_call(node, name, "tir.call_extern", args, sp);
    if (name == "call_pure_extern") return typed_call(node, name, "tir.call_pure_extern", args, sp);
    if (name == "call_intrin") return typed_call(node, name, "", args, sp);
    if (name == "Let") return let(node, args, sp);
    if (name == "axis.spatial" || name == "axis.reduce" || name == "axis.remap" ||
        name == "match_buffer" || name == "alloc_buffer" || name == "sblock_alloc_buffer")
      return unsupported(node, "'T." + name + "(...)' inside an expression");
    error(DiagId::RX1304, span(cst_.field(node, Field::function)), {name});
    return std::nullopt;
  }

  Result ceildiv(TSNode node, const Args& args, Span sp) {
    if (!no_keywords(node, "ceildiv", args) || !arity(node, "ceildiv", args, 2, 2, "two arguments"))
      return std::nullopt;
    auto vals = values(args.positional);
    if (!vals) return std::nullopt;
    auto m = matched((*vals)[0], (*vals)[1], "T.ceildiv", sp);
    if (!m) return std::nullopt;
    auto [a, b] = *m;
    // TVM: floordiv(a + b - 1, b) for integers.
    if (a->dtype.is_float()) {
      auto* div = build_kind(PrimKind::Div, a, b, sp);
      return Val::of(
          make<ir::PrimCall>(a->dtype, "tir.ceil", std::vector<const ir::PrimExpr*>{div}, sp));
    }
    const ir::PrimExpr* b_minus_1;
    if (const auto* imm = ir::dyn_cast<ir::IntImm>(b)) {
      b_minus_1 = make<ir::IntImm>(b->dtype, imm->value - 1, sp);
    } else {
      b_minus_1 = build_kind(PrimKind::Sub, b, make<ir::IntImm>(b->dtype, 1, sp), sp);
    }
    return Val::of(
        build_kind(PrimKind::FloorDiv, build_kind(PrimKind::Add, a, b_minus_1, sp), b, sp));
  }

  Result cast_call(TSNode, const std::string& name, const Args& args, Span sp) {
    TSNode dtype_node = args.find("dtype");
    TSNode value_node = args.find("value");
    std::vector<TSNode> pos = args.positional;
    // T.Cast(dtype, value) and T.cast(value, dtype).
    size_t dtype_index = name == "Cast" ? 0 : 1, value_index = name == "Cast" ? 1 : 0;
    if (ts_node_is_null(dtype_node) && pos.size() > dtype_index) dtype_node = pos[dtype_index];
    if (ts_node_is_null(value_node) && pos.size() > value_index) value_node = pos[value_index];
    if (ts_node_is_null(dtype_node) || ts_node_is_null(value_node) || pos.size() > 2) {
      error(DiagId::RX1305, sp, {name, name == "Cast" ? "(dtype, value)" : "(value, dtype)"});
      return std::nullopt;
    }
    auto dt = dtype_arg(dtype_node);
    Result v = value(value_node);
    if (!dt || !v) return std::nullopt;
    const ir::PrimExpr* e = to_expr(*v, std::nullopt);
    if (!e) return std::nullopt;
    // T.Cast keeps an explicit cast node even for immediates: the printer round-trips it.
    if (e->dtype == *dt) return Val::of(e);
    return Val::of(make<ir::PrimCast>(*dt, e, sp));
  }

  Result select(TSNode node, const std::string& name, const Args& args, Span sp) {
    if (!no_keywords(node, name, args) ||
        !arity(node, name, args, 3, 3, "(condition, true_value, false_value)"))
      return std::nullopt;
    auto vals = values(args.positional);
    if (!vals) return std::nullopt;
    const ir::PrimExpr* c = as_bool((*vals)[0], args.positional[0], "T." + name);
    auto m = matched((*vals)[1], (*vals)[2], "T." + name, sp);
    if (!c || !m) return std::nullopt;
    auto [t, f] = *m;
    if (name == "Select") return Val::of(make<ir::PrimSelect>(t->dtype, c, t, f, sp));
    return Val::of(make<ir::PrimCall>(t->dtype, "tir.if_then_else",
                                      std::vector<const ir::PrimExpr*>{c, t, f}, sp));
  }

  Result abs(TSNode node, const Args& args, Span sp) {
    if (!no_keywords(node, "abs", args, {"span"}) ||
        !arity(node, "abs", args, 1, 1, "one argument"))
      return std::nullopt;
    Result v = value(args.positional[0]);
    if (!v) return std::nullopt;
    if (v->tag == Val::Tag::Int) return Val::integer(v->i < 0 ? -v->i : v->i, sp);
    if (v->tag == Val::Tag::Float) return Val::real(std::fabs(v->f), sp);
    const ir::PrimExpr* e = to_expr(*v, std::nullopt);
    if (!e) return std::nullopt;
    if (e->dtype.is_float())
      return Val::of(
          make<ir::PrimCall>(e->dtype, "tir.fabs", std::vector<const ir::PrimExpr*>{e}, sp));
    if (e->dtype.is_uint() || e->dtype.is_bool()) return Val::of(e);
    const ir::PrimExpr* zero = make<ir::IntImm>(e->dtype, 0, sp);
    const ir::PrimExpr* minus_one = make<ir::IntImm>(e->dtype, -1, sp);
    return Val::of(make<ir::PrimSelect>(e->dtype, build_kind(PrimKind::GE, e, zero, sp), e,
                                        build_kind(PrimKind::Mul, e, minus_one, sp), sp));
  }

  Result math1(TSNode node, const std::string& name, const Args& args, Span sp) {
    if (!no_keywords(node, name, args, {"dtype", "span"}) ||
        !arity(node, name, args, 1, 1, "one argument"))
      return std::nullopt;
    Result v = value(args.positional[0]);
    if (!v) return std::nullopt;
    std::optional<DataType> hint;
    if (v->tag == Val::Tag::Int && name != "popcount" && name != "clz" && name != "bitwise_not")
      hint = DataType::Float(32);
    const ir::PrimExpr* e = to_expr(*v, hint);
    if (!e) return std::nullopt;
    bool predicate = name == "isnan" || name == "isinf" || name == "isfinite";
    DataType dt = predicate ? with_lanes(DataType::Bool(), e->dtype.lanes) : e->dtype;
    return Val::of(make<ir::PrimCall>(dt, "tir." + name, std::vector<const ir::PrimExpr*>{e}, sp));
  }

  Result math2(TSNode node, const std::string& name, const Args& args, Span sp) {
    if (!no_keywords(node, name, args, {"dtype", "span"}) ||
        !arity(node, name, args, 2, 2, "two arguments"))
      return std::nullopt;
    auto vals = values(args.positional);
    if (!vals) return std::nullopt;
    auto m = matched((*vals)[0], (*vals)[1], "T." + name, sp);
    if (!m) return std::nullopt;
    auto [a, b] = *m;
    return Val::of(
        make<ir::PrimCall>(a->dtype, "tir." + name, std::vector<const ir::PrimExpr*>{a, b}, sp));
  }

  Result limit(TSNode node, const std::string& name, const Args& args, Span sp) {
    if (!no_keywords(node, name, args, {"span"}) || !arity(node, name, args, 1, 1, "a dtype"))
      return std::nullopt;
    auto dt = dtype_arg(args.positional[0]);
    if (!dt) return std::nullopt;
    if (name == "infinity") {
      if (!dt->is_float()) {
        error(DiagId::RX1305, sp, {name, "a float dtype"});
        return std::nullopt;
      }
      return Val::of(make<ir::FloatImm>(*dt, std::numeric_limits<double>::infinity(), sp));
    }
    bool is_max = name == "max_value";
    if (dt->is_bool()) return Val::of(make<ir::IntImm>(*dt, is_max ? 1 : 0, sp));
    if (dt->is_integer()) {
      int bits = dt->bits;
      int64_t v;
      if (dt->is_uint()) {
        v = is_max ? (bits == 64 ? -1 : int64_t((uint64_t(1) << bits) - 1)) : 0;
      } else {
        // Two's complement limits; the minimum is formed unsigned (negating INT64_MIN as a
        // signed value is undefined).
        uint64_t half = uint64_t(1) << (bits - 1);
        v = is_max ? int64_t(half - 1) : int64_t(~half + 1);
      }
      return Val::of(make<ir::IntImm>(*dt, v, sp));
    }
    auto m = float_max(*dt);
    if (!m) {
      error(DiagId::RX1305, sp, {name, "a dtype with a known range"});
      return std::nullopt;
    }
    return Val::of(make<ir::FloatImm>(*dt, is_max ? *m : -*m, sp));
  }

  // T.reinterpret("dt", v), T.call_extern("dt", "fn", args…), T.call_intrin("dt", "op", args…).
  Result typed_call(TSNode node, const std::string& name, const std::string& op, const Args& args,
                    Span sp) {
    if (!no_keywords(node, name, args, {"span"})) return std::nullopt;
    if (args.positional.empty()) {
      error(DiagId::RX1305, sp, {name, "a result dtype first"});
      return std::nullopt;
    }
    auto dt = dtype_arg(args.positional[0]);
    auto vals = values(args.positional, 1);
    if (!dt || !vals) return std::nullopt;
    std::vector<const ir::PrimExpr*> call_args;
    std::string op_name = op;
    size_t first = 0;
    if (op.empty()) {  // call_intrin: the op name is the second argument
      if (vals->empty() || (*vals)[0].tag != Val::Tag::Str) {
        error(DiagId::RX1305, sp, {name, "(dtype, \"op.name\", args...)"});
        return std::nullopt;
      }
      op_name = (*vals)[0].s;
      first = 1;
    }
    if (name != "reinterpret" && !op.empty() &&
        (vals->empty() || (*vals)[0].tag != Val::Tag::Str)) {
      error(DiagId::RX1305, sp, {name, "(dtype, \"function_name\", args...)"});
      return std::nullopt;
    }
    if (name == "reinterpret" && vals->size() != 1) {
      error(DiagId::RX1305, sp, {name, "(dtype, value)"});
      return std::nullopt;
    }
    for (size_t i = first; i < vals->size(); ++i) {
      const Val& v = (*vals)[i];
      const ir::PrimExpr* e =
          v.tag == Val::Tag::Str ? make<ir::PrimStringImm>(v.s, v.span) : to_expr(v, std::nullopt);
      if (!e) return std::nullopt;
      call_args.push_back(e);
    }
    return Val::of(make<ir::PrimCall>(*dt, op_name, std::move(call_args), sp));
  }

  // T.Let(body, where={x: value}): x is a fresh variable scoped over the body unless it names an
  // existing one.
  class Overlay : public PrimNames {
   public:
    Overlay(const PrimNames& parent, std::string name, const ir::PrimVar* var)
        : parent_(parent), name_(std::move(name)), var_(var) {}
    const ir::PrimVar* find_var(std::string_view n) const override {
      return n == name_ ? var_ : parent_.find_var(n);
    }
    const ir::Buffer* find_buffer(std::string_view n) const override {
      return n == name_ ? nullptr : parent_.find_buffer(n);
    }
    const ir::PrimExpr* find_expr(std::string_view n) const override {
      return n == name_ ? nullptr : parent_.find_expr(n);
    }

   private:
    const PrimNames& parent_;
    std::string name_;
    const ir::PrimVar* var_;
  };

  Result let(TSNode, const Args& args, Span sp) {
    TSNode where = args.find("where");
    if (args.positional.size() != 1 || ts_node_is_null(where) ||
        !cst_.is(where, Kind::dictionary)) {
      error(DiagId::RX1305, sp, {"Let", "(body, where={var: value})"});
      return std::nullopt;
    }
    std::vector<TSNode> pairs = cst_.named_children(where);
    if (pairs.size() != 1 || !cst_.is(cst_.field(pairs[0], Field::key), Kind::identifier)) {
      error(DiagId::RX1305, sp, {"Let", "exactly one 'name: value' pair in where="});
      return std::nullopt;
    }
    TSNode key = cst_.field(pairs[0], Field::key);
    const ir::PrimExpr* bound = lower(cst_.field(pairs[0], Field::value));
    if (!bound) return std::nullopt;
    std::string var_name = text(key);
    const ir::PrimVar* var = names_.find_var(var_name);
    if (!var) var = make<ir::PrimVar>(var_name, bound->dtype, span(key));
    Overlay scope(names_, var_name, var);
    PrimLowerer inner(ctx_, cst_, scope, mode_, shift_, clamp_);
    const ir::PrimExpr* body = inner.lower(args.positional[0]);
    if (!body) return std::nullopt;
    return Val::of(make<ir::PrimLet>(var, bound, body, sp));
  }

  LowerContext& ctx_;
  const cst::Cst& cst_;
  const PrimNames& names_;
  IntMode mode_;
  int64_t shift_;
  Span clamp_;
};

// One parser per thread for lower_prim_string: creating a TSParser is not free.
struct ParserHolder {
  TSParser* parser = ts_parser_new();
  ParserHolder() { ts_parser_set_language(parser, tree_sitter_relax()); }
  ~ParserHolder() { ts_parser_delete(parser); }
};

TSParser* thread_parser() {
  thread_local ParserHolder holder;
  return holder.parser;
}

}  // namespace

const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    IntMode mode) {
  PrimLowerer lowerer(ctx, ctx.cst, names, mode);
  return lowerer.lower(node);
}

const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    const PrimOptions& options) {
  PrimLowerer lowerer(ctx, ctx.cst, names, options.mode);
  return lowerer.lower(node, options.literal_dtype);
}

const ir::PrimExpr* lower_prim_update(LowerContext& ctx, const ir::PrimExpr* lhs,
                                      std::string_view op, TSNode rhs, const PrimNames& names,
                                      IntMode mode, Span span) {
  PrimLowerer lowerer(ctx, ctx.cst, names, mode);
  return lowerer.update(lhs, op, rhs, span);
}

const ir::PrimExpr* cast_prim(LowerContext& ctx, DataType dtype, const ir::PrimExpr* value,
                              Span span) {
  struct NoNames : PrimNames {
    const ir::PrimVar* find_var(std::string_view) const override { return nullptr; }
  } none;
  PrimLowerer lowerer(ctx, ctx.cst, none, IntMode::Int32);
  return lowerer.cast(dtype, value, span);
}

const ir::PrimExpr* lower_prim_string(LowerContext& ctx, TSNode string_node,
                                      const PrimNames& names) {
  Span whole = ctx.cst.span(string_node);
  std::string why;
  auto decoded = decode_string(ctx.cst, string_node, &why);
  if (!decoded) {
    ctx.diags.report(make_diagnostic(DiagId::RX1301, whole, {why}));
    return nullptr;
  }
  // Spans map back exactly when the content is the raw text between the quotes (no escapes,
  // one plain string); otherwise they are clamped to the whole literal.
  std::string_view raw = ctx.cst.text(string_node);
  int64_t content_begin = -1;
  if (!ctx.cst.is(string_node, Kind::concatenated_string)) {
    size_t q = raw.find_first_of("\"'");
    size_t quote = (raw.size() >= q + 6 && raw.substr(q, 3) == std::string(3, raw[q])) ? 3 : 1;
    if (q != std::string_view::npos &&
        raw.substr(q + quote, raw.size() - q - 2 * quote) == *decoded)
      content_begin = int64_t(whole.begin + q + quote);
  }
  static constexpr std::string_view kPrefix = "_=(";
  std::string buffer;
  buffer.reserve(decoded->size() + 8);
  buffer.append(kPrefix).append(*decoded).append(")\n");
  TSParser* parser = thread_parser();
  std::unique_ptr<TSTree, void (*)(TSTree*)> tree(
      ts_parser_parse_string(parser, nullptr, buffer.data(), uint32_t(buffer.size())),
      ts_tree_delete);
  // Expected shape: source_file > binding(right: parenthesized_expression(value: expr)).
  cst::Cst mini(buffer);
  TSNode root = ts_tree_root_node(tree.get());
  TSNode expr{};
  bool ok = !ts_node_has_error(root) && !decoded->empty();
  if (ok) {
    std::vector<TSNode> stmts = mini.named_children(root);
    TSNode binding = stmts.size() == 1 ? stmts[0] : TSNode{};
    TSNode right = mini.is(binding, Kind::binding) ? mini.field(binding, Field::right) : TSNode{};
    ok = mini.is(right, Kind::parenthesized_expression);
    if (ok) expr = mini.field(right, Field::value);
    ok = ok && !ts_node_is_null(expr);
  }
  if (!ok) {
    ctx.diags.report(make_diagnostic(DiagId::RX1311, whole, {*decoded}));
    return nullptr;
  }
  int64_t shift = content_begin >= 0 ? content_begin - int64_t(kPrefix.size()) : 0;
  Span clamp = content_begin >= 0
                   ? Span{uint32_t(content_begin), uint32_t(content_begin + decoded->size())}
                   : whole;
  if (content_begin < 0) shift = int64_t(whole.begin);  // clamped to `whole` below anyway
  PrimLowerer lowerer(ctx, mini, names, IntMode::Int64, shift, clamp);
  return lowerer.lower(expr);
}

std::string tir_path(const LowerContext& ctx, TSNode node, const PrimNames* names) {
  const cst::Cst& cst = ctx.cst;
  if (cst.is(node, Kind::call)) node = cst.field(node, Field::function);
  std::vector<std::string_view> parts;
  while (cst.is(node, Kind::attribute)) {
    parts.push_back(cst.text(cst.field(node, Field::attribute)));
    node = cst.field(node, Field::object);
  }
  if (!cst.is(node, Kind::identifier) || parts.empty()) return "";
  std::string_view prefix = cst.text(node);
  if (names && (names->find_var(prefix) || names->find_buffer(prefix) || names->find_expr(prefix)))
    return "";
  const Namespace* ns = ctx.namespaces.find(prefix);
  if (!ns || *ns != Namespace::Tir) return "";
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!path.empty()) path += '.';
    path += *it;
  }
  return path;
}

std::optional<DataType> tir_dtype_attribute(const LowerContext& ctx, TSNode node,
                                            const PrimNames* names) {
  if (!ctx.cst.is(node, Kind::attribute)) return std::nullopt;
  std::string path = tir_path(ctx, node, names);
  if (path.empty() || path == "void") return std::nullopt;
  return DataType::parse(path);
}

}  // namespace raxc::lower
