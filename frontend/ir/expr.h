// Relax expressions, bindings and binding blocks (seed spec "Grammar").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ir/attrs.h"
#include "frontend/ir/dtype.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/ir/struct_info.h"
#include "frontend/span.h"

namespace raxc::ir {

enum class ExprKind : uint8_t {
  Constant,
  Var,
  DataflowVar,
  GlobalVar,
  Tuple,
  SeqExpr,
  PrimValue,
  StringImm,
  DataTypeImm,
  Function,
  If,
  ExternFunc,
  Call,
  ShapeExpr,
  TupleGetItem,
  Op,
  Error,
};

struct Expr {
  ExprKind kind;
  Span span;

 protected:
  Expr(ExprKind kind, Span span) : kind(kind), span(span) {}
};

// A tensor constant. `R.const(v, dtype)` carries its data; `metadata["key"][i]` does not (the
// printer omitted the table), so `data` is empty and `metadata` says where it came from.
struct Constant : Expr {
  struct MetadataRef {
    std::string key;
    int64_t index;
  };
  DataType dtype;
  std::vector<int64_t> shape;   // empty: rank 0
  std::vector<uint8_t> data;    // row-major, dtype layout (little endian); empty if unknown
  std::optional<MetadataRef> metadata;
  // R.dist.const(value, R.DTensor(...)): the DTensor StructInfo the constant is given (TVM takes
  // it as written); null for every other constant.
  const StructInfo* dtensor = nullptr;
  Constant(DataType dtype, std::vector<int64_t> shape, std::vector<uint8_t> data,
           std::optional<MetadataRef> metadata, Span span = {})
      : Expr(ExprKind::Constant, span),
        dtype(dtype),
        shape(std::move(shape)),
        data(std::move(data)),
        metadata(std::move(metadata)) {}
  bool has_data() const { return !metadata.has_value(); }
  static bool classof(const Expr* e) { return e->kind == ExprKind::Constant; }
};

// Var and DataflowVar (the kind tells which). Identity is the address.
struct Var : Expr {
  std::string name;
  const StructInfo* annotation = nullptr;  // struct_info_annotation
  Var(bool is_dataflow, std::string name, const StructInfo* annotation, Span span = {})
      : Expr(is_dataflow ? ExprKind::DataflowVar : ExprKind::Var, span),
        name(std::move(name)),
        annotation(annotation) {}
  bool is_dataflow() const { return kind == ExprKind::DataflowVar; }
  static bool classof(const Expr* e) {
    return e->kind == ExprKind::Var || e->kind == ExprKind::DataflowVar;
  }
};

struct GlobalVar : Expr {
  std::string name;
  explicit GlobalVar(std::string name, Span span = {})
      : Expr(ExprKind::GlobalVar, span), name(std::move(name)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::GlobalVar; }
};

struct Tuple : Expr {
  std::vector<const Expr*> fields;
  explicit Tuple(std::vector<const Expr*> fields, Span span = {})
      : Expr(ExprKind::Tuple, span), fields(std::move(fields)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Tuple; }
};

struct Binding;
struct BindingBlock;

struct SeqExpr : Expr {
  std::vector<const BindingBlock*> blocks;
  const Expr* body;
  SeqExpr(std::vector<const BindingBlock*> blocks, const Expr* body, Span span = {})
      : Expr(ExprKind::SeqExpr, span), blocks(std::move(blocks)), body(body) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::SeqExpr; }
};

struct PrimValue : Expr {
  const PrimExpr* value;
  explicit PrimValue(const PrimExpr* value, Span span = {})
      : Expr(ExprKind::PrimValue, span), value(value) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::PrimValue; }
};

struct StringImm : Expr {
  std::string value;
  explicit StringImm(std::string value, Span span = {})
      : Expr(ExprKind::StringImm, span), value(std::move(value)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::StringImm; }
};

struct DataTypeImm : Expr {
  DataType value;
  explicit DataTypeImm(DataType value, Span span = {})
      : Expr(ExprKind::DataTypeImm, span), value(value) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::DataTypeImm; }
};

struct Function : Expr {
  std::vector<const Var*> params;
  const SeqExpr* body;
  const StructInfo* ret_struct_info = nullptr;  // null: not annotated
  bool is_pure = true;
  bool is_private = false;  // @R.function(private=True), and every nested function
  Attrs attrs;              // R.func_attr; global_symbol is implicit for public functions
  Span name_span;           // the `def` name (nested functions: the binding var's span too)
  Function(std::vector<const Var*> params, const SeqExpr* body, const StructInfo* ret,
           bool is_pure, bool is_private, Attrs attrs, Span span = {}, Span name_span = {})
      : Expr(ExprKind::Function, span),
        params(std::move(params)),
        body(body),
        ret_struct_info(ret),
        is_pure(is_pure),
        is_private(is_private),
        attrs(std::move(attrs)),
        name_span(name_span) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Function; }
};

struct If : Expr {
  const Expr* cond;
  const SeqExpr* true_branch;
  const SeqExpr* false_branch;
  If(const Expr* cond, const SeqExpr* t, const SeqExpr* f, Span span = {})
      : Expr(ExprKind::If, span), cond(cond), true_branch(t), false_branch(f) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::If; }
};

struct ExternFunc : Expr {
  std::string global_symbol;
  const StructInfo* struct_info = nullptr;  // R.ExternFunc("sym", R.Callable(...)); else null
  ExternFunc(std::string symbol, const StructInfo* sinfo, Span span = {})
      : Expr(ExprKind::ExternFunc, span), global_symbol(std::move(symbol)), struct_info(sinfo) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::ExternFunc; }
};

struct Call : Expr {
  const Expr* op;  // Op, GlobalVar, Var, ExternFunc
  std::vector<const Expr*> args;
  std::vector<const StructInfo*> sinfo_args;
  Attrs attrs;
  Call(const Expr* op, std::vector<const Expr*> args, std::vector<const StructInfo*> sinfo_args,
       Attrs attrs, Span span = {})
      : Expr(ExprKind::Call, span),
        op(op),
        args(std::move(args)),
        sinfo_args(std::move(sinfo_args)),
        attrs(std::move(attrs)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Call; }
};

struct ShapeExpr : Expr {
  std::vector<const PrimExpr*> values;
  explicit ShapeExpr(std::vector<const PrimExpr*> values, Span span = {})
      : Expr(ExprKind::ShapeExpr, span), values(std::move(values)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::ShapeExpr; }
};

struct TupleGetItem : Expr {
  const Expr* tuple;
  int64_t index;
  TupleGetItem(const Expr* tuple, int64_t index, Span span = {})
      : Expr(ExprKind::TupleGetItem, span), tuple(tuple), index(index) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::TupleGetItem; }
};

// An operator reference: "relax.add", "relax.nn.conv2d", "relax.call_tir", …
struct Op : Expr {
  std::string name;
  explicit Op(std::string name, Span span = {}) : Expr(ExprKind::Op, span), name(std::move(name)) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Op; }
};

// What lowering puts where the text holds no valid expression, so that the rest of the function
// lowers as if it were not there: the value of a statement with a syntax error (`z = R.nn.`,
// `z = R.add(a, `), an expression lowering rejected (an unknown operator), or a name that
// resolves to nothing (then `name` is that name and `span` its use, e.g. the first argument
// of `R.add(undefined_name, x)`). Its diagnostic was reported where it was found. Inference
// gives it the unknown StructInfo (ir::unknown_sinfo(), struct_info.h) and never reports
// anything about it; a module holding one has errors, so the backend never runs it and the
// printer never prints it into a file.
struct ErrorExpr : Expr {
  std::string name;  // the unresolved name; empty for any other error
  explicit ErrorExpr(Span span, std::string name = {})
      : Expr(ExprKind::Error, span), name(std::move(name)) {}
  bool is_unresolved_name() const { return !name.empty(); }
  static bool classof(const Expr* e) { return e->kind == ExprKind::Error; }
};

// VarBinding (struct_info == null) or MatchCast (struct_info set).
struct Binding {
  const Var* var;
  const Expr* value;
  const StructInfo* match_cast = nullptr;  // the MatchCast target StructInfo
  Span span;
  bool is_match_cast() const { return match_cast != nullptr; }
};

struct BindingBlock {
  bool is_dataflow = false;
  std::vector<const Binding*> bindings;
  Span span;
  // A dataflow block's R.output(...) statement (empty when it has none). It is not a binding,
  // but what the text says there decides which variables leave the block.
  Span output{};
};

}  // namespace raxc::ir
