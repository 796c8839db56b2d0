// What `raxc run`, `build`, `lower` and `import` share before they compile anything: how one
// file's diagnostics are printed (--diagnostics-format, --color) and the check that stops them
// on a module with errors. (`raxc check`, `fmt` and `parse` report several files at once:
// commands.cpp's Reporter.)
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"

namespace raxc::driver {

// The default of --error-limit: enough to fix a file by, few enough that a broken file does
// not bury the terminal (clang stops at 20; its users raise it).
constexpr int kDefaultErrorLimit = 200;

// `diagnostics` up to and including the `limit`-th error, then an RX1097 note saying how many
// were left out (at the first one left out); all of them when `limit` is 0 or not reached.
// Warnings and notes after the limit are left out with the errors.
std::vector<Diagnostic> limit_errors(std::vector<Diagnostic> diagnostics, int limit);

struct DiagnosticOutput {
  std::string format = "text";           // --diagnostics-format: text | json
  std::string color = "auto";            // --color: auto | always | never
  int error_limit = kDefaultErrorLimit;  // --error-limit: errors printed per file, 0 = all

  void add_options(CLI::App* command);
  // One file's diagnostics: clang-style text on stderr, or a JSON array holding the file's
  // object on stdout (render_json).
  void print(const SourceFile& file, const std::vector<Diagnostic>& diagnostics) const;
  // The same for a file whose text there is none of (unreadable, or not Relax text).
  void print_about(const std::string& path, const std::vector<Diagnostic>& diagnostics) const;
};

// Opens `file` in `engine` under its path and prints its errors. True when there are none: the
// backend runs only valid, analysed IR.
bool check_cleanly(analysis::Engine& engine, const SourceFile& file,
                   const DiagnosticOutput& output);

// A module of distributed Relax (device meshes, DTensors) describes several devices; the backend
// runs on one CPU. Prints RX5000 at the first mesh or DTensor and returns false for such a
// module (checked first, as every backend command's input is).
bool refuse_distributed(const ir::IRModule& module, const SourceFile& file,
                        const DiagnosticOutput& output);

}  // namespace raxc::driver
