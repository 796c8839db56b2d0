// Ahead-of-time output for `raxc build`: the Relax functions and kernels of a library
// (backend/codegen/relax_codegen.h) optimised like the JIT's code (host CPU, O3) and written as
// an object file, assembly, LLVM IR, or a shared library linked by the system C compiler
// against the runtime archive (rx_runtime, which has no LLVM in it), so the library needs
// nothing else of raxc at run time.
#pragma once
#include <optional>
#include <string>

#include "backend/codegen/relax_codegen.h"

namespace raxc::backend {

enum class EmitKind { SharedLibrary, Object, LlvmIr, Assembly };

struct LibraryStats {
  double codegen_ms = 0;   // Relax and TIR -> LLVM IR
  double optimize_ms = 0;  // O3
  double emit_ms = 0;      // machine code
  double link_ms = 0;      // cc -shared
};

// Compiles `library` and writes the artefact to `output` atomically (an existing file is never
// truncated). Compile refusals are reported into `diags` (RX5040, RX5000, ...) and return 1;
// a failure to write or link is RX5041 and returns 2; success returns 0.
int build_library(const RelaxLibrary& library, const CodegenOptions& options, EmitKind kind,
                  const std::string& output, DiagnosticSink& diags, LibraryStats* stats);

}  // namespace raxc::backend
