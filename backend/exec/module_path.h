// Where raxc finds one of its own shared modules, the parts it loads with dlopen only when a
// command needs them: libraxc-codegen.so (LLVM, backend/exec/codegen.h) and
// libraxc-importer.so (ONNX and protobuf, importer/onnx_importer.h). Their libraries take
// milliseconds to load and initialise, which every other command would pay at start-up.
// First found wins:
//
//   $<variable>                           when set (and then only there)
//   <directory of raxc>/<file>            the build tree (build/raxc beside it)
//   <directory of raxc>/<installed>       installed: <prefix>/<libdir>/raxc/<file>
//   <built>                               the path the build wrote it to (other executables of
//                                         the build tree, copies of raxc)
#pragma once
#include <string>

namespace raxc::backend {

struct ModuleLocation {
  const char* variable;   // "RAXC_CODEGEN_LIB"
  const char* file;       // "libraxc-codegen.so"
  const char* installed;  // relative to raxc's directory: "../lib/raxc/libraxc-codegen.so"
  const char* built;      // absolute, or "" when unknown
};

// The first candidate that exists and is readable, else the first candidate.
std::string find_module(const ModuleLocation& where);

}  // namespace raxc::backend
