// PrimExpr: TIR scalar expressions, used both for Relax symbolic shapes and inside PrimFuncs
// (seed spec "PrimExpr"). Nodes are immutable and arena-owned; a variable's identity is its
// address (two `PrimVar`s with the same name are different variables).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/ir/dtype.h"
#include "frontend/span.h"

namespace raxc::ir {

struct Buffer;

enum class PrimKind : uint8_t {
  IntImm,
  FloatImm,
  StringImm,
  Var,
  // Binary arithmetic and logic; all use PrimBinary.
  Add,
  Sub,
  Mul,
  Div,       // truncating division on integers, true division on floats
  Mod,       // truncating modulo (T.truncmod)
  FloorDiv,  // `//`
  FloorMod,  // `%`
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  // Others.
  Not,
  Select,
  Cast,
  BufferLoad,
  Call,  // intrinsics: T.exp, T.if_then_else, T.call_extern, …
  Let,
};

struct PrimExpr {
  PrimKind kind;
  DataType dtype;
  Span span;

 protected:
  PrimExpr(PrimKind kind, DataType dtype, Span span) : kind(kind), dtype(dtype), span(span) {}
};

struct IntImm : PrimExpr {
  int64_t value;  // uint64 values keep their bit pattern
  IntImm(DataType dtype, int64_t value, Span span = {})
      : PrimExpr(PrimKind::IntImm, dtype, span), value(value) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::IntImm; }
};

struct FloatImm : PrimExpr {
  double value;
  FloatImm(DataType dtype, double value, Span span = {})
      : PrimExpr(PrimKind::FloatImm, dtype, span), value(value) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::FloatImm; }
};

struct PrimStringImm : PrimExpr {
  std::string value;
  PrimStringImm(std::string value, Span span = {})
      : PrimExpr(PrimKind::StringImm, DataType::Handle(), span), value(std::move(value)) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::StringImm; }
};

// A symbolic shape variable (Relax) or a TIR variable (loop var, handle, scalar param, let).
struct PrimVar : PrimExpr {
  std::string name;
  bool is_size_var = false;  // T.int64(is_size_var=True): known non-negative
  PrimVar(std::string name, DataType dtype, Span span = {}, bool is_size_var = false)
      : PrimExpr(PrimKind::Var, dtype, span), name(std::move(name)), is_size_var(is_size_var) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Var; }
};

struct PrimBinary : PrimExpr {
  const PrimExpr* a;
  const PrimExpr* b;
  PrimBinary(PrimKind kind, DataType dtype, const PrimExpr* a, const PrimExpr* b, Span span = {})
      : PrimExpr(kind, dtype, span), a(a), b(b) {}
  static bool classof(const PrimExpr* e) {
    return e->kind >= PrimKind::Add && e->kind <= PrimKind::Or;
  }
};

struct PrimNot : PrimExpr {
  const PrimExpr* a;
  PrimNot(const PrimExpr* a, Span span = {})
      : PrimExpr(PrimKind::Not, DataType::Bool(), span), a(a) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Not; }
};

struct PrimSelect : PrimExpr {
  const PrimExpr* condition;
  const PrimExpr* true_value;
  const PrimExpr* false_value;
  PrimSelect(DataType dtype, const PrimExpr* c, const PrimExpr* t, const PrimExpr* f,
             Span span = {})
      : PrimExpr(PrimKind::Select, dtype, span), condition(c), true_value(t), false_value(f) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Select; }
};

struct PrimCast : PrimExpr {  // dtype is the target type
  const PrimExpr* value;
  PrimCast(DataType dtype, const PrimExpr* value, Span span = {})
      : PrimExpr(PrimKind::Cast, dtype, span), value(value) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Cast; }
};

struct BufferLoad : PrimExpr {
  const Buffer* buffer;
  std::vector<const PrimExpr*> indices;
  BufferLoad(DataType dtype, const Buffer* buffer, std::vector<const PrimExpr*> indices,
             Span span = {})
      : PrimExpr(PrimKind::BufferLoad, dtype, span), buffer(buffer), indices(std::move(indices)) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::BufferLoad; }
};

// A call to a TIR intrinsic or builtin, named as TVM names the op ("tir.exp",
// "tir.if_then_else", "tir.call_extern", …). String arguments are PrimStringImm.
struct PrimCall : PrimExpr {
  std::string op;
  std::vector<const PrimExpr*> args;
  PrimCall(DataType dtype, std::string op, std::vector<const PrimExpr*> args, Span span = {})
      : PrimExpr(PrimKind::Call, dtype, span), op(std::move(op)), args(std::move(args)) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Call; }
};

struct PrimLet : PrimExpr {
  const PrimVar* var;
  const PrimExpr* value;
  const PrimExpr* body;
  PrimLet(const PrimVar* var, const PrimExpr* value, const PrimExpr* body, Span span = {})
      : PrimExpr(PrimKind::Let, body->dtype, span), var(var), value(value), body(body) {}
  static bool classof(const PrimExpr* e) { return e->kind == PrimKind::Let; }
};

// `[min, min + extent)`; used for block iteration domains and buffer regions.
struct PrimRange {
  const PrimExpr* min = nullptr;
  const PrimExpr* extent = nullptr;
  Span span;
};

// A TIR buffer: parameters given as T.Buffer(...), T.match_buffer, T.alloc_buffer.
struct Buffer {
  std::string name;
  DataType dtype;
  std::vector<const PrimExpr*> shape;
  std::vector<const PrimExpr*> strides;  // empty: compact row-major
  const PrimExpr* elem_offset = nullptr;  // null: 0
  std::string scope = "global";
  int64_t align = -1;          // -1: default
  int64_t offset_factor = -1;  // -1: default
  std::string buffer_type;     // "" (default) or "auto"
  std::vector<int64_t> axis_separators;
  Span span;
};

}  // namespace raxc::ir
