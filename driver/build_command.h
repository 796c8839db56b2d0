// `raxc build FILE.rx -o libNAME.so`: an ahead-of-time library whose public Relax functions are
// C entry points over the runtime's value API (backend/runtime/raxc_value.h), plus its header.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "driver/diagnostic_output.h"

namespace raxc::driver {

struct BuildOptions {
  std::string file;
  std::string output;
  std::string emit = "so";           // so | obj | llvm | asm | header
  std::vector<std::string> entries;  // --entry; empty: every public function
  std::string prefix;                // exported symbol prefix; default from the output name
  bool check_bounds = false;
  bool time = false;
  DiagnosticOutput diagnostics;  // --diagnostics-format, --color
};

CLI::App* add_build_command(CLI::App& app, BuildOptions& options);
int run_build(const BuildOptions& options);

}  // namespace raxc::driver
