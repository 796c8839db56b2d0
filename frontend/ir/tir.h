// The TIR subset (text-format.md §6): PrimFunc, statements, blocks.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "frontend/ir/attrs.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/span.h"

namespace raxc::ir {

enum class StmtKind : uint8_t {
  Seq,
  For,
  While,
  If,
  Block,  // T.block / T.sblock (BlockRealize: iter values are the axes' bindings)
  BufferStore,
  Let,       // `x: T.int32 = e` / `x = e` (classic) — scoped over the following statements
  Evaluate,  // T.evaluate(e), or an intrinsic call used as a statement
  Assert,
  AllocBuffer,  // statement-level T.alloc_buffer / T.sblock_alloc_buffer outside a block head
  Return,
  Break,
  Continue,
};

struct Stmt {
  StmtKind kind;
  Span span;

 protected:
  Stmt(StmtKind kind, Span span) : kind(kind), span(span) {}
};

struct SeqStmt : Stmt {
  std::vector<const Stmt*> stmts;
  explicit SeqStmt(std::vector<const Stmt*> stmts, Span span = {})
      : Stmt(StmtKind::Seq, span), stmts(std::move(stmts)) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Seq; }
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };

struct For : Stmt {
  const PrimVar* loop_var;
  const PrimExpr* min;
  const PrimExpr* extent;
  ForKind for_kind = ForKind::Serial;
  std::string thread_tag;  // ThreadBinding only
  Attrs annotations;
  const PrimExpr* step = nullptr;  // range(a, b, step) with step != 1; null otherwise
  const Stmt* body;
  For(const PrimVar* var, const PrimExpr* min, const PrimExpr* extent, ForKind for_kind,
      std::string thread_tag, Attrs annotations, const PrimExpr* step, const Stmt* body,
      Span span = {})
      : Stmt(StmtKind::For, span),
        loop_var(var),
        min(min),
        extent(extent),
        for_kind(for_kind),
        thread_tag(std::move(thread_tag)),
        annotations(std::move(annotations)),
        step(step),
        body(body) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::For; }
};

struct While : Stmt {
  const PrimExpr* condition;
  const Stmt* body;
  While(const PrimExpr* c, const Stmt* body, Span span = {})
      : Stmt(StmtKind::While, span), condition(c), body(body) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::While; }
};

struct IfThenElse : Stmt {
  const PrimExpr* condition;
  const Stmt* then_case;
  const Stmt* else_case;  // may be null
  IfThenElse(const PrimExpr* c, const Stmt* t, const Stmt* e, Span span = {})
      : Stmt(StmtKind::If, span), condition(c), then_case(t), else_case(e) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::If; }
};

struct BufferRegion {
  const Buffer* buffer = nullptr;
  std::vector<PrimRange> region;
  Span span;
};

struct MatchBufferRegion {
  const Buffer* buffer = nullptr;  // the new view
  BufferRegion source;
};

enum class IterType : uint8_t { DataPar, Reduce, Scan, Opaque };

struct IterVar {
  const PrimVar* var = nullptr;
  PrimRange dom;
  IterType iter_type = IterType::DataPar;
  const PrimExpr* binding = nullptr;  // the value bound by the enclosing loops
  Span span;
};

struct Block : Stmt {
  std::string name;
  std::vector<IterVar> iter_vars;
  const PrimExpr* predicate = nullptr;  // T.where; null: true
  // T.reads / T.writes as written; nullopt when omitted (regions are then inferred).
  std::optional<std::vector<BufferRegion>> reads;
  std::optional<std::vector<BufferRegion>> writes;
  std::vector<const Buffer*> alloc_buffers;
  std::vector<MatchBufferRegion> match_buffers;
  Attrs annotations;           // T.block_attr / T.sblock_attr
  const Stmt* init = nullptr;  // with T.init()
  const Stmt* body;
  bool is_root = false;  // the implicit root block of a PrimFunc
  Block(std::string name, Span span = {}) : Stmt(StmtKind::Block, span), name(std::move(name)) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Block; }
};

struct BufferStore : Stmt {
  const Buffer* buffer;
  const PrimExpr* value;
  std::vector<const PrimExpr*> indices;
  BufferStore(const Buffer* buffer, const PrimExpr* value, std::vector<const PrimExpr*> indices,
              Span span = {})
      : Stmt(StmtKind::BufferStore, span),
        buffer(buffer),
        value(value),
        indices(std::move(indices)) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::BufferStore; }
};

struct LetStmt : Stmt {
  const PrimVar* var;
  const PrimExpr* value;
  const Stmt* body;  // the statements after the let in the same suite
  LetStmt(const PrimVar* var, const PrimExpr* value, const Stmt* body, Span span = {})
      : Stmt(StmtKind::Let, span), var(var), value(value), body(body) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Let; }
};

struct Evaluate : Stmt {
  const PrimExpr* value;
  explicit Evaluate(const PrimExpr* value, Span span = {})
      : Stmt(StmtKind::Evaluate, span), value(value) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Evaluate; }
};

struct AssertStmt : Stmt {
  const PrimExpr* condition;
  std::string kind_name;              // v0.25 tuple form ("Kind", ["m"]); empty otherwise
  std::vector<std::string> messages;  // one message in the classic form
  AssertStmt(const PrimExpr* c, std::string kind_name, std::vector<std::string> messages,
             Span span = {})
      : Stmt(StmtKind::Assert, span),
        condition(c),
        kind_name(std::move(kind_name)),
        messages(std::move(messages)) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Assert; }
};

struct AllocBufferStmt : Stmt {
  const Buffer* buffer;
  explicit AllocBufferStmt(const Buffer* buffer, Span span = {})
      : Stmt(StmtKind::AllocBuffer, span), buffer(buffer) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::AllocBuffer; }
};

struct ReturnStmt : Stmt {
  const PrimExpr* value;
  explicit ReturnStmt(const PrimExpr* value, Span span = {})
      : Stmt(StmtKind::Return, span), value(value) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Return; }
};

struct BreakStmt : Stmt {
  explicit BreakStmt(Span span = {}) : Stmt(StmtKind::Break, span) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Break; }
};

struct ContinueStmt : Stmt {
  explicit ContinueStmt(Span span = {}) : Stmt(StmtKind::Continue, span) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Continue; }
};

struct PrimFuncParam {
  const PrimVar* var;             // handle or scalar
  const Buffer* buffer = nullptr;  // set when the parameter is written T.Buffer(...)
  Span span;
};

struct PrimFunc {
  std::vector<PrimFuncParam> params;
  // buffer_map: handle parameter → buffer, from T.Buffer parameters and T.match_buffer.
  std::vector<std::pair<const PrimVar*, const Buffer*>> buffer_map;
  std::optional<DataType> ret_type;  // `-> T.int32`
  Attrs attrs;                       // T.func_attr
  bool is_private = false;
  bool s_tir = false;  // @T.prim_func(s_tir=True), v0.25
  const Stmt* body;    // a Block with is_root when the function has blocks
  Span span;
  Span name_span;
};

}  // namespace raxc::ir
