// Row-local loop nests (row_loops.h): one walk per nest gathers its buffer accesses and the
// variables that stand for its outer loop variable; the group test then compares them.
#include "backend/codegen/row_loops.h"

#include <algorithm>
#include <unordered_set>

#include "frontend/ir/equal.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"

namespace raxc::backend {

namespace {

struct Access {
  const ir::Buffer* buffer;
  const ir::PrimExpr* index;  // at the nest's axis; null when the buffer has no such axis
};

// What one loop nest does, seen from its outer loop, which indexes axis `axis` of the buffers.
class NestSummary : public ir::Visitor {
 public:
  NestSummary(const ir::For* nest, size_t axis) : Visitor({.prim_exprs = true}), axis_(axis) {
    row_vars_.insert(nest->loop_var);
    visit(nest->body);
  }

  bool eligible() const { return eligible_; }
  const std::vector<Access>& accesses() const { return accesses_; }
  const std::unordered_set<const ir::Buffer*>& written() const { return written_; }
  // The index is the outer loop variable (or a block variable bound to it).
  bool is_row(const ir::PrimExpr* index) const {
    const auto* var = index ? ir::dyn_cast<ir::PrimVar>(index) : nullptr;
    return var && row_vars_.count(var);
  }
  bool is_local(const ir::Buffer* b) const { return local_.count(b); }

 private:
  void on_stmt(const ir::Stmt* s) override {
    using K = ir::StmtKind;
    switch (s->kind) {
      case K::While:
      case K::Return:
      case K::Break:
      case K::Continue:
      case K::Evaluate: eligible_ = false; return;
      case K::AllocBuffer: local_.insert(ir::cast<ir::AllocBufferStmt>(s)->buffer); return;
      case K::Block: {
        const auto* b = ir::cast<ir::Block>(s);
        if (!b->match_buffers.empty()) eligible_ = false;
        for (const ir::Buffer* buffer : b->alloc_buffers) local_.insert(buffer);
        for (const ir::IterVar& iv : b->iter_vars)
          if (iv.binding && is_row(strip_cast(iv.binding))) row_vars_.insert(iv.var);
        return;
      }
      case K::BufferStore: {
        const auto* store = ir::cast<ir::BufferStore>(s);
        written_.insert(store->buffer);
        record(store->buffer, store->indices);
        return;
      }
      default: return;
    }
  }

  void on_prim_expr(const ir::PrimExpr* e) override {
    if (const auto* load = ir::dyn_cast<ir::BufferLoad>(e)) record(load->buffer, load->indices);
    if (const auto* call = ir::dyn_cast<ir::PrimCall>(e); call && ir::has_effects(*call))
      eligible_ = false;
  }

  static const ir::PrimExpr* strip_cast(const ir::PrimExpr* e) {
    while (const auto* c = ir::dyn_cast<ir::PrimCast>(e)) e = c->value;
    return e;
  }

  void record(const ir::Buffer* b, const std::vector<const ir::PrimExpr*>& indices) {
    accesses_.push_back({b, axis_ < indices.size() ? strip_cast(indices[axis_]) : nullptr});
  }

  size_t axis_;
  bool eligible_ = true;
  std::unordered_set<const ir::PrimVar*> row_vars_;
  std::unordered_set<const ir::Buffer*> local_;
  std::unordered_set<const ir::Buffer*> written_;
  std::vector<Access> accesses_;
};

const ir::For* as_nest(const ir::Stmt* s) {
  const auto* f = s ? ir::dyn_cast<ir::For>(s) : nullptr;
  if (!f || f->step || f->for_kind == ir::ForKind::ThreadBinding) return nullptr;
  return f;
}

// Every access to a buffer the group writes (outside a nest's own allocations) is to the row.
bool row_local(const std::vector<NestSummary>& group) {
  std::unordered_set<const ir::Buffer*> written;
  for (const NestSummary& n : group)
    for (const ir::Buffer* b : n.written())
      if (!n.is_local(b)) written.insert(b);
  return std::all_of(group.begin(), group.end(), [&](const NestSummary& n) {
    return n.eligible() && std::all_of(n.accesses().begin(), n.accesses().end(), [&](auto& a) {
             return n.is_local(a.buffer) || !written.count(a.buffer) || n.is_row(a.index);
           });
  });
}

}  // namespace

size_t row_local_run(const std::vector<const ir::Stmt*>& stmts, size_t start, size_t axis) {
  const ir::For* first = start < stmts.size() ? as_nest(stmts[start]) : nullptr;
  if (!first) return 0;
  std::vector<NestSummary> group;
  group.emplace_back(first, axis);
  if (!row_local(group)) return 0;
  size_t count = 1;
  for (size_t i = start + 1; i < stmts.size(); ++i) {
    const ir::For* next = as_nest(stmts[i]);
    if (!next || !ir::structural_equal(next->min, first->min) ||
        !ir::structural_equal(next->extent, first->extent))
      break;
    group.emplace_back(next, axis);
    if (!row_local(group)) break;
    ++count;
  }
  return count;
}

// Sound level by level: the run's test at level d makes every access to a buffer the nests
// write index axis d with that level's loop variable, so together with the levels above,
// iteration (i0, ..., id) of the merged loops touches only that slice of each written buffer.
size_t row_local_levels(const std::vector<const ir::For*>& nests) {
  std::vector<const ir::Stmt*> bodies;
  for (const ir::For* nest : nests) bodies.push_back(nest->body);
  size_t levels = 1;
  while (row_local_run(bodies, 0, levels) == bodies.size()) {
    for (const ir::Stmt*& body : bodies) body = ir::cast<ir::For>(body)->body;
    ++levels;
  }
  return levels;
}

std::unordered_set<const ir::Buffer*> row_foldable(
    const std::vector<const ir::Stmt*>& stmts, const std::vector<const ir::Buffer*>& allocated) {
  std::unordered_set<const ir::Buffer*> candidates(allocated.begin(), allocated.end());
  std::unordered_set<const ir::Buffer*> folded, seen;
  for (size_t i = 0; i < stmts.size();) {
    size_t run = std::max<size_t>(row_local_run(stmts, i), 1);
    std::unordered_set<const ir::Buffer*> used, written;
    for (size_t k = i; k < i + run; ++k) {
      used.merge(ir::tir_references({stmts[k]}).buffers);
      if (run == 1) continue;
      NestSummary nest(ir::cast<ir::For>(stmts[k]), 0);
      written.insert(nest.written().begin(), nest.written().end());
    }
    for (const ir::Buffer* b : used) {
      if (!candidates.count(b)) continue;
      if (seen.insert(b).second && written.count(b))
        folded.insert(b);
      else
        folded.erase(b);  // used by a second run (or only read): not one run's
    }
    i += run;
  }
  return folded;
}

std::optional<int64_t> constant_work(const std::vector<const ir::For*>& nests) {
  static constexpr int64_t kWorkCap = int64_t(1) << 50;  // saturate instead of overflowing
  WorkCounting<int64_t> counting;
  counting.extent = [](const ir::For* f) -> std::optional<int64_t> {
    const auto* extent = ir::dyn_cast<ir::IntImm>(f->extent);
    if (!extent) return std::nullopt;
    return std::max<int64_t>(extent->value, 0);
  };
  counting.constant = [](int64_t v) { return v; };
  counting.add = [](int64_t a, int64_t b) { return std::min(a + b, kWorkCap); };
  counting.multiply = [](int64_t extent, int64_t inner) {
    return extent != 0 && inner > kWorkCap / extent ? kWorkCap : extent * inner;
  };
  counting.max = [](int64_t a, int64_t b) { return std::max(a, b); };
  return count_work(nests, counting);
}

}  // namespace raxc::backend
