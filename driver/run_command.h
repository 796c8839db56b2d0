// `raxc run`: its options and entry point (run_command.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/diagnostic_output.h"

namespace raxc::driver {

struct RunOptions {
  std::string file;
  std::vector<std::string> args;
  std::string entry = "main";
  std::vector<std::string> binds;
  std::optional<int64_t> default_dim;
  bool random = false;
  uint64_t seed = 0;
  std::string save_dir;
  std::string output_format = "text";
  int repeat = 1;
  int threads = 0;
  std::vector<std::string> plugins;  // --load  // 0: every CPU this process may use
  bool check_bounds = false;
  bool no_cache = false;
  bool emit_llvm = false;
  bool profile = false;          // --profile
  DiagnosticOutput diagnostics;  // --diagnostics-format, --color
  std::string params;            // --params DIR: parameters no argument binds, from DIR/<name>.npy
};

CLI::App* add_run_command(CLI::App& app, RunOptions& options);
// After parsing: the entry's arguments (the words after FILE that are not options); false with
// `error` set for an unknown option.
bool take_arguments(CLI::App& command, RunOptions& options, std::string& error);
int run_run(const RunOptions& options);

}  // namespace raxc::driver
