// The symbolic shape prover: canonical form and comparison (see analyzer.h).
#include "analysis/arith/analyzer.h"

namespace raxc::analysis::arith {

struct Analyzer::Impl {};

Analyzer::Analyzer(ir::Arena& arena) : arena_(arena), impl_(new Impl) {}
Analyzer::~Analyzer() { delete impl_; }

}  // namespace raxc::analysis::arith
