// `raxc explain`: prints the explanation the registry's codes have in
// frontend/diagnostics_explained.md (embedded in the binary). The build also runs
// `raxc explain --format html --output share/raxc/diagnostics.html` to make the page the
// language server links diagnostics to, so the terminal and the editor show the same text.
#include "driver/explain_command.h"

#include <cctype>
#include <fstream>
#include <iostream>

#include "driver/commands.h"
#include "frontend/diagnostics.h"
#include "frontend/explain.h"

namespace raxc::driver {

CLI::App* add_explain_command(CLI::App& app, ExplainOptions& options) {
  CLI::App* command = app.add_subcommand(
      "explain", "Explain a diagnostic code (RX3000): what it means, a trigger and the fix");
  command->add_option("code", options.code, "The code; without it, every code is listed");
  command->add_option("--format", options.format, "text (the default), markdown or html")
      ->check(CLI::IsMember({"text", "markdown", "html"}));
  command->add_option("-o,--output", options.output, "Write to this file instead of stdout");
  return command;
}

int run_explain(const ExplainOptions& options) {
  ExplainFormat format = options.format == "markdown" ? ExplainFormat::Markdown
                         : options.format == "html"   ? ExplainFormat::Html
                                                      : ExplainFormat::Text;
  std::string text;
  if (options.code.empty()) {
    text = format == ExplainFormat::Html ? render_explanations_page() : render_code_list(format);
  } else {
    // Codes are spelled "RX3000"; "rx3000" is accepted too, as people type it.
    std::string code = options.code;
    for (char& c : code) c = char(std::toupper(static_cast<unsigned char>(c)));
    std::optional<DiagId> id = find_diagnostic(code);
    if (!id) {
      Diagnostic d = make_diagnostic(diag::UnknownDiagnosticCode{.code = options.code}, Span{});
      std::cerr << "raxc: error: " << d.message << " [" << raxc::code(d.id) << "]\n";
      return kExitUsage;
    }
    text = render_explanation(info(*id), format);
  }
  if (options.output.empty()) {
    std::cout << text;
    return std::cout.good() ? kExitClean : kExitUsage;
  }
  std::ofstream out(options.output, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    Diagnostic d = make_diagnostic(
        diag::CannotReadFile{.path = options.output, .reason = "cannot write"}, Span{});
    std::cerr << "raxc: error: " << d.message << " [" << raxc::code(d.id) << "]\n";
    return kExitUsage;
  }
  return kExitClean;
}

}  // namespace raxc::driver
