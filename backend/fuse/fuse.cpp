// Element-wise fusion (fuse.h): find the single-stage kernels, walk each dataflow block once
// folding a producer call into the call that consumes it, and build the fused PrimFunc by
// substituting the producer's formula into the consumer's loads.
#include "backend/fuse/fuse.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "backend/fuse/stage.h"
#include "frontend/ir/equal.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"

namespace raxc::backend {

// The shared pieces (stage.h).
namespace fusion {

// The buffer of a parameter: declared in place (T.Buffer) or by T.match_buffer of its handle.
const ir::Buffer* buffer_of(const ir::PrimFunc& f, const ir::PrimFuncParam& p) {
  if (p.buffer) return p.buffer;
  for (const auto& [handle, buffer] : f.buffer_map)
    if (handle == p.var) return buffer;
  return nullptr;
}

namespace {
bool is_var(const ir::PrimExpr* e, const ir::PrimVar* v) { return e == v; }
}  // namespace

std::optional<Stage> single_stage(const ir::PrimFunc& f) {
  Stage s;
  s.func = &f;
  if (f.params.size() != f.buffer_map.size() || f.params.size() < 2) return std::nullopt;
  for (const ir::PrimFuncParam& p : f.params) {
    const ir::Buffer* b = buffer_of(f, p);
    if (!b) return std::nullopt;
    s.params.push_back({p, b});
  }
  for (size_t i = 0; i + 1 < s.params.size(); ++i) s.inputs.push_back(s.params[i].second);
  const ir::Buffer* output = s.params.back().second;
  s.root = ir::dyn_cast<ir::Block>(f.body);
  if (!s.root || !s.root->is_root || !s.root->alloc_buffers.empty() ||
      !s.root->match_buffers.empty() || s.root->init)
    return std::nullopt;
  const ir::Stmt* at = s.root->body;
  while (const auto* loop = at ? ir::dyn_cast<ir::For>(at) : nullptr) {
    const auto* min = ir::dyn_cast<ir::IntImm>(loop->min);
    if (!min || min->value != 0 || loop->step || loop->for_kind != ir::ForKind::Serial)
      return std::nullopt;
    s.loops.push_back(loop);
    at = loop->body;
  }
  s.block = at ? ir::dyn_cast<ir::Block>(at) : nullptr;
  if (!s.block || s.block->init || s.block->predicate || !s.block->alloc_buffers.empty() ||
      !s.block->match_buffers.empty() || s.block->iter_vars.size() != s.loops.size())
    return std::nullopt;
  s.store = ir::dyn_cast<ir::BufferStore>(s.block->body);
  if (!s.store || s.store->buffer != output || s.store->indices.size() != s.loops.size() ||
      output->shape.size() != s.loops.size() || !output->strides.empty() || output->elem_offset)
    return std::nullopt;
  for (size_t d = 0; d < s.loops.size(); ++d) {
    const ir::IterVar& iv = s.block->iter_vars[d];
    if (iv.iter_type != ir::IterType::DataPar || !is_var(iv.binding, s.loops[d]->loop_var) ||
        !is_var(s.store->indices[d], iv.var) ||
        !ir::structural_equal(s.loops[d]->extent, output->shape[d]))
      return std::nullopt;
  }
  // The formula reads inputs only, through plain loads, and calls nothing with effects.
  bool pure = true;
  ir::for_each_prim_expr(s.store->value, [&](const ir::PrimExpr* e) {
    if (const auto* load = ir::dyn_cast<ir::BufferLoad>(e))
      pure &= load->buffer != output && !load->buffer->elem_offset;
    if (const auto* call = ir::dyn_cast<ir::PrimCall>(e)) pure &= !ir::has_effects(*call);
  });
  if (!pure) return std::nullopt;
  return s;
}

// `R.call_tir(gv, (args...), out_sinfo=R.Tensor(...))` without tir_vars.
const ir::Call* as_call_tir(const ir::Expr* e) {
  const auto* call = e ? ir::dyn_cast<ir::Call>(e) : nullptr;
  const auto* op = call ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
  if (!op || op->name != "relax.call_tir" || call->args.size() != 2 ||
      !ir::isa<ir::GlobalVar>(call->args[0]) || !ir::isa<ir::Tuple>(call->args[1]) ||
      call->sinfo_args.size() != 1 || !ir::isa<ir::TensorSInfo>(call->sinfo_args[0]))
    return nullptr;
  return call;
}

bool writes_fresh_only(const ir::Binding& b) {
  if (b.is_match_cast()) return false;
  if (as_call_tir(b.value) || ir::isa<ir::Constant>(b.value)) return true;
  const auto* call = ir::dyn_cast<ir::Call>(b.value);
  const auto* op = call ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
  return op && op->name == "relax.call_dps_packed";
}

const ir::BindingBlock* kept_bindings(ir::Arena& arena, const ir::BindingBlock& block,
                                      const std::vector<const ir::Binding*>& bindings,
                                      const std::vector<bool>& dropped) {
  auto* copy = arena.make<ir::BindingBlock>(block);
  copy->bindings.clear();
  for (size_t i = 0; i < bindings.size(); ++i)
    if (!dropped[i]) copy->bindings.push_back(bindings[i]);
  return copy;
}

std::optional<Stage> stage_of(const ir::IRModule& module, const ir::Call& call) {
  const ir::GlobalDef* g = module.find(ir::cast<ir::GlobalVar>(call.args[0])->name);
  return g && g->prim_func() ? single_stage(*g->prim_func()) : std::nullopt;
}

std::optional<SoleProducer> sole_producer(const ir::IRModule& module, const ir::BindingBlock& block,
                                          size_t at, const ir::Expr* operand, const UseCounts& uses,
                                          const std::vector<bool>& taken) {
  const auto* v = ir::dyn_cast<ir::Var>(operand);
  if (!v || uses.of(v) != 1) return std::nullopt;
  size_t def = 0;
  while (def < at && block.bindings[def]->var != v) ++def;
  if (def == at || taken[def] || block.bindings[def]->is_match_cast()) return std::nullopt;
  const ir::Call* call = as_call_tir(block.bindings[def]->value);
  if (!call || (!block.is_dataflow && !only_fresh_between(block, def, at))) return std::nullopt;
  std::optional<Stage> stage = stage_of(module, *call);
  if (!stage) return std::nullopt;
  return SoleProducer{def, call, std::move(*stage)};
}

bool only_fresh_between(const ir::BindingBlock& block, size_t from, size_t to) {
  for (size_t i = from + 1; i < to; ++i)
    if (!writes_fresh_only(*block.bindings[i])) return false;
  return true;
}

}  // namespace fusion

namespace {

using fusion::as_call_tir;
using fusion::single_stage;
using fusion::Stage;
using fusion::UseCounts;

using Exprs = std::vector<const ir::PrimExpr*>;

// Rebuilds a PrimExpr with variables and loads replaced (null from a callback: keep).
class Substitute {
 public:
  std::function<const ir::PrimExpr*(const ir::PrimVar*)> var;
  std::function<const ir::PrimExpr*(const ir::BufferLoad*, const Exprs&)> load;

  explicit Substitute(ir::Arena& arena) : arena_(arena) {}

  const ir::PrimExpr* operator()(const ir::PrimExpr* e) {
    using K = ir::PrimKind;
    if (!e) return e;
    if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
      const ir::PrimExpr* r = var ? var(v) : nullptr;
      return r ? r : e;
    }
    if (const auto* b = ir::dyn_cast<ir::PrimBinary>(e)) {
      const ir::PrimExpr *a = (*this)(b->a), *c = (*this)(b->b);
      return a == b->a && c == b->b ? e : make<ir::PrimBinary>(e->kind, e->dtype, a, c, e->span);
    }
    switch (e->kind) {
      case K::Not: {
        const auto* n = static_cast<const ir::PrimNot*>(e);
        const ir::PrimExpr* a = (*this)(n->a);
        return a == n->a ? e : make<ir::PrimNot>(a, e->span);
      }
      case K::Select: {
        const auto* s = ir::cast<ir::PrimSelect>(e);
        return make<ir::PrimSelect>(e->dtype, (*this)(s->condition), (*this)(s->true_value),
                                    (*this)(s->false_value), e->span);
      }
      case K::Cast:
        return make<ir::PrimCast>(e->dtype, (*this)(ir::cast<ir::PrimCast>(e)->value), e->span);
      case K::BufferLoad: {
        const auto* l = ir::cast<ir::BufferLoad>(e);
        Exprs indices;
        for (const ir::PrimExpr* i : l->indices) indices.push_back((*this)(i));
        if (const ir::PrimExpr* r = load ? load(l, indices) : nullptr) return r;
        return make<ir::BufferLoad>(e->dtype, l->buffer, std::move(indices), e->span);
      }
      case K::Call: {
        const auto* c = ir::cast<ir::PrimCall>(e);
        Exprs args;
        for (const ir::PrimExpr* a : c->args) args.push_back((*this)(a));
        return make<ir::PrimCall>(e->dtype, c->op, std::move(args), e->span);
      }
      case K::Let: {
        const auto* l = ir::cast<ir::PrimLet>(e);
        return make<ir::PrimLet>(l->var, (*this)(l->value), (*this)(l->body), e->span);
      }
      default: return e;  // literals
    }
  }

 private:
  template <class T, class... Args>
  T* make(Args&&... args) {
    return arena_.make<T>(std::forward<Args>(args)...);
  }
  ir::Arena& arena_;
};

size_t loads_of(const ir::PrimExpr* e, const ir::Buffer* buffer) {
  size_t n = 0;
  ir::for_each_prim_expr(e, [&](const ir::PrimExpr* x) {
    if (const auto* load = ir::dyn_cast<ir::BufferLoad>(x)) n += load->buffer == buffer;
  });
  return n;
}

// The kernel computing `consumer` with its input `k` replaced by `producer`'s formula; its
// parameters are the consumer's inputs with `k` replaced by the producer's inputs (copies of
// their buffers with their own shape variables, bound from the tensors passed), then the output.
const ir::PrimFunc* fuse(const Stage& producer, const Stage& consumer, size_t k, ir::Arena& arena) {
  const ir::Buffer* replaced = consumer.inputs[k];
  size_t sites = loads_of(consumer.store->value, replaced);
  if (sites == 0 || sites > 2) return nullptr;
  // Fresh buffers (and shape variables) for the producer's inputs.
  std::unordered_map<const ir::PrimVar*, const ir::PrimVar*> fresh_var;
  Substitute rename(arena);
  rename.var = [&](const ir::PrimVar* v) -> const ir::PrimExpr* {
    auto [it, added] = fresh_var.emplace(v, nullptr);
    if (added) it->second = arena.make<ir::PrimVar>(v->name, v->dtype, v->span, v->is_size_var);
    return it->second;
  };
  std::unordered_map<const ir::Buffer*, const ir::Buffer*> fresh_buffer;
  for (const ir::Buffer* b : producer.inputs) {
    if (fresh_buffer.count(b)) continue;
    auto* copy = arena.make<ir::Buffer>(*b);
    for (const ir::PrimExpr*& d : copy->shape) d = rename(d);
    for (const ir::PrimExpr*& d : copy->strides) d = rename(d);
    fresh_buffer[b] = copy;
  }
  // The producer's formula may use its block variables and its buffers' shape variables only.
  std::unordered_map<const ir::PrimVar*, size_t> axis_of;
  for (size_t d = 0; d < producer.block->iter_vars.size(); ++d)
    axis_of[producer.block->iter_vars[d].var] = d;
  for (const ir::PrimVar* v : ir::prim_vars(producer.store->value))
    if (!axis_of.count(v) && !fresh_var.count(v)) return nullptr;

  Substitute inline_producer(arena);
  inline_producer.load = [&](const ir::BufferLoad* l, const Exprs& at) -> const ir::PrimExpr* {
    if (l->buffer != replaced) return nullptr;
    Substitute formula(arena);
    formula.var = [&](const ir::PrimVar* v) -> const ir::PrimExpr* {
      if (auto it = axis_of.find(v); it != axis_of.end()) return at[it->second];
      auto it = fresh_var.find(v);
      return it == fresh_var.end() ? nullptr : it->second;
    };
    formula.load = [&](const ir::BufferLoad* inner, const Exprs& idx) -> const ir::PrimExpr* {
      return arena.make<ir::BufferLoad>(inner->dtype, fresh_buffer.at(inner->buffer), idx,
                                        inner->span);
    };
    const ir::PrimExpr* value = formula(producer.store->value);
    // The consumer reads the tensor in its own dtype (the producer stored it in that dtype).
    return value->dtype == l->dtype ? value : arena.make<ir::PrimCast>(l->dtype, value, l->span);
  };
  auto* store = arena.make<ir::BufferStore>(*consumer.store);
  store->value = inline_producer(consumer.store->value);
  auto* block = arena.make<ir::Block>(*consumer.block);
  block->body = store;
  const ir::Stmt* body = block;
  for (auto it = consumer.loops.rbegin(); it != consumer.loops.rend(); ++it) {
    auto* loop = arena.make<ir::For>(**it);
    loop->body = body;
    body = loop;
  }
  auto* root = arena.make<ir::Block>(*consumer.root);
  root->body = body;

  auto* f = arena.make<ir::PrimFunc>(*consumer.func);
  f->params.clear();
  f->buffer_map.clear();
  auto keep = [&](const std::pair<ir::PrimFuncParam, const ir::Buffer*>& p) {
    f->params.push_back(p.first);
    f->buffer_map.push_back({p.first.var, p.second});
  };
  for (size_t i = 0; i < consumer.inputs.size(); ++i) {
    if (i != k) {
      keep(consumer.params[i]);
      continue;
    }
    for (const ir::Buffer* b : producer.inputs) {
      const ir::Buffer* copy = fresh_buffer.at(b);
      const auto* handle = arena.make<ir::PrimVar>("var_" + copy->name, ir::DataType::Handle());
      f->params.push_back({handle, nullptr, {}});
      f->buffer_map.push_back({handle, copy});
    }
  }
  keep(consumer.params.back());
  // A new private kernel: the consumer's exported name, if it had one, stays the consumer's.
  f->is_private = true;
  std::erase_if(f->attrs.entries, [](const auto& entry) { return entry.first == "global_symbol"; });
  if (!f->attrs.find("tir.noalias"))
    f->attrs.entries.emplace_back("tir.noalias", ir::AttrValue(true));
  f->body = root;
  return f;
}

// The globals a module's Relax functions refer to.
std::set<std::string> called_names(const ir::IRModule& m) {
  std::set<std::string> names;
  for (const ir::GlobalDef& g : m.globals)
    if (g.function())
      for (std::string& n : ir::global_names_in(g.function())) names.insert(std::move(n));
  return names;
}

class Pass {
 public:
  explicit Pass(LoweredModule& lowered) : m_(lowered.module), arena_(*lowered.module.arena) {
    for (const ir::GlobalDef& g : m_.globals) taken_.insert(g.gvar->name);
    // Legalization appends the kernels it generates: those may go once unused (a kernel the
    // user wrote stays, it may be run on its own).
    for (size_t i = m_.globals.size() - std::min(lowered.generated, m_.globals.size());
         i < m_.globals.size(); ++i)
      generated_.insert(m_.globals[i].gvar->name);
  }

  FuseStats run() {
    fusion::rewrite_functions(m_, [&](const ir::Function* f) { return rewrite(f); });
    for (auto& [name, f] : made_)
      m_.globals.push_back({arena_.make<ir::GlobalVar>(name), f, m_.arena, {}});
    // Kernels only the folded calls used are not compiled.
    std::set<std::string> called_after = called_names(m_);
    std::erase_if(m_.globals, [&](const ir::GlobalDef& g) {
      return g.prim_func() && !called_after.count(g.gvar->name) &&
             (generated_.count(g.gvar->name) || made_.count(g.gvar->name));
    });
    return stats_;
  }

 private:
  const ir::Function* rewrite(const ir::Function* f) {
    return fusion::rewrite_blocks(f, arena_, [&](const ir::BindingBlock* b, const UseCounts& uses) {
      return rewrite(b, uses);
    });
  }

  const ir::BindingBlock* rewrite(const ir::BindingBlock* block, const UseCounts& uses) {
    std::vector<const ir::Binding*> out;
    std::vector<bool> dropped;
    std::unordered_map<const ir::Var*, size_t> producer_at;  // var -> index in `out`
    bool changed = false;
    for (const ir::Binding* binding : block->bindings) {
      const ir::Binding* current = binding;
      while (const ir::Binding* folded =
                 fold_one(current, block->is_dataflow, out, dropped, producer_at, uses)) {
        current = folded;
        changed = true;
      }
      out.push_back(current);
      dropped.push_back(false);
      if (!current->is_match_cast() && stage_of(as_call_tir(current->value)))
        producer_at[current->var] = out.size() - 1;
    }
    if (!changed) return block;
    return fusion::kept_bindings(arena_, *block, out, dropped);
  }

  // Folds one producer argument of `binding`'s call into it: the new binding, or null.
  const ir::Binding* fold_one(const ir::Binding* binding, bool dataflow,
                              std::vector<const ir::Binding*>& out, std::vector<bool>& dropped,
                              std::unordered_map<const ir::Var*, size_t>& producer_at,
                              const UseCounts& uses) {
    const ir::Call* call = as_call_tir(binding->value);
    const Stage* consumer = stage_of(call);
    if (!consumer) return nullptr;
    const auto* args = ir::cast<ir::Tuple>(call->args[1]);
    if (args->fields.size() != consumer->inputs.size()) return nullptr;
    for (size_t k = 0; k < args->fields.size(); ++k) {
      const auto* v = ir::dyn_cast<ir::Var>(args->fields[k]);
      auto at = v ? producer_at.find(v) : producer_at.end();
      if (at == producer_at.end() || dropped[at->second] || uses.of(v) != 1) continue;
      const ir::Call* producer_call = as_call_tir(out[at->second]->value);
      const Stage* producer = stage_of(producer_call);
      const auto* producer_args = ir::cast<ir::Tuple>(producer_call->args[1]);
      if (!producer || producer_args->fields.size() != producer->inputs.size()) continue;
      if (!dataflow && !only_kernels_after(out, dropped, at->second)) continue;
      const ir::PrimFunc* f = fuse(*producer, *consumer, k, arena_);
      if (!f) continue;
      std::string name = fused_name(*producer_call, *call);
      made_.emplace(name, f);
      std::vector<const ir::Expr*> fields(args->fields.begin(), args->fields.begin() + k);
      fields.insert(fields.end(), producer_args->fields.begin(), producer_args->fields.end());
      fields.insert(fields.end(), args->fields.begin() + k + 1, args->fields.end());
      auto* fused_call = arena_.make<ir::Call>(
          call->op,
          std::vector<const ir::Expr*>{arena_.make<ir::GlobalVar>(name, call->args[0]->span),
                                       arena_.make<ir::Tuple>(std::move(fields), args->span)},
          call->sinfo_args, call->attrs, call->span);
      auto* folded = arena_.make<ir::Binding>(*binding);
      folded->value = fused_call;
      dropped[at->second] = true;
      ++stats_.fused_calls;
      return folded;
    }
    return nullptr;
  }

  // Outside a dataflow block a binding between the producer and its consumer may change the
  // producer's inputs (an in-place call, a packed function): the producer's work, which moves to
  // the consumer, may only pass bindings that write fresh tensors (writes_fresh_only).
  static bool only_kernels_after(const std::vector<const ir::Binding*>& out,
                                 const std::vector<bool>& dropped, size_t producer) {
    for (size_t i = producer + 1; i < out.size(); ++i)
      if (!dropped[i] && !fusion::writes_fresh_only(*out[i])) return false;
    return true;
  }

  const Stage* stage_of(const ir::Call* call) {
    if (!call) return nullptr;
    const std::string& name = ir::cast<ir::GlobalVar>(call->args[0])->name;
    auto [it, added] = stages_.emplace(name, std::nullopt);
    if (added) {
      if (auto made = made_.find(name); made != made_.end())
        it->second = single_stage(*made->second);
      else if (const ir::GlobalDef* g = m_.find(name); g && g->prim_func())
        it->second = single_stage(*g->prim_func());
    }
    return it->second ? &*it->second : nullptr;
  }

  // TVM's naming: fused_ and the operators' kernels in order (fused_add_multiply_gelu).
  std::string fused_name(const ir::Call& producer, const ir::Call& consumer) {
    auto part = [](const ir::Call& c) {
      std::string n = ir::cast<ir::GlobalVar>(c.args[0])->name;
      return n.starts_with("fused_") ? n.substr(6) : n;
    };
    std::string base = "fused_" + part(producer) + "_" + part(consumer);
    std::string name = base;
    for (int n = 1; taken_.count(name); ++n) name = base + std::to_string(n);
    taken_.insert(name);
    return name;
  }

  ir::IRModule& m_;
  ir::Arena& arena_;
  std::map<std::string, std::optional<Stage>> stages_;
  std::set<std::string> taken_;
  std::set<std::string> generated_;                  // by legalization
  std::map<std::string, const ir::PrimFunc*> made_;  // the fused kernels, by name
  FuseStats stats_;
};

}  // namespace

FuseStats fuse_elementwise(LoweredModule& lowered) {
  // The globals the user wrote come first and stay in order (the passes append theirs).
  size_t written =
      lowered.module.globals.size() - std::min(lowered.generated, lowered.module.globals.size());
  size_t epilogues = fuse_epilogues(lowered);
  FuseStats stats = Pass(lowered).run();
  stats.epilogues = epilogues;
  stats.views = fold_operand_views(lowered);
  if (stats.views > 0) {  // the gathers the products now read in place are not compiled
    std::set<std::string> called = called_names(lowered.module);
    std::vector<ir::GlobalDef>& globals = lowered.module.globals;
    std::vector<ir::GlobalDef> kept(globals.begin(), globals.begin() + written);
    for (size_t i = written; i < globals.size(); ++i)
      if (!globals[i].prim_func() || called.count(globals[i].gvar->name))
        kept.push_back(globals[i]);
    globals = std::move(kept);
  }
  return stats;
}

}  // namespace raxc::backend
