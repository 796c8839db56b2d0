// The state of compiling one PrimFunc (private to backend/codegen): variable and buffer
// bindings, loop targets for break/continue, scoped heap allocations, and the helpers that emit
// a checked failure. Expressions are emitted by prim_expr.cpp, statements by tir_stmt.cpp, the
// entry (argument checks and buffer binding) by tir_entry.cpp.
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/codegen/buffer_alias.h"
#include "backend/codegen/tir_codegen.h"

namespace raxc::backend {

// How a buffer is addressed: element (i, j, ...) lives at data[elem_offset + Σ index_k * stride_k].
struct BufferView {
  llvm::Value* data = nullptr;         // ptr to the first element of the underlying memory
  llvm::Value* elem_offset = nullptr;  // i64, in elements
  std::vector<llvm::Value*> strides;   // i64, in elements, one per axis
  std::vector<llvm::Value*> extents;   // i64, one per axis (bounds checks)
};

class TirEmitter {
 public:
  TirEmitter(llvm::Module& module, const ir::PrimFunc& func, const std::string& name,
             const CodegenOptions& options, DiagnosticSink& diags);
  bool emit(const std::string& symbol);

  // ---- expressions (prim_expr.cpp)
  llvm::Value* expr(const ir::PrimExpr* e);
  llvm::Type* value_type(ir::DataType t);    // the register type (bool: i1)
  llvm::Type* storage_type(ir::DataType t);  // the memory type (bool: i8)
  llvm::Value* cast(llvm::Value* v, ir::DataType from, ir::DataType to);
  llvm::Value* as_i64(const ir::PrimExpr* e);  // an index or extent, sign-extended

  // ---- statements (tir_stmt.cpp)
  void stmt(const ir::Stmt* s);

  // ---- entry (tir_entry.cpp)
  void bind_arguments();

 private:
  friend struct ExprEmitter;
  // prim_expr.cpp
  llvm::Value* binary(const ir::PrimBinary* e);
  llvm::Value* call(const ir::PrimCall* e);
  llvm::Value* math_call(const ir::PrimCall* e, const std::string& fn);
  llvm::Value* load(const ir::BufferLoad* e);
  llvm::Value* int_division(const ir::PrimBinary* e, llvm::Value* a, llvm::Value* b);
  bool reciprocal_allowed(const ir::PrimExpr* divisor) const;
  bool varies(const ir::PrimExpr* e) const;  // in the innermost loop
  // While one is alive, divisions are emitted exact (their quotient is rounded to an integer).
  struct ExactDivision {
    TirEmitter& emitter;
    bool active;
    ExactDivision(TirEmitter& e, bool active) : emitter(e), active(active) {
      emitter.exact_divisions_ += active;
    }
    ~ExactDivision() { emitter.exact_divisions_ -= active; }
  };

  // tir_stmt.cpp
  void for_loop(const ir::For* loop);
  // A loop over `var` in [begin, end) whose body `emit_body` emits (with `var` bound).
  void serial_loop(const ir::PrimVar* var, llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                   const std::function<void()>& emit_body);
  // `bodies` are the statements `emit_body` emits: what they use travels in the closure.
  void parallel_loop(const ir::PrimVar* var, llvm::Value* begin, llvm::Value* end,
                     const std::vector<const ir::Stmt*>& bodies,
                     const std::function<void()>& emit_body);
  // Whether row-local nests (row_loops.h) run on the thread pool: decided here when their extents
  // are constants, else `work`, their innermost iterations computed before they start, is
  // compared with kParallelWork at run time (null: serial).
  struct ParallelChoice {
    bool parallel = false;
    llvm::Value* work = nullptr;
  };
  ParallelChoice parallel_choice(const std::vector<const ir::For*>& nests);
  // Emits `parallel` or `serial` as `choice` says, or both behind a branch on its work.
  void emit_choice(const ParallelChoice& choice, const std::function<void()>& parallel,
                   const std::function<void()>& serial);
  llvm::Value* runtime_work(const std::vector<const ir::For*>& nests);
  const ir::Block* reduction_block(const ir::For* loop);
  void hoist_init(const ir::For* loop, const ir::Block* block);
  // Row-local loop nests (row_loops.h) run under one outer loop, in parallel when worth it.
  void row_loop(const std::vector<const ir::For*>& nests);
  void merged_bodies(const std::vector<const ir::For*>& nests, size_t levels);
  void merged_loop(const std::vector<const ir::For*>& nests, bool parallel,
                   const std::function<void()>& emit_body);
  // tir_transpose.cpp: two innermost loops that copy a buffer transposed, by tiles.
  struct TransposeCopy {
    const ir::For* outer;
    const ir::For* inner;
    const ir::Block* block;  // null: the store is the inner loop's body itself
    const ir::BufferStore* store;
    const ir::BufferLoad* load;
  };
  std::optional<TransposeCopy> match_transpose_copy(const ir::For* outer);
  // Emits `outer` as a tiled transpose when it is one (false: nothing emitted).
  bool transpose_copy(const ir::For* outer);
  void transposed_rows(const TransposeCopy& copy, llvm::Value* i0);
  void remaining_rows(const TransposeCopy& copy, llvm::Value* first);
  void transpose_tile(const TransposeCopy& copy, llvm::Value* i0, llvm::Value* j0);
  void while_loop(const ir::While* loop);
  void if_then_else(const ir::IfThenElse* s);
  void block(const ir::Block* b);
  void store(const ir::BufferStore* s);
  // T.alloc_buffer: on the stack when small and of constant size, else from the runtime. With
  // `folded_axes`, storage for the first row of that many leading axes only, every row mapped
  // onto it (row_foldable in row_loops.h).
  void allocate(const ir::Buffer* buffer, Span at, size_t folded_axes = 0);
  void match_buffer_region(const ir::MatchBufferRegion& m, Span at);
  void seq_scope(const std::vector<const ir::Stmt*>& stmts);

  // tir_entry.cpp
  void bind_tensor(const ir::Buffer* buffer, llvm::Value* dltensor, const std::string& what);
  void bind_or_check(const ir::PrimExpr* declared, llvm::Value* actual, DiagId code,
                     const std::vector<std::string>& statics);
  void check_deferred();
  struct DeferredCheck {
    const ir::PrimExpr* declared;
    llvm::Value* actual;
    DiagId code;
    std::vector<std::string> statics;
  };
  std::vector<DeferredCheck> deferred_checks_;

 public:
  // ---- shared helpers
  // The address of element `indices` of `buffer` (bounds-checked when asked), or null after a
  // compile error.
  llvm::Value* element_address(const ir::Buffer* buffer,
                               const std::vector<const ir::PrimExpr*>& indices, Span at);
  // A constant RaxcErrorSite for a diagnostic raised at run time.
  llvm::Constant* error_site(DiagId code, Span at, const std::vector<std::string>& statics,
                             int num_values);
  // if (bad) { raxc_fail(site, values...); return 1; } and continue in a new block.
  void fail_if(llvm::Value* bad, llvm::Constant* site, std::vector<llvm::Value*> values = {});
  // Compile-time refusal of a construct (RX5000); emission goes on so every refusal is seen.
  void unsupported(Span at, const std::string& what);
  llvm::Constant* string_constant(const std::string& text);
  llvm::Function* runtime_function(const char* name);
  void set_kernel_attributes(llvm::Function* f);
  llvm::Value* i64(int64_t v) { return builder_.getInt64(v); }
  llvm::BasicBlock* new_block(const char* name) {
    return llvm::BasicBlock::Create(context_, name, function_);
  }
  // Allocates in the entry block (so mem2reg promotes it and loops do not grow the stack).
  llvm::AllocaInst* entry_alloca(llvm::Type* type, llvm::Value* count, const char* name,
                                 uint64_t align);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> builder_;
  const ir::PrimFunc& func_;
  std::string name_;
  const CodegenOptions& options_;
  DiagnosticSink& diags_;
  bool failed_ = false;
  BufferAliasScopes alias_scopes_;

  llvm::Function* function_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::Value* args_ = nullptr;   // const RaxcArg*
  llvm::Value* kinds_ = nullptr;  // const int32_t*
  llvm::Value* num_args_ = nullptr;
  llvm::Value* ret_ = nullptr;  // RaxcArg*
  llvm::StructType* dltensor_type_ = nullptr;
  llvm::StructType* site_type_ = nullptr;

  std::unordered_map<const ir::PrimVar*, llvm::Value*> vars_;
  std::unordered_map<const ir::Buffer*, BufferView> buffers_;
  struct LoopTargets {
    llvm::BasicBlock* continue_to;
    llvm::BasicBlock* break_to;
  };
  std::vector<LoopTargets> loops_;
  // Per enclosing serial loop, innermost last: the variables that change from one of its
  // iterations to the next (its own, and block and let variables computed from them).
  std::vector<std::unordered_set<const ir::PrimVar*>> varying_;
  int exact_divisions_ = 0;
  int loop_depth_ = 0;  // serial loops around the code being emitted
  // Blocks whose T.init() was emitted before their reduction loops (hoist_init).
  std::unordered_set<const ir::Block*> hoisted_inits_;
  // Heap allocations of the innermost scope (a block or a statement list), freed when it ends.
  std::vector<std::vector<llvm::Value*>> heap_scopes_;
  // Buffers folded to one row: allocated by the row loop that uses them, in each iteration.
  std::unordered_set<const ir::Buffer*> row_buffers_;
};

}  // namespace raxc::backend
