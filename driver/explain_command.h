// `raxc explain [CODE]`: the long explanation of a diagnostic code, or the list of codes.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace raxc::driver {

struct ExplainOptions {
  std::string code;  // empty: list every code (or, with --format html, the whole page)
  std::string format = "text";
  std::string output;  // empty: stdout
};

CLI::App* add_explain_command(CLI::App& app, ExplainOptions& options);
int run_explain(const ExplainOptions& options);

}  // namespace raxc::driver
