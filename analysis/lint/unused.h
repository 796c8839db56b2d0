// Lints: findings about valid programs that an editor shows (greyed out, with a quick fix) but
// `raxc check` reports only when asked (-WRX4009).
#pragma once
#include "frontend/diagnostics.h"
#include "frontend/ir/expr.h"

namespace raxc::analysis {

// RX4009 for every variable bound in `f` (nested functions included) and never used: not
// parameters, `_`-prefixed names, R.match_cast bindings (the check is their point) or values
// that may have an effect (calls other than to pure operators).
void check_unused_bindings(const ir::Function* f, DiagnosticSink& diags);

}  // namespace raxc::analysis
