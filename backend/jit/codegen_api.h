// The boundary between the raxc executable and its code generator. Everything that links LLVM
// (backend/codegen/, backend/jit/) is one shared library, libraxc-codegen.so, which the
// executable loads with dlopen only when something has to be compiled (a cold `raxc run`,
// `raxc build`, `--emit-llvm`): commands that never compile — check, fmt, parse, lsp, a `raxc
// run` whose kernels are in the compiled-code cache — never map LLVM, and so never pay for
// relocating it (docs/architecture.md, "Invariants").
//
// The library exports one C symbol, raxc_codegen_api, returning the table below. Its functions
// take the executable's own types (IR, diagnostics): both sides are built together from one
// tree, and the library's references to the frontend, the analysis and the runtime resolve to
// the executable's copies (it is linked with -rdynamic), so there is one copy of each registry.
// A function only the code generator calls must still be linked into the executable: otherwise
// dlopen refuses the library, naming the symbol (RX5034), and every test that compiles fails.
// No LLVM type crosses this header.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/codegen/relax_codegen.h"
#include "backend/codegen/tir_codegen.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

struct CompileStats {
  size_t kernels = 0;
  // Summed over the threads kernels are compiled on, so more than the wall time.
  double codegen_ms = 0;   // TIR -> LLVM IR
  double optimize_ms = 0;  // LLVM's module pipeline (O2)
  double jit_ms = 0;       // machine code, linking and loading the shared object
  bool cached = false;     // the shared object came from the compiled-code cache
};

enum class EmitKind { SharedLibrary, Object, LlvmIr, Assembly };

struct LibraryStats {
  double codegen_ms = 0;   // Relax and TIR -> LLVM IR
  double optimize_ms = 0;  // LLVM's module pipeline (O2)
  double emit_ms = 0;      // machine code
  double link_ms = 0;      // cc -shared
};

struct CodegenApi {
  // sizeof(CodegenApi) and the version of the tree the library was built from: a library of
  // another build is refused rather than called with types it does not share.
  size_t size;
  const char* version;

  // Compiles every PrimFunc of `module` (host CPU, O2) into a shared object written atomically
  // to `output`, exporting each kernel as "raxc_kernel.<global name>"; the runtime functions it
  // calls resolve from the process that loads it. Refusals (RX5000) and failures are reported
  // into `diags` and return false.
  bool (*compile_kernels)(const ir::IRModule& module, const CodegenOptions& options,
                          const std::string& output, DiagnosticSink& diags, CompileStats& stats);

  // The LLVM IR of the module's PrimFuncs (`raxc run --emit-llvm`), optimised or not.
  std::optional<std::string> (*kernels_llvm_ir)(const ir::IRModule& module,
                                                const CodegenOptions& options, bool optimize,
                                                DiagnosticSink& diags);

  // `raxc build`: backend/jit/library.h.
  int (*build_library)(const RelaxLibrary& library, const CodegenOptions& options, EmitKind kind,
                       const std::string& output, DiagnosticSink& diags, LibraryStats* stats);
  std::vector<const ir::GlobalDef*> (*public_functions)(const ir::IRModule& module);
  std::string (*library_header)(const RelaxLibrary& library, std::string_view guard);
};

}  // namespace raxc::backend

// The one symbol libraxc-codegen.so exports for the executable.
extern "C" const void* raxc_codegen_api();  // a CodegenApi (load_module's ModuleEntry)
