// StructInfo inference (seed spec "Derivation Rules" 1-16) for one Relax function:
// the StructInfo of every expression and variable, purity, vdevice propagation, match_cast and
// annotation checks. Incompatible -> RX3xxx errors; possibly compatible -> RX4xxx warnings that
// name both StructInfos and the dimension(s) not proven equal, suggest R.match_cast, and point
// (related information) at the parameter or annotation on the other side.
#pragma once
#include <functional>
#include <unordered_map>

#include "analysis/arith/analyzer.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::analysis {

// What the inference of one function needs to know about the other globals: their
// StructInfo (a FuncSInfo built from the signature: annotated params and return; PrimFuncs
// their PrimFunc StructInfo). Returns nullptr for unknown names.
using GlobalSignatures = std::function<const ir::StructInfo*(const ir::GlobalVar*)>;

struct FunctionInference {
  std::unordered_map<const ir::Expr*, const ir::StructInfo*> expr_sinfo;  // every Expr node
  std::unordered_map<const ir::Var*, const ir::StructInfo*> var_sinfo;    // every bound var
  const ir::StructInfo* signature = nullptr;  // the function's FuncSInfo (after inference)
};

// The signature of a global from its annotations only: a missing return annotation gives
// R.Object. What callers see of a recursive function (rule 15.2: recursion needs annotations).
const ir::StructInfo* signature_of(const ir::GlobalDef& global, arith::Analyzer& analyzer);

// The signature callers see (rules 1, 15.2 and 15.6): `annotated` (signature_of) for every global
// except a Relax function that has no return annotation and is not recursive (directly or
// through other globals); its return is erase_to_well_defined of its inferred body, inferring
// the unannotated callees it calls first (call-graph order). infer_function() sees its callees
// this way, so an engine that caches signatures must key a caller on this, not on signature_of.
const ir::StructInfo* caller_signature(const ir::IRModule& module, const ir::GlobalDef& global,
                                       const GlobalSignatures& annotated,
                                       arith::Analyzer& analyzer);

// Infers `f` (after normalize()). New StructInfo nodes live in `analyzer.arena()`. Calls to
// globals see caller_signature(); RX4006 warns at calls to recursive unannotated functions.
// `name` is the global's name for messages; when empty it is looked up among the module's
// globals (a scan: the Engine, which checks every function of large modules, passes it).
FunctionInference infer_function(const ir::IRModule& module, const ir::Function* f,
                                 const GlobalSignatures& globals, arith::Analyzer& analyzer,
                                 DiagnosticSink& diags, std::string_view name = {});

// Convenience for tools and tests without an Engine: signature_of() for every global of
// `module`, computed on first use and cached. `module` and `analyzer` must outlive the result.
GlobalSignatures module_signatures(const ir::IRModule& module, arith::Analyzer& analyzer);

}  // namespace raxc::analysis
