// Loading the ONNX importer, libraxc-importer.so (importer/onnx_importer.h, "the module"), the
// first time a command imports a model; where it is looked for: backend/exec/module_path.h
// ($RAXC_IMPORTER_LIB, beside raxc, <prefix>/<libdir>/raxc/). An importer that does not load
// (missing, another build's) is RX1409, not a crash.
#pragma once
#include "frontend/diagnostics.h"
#include "importer/onnx_importer.h"

namespace raxc::driver {

// The loaded importer; on failure null, and `*error` is RX1409.
const importer::ImporterApi* load_importer(Diagnostic* error);

}  // namespace raxc::driver
