// Well-formedness (seed spec "Well-Formedness Criteria" 1-24, issue 3 §2): one RX2xxx code per
// criterion, messages that name the variable/function, related locations (where it was bound).
#pragma once
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::analysis {

// Module-wide criteria (global_symbol vs name, vdevices listed in global_info, externally
// linked function, mutual recursion needing return annotations, ...).
void check_module_well_formed(const ir::IRModule& module, DiagnosticSink& diags);

// The criteria local to one global (scoping, shadowing, dataflow rules, normal form, ...).
// `f` is the function after normalize().
void check_function_well_formed(const ir::IRModule& module, const ir::GlobalDef& global,
                                const ir::Function* f, DiagnosticSink& diags);

}  // namespace raxc::analysis
