// The entry of libraxc-importer.so (onnx_importer.h, "the module"): the importer's functions,
// for raxc to call once it has loaded the module.
#include "importer/onnx_importer.h"

#ifndef RAXC_IMPORTER_TAG
#error "RAXC_IMPORTER_TAG must name the build (importer/CMakeLists.txt)"
#endif

extern "C" __attribute__((visibility("default"))) const void* raxc_importer_api() {
  using namespace raxc::importer;
  static const ImporterApi api{sizeof(ImporterApi), RAXC_IMPORTER_TAG, &import_onnx,
                               &tensor_pb_to_npy, &graph_input_names};
  return &api;
}
