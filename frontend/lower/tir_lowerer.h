// The TIR lowerer, one class in several files along its sections (the class is shared here,
// private to frontend/lower/): tir.cpp (the entry and the signature), tir_values.cpp (literal
// values and attributes), tir_buffers.cpp (buffer declarations, regions, stores, match/alloc),
// tir_stmt.cpp (suites, bindings, expression and with statements), tir_loops.cpp (loops and
// block axes). What it lowers is in tir.cpp's opening comment.
#pragma once
#include <tree_sitter/api.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/lower/literals.h"
#include "frontend/lower/prim.h"
#include "frontend/lower/tir_names.h"

namespace raxc::lower::tir_lowering {

using cst::Field;
using cst::Kind;
using ir::DataType;

// Where a statement suite sits: some statements are only meaningful at function top or
// directly in a block (§6.2, §6.3).
enum class Where : uint8_t { FunctionTop, BlockBody, Nested };

struct LoopInfo {
  const ir::PrimVar* var;
  const ir::PrimExpr* min;
  const ir::PrimExpr* extent;
};

// The block whose direct suite is being lowered: axis definitions, T.where, T.reads, … fill it.
struct BlockState {
  ir::Block* block;
  bool has_where = false;
};

class TirLowerer {
 public:
  TirLowerer(LowerContext& ctx) : ctx_(ctx), cst_(ctx.cst) {}

  const ir::PrimFunc* lower(TSNode def);

 private:
  // ---------------------------------------------------------------- helpers (tir_values.cpp)
  void error(DiagPayload what, Span span);
  void error(DiagPayload what, TSNode node);
  std::string text(TSNode node) const { return std::string(cst_.text(node)); }
  Span span(TSNode node) const { return cst_.span(node); }
  std::string path(TSNode node) const { return tir_path(ctx_, node, &names_); }

  const ir::PrimExpr* expr(TSNode node, std::optional<DataType> literal_dtype = std::nullopt);
  const ir::PrimExpr* cast(DataType dt, const ir::PrimExpr* e, Span sp);
  const ir::Stmt* seq(std::vector<const ir::Stmt*> stmts, Span sp);
  const ir::PrimExpr* int_imm(DataType dt, int64_t v, Span sp);

  struct Args {
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string, TSNode>> keywords;
    TSNode find(std::string_view key) const {
      for (auto& [k, v] : keywords)
        if (k == key) return v;
      return TSNode{};
    }
  };
  Args args_of(TSNode call) const;

  std::optional<std::string> string_value(TSNode node);

  std::optional<bool> bool_value(TSNode node);

  std::optional<int64_t> int_value(TSNode node);

  // A bare integer literal (possibly negated): it adopts the dtype of its partner (§10.21).
  bool is_bare_int(TSNode node) { return int_value(node).has_value(); }

  std::optional<DataType> dtype_value(TSNode node);

  // ---------------------------------------------------------------- attributes (tir_values.cpp)
  std::optional<ir::AttrValue> attr_value(TSNode node);

  // `{"key": value, …}` into `attrs` (string keys only).
  void attr_dict(TSNode node, ir::Attrs& attrs, const char* what);

  // ---------------------------------------------------------------- signature (tir.cpp)
  void decorator(TSNode def);

  void params(TSNode list);

  TSNode annotation_value(TSNode param);

  bool define(TSNode name_node, TirNames::Entry entry);

  std::optional<ir::PrimFuncParam> scalar_param(TSNode param);

  std::optional<ir::PrimFuncParam> buffer_param(TSNode param);

  void return_type(TSNode def);

  // ---------------------------------------------------------------- buffers (tir_buffers.cpp)
  // T.Buffer / T.match_buffer / T.alloc_buffer arguments from index `first` on.
  ir::Buffer* make_buffer(const std::string& name, TSNode call, const Args& args, size_t first,
                          const std::string& what);

  bool bad(TSNode node, const std::string& what, const std::string& why);

  // A shape: tuple / list of PrimExprs, or a single expression for one dimension.
  bool shape_list(TSNode node, std::vector<const ir::PrimExpr*>& out);

  // `A[i, 0:4]` (or a bare buffer name for the whole buffer) as a region.
  std::optional<ir::BufferRegion> region(TSNode node);

  std::optional<ir::PrimRange> region_index(TSNode item, const ir::PrimExpr* dim);

  // `hi - lo`, folded for immediates and for lo == 0.
  const ir::PrimExpr* difference(const ir::PrimExpr* hi, const ir::PrimExpr* lo, Span sp);

  const ir::Buffer* find_buffer(TSNode name);

  // ---------------------------------------------------------------- suites (tir_stmt.cpp)
  const ir::Stmt* suite(TSNode block, Where where);

  // Lowers nodes[begin..] into `out`. A let scopes over the rest of its suite: it is opened
  // (scope pushed, statements so far set aside) and closed at the end of the suite, iteratively
  // so that a long chain of lets cannot exhaust the stack.
  void stmts(const std::vector<TSNode>& nodes, size_t begin, Where where,
             std::vector<const ir::Stmt*>& out);

  // Returns true when the statement opened a let (`opened_`) over the rest of the suite.
  bool stmt(const std::vector<TSNode>& nodes, size_t i, Where where,
            std::vector<const ir::Stmt*>& out);

  // ---------------------------------------------------------------- bindings (tir_stmt.cpp;
  // stores, match_buffer and alloc_buffer: tir_buffers.cpp)
  bool binding(const std::vector<TSNode>& nodes, size_t i, Where where,
               std::vector<const ir::Stmt*>& out);

  bool is_declaration(TSNode call);

  // `n = T.int64()` / `T.int64(is_size_var=True)`: a symbolic variable, no statement (§6.5).
  void declaration(TSNode name, TSNode call);

  void unpack(TSNode left, TSNode right, TSNode node, Where where);

  // Does any statement in nodes[from..] (at any depth) assign to `name` again? The suite's
  // "last statement assigning each name" table is built once, so long suites stay linear.
  bool assigned_later(const std::vector<TSNode>& nodes, size_t from, std::string_view name);
  void collect_assigned(TSNode node, size_t index,
                        std::map<std::string, size_t, std::less<>>& last);

  bool let_or_assign(const std::vector<TSNode>& nodes, size_t i, TSNode left, TSNode right,
                     TSNode ann, std::vector<const ir::Stmt*>& out);

  // `T.int32`, `T.let[T.int64]`, `T.let` (void: take the value's dtype).
  std::optional<DataType> let_annotation(TSNode ann);

  void store(TSNode left, TSNode right, TSNode node, std::vector<const ir::Stmt*>& out);

  void augmented(TSNode node, std::vector<const ir::Stmt*>& out);

  void match_buffer(TSNode left, TSNode call, Where where);

  static bool has_shape_arg(const Args& args);

  void alloc_buffer(TSNode left, TSNode call, Where where, const std::string& what,
                    std::vector<const ir::Stmt*>& out);

  // ---------------------------------------------------------------- block axes (tir_loops.cpp)
  void axis(const std::vector<TSNode>& targets, TSNode call, const std::string& p, Where where);

  void push_iter(TSNode name, DataType dt, ir::PrimRange dom, ir::IterType type,
                 const ir::PrimExpr* binding, TSNode call);

  void remap(const std::vector<TSNode>& targets, TSNode call, const Args& args);

  // ---------------------------------------------------------------- expression statements
  // (tir_stmt.cpp)
  void expression_statement(TSNode node, Where where, size_t index,
                            std::vector<const ir::Stmt*>& out);

  void block_statement(TSNode call, const std::string& p, const Args& args, Where where);

  // ---------------------------------------------------------------- loops (tir_loops.cpp)
  struct LoopSpec {
    const ir::PrimExpr* min = nullptr;
    const ir::PrimExpr* extent = nullptr;
    const ir::PrimExpr* step = nullptr;
    ir::ForKind kind = ir::ForKind::Serial;
    std::string thread;
    ir::Attrs annotations;
  };

  // (start, stop) with literal adoption; the loop variable takes the wider dtype.
  bool bounds(TSNode a, TSNode b, LoopSpec& spec, Span sp);

  bool integral(const ir::PrimExpr* e, TSNode node);

  std::optional<std::vector<LoopSpec>> iterator(TSNode right);

  bool loop_step(TSNode node, LoopSpec& spec);

  void for_stmt(TSNode node, std::vector<const ir::Stmt*>& out);

  void while_stmt(TSNode node, std::vector<const ir::Stmt*>& out);

  const ir::PrimExpr* condition(TSNode node);

  void if_stmt(TSNode node, std::vector<const ir::Stmt*>& out);

  // `if` and its elif/else alternatives[k..] as nested IfThenElse.
  const ir::Stmt* if_chain(TSNode clause, const std::vector<TSNode>& alternatives, size_t k);

  void assert_stmt(TSNode node, std::vector<const ir::Stmt*>& out);

  void return_stmt(TSNode node, std::vector<const ir::Stmt*>& out);

  // ---------------------------------------------------------------- with statements (tir_stmt.cpp)
  void with_stmt(TSNode node, Where where, std::vector<const ir::Stmt*>& out);

  const ir::Stmt* block(TSNode node, TSNode call, Where where);

  // §6.3: wrap a body with blocks (or top-level allocations) in the implicit root block.
  const ir::Stmt* root(std::vector<const ir::Stmt*>& body);

  LowerContext& ctx_;
  const cst::Cst& cst_;
  TirNames names_;
  ir::PrimFunc* func_ = nullptr;
  std::string name_;
  std::vector<LoopInfo> loops_;
  int loop_depth_ = 0;
  BlockState* block_ = nullptr;
  bool saw_block_ = false;
  ir::Block* explicit_root_ = nullptr;
  std::vector<const ir::Buffer*> root_allocs_;
  std::deque<std::vector<const ir::PrimVar*>> loop_tuples_;  // stable addresses
  struct OpenLet {
    const ir::PrimVar* var;
    const ir::PrimExpr* value;  // null after an error: the body is spliced in without a let
    Span span;
    std::vector<const ir::Stmt*> before;  // the suite's statements before the let
  };
  std::optional<OpenLet> opened_;
  // Per suite (keyed by its first statement's node id): name → last statement assigning it.
  std::map<const void*, std::map<std::string, size_t, std::less<>>> last_assignment_;
};

}  // namespace raxc::lower::tir_lowering
