// Finding and loading raxc's own shared modules, the parts it loads with dlopen only when a
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
#include <cstddef>
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

// The head every module's table of functions starts with (CodegenApi, ImporterApi: their first
// two members): sizeof the table and the build it belongs to, so that a module of another build
// is refused rather than called with types it does not share.
struct ModuleHead {
  size_t size;
  const char* version;
};
// The type of a module's entry: it returns its table as const void*, so that the loader calls
// it through the function type it was defined with (UBSan's -fsanitize=function checks that).
using ModuleEntry = const void* (*)();

// Loads the module at `path` (RTLD_LOCAL: its libraries' symbols stay out of the process's
// namespace) and returns the table its extern "C" function `entry` gives, when that table is
// `size` bytes of build `version`; else null, and `why` says why (for the module's diagnostic).
const ModuleHead* load_module(const std::string& path, const char* entry, size_t size,
                              const char* version, std::string& why);

}  // namespace raxc::backend
