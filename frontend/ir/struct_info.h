// StructInfo: the six kinds of the seed spec's "Structural Information" (with VDevice), and
// TVM's distributed tensor (DTensor) beside them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "frontend/ir/attrs.h"
#include "frontend/ir/distributed.h"
#include "frontend/ir/dtype.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/span.h"

namespace raxc::ir {

struct Expr;

// VDevice(target, dev_id, mem_scope) from I.module_global_infos({"vdevice": [...]}).
struct VDevice {
  std::string target_kind;  // "llvm", "cuda", … (the "kind" key of a dict target)
  AttrValue target;         // the target as written: a string or a configuration dict
  int64_t dev_id = 0;
  std::string mem_scope = "global";
  int index = -1;  // position in the module's vdevice list
  Span span;
};

enum class SInfoKind : uint8_t { Object, Prim, Shape, Tensor, Tuple, Func };

struct StructInfo {
  SInfoKind kind;
  Span span;

 protected:
  StructInfo(SInfoKind kind, Span span) : kind(kind), span(span) {}
};

// R.Object, or, with `unknown` set, the StructInfo of something that could not be analysed: an
// ir::ErrorExpr, a call with such an argument, a variable whose annotation contradicts its
// value. "Unknown" is compatible with everything in both directions and never causes a
// diagnostic of its own (rust-analyzer's `{unknown}`, clang's RecoveryExpr); code that does not
// know about it sees an R.Object, the top of the lattice, which is the safe reading. It is an
// Object with a flag rather than a seventh kind so that every existing switch over SInfoKind
// stays correct. It only exists in functions that have errors, so the printer never prints it
// into a file (`raxc check --show-struct-info` shows it as `{unknown}`).
struct ObjectSInfo : StructInfo {
  bool unknown = false;
  explicit ObjectSInfo(Span span = {}, bool unknown = false)
      : StructInfo(SInfoKind::Object, span), unknown(unknown) {}
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Object; }
};

// The one unknown StructInfo (immutable, shared by every use).
const StructInfo* unknown_sinfo();
inline bool is_unknown(const StructInfo* s) {
  return s && s->kind == SInfoKind::Object && static_cast<const ObjectSInfo*>(s)->unknown;
}

struct PrimSInfo : StructInfo {
  DataType dtype;
  const PrimExpr* value = nullptr;  // R.Prim(value=n)
  PrimSInfo(DataType dtype, const PrimExpr* value, Span span = {})
      : StructInfo(SInfoKind::Prim, span), dtype(dtype), value(value) {}
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Prim; }
};

struct ShapeSInfo : StructInfo {
  std::optional<std::vector<const PrimExpr*>> values;  // known dims
  int ndim = -1;                                       // -1: unknown rank
  ShapeSInfo(std::optional<std::vector<const PrimExpr*>> values, int ndim, Span span = {})
      : StructInfo(SInfoKind::Shape, span), values(std::move(values)), ndim(ndim) {}
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Shape; }
};

// A tensor, or with `dist` set a DTensor (TVM's DTensorStructInfo: this tensor part, a device mesh
// and a placement). A DTensor is a kind of its own for every relation (a DTensor is never a
// Tensor, nor the reverse); it is a flag on the tensor rather than a seventh SInfoKind so that
// inference of the tensor part, substitution and erasure apply to both unchanged.
struct TensorSInfo : StructInfo {
  const Expr* shape = nullptr;  // ShapeExpr, or a Var of shape kind; null when unknown
  DataType dtype;               // void when unknown
  const VDevice* vdevice = nullptr;
  int ndim = -1;                       // -1: unknown rank
  const Distribution* dist = nullptr;  // set for a DTensor
  TensorSInfo(const Expr* shape, DataType dtype, const VDevice* vdevice, int ndim, Span span = {})
      : StructInfo(SInfoKind::Tensor, span),
        shape(shape),
        dtype(dtype),
        vdevice(vdevice),
        ndim(ndim) {}
  bool is_distributed() const { return dist != nullptr; }
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Tensor; }
};

// A DTensor StructInfo (a TensorSInfo with a distribution), or null.
inline const TensorSInfo* as_dtensor(const StructInfo* s) {
  if (!s || s->kind != SInfoKind::Tensor) return nullptr;
  auto* t = static_cast<const TensorSInfo*>(s);
  return t->dist ? t : nullptr;
}

struct TupleSInfo : StructInfo {
  std::vector<const StructInfo*> fields;
  explicit TupleSInfo(std::vector<const StructInfo*> fields, Span span = {})
      : StructInfo(SInfoKind::Tuple, span), fields(std::move(fields)) {}
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Tuple; }
};

struct FuncSInfo : StructInfo {
  std::optional<std::vector<const StructInfo*>> params;  // nullopt: opaque
  const StructInfo* ret;
  bool purity;
  std::string derive_func;  // R.Callable(derive_func="…"); empty when absent
  FuncSInfo(std::optional<std::vector<const StructInfo*>> params, const StructInfo* ret,
            bool purity, std::string derive_func = {}, Span span = {})
      : StructInfo(SInfoKind::Func, span),
        params(std::move(params)),
        ret(ret),
        purity(purity),
        derive_func(std::move(derive_func)) {}
  bool is_opaque() const { return !params.has_value(); }
  static bool classof(const StructInfo* s) { return s->kind == SInfoKind::Func; }
};

}  // namespace raxc::ir
