// Structural equality used by the printer's decisions (hiding an annotation equal to out_sinfo,
// folding loops into T.axis.remap). Variables and buffers compare by identity.
#include "frontend/printer/printer_impl.h"

namespace raxc::printer::detail {

using namespace ir;

static bool prim_list_equal(const std::vector<const PrimExpr*>& a,
                            const std::vector<const PrimExpr*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!prim_equal(a[i], b[i])) return false;
  return true;
}

bool prim_equal(const PrimExpr* a, const PrimExpr* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
  switch (a->kind) {
    case PrimKind::IntImm: return cast<IntImm>(a)->value == cast<IntImm>(b)->value;
    case PrimKind::FloatImm: return cast<FloatImm>(a)->value == cast<FloatImm>(b)->value;
    case PrimKind::StringImm: return cast<PrimStringImm>(a)->value == cast<PrimStringImm>(b)->value;
    case PrimKind::Var: return false;  // identity only
    case PrimKind::Not: return prim_equal(cast<PrimNot>(a)->a, cast<PrimNot>(b)->a);
    case PrimKind::Select: {
      auto x = cast<PrimSelect>(a), y = cast<PrimSelect>(b);
      return prim_equal(x->condition, y->condition) && prim_equal(x->true_value, y->true_value) &&
             prim_equal(x->false_value, y->false_value);
    }
    case PrimKind::Cast: return prim_equal(cast<PrimCast>(a)->value, cast<PrimCast>(b)->value);
    case PrimKind::BufferLoad: {
      auto x = cast<BufferLoad>(a), y = cast<BufferLoad>(b);
      return x->buffer == y->buffer && prim_list_equal(x->indices, y->indices);
    }
    case PrimKind::Call: {
      auto x = cast<PrimCall>(a), y = cast<PrimCall>(b);
      return x->op == y->op && prim_list_equal(x->args, y->args);
    }
    case PrimKind::Let: {
      auto x = cast<PrimLet>(a), y = cast<PrimLet>(b);
      return x->var == y->var && prim_equal(x->value, y->value) && prim_equal(x->body, y->body);
    }
    default: {
      auto x = cast<PrimBinary>(a), y = cast<PrimBinary>(b);
      return prim_equal(x->a, y->a) && prim_equal(x->b, y->b);
    }
  }
}

bool expr_equal(const Expr* a, const Expr* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (auto x = dyn_cast<ShapeExpr>(a)) return prim_list_equal(x->values, cast<ShapeExpr>(b)->values);
  return false;
}

bool sinfo_equal(const StructInfo* a, const StructInfo* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case SInfoKind::Object: return true;
    case SInfoKind::Prim: {
      auto x = cast<PrimSInfo>(a), y = cast<PrimSInfo>(b);
      return x->dtype == y->dtype && (x->value == nullptr) == (y->value == nullptr) &&
             (!x->value || prim_equal(x->value, y->value));
    }
    case SInfoKind::Shape: {
      auto x = cast<ShapeSInfo>(a), y = cast<ShapeSInfo>(b);
      if (x->ndim != y->ndim || x->values.has_value() != y->values.has_value()) return false;
      return !x->values || prim_list_equal(*x->values, *y->values);
    }
    case SInfoKind::Tensor: {
      auto x = cast<TensorSInfo>(a), y = cast<TensorSInfo>(b);
      return x->dtype == y->dtype && x->ndim == y->ndim && x->vdevice == y->vdevice &&
             (x->shape == nullptr) == (y->shape == nullptr) &&
             (!x->shape || expr_equal(x->shape, y->shape));
    }
    case SInfoKind::Tuple: {
      auto x = cast<TupleSInfo>(a), y = cast<TupleSInfo>(b);
      if (x->fields.size() != y->fields.size()) return false;
      for (size_t i = 0; i < x->fields.size(); ++i)
        if (!sinfo_equal(x->fields[i], y->fields[i])) return false;
      return true;
    }
    case SInfoKind::Func: {
      auto x = cast<FuncSInfo>(a), y = cast<FuncSInfo>(b);
      if (x->purity != y->purity || x->derive_func != y->derive_func ||
          x->params.has_value() != y->params.has_value() || !sinfo_equal(x->ret, y->ret))
        return false;
      if (!x->params) return true;
      if (x->params->size() != y->params->size()) return false;
      for (size_t i = 0; i < x->params->size(); ++i)
        if (!sinfo_equal((*x->params)[i], (*y->params)[i])) return false;
      return true;
    }
  }
  return false;
}

}  // namespace raxc::printer::detail
