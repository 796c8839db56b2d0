// Loading libraxc-importer.so (importer_module.h).
#include "driver/importer_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <mutex>
#include <string>

#include "backend/exec/module_path.h"

#ifndef RAXC_IMPORTER_TAG
#error "RAXC_IMPORTER_TAG must name the build (importer/CMakeLists.txt)"
#endif
#ifndef RAXC_IMPORTER_INSTALLED
#define RAXC_IMPORTER_INSTALLED "../lib/raxc/libraxc-importer.so"
#endif
#ifndef RAXC_IMPORTER_BUILT
#define RAXC_IMPORTER_BUILT ""
#endif

namespace raxc::driver {

const importer::ImporterApi* load_importer(Diagnostic* error) {
  static const std::string path = backend::find_module(backend::ModuleLocation{
      "RAXC_IMPORTER_LIB", "libraxc-importer.so", RAXC_IMPORTER_INSTALLED, RAXC_IMPORTER_BUILT});
  static std::once_flag once;
  static const importer::ImporterApi* api = nullptr;
  static std::string why;
  std::call_once(once, [] {
    if (::access(path.c_str(), R_OK) != 0) {
      why = "it does not exist";
      return;
    }
    // RTLD_LOCAL: ONNX's and protobuf's symbols stay out of the process's namespace.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      why = dlerror();
      return;
    }
    using Entry = const importer::ImporterApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "raxc_importer_api"));
    const importer::ImporterApi* found = entry ? entry() : nullptr;
    if (!found)
      why = "it does not export raxc_importer_api";
    else if (found->size != sizeof(importer::ImporterApi) ||
             std::string(found->version) != RAXC_IMPORTER_TAG)
      why = std::string("it was built as '") + found->version + "', this raxc as '" +
            RAXC_IMPORTER_TAG + "'";
    else
      api = found;
  });
  if (!api && error)
    *error = make_diagnostic(diag::ImporterUnavailable{.path = path, .reason = why}, Span{});
  return api;
}

}  // namespace raxc::driver
