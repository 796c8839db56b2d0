// Well-formedness (seed spec "Well-Formedness Criteria" 1-24): one RX2xxx code per
// criterion, messages that name the variable/function, related locations (where it was bound).
#pragma once
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::analysis {

// Module-wide criteria (global_symbol vs name, ...). Nothing is reported when the module says
// check_well_formed=False.
void check_module_well_formed(const ir::IRModule& module, DiagnosticSink& diags);

struct WellFormedOptions {
  // WF-12: at least one externally linked function. Only a program that is compiled needs an
  // entry point (TVM's own tests are full of modules whose functions are all private), so
  // `raxc check` leaves this off and `raxc build` / `raxc run` turn it on.
  bool require_entry_point = false;
};
void check_module_well_formed(const ir::IRModule& module, DiagnosticSink& diags,
                              const WellFormedOptions& options);

// WF-12 alone (RX2029): what `require_entry_point` adds, for callers that ran the other module
// criteria already (`raxc check --require-entry-point` on top of the engine's diagnostics).
void check_entry_point(const ir::IRModule& module, DiagnosticSink& diags);

// The criteria local to one global (scoping, shadowing, dataflow rules, recursion and return
// annotations, StructInfo annotations, vdevices listed in global_info, normal form, ...).
// `f` is the function after normalize(). Nothing is reported when the module says
// check_well_formed=False.
void check_function_well_formed(const ir::IRModule& module, const ir::GlobalDef& global,
                                const ir::Function* f, DiagnosticSink& diags);

}  // namespace raxc::analysis
