// The per-function well-formedness walk (scoping, dataflow rules, recursion, annotations).
#pragma once
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::analysis::wf {

void check_function(const ir::IRModule& module, const ir::GlobalDef& global, const ir::Function* f,
                    DiagnosticSink& diags);

}  // namespace raxc::analysis::wf
