// The pairwise walk behind structural_equal (equal.h).
#include "frontend/ir/equal.h"

#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/expr.h"

namespace raxc::ir {
namespace {

bool all_equal(const std::vector<const PrimExpr*>& a, const std::vector<const PrimExpr*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

bool all_equal(const std::vector<const StructInfo*>& a, const std::vector<const StructInfo*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

// A TensorStructInfo's shape: ShapeExprs by their dimensions, a shape variable by identity.
bool shape_equal(const Expr* a, const Expr* b) {
  if (a == b) return true;
  const auto* x = dyn_cast<ShapeExpr>(a);
  const auto* y = dyn_cast<ShapeExpr>(b);
  return x && y && all_equal(x->values, y->values);
}

}  // namespace

bool structural_equal(const PrimExpr* a, const PrimExpr* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
  switch (a->kind) {
    case PrimKind::IntImm: return cast<IntImm>(a)->value == cast<IntImm>(b)->value;
    case PrimKind::FloatImm: return cast<FloatImm>(a)->value == cast<FloatImm>(b)->value;
    case PrimKind::StringImm: return cast<PrimStringImm>(a)->value == cast<PrimStringImm>(b)->value;
    case PrimKind::Var: return false;  // identity only
    case PrimKind::Not: return structural_equal(cast<PrimNot>(a)->a, cast<PrimNot>(b)->a);
    case PrimKind::Cast:
      return structural_equal(cast<PrimCast>(a)->value, cast<PrimCast>(b)->value);
    case PrimKind::Select: {
      const auto *x = cast<PrimSelect>(a), *y = cast<PrimSelect>(b);
      return structural_equal(x->condition, y->condition) &&
             structural_equal(x->true_value, y->true_value) &&
             structural_equal(x->false_value, y->false_value);
    }
    case PrimKind::BufferLoad: {
      const auto *x = cast<BufferLoad>(a), *y = cast<BufferLoad>(b);
      return x->buffer == y->buffer && all_equal(x->indices, y->indices);
    }
    case PrimKind::Call: {
      const auto *x = cast<PrimCall>(a), *y = cast<PrimCall>(b);
      return x->op == y->op && all_equal(x->args, y->args);
    }
    case PrimKind::Let: {
      const auto *x = cast<PrimLet>(a), *y = cast<PrimLet>(b);
      return x->var == y->var && structural_equal(x->value, y->value) &&
             structural_equal(x->body, y->body);
    }
    default: {
      const auto *x = cast<PrimBinary>(a), *y = cast<PrimBinary>(b);
      return structural_equal(x->a, y->a) && structural_equal(x->b, y->b);
    }
  }
}

bool structural_equal(const StructInfo* a, const StructInfo* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case SInfoKind::Object: return true;
    case SInfoKind::Prim: {
      const auto *x = cast<PrimSInfo>(a), *y = cast<PrimSInfo>(b);
      return x->dtype == y->dtype && structural_equal(x->value, y->value);
    }
    case SInfoKind::Shape: {
      const auto *x = cast<ShapeSInfo>(a), *y = cast<ShapeSInfo>(b);
      if (x->ndim != y->ndim || x->values.has_value() != y->values.has_value()) return false;
      return !x->values || all_equal(*x->values, *y->values);
    }
    case SInfoKind::Tensor: {
      const auto *x = cast<TensorSInfo>(a), *y = cast<TensorSInfo>(b);
      return x->dtype == y->dtype && x->ndim == y->ndim && x->vdevice == y->vdevice &&
             same_distribution(x->dist, y->dist) && shape_equal(x->shape, y->shape);
    }
    case SInfoKind::Tuple:
      return all_equal(cast<TupleSInfo>(a)->fields, cast<TupleSInfo>(b)->fields);
    case SInfoKind::Func: {
      const auto *x = cast<FuncSInfo>(a), *y = cast<FuncSInfo>(b);
      if (x->purity != y->purity || x->derive_func != y->derive_func ||
          x->params.has_value() != y->params.has_value() || !structural_equal(x->ret, y->ret))
        return false;
      return !x->params || all_equal(*x->params, *y->params);
    }
  }
  return false;
}

}  // namespace raxc::ir
