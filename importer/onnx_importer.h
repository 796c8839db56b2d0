// The ONNX importer's interface: an ONNX model (ModelProto bytes) becomes the text of a Relax
// module whose `main` takes the graph inputs, then the large initializers as parameters
// (R.func_attr({"num_input": k})), and whose bindings are the Relax operators of
// ../shared/spec/operators.md. The text carries no binding annotations: `raxc import` runs it
// through the analysis engine and prints it with the inferred StructInfo on every binding, so
// the annotations are exactly what `raxc check` infers. Every failure is a coded diagnostic
// (RX14xx, frontend/diagnostics.def) naming the node, the operator and the opset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "frontend/diagnostics.h"

namespace raxc::importer {

// One weight: a parameter of `main` after the inputs, stored as `<name>.npy` in the weights
// directory (`--params DIR`).
struct Weight {
  std::string name;  // the Relax parameter name (also the file stem)
  std::string npy;   // the complete .npy encoding
};

struct ImportOptions {
  // Initializers and Constant tensors with at most this many elements are inlined as R.const
  // (when their values print exactly); larger ones become parameters.
  int64_t inline_limit = 64;
  // Values of graph inputs known at import time (`raxc run model.onnx INPUT...`): an input an
  // operator needs as a constant (a Reshape's shape, a Slice's bounds) is taken from here.
  std::map<std::string, std::string> known_inputs;  // input name -> .npy bytes
};

struct ImportResult {
  std::string text;                 // the Relax module (unannotated bindings)
  std::vector<std::string> inputs;  // graph input names, in parameter order
  std::vector<Weight> weights;      // parameters after the inputs, in order
};

// `source` names the model in diagnostics; `base_dir` is where external data files are looked
// up (the model's directory).
std::variant<ImportResult, Diagnostic> import_onnx(const std::string& bytes,
                                                   const std::string& source,
                                                   const std::string& base_dir,
                                                   const ImportOptions& options = {});

// An ONNX TensorProto file (`input_0.pb` of ONNX's test data) as .npy bytes, or RX1407.
std::variant<std::string, Diagnostic> tensor_pb_to_npy(const std::string& bytes,
                                                       const std::string& source);

// The graph input names of a model, in order, without initializers (for matching `raxc run`
// arguments to inputs before importing); empty when the model does not parse.
std::vector<std::string> graph_input_names(const std::string& bytes);

// ------------------------------------------------------------------------------ the module
// The importer is a shared module of its own, libraxc-importer.so, which only `raxc import` and
// `raxc run model.onnx` load (driver/importer_module.h): ONNX's and protobuf's libraries take
// about 5 ms to load and initialise, which every other command would pay at start-up. Like the
// code generator it holds no copy of the frontend: those references resolve to raxc's own code
// when raxc loads it (one diagnostics registry).
struct ImporterApi {
  size_t size;          // sizeof(ImporterApi) where the module was built
  const char* version;  // RAXC_IMPORTER_TAG: the raxc build it belongs to
  std::variant<ImportResult, Diagnostic> (*import_onnx)(const std::string& bytes,
                                                        const std::string& source,
                                                        const std::string& base_dir,
                                                        const ImportOptions& options);
  std::variant<std::string, Diagnostic> (*tensor_pb_to_npy)(const std::string& bytes,
                                                            const std::string& source);
  std::vector<std::string> (*graph_input_names)(const std::string& bytes);
};

}  // namespace raxc::importer

// The module's one exported entry (importer/module.cpp).
extern "C" const void* raxc_importer_api();  // an ImporterApi (load_module's ModuleEntry)
