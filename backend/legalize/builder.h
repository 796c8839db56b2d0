// Building TIR in our own IR (frontend/ir/tir.h) for the legalization rules: int64 index
// arithmetic that folds constants (so generated loop nests read like TVM's, `i * 4 + j` rather
// than `i * T.int64(1) + T.int64(0)`), buffers, and one helper for the loop-nest-plus-block
// shape every TVM compute stage has (`for ...: with T.block(name): v = T.axis.remap(...)`).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/tir.h"

namespace raxc::backend::legalize {

using Exprs = std::vector<const ir::PrimExpr*>;

class Builder {
 public:
  explicit Builder(ir::Arena& arena) : arena_(arena) {}
  ir::Arena& arena() { return arena_; }

  // ---- scalars
  const ir::PrimExpr* i64(int64_t v);
  const ir::PrimExpr* int_imm(ir::DataType t, int64_t v);
  const ir::PrimExpr* float_imm(ir::DataType t, double v);
  // A constant of dtype `t` (integers truncate `v`, bool is v != 0).
  const ir::PrimExpr* constant(ir::DataType t, double v);
  const ir::PrimVar* var(std::string name, ir::DataType t = ir::DataType::Int(64));
  // Constant-folding for int64 operands; otherwise a plain node of a's dtype.
  const ir::PrimExpr* add(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* sub(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* mul(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* div(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* floordiv(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* floormod(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* min(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* max(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* binary(ir::PrimKind k, const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* compare(ir::PrimKind k, const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* logical_and(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* logical_or(const ir::PrimExpr* a, const ir::PrimExpr* b);
  const ir::PrimExpr* logical_not(const ir::PrimExpr* a);
  const ir::PrimExpr* select(const ir::PrimExpr* c, const ir::PrimExpr* t, const ir::PrimExpr* f);
  // T.if_then_else: only the taken side is evaluated (loads past a buffer's end stay unread).
  const ir::PrimExpr* if_then_else(const ir::PrimExpr* c, const ir::PrimExpr* t,
                                   const ir::PrimExpr* f);
  const ir::PrimExpr* cast(ir::DataType t, const ir::PrimExpr* e);
  const ir::PrimExpr* call(ir::DataType t, std::string op, Exprs args);
  const ir::PrimExpr* load(const ir::Buffer* b, Exprs indices);
  const ir::PrimExpr* min_value(ir::DataType t);
  const ir::PrimExpr* max_value(ir::DataType t);

  // ---- buffers and statements
  const ir::Buffer* buffer(std::string name, ir::DataType t, Exprs shape);
  const ir::Stmt* store(const ir::Buffer* b, const ir::PrimExpr* value, Exprs indices);
  const ir::Stmt* seq(std::vector<const ir::Stmt*> stmts);
  // A serial loop `for v in range(extent): body` outside any block (the sequential kernels:
  // sorts, scans, scatters).
  const ir::Stmt* loop(const ir::PrimVar* v, const ir::PrimExpr* extent, const ir::Stmt* body);
  // Serial loops over every index of `extents` (row-major); `body` receives the loop variables.
  const ir::Stmt* loops(const std::string& prefix, const Exprs& extents,
                        const std::function<const ir::Stmt*(const Exprs&)>& body);
  const ir::Stmt* when(const ir::PrimExpr* c, const ir::Stmt* then);

  // One compute stage: a loop nest over `extents` and a block `name` whose iteration variables
  // are bound to the loops ('S' spatial, 'R' reduction in `kinds`); `body` (and `init`, for a
  // reduction) receive the block variables. Loops are named like TVM's (ax0, ax1, …, k2).
  using StageBody = std::function<const ir::Stmt*(const Exprs& vars)>;
  const ir::Stmt* stage(const std::string& name, const Exprs& extents, std::string_view kinds,
                        const StageBody& body, const StageBody& init = nullptr);

 private:
  ir::Arena& arena_;
};

// The int64 value of `e` when it is a literal.
bool literal(const ir::PrimExpr* e, int64_t* value);

}  // namespace raxc::backend::legalize
