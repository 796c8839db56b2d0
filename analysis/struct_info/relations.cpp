// StructInfo relations (see relations.h): the seed spec's "Structural Information" rules.
//
// Where the spec's pseudocode contradicts its own definitions we follow the definitions:
// * the LUB of anything with Object is Object (Object is the top); the pseudocode's first two
//   lines return the other operand, which is the greatest lower bound;
// * in the Shape LUB the operand without values is the upper bound (the pseudocode's
//   "if S2.values is defined: return S2" is inverted);
// * check_compatibility treats an unknown rank where a specific one is expected as *possibly*
//   compatible (an Object where a specific kind is expected is incompatible: step 2);
// * erasure also drops a PrimStructInfo value that mentions an out-of-scope shape variable, and
//   get_shape_var_mapping also maps `R.Prim(value=n)` (a binding position per the spec).
#include "analysis/struct_info/relations.h"

#include <algorithm>
#include <unordered_set>

#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::analysis {

using arith::Proof;
using ir::SInfoKind;
using ir::StructInfo;

namespace {

// ------------------------------------------------------------------------------- printing

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// A PrimExpr as the printer spells a dimension (borrowing the StructInfo printer's R.Prim).
std::string prim_text(const ir::PrimExpr* e) {
  if (e == nullptr) return "?";
  ir::PrimSInfo holder(e->dtype, e);
  std::string text = printer::print_struct_info(&holder);
  const std::string open = "(value=";
  size_t start = text.find(open);
  if (start == std::string::npos || text.empty() || text.back() != ')') return text;
  start += open.size();
  return text.substr(start, text.size() - 1 - start);
}

std::string dtype_text(ir::DataType dtype) {
  return dtype.is_void() ? std::string("unknown") : quoted(dtype.str());
}

std::string ndim_text(int ndim) { return ndim < 0 ? std::string("unknown") : std::to_string(ndim); }

std::string vdevice_text(const ir::VDevice* v) {
  if (v == nullptr) return "unknown";
  std::string text = v->target_kind + ":" + std::to_string(v->dev_id);
  if (v->mem_scope != "global") text += ":" + v->mem_scope;
  return quoted(text);
}

const char* kind_name(SInfoKind kind) {
  switch (kind) {
    case SInfoKind::Object: return "Object";
    case SInfoKind::Prim: return "Prim";
    case SInfoKind::Shape: return "Shape";
    case SInfoKind::Tensor: return "Tensor";
    case SInfoKind::Tuple: return "Tuple";
    case SInfoKind::Func: return "Callable";
  }
  return "?";
}

// ------------------------------------------------------------------------------- helpers

bool same_vdevice(const ir::VDevice* a, const ir::VDevice* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if (a->index >= 0 && b->index >= 0) return a->index == b->index;
  return a->target_kind == b->target_kind && a->dev_id == b->dev_id && a->mem_scope == b->mem_scope;
}

// Combines answers: Incompatible wins, then Possibly; the first non-Compatible detail is kept.
struct Verdict {
  CompatResult result;

  void add(Compat c, const std::string& detail) {
    if (c == Compat::Compatible) return;
    if (result.result == Compat::Incompatible) return;
    if (c == Compat::Incompatible || result.result == Compat::Compatible) {
      result.result = c;
      result.detail = detail;
    }
  }
  bool failed() const { return result.result == Compat::Incompatible; }
};

Compat from_proof(Proof p) {
  switch (p) {
    case Proof::Equal: return Compat::Compatible;
    case Proof::NotEqual: return Compat::Incompatible;
    case Proof::Unknown: return Compat::Possibly;
  }
  return Compat::Possibly;
}

// The caller's view of the variables in scope during one check_compatibility (see relations.h);
// null outside one. A per-call setting rather than a parameter of every comparison below.
thread_local const VarStructInfo* scope_sinfo = nullptr;

// The values a shape-typed Var holds, when its annotation (or, failing that, the StructInfo the
// caller bound it to) carries them.
std::optional<std::vector<const ir::PrimExpr*>> shape_var_values(const ir::Var* var) {
  if (const auto* s = ir::dyn_cast<ir::ShapeSInfo>(var->annotation)) return s->values;
  if (var->annotation == nullptr && scope_sinfo && *scope_sinfo)
    if (const auto* s = ir::dyn_cast<ir::ShapeSInfo>((*scope_sinfo)(var))) return s->values;
  return std::nullopt;
}

// Dimension lists compared pairwise: "dimension i: 'a' vs 'b'".
void compare_dims(arith::Analyzer& analyzer, const std::vector<const ir::PrimExpr*>& derived,
                  const std::vector<const ir::PrimExpr*>& base, Verdict& verdict) {
  if (derived.size() != base.size()) {
    verdict.add(Compat::Incompatible,
                "ndim " + std::to_string(derived.size()) + " vs " + std::to_string(base.size()));
    return;
  }
  for (size_t i = 0; i < base.size(); ++i) {
    Compat c = from_proof(analyzer.compare(derived[i], base[i]));
    verdict.add(c, "dimension " + std::to_string(i) + ": " + quoted(prim_text(derived[i])) +
                       " vs " + quoted(prim_text(base[i])));
  }
}

std::string shape_text(const ir::Expr* shape) {
  if (shape == nullptr) return "unknown";
  if (const auto* var = ir::dyn_cast<ir::Var>(shape)) return quoted(var->name);
  if (const auto* expr = ir::dyn_cast<ir::ShapeExpr>(shape)) {
    std::string text = "(";
    for (size_t i = 0; i < expr->values.size(); ++i) {
      if (i != 0) text += ", ";
      text += prim_text(expr->values[i]);
    }
    if (expr->values.size() == 1) text += ",";
    return quoted(text + ")");
  }
  return "?";
}

// The dims behind a tensor's shape field: a ShapeExpr's values, or a shape Var's annotated values.
std::optional<std::vector<const ir::PrimExpr*>> shape_values(const ir::Expr* shape) {
  if (const auto* expr = ir::dyn_cast<ir::ShapeExpr>(shape)) return expr->values;
  if (const auto* var = ir::dyn_cast<ir::Var>(shape)) return shape_var_values(var);
  return std::nullopt;
}

// Shape fields of two tensors (both defined): the same Var, or dimension-wise.
void compare_tensor_shapes(arith::Analyzer& analyzer, const ir::Expr* derived, const ir::Expr* base,
                           Verdict& verdict) {
  if (derived == base) return;
  auto d = shape_values(derived), b = shape_values(base);
  if (d && b) return compare_dims(analyzer, *d, *b, verdict);
  verdict.add(Compat::Possibly,
              "shape " + shape_text(derived) + " vs " + shape_text(base) + " not provably equal");
}

CompatResult check(arith::Analyzer& analyzer, const StructInfo* base, const StructInfo* derived);

// A DTensor is its own kind (TVM's DTensorStructInfo is no TensorStructInfo): never a Tensor, nor
// the reverse; two DTensors must agree on the mesh and the placement, then on the tensor part.
void check_distribution(const ir::TensorSInfo& base, const ir::TensorSInfo& derived,
                        Verdict& verdict) {
  if (base.is_distributed() != derived.is_distributed()) {
    verdict.add(Compat::Incompatible,
                derived.is_distributed() ? "DTensor vs Tensor" : "Tensor vs DTensor");
    return;
  }
  if (!base.is_distributed() || ir::same_distribution(base.dist, derived.dist)) return;
  if (!ir::same_mesh(base.dist->mesh, derived.dist->mesh))
    verdict.add(Compat::Incompatible, "device mesh '" +
                                          ir::mesh_reference_text(*derived.dist->mesh) + "' vs '" +
                                          ir::mesh_reference_text(*base.dist->mesh) + "'");
  else
    verdict.add(Compat::Incompatible, "placement '" + ir::placement_text(derived.dist->placement) +
                                          "' vs '" + ir::placement_text(base.dist->placement) +
                                          "'");
}

void check_tensor(arith::Analyzer& analyzer, const ir::TensorSInfo& base,
                  const ir::TensorSInfo& derived, Verdict& verdict) {
  check_distribution(base, derived, verdict);
  if (verdict.failed()) return;
  if (!base.dtype.is_void() && !derived.dtype.is_void() && !(base.dtype == derived.dtype))
    verdict.add(Compat::Incompatible,
                "dtype " + dtype_text(derived.dtype) + " vs " + dtype_text(base.dtype));
  if (base.ndim >= 0 && derived.ndim >= 0 && base.ndim != derived.ndim)
    verdict.add(Compat::Incompatible,
                "ndim " + ndim_text(derived.ndim) + " vs " + ndim_text(base.ndim));
  if (base.vdevice != nullptr && derived.vdevice != nullptr &&
      !same_vdevice(base.vdevice, derived.vdevice))
    verdict.add(Compat::Incompatible,
                "vdevice " + vdevice_text(derived.vdevice) + " vs " + vdevice_text(base.vdevice));
  if (verdict.failed()) return;
  if (base.ndim >= 0 && derived.ndim < 0)
    verdict.add(Compat::Possibly, "ndim unknown vs " + ndim_text(base.ndim));
  if (base.shape != nullptr) {
    if (derived.shape == nullptr) {
      verdict.add(Compat::Possibly, "shape unknown vs " + shape_text(base.shape));
    } else {
      compare_tensor_shapes(analyzer, derived.shape, base.shape, verdict);
    }
  }
  if (verdict.failed()) return;
  if (derived.dtype.is_void() && !base.dtype.is_void())
    verdict.add(Compat::Possibly, "dtype unknown vs " + dtype_text(base.dtype));
  if (derived.vdevice == nullptr && base.vdevice != nullptr)
    verdict.add(Compat::Possibly, "vdevice unknown vs " + vdevice_text(base.vdevice));
}

void check_shape(arith::Analyzer& analyzer, const ir::ShapeSInfo& base,
                 const ir::ShapeSInfo& derived, Verdict& verdict) {
  if (base.ndim < 0) return;
  if (derived.ndim < 0) {
    verdict.add(Compat::Possibly, "ndim unknown vs " + ndim_text(base.ndim));
  } else if (derived.ndim != base.ndim) {
    return verdict.add(Compat::Incompatible,
                       "ndim " + ndim_text(derived.ndim) + " vs " + ndim_text(base.ndim));
  }
  if (!base.values) return;
  if (!derived.values) return verdict.add(Compat::Possibly, "shape values unknown");
  compare_dims(analyzer, *derived.values, *base.values, verdict);
}

void check_prim(arith::Analyzer& analyzer, const ir::PrimSInfo& base, const ir::PrimSInfo& derived,
                Verdict& verdict) {
  if (!(base.dtype == derived.dtype))
    return verdict.add(Compat::Incompatible,
                       "dtype " + dtype_text(derived.dtype) + " vs " + dtype_text(base.dtype));
  if (base.value == nullptr) return;
  if (derived.value == nullptr)
    return verdict.add(Compat::Possibly, "value unknown vs " + quoted(prim_text(base.value)));
  verdict.add(from_proof(analyzer.compare(derived.value, base.value)),
              "value " + quoted(prim_text(derived.value)) + " vs " + quoted(prim_text(base.value)));
}

void check_tuple(arith::Analyzer& analyzer, const ir::TupleSInfo& base,
                 const ir::TupleSInfo& derived, Verdict& verdict) {
  if (base.fields.size() != derived.fields.size())
    return verdict.add(Compat::Incompatible, "tuple size " + std::to_string(derived.fields.size()) +
                                                 " vs " + std::to_string(base.fields.size()));
  for (size_t i = 0; i < base.fields.size() && !verdict.failed(); ++i) {
    CompatResult r = check(analyzer, base.fields[i], derived.fields[i]);
    verdict.add(r.result, "field " + std::to_string(i) + ": " + r.detail);
  }
}

void check_func(arith::Analyzer& analyzer, const ir::FuncSInfo& base, const ir::FuncSInfo& derived,
                Verdict& verdict) {
  if (base.is_opaque() != derived.is_opaque())
    return verdict.add(Compat::Incompatible, base.is_opaque() ? "callable with parameters vs opaque"
                                                              : "opaque callable vs parameters");
  if (base.is_opaque()) {
    if (base.derive_func != derived.derive_func)
      verdict.add(Compat::Possibly,
                  "derive_func " + quoted(derived.derive_func) + " vs " + quoted(base.derive_func));
    return;
  }
  if (base.params->size() != derived.params->size())
    return verdict.add(Compat::Incompatible, "parameter count " +
                                                 std::to_string(derived.params->size()) + " vs " +
                                                 std::to_string(base.params->size()));
  if (!derived.purity && base.purity)
    return verdict.add(Compat::Incompatible, "impure callable vs pure");
  // Rename the derived function's own shape variables to the expected function's.
  arith::VarMap mapping;
  for (size_t i = 0; i < base.params->size(); ++i)
    get_shape_var_mapping((*derived.params)[i], (*base.params)[i], mapping);
  for (size_t i = 0; i < base.params->size() && !verdict.failed(); ++i) {
    const StructInfo* mine = substitute(analyzer, (*derived.params)[i], mapping);
    // Parameters are contravariant: the expected parameter must be accepted by ours.
    CompatResult r = check(analyzer, mine, (*base.params)[i]);
    verdict.add(r.result, "parameter " + std::to_string(i) + ": " + r.detail);
  }
  if (verdict.failed()) return;
  CompatResult r = check(analyzer, base.ret, substitute(analyzer, derived.ret, mapping));
  verdict.add(r.result, "return: " + r.detail);
}

CompatResult check(arith::Analyzer& analyzer, const StructInfo* base, const StructInfo* derived) {
  Verdict verdict;
  if (base == nullptr || base->kind == SInfoKind::Object || base == derived) return verdict.result;
  // The unknown StructInfo of an error fits everywhere: no diagnostic follows from an error.
  if (ir::is_unknown(derived)) return verdict.result;
  // Seed spec, check_compatibility step 2 (and "Relax is strongly typed"): an Object where a
  // specific kind is expected is a mismatch, not a maybe; 'R.match_cast' is the explicit check.
  if (derived == nullptr || derived->kind == SInfoKind::Object) {
    verdict.add(Compat::Incompatible, "Object vs " + std::string(kind_name(base->kind)) +
                                          "; 'R.match_cast' checks the value at run time");
    return verdict.result;
  }
  if (base->kind != derived->kind) {
    verdict.add(Compat::Incompatible,
                std::string(kind_name(derived->kind)) + " vs " + kind_name(base->kind));
    return verdict.result;
  }
  switch (base->kind) {
    case SInfoKind::Tensor:
      check_tensor(analyzer, *ir::cast<ir::TensorSInfo>(base), *ir::cast<ir::TensorSInfo>(derived),
                   verdict);
      break;
    case SInfoKind::Shape:
      check_shape(analyzer, *ir::cast<ir::ShapeSInfo>(base), *ir::cast<ir::ShapeSInfo>(derived),
                  verdict);
      break;
    case SInfoKind::Prim:
      check_prim(analyzer, *ir::cast<ir::PrimSInfo>(base), *ir::cast<ir::PrimSInfo>(derived),
                 verdict);
      break;
    case SInfoKind::Tuple:
      check_tuple(analyzer, *ir::cast<ir::TupleSInfo>(base), *ir::cast<ir::TupleSInfo>(derived),
                  verdict);
      break;
    case SInfoKind::Func:
      check_func(analyzer, *ir::cast<ir::FuncSInfo>(base), *ir::cast<ir::FuncSInfo>(derived),
                 verdict);
      break;
    case SInfoKind::Object: break;
  }
  return verdict.result;
}

// ------------------------------------------------------------------------------- equality

bool prim_equal(arith::Analyzer& analyzer, const ir::PrimExpr* a, const ir::PrimExpr* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return analyzer.compare(a, b) == Proof::Equal;
}

bool dims_equal(arith::Analyzer& analyzer, const std::vector<const ir::PrimExpr*>& a,
                const std::vector<const ir::PrimExpr*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!prim_equal(analyzer, a[i], b[i])) return false;
  return true;
}

// Two tensor shape fields provably hold the same shape.
bool shapes_equal(arith::Analyzer& analyzer, const ir::Expr* a, const ir::Expr* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  const auto* ea = ir::dyn_cast<ir::ShapeExpr>(a);
  const auto* eb = ir::dyn_cast<ir::ShapeExpr>(b);
  return ea != nullptr && eb != nullptr && dims_equal(analyzer, ea->values, eb->values);
}

bool equal(arith::Analyzer& analyzer, const StructInfo* a, const StructInfo* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || a->kind != b->kind) return false;
  switch (a->kind) {
    case SInfoKind::Object: return true;
    case SInfoKind::Prim: {
      const auto *x = ir::cast<ir::PrimSInfo>(a), *y = ir::cast<ir::PrimSInfo>(b);
      return x->dtype == y->dtype && prim_equal(analyzer, x->value, y->value);
    }
    case SInfoKind::Shape: {
      const auto *x = ir::cast<ir::ShapeSInfo>(a), *y = ir::cast<ir::ShapeSInfo>(b);
      if (x->ndim != y->ndim || x->values.has_value() != y->values.has_value()) return false;
      return !x->values || dims_equal(analyzer, *x->values, *y->values);
    }
    case SInfoKind::Tensor: {
      const auto *x = ir::cast<ir::TensorSInfo>(a), *y = ir::cast<ir::TensorSInfo>(b);
      return x->ndim == y->ndim && x->dtype == y->dtype && same_vdevice(x->vdevice, y->vdevice) &&
             ir::same_distribution(x->dist, y->dist) &&
             (x->shape == nullptr) == (y->shape == nullptr) &&
             shapes_equal(analyzer, x->shape, y->shape);
    }
    case SInfoKind::Tuple: {
      const auto *x = ir::cast<ir::TupleSInfo>(a), *y = ir::cast<ir::TupleSInfo>(b);
      if (x->fields.size() != y->fields.size()) return false;
      for (size_t i = 0; i < x->fields.size(); ++i)
        if (!equal(analyzer, x->fields[i], y->fields[i])) return false;
      return true;
    }
    case SInfoKind::Func: {
      const auto *x = ir::cast<ir::FuncSInfo>(a), *y = ir::cast<ir::FuncSInfo>(b);
      if (x->purity != y->purity || x->is_opaque() != y->is_opaque()) return false;
      if (x->is_opaque())
        return x->derive_func == y->derive_func && equal(analyzer, x->ret, y->ret);
      if (x->params->size() != y->params->size()) return false;
      for (size_t i = 0; i < x->params->size(); ++i)
        if (!equal(analyzer, (*x->params)[i], (*y->params)[i])) return false;
      return equal(analyzer, x->ret, y->ret);
    }
  }
  return false;
}

// ------------------------------------------------------------------------------- LUB

const StructInfo* object(arith::Analyzer& analyzer) {
  return analyzer.arena().make<ir::ObjectSInfo>();
}

const StructInfo* lub(arith::Analyzer& analyzer, const StructInfo* a, const StructInfo* b);

const StructInfo* lub_prim(arith::Analyzer& analyzer, const ir::PrimSInfo* a,
                           const ir::PrimSInfo* b) {
  if (!(a->dtype == b->dtype)) return object(analyzer);
  if (a->value == nullptr) return a;
  if (b->value == nullptr) return b;
  if (prim_equal(analyzer, a->value, b->value)) return a;
  return analyzer.arena().make<ir::PrimSInfo>(a->dtype, nullptr);
}

const StructInfo* lub_shape(arith::Analyzer& analyzer, const ir::ShapeSInfo* a,
                            const ir::ShapeSInfo* b) {
  if (a->ndim < 0) return a;
  if (b->ndim < 0) return b;
  if (a->ndim != b->ndim) return analyzer.arena().make<ir::ShapeSInfo>(std::nullopt, -1);
  if (!a->values) return a;
  if (!b->values) return b;
  if (dims_equal(analyzer, *a->values, *b->values)) return a;
  return analyzer.arena().make<ir::ShapeSInfo>(std::nullopt, a->ndim);
}

const StructInfo* lub_tensor(arith::Analyzer& analyzer, const ir::TensorSInfo* a,
                             const ir::TensorSInfo* b) {
  // Distributed differently (or only one distributed): nothing tensor-like is common to both.
  if (!ir::same_distribution(a->dist, b->dist)) return analyzer.arena().make<ir::ObjectSInfo>();
  int ndim = a->ndim == b->ndim ? a->ndim : -1;
  ir::DataType dtype = a->dtype == b->dtype ? a->dtype : ir::DataType::Void();
  const ir::VDevice* vdevice = same_vdevice(a->vdevice, b->vdevice) ? a->vdevice : nullptr;
  const ir::Expr* shape = nullptr;
  if (ndim >= 0 && shapes_equal(analyzer, a->shape, b->shape)) shape = a->shape;
  if (shape == a->shape && ndim == a->ndim && dtype == a->dtype && vdevice == a->vdevice) return a;
  auto* lub = analyzer.arena().make<ir::TensorSInfo>(shape, dtype, vdevice, ndim);
  lub->dist = a->dist;
  return lub;
}

const StructInfo* lub_tuple(arith::Analyzer& analyzer, const ir::TupleSInfo* a,
                            const ir::TupleSInfo* b) {
  if (a->fields.size() != b->fields.size()) return object(analyzer);
  std::vector<const StructInfo*> fields;
  bool same = true;
  for (size_t i = 0; i < a->fields.size(); ++i) {
    fields.push_back(lub(analyzer, a->fields[i], b->fields[i]));
    same &= fields.back() == a->fields[i];
  }
  if (same) return a;
  return analyzer.arena().make<ir::TupleSInfo>(std::move(fields));
}

const StructInfo* lub_func(arith::Analyzer& analyzer, const ir::FuncSInfo* a,
                           const ir::FuncSInfo* b) {
  if (a->is_opaque() != b->is_opaque()) return object(analyzer);
  bool purity = a->purity && b->purity;
  if (a->is_opaque()) {
    if (a->derive_func != b->derive_func)
      return analyzer.arena().make<ir::FuncSInfo>(std::nullopt, object(analyzer), purity);
    const StructInfo* ret = lub(analyzer, a->ret, b->ret);
    if (ret == a->ret && purity == a->purity) return a;
    return analyzer.arena().make<ir::FuncSInfo>(std::nullopt, ret, purity, a->derive_func);
  }
  if (a->params->size() != b->params->size()) return object(analyzer);
  // Parameters must be (provably) the same: without a GLB there is nothing else to use.
  for (size_t i = 0; i < a->params->size(); ++i) {
    const StructInfo* pa = (*a->params)[i];
    const StructInfo* pb = (*b->params)[i];
    if (check(analyzer, pa, pb).result != Compat::Compatible ||
        check(analyzer, pb, pa).result != Compat::Compatible)
      return object(analyzer);
  }
  const StructInfo* ret = lub(analyzer, a->ret, b->ret);
  if (ret == a->ret && purity == a->purity) return a;
  return analyzer.arena().make<ir::FuncSInfo>(a->params, ret, purity);
}

const StructInfo* lub(arith::Analyzer& analyzer, const StructInfo* a, const StructInfo* b) {
  if (a == b) return a;
  // What joins an error is unknown too, not R.Object: nothing is to be reported about it.
  if (ir::is_unknown(a) || ir::is_unknown(b)) return ir::unknown_sinfo();
  if (a == nullptr || a->kind == SInfoKind::Object) return a != nullptr ? a : object(analyzer);
  if (b == nullptr || b->kind == SInfoKind::Object) return b != nullptr ? b : object(analyzer);
  if (a->kind != b->kind) return object(analyzer);
  switch (a->kind) {
    case SInfoKind::Prim:
      return lub_prim(analyzer, ir::cast<ir::PrimSInfo>(a), ir::cast<ir::PrimSInfo>(b));
    case SInfoKind::Shape:
      return lub_shape(analyzer, ir::cast<ir::ShapeSInfo>(a), ir::cast<ir::ShapeSInfo>(b));
    case SInfoKind::Tensor:
      return lub_tensor(analyzer, ir::cast<ir::TensorSInfo>(a), ir::cast<ir::TensorSInfo>(b));
    case SInfoKind::Tuple:
      return lub_tuple(analyzer, ir::cast<ir::TupleSInfo>(a), ir::cast<ir::TupleSInfo>(b));
    case SInfoKind::Func:
      return lub_func(analyzer, ir::cast<ir::FuncSInfo>(a), ir::cast<ir::FuncSInfo>(b));
    case SInfoKind::Object: break;
  }
  return a;
}

// ------------------------------------------------------------------------------- erasure

bool mentions_out_of_scope(const ir::PrimExpr* e, const Scope& scope) {
  std::vector<const ir::PrimVar*> vars = ir::prim_vars(e);
  return std::any_of(vars.begin(), vars.end(),
                     [&](const ir::PrimVar* v) { return !scope.has_shape_var(v); });
}

bool any_out_of_scope(const std::vector<const ir::PrimExpr*>& dims, const Scope& scope) {
  return std::any_of(dims.begin(), dims.end(),
                     [&](const ir::PrimExpr* d) { return mentions_out_of_scope(d, scope); });
}

const StructInfo* erase(arith::Analyzer& analyzer, const StructInfo* s, const Scope& scope) {
  if (s == nullptr) return s;
  ir::Arena& arena = analyzer.arena();
  switch (s->kind) {
    case SInfoKind::Object: return s;
    case SInfoKind::Prim: {
      const auto* p = ir::cast<ir::PrimSInfo>(s);
      if (p->value == nullptr || !mentions_out_of_scope(p->value, scope)) return s;
      return arena.make<ir::PrimSInfo>(p->dtype, nullptr, s->span);
    }
    case SInfoKind::Shape: {
      const auto* p = ir::cast<ir::ShapeSInfo>(s);
      if (!p->values || !any_out_of_scope(*p->values, scope)) return s;
      return arena.make<ir::ShapeSInfo>(std::nullopt, p->ndim, s->span);
    }
    case SInfoKind::Tensor: {
      const auto* t = ir::cast<ir::TensorSInfo>(s);
      bool drop = false;
      if (const auto* var = ir::dyn_cast<ir::Var>(t->shape)) drop = !scope.has_var(var);
      if (const auto* shape = ir::dyn_cast<ir::ShapeExpr>(t->shape))
        drop = any_out_of_scope(shape->values, scope);
      if (!drop) return s;
      auto* erased = arena.make<ir::TensorSInfo>(nullptr, t->dtype, t->vdevice, t->ndim, s->span);
      erased->dist = t->dist;
      return erased;
    }
    case SInfoKind::Tuple: {
      const auto* t = ir::cast<ir::TupleSInfo>(s);
      std::vector<const StructInfo*> fields;
      bool same = true;
      for (const StructInfo* f : t->fields) {
        fields.push_back(erase(analyzer, f, scope));
        same &= fields.back() == f;
      }
      return same ? s : arena.make<ir::TupleSInfo>(std::move(fields), s->span);
    }
    case SInfoKind::Func: {
      const auto* f = ir::cast<ir::FuncSInfo>(s);
      // Shape variables first appearing in the parameters are bound by the call itself.
      std::vector<const ir::PrimVar*> own = ir::shape_vars(s);
      Scope inner = scope;
      if (!own.empty()) {
        auto set = std::make_shared<std::unordered_set<const ir::PrimVar*>>(own.begin(), own.end());
        inner.has_shape_var = [outer = scope.has_shape_var, set](const ir::PrimVar* v) {
          return set->count(v) != 0 || outer(v);
        };
      }
      std::optional<std::vector<const StructInfo*>> params;
      bool same = true;
      if (f->params) {
        params.emplace();
        for (const StructInfo* p : *f->params) {
          params->push_back(erase(analyzer, p, inner));
          same &= params->back() == p;
        }
      }
      const StructInfo* ret = erase(analyzer, f->ret, inner);
      same &= ret == f->ret;
      if (same) return s;
      return arena.make<ir::FuncSInfo>(std::move(params), ret, f->purity, f->derive_func, s->span);
    }
  }
  return s;
}

// ------------------------------------------------------------------------------- mapping

void map_dim(const ir::PrimExpr* param_dim, const ir::PrimExpr* arg_dim, arith::VarMap& mapping) {
  const auto* var = ir::dyn_cast<ir::PrimVar>(param_dim);
  if (var == nullptr || arg_dim == nullptr) return;
  mapping.emplace(var, arg_dim);  // the first binding position wins
}

}  // namespace

CompatResult check_compatibility(arith::Analyzer& analyzer, const ir::StructInfo* base,
                                 const ir::StructInfo* derived, const VarStructInfo& var_sinfo) {
  const VarStructInfo* outer = scope_sinfo;
  scope_sinfo = &var_sinfo;
  CompatResult r = check(analyzer, base, derived);
  scope_sinfo = outer;
  return r;
}

bool struct_info_equal(arith::Analyzer& analyzer, const ir::StructInfo* a,
                       const ir::StructInfo* b) {
  return equal(analyzer, a, b);
}

const ir::StructInfo* unify(arith::Analyzer& analyzer, const ir::StructInfo* a,
                            const ir::StructInfo* b) {
  return lub(analyzer, a, b);
}

const ir::StructInfo* erase_to_well_defined(arith::Analyzer& analyzer, const ir::StructInfo* s,
                                            const Scope& scope) {
  return erase(analyzer, s, scope);
}

bool get_shape_var_mapping(const ir::StructInfo* param, const ir::StructInfo* arg,
                           arith::VarMap& mapping) {
  if (param == nullptr || arg == nullptr) return false;
  if (param->kind == SInfoKind::Object) return true;
  if (param->kind != arg->kind) return false;
  switch (param->kind) {
    case SInfoKind::Object: return true;
    case SInfoKind::Prim: {
      const auto *p = ir::cast<ir::PrimSInfo>(param), *a = ir::cast<ir::PrimSInfo>(arg);
      if (p->value != nullptr) map_dim(p->value, a->value, mapping);
      return true;
    }
    case SInfoKind::Shape: {
      const auto *p = ir::cast<ir::ShapeSInfo>(param), *a = ir::cast<ir::ShapeSInfo>(arg);
      if (!p->values || !a->values) return true;
      if (p->values->size() != a->values->size()) return false;
      for (size_t i = 0; i < p->values->size(); ++i)
        map_dim((*p->values)[i], (*a->values)[i], mapping);
      return true;
    }
    case SInfoKind::Tensor: {
      const auto *p = ir::cast<ir::TensorSInfo>(param), *a = ir::cast<ir::TensorSInfo>(arg);
      auto pd = tensor_dims(*p), ad = tensor_dims(*a);
      if (!pd || !ad) return true;
      if (pd->size() != ad->size()) return false;
      for (size_t i = 0; i < pd->size(); ++i) map_dim((*pd)[i], (*ad)[i], mapping);
      return true;
    }
    case SInfoKind::Tuple: {
      const auto *p = ir::cast<ir::TupleSInfo>(param), *a = ir::cast<ir::TupleSInfo>(arg);
      if (p->fields.size() != a->fields.size()) return false;
      bool ok = true;
      for (size_t i = 0; i < p->fields.size(); ++i)
        ok &= get_shape_var_mapping(p->fields[i], a->fields[i], mapping);
      return ok;
    }
    case SInfoKind::Func: {
      const auto *p = ir::cast<ir::FuncSInfo>(param), *a = ir::cast<ir::FuncSInfo>(arg);
      if (p->is_opaque() || a->is_opaque()) return p->is_opaque() == a->is_opaque();
      if (p->params->size() != a->params->size()) return false;
      bool ok = true;
      for (size_t i = 0; i < p->params->size(); ++i)
        ok &= get_shape_var_mapping((*p->params)[i], (*a->params)[i], mapping);
      return ok;  // the return type is not a binding position
    }
  }
  return true;
}

const ir::StructInfo* substitute(arith::Analyzer& analyzer, const ir::StructInfo* s,
                                 const arith::VarMap& mapping) {
  if (s == nullptr || mapping.empty()) return s;
  ir::Arena& arena = analyzer.arena();
  auto dims = [&](const std::vector<const ir::PrimExpr*>& in, bool& changed) {
    std::vector<const ir::PrimExpr*> out;
    for (const ir::PrimExpr* d : in) {
      out.push_back(analyzer.substitute(d, mapping));
      changed |= out.back() != d;
    }
    return out;
  };
  switch (s->kind) {
    case SInfoKind::Object: return s;
    case SInfoKind::Prim: {
      const auto* p = ir::cast<ir::PrimSInfo>(s);
      const ir::PrimExpr* value = analyzer.substitute(p->value, mapping);
      return value == p->value ? s : arena.make<ir::PrimSInfo>(p->dtype, value, s->span);
    }
    case SInfoKind::Shape: {
      const auto* p = ir::cast<ir::ShapeSInfo>(s);
      if (!p->values) return s;
      bool changed = false;
      auto values = dims(*p->values, changed);
      return changed ? arena.make<ir::ShapeSInfo>(std::move(values), p->ndim, s->span) : s;
    }
    case SInfoKind::Tensor: {
      const auto* t = ir::cast<ir::TensorSInfo>(s);
      const auto* shape = ir::dyn_cast<ir::ShapeExpr>(t->shape);
      if (shape == nullptr) return s;
      bool changed = false;
      auto values = dims(shape->values, changed);
      if (!changed) return s;
      const auto* new_shape = arena.make<ir::ShapeExpr>(std::move(values), shape->span);
      auto* substituted =
          arena.make<ir::TensorSInfo>(new_shape, t->dtype, t->vdevice, t->ndim, s->span);
      substituted->dist = t->dist;
      return substituted;
    }
    case SInfoKind::Tuple: {
      const auto* t = ir::cast<ir::TupleSInfo>(s);
      std::vector<const StructInfo*> fields;
      bool changed = false;
      for (const StructInfo* f : t->fields) {
        fields.push_back(substitute(analyzer, f, mapping));
        changed |= fields.back() != f;
      }
      return changed ? arena.make<ir::TupleSInfo>(std::move(fields), s->span) : s;
    }
    case SInfoKind::Func: {
      const auto* f = ir::cast<ir::FuncSInfo>(s);
      bool changed = false;
      std::optional<std::vector<const StructInfo*>> params;
      if (f->params) {
        params.emplace();
        for (const StructInfo* p : *f->params) {
          params->push_back(substitute(analyzer, p, mapping));
          changed |= params->back() != p;
        }
      }
      const StructInfo* ret = substitute(analyzer, f->ret, mapping);
      changed |= ret != f->ret;
      if (!changed) return s;
      return arena.make<ir::FuncSInfo>(std::move(params), ret, f->purity, f->derive_func, s->span);
    }
  }
  return s;
}

std::optional<std::vector<const ir::PrimExpr*>> tensor_dims(const ir::TensorSInfo& tensor) {
  if (const auto* shape = ir::dyn_cast<ir::ShapeExpr>(tensor.shape)) return shape->values;
  return std::nullopt;
}

}  // namespace raxc::analysis
