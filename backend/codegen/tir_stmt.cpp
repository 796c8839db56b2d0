// TIR statements -> LLVM control flow. Every loop kind runs as a serial loop for now
// (`T.parallel`, `T.vectorized`, `T.unroll`, `T.thread_binding` keep their meaning: each
// iteration is independent or ordered, so serial execution is a valid schedule). Blocks bind
// their iteration variables, run `T.init()` on the first iteration of their reduction axes and
// are guarded by `T.where`. Buffers a block or statement allocates live until its scope ends:
// small constant-size ones on the stack, others in runtime workspace memory.
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_set>

#include "backend/codegen/row_loops.h"
#include "backend/codegen/tir_emitter.h"
#include "frontend/ir/equal.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"

namespace raxc::backend {

using llvm::Value;

namespace {
// Allocations up to this size with a constant shape go on the stack (entry block).
constexpr int64_t kMaxStackBytes = 64 * 1024;
}  // namespace

void TirEmitter::stmt(const ir::Stmt* s) {
  if (!s || !builder_.GetInsertBlock()) return;
  using K = ir::StmtKind;
  switch (s->kind) {
    case K::Seq: seq_scope(ir::cast<ir::SeqStmt>(s)->stmts); return;
    case K::For: for_loop(ir::cast<ir::For>(s)); return;
    case K::While: while_loop(ir::cast<ir::While>(s)); return;
    case K::If: if_then_else(ir::cast<ir::IfThenElse>(s)); return;
    case K::Block: block(ir::cast<ir::Block>(s)); return;
    case K::BufferStore: store(ir::cast<ir::BufferStore>(s)); return;
    case K::Let: {
      const auto* l = ir::cast<ir::LetStmt>(s);
      Value* v = expr(l->value);
      if (!v) return;
      vars_[l->var] = v;
      if (varies(l->value)) varying_.back().insert(l->var);
      stmt(l->body);
      return;
    }
    case K::Evaluate: expr(ir::cast<ir::Evaluate>(s)->value); return;
    case K::Assert: {
      const auto* a = ir::cast<ir::AssertStmt>(s);
      Value* c = expr(a->condition);
      if (!c) return;
      std::string message;
      for (const std::string& m : a->messages) message += (message.empty() ? "" : " ") + m;
      if (!a->kind_name.empty()) message = a->kind_name + ": " + message;
      fail_if(builder_.CreateNot(c), error_site(DiagId::RX5009, s->span, {message}, 0));
      return;
    }
    case K::AllocBuffer: allocate(ir::cast<ir::AllocBufferStmt>(s)->buffer, s->span); return;
    case K::Return: {
      const auto* r = ir::cast<ir::ReturnStmt>(s);
      if (!ret_) {
        unsupported(s->span, "a return inside a parallel loop");
        return;
      }
      if (r->value) {
        Value* v = expr(r->value);
        if (!v) return;
        ir::DataType t = r->value->dtype;
        Value* slot = ret_;
        if (t.is_float()) {
          builder_.CreateStore(cast(v, t, ir::DataType::Float(64)), slot);
        } else if (t.is_integer()) {
          builder_.CreateStore(builder_.CreateIntCast(v, builder_.getInt64Ty(), t.is_int()), slot);
        } else {
          unsupported(s->span, "returning a '" + t.str() + "'");
          return;
        }
      }
      builder_.CreateRet(builder_.getInt32(0));
      builder_.SetInsertPoint(new_block("after.return"));
      return;
    }
    case K::Break:
    case K::Continue: {
      if (loops_.empty()) {
        unsupported(s->span, "'break'/'continue' outside a loop");
        return;
      }
      builder_.CreateBr(s->kind == K::Break ? loops_.back().break_to : loops_.back().continue_to);
      builder_.SetInsertPoint(new_block("after.jump"));
      return;
    }
  }
}

void TirEmitter::seq_scope(const std::vector<const ir::Stmt*>& stmts) {
  heap_scopes_.emplace_back();
  for (size_t i = 0; i < stmts.size();) {
    size_t run = row_local_run(stmts, i);
    if (run < 2) {
      stmt(stmts[i++]);
      continue;
    }
    std::vector<const ir::For*> nests;
    for (size_t k = i; k < i + run; ++k) nests.push_back(ir::cast<ir::For>(stmts[k]));
    row_loop(nests);
    i += run;
  }
  for (Value* p : heap_scopes_.back())
    builder_.CreateCall(runtime_function("raxc_workspace_free"), {p});
  heap_scopes_.pop_back();
}

void TirEmitter::for_loop(const ir::For* loop) {
  if (transpose_copy(loop)) return;
  ir::DataType t = loop->loop_var->dtype;
  if (!t.is_integer()) {
    unsupported(loop->span, "a loop over '" + t.str() + "'");
    return;
  }
  Value* begin = expr(loop->min);
  Value* extent = expr(loop->extent);
  Value* step = loop->step ? expr(loop->step) : llvm::ConstantInt::get(value_type(t), 1);
  if (!begin || !extent || !step) return;
  llvm::Type* vt = value_type(t);
  begin = builder_.CreateIntCast(begin, vt, loop->min->dtype.is_int());
  extent = builder_.CreateIntCast(extent, vt, loop->extent->dtype.is_int());
  step = builder_.CreateIntCast(step, vt, true);
  Value* end = builder_.CreateAdd(begin, extent);
  auto body = [&] { stmt(loop->body); };
  if (loop->for_kind == ir::ForKind::Parallel && !loop->step && options_.parallel) {
    parallel_loop(loop->loop_var, begin, end, {loop->body}, body);
    return;
  }
  auto serial = [&] {
    if (const ir::Block* reduction = reduction_block(loop)) {
      hoist_init(loop, reduction);
      serial_loop(loop->loop_var, begin, end, step, body);
      hoisted_inits_.erase(reduction);
    } else {
      serial_loop(loop->loop_var, begin, end, step, body);
    }
  };
  ParallelChoice choice;
  if (loop->for_kind == ir::ForKind::Serial && row_local_run({loop}, 0) == 1)
    choice = parallel_choice({loop});
  emit_choice(
      choice, [&] { parallel_loop(loop->loop_var, begin, end, {loop->body}, body); }, serial);
}

TirEmitter::ParallelChoice TirEmitter::parallel_choice(const std::vector<const ir::For*>& nests) {
  if (!options_.parallel) return {};
  if (std::optional<int64_t> work = constant_work(nests)) return {*work >= kParallelWork, nullptr};
  // Decided at run time, the loop is emitted twice: only for outermost loops, so that the copies
  // do not multiply level by level.
  if (loop_depth_ > 0) return {};
  return {false, runtime_work(nests)};
}

void TirEmitter::emit_choice(const ParallelChoice& choice, const std::function<void()>& parallel,
                             const std::function<void()>& serial) {
  if (choice.parallel) return parallel();
  if (!choice.work) return serial();
  llvm::BasicBlock* on_pool = new_block("work.parallel");
  llvm::BasicBlock* alone = new_block("work.serial");
  llvm::BasicBlock* join = new_block("work.join");
  builder_.CreateCondBr(builder_.CreateICmpSGE(choice.work, i64(kParallelWork)), on_pool, alone);
  builder_.SetInsertPoint(on_pool);
  parallel();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(alone);
  serial();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
}

namespace {

// An extent that may be computed before its loop: integer arithmetic that cannot fail (no
// division), on variables bound here and not by the nests themselves (`inside`: a loop, block
// or let variable of theirs, whatever an earlier emission left bound to it).
bool computable_early(const ir::PrimExpr* e,
                      const std::unordered_map<const ir::PrimVar*, Value*>& bound,
                      const std::unordered_set<const ir::PrimVar*>& inside) {
  bool ok = true;
  ir::for_each_prim_expr(e, [&](const ir::PrimExpr* x) {
    using K = ir::PrimKind;
    switch (x->kind) {
      case K::IntImm:
      case K::Add:
      case K::Sub:
      case K::Mul:
      case K::Min:
      case K::Max:
      case K::Cast: break;
      case K::Var: {
        const auto* v = ir::cast<ir::PrimVar>(x);
        ok = ok && bound.count(v) && !inside.count(v);
        break;
      }
      default: ok = false;
    }
  });
  return ok;
}

}  // namespace

// count_work (row_loops.h) in emitted code, each count capped at kWorkCap so that products of
// capped counts cannot overflow and the comparison with kParallelWork still holds.
Value* TirEmitter::runtime_work(const std::vector<const ir::For*>& nests) {
  constexpr int64_t kWorkCap = int64_t(1) << 20;
  static_assert(kWorkCap > kParallelWork);
  auto capped = [&](Value* v) {
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, i64(kWorkCap));
  };
  auto max = [&](Value* a, Value* b) {
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
  };
  std::unordered_set<const ir::PrimVar*> inside;  // bound by the nests (computable_early)
  WorkCounting<Value*> counting;
  counting.extent = [&](const ir::For* f) -> std::optional<Value*> {
    Value* extent = computable_early(f->extent, vars_, inside) ? as_i64(f->extent) : nullptr;
    if (!extent) return std::nullopt;
    return capped(max(extent, i64(0)));
  };
  counting.constant = [&](int64_t v) -> Value* { return i64(v); };
  counting.add = [&](Value* a, Value* b) { return capped(builder_.CreateAdd(a, b)); };
  counting.multiply = [&](Value* a, Value* b) { return capped(builder_.CreateMul(a, b)); };
  counting.max = max;
  counting.binds = [&](const ir::PrimVar* v) { inside.insert(v); };
  std::optional<Value*> work = count_work(nests, counting);
  return work ? *work : nullptr;
}

// The block whose T.init() may run before `loop` instead of on the loops' first iteration
// (TVM's decompose_reduction): `loop` and the loops directly inside it iterate exactly the
// block's reduction variables, each from its domain's start, the block's spatial variables do
// not depend on them, and it has no T.where and declares no buffers. The loops then hold a
// plain reduction, which LLVM keeps in registers and vectorizes (with T.init inside, it peels
// the first iteration and misaligns every vector load after it).
const ir::Block* TirEmitter::reduction_block(const ir::For* loop) {
  std::vector<const ir::For*> chain;
  const ir::Stmt* at = loop;
  while (const auto* f = at ? ir::dyn_cast<ir::For>(at) : nullptr) {
    if (f->step || f->for_kind != ir::ForKind::Serial) return nullptr;
    chain.push_back(f);
    at = f->body;
  }
  const auto* b = at ? ir::dyn_cast<ir::Block>(at) : nullptr;
  if (!b || !b->init || b->predicate || !b->alloc_buffers.empty() || !b->match_buffers.empty())
    return nullptr;
  // hoist_init evaluates every extent before the loops: none may depend on a loop of the chain
  // (a triangular reduction, `for k2 in range(k1)`).
  for (const ir::For* f : chain)
    for (const ir::PrimVar* v : ir::prim_vars(f->extent))
      for (const ir::For* outer : chain)
        if (v == outer->loop_var) return nullptr;
  size_t reduce_vars = 0;
  for (const ir::IterVar& iv : b->iter_vars) {
    if (!iv.binding) return nullptr;
    bool from_chain = false;
    for (const ir::PrimVar* v : ir::prim_vars(iv.binding))
      for (const ir::For* f : chain) from_chain |= v == f->loop_var;
    if (iv.iter_type != ir::IterType::Reduce) {
      if (from_chain) return nullptr;
      continue;
    }
    auto bound = std::find_if(chain.begin(), chain.end(),
                              [&](const ir::For* f) { return iv.binding == f->loop_var; });
    if (bound == chain.end() || !iv.dom.min || !ir::structural_equal(iv.dom.min, (*bound)->min))
      return nullptr;
    ++reduce_vars;
  }
  return reduce_vars == chain.size() ? b : nullptr;
}

// Runs `block`'s T.init() here, when the reduction loops from `loop` in run at least once (an
// empty reduction never runs it), and marks it done for the block itself.
void TirEmitter::hoist_init(const ir::For* loop, const ir::Block* block) {
  Value* runs = builder_.getTrue();
  for (const ir::Stmt* at = loop; const auto* f = ir::dyn_cast<ir::For>(at); at = f->body) {
    Value* extent = expr(f->extent);
    if (!extent) return;
    runs = builder_.CreateAnd(
        runs, builder_.CreateICmpSGT(extent, llvm::ConstantInt::get(extent->getType(), 0)));
  }
  llvm::BasicBlock* init = new_block("reduction.init");
  llvm::BasicBlock* after = new_block("reduction.loops");
  builder_.CreateCondBr(runs, init, after);
  builder_.SetInsertPoint(init);
  for (const ir::IterVar& iv : block->iter_vars)
    if (iv.iter_type != ir::IterType::Reduce)
      if (Value* v = expr(iv.binding)) vars_[iv.var] = cast(v, iv.binding->dtype, iv.var->dtype);
  stmt(block->init);
  builder_.CreateBr(after);
  builder_.SetInsertPoint(after);
  hoisted_inits_.insert(block);
}

// The nests' outer loops become one: each iteration runs every nest's body for that row, their
// loop variables all bound to the one induction variable; levels below merge the same way
// (row_local_levels).
void TirEmitter::row_loop(const std::vector<const ir::For*>& nests) {
  size_t levels = row_local_levels(nests);
  // The nests' loops at each merged level. The thread pool takes the first level whose extent is
  // not 1: a batch of one (softmax over (1, 12, n, n)) spreads its heads, not its one batch.
  std::vector<std::vector<const ir::For*>> level(1, nests);
  while (level.size() < levels) {
    std::vector<const ir::For*> inner;
    for (const ir::For* nest : level.back()) inner.push_back(ir::cast<ir::For>(nest->body));
    level.push_back(std::move(inner));
  }
  size_t pool = 0;
  auto is_one = [](const ir::PrimExpr* e) {
    const auto* c = ir::dyn_cast<ir::IntImm>(e);
    return c && c->value == 1;
  };
  while (pool + 1 < levels && is_one(level[pool].front()->extent)) ++pool;
  // Buffers folded to one row get that row in each iteration of the pool's level: on the stack
  // when small (one slot per function), else from the runtime and freed at the iteration's end.
  // Inside a parallel loop each thread has its own.
  std::vector<const ir::Buffer*> rows;
  std::vector<const ir::Stmt*> statements;
  for (const ir::For* nest : nests) statements.push_back(nest->body);
  for (const ir::Buffer* b : ir::tir_references(statements).buffers)
    if (row_buffers_.count(b)) rows.push_back(b);
  auto bodies = [&] {
    heap_scopes_.emplace_back();
    for (const ir::Buffer* b : rows) allocate(b, nests.front()->span, levels);
    merged_bodies(level[pool], levels - pool);
    for (Value* p : heap_scopes_.back())
      builder_.CreateCall(runtime_function("raxc_workspace_free"), {p});
    heap_scopes_.pop_back();
    for (const ir::Buffer* b : rows) buffers_.erase(b);
  };
  // The levels above the pool's (extent 1 each), then the pool's, on the pool or not.
  std::function<void(size_t, bool)> down = [&](size_t l, bool parallel) {
    if (l == pool) return merged_loop(level[l], parallel, bodies);
    merged_loop(level[l], /*parallel=*/false, [&] { down(l + 1, parallel); });
  };
  bool plain = true;
  for (size_t l = 0; l <= pool; ++l)
    plain = plain && std::none_of(level[l].begin(), level[l].end(), [](const ir::For* n) {
              return n->for_kind != ir::ForKind::Serial && n->for_kind != ir::ForKind::Parallel;
            });
  emit_choice(
      plain ? parallel_choice(level[pool]) : ParallelChoice{}, [&] { down(0, true); },
      [&] { down(0, false); });
}

// The nests' bodies, `levels` - 1 of their loop levels merged (each body a nest, row_loops.h).
void TirEmitter::merged_bodies(const std::vector<const ir::For*>& nests, size_t levels) {
  if (levels <= 1) {
    for (const ir::For* nest : nests) stmt(nest->body);
    return;
  }
  std::vector<const ir::For*> inner;
  for (const ir::For* nest : nests) inner.push_back(ir::cast<ir::For>(nest->body));
  merged_loop(inner, /*parallel=*/false, [&] { merged_bodies(inner, levels - 1); });
}

// One loop over the nests' common range, every nest's loop variable bound to it.
void TirEmitter::merged_loop(const std::vector<const ir::For*>& nests, bool parallel,
                             const std::function<void()>& emit_body) {
  const ir::PrimVar* var = nests.front()->loop_var;
  llvm::Type* vt = value_type(var->dtype);
  Value* begin = expr(nests.front()->min);
  Value* extent = expr(nests.front()->extent);
  if (!vt || !begin || !extent) return;
  begin = builder_.CreateIntCast(begin, vt, nests.front()->min->dtype.is_int());
  Value* end = builder_.CreateAdd(
      begin, builder_.CreateIntCast(extent, vt, nests.front()->extent->dtype.is_int()));
  auto body = [&] {
    for (const ir::For* nest : nests) {
      vars_[nest->loop_var] = vars_[var];
      varying_.back().insert(nest->loop_var);
    }
    emit_body();
  };
  if (parallel) {
    std::vector<const ir::Stmt*> statements;
    for (const ir::For* nest : nests) statements.push_back(nest->body);
    parallel_loop(var, begin, end, statements, body);
  } else {
    serial_loop(var, begin, end, llvm::ConstantInt::get(vt, 1), body);
  }
}

void TirEmitter::serial_loop(const ir::PrimVar* var, Value* begin, Value* end, Value* step,
                             const std::function<void()>& emit_body) {
  ir::DataType t = var->dtype;
  llvm::Type* vt = value_type(t);
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  llvm::BasicBlock* header = new_block("for.header");
  llvm::BasicBlock* body = new_block("for.body");
  llvm::BasicBlock* latch = new_block("for.latch");
  llvm::BasicBlock* exit = new_block("for.exit");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* i = builder_.CreatePHI(vt, 2, var->name);
  i->addIncoming(begin, preheader);
  // range(a, b, step) with a negative step counts down (text-format: Python range semantics).
  Value* in_range = t.is_int() ? builder_.CreateICmpSLT(i, end) : builder_.CreateICmpULT(i, end);
  if (!llvm::isa<llvm::ConstantInt>(step)) {
    Value* down = builder_.CreateICmpSGT(i, end);
    in_range = builder_.CreateSelect(builder_.CreateICmpSLT(step, llvm::ConstantInt::get(vt, 0)),
                                     down, in_range);
  } else if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(step); c && c->isNegative()) {
    in_range = builder_.CreateICmpSGT(i, end);
  }
  builder_.CreateCondBr(in_range, body, exit);

  builder_.SetInsertPoint(body);
  vars_[var] = i;
  loops_.push_back({latch, exit});
  varying_.push_back({var});
  ++loop_depth_;
  emit_body();
  --loop_depth_;
  varying_.pop_back();
  loops_.pop_back();
  builder_.CreateBr(latch);
  builder_.SetInsertPoint(latch);
  Value* next = builder_.CreateAdd(i, step);
  i->addIncoming(next, latch);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

// T.parallel: the loop becomes a function `i32 body(i64 begin, i64 end, ptr closure)` run by
// the runtime's thread pool over chunks of the range (raxc_parallel_for). Everything the body
// uses from the enclosing function — variables and buffer views — travels in the closure, one
// 8-byte slot per value, stored here and loaded at the top of the body function.
void TirEmitter::parallel_loop(const ir::PrimVar* var, Value* begin, Value* end,
                               const std::vector<const ir::Stmt*>& bodies,
                               const std::function<void()>& emit_body) {
  std::vector<Value*> captured;
  std::unordered_map<Value*, size_t> slot_of;
  auto capture = [&](Value* v) {
    if (v && !llvm::isa<llvm::Constant>(v) && slot_of.emplace(v, captured.size()).second)
      captured.push_back(v);
  };
  // Only what the body refers to travels: a value bound in a scope that has ended, such as an
  // earlier loop's variable, must not, as it does not dominate the loop.
  ir::TirReferences used = ir::tir_references(bodies);
  for (auto& [var, v] : vars_)
    if (used.vars.count(var)) capture(v);
  for (auto& [buffer, view] : buffers_) {
    if (!used.buffers.count(buffer)) continue;
    capture(view.data);
    capture(view.elem_offset);
    for (Value* v : view.strides) capture(v);
    for (Value* v : view.extents) capture(v);
  }
  llvm::Type* i64t = builder_.getInt64Ty();
  llvm::Value* closure = entry_alloca(
      i64t, i64(static_cast<int64_t>(std::max<size_t>(captured.size(), 1))), "closure", 8);
  for (size_t k = 0; k < captured.size(); ++k)
    builder_.CreateStore(captured[k], builder_.CreateConstGEP1_64(i64t, closure, k));

  // Emit the body function with the emitter switched over to it.
  auto* body_type =
      llvm::FunctionType::get(builder_.getInt32Ty(), {i64t, i64t, builder_.getPtrTy()}, false);
  auto* body_fn = llvm::Function::Create(body_type, llvm::GlobalValue::InternalLinkage,
                                         function_->getName() + ".parallel", module_);
  set_kernel_attributes(body_fn);
  llvm::Function* saved_function = function_;
  llvm::BasicBlock* saved_entry = entry_;
  llvm::BasicBlock* saved_block = builder_.GetInsertBlock();
  Value* saved_ret = ret_;
  auto saved_vars = vars_;
  auto saved_buffers = buffers_;
  auto saved_loops = std::move(loops_);
  auto saved_heap = std::move(heap_scopes_);
  loops_.clear();  // break/continue cannot leave a parallel body
  heap_scopes_.assign(1, {});
  ret_ = nullptr;
  function_ = body_fn;
  entry_ = new_block("entry");
  llvm::BasicBlock* start = new_block("start");
  builder_.SetInsertPoint(start);
  auto arg = body_fn->arg_begin();
  Value* chunk_begin = &*arg++;
  Value* chunk_end = &*arg++;
  Value* closure_arg = &*arg;
  std::unordered_map<Value*, Value*> inside;
  for (size_t k = 0; k < captured.size(); ++k)
    inside[captured[k]] = builder_.CreateLoad(captured[k]->getType(),
                                              builder_.CreateConstGEP1_64(i64t, closure_arg, k));
  auto remap = [&](Value*& v) {
    auto it = inside.find(v);
    if (it != inside.end()) v = it->second;
  };
  // What the body does not use is not available inside it.
  std::erase_if(vars_, [&](auto& entry) { return !used.vars.count(entry.first); });
  std::erase_if(buffers_, [&](auto& entry) { return !used.buffers.count(entry.first); });
  for (auto& [var, v] : vars_) remap(v);
  for (auto& [buffer, view] : buffers_) {
    remap(view.data);
    remap(view.elem_offset);
    for (Value*& v : view.strides) remap(v);
    for (Value*& v : view.extents) remap(v);
  }
  llvm::Type* vt = value_type(var->dtype);
  serial_loop(var, builder_.CreateIntCast(chunk_begin, vt, true),
              builder_.CreateIntCast(chunk_end, vt, true), llvm::ConstantInt::get(vt, 1),
              emit_body);
  builder_.CreateRet(builder_.getInt32(0));
  builder_.SetInsertPoint(entry_);
  builder_.CreateBr(start);

  function_ = saved_function;
  entry_ = saved_entry;
  ret_ = saved_ret;
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  loops_ = std::move(saved_loops);
  heap_scopes_ = std::move(saved_heap);
  builder_.SetInsertPoint(saved_block);

  Value* status = builder_.CreateCall(runtime_function("raxc_parallel_for"),
                                      {builder_.CreateIntCast(begin, i64t, true),
                                       builder_.CreateIntCast(end, i64t, true), body_fn, closure});
  fail_if(builder_.CreateICmpNE(status, builder_.getInt32(0)), nullptr);
}

void TirEmitter::while_loop(const ir::While* loop) {
  llvm::BasicBlock* header = new_block("while.header");
  llvm::BasicBlock* body = new_block("while.body");
  llvm::BasicBlock* exit = new_block("while.exit");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  Value* c = expr(loop->condition);
  if (!c) return;
  builder_.CreateCondBr(c, body, exit);
  builder_.SetInsertPoint(body);
  loops_.push_back({header, exit});
  stmt(loop->body);
  loops_.pop_back();
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void TirEmitter::if_then_else(const ir::IfThenElse* s) {
  Value* c = expr(s->condition);
  if (!c) return;
  llvm::BasicBlock* then_bb = new_block("if.then");
  llvm::BasicBlock* else_bb = s->else_case ? new_block("if.else") : nullptr;
  llvm::BasicBlock* join = new_block("if.end");
  builder_.CreateCondBr(c, then_bb, else_bb ? else_bb : join);
  builder_.SetInsertPoint(then_bb);
  stmt(s->then_case);
  builder_.CreateBr(join);
  if (else_bb) {
    builder_.SetInsertPoint(else_bb);
    stmt(s->else_case);
    builder_.CreateBr(join);
  }
  builder_.SetInsertPoint(join);
}

void TirEmitter::block(const ir::Block* b) {
  heap_scopes_.emplace_back();
  for (const ir::IterVar& iv : b->iter_vars) {
    if (!iv.binding) {
      // The root block and blocks written without bindings iterate nothing: their variables
      // take the start of their domain.
      vars_[iv.var] = iv.dom.min ? expr(iv.dom.min) : nullptr;
      if (!vars_[iv.var]) vars_[iv.var] = llvm::ConstantInt::get(value_type(iv.var->dtype), 0);
      continue;
    }
    Value* v = expr(iv.binding);
    if (!v) continue;
    vars_[iv.var] = cast(v, iv.binding->dtype, iv.var->dtype);
    if (varies(iv.binding)) varying_.back().insert(iv.var);
  }
  llvm::BasicBlock* skip = nullptr;
  if (b->predicate) {
    Value* p = expr(b->predicate);
    if (p) {
      llvm::BasicBlock* run = new_block("where.run");
      skip = new_block("where.skip");
      builder_.CreateCondBr(p, run, skip);
      builder_.SetInsertPoint(run);
    }
  }
  const auto* seq = ir::dyn_cast<ir::SeqStmt>(b->body);
  std::unordered_set<const ir::Buffer*> folded =
      seq ? row_foldable(seq->stmts, b->alloc_buffers) : std::unordered_set<const ir::Buffer*>{};
  for (const ir::Buffer* buffer : b->alloc_buffers)
    if (folded.count(buffer))
      row_buffers_.insert(buffer);  // allocated by its row loop
    else
      allocate(buffer, b->span);
  for (const ir::MatchBufferRegion& m : b->match_buffers) match_buffer_region(m, b->span);
  if (b->init && !hoisted_inits_.count(b)) {
    // T.init(): on the first iteration of every reduction axis (TVM's definition); a block
    // without reduction axes runs it every time.
    Value* first = builder_.getTrue();
    for (const ir::IterVar& iv : b->iter_vars) {
      if (iv.iter_type != ir::IterType::Reduce) continue;
      Value* v = vars_[iv.var];
      Value* start = iv.dom.min ? expr(iv.dom.min) : nullptr;
      if (!v || !start) continue;
      start = cast(start, iv.dom.min->dtype, iv.var->dtype);
      first = builder_.CreateAnd(first, builder_.CreateICmpEQ(v, start));
    }
    llvm::BasicBlock* init = new_block("block.init");
    llvm::BasicBlock* body = new_block("block.body");
    builder_.CreateCondBr(first, init, body);
    builder_.SetInsertPoint(init);
    stmt(b->init);
    builder_.CreateBr(body);
    builder_.SetInsertPoint(body);
  }
  stmt(b->body);
  for (Value* p : heap_scopes_.back())
    builder_.CreateCall(runtime_function("raxc_workspace_free"), {p});
  heap_scopes_.pop_back();
  if (skip) {
    builder_.CreateBr(skip);
    builder_.SetInsertPoint(skip);
  }
}

// `B[i] = B[i] + e` (or `e + B[i]`, `*`): a reduction's update. Its float add or multiply may
// be reassociated, so that LLVM keeps several partial sums in vector lanes instead of one
// serial chain (reductions run 8-16× faster; the sum's rounding then differs from the serial
// order by as much as numpy's pairwise summation does). Nothing else in the kernel is.
static bool is_accumulation(const ir::BufferStore* s) {
  const auto* update = ir::dyn_cast<ir::PrimBinary>(s->value);
  if (!update || !update->dtype.is_float() ||
      (update->kind != ir::PrimKind::Add && update->kind != ir::PrimKind::Mul))
    return false;
  auto is_target = [&](const ir::PrimExpr* e) {
    const auto* load = ir::dyn_cast<ir::BufferLoad>(e);
    if (!load || load->buffer != s->buffer || load->indices.size() != s->indices.size())
      return false;
    for (size_t i = 0; i < s->indices.size(); ++i)
      if (!ir::structural_equal(load->indices[i], s->indices[i])) return false;
    return true;
  };
  return is_target(update->a) || is_target(update->b);
}

void TirEmitter::store(const ir::BufferStore* s) {
  Value* v = expr(s->value);
  if (auto* update = llvm::dyn_cast_or_null<llvm::Instruction>(v);
      update && llvm::isa<llvm::FPMathOperator>(update) && is_accumulation(s))
    update->setHasAllowReassoc(true);
  Value* address = element_address(s->buffer, s->indices, s->span);
  llvm::Type* t = storage_type(s->buffer->dtype);
  if (!v || !address) return;
  if (!t) {
    unsupported(s->span, "a buffer of dtype '" + s->buffer->dtype.str() + "'");
    return;
  }
  v = cast(v, s->value->dtype, s->buffer->dtype);
  if (!v) {
    unsupported(s->span, "storing '" + s->value->dtype.str() + "' into a '" +
                             s->buffer->dtype.str() + "' buffer");
    return;
  }
  if (s->buffer->dtype.is_bool()) v = builder_.CreateZExt(v, builder_.getInt8Ty());
  alias_scopes_.annotate(builder_.CreateStore(v, address), s->buffer);
}

void TirEmitter::allocate(const ir::Buffer* buffer, Span at, size_t folded_axes) {
  llvm::Type* t = storage_type(buffer->dtype);
  if (!t) {
    unsupported(at, "a buffer of dtype '" + buffer->dtype.str() + "'");
    return;
  }
  BufferView view;
  view.elem_offset = i64(0);
  // Compact row-major strides from the shape; extents from the shape. The element count and
  // byte size are computed with overflow checks: a size that does not fit 64 bits (or a
  // negative extent) is RX5008, never a small allocation that later accesses overrun.
  std::vector<Value*> extents;
  for (const ir::PrimExpr* d : buffer->shape) {
    Value* e = as_i64(d);
    if (!e) return;
    extents.push_back(e);
  }
  // A folded buffer stores one row: its leading axes have one element of storage and stride 0.
  std::vector<Value*> stored = extents;
  folded_axes = std::min(folded_axes, stored.size());
  for (size_t k = 0; k < folded_axes; ++k) stored[k] = i64(1);
  int64_t elem_bytes = buffer->dtype.is_bool() ? 1 : (buffer->dtype.bits + 7) / 8;
  std::optional<int64_t> constant_bytes = elem_bytes;
  for (Value* e : stored) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(e);
    int64_t product = 0;
    if (!constant_bytes || !c || c->isNegative() ||
        __builtin_mul_overflow(*constant_bytes, c->getSExtValue(), &product))
      constant_bytes.reset();
    else
      constant_bytes = product;
  }
  Value* count = i64(1);
  Value* overflow = builder_.getFalse();
  auto checked_mul = [&](Value* a, Value* b) {
    Value* r = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, a, b);
    overflow = builder_.CreateOr(overflow, builder_.CreateExtractValue(r, 1));
    overflow = builder_.CreateOr(overflow, builder_.CreateICmpSLT(b, i64(0)));
    return builder_.CreateExtractValue(r, 0);
  };
  view.strides.assign(stored.size(), nullptr);
  for (size_t k = stored.size(); k-- > 0;) {
    view.strides[k] = count;
    count = checked_mul(count, stored[k]);
  }
  for (size_t k = 0; k < folded_axes; ++k) view.strides[k] = i64(0);
  view.extents = extents;
  if (constant_bytes && *constant_bytes <= kMaxStackBytes) {
    view.data = entry_alloca(t, i64(*constant_bytes / elem_bytes), buffer->name.c_str(), 64);
  } else {
    Value* bytes = checked_mul(count, i64(elem_bytes));
    // An overflowing size asks for the largest one, which fails with RX5008.
    bytes = builder_.CreateSelect(overflow, i64(std::numeric_limits<int64_t>::max()), bytes);
    Value* p = builder_.CreateCall(runtime_function("raxc_workspace_alloc"),
                                   {bytes, error_site(DiagId::RX5008, at, {buffer->name}, 1)});
    fail_if(builder_.CreateIsNull(p), nullptr);
    heap_scopes_.back().push_back(p);
    view.data = p;
  }
  buffers_[buffer] = std::move(view);
}

// A block's T.match_buffer(A[i:i+4, :], ...): a view of the source region with the source's
// strides; the region's start moves the element offset.
void TirEmitter::match_buffer_region(const ir::MatchBufferRegion& m, Span at) {
  auto it = buffers_.find(m.source.buffer);
  if (it == buffers_.end()) {
    unsupported(at, "a match_buffer of an unbound buffer");
    return;
  }
  const BufferView& src = it->second;
  BufferView view;
  view.data = src.data;
  view.elem_offset = src.elem_offset;
  for (size_t k = 0; k < m.source.region.size() && k < src.strides.size(); ++k) {
    Value* start = as_i64(m.source.region[k].min);
    if (!start) return;
    view.elem_offset =
        builder_.CreateAdd(view.elem_offset, builder_.CreateMul(start, src.strides[k]));
  }
  // The view's axes are the region's axes, less those of extent 1 when the view has fewer
  // axes than the source (A[0:3, j] viewed as a (3,) buffer walks axis 0 with its stride).
  size_t rank = m.buffer->shape.size();
  std::vector<size_t> axes;
  if (rank == m.source.region.size()) {
    for (size_t k = 0; k < rank; ++k) axes.push_back(k);
  } else {
    for (size_t k = 0; k < m.source.region.size(); ++k) {
      const auto* extent = ir::dyn_cast<ir::IntImm>(m.source.region[k].extent);
      if (!extent || extent->value != 1) axes.push_back(k);
    }
  }
  if (axes.size() != rank || m.source.region.size() > src.strides.size()) {
    unsupported(at, "a match_buffer whose shape does not follow its region's axes");
    return;
  }
  for (size_t k : axes) view.strides.push_back(src.strides[k]);
  for (const ir::PrimExpr* d : m.buffer->shape) {
    Value* e = as_i64(d);
    if (!e) return;
    view.extents.push_back(e);
  }
  buffers_[m.buffer] = std::move(view);
}

Value* TirEmitter::element_address(const ir::Buffer* buffer,
                                   const std::vector<const ir::PrimExpr*>& indices, Span at) {
  auto it = buffers_.find(buffer);
  if (it == buffers_.end()) {
    unsupported(at, "buffer '" + buffer->name + "' used where it is not allocated or bound");
    return nullptr;
  }
  const BufferView& view = it->second;
  llvm::Type* t = storage_type(buffer->dtype);
  if (!t) return nullptr;
  if (indices.size() != view.strides.size()) {
    // A flat access to a multi-dimensional buffer (TVM's flattened form) indexes the elements.
    if (indices.size() != 1) {
      unsupported(at, "an access to '" + buffer->name + "' with " + std::to_string(indices.size()) +
                          " indices");
      return nullptr;
    }
  }
  Value* offset = view.elem_offset;
  for (size_t k = 0; k < indices.size(); ++k) {
    Value* index = as_i64(indices[k]);
    if (!index) return nullptr;
    bool flat = indices.size() != view.strides.size();
    if (options_.check_bounds) {
      Value* extent = flat ? nullptr : view.extents[k];
      if (flat) {
        extent = i64(1);
        for (Value* e : view.extents) extent = builder_.CreateMul(extent, e);
      }
      Value* bad = builder_.CreateICmpUGE(index, extent);  // unsigned: also catches negatives
      fail_if(bad, error_site(DiagId::RX5011, at, {buffer->name, std::to_string(k)}, 2),
              {index, extent});
    }
    offset = builder_.CreateAdd(offset, flat ? index : builder_.CreateMul(index, view.strides[k]));
  }
  return builder_.CreateGEP(t, view.data, offset);
}

}  // namespace raxc::backend
