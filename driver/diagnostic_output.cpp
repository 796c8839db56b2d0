// Printing one file's diagnostics and the check before compiling (diagnostic_output.h).
#include "driver/diagnostic_output.h"

#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

namespace raxc::driver {

std::vector<Diagnostic> limit_errors(std::vector<Diagnostic> diagnostics, int limit) {
  if (limit <= 0) return diagnostics;
  int total = 0;
  size_t cut = diagnostics.size();
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    if (diagnostics[i].severity != Severity::Error) continue;
    if (++total == limit + 1) cut = i;
  }
  if (cut == diagnostics.size()) return diagnostics;
  Span at = diagnostics[cut].span;
  diagnostics.resize(cut);
  diagnostics.push_back(
      make_diagnostic(diag::ErrorLimitReached{.shown = limit, .total = total}, at));
  return diagnostics;
}

void DiagnosticOutput::add_options(CLI::App* command) {
  command->add_option("--diagnostics-format", format, "How diagnostics are printed")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("--color", color, "Colour diagnostics")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  command
      ->add_option("--error-limit", error_limit,
                   "Errors shown per file (default " + std::to_string(kDefaultErrorLimit) +
                       "; 0 shows them all)")
      ->check(CLI::NonNegativeNumber);
}

void DiagnosticOutput::print(const SourceFile& file, const std::vector<Diagnostic>& all) const {
  std::vector<Diagnostic> diagnostics = limit_errors(all, error_limit);
  if (format == "json") {
    std::cout << nlohmann::json::array({render_json(file, diagnostics)}).dump(2) << "\n";
    return;
  }
  bool colored = color == "always" || (color == "auto" && isatty(STDERR_FILENO));
  std::cerr << render_text(file, diagnostics, colored);
}

void DiagnosticOutput::print_about(const std::string& path,
                                   const std::vector<Diagnostic>& diagnostics) const {
  print(SourceFile(path, ""), diagnostics);
}

bool check_cleanly(analysis::Engine& engine, const SourceFile& file,
                   const DiagnosticOutput& output) {
  engine.open(file.path(), file.text());
  std::vector<Diagnostic> errors;
  for (Diagnostic& d : engine.diagnostics(file.path()))
    if (d.severity == Severity::Error) errors.push_back(std::move(d));
  if (errors.empty()) return true;
  output.print(file, errors);
  return false;
}

namespace {
// Where the module first uses distributed Relax: a declared mesh, else a DTensor in a Relax
// function's signature (a lone function names its meshes inline).
std::optional<Span> distributed_relax_at(const ir::IRModule& module) {
  if (!module.device_meshes.empty()) return module.device_meshes.front()->span;
  for (const ir::GlobalDef& g : module.globals) {
    const ir::Function* f = g.function();
    if (!f) continue;
    for (const ir::Var* p : f->params)
      if (ir::as_dtensor(p->annotation)) return p->annotation->span;
    if (ir::as_dtensor(f->ret_struct_info)) return f->ret_struct_info->span;
  }
  return std::nullopt;
}
}  // namespace

bool refuse_distributed(const ir::IRModule& module, const SourceFile& file,
                        const DiagnosticOutput& output) {
  std::optional<Span> at = distributed_relax_at(module);
  if (!at) return true;
  output.print(
      file, {make_diagnostic(diag::UnsupportedOnCpu{.what = "distributed Relax (a device mesh of "
                                                            "several devices, DTensors)"},
                             *at)});
  return false;
}

}  // namespace raxc::driver
