// Element-wise fusion (TVM's FuseOps + FuseTIR, for chains of injective kernels): before code
// generation (after legalization), `lv = R.call_tir(f, (a, b))` whose only use is an argument of a
// later `R.call_tir(g, (lv, c))` in the same binding block, with `f` and `g` each one loop nest
// over their output writing every element once, becomes `R.call_tir(fused_f_g, (a, b, c))`: `g`'s
// loads of `lv` are replaced by `f`'s formula at the loaded index. The intermediate tensor is
// never allocated, and the chain makes one pass over memory instead of one per operator.
//
// What fuses, conservatively: both kernels are a single stage of spatial loops from 0 over their
// output's shape with the block variables bound to the loops, a store to the output at exactly
// the block variables, no allocation, no reduction, no calls with effects; the call has no
// tir_vars; `lv` is used once in the whole function (so nothing else needs the tensor);
// outside a dataflow block only calls of kernels stand between the two (nothing that could
// change the producer's inputs before its work, now the consumer's, runs); the
// producer's formula is inlined at most twice in the consumer (recomputation stays bounded).
// Kernels written by the user fuse as well when they have that form: the rewrite is exact, each
// element is computed by the same formula in the same precision.
#pragma once
#include "backend/legalize/legalize.h"

namespace raxc::backend {

struct FuseStats {
  size_t fused_calls = 0;  // producer calls folded into their consumer
};

// Rewrites the module's Relax functions in place; new PrimFuncs are added to its globals.
FuseStats fuse_elementwise(LoweredModule& lowered);

}  // namespace raxc::backend
