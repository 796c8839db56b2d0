// PrimExpr lowering: operators (text-format.md §10 item 21): unary, binary and comparison
// operators with Python folding of literals, TVMScript's literal adoption, TVM's dtype matching
// of operands, and casts.
#include <cmath>

#include "frontend/lower/prim_lowerer.h"

namespace raxc::lower::prim_lowering {

Result PrimLowerer::unary(TSNode node) {
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

Result PrimLowerer::bad_operand(TSNode node, std::string_view op, const Val& a) {
  error(
      diag::IncompatibleOperandTypes{
          .op = std::string(op), .lhs_type = describe(a), .rhs_type = describe(a)},
      span(node));
  return std::nullopt;
}

std::string PrimLowerer::describe(const Val& v) const {
  switch (v.tag) {
    case Val::Tag::Expr: return v.expr->dtype.str();
    case Val::Tag::Int: return "int literal";
    case Val::Tag::Float: return "float literal";
    case Val::Tag::Bool: return "bool literal";
    case Val::Tag::Str: return "string";
  }
  return "?";
}

Result PrimLowerer::logical_not(TSNode node) {
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

const ir::PrimExpr* PrimLowerer::as_bool(const Val& v, TSNode node, std::string_view op) {
  if (v.is_expr() && v.expr->dtype.is_bool()) return v.expr;
  if (v.tag == Val::Tag::Bool) return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
  error(diag::NonBoolLogicalOperand{.op = std::string(op), .operand_type = describe(v)},
        span(node));
  return nullptr;
}

Result PrimLowerer::binary_node(TSNode node) {
  std::string_view op = cst_.text(op_node(node));
  const BinOp* bin = find_binop(op);
  if (!bin) {
    error(diag::UnsupportedPrimOperator{.op = std::string(op)}, span(op_node(node)));
    return std::nullopt;
  }
  Result a = value(cst_.field(node, Field::left));
  Result b = value(cst_.field(node, Field::right));
  if (!a || !b) return std::nullopt;
  return binary(*bin, *a, *b, span(node));
}

Result PrimLowerer::comparison(TSNode node) {
  TSNode left = cst_.field(node, Field::left);
  if (cst_.is(left, Kind::comparison_operator)) {
    error(diag::ComparisonChainUnsupported{}, span(node));
    return std::nullopt;
  }
  std::string_view op = cst_.text(op_node(node));
  const BinOp* bin = find_binop(op);
  if (!bin) {
    error(diag::UnsupportedPrimOperator{.op = std::string(op)}, span(op_node(node)));
    return std::nullopt;
  }
  Result a = value(left);
  Result b = value(cst_.field(node, Field::right));
  if (!a || !b) return std::nullopt;
  return binary(*bin, *a, *b, span(node));
}

Result PrimLowerer::binary(const BinOp& op, Val a, Val b, Span sp) {
  if (a.tag == Val::Tag::Str || b.tag == Val::Tag::Str) {
    error(
        diag::IncompatibleOperandTypes{
            .op = std::string(op.text), .lhs_type = describe(a), .rhs_type = describe(b)},
        sp);
    return std::nullopt;
  }
  if (a.is_number() && b.is_number()) return fold(op, a, b, sp);
  if (op.kind == PrimKind::And || op.kind == PrimKind::Or) return logic(op, a, b, sp);
  // One side is a PrimExpr: the literal adopts its dtype.
  const ir::PrimExpr* x = a.is_expr() ? a.expr : adopt(a, b.expr->dtype);
  const ir::PrimExpr* y = b.is_expr() ? b.expr : adopt(b, a.expr->dtype);
  if (!x || !y) return std::nullopt;
  if (!match_types(x, y, op.text, sp)) return std::nullopt;
  // `n // 0` has no value either, whatever n is (in a shape it would trap at run time).
  const auto* zero = ir::dyn_cast<ir::IntImm>(y);
  if (zero && zero->value == 0 &&
      (op.kind == PrimKind::FloorDiv || op.kind == PrimKind::FloorMod ||
       op.kind == PrimKind::Div)) {
    error(diag::ConstantDivisionByZero{}, sp);
    return std::nullopt;
  }
  return Val::of(build(op, x, y, sp));
}

const ir::PrimExpr* PrimLowerer::build(const BinOp& op, const ir::PrimExpr* x,
                                       const ir::PrimExpr* y, Span sp) {
  if (op.intrinsic)
    return make<ir::PrimCall>(x->dtype, op.intrinsic, std::vector<const ir::PrimExpr*>{x, y}, sp);
  DataType dt = is_comparison(op.kind) ? with_lanes(DataType::Bool(), x->dtype.lanes) : x->dtype;
  return make<ir::PrimBinary>(op.kind, dt, x, y, sp);
}

const ir::PrimExpr* PrimLowerer::build_kind(PrimKind kind, const ir::PrimExpr* x,
                                            const ir::PrimExpr* y, Span sp) {
  BinOp op{"", kind, nullptr};
  return build(op, x, y, sp);
}

Result PrimLowerer::logic(const BinOp& op, const Val& a, const Val& b, Span sp) {
  const ir::PrimExpr* x = as_bool_span(a, op.text, sp);
  const ir::PrimExpr* y = x ? as_bool_span(b, op.text, sp) : nullptr;
  if (!x || !y) return std::nullopt;
  return Val::of(make<ir::PrimBinary>(op.kind, DataType::Bool(), x, y, sp));
}

const ir::PrimExpr* PrimLowerer::as_bool_span(const Val& v, std::string_view op, Span sp) {
  if (v.is_expr() && v.expr->dtype.is_bool()) return v.expr;
  if (v.tag == Val::Tag::Bool) return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
  error(diag::NonBoolLogicalOperand{.op = std::string(op), .operand_type = describe(v)}, sp);
  return nullptr;
}

Result PrimLowerer::fold(const BinOp& op, const Val& a, const Val& b, Span sp) {
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
      error(
          diag::IncompatibleOperandTypes{
              .op = std::string(op.text), .lhs_type = describe(a), .rhs_type = describe(b)},
          sp);
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
    error(diag::ConstantDivisionByZero{}, sp);
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
      error(diag::PrimValueOutOfRange{.value = "of this constant expression",
                                      .target = "a 128-bit integer"},
            sp);
      return std::nullopt;
    }
    return Val::integer(r, sp);
  }
  return std::nullopt;
}

const ir::PrimExpr* PrimLowerer::adopt(const Val& v, DataType dt) {
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

DataType PrimLowerer::default_int(Int v) const {
  if (mode_ == IntMode::Int64) return DataType::Int(64);
  return fits(v, DataType::Int(32)) ? DataType::Int(32) : DataType::Int(64);
}

const ir::PrimExpr* PrimLowerer::int_imm(Int v, DataType dt, Span sp) {
  if (!fits(v, with_lanes(dt, 1))) {
    error(diag::PrimValueOutOfRange{.value = int_to_string(v), .target = dt.str()}, sp);
    return nullptr;
  }
  return make<ir::IntImm>(dt, int64_t(v), sp);
}

const ir::PrimExpr* PrimLowerer::to_expr(const Val& v, std::optional<DataType> hint) {
  switch (v.tag) {
    case Val::Tag::Expr: return v.expr;
    case Val::Tag::Int: return hint ? adopt(v, *hint) : int_imm(v.i, default_int(v.i), v.span);
    case Val::Tag::Float:
      return make<ir::FloatImm>(hint && hint->is_float() ? *hint : DataType::Float(32), v.f,
                                v.span);
    case Val::Tag::Bool:
      if (hint && !hint->is_bool()) return adopt(Val::integer(v.i, v.span), *hint);
      return make<ir::IntImm>(DataType::Bool(), int64_t(v.i), v.span);
    case Val::Tag::Str:
      error(diag::NotAllowedInPrimExpr{.construct = "a string"}, v.span);
      return nullptr;
  }
  return nullptr;
}

bool PrimLowerer::match_types(const ir::PrimExpr*& x, const ir::PrimExpr*& y, std::string_view op,
                              Span sp) {
  DataType lt = x->dtype, rt = y->dtype;
  if (same_type(lt, rt)) return true;
  if (lt.is_handle() || rt.is_handle() || lt.is_void() || rt.is_void() || lt.lanes != rt.lanes) {
    error(
        diag::IncompatibleOperandTypes{
            .op = std::string(op), .lhs_type = lt.str(), .rhs_type = rt.str()},
        sp);
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

const ir::PrimExpr* PrimLowerer::cast(DataType dt, const ir::PrimExpr* e, Span sp) {
  if (e->dtype == dt) return e;
  if (const auto* imm = ir::dyn_cast<ir::IntImm>(e)) {
    if (dt.is_float()) return make<ir::FloatImm>(dt, double(imm->value), imm->span);
    if (dt.is_integer() && fits(Int(imm->value), dt))
      return make<ir::IntImm>(dt, imm->value, imm->span);
    if (dt.is_bool()) return make<ir::IntImm>(dt, imm->value != 0, imm->span);
  }
  if (const auto* imm = ir::dyn_cast<ir::FloatImm>(e)) {
    if (dt.is_float()) return make<ir::FloatImm>(dt, imm->value, imm->span);
    // Only a value below 2^64 converts to Int defined (bfloat16's largest is about 3.4e38,
    // past even __int128); a larger one fits no integer type and stays a cast.
    if (dt.is_integer() && std::isfinite(imm->value) && std::fabs(imm->value) < 0x1p64 &&
        fits(Int(imm->value), dt))
      return make<ir::IntImm>(dt, int64_t(imm->value), imm->span);
  }
  return make<ir::PrimCast>(dt, e, sp);
}

}  // namespace raxc::lower::prim_lowering
