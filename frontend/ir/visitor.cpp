// The walk behind ir::Visitor (visitor.h): which children each node has, in source order, and
// which of them the walk's options let it enter.
#include "frontend/ir/visitor.h"

#include "frontend/ir/arena.h"

namespace raxc::ir {

void Visitor::visit(const Expr* e) {
  if (e == nullptr) return;
  on_expr(e);
  if (skipped()) return;
  switch (e->kind) {
    case ExprKind::Tuple:
      for (const Expr* f : cast<Tuple>(e)->fields) visit(f);
      return;
    case ExprKind::SeqExpr: return visit_seq(cast<SeqExpr>(e));
    case ExprKind::Function: {
      const auto* f = cast<Function>(e);
      on_function(*f);
      if (skipped()) return;
      if (options_.annotations) {
        for (const Var* p : f->params)
          if (p != nullptr) visit(p->annotation);
        visit(f->ret_struct_info);
      }
      return visit(f->body);
    }
    case ExprKind::If: {
      const auto* i = cast<If>(e);
      visit(i->cond);
      visit(i->true_branch);
      return visit(i->false_branch);
    }
    case ExprKind::Call: {
      const auto* c = cast<Call>(e);
      visit(c->op);
      for (const Expr* a : c->args) visit(a);
      if (options_.annotations)
        for (const StructInfo* s : c->sinfo_args) visit(s);
      return;
    }
    case ExprKind::TupleGetItem: return visit(cast<TupleGetItem>(e)->tuple);
    case ExprKind::PrimValue:
      if (options_.prim_exprs) visit(cast<PrimValue>(e)->value);
      return;
    case ExprKind::ShapeExpr:
      if (options_.prim_exprs) visit_prim_exprs(cast<ShapeExpr>(e)->values);
      return;
    case ExprKind::ExternFunc:
      if (options_.annotations) visit(cast<ExternFunc>(e)->struct_info);
      return;
    case ExprKind::Constant:
    case ExprKind::Var:
    case ExprKind::DataflowVar:
    case ExprKind::GlobalVar:
    case ExprKind::StringImm:
    case ExprKind::DataTypeImm:
    case ExprKind::Op:
    case ExprKind::Error: return;
  }
}

void Visitor::visit_seq(const SeqExpr* seq) {
  for (const BindingBlock* block : seq->blocks) {
    if (block == nullptr) continue;
    on_block(*block);
    if (skipped()) continue;
    for (const Binding* b : block->bindings)
      if (b != nullptr) visit_binding(*b);
  }
  visit(seq->body);
}

void Visitor::visit_binding(const Binding& b) {
  on_binding(b);
  if (!skipped()) {
    if (options_.annotations) {
      if (b.var != nullptr) visit(b.var->annotation);
      visit(b.match_cast);
    }
    visit(b.value);
  }
  after_binding(b);
}

void Visitor::visit(const StructInfo* s) {
  if (s == nullptr) return;
  on_struct_info(s);
  if (skipped()) return;
  switch (s->kind) {
    case SInfoKind::Object: return;
    case SInfoKind::Prim:
      if (options_.prim_exprs) visit(cast<PrimSInfo>(s)->value);
      return;
    case SInfoKind::Shape:
      if (const auto& values = cast<ShapeSInfo>(s)->values; values && options_.prim_exprs)
        visit_prim_exprs(*values);
      return;
    case SInfoKind::Tensor:  // a ShapeExpr, or a Relax variable holding the shape
      return visit(cast<TensorSInfo>(s)->shape);
    case SInfoKind::Tuple:
      for (const StructInfo* f : cast<TupleSInfo>(s)->fields) visit(f);
      return;
    case SInfoKind::Func: {
      const auto* f = cast<FuncSInfo>(s);
      if (f->params)
        for (const StructInfo* p : *f->params) visit(p);
      if (options_.callable_returns) visit(f->ret);
      return;
    }
  }
}

void Visitor::visit(const PrimExpr* e) {
  if (e == nullptr) return;
  on_prim_expr(e);
  if (skipped()) return;
  if (const auto* bin = dyn_cast<PrimBinary>(e)) {
    visit(bin->a);
    return visit(bin->b);
  }
  switch (e->kind) {
    case PrimKind::Not: return visit(cast<PrimNot>(e)->a);
    case PrimKind::Cast: return visit(cast<PrimCast>(e)->value);
    case PrimKind::Select: {
      const auto* s = cast<PrimSelect>(e);
      visit(s->condition);
      visit(s->true_value);
      return visit(s->false_value);
    }
    case PrimKind::BufferLoad:
      for (const PrimExpr* index : cast<BufferLoad>(e)->indices) visit(index);
      return;
    case PrimKind::Call:
      for (const PrimExpr* arg : cast<PrimCall>(e)->args) visit(arg);
      return;
    case PrimKind::Let: {  // the let variable is a binding site, not a use: not walked
      const auto* let = cast<PrimLet>(e);
      visit(let->value);
      return visit(let->body);
    }
    default: return;  // immediates and variables
  }
}

void Visitor::visit_prim_exprs(const std::vector<const PrimExpr*>& values) {
  for (const PrimExpr* v : values) visit(v);
}

void Visitor::visit_region(const std::vector<PrimRange>& region) {
  if (!options_.prim_exprs) return;
  for (const PrimRange& r : region) {
    visit(r.min);
    visit(r.extent);
  }
}

void Visitor::visit_buffer(const Buffer* b) {
  if (b == nullptr) return;
  on_buffer(*b);
  if (skipped() || !options_.prim_exprs) return;
  visit_prim_exprs(b->shape);
  visit_prim_exprs(b->strides);
  visit(b->elem_offset);
}

void Visitor::visit(const Stmt* s) {
  if (s == nullptr) return;
  on_stmt(s);
  if (skipped()) return;
  // The PrimExprs of a statement, when the walk enters PrimExprs.
  auto prim = [this](const PrimExpr* e) {
    if (options_.prim_exprs) visit(e);
  };
  switch (s->kind) {
    case StmtKind::Seq:
      for (const Stmt* child : cast<SeqStmt>(s)->stmts) visit(child);
      return;
    case StmtKind::For: {  // the loop variable is a binding site: not walked
      const auto* f = cast<For>(s);
      prim(f->min);
      prim(f->extent);
      prim(f->step);
      return visit(f->body);
    }
    case StmtKind::While: {
      const auto* w = cast<While>(s);
      prim(w->condition);
      return visit(w->body);
    }
    case StmtKind::If: {
      const auto* i = cast<IfThenElse>(s);
      prim(i->condition);
      visit(i->then_case);
      return visit(i->else_case);
    }
    case StmtKind::Block: {
      const auto* b = cast<Block>(s);
      for (const IterVar& iv : b->iter_vars) {
        prim(iv.dom.min);
        prim(iv.dom.extent);
        prim(iv.binding);
      }
      prim(b->predicate);
      for (const auto* regions : {&b->reads, &b->writes})
        if (*regions)
          for (const BufferRegion& r : **regions) visit_region(r.region);
      for (const Buffer* buffer : b->alloc_buffers) visit_buffer(buffer);
      for (const MatchBufferRegion& m : b->match_buffers) {
        visit_buffer(m.buffer);
        visit_region(m.source.region);
      }
      visit(b->init);
      return visit(b->body);
    }
    case StmtKind::BufferStore: {
      const auto* store = cast<BufferStore>(s);
      if (options_.prim_exprs) visit_prim_exprs(store->indices);
      return prim(store->value);
    }
    case StmtKind::Let: {
      const auto* let = cast<LetStmt>(s);
      prim(let->value);
      return visit(let->body);
    }
    case StmtKind::Evaluate: return prim(cast<Evaluate>(s)->value);
    case StmtKind::Assert: return prim(cast<AssertStmt>(s)->condition);
    case StmtKind::AllocBuffer: return visit_buffer(cast<AllocBufferStmt>(s)->buffer);
    case StmtKind::Return: return prim(cast<ReturnStmt>(s)->value);
    case StmtKind::Break:
    case StmtKind::Continue: return;
  }
}

void Visitor::visit(const PrimFunc& f) {
  // T.Buffer parameters and T.match_buffer both land in buffer_map: each buffer is declared once.
  for (const auto& [handle, buffer] : f.buffer_map) visit_buffer(buffer);
  visit(f.body);
}

}  // namespace raxc::ir
