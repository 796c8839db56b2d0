// What the fusion passes share (fuse.cpp, epilogue.cpp): the recognition of a kernel that is one
// loop nest writing each element of its one output once (a "stage", whose formula can be
// inlined or classified), the form of an R.call_tir they rewrite, and use counts.
#pragma once
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/ir/module.h"
#include "frontend/ir/visitor.h"

namespace raxc::backend::fusion {

// A kernel that is one loop nest writing each element of its one output once.
struct Stage {
  const ir::PrimFunc* func = nullptr;
  const ir::Block* root = nullptr;
  std::vector<const ir::For*> loops;  // outermost first
  const ir::Block* block = nullptr;
  const ir::BufferStore* store = nullptr;
  std::vector<const ir::Buffer*> inputs;  // the call's arguments, in order
  // Every parameter in order (the inputs, then the output): as written, and its buffer.
  std::vector<std::pair<ir::PrimFuncParam, const ir::Buffer*>> params;
};

// The buffer of a parameter: declared in place (T.Buffer) or by T.match_buffer of its handle.
const ir::Buffer* buffer_of(const ir::PrimFunc& f, const ir::PrimFuncParam& p);

// f as a stage: spatial loops from 0 over its output's shape, the block variables bound to
// them, one store at exactly those variables of a formula that loads inputs only and calls
// nothing with effects; nullopt otherwise.
std::optional<Stage> single_stage(const ir::PrimFunc& f);

// `R.call_tir(gv, (args...), out_sinfo=R.Tensor(...))` without tir_vars; null otherwise.
const ir::Call* as_call_tir(const ir::Expr* e);

// The kernel that `call` (an as_call_tir) calls, as a stage; nullopt when it is not one.
std::optional<Stage> stage_of(const ir::IRModule& module, const ir::Call& call);

// Whether a binding outside a dataflow block can change no tensor that exists before it: a
// kernel call or a destination-passing packed call (each writes the outputs it allocates), a
// constant. Outside dataflow blocks the passes move work past such bindings only (an in-place
// call or a packed function could change the tensors the moved work reads).
bool writes_fresh_only(const ir::Binding& b);
// A copy of `block` holding `bindings` (its rewritten bindings, one per original place) except
// those `dropped`: how each pass ends its rewrite of a block.
const ir::BindingBlock* kept_bindings(ir::Arena& arena, const ir::BindingBlock& block,
                                      const std::vector<const ir::Binding*>& bindings,
                                      const std::vector<bool>& dropped);

// Whether every binding of `block` strictly between `from` and `to` writes fresh tensors only.
bool only_fresh_between(const ir::BindingBlock& block, size_t from, size_t to);

class UseCounts;

// The kernel call bound to `operand` before binding `at`, for that binding alone: used once,
// not `taken` by another rewrite, and its work free to move to `at` (in a dataflow block, or with
// only bindings that write fresh tensors between).
struct SoleProducer {
  size_t binding = 0;
  const ir::Call* call = nullptr;
  Stage stage;
};
std::optional<SoleProducer> sole_producer(const ir::IRModule& module, const ir::BindingBlock& block,
                                          size_t at, const ir::Expr* operand, const UseCounts& uses,
                                          const std::vector<bool>& taken);

// How often each variable is used in a function (its definitions aside).
class UseCounts : public ir::Visitor {
 public:
  explicit UseCounts(const ir::Function* f) { visit(f); }
  size_t of(const ir::Var* v) const {
    auto it = counts_.find(v);
    return it == counts_.end() ? 0 : it->second;
  }

 private:
  void on_expr(const ir::Expr* e) override {
    if (const auto* v = ir::dyn_cast<ir::Var>(e)) ++counts_[v];
  }
  std::unordered_map<const ir::Var*, size_t> counts_;
};

// Replaces each Relax function of `module` by `rewrite(f)` where that is a new function (its
// nodes in the module's arena): the walk over the globals both fusion passes share.
template <class Rewrite>
void rewrite_functions(ir::IRModule& module, Rewrite&& rewrite) {
  for (ir::GlobalDef& g : module.globals)
    if (const ir::Function* f = g.function()) {
      const ir::Function* fused = rewrite(f);
      if (fused != f) {
        g.value = fused;
        g.arena = module.arena;
      }
    }
}

// `f` with each of its binding blocks replaced by `rewrite(block, uses)` (new nodes in
// `arena`), or `f` itself when no block changed: the walk both fusion passes share.
template <class RewriteBlock>
const ir::Function* rewrite_blocks(const ir::Function* f, ir::Arena& arena,
                                   RewriteBlock&& rewrite) {
  UseCounts uses(f);
  std::vector<const ir::BindingBlock*> blocks;
  bool changed = false;
  for (const ir::BindingBlock* block : f->body->blocks) {
    const ir::BindingBlock* b = rewrite(block, uses);
    changed |= b != block;
    blocks.push_back(b);
  }
  if (!changed) return f;
  auto* copy = arena.make<ir::Function>(*f);
  copy->body = arena.make<ir::SeqExpr>(std::move(blocks), f->body->body, f->body->span);
  return copy;
}

}  // namespace raxc::backend::fusion
