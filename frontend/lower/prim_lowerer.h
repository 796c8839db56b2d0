// The PrimExpr lowerer, one class in three files along its sections (the class is shared here,
// private to frontend/lower/): prim.cpp (the entry points, dispatch, atoms and buffer loads),
// prim_operators.cpp (unary, binary and comparison operators, literal folding, dtype matching
// and casts), prim_calls.cpp (calls into the TIR namespace: constructors, intrinsics, math,
// T.Let). How literals are folded is in prim.cpp's opening comment.
#pragma once
#include <tree_sitter/api.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "frontend/lower/literals.h"
#include "frontend/lower/prim.h"

namespace raxc::lower::prim_lowering {

using cst::Field;
using cst::Kind;
using ir::DataType;
using ir::PrimKind;

using Int = __int128;

// A value met while lowering: a Python literal (still foldable) or a PrimExpr.
struct TirBuiltin;

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

inline std::string int_to_string(Int v) {
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

inline bool fits(Int v, DataType dt) {
  if (dt.is_bool()) return v == 0 || v == 1;
  if (dt.bits == 0 || dt.bits > 64) return false;
  if (dt.code == DataType::Code::UInt) {
    return v >= 0 && (dt.bits == 64 || v < (Int(1) << dt.bits));
  }
  Int limit = Int(1) << (dt.bits - 1);
  return v >= -limit && v < limit;
}

inline Int floor_div(Int a, Int b) {
  Int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline Int floor_mod(Int a, Int b) { return a - floor_div(a, b) * b; }

inline DataType with_lanes(DataType dt, uint16_t lanes) {
  dt.lanes = lanes;
  return dt;
}

inline bool same_type(DataType a, DataType b) { return a == b; }

struct BinOp {
  std::string_view text;
  PrimKind kind;          // for node-building ops
  const char* intrinsic;  // bit ops lower to calls; null otherwise
};

inline constexpr BinOp kBinOps[] = {
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

inline const BinOp* find_binop(std::string_view text) {
  for (const BinOp& op : kBinOps)
    if (op.text == text) return &op;
  return nullptr;
}

inline bool is_comparison(PrimKind k) { return k >= PrimKind::EQ && k <= PrimKind::GE; }

// Unary math intrinsics: result dtype = argument dtype (bool for the predicates).
inline constexpr const char* kUnaryMath[] = {
    "exp",   "exp2",    "exp10", "log",   "log2",     "log10",    "log1p", "sqrt",       "rsqrt",
    "tanh",  "sigmoid", "erf",   "fabs",  "floor",    "ceil",     "round", "nearbyint",  "trunc",
    "sin",   "cos",     "tan",   "asin",  "acos",     "atan",     "sinh",  "cosh",       "asinh",
    "acosh", "atanh",   "isnan", "isinf", "isfinite", "popcount", "clz",   "bitwise_not"};
inline constexpr const char* kBinaryMath[] = {
    "pow",   "atan2",      "fmod",        "hypot",       "copysign",   "nextafter",
    "ldexp", "shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"};

template <size_t N>
inline bool in_list(const char* const (&list)[N], std::string_view name) {
  for (const char* item : list)
    if (name == item) return true;
  return false;
}

// Largest finite value of a float dtype (T.max_value / T.min_value).
inline std::optional<double> float_max(DataType dt) {
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

// tir_path (prim.h) on any CST, without looking through a call: the path after a prefix bound to
// the TIR namespace, "" otherwise.
std::string attribute_tir_path(const cst::Cst& cst, const Namespaces& namespaces, TSNode node,
                               const PrimNames* names);

class PrimLowerer {
 public:
  PrimLowerer(LowerContext& ctx, const cst::Cst& cst, const PrimNames& names, IntMode mode,
              int64_t shift = 0, Span clamp = {})
      : ctx_(ctx), cst_(cst), names_(names), mode_(mode), shift_(shift), clamp_(clamp) {}

  // The whole expression as a PrimExpr (literals take `literal_dtype` or the mode default).
  const ir::PrimExpr* lower(TSNode node, std::optional<DataType> literal_dtype = std::nullopt);

  const ir::PrimExpr* update(const ir::PrimExpr* lhs, std::string_view op, TSNode rhs, Span span);

  Span span(TSNode node) const;

 private:
  template <class T, class... Args>
  const T* make(Args&&... args) {
    return ctx_.make<T>(std::forward<Args>(args)...);
  }
  void error(DiagPayload what, Span span);
  std::string text(TSNode node) const { return std::string(cst_.text(node)); }
  static TSNode op_node(TSNode node) { return ts_node_child_by_field_name(node, "operator", 8); }

  // ---------------------------------------------------------------- dispatch (prim.cpp)
  Result value(TSNode node);

  Result unsupported(TSNode node, std::string what);

  // ---------------------------------------------------------------- atoms (prim.cpp)
  Result integer(TSNode node);

  Result real(TSNode node);

  Result string(TSNode node);

  Result name(TSNode node);

  // ---------------------------------------------------------------- operators (prim_operators.cpp)
  Result unary(TSNode node);

  Result bad_operand(TSNode node, std::string_view op, const Val& a);

  std::string describe(const Val& v) const;

  Result logical_not(TSNode node);

  const ir::PrimExpr* as_bool(const Val& v, TSNode node, std::string_view op);

  Result binary_node(TSNode node);

  Result comparison(TSNode node);

 public:
  // `a op b` with TVMScript's literal adoption and TVM's BinaryOpMatchTypes.
  Result binary(const BinOp& op, Val a, Val b, Span sp);

  const ir::PrimExpr* build(const BinOp& op, const ir::PrimExpr* x, const ir::PrimExpr* y, Span sp);

  const ir::PrimExpr* build_kind(PrimKind kind, const ir::PrimExpr* x, const ir::PrimExpr* y,
                                 Span sp);

 private:
  Result logic(const BinOp& op, const Val& a, const Val& b, Span sp);

  const ir::PrimExpr* as_bool_span(const Val& v, std::string_view op, Span sp);

  // Python evaluation of two literals.
  Result fold(const BinOp& op, const Val& a, const Val& b, Span sp);

 public:
  // Converts a literal to a PrimExpr of `dt` (TVMScript `_auto_broadcast`): ints take an integer
  // dtype as is and a float dtype as FloatImm; floats take a float dtype, else float32.
  const ir::PrimExpr* adopt(const Val& v, DataType dt);

  DataType default_int(Int v) const;

  const ir::PrimExpr* int_imm(Int v, DataType dt, Span sp);

  // The final conversion of a value: literals take `hint` when given, else the defaults.
  const ir::PrimExpr* to_expr(const Val& v, std::optional<DataType> hint);

  // TVM's BinaryOpMatchTypes: int↔float casts the int side; same kind, different width widens.
  bool match_types(const ir::PrimExpr*& x, const ir::PrimExpr*& y, std::string_view op, Span sp);

  const ir::PrimExpr* cast(DataType dt, const ir::PrimExpr* e, Span sp);

 private:
  // ---------------------------------------------------------------- buffer loads (prim.cpp)
  Result load(TSNode node);

 public:
  std::optional<std::vector<const ir::PrimExpr*>> buffer_indices(TSNode subscript,
                                                                 const ir::Buffer* buffer);

 private:
  // ---------------------------------------------------------------- calls (prim_calls.cpp)
  struct Args {
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string_view, TSNode>> keywords;
    TSNode find(std::string_view key) const {
      for (auto& [k, v] : keywords)
        if (k == key) return v;
      return TSNode{};
    }
  };

  Args collect_args(TSNode call);

  Result call(TSNode node);

  std::string tir_path_of(TSNode callee);

  bool arity(TSNode node, std::string_view name, const Args& args, size_t lo, size_t hi,
             const char* expectation);

  bool no_keywords(TSNode node, std::string_view name, const Args& args,
                   std::initializer_list<std::string_view> allowed = {});

  // `T.int64(5)`, `T.float32("inf")`, `T.bool(True)`, `T.int32(expr)` (cast).
  Result typed(TSNode node, const std::string& name, DataType dt, const Args& args, Span sp);

  Result special_float(TSNode arg, const std::string& name, DataType dt, const std::string& s,
                       Span sp);

  std::optional<DataType> dtype_arg(TSNode node);

  // Lowers every positional argument to a PrimExpr (strings become StringImm).
  std::optional<std::vector<Val>> values(const std::vector<TSNode>& nodes, size_t from = 0);

  Result binary_call(TSNode node, std::string_view name, PrimKind kind, const Args& args, Span sp);

  // Two operands matched as for a binary operator, returned as PrimExprs.
  std::optional<std::pair<const ir::PrimExpr*, const ir::PrimExpr*>> matched(const Val& a,
                                                                             const Val& b,
                                                                             std::string_view op,
                                                                             Span sp);

  Result intrinsic(TSNode node, const std::string& name, const Args& args, Span sp);

  Result ceildiv(TSNode node, const Args& args, Span sp);

  Result cast_call(TSNode, const std::string& name, const Args& args, Span sp);

  Result select(TSNode node, const std::string& name, const Args& args, Span sp);

  Result abs(TSNode node, const Args& args, Span sp);

  Result math1(TSNode node, const std::string& name, const Args& args, Span sp);

  Result math2(TSNode node, const std::string& name, const Args& args, Span sp);

  Result limit(TSNode node, const std::string& name, const Args& args, Span sp);

  // T.reinterpret("dt", v), T.call_extern("dt", "fn", args…), T.call_intrin("dt", "op", args…).
  Result typed_call(TSNode node, const std::string& name, const std::string& op, const Args& args,
                    Span sp);

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

  Result let(TSNode, const Args& args, Span sp);
  Result builtin(TSNode node, const TirBuiltin& b, const Args& args, Span sp);
  Result immediate(TSNode node, const std::string& name, const Args& args, Span sp);
  Result fresh_var(TSNode node, const Args& args, Span sp);

  LowerContext& ctx_;
  const cst::Cst& cst_;
  const PrimNames& names_;
  IntMode mode_;
  int64_t shift_;
  Span clamp_;
};

}  // namespace raxc::lower::prim_lowering
