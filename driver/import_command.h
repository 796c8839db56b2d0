// `raxc import model.onnx [-o model.rx] [--params DIR]`: an ONNX model as a Relax module
// (importer/), annotated with the StructInfo the analysis infers; and the in-memory import
// `raxc run model.onnx INPUT...` uses (import_command.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <variant>
#include <vector>

#include "driver/diagnostic_output.h"
#include "frontend/diagnostics.h"

namespace raxc::driver {

struct ImportCommandOptions {
  std::string file;
  std::string output;  // empty: stdout
  std::string params;  // the weights directory; default: the output (or model) path + ".params"
  int64_t inline_limit = 64;
  DiagnosticOutput diagnostics;  // --diagnostics-format, --color
};

CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& options);
int run_import(const ImportCommandOptions& options);

// `raxc run model.onnx ARG...`: the annotated module text, and the arguments to run it with:
// `.pb` arguments converted to .npy files in `temp_dir`, then one .npy per weight (written to
// `temp_dir`). Arguments that are files are also the importer's known input values.
struct OnnxRun {
  std::string text;
  std::vector<std::string> args;
};
std::variant<OnnxRun, Diagnostic> prepare_onnx_run(const std::string& file,
                                                   const std::vector<std::string>& args,
                                                   const std::string& temp_dir);
// `.pb` (ONNX TensorProto) arguments of any `raxc run` become .npy files in `temp_dir`.
std::variant<std::vector<std::string>, Diagnostic> convert_pb_arguments(
    const std::vector<std::string>& args, const std::string& temp_dir);

}  // namespace raxc::driver
