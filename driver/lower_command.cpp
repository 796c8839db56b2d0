// `raxc lower` (lower_command.h): check the module like `raxc check`, legalize it, print it. A
// module with errors prints nothing and exits 1 with the diagnostics; operator calls that stay
// as they are (no legalization yet, shapes not known) are listed on stderr as notes, since the
// printed module is still valid and runs up to them.
#include "driver/lower_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend/fuse/fuse.h"
#include "driver/commands.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"

namespace raxc::driver {

CLI::App* add_lower_command(CLI::App& app, LowerOptions& options) {
  CLI::App* command =
      app.add_subcommand("lower", "Print the module with its tensor operators legalized to TIR");
  command->add_option("file", options.file, "The .rx file")->required();
  command->add_option("-o,--output", options.output,
                      "Write the lowered module here (default: stdout)");
  command->add_flag("-q,--quiet", options.quiet, "Do not list the operator calls left as they are");
  command->add_flag("--fuse", options.fuse,
                    "Also fuse chains of element-wise kernels, as raxc run and raxc build do");
  options.diagnostics.add_options(command);
  return command;
}

std::unique_ptr<backend::LoweredModule> lower_document(const analysis::Engine& engine,
                                                       const std::string& key) {
  const frontend::Document* doc = engine.document(key);
  if (!doc) return nullptr;
  backend::LegalizeInput input;
  input.module = &doc->module();
  input.function = [&engine, key](const ir::GlobalDef& g) {
    return engine.normalized(key, g.gvar->name);
  };
  input.inference = [&engine, key](const ir::GlobalDef& g) {
    return engine.inference(key, g.gvar->name);
  };
  return backend::legalize_module(input);
}

std::string print_lowered(const backend::LoweredModule& lowered) {
  printer::PrintOptions options;
  options.struct_info_of = [&lowered](const ir::Var* v) -> const ir::StructInfo* {
    auto it = lowered.var_sinfo.find(v);
    return it == lowered.var_sinfo.end() ? nullptr : it->second;
  };
  return printer::print_module(lowered.module, options);
}

int run_lower(const LowerOptions& options) {
  SourceManager sources;
  auto loaded = sources.load(options.file);
  if (!loaded.file) {
    options.diagnostics.print_about(
        options.file,
        {make_diagnostic(diag::CannotReadFile{.path = options.file, .reason = loaded.error},
                         Span{})});
    return kExitUsage;
  }
  const SourceFile& file = *loaded.file;
  analysis::Engine engine;
  if (!check_cleanly(engine, file, options.diagnostics)) return kExitErrors;
  if (!refuse_distributed(engine.document(options.file)->module(), file, options.diagnostics))
    return kExitErrors;
  std::unique_ptr<backend::LoweredModule> lowered = lower_document(engine, options.file);
  if (options.fuse) backend::fuse_elementwise(*lowered);
  std::string text = print_lowered(*lowered);
  if (!options.quiet) {
    for (const backend::LeftCall& call : lowered->left) {
      LineCol at = file.location(call.span.begin);
      std::cerr << options.file << ":" << at.line << ":" << at.column << ": note: " << call.op
                << " stays as it is: " << call.why << "\n";
    }
  }
  if (options.output.empty()) {
    std::cout << text;
    return kExitClean;
  }
  std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    options.diagnostics.print(
        file, {make_diagnostic(
                  diag::CannotReadFile{.path = options.output, .reason = "cannot write the file"},
                  Span{})});
    return kExitUsage;
  }
  return kExitClean;
}

}  // namespace raxc::driver
