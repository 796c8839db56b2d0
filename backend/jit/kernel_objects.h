// `raxc run`'s kernels as a shared object: the PrimFuncs of a module compiled for this machine
// (host CPU and all its features, LLVM's O2) in groups on several threads, each group with its
// own LLVM context, then linked into one shared object (library.h) that the executable loads
// with dlopen, from the compiled-code cache or a private directory (backend/exec/kernels.h).
// Part of libraxc-codegen.so: the executable reaches these through codegen_api.h.
#pragma once
#include <optional>
#include <string>

#include "backend/jit/codegen_api.h"

namespace raxc::backend {

// CodegenApi::compile_kernels.
bool compile_kernels(const ir::IRModule& module, const CodegenOptions& options,
                     const std::string& output, DiagnosticSink& diags, CompileStats& stats);

// CodegenApi::kernels_llvm_ir.
std::optional<std::string> kernels_llvm_ir(const ir::IRModule& module,
                                           const CodegenOptions& options, bool optimize,
                                           DiagnosticSink& diags);

}  // namespace raxc::backend
