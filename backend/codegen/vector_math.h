// Math functions the loop vectorizer can widen (private to backend/codegen).
//
// LLVM widens `llvm.exp.f32` to `llvm.exp.v8f32` and then the code generator splits it back into
// eight scalar `expf` calls, and a libm call (`erff`, `tanhf`) stays scalar: a loop over them
// runs at libm's scalar speed however it is scheduled. Two remedies, chosen per function:
//
//  * float32 `exp` (softmax, sigmoid, SiLU, every exp of a model) and `erf` (GELU) are emitted
//    as straight-line arithmetic in always-inline functions, which vectorize with their loop;
//  * the other libm functions are called with a `vector-function-abi-variant` attribute naming
//    SLEEF's vector versions (Debian's libsleef3, 1-ulp `_u10` variants), so a widened loop
//    calls `Sleef_erff8_u10` on eight lanes at once; its scalar remainder still calls libm.
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string>

#include "backend/codegen/tir_codegen.h"

namespace raxc::backend {

// `exp(x)` for a float32 `x`, within 2 ulp of the correctly rounded result over the whole range:
// overflow gives +inf, underflow gradual denormals then 0, NaN stays NaN.
llvm::Value* emit_exp_f32(llvm::IRBuilderBase& builder, llvm::Value* x);

// `erf(x)` for a float32 `x`, within 6 ulp; NaN stays NaN.
llvm::Value* emit_erf_f32(llvm::IRBuilderBase& builder, llvm::Value* x);

// A call of the libm function `symbol` (`erff`, `tanh`, ...) with `args` of type `type`; when
// SLEEF has vector versions of it, the call names them so the loop vectorizer can use them.
llvm::Value* emit_libm_call(llvm::IRBuilderBase& builder, const std::string& symbol,
                            llvm::Type* type, llvm::ArrayRef<llvm::Value*> args);

}  // namespace raxc::backend
