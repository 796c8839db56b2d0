// `raxc build`: check the module (errors print as `raxc check` prints them, exit 1), legalize
// it exactly as `raxc run` does, compile the chosen public functions and every function and
// PrimFunc they reach (backend/codegen/relax_codegen.h), and write the library with
// backend/jit/library.h, in the code generator (backend/exec/codegen.h loads it; a missing one
// is RX5034, exit 2). With --emit=so the header is written next to the library: libNAME.so
// gets libNAME.h. Usage and I/O errors exit 2 with a coded diagnostic.
#include "driver/build_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/engine.h"
#include "backend/exec/codegen.h"
#include "backend/exec/executor.h"
#include "backend/fuse/fuse.h"
#include "backend/io/atomic_file.h"
#include "driver/commands.h"
#include "driver/lower_command.h"
#include "frontend/source.h"

namespace raxc::driver {
namespace {

namespace fs = std::filesystem;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// "libmlp.so" -> "mlp_": the library's name as a C identifier.
std::string default_prefix(const std::string& output) {
  std::string stem = fs::path(output).stem().string();
  if (stem.starts_with("lib") && stem.size() > 3) stem = stem.substr(3);
  std::string prefix;
  for (char c : stem) prefix += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix[0])))
    prefix = "rx_" + prefix;
  return prefix + "_";
}

backend::EmitKind emit_kind(const std::string& emit) {
  if (emit == "obj") return backend::EmitKind::Object;
  if (emit == "llvm") return backend::EmitKind::LlvmIr;
  if (emit == "asm") return backend::EmitKind::Assembly;
  return backend::EmitKind::SharedLibrary;
}

std::string header_path(const std::string& library) {
  return fs::path(library).replace_extension(".h").string();
}

}  // namespace

CLI::App* add_build_command(CLI::App& app, BuildOptions& options) {
  CLI::App* command =
      app.add_subcommand("build", "Compile a module into a shared library a C program links");
  command->add_option("file", options.file, "The .rx file")->required();
  command->add_option("-o,--output", options.output, "The library (libNAME.so) or file to write")
      ->required();
  command
      ->add_option("--emit", options.emit,
                   "so: the library and its header NAME.h beside it; header: only the header; "
                   "obj, llvm, asm: the compiled code for inspection")
      ->check(CLI::IsMember({"so", "obj", "llvm", "asm", "header"}));
  command
      ->add_option("--entry", options.entries,
                   "A public function to export (repeatable; default: every public function)")
      ->allow_extra_args(false);
  command->add_option("--prefix", options.prefix,
                      "The prefix of exported symbols (default: NAME_ for libNAME.so)");
  command->add_flag("--check-bounds", options.check_bounds,
                    "Check every buffer access of every PrimFunc against its shape");
  command->add_flag("--time", options.time, "Print the time of each compile step");
  options.diagnostics.add_options(command);
  return command;
}

int run_build(const BuildOptions& options) {
  auto start = std::chrono::steady_clock::now();
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
  const frontend::Document& doc = *engine.document(options.file);
  if (!refuse_distributed(doc.module(), file, options.diagnostics)) return kExitErrors;
  std::unique_ptr<backend::LoweredModule> lowered = lower_document(engine, options.file);
  // Chains of element-wise kernels run as one loop (backend/fuse), written or legalized ones.
  size_t fused = lowered ? backend::fuse_elementwise(*lowered).fused_calls : 0;
  bool use_lowered = lowered && (lowered->legalized_calls > 0 || fused > 0);
  const ir::IRModule& module = use_lowered ? lowered->module : doc.module();
  auto located = [&](std::vector<Diagnostic> ds) {
    std::vector<Diagnostic> out;
    for (Diagnostic& d : ds) out.push_back(doc.to_text(std::move(d)));
    options.diagnostics.print(file, out);
  };

  Diagnostic unavailable;
  const backend::CodegenApi* codegen_api = backend::load_codegen(&unavailable);
  if (!codegen_api) {
    located({std::move(unavailable)});
    return kExitUsage;
  }
  backend::RelaxLibrary library;
  library.module = &module;
  library.function = [&](const ir::GlobalDef& g) -> const ir::Function* {
    const ir::Function* analysed = engine.normalized(options.file, g.gvar->name);
    return analysed && use_lowered ? g.function() : analysed;
  };
  std::vector<const ir::GlobalDef*> available = codegen_api->public_functions(module);
  if (options.entries.empty()) {
    library.entries = available;
  } else {
    for (const std::string& name : options.entries) {
      const ir::GlobalDef* found = nullptr;
      for (const ir::GlobalDef* g : available)
        if (g->gvar->name == name) found = g;
      if (!found) {
        std::string names;
        for (const ir::GlobalDef* g : available)
          names += (names.empty() ? "" : ", ") + g->gvar->name;
        located({make_diagnostic(
            diag::NoSuchEntryFunction{
                .entry = name, .functions = names.empty() ? "no public Relax function" : names},
            Span{})});
        return kExitUsage;
      }
      library.entries.push_back(found);
    }
  }
  if (library.entries.empty()) {
    located({make_diagnostic(diag::NoSuchEntryFunction{.entry = "(any public function)",
                                                       .functions = "no public Relax function"},
                             Span{})});
    return kExitUsage;
  }
  library.prefix = options.prefix.empty() ? default_prefix(options.output) : options.prefix;
  library.file_name = fs::path(options.file).filename().string();
  library.source = file.text();
  // Sealed arguments (raxc_value_seal) keep their packed forms across calls unless the module
  // could change them.
  library.writes_arguments =
      backend::writes_given_tensors(backend::Program{&module, library.function, {}});
  double front_ms = ms_since(start);

  if (options.emit == "header") {
    std::string text =
        codegen_api->library_header(library, fs::path(options.output).filename().string());
    if (io::Status s = io::write_file_atomic(options.output, {text})) {
      located({make_diagnostic(diag::BuildFailed{.output = options.output, .reason = s->message},
                               Span{})});
      return kExitUsage;
    }
    return kExitClean;
  }

  backend::CodegenOptions codegen;
  codegen.check_bounds = options.check_bounds;
  DiagnosticSink sink;
  backend::LibraryStats stats;
  int status = codegen_api->build_library(library, codegen, emit_kind(options.emit), options.output,
                                          sink, &stats);
  if (status != 0) {
    located(sink.take());
    return status == 1 ? kExitErrors : kExitUsage;
  }
  if (options.emit == "so") {
    std::string header = header_path(options.output);
    std::string text = codegen_api->library_header(library, fs::path(header).filename().string());
    if (io::Status s = io::write_file_atomic(header, {text})) {
      located({make_diagnostic(diag::BuildFailed{.output = header, .reason = s->message}, Span{})});
      return kExitUsage;
    }
  }
  if (options.time)
    std::fprintf(stderr,
                 "build %.2f ms: check and legalize %.2f, codegen %.2f, optimize %.2f, emit %.2f, "
                 "link %.2f\n",
                 ms_since(start), front_ms, stats.codegen_ms, stats.optimize_ms, stats.emit_ms,
                 stats.link_ms);
  return kExitClean;
}

}  // namespace raxc::driver
