// Ahead-of-time output for `raxc build`: the Relax functions and kernels of a library
// (backend/codegen/relax_codegen.h) optimised like `raxc run`'s kernels (host CPU, O2) and
// written as an object file, assembly, LLVM IR, or a shared library linked by the system C
// compiler against the runtime archive (rx_runtime, which has no LLVM in it), so the library
// needs nothing else of raxc at run time. The same linker step writes the shared objects of
// kernels that `raxc run` loads (kernels.cpp). Part of libraxc-codegen.so (codegen_api.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backend/codegen/relax_codegen.h"
#include "backend/jit/codegen_api.h"

namespace raxc::backend {

// Compiles `library` and writes the artefact to `output` atomically (an existing file is never
// truncated). Compile refusals are reported into `diags` (RX5040, RX5000, ...) and return 1;
// a failure to write or link is RX5041 and returns 2; success returns 0.
int build_library(const RelaxLibrary& library, const CodegenOptions& options, EmitKind kind,
                  const std::string& output, DiagnosticSink& diags, LibraryStats* stats);

// Links the object files `objects` (their bytes) of `raxc run`'s kernels into a shared object
// at `output`, atomically; SLEEF is linked when the code calls it. Its undefined symbols (the
// runtime, libm) resolve from the process that loads it. The reason on failure.
std::optional<std::string> link_kernels(const std::vector<std::string>& objects,
                                        const std::string& output, bool with_sleef);

}  // namespace raxc::backend
