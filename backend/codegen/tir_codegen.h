// TIR PrimFunc -> LLVM IR. Each PrimFunc becomes one function with the packed signature of
// backend/runtime/raxc_runtime.h: it checks its arguments (count, kinds, every tensor's ndim,
// dtype, shape and strides against the buffers it declares, binding the symbolic variables in
// parameter order) and then runs the body. Checks that fail at run time call raxc_fail() with
// a constant error site that carries the diagnostic code and the .rx span, and return 1.
//
// What a construct means is text-format.md's TIR subset with TVM's semantics: blocks bind their
// iteration variables to the loop values, `T.init()` runs when every reduction variable is at
// its domain's start, `T.where` guards the block, floordiv/floormod round toward negative
// infinity while Div/Mod (truncdiv/truncmod) truncate.
#pragma once
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace llvm {
class Module;
}

namespace raxc::backend {

// SLEEF, the vector math library generated loops call (vector_math.h): loaded into the process
// when code is generated (so its functions count as defined when the kernels are checked
// before linking), and linked by `raxc build` and into `raxc run`'s kernels when the optimised
// module calls it. Where it is missing the calls stay scalar libm calls.
inline constexpr const char* kSleefLibrary = "libsleef.so.3";
bool calls_sleef(const llvm::Module& module);

struct CodegenOptions {
  // Every buffer access checks its indices against the buffer's shape (RX5011), with the .rx
  // span of the access. Off by default: it costs a compare and branch per index.
  bool check_bounds = false;
  // T.parallel loops run on the runtime's thread pool; off, they run serially.
  bool parallel = true;
};

// Emits `func` (named `name` in messages) as the external function `symbol` into `module`.
// Constructs the backend cannot compile are reported (RX5000, at their span) and make it return
// false; `module` may then hold a partial function and must be discarded.
bool emit_prim_func(llvm::Module& module, const ir::PrimFunc& func, const std::string& name,
                    const std::string& symbol, const CodegenOptions& options,
                    DiagnosticSink& diags);

}  // namespace raxc::backend
