// Locating and dlopen-ing libraxc-codegen.so (codegen.h).
#include "backend/exec/codegen.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

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
    const std::string& path = codegen_library_path();
    if (::access(path.c_str(), R_OK) != 0) {
      why = "it does not exist";
      return;
    }
    // RTLD_LOCAL: LLVM's symbols stay out of the process's namespace (plugins, kernels).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      why = dlerror();
      return;
    }
    using Entry = const CodegenApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "raxc_codegen_api"));
    const CodegenApi* found = entry ? entry() : nullptr;
    if (!found) {
      why = "it does not export raxc_codegen_api";
    } else if (found->size != sizeof(CodegenApi) || std::string(found->version) != RAXC_BUILD_TAG) {
      why = std::string("it was built as '") + found->version + "', this raxc as '" +
            RAXC_BUILD_TAG + "'";
    } else {
      api = found;
    }
  });
  if (!api && error)
    *error = make_diagnostic(
        diag::CodegenUnavailable{.path = codegen_library_path(), .reason = why}, Span{});
  return api;
}

}  // namespace raxc::backend
