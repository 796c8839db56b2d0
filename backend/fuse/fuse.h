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
// outside a dataflow block only bindings that write fresh tensors (kernel calls, destination-
// passing packed calls, constants) stand between the two (nothing that could change the
// producer's inputs before its work, now the consumer's, runs); the
// producer's formula is inlined at most twice in the consumer (recomputation stays bounded).
// Kernels written by the user fuse as well when they have that form: the rewrite is exact, each
// element is computed by the same formula in the same precision.
#pragma once
#include "backend/legalize/legalize.h"

namespace raxc::backend {

struct FuseStats {
  size_t fused_calls = 0;  // producer calls folded into their consumer
  size_t epilogues = 0;    // products and convolutions that took the kernels after them
  size_t views = 0;        // products that read an operand through a view (views.cpp)
};

// Rewrites the module's Relax functions in place; new PrimFuncs are added to its globals. First
// the epilogues (fuse_epilogues), then the element-wise chains left, then the products' operand
// views (fold_operand_views).
FuseStats fuse_elementwise(LoweredModule& lowered);

// Epilogue fusion (epilogue.cpp): a float32 product `R.call_dps_packed("raxc.matmul_f32" |
// "raxc.linear_f32", ...)` whose result is used once, by a kernel multiplying it by a scalar,
// adding a bias along the last axis, applying GELU or ReLU, adding a residual of the result's
// shape (each step optional, in that order, each intermediate used once) becomes one call of
// "raxc.matmul_bias_gelu_residual_f32" and the like (the runtime's matmul_builtins), with the
// scale, bias and residual after the operands. A float32 convolution
// ("raxc.conv2d_nchw_f32") followed by a bias per output channel, a residual and ReLU (each
// optional, in that order) becomes "raxc.conv2d_nchw_bias_residual_relu_f32" and the like
// (conv2d_builtins), the bias and residual after x and w. A product's B transposed by a
// kernel from a 2-D tensor for that product alone is read as R.linear's weight ("raxc.linear_f32"
// and its fused forms) and the transpose dropped. The calls fused, counted.
size_t fuse_epilogues(LoweredModule& lowered);

// Operand views (views.cpp): a float32 product's operand that a kernel gathers from one tensor
// at an affine index (attention's reshape and transpose of q, k, v), for that product alone,
// is read by the product in place ("raxc.matmul_view…_f32" with the view's shape and map) and
// the kernel dropped. The products rewritten, counted.
size_t fold_operand_views(LoweredModule& lowered);

}  // namespace raxc::backend
