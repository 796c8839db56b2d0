// `raxc lower FILE.rx`: the module after legalization (backend/legalize), printed as TVMScript:
// every tensor operator call that can be lowered is an R.call_tir of a generated PrimFunc.
// Also the one place `raxc run` and `raxc lower` get the lowered module from, so both agree.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "analysis/engine.h"
#include "backend/legalize/legalize.h"
#include "driver/diagnostic_output.h"

namespace raxc::driver {

struct LowerOptions {
  std::string file;
  std::string output;            // empty: stdout
  bool quiet = false;            // no notes about calls left as they are
  bool fuse = false;             // then fuse element-wise chains, as run and build do
  DiagnosticOutput diagnostics;  // --diagnostics-format, --color
};

CLI::App* add_lower_command(CLI::App& app, LowerOptions& options);
int run_lower(const LowerOptions& options);

// Legalizes the analysed document `key` of `engine` (which must outlive the result).
std::unique_ptr<backend::LoweredModule> lower_document(const analysis::Engine& engine,
                                                       const std::string& key);
// The lowered module as text (TVM's dialect, inferred StructInfo on every binding).
std::string print_lowered(const backend::LoweredModule& lowered);

}  // namespace raxc::driver
