// The compiled PrimFuncs of a module, as `raxc run` calls them: a shared object of kernels
// loaded with dlopen — from the compiled-code cache (kernel_cache.h) when an earlier run
// compiled the same kernels, else compiled by the code generator (codegen.h, which loads LLVM)
// into the cache or a private directory first. The executor sees only packed function
// pointers, and nothing here links LLVM.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backend/jit/codegen_api.h"
#include "backend/runtime/raxc_runtime.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

class KernelLibrary {
 public:
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  // The compiled packed entry of the PrimFunc named `global`, or null when the module has no
  // such PrimFunc.
  RaxcPackedFunc find(std::string_view global) const;

  // The kernels of every PrimFunc of `module`: through the compiled-code cache when
  // `use_cache`, else compiled for this process alone. Refusals (RX5000), a code generator that
  // does not load (RX5034) and compile failures are reported into `diags`; null is returned
  // then. A module without PrimFuncs needs no code generator.
  static std::unique_ptr<KernelLibrary> compile(const ir::IRModule& module,
                                                const CodegenOptions& options,
                                                DiagnosticSink& diags, CompileStats* stats,
                                                bool use_cache = false);

  // The LLVM IR of the module's PrimFuncs as text (`raxc run --emit-llvm`), or the
  // diagnostics' reason for not producing it.
  static std::optional<std::string> llvm_ir(const ir::IRModule& module,
                                            const CodegenOptions& options, bool optimize,
                                            DiagnosticSink& diags);

 private:
  KernelLibrary() = default;
  // The kernels of `module` in the shared object at `path`, or null (with the reason in
  // `*error`) when it is incomplete, does not load or lacks one of them.
  static std::unique_ptr<KernelLibrary> open(const std::string& path, const ir::IRModule& module,
                                             std::string* error);
  void* handle_ = nullptr;
  std::unordered_map<std::string, RaxcPackedFunc> kernels_;
};

}  // namespace raxc::backend
