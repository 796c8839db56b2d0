// Transposing copies (TirEmitter::transpose_copy): two innermost loops that copy
//
//   for i, j:  out[..., i, j] = in[..., j, i]      (out contiguous in j, in contiguous in i)
//
// as R.permute_dims legalizes whenever the last axis moves (the attention's key, (0, 2, 3, 1)).
// Emitted as written, each vector of 16 stores gathers 16 elements a row apart: permute_dims
// (0, 2, 3, 1) of an (8, 128, 12, 64) tensor took 0.70 ms on one thread against 0.17 ms for
// (0, 2, 1, 3), which moves the same bytes. Here the two loops go by tiles of 16 × 16: sixteen
// contiguous loads along i, a transpose in registers (four rounds of interleaving pairs of
// vectors: applied log2(16) times, the perfect shuffle is the transpose), sixteen contiguous
// stores along j. What the whole tiles leave over (a last partial row or column of tiles) runs
// as the loops are written. Rows of tiles take the thread pool as a row-local loop would
// (TirEmitter::parallel_choice).
//
// The match is conservative: the loops are plain serial loops, the inner one's range does not
// depend on the outer one, the body is one store of one load of another buffer known not to
// overlap it (BufferAliasScopes), of a 32-bit element type, through a block without init,
// predicate or buffers of its own; the store's last index is j plus terms without i or j, the
// load's last index i plus terms without i or j, no other index of the store uses j and no
// other index of the load uses i; and both buffers' last axis is contiguous.
#include <llvm/IR/Constants.h>

#include <optional>
#include <unordered_map>

#include "backend/codegen/row_loops.h"
#include "backend/codegen/tir_emitter.h"
#include "frontend/ir/walks.h"

namespace raxc::backend {

using llvm::Value;

namespace {

constexpr int kTile = 16;  // 16 × 32-bit elements: one 512-bit vector

using Bindings = std::unordered_map<const ir::PrimVar*, const ir::PrimExpr*>;

// Whether `e` reads `var`, directly or through a block variable bound to an expression of it.
bool uses(const ir::PrimExpr* e, const ir::PrimVar* var, const Bindings& bound) {
  for (const ir::PrimVar* v : ir::prim_vars(e)) {
    if (v == var) return true;
    auto it = bound.find(v);
    if (it != bound.end() && uses(it->second, var, bound)) return true;
  }
  return false;
}

// The coefficient of `var` in `e` when `e` is linear in it (sums, differences and products by
// constants of it and of terms without it), 0 when `e` does not use it; nullopt otherwise.
std::optional<int64_t> coefficient(const ir::PrimExpr* e, const ir::PrimVar* var,
                                   const Bindings& bound) {
  if (!uses(e, var, bound)) return 0;
  if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
    if (v == var) return 1;
    return coefficient(bound.at(v), var, bound);  // bound: uses() found var through it
  }
  if (const auto* c = ir::dyn_cast<ir::PrimCast>(e))
    return c->dtype.is_integer() && c->value->dtype.is_integer() ? coefficient(c->value, var, bound)
                                                                 : std::nullopt;
  const auto* b = ir::dyn_cast<ir::PrimBinary>(e);
  if (!b) return std::nullopt;
  auto ca = coefficient(b->a, var, bound), cb = coefficient(b->b, var, bound);
  if (!ca || !cb) return std::nullopt;
  int64_t c = 0;  // a coefficient that overflows is no answer
  switch (e->kind) {
    case ir::PrimKind::Add:
      if (__builtin_add_overflow(*ca, *cb, &c)) return std::nullopt;
      return c;
    case ir::PrimKind::Sub:
      if (__builtin_sub_overflow(*ca, *cb, &c)) return std::nullopt;
      return c;
    case ir::PrimKind::Mul: {
      const auto* ka = ir::dyn_cast<ir::IntImm>(b->a);
      const auto* kb = ir::dyn_cast<ir::IntImm>(b->b);
      bool overflow = kb && *cb == 0   ? __builtin_mul_overflow(*ca, kb->value, &c)
                      : ka && *ca == 0 ? __builtin_mul_overflow(*cb, ka->value, &c)
                                       : true;
      if (overflow) return std::nullopt;
      return c;
    }
    default: return std::nullopt;
  }
}

// `indices`' last index has coefficient 1 in `along` and 0 in `other`; no other index uses
// `along`.
bool contiguous_in(const std::vector<const ir::PrimExpr*>& indices, const ir::PrimVar* along,
                   const ir::PrimVar* other, const Bindings& bound) {
  if (indices.empty()) return false;
  for (size_t k = 0; k + 1 < indices.size(); ++k)
    if (coefficient(indices[k], along, bound) != 0) return false;
  return coefficient(indices.back(), along, bound) == 1 &&
         coefficient(indices.back(), other, bound) == 0;
}

bool plain_serial(const ir::For* f) {
  return f && !f->step && f->for_kind == ir::ForKind::Serial && f->loop_var->dtype.is_integer();
}

}  // namespace

std::optional<TirEmitter::TransposeCopy> TirEmitter::match_transpose_copy(const ir::For* outer) {
  const auto* inner = ir::dyn_cast<ir::For>(outer->body);
  if (!plain_serial(outer) || !plain_serial(inner)) return std::nullopt;
  for (const ir::PrimExpr* e : {inner->min, inner->extent})
    for (const ir::PrimVar* v : ir::prim_vars(e))
      if (v == outer->loop_var) return std::nullopt;
  TransposeCopy copy{outer, inner, ir::dyn_cast<ir::Block>(inner->body), nullptr, nullptr};
  const ir::Stmt* body = inner->body;
  Bindings bound;
  if (copy.block) {
    const ir::Block* b = copy.block;
    if (b->init || b->predicate || !b->alloc_buffers.empty() || !b->match_buffers.empty())
      return std::nullopt;
    for (const ir::IterVar& iv : b->iter_vars) {
      if (!iv.binding) return std::nullopt;
      bound[iv.var] = iv.binding;
    }
    body = b->body;
  }
  copy.store = body ? ir::dyn_cast<ir::BufferStore>(body) : nullptr;
  copy.load = copy.store ? ir::dyn_cast<ir::BufferLoad>(copy.store->value) : nullptr;
  if (!copy.load) return std::nullopt;
  const ir::Buffer* out = copy.store->buffer;
  const ir::Buffer* in = copy.load->buffer;
  ir::DataType t = out->dtype;
  if (t != in->dtype || t != copy.load->dtype || t.bits != 32 || t.lanes != 1 || t.is_bool() ||
      !alias_scopes_.distinct(out, in))
    return std::nullopt;
  // A flat index into a buffer of several axes is not the last axis's.
  if (copy.store->indices.size() != out->shape.size() ||
      copy.load->indices.size() != in->shape.size())
    return std::nullopt;
  if (!contiguous_in(copy.store->indices, inner->loop_var, outer->loop_var, bound) ||
      !contiguous_in(copy.load->indices, outer->loop_var, inner->loop_var, bound))
    return std::nullopt;
  return copy;
}

bool TirEmitter::transpose_copy(const ir::For* outer) {
  if (options_.check_bounds) return false;  // the checks are per element
  std::optional<TransposeCopy> copy = match_transpose_copy(outer);
  if (!copy) return false;
  // Both buffers' last axis must be contiguous, which a bound tensor's is (tir_entry.cpp) and
  // an allocated one's too; a view with other strides is copied as written.
  for (const ir::Buffer* b : {copy->store->buffer, copy->load->buffer}) {
    auto it = buffers_.find(b);
    auto* last = it == buffers_.end() || it->second.strides.empty()
                     ? nullptr
                     : llvm::dyn_cast<llvm::ConstantInt>(it->second.strides.back());
    if (!last || !last->isOne() || it->second.strides.size() != b->shape.size()) return false;
  }
  Value* begin = as_i64(outer->min);
  Value* rows = as_i64(outer->extent);
  if (!begin || !rows) return true;  // reported
  Value* tiles = builder_.CreateSDiv(rows, i64(kTile));
  Value* tiles_end = builder_.CreateAdd(begin, builder_.CreateMul(tiles, i64(kTile)));
  auto on_pool = [&] {
    // Over tiles of rows; their first row is computed again inside, from what travels.
    parallel_loop(outer->loop_var, i64(0), tiles, {outer}, [&] {
      Value* first = as_i64(outer->min);
      if (!first) return;
      transposed_rows(
          *copy, builder_.CreateAdd(first, builder_.CreateMul(vars_[outer->loop_var], i64(kTile))));
    });
  };
  auto alone = [&] {
    serial_loop(outer->loop_var, begin, tiles_end, i64(kTile),
                [&] { transposed_rows(*copy, vars_[outer->loop_var]); });
  };
  emit_choice(row_local_run({outer}, 0) == 1 ? parallel_choice({outer}) : ParallelChoice{}, on_pool,
              alone);
  remaining_rows(*copy, tiles_end);
  return true;
}

// Rows [i0, i0 + 16) of the outer loop: whole tiles along j, then the columns they leave.
void TirEmitter::transposed_rows(const TransposeCopy& copy, Value* i0) {
  const ir::For* inner = copy.inner;
  Value* begin = as_i64(inner->min);
  Value* columns = as_i64(inner->extent);
  if (!begin || !columns) return;
  Value* end = builder_.CreateAdd(begin, columns);
  Value* tiles_end = builder_.CreateAdd(
      begin, builder_.CreateMul(builder_.CreateSDiv(columns, i64(kTile)), i64(kTile)));
  const ir::PrimVar* i = copy.outer->loop_var;
  const ir::PrimVar* j = inner->loop_var;
  serial_loop(j, begin, tiles_end, i64(kTile), [&] { transpose_tile(copy, i0, vars_[j]); });
  // The columns past the last whole tile, for each of the 16 rows, as written.
  serial_loop(i, i0, builder_.CreateAdd(i0, i64(kTile)), i64(1),
              [&] { serial_loop(j, tiles_end, end, i64(1), [&] { stmt(inner->body); }); });
}

// The rows from `first` to the outer loop's end, as written.
void TirEmitter::remaining_rows(const TransposeCopy& copy, Value* first) {
  const ir::For* outer = copy.outer;
  Value* begin = as_i64(outer->min);
  Value* rows = as_i64(outer->extent);
  if (!begin || !rows) return;
  serial_loop(outer->loop_var, first, builder_.CreateAdd(begin, rows), i64(1),
              [&] { stmt(copy.inner); });
}

// out[i0 + r, j0 .. j0 + 16) = in[j0 + r', i0 .. i0 + 16) transposed, for r, r' in [0, 16).
void TirEmitter::transpose_tile(const TransposeCopy& copy, Value* i0, Value* j0) {
  const ir::PrimVar* i = copy.outer->loop_var;
  const ir::PrimVar* j = copy.inner->loop_var;
  llvm::Type* element = storage_type(copy.store->buffer->dtype);
  auto* vector = llvm::FixedVectorType::get(element, kTile);
  // The address of one element with (i, j) bound, the block's variables computed from them.
  auto address = [&](Value* iv, Value* jv, const ir::Buffer* buffer,
                     const std::vector<const ir::PrimExpr*>& indices, Span at) -> Value* {
    vars_[i] = builder_.CreateIntCast(iv, value_type(i->dtype), true);
    vars_[j] = builder_.CreateIntCast(jv, value_type(j->dtype), true);
    if (copy.block)
      for (const ir::IterVar& v : copy.block->iter_vars) {
        Value* x = expr(v.binding);
        if (!x) return nullptr;
        vars_[v.var] = cast(x, v.binding->dtype, v.var->dtype);
      }
    return element_address(buffer, indices, at);
  };
  std::vector<Value*> rows(kTile);
  for (int r = 0; r < kTile; ++r) {
    Value* p = address(i0, builder_.CreateAdd(j0, i64(r)), copy.load->buffer, copy.load->indices,
                       copy.load->span);
    if (!p) return;
    auto* load = builder_.CreateAlignedLoad(vector, p, llvm::Align(4));
    alias_scopes_.annotate(load, copy.load->buffer);
    rows[r] = load;
  }
  // Four rounds: vector 2k takes the interleaved low halves of k and k + 8, 2k + 1 the high.
  std::vector<int> low(kTile), high(kTile);
  for (int e = 0; e < kTile; ++e) {
    low[e] = e / 2 + (e % 2) * kTile;
    high[e] = kTile / 2 + e / 2 + (e % 2) * kTile;
  }
  for (int round = 0; round < 4; ++round) {
    std::vector<Value*> next(kTile);
    for (int k = 0; k < kTile / 2; ++k) {
      next[2 * k] = builder_.CreateShuffleVector(rows[k], rows[k + kTile / 2], low);
      next[2 * k + 1] = builder_.CreateShuffleVector(rows[k], rows[k + kTile / 2], high);
    }
    rows = std::move(next);
  }
  for (int r = 0; r < kTile; ++r) {
    Value* p = address(builder_.CreateAdd(i0, i64(r)), j0, copy.store->buffer, copy.store->indices,
                       copy.store->span);
    if (!p) return;
    auto* store = builder_.CreateAlignedStore(rows[r], p, llvm::Align(4));
    alias_scopes_.annotate(store, copy.store->buffer);
  }
}

}  // namespace raxc::backend
