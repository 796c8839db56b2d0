// Row-local loop nests (private to backend/codegen): which top-level loops may share one outer
// loop, and which may run their outer iterations in parallel.
//
// TVM's legalized operators are sequences of loop nests over the same outer axis: softmax is a
// max, an exp, a sum and a division, each over every row. Run one after another, each nest walks
// the whole tensor, and the tensor falls out of the cache between them. When every nest only
// touches row `i` of everything the nests write (and reads what no nest writes anywhere it
// likes), running all the nests for row 0, then for row 1, ... computes the same values with the
// row in L1 — and the rows are independent, so they may run on several threads.
//
// The same holds one level down: softmax over the last axis of an (8, 12, n, n) tensor is six
// nests of `T.grid(8, 12, n, ...)`, and a row of the first axis alone is 12·n·n floats, more
// than L2 holds. When the bodies of the merged loops are again nests over one range, row-local
// in the second axis, their loops merge too, and so on down: the nests then share one loop per
// level and a row is n floats.
//
// The test is conservative: a nest qualifies when each write and each read of a buffer written
// by the group indexes its first axis (at the level below, its second, ...) with the loop
// variable itself (directly or through a block variable bound to it), buffers allocated inside
// the nest aside; nests with calls that
// have effects, `while`, `return`, `break`/`continue` or buffer views (match_buffer regions) do
// not. Distinct buffers are distinct memory, as TVM's code generator assumes (it marks buffer
// parameters noalias).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_set>
#include <vector>

#include "frontend/ir/module.h"

namespace raxc::backend {

// How many statements from `stmts[start]` on are loop nests over the same range that may share
// one outer loop (at least 1 when `stmts[start]` is a row-local loop nest by itself; 0 if not).
// `axis`: the axis the loops index, 0 for top-level nests, 1 for the bodies of merged loops, ...
size_t row_local_run(const std::vector<const ir::Stmt*>& stmts, size_t start, size_t axis = 0);

// How many levels of a run's loops merge (at least 1, the outer loops): one more for each level
// at which the bodies are all loop nests over one range, row-local in the next axis.
size_t row_local_levels(const std::vector<const ir::For*>& nests);

// Storage folding: the buffers of `allocated` (a block's T.alloc_buffer, around `stmts`) that
// only one run of two or more row-local nests uses, and writes. Iteration i of the run's loop
// touches only row i of such a buffer, so one row of storage serves every iteration (with
// levels merged, one row of the innermost merged axis): softmax's full-size exp buffer becomes
// one row, written and read back while it is in L1.
std::unordered_set<const ir::Buffer*> row_foldable(const std::vector<const ir::Stmt*>& stmts,
                                                   const std::vector<const ir::Buffer*>& allocated);

// The iterations of innermost loop bodies a group of nests runs: the measure of work that
// decides whether its rows are worth spreading over threads. One walk, counting in `Count`:
// integers when every extent is a constant (constant_work), emitted code computing it when the
// loops start (TirEmitter::runtime_work). A sequence counts at least 1, a branch its larger arm.
template <class Count>
struct WorkCounting {
  // A loop's extent, at least 0 (nullopt: it cannot be counted), and the count of one statement.
  std::function<std::optional<Count>(const ir::For*)> extent;
  std::function<Count(int64_t)> constant;
  std::function<Count(Count, Count)> add, multiply, max;
  // Called with each variable the nests bind (loops, blocks, lets) before what lies under it.
  std::function<void(const ir::PrimVar*)> binds = [](const ir::PrimVar*) {};
};

template <class Count>
std::optional<Count> count_work(const ir::Stmt* s, const WorkCounting<Count>& c) {
  if (!s) return c.constant(0);
  using K = ir::StmtKind;
  switch (s->kind) {
    case K::Seq: {
      Count total = c.constant(0);
      for (const ir::Stmt* child : ir::cast<ir::SeqStmt>(s)->stmts) {
        std::optional<Count> w = count_work(child, c);
        if (!w) return std::nullopt;
        total = c.add(total, *w);
      }
      return c.max(total, c.constant(1));
    }
    case K::For: {
      const auto* f = ir::cast<ir::For>(s);
      std::optional<Count> extent = c.extent(f);
      if (!extent) return std::nullopt;
      c.binds(f->loop_var);
      std::optional<Count> inner = count_work(f->body, c);
      if (!inner) return std::nullopt;
      return c.multiply(*extent, *inner);
    }
    case K::Block: {
      const auto* b = ir::cast<ir::Block>(s);
      for (const ir::IterVar& iv : b->iter_vars) c.binds(iv.var);
      return count_work(b->body, c);
    }
    case K::If: {
      const auto* i = ir::cast<ir::IfThenElse>(s);
      std::optional<Count> a = count_work(i->then_case, c);
      std::optional<Count> b = a ? count_work(i->else_case, c) : std::nullopt;
      if (!b) return std::nullopt;
      return c.max(*a, *b);
    }
    case K::Let: {
      const auto* l = ir::cast<ir::LetStmt>(s);
      c.binds(l->var);
      return count_work(l->body, c);
    }
    default: return c.constant(1);
  }
}

template <class Count>
std::optional<Count> count_work(const std::vector<const ir::For*>& nests,
                                const WorkCounting<Count>& c) {
  Count total = c.constant(0);
  for (const ir::For* nest : nests) {
    std::optional<Count> w = count_work(nest, c);
    if (!w) return std::nullopt;
    total = c.add(total, *w);
  }
  return total;
}

// count_work when every extent is a constant (saturating at 2^50).
std::optional<int64_t> constant_work(const std::vector<const ir::For*>& nests);

// Below this much work (innermost iterations, about a nanosecond each) waking the thread pool
// costs more than it saves.
inline constexpr int64_t kParallelWork = 32 * 1024;

}  // namespace raxc::backend
