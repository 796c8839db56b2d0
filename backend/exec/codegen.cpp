// Locating and dlopen-ing libraxc-codegen.so (codegen.h).
#include "backend/exec/codegen.h"

#include <sys/stat.h>

#include <mutex>

#include "backend/exec/elf_file.h"
#include "backend/exec/module_path.h"

#ifndef RAXC_BUILD_TAG
#error "RAXC_BUILD_TAG must name the build (backend/CMakeLists.txt)"
#endif
#ifndef RAXC_CODEGEN_FILE_NAME
#define RAXC_CODEGEN_FILE_NAME "libraxc-codegen.so"
#endif
#ifndef RAXC_CODEGEN_INSTALLED
#define RAXC_CODEGEN_INSTALLED "../lib/raxc/libraxc-codegen.so"
#endif
#ifndef RAXC_CODEGEN_BUILT
#define RAXC_CODEGEN_BUILT ""
#endif

namespace raxc::backend {

const std::string& codegen_library_path() {
  static const std::string path = find_module(ModuleLocation{
      "RAXC_CODEGEN_LIB", RAXC_CODEGEN_FILE_NAME, RAXC_CODEGEN_INSTALLED, RAXC_CODEGEN_BUILT});
  return path;
}

const std::string& codegen_identity() {
  static const std::string identity = [] {
    const std::string& path = codegen_library_path();
    if (std::optional<std::string> id = elf_build_id(path)) return "build-id " + *id;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::string();
    return "file " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return identity;
}

const CodegenApi* load_codegen(Diagnostic* error) {
  static std::once_flag once;
  static const CodegenApi* api = nullptr;
  static std::string why;
  std::call_once(once, [] {
    // LLVM's symbols stay out of the process's namespace (plugins, kernels).
    api = reinterpret_cast<const CodegenApi*>(load_module(
        codegen_library_path(), "raxc_codegen_api", sizeof(CodegenApi), RAXC_BUILD_TAG, why));
  });
  if (!api && error)
    *error = make_diagnostic(
        diag::CodegenUnavailable{.path = codegen_library_path(), .reason = why}, Span{});
  return api;
}

}  // namespace raxc::backend
