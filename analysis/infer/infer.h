// StructInfo inference (seed spec "Derivation Rules" 1-16, issue 3 §3) for one Relax function:
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

// The signature of a global, from its annotations only (what callers may rely on).
const ir::StructInfo* signature_of(const ir::GlobalDef& global, arith::Analyzer& analyzer);

// Infers `f` (after normalize()). New StructInfo nodes live in `analyzer.arena()`.
FunctionInference infer_function(const ir::IRModule& module, const ir::Function* f,
                                 const GlobalSignatures& globals, arith::Analyzer& analyzer,
                                 DiagnosticSink& diags);

// Convenience for tools and tests without an Engine: signature_of() for every global of
// `module`, computed on first use and cached. `module` and `analyzer` must outlive the result.
GlobalSignatures module_signatures(const ir::IRModule& module, arith::Analyzer& analyzer);

}  // namespace raxc::analysis
