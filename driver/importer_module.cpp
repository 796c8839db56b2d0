// Loading libraxc-importer.so (importer_module.h).
#include "driver/importer_module.h"

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
    api = reinterpret_cast<const importer::ImporterApi*>(backend::load_module(
        path, "raxc_importer_api", sizeof(importer::ImporterApi), RAXC_IMPORTER_TAG, why));
  });
  if (!api && error)
    *error = make_diagnostic(diag::ImporterUnavailable{.path = path, .reason = why}, Span{});
  return api;
}

}  // namespace raxc::driver
