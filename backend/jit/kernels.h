// Compiles the PrimFuncs of a module for this machine and keeps them loaded: the host CPU's
// target machine (all its vector features), LLVM's O3 pipeline, ORC LLJIT. The runtime
// functions generated code calls are registered explicitly; C library symbols (libm, for
// T.call_extern) resolve from the process.
//
// The executor sees only packed function pointers: no LLVM type crosses this header.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backend/codegen/tir_codegen.h"
#include "backend/runtime/raxc_runtime.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

class ObjectCache;

struct CompileStats {
  size_t kernels = 0;
  // Summed over the threads kernels are compiled on (kernels.cpp), so more than the wall time.
  double codegen_ms = 0;   // TIR -> LLVM IR
  double optimize_ms = 0;  // O3
  double jit_ms = 0;       // machine code and linking
  bool cached = false;     // machine code came from the object cache (object_cache.h)
};

class KernelLibrary {
 public:
  ~KernelLibrary();
  // The compiled packed entry of the PrimFunc named `global`, or null when the module has no
  // such PrimFunc.
  RaxcPackedFunc find(std::string_view global) const;

  // Compiles every PrimFunc of `module`, through the object cache when `use_cache` (the code a
  // previous run compiled from the same IR is loaded instead). Refusals (RX5000) and LLVM
  // failures are reported into `diags`; null is returned then.
  static std::unique_ptr<KernelLibrary> compile(const ir::IRModule& module,
                                                const CodegenOptions& options,
                                                DiagnosticSink& diags, CompileStats* stats,
                                                bool use_cache = false);

  // The optimised LLVM IR of the module's PrimFuncs as text (`raxc run --emit-llvm`), or the
  // diagnostics' reason for not producing it.
  static std::optional<std::string> llvm_ir(const ir::IRModule& module,
                                            const CodegenOptions& options, bool optimize,
                                            DiagnosticSink& diags);

 private:
  enum class CacheUse { Load, Replace };
  struct Part;
  static std::unique_ptr<KernelLibrary> compile_with(const ir::IRModule& module,
                                                     const CodegenOptions& options,
                                                     DiagnosticSink& diags, CompileStats& st,
                                                     const ObjectCache* cache, CacheUse use);
  KernelLibrary();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::unordered_map<std::string, RaxcPackedFunc> kernels_;
};

}  // namespace raxc::backend
