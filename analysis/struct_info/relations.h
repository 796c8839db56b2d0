// StructInfo relations of the seed spec ("Structural Information"): subtyping with definitely /
// possibly, compatibility, the LUB, erasure to well-defined StructInfo, shape-variable mapping
// and substitution. Pure functions over frontend IR; new nodes go to the analyzer's arena.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/arith/analyzer.h"
#include "frontend/ir/expr.h"
#include "frontend/ir/struct_info.h"

namespace raxc::analysis {

// check_compatibility's three results; never a bool.
enum class Compat : uint8_t { Compatible, Possibly, Incompatible };

struct CompatResult {
  Compat result = Compat::Compatible;
  // When not Compatible: what could not be proven / what differs, for messages, e.g.
  // "dimension 0: 'n' vs 'm'", "dtype 'float32' vs 'int32'", "ndim 2 vs 3", "field 1: ...".
  // Always "<derived> vs <base>" (the value's side first); nested positions are prefixed
  // ("field 1: ", "parameter 0: ", "return: "); unknown sides read "unknown"
  // ("dtype unknown vs 'float32'", "shape unknown vs '(2, 3)'"). Empty when Compatible.
  std::string detail;
};

// Is `derived` a subtype of `base` (the spec's `<:`)? Compatible = definitely, Possibly = only
// possibly (e.g. symbolic dims that cannot be proven equal), Incompatible = definitely not (also
// an Object where a specific kind is expected: the spec's step 2). Used for arguments vs parameters
// (derived = the argument's StructInfo) and values vs annotations.
// `var_sinfo` gives the StructInfo a Relax variable is bound to in the current scope, so that a
// tensor whose shape is an unannotated shape variable (`s = R.shape_of(x)`; `R.Tensor(s)`) is
// compared through the values the variable holds (step 6.6); without it only annotations count.
using VarStructInfo = std::function<const ir::StructInfo*(const ir::Var*)>;
CompatResult check_compatibility(arith::Analyzer& analyzer, const ir::StructInfo* base,
                                 const ir::StructInfo* derived,
                                 const VarStructInfo& var_sinfo = {});

// Structural equality (same kinds, provably equal dims, same dtype/vdevice/purity, ...).
bool struct_info_equal(arith::Analyzer& analyzer, const ir::StructInfo* a, const ir::StructInfo* b);

// The least upper bound (`unify_struct_info`), e.g. for the two branches of an If.
const ir::StructInfo* unify(arith::Analyzer& analyzer, const ir::StructInfo* a,
                            const ir::StructInfo* b);

// `erase_to_well_defined`: drops shape variables / Relax vars not in scope (the predicates say
// which are), e.g. for a function's return StructInfo seen from the caller.
struct Scope {
  std::function<bool(const ir::PrimVar*)> has_shape_var = [](const ir::PrimVar*) { return false; };
  std::function<bool(const ir::Var*)> has_var = [](const ir::Var*) { return false; };
};
const ir::StructInfo* erase_to_well_defined(arith::Analyzer& analyzer, const ir::StructInfo* s,
                                            const Scope& scope);

// `get_shape_var_mapping`: matches a callee parameter's StructInfo against an argument's and
// records `shape var -> argument expression` for each shape variable first defined by the
// parameter (plain variable dims only). Returns false if the shapes' structure cannot match.
bool get_shape_var_mapping(const ir::StructInfo* param, const ir::StructInfo* arg,
                           arith::VarMap& mapping);

// Substitutes shape variables in every PrimExpr of `s` (dims, PrimSInfo values, nested fields,
// function params/ret). Returns `s` itself when nothing changed.
const ir::StructInfo* substitute(arith::Analyzer& analyzer, const ir::StructInfo* s,
                                 const arith::VarMap& mapping);

// The dims of a tensor's shape when known (its shape is a ShapeExpr). Empty optional: unknown
// (no shape, or a shape held by a Var).
std::optional<std::vector<const ir::PrimExpr*>> tensor_dims(const ir::TensorSInfo& tensor);

// For messages, print StructInfo with printer::print_struct_info (frontend/printer/printer.h).

}  // namespace raxc::analysis
