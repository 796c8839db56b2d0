// Finding and loading the code generator, libraxc-codegen.so (backend/jit/codegen_api.h), the
// one part of raxc that links LLVM: loaded with dlopen the first time something must be
// compiled, never by commands that do not compile. Where it is looked for: module_path.h
// ($RAXC_CODEGEN_LIB, beside raxc, <prefix>/<libdir>/raxc/, the path the build wrote it to).
// A code generator that cannot be loaded (missing, another build's) is RX5034, not a crash.
#pragma once
#include <string>

#include "backend/jit/codegen_api.h"
#include "frontend/diagnostics.h"

namespace raxc::backend {

// The code generator's path (the first candidate that exists, else the first candidate).
const std::string& codegen_library_path();

// What identifies the code it generates: its build ID (or size and time when it has none);
// empty when it does not exist.
const std::string& codegen_identity();

// The loaded code generator, loaded on the first call; on failure null, and `*error` is RX5034.
const CodegenApi* load_codegen(Diagnostic* error);

}  // namespace raxc::backend
