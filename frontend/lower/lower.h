// CST → AST lowering of one `.rx` file (text-format.md). Reports RX1xxx diagnostics for the
// parse-time rules and keeps going with the other definitions after an error.
#pragma once
#include <memory>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"
#include "frontend/lower/cst.h"

namespace raxc::lower {

std::unique_ptr<ir::IRModule> lower_file(const cst::Cst& cst, TSNode root, DiagnosticSink& diags);

}  // namespace raxc::lower
