// `raxc import` (import_command.h): reads the model, converts it (importer/), runs the result
// through the analysis engine and prints it with every binding annotated with its inferred
// StructInfo, so that the file `raxc check` later reads is exactly what was checked here. The
// weights (initializers too large to inline) go to a directory of .npy files, one per parameter
// after the inputs, which `raxc run --params DIR` binds.
#include "driver/import_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/engine.h"
#include "driver/commands.h"
#include "driver/importer_module.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"
#include "importer/onnx_importer.h"

namespace raxc::driver {
namespace fs = std::filesystem;
namespace {

bool read_file(const std::string& path, std::string& bytes, std::string& why) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why = "it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  bytes = ss.str();
  return true;
}

bool write_file(const fs::path& path, const std::string& bytes, std::string& why) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) {
    why = std::strerror(errno);
    return false;
  }
  return true;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The imported text through the analysis engine: errors are RX1408 (the importer wrote Relax
// that does not check), else the module printed with the inferred StructInfo of every binding.
std::variant<std::string, Diagnostic> annotate(const std::string& text, const std::string& file) {
  analysis::Engine engine;
  const std::string key = file + ".rx";
  engine.open(key, text);
  for (const Diagnostic& d : engine.diagnostics(key)) {
    if (d.severity != Severity::Error) continue;
    SourceManager sources;
    const SourceFile& f = sources.add_virtual(key, text);
    LineCol at = f.location(d.span.begin);
    return make_diagnostic(
        diag::ImportedModuleCheckFailed{.path = file,
                                        .problem = "line " + std::to_string(at.line) + ": " +
                                                   d.message + " [" + std::string(code(d.id)) +
                                                   "]"},
        Span{});
  }
  const frontend::Document& doc = *engine.document(key);
  printer::PrintOptions print_options;
  print_options.struct_info_of = [&](const ir::Var* var) { return engine.inferred(key, var); };
  std::string printed =
      printer::print_module(doc.module(), print_options, doc.comments(), doc.text());
  if (!printed.empty() && printed.back() != '\n') printed += '\n';
  return printed;
}

std::variant<importer::ImportResult, Diagnostic> import_file(
    const std::string& file, const importer::ImportOptions& options) {
  std::string bytes, why;
  if (!read_file(file, bytes, why))
    return make_diagnostic(diag::CannotReadFile{.path = file, .reason = why}, Span{});
  Diagnostic unavailable;
  const importer::ImporterApi* api = load_importer(&unavailable);
  if (!api) return unavailable;
  return api->import_onnx(bytes, file, fs::path(file).parent_path().string(), options);
}

}  // namespace

CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& options) {
  CLI::App* command = app.add_subcommand("import", "Convert an ONNX model to a Relax module");
  command->add_option("file", options.file, "The .onnx model")->required();
  command->add_option("-o,--output", options.output, "Write the module here (default: stdout)");
  command->add_option("--params", options.params,
                      "Directory for the weights, one NAME.npy per parameter after the inputs "
                      "(default: the output or model path with .params)");
  command
      ->add_option("--inline-limit", options.inline_limit,
                   "Inline initializers of at most this many elements as R.const (default 64)")
      ->check(CLI::NonNegativeNumber);
  options.diagnostics.add_options(command);
  return command;
}

int run_import(const ImportCommandOptions& options) {
  importer::ImportOptions import_options;
  import_options.inline_limit = options.inline_limit;
  auto imported = import_file(options.file, import_options);
  if (auto* d = std::get_if<Diagnostic>(&imported)) {
    options.diagnostics.print_about(options.file, {*d});
    return d->id == DiagId::RX1000 || d->id == DiagId::RX1409 ? kExitUsage : kExitErrors;
  }
  auto& result = std::get<importer::ImportResult>(imported);
  auto text = annotate(result.text, options.file);
  if (auto* d = std::get_if<Diagnostic>(&text)) {
    options.diagnostics.print_about(options.file, {*d});
    return kExitErrors;
  }
  std::string why;
  if (!result.weights.empty()) {
    fs::path dir = options.params.empty()
                       ? fs::path(options.output.empty() ? options.file : options.output)
                             .replace_extension(".params")
                       : fs::path(options.params);
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (const importer::Weight& w : result.weights)
      if (!write_file(dir / (w.name + ".npy"), w.npy, why)) {
        options.diagnostics.print_about(
            options.file,
            {make_diagnostic(
                diag::CannotReadFile{.path = (dir / w.name).string() + ".npy", .reason = why},
                Span{})});
        return kExitUsage;
      }
    std::cerr << "raxc import: " << result.weights.size() << " weights in " << dir.string()
              << " (raxc run --params " << dir.string() << ")\n";
  }
  const std::string& out = std::get<std::string>(text);
  if (options.output.empty()) {
    std::cout << out;
  } else if (!write_file(options.output, out, why)) {
    options.diagnostics.print_about(
        options.file,
        {make_diagnostic(diag::CannotReadFile{.path = options.output, .reason = why}, Span{})});
    return kExitUsage;
  }
  return kExitClean;
}

std::variant<std::vector<std::string>, Diagnostic> convert_pb_arguments(
    const std::vector<std::string>& args, const std::string& temp_dir) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!ends_with(args[i], ".pb")) {
      out.push_back(args[i]);
      continue;
    }
    std::string bytes, why;
    if (!read_file(args[i], bytes, why))
      return make_diagnostic(diag::CannotReadFile{.path = args[i], .reason = why}, Span{});
    Diagnostic unavailable;
    const importer::ImporterApi* api = load_importer(&unavailable);
    if (!api) return unavailable;
    auto npy = api->tensor_pb_to_npy(bytes, args[i]);
    if (auto* d = std::get_if<Diagnostic>(&npy)) return *d;
    fs::path path = fs::path(temp_dir) / ("arg" + std::to_string(i) + ".npy");
    if (!write_file(path, std::get<std::string>(npy), why))
      return make_diagnostic(diag::CannotReadFile{.path = path.string(), .reason = why}, Span{});
    out.push_back(path.string());
  }
  return out;
}

std::variant<OnnxRun, Diagnostic> prepare_onnx_run(const std::string& file,
                                                   const std::vector<std::string>& args,
                                                   const std::string& temp_dir) {
  // A .pb the importer cannot read is reported after the import: a model refused for the same
  // reason (a string input) says more about it.
  auto converted = convert_pb_arguments(args, temp_dir);
  OnnxRun run;
  if (auto* list = std::get_if<std::vector<std::string>>(&converted)) run.args = std::move(*list);
  std::string bytes, why;
  if (!read_file(file, bytes, why))
    return make_diagnostic(diag::CannotReadFile{.path = file, .reason = why}, Span{});
  // Inputs given as files are known values: an input an operator needs as a constant (a shape,
  // slice bounds) is taken from them.
  Diagnostic unavailable;
  const importer::ImporterApi* api = load_importer(&unavailable);
  if (!api) return unavailable;
  importer::ImportOptions options;
  std::vector<std::string> names = api->graph_input_names(bytes);
  for (size_t i = 0; i < names.size() && i < run.args.size(); ++i) {
    std::string npy;
    if (ends_with(run.args[i], ".npy") && read_file(run.args[i], npy, why))
      options.known_inputs[names[i]] = std::move(npy);
  }
  auto imported = api->import_onnx(bytes, file, fs::path(file).parent_path().string(), options);
  if (auto* d = std::get_if<Diagnostic>(&imported)) return *d;
  if (auto* d = std::get_if<Diagnostic>(&converted)) return *d;
  auto& result = std::get<importer::ImportResult>(imported);
  auto text = annotate(result.text, file);
  if (auto* d = std::get_if<Diagnostic>(&text)) return *d;
  run.text = std::move(std::get<std::string>(text));
  for (const importer::Weight& w : result.weights) {
    fs::path path = fs::path(temp_dir) / ("w_" + w.name + ".npy");
    if (!write_file(path, w.npy, why))
      return make_diagnostic(diag::CannotReadFile{.path = path.string(), .reason = why}, Span{});
    run.args.push_back(path.string());
  }
  return run;
}

}  // namespace raxc::driver
