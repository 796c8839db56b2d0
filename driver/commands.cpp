#include "driver/commands.h"

#include <pthread.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "analysis/well_formed/well_formed.h"
#include "driver/build_command.h"
#include "driver/diagnostic_output.h"
#include "driver/explain_command.h"
#include "driver/import_command.h"
#include "driver/lower_command.h"
#include "driver/run_command.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/ir/dump.h"
#include "frontend/ir/visitor.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"
#include "lsp/server.h"

#ifndef RAXC_VERSION
#define RAXC_VERSION "0.1.0"
#endif

namespace raxc::driver {
namespace {

enum class DiagFormat { Text, Json };

struct CommonOptions {
  std::string diagnostics_format = "text";
  std::string color = "auto";
  int error_limit = kDefaultErrorLimit;
};

// Collects per-file diagnostics and prints them in the chosen format at the end (JSON is one
// array for all files).
class Reporter {
 public:
  explicit Reporter(const CommonOptions& options)
      : format_(options.diagnostics_format == "json" ? DiagFormat::Json : DiagFormat::Text),
        color_(options.color == "always" || (options.color == "auto" && isatty(STDERR_FILENO))),
        error_limit_(options.error_limit) {}

  void add(const SourceFile& file, const std::vector<Diagnostic>& all) {
    for (const Diagnostic& d : all) {
      if (d.severity == Severity::Error) ++errors_;
      if (d.severity == Severity::Warning) ++warnings_;
    }
    std::vector<Diagnostic> diagnostics = limit_errors(all, error_limit_);
    if (format_ == DiagFormat::Json) {
      json_.push_back(render_json(file, diagnostics));
    } else {
      std::cerr << render_text(file, diagnostics, color_);
    }
  }

  void finish() {
    if (format_ == DiagFormat::Json) std::cout << json_.dump(2) << "\n";
  }

  int errors() const { return errors_; }
  bool json() const { return format_ == DiagFormat::Json; }
  // Adds `key` to the JSON object of the file added last (JSON format only).
  void attach(const std::string& key, nlohmann::json value) {
    if (format_ == DiagFormat::Json && !json_.empty()) json_.back()[key] = std::move(value);
  }

 private:
  DiagFormat format_;
  bool color_;
  int error_limit_;
  nlohmann::json json_ = nlohmann::json::array();
  int errors_ = 0;
  int warnings_ = 0;
};

// Reads a file; an unreadable one is reported as RX1000 and yields nullptr.
const SourceFile* load(SourceManager& sources, const std::string& path, Reporter& reporter,
                       bool& io_error) {
  auto loaded = sources.load(path);
  if (loaded.file) return loaded.file;
  const SourceFile& empty = sources.add_virtual(path, "");
  reporter.add(
      empty, {make_diagnostic(diag::CannotReadFile{.path = path, .reason = loaded.error}, Span{})});
  io_error = true;
  return nullptr;
}

void add_common_options(CLI::App* command, CommonOptions& options) {
  command
      ->add_option("--diagnostics-format", options.diagnostics_format,
                   "How diagnostics are printed")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("--color", options.color, "Colour diagnostics")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  command
      ->add_option("--error-limit", options.error_limit,
                   "Errors shown per file (default " + std::to_string(kDefaultErrorLimit) +
                       "; 0 shows them all)")
      ->check(CLI::NonNegativeNumber);
}

int exit_status(const Reporter& reporter, bool io_error) {
  if (io_error) return kExitUsage;
  return reporter.errors() > 0 ? kExitErrors : kExitClean;
}

// ---------------------------------------------------------------------------- raxc parse
struct ParseOptions {
  CommonOptions common;
  std::string file;
  std::string dump;
  bool spans = false;
  bool anonymous_vars = false;
};

int run_parse(const ParseOptions& options) {
  SourceManager sources;
  Reporter reporter(options.common);
  bool io_error = false;
  const SourceFile* file = load(sources, options.file, reporter, io_error);
  if (!file) return reporter.finish(), kExitUsage;
  frontend::ParsedFile parsed = frontend::parse_file(file->text());
  if (options.dump == "cst") {
    char* sexp = ts_node_string(ts_tree_root_node(parsed.tree.get()));
    std::cout << sexp << "\n";
    std::free(sexp);
  } else if (options.dump == "ast") {
    ir::DumpOptions dump_options;
    dump_options.spans = options.spans;
    dump_options.var_names = !options.anonymous_vars;
    std::cout << ir::dump_module(*parsed.module, dump_options);
  }
  reporter.add(*file, parsed.diagnostics);
  reporter.finish();
  return exit_status(reporter, io_error);
}

// ---------------------------------------------------------------------------- raxc check
struct CheckOptions {
  CommonOptions common;
  std::vector<std::string> files;
  bool werror = false;
  std::vector<std::string> warning_flags;  // -Wno-RX4001, -Werror=RX4001, -WRX4001, -Werror
  bool show_struct_info = false;
  // WF-12: the module must have an externally linked function (RX2029). Off by default: only a
  // program that is compiled needs an entry point, and libraries of private functions are valid.
  bool require_entry_point = false;
};

// Applies the -W switches to `sink`; a bad one is described in `error`.
bool configure_warnings(const CheckOptions& options, DiagnosticSink& sink, std::string& error) {
  sink.set_warnings_as_errors(options.werror);
  for (const std::string& flag : options.warning_flags) {
    if (flag == "error") {
      sink.set_warnings_as_errors(true);
      continue;
    }
    std::string_view spec = flag;
    enum class Action { Enable, Disable, Error, NoError } action = Action::Enable;
    for (auto [prefix, a] : {std::pair{std::string_view("no-error="), Action::NoError},
                             std::pair{std::string_view("error="), Action::Error},
                             std::pair{std::string_view("no-"), Action::Disable}}) {
      if (spec.substr(0, prefix.size()) == prefix) {
        action = a;
        spec.remove_prefix(prefix.size());
        break;
      }
    }
    std::optional<DiagId> id = find_diagnostic(spec);
    if (!id) {
      error = "unknown diagnostic code '" + std::string(spec) + "' in '-W" + flag + "'";
      return false;
    }
    switch (action) {
      case Action::Enable: sink.set_enabled(*id, true); break;
      case Action::Disable:
        if (!sink.set_enabled(*id, false)) {
          error = "'" + std::string(spec) + "' is an error and cannot be disabled";
          return false;
        }
        break;
      case Action::Error: sink.set_severity(*id, Severity::Error); break;
      case Action::NoError:
        if (default_severity(*id) == Severity::Error) {
          error = "'" + std::string(spec) + "' is an error and cannot be downgraded";
          return false;
        }
        sink.set_severity(*id, Severity::Warning);
        break;
    }
  }
  return true;
}

int report_usage_error(const std::string& message) {
  Diagnostic d = make_diagnostic(diag::InvalidCommandLine{.reason = message}, Span{});
  std::cerr << "raxc: error: " << d.message << " [" << code(d.id) << "]\n";
  return kExitUsage;
}

// --require-entry-point: RX2029 when no function is externally linked. Like the engine's other
// module-level checks, it is skipped when the frontend found errors (the module is incomplete).
void report_missing_entry_point(const frontend::Document& doc, DiagnosticSink& sink) {
  for (const Diagnostic& d : doc.diagnostics())
    if (d.severity == Severity::Error) return;
  DiagnosticSink found;
  analysis::check_entry_point(doc.module(), found);
  for (Diagnostic& d : found.take()) sink.report(doc.to_text(std::move(d)));
}

// --show-struct-info with JSON diagnostics: the inferred StructInfo of every binding of every
// Relax function as [{"name", "line", "column", "struct_info"}] (1-based, where the variable is
// bound), in source order. The golden runner compares `# sinfo:` comments with it.
nlohmann::json struct_info_json(const analysis::Engine& engine, const std::string& path,
                                const SourceFile& file) {
  struct Bindings : ir::Visitor {
    std::vector<const ir::Var*> vars;
    void on_binding(const ir::Binding& b) override {
      if (b.var != nullptr) vars.push_back(b.var);
    }
  } bindings;
  for (const ir::GlobalDef& g : engine.document(path)->module().globals)
    if (const ir::Function* f = g.function()) bindings.visit(f);
  nlohmann::json out = nlohmann::json::array();
  for (const ir::Var* var : bindings.vars) {
    const ir::StructInfo* s = engine.inferred(path, var);
    if (s == nullptr) continue;  // not analysed (the function has errors)
    LineCol at = file.location(var->span.begin);
    out.push_back({{"name", var->name},
                   {"line", at.line},
                   {"column", at.column},
                   {"struct_info", printer::print_struct_info(s)}});
  }
  return out;
}

int run_check(const CheckOptions& options) {
  DiagnosticSink settings;
  settings.set_enabled(DiagId::RX4009, false);  // unused bindings: editors grey them out
  std::string bad_flag;
  if (!configure_warnings(options, settings, bad_flag)) return report_usage_error(bad_flag);
  SourceManager sources;
  Reporter reporter(options.common);
  bool io_error = false;
  analysis::Engine engine;
  for (const std::string& path : options.files) {
    const SourceFile* file = load(sources, path, reporter, io_error);
    if (!file) continue;
    engine.open(path, file->text());
    DiagnosticSink sink = settings;
    for (Diagnostic& d : engine.diagnostics(path)) sink.report(std::move(d));
    if (options.require_entry_point) report_missing_entry_point(*engine.document(path), sink);
    reporter.add(*file, sink.take());
    if (options.show_struct_info && reporter.json()) {
      reporter.attach("struct_info", struct_info_json(engine, path, *file));
    } else if (options.show_struct_info) {
      const frontend::Document& doc = *engine.document(path);
      printer::PrintOptions print_options;
      print_options.struct_info_of = [&](const ir::Var* var) { return engine.inferred(path, var); };
      std::string printed =
          printer::print_module(doc.module(), print_options, doc.comments(), doc.text());
      if (!printed.empty() && printed.back() != '\n') printed += '\n';
      std::cout << printed;
    }
    engine.close(path);
  }
  reporter.finish();
  return exit_status(reporter, io_error);
}

// ---------------------------------------------------------------------------- raxc fmt
struct FmtOptions {
  CommonOptions common;
  std::vector<std::string> files;
  bool check = false;
  bool in_place = false;
  std::string dialect = "classic-a";
};

// Writes next to the target and renames over it, so a failure never truncates the file.
bool write_atomically(const std::string& path, const std::string& text, std::string& error) {
  std::filesystem::path target(path);
  std::filesystem::path temp = target;
  temp += ".raxc-fmt-" + std::to_string(getpid()) + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      error = "cannot write temporary file " + temp.string();
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return false;
    }
  }
  std::error_code ec;
  // Keep the original file's permissions.
  std::filesystem::permissions(temp, std::filesystem::status(target, ec).permissions(), ec);
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    error = ec.message();
    std::filesystem::remove(temp, ec);
    return false;
  }
  return true;
}

int run_fmt(const FmtOptions& options) {
  SourceManager sources;
  Reporter reporter(options.common);
  bool io_error = false;
  bool needs_formatting = false;
  printer::PrintOptions print_options;
  if (options.dialect == "classic-b")
    print_options.tir = printer::PrintOptions::TirDialect::ClassicB;
  for (const std::string& path : options.files) {
    const SourceFile* file = load(sources, path, reporter, io_error);
    if (!file) continue;
    frontend::ParsedFile parsed = frontend::parse_file(file->text());
    reporter.add(*file, parsed.diagnostics);
    if (parsed.has_errors()) continue;  // never print a module that did not lower cleanly
    std::string text =
        printer::print_module(*parsed.module, print_options, parsed.comments, file->text());
    if (options.check) {
      if (text != file->text()) {
        std::cout << "would reformat " << path << "\n";
        needs_formatting = true;
      }
    } else if (options.in_place) {
      std::string error;
      if (text != file->text() && !write_atomically(path, text, error)) {
        reporter.add(
            *file, {make_diagnostic(diag::CannotReadFile{.path = path, .reason = error}, Span{})});
        io_error = true;
      }
    } else {
      std::cout << text;
    }
  }
  reporter.finish();
  int status = exit_status(reporter, io_error);
  if (status == kExitClean && needs_formatting) status = kExitErrors;
  return status;
}

// ---------------------------------------------------------------------------- raxc lsp
struct LspOptions {
  std::string log_level = "info";
  int debounce_ms = 150;
  int settle_ms = 500;
  int client_process_id = 0;  // accepted for clients that pass it; unused
  bool stdio = true;
  double max_analysed_mib = 8;
};

CLI::App* add_lsp_command(CLI::App& app, LspOptions& options) {
  CLI::App* command = app.add_subcommand("lsp", "Run the language server on stdin/stdout");
  command->add_flag("--stdio", options.stdio, "Use stdin/stdout (the default and only transport)");
  command->add_option("--log-level", options.log_level, "window/logMessage verbosity")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}));
  command->add_option("--debounce-ms", options.debounce_ms, "Quiet time before re-analysis")
      ->check(CLI::Range(0, 10000));
  command
      ->add_option("--settle-ms", options.settle_ms,
                   "Quiet time before a document with syntax errors is parsed again from scratch")
      ->check(CLI::Range(0, 60000));
  command
      ->add_option("--max-analysed-mib", options.max_analysed_mib,
                   "Larger documents are only highlighted, not analysed")
      ->check(CLI::Range(0.0, 4096.0));
  command->add_option("--clientProcessId", options.client_process_id, "Ignored");
  return command;
}

int run_lsp(const LspOptions& options) {
  lsp::ServerOptions server;
  server.debounce = std::chrono::milliseconds(options.debounce_ms);
  server.settle_after = std::chrono::milliseconds(options.settle_ms);
  server.max_analysed_bytes = size_t(options.max_analysed_mib * 1024 * 1024);
  const char* levels[] = {"error", "warning", "info", "debug"};
  for (int i = 0; i < 4; ++i)
    if (options.log_level == levels[i]) server.log_level = static_cast<lsp::LogLevel>(i + 1);
  return lsp::run_stdio(server);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"raxc — a toolchain for Relax (Apache TVM) TVMScript files"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("raxc ") + RAXC_VERSION + " (tree-sitter ABI " +
                                        std::to_string(TREE_SITTER_LANGUAGE_VERSION) + ")");

  ParseOptions parse;
  CLI::App* parse_cmd = app.add_subcommand("parse", "Parse a file; optionally dump its CST or AST");
  parse_cmd->add_option("file", parse.file, "The .rx file")->required();
  parse_cmd->add_option("--dump", parse.dump, "Print the concrete or abstract syntax tree")
      ->check(CLI::IsMember({"cst", "ast"}));
  parse_cmd->add_flag("--spans", parse.spans, "Include source spans in --dump=ast");
  parse_cmd->add_flag("--anonymous-vars", parse.anonymous_vars,
                      "Number variables instead of naming them in --dump=ast (AST equality up "
                      "to renaming)");
  add_common_options(parse_cmd, parse.common);

  CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand("check", "Report errors and warnings");
  check_cmd->add_option("files", check.files, "The .rx files")->required();
  check_cmd->add_flag("--werror", check.werror, "Treat warnings as errors");
  check_cmd->add_option("-W", check.warning_flags,
                        "-Wno-RX4001 disables a warning, -Werror=RX4001 makes it an error, "
                        "-Wno-error=RX4001 a warning again, -Werror every warning");
  check_cmd->add_flag("--show-struct-info", check.show_struct_info,
                      "Print the module with every binding annotated with its inferred "
                      "StructInfo");
  check_cmd->add_flag("--require-entry-point", check.require_entry_point,
                      "Require an externally linked function (a public one, or one with a "
                      "global_symbol) as the program's entry point (RX2029)");
  add_common_options(check_cmd, check.common);

  FmtOptions fmt;
  CLI::App* fmt_cmd = app.add_subcommand("fmt", "Print files in TVM's canonical form");
  fmt_cmd->add_option("files", fmt.files, "The .rx files")->required();
  fmt_cmd->add_flag("--check", fmt.check, "Exit 1 if a file is not formatted; change nothing");
  fmt_cmd->add_flag("-i,--in-place", fmt.in_place, "Rewrite the files in place");
  fmt_cmd
      ->add_option("--tvm-dialect", fmt.dialect,
                   "TIR spelling: classic-a (T.block) or "
                   "classic-b (T.sblock)")
      ->check(CLI::IsMember({"classic-a", "classic-b"}));
  add_common_options(fmt_cmd, fmt.common);
  fmt_cmd->get_option("--check")->excludes(fmt_cmd->get_option("--in-place"));

  LspOptions lsp_options;
  CLI::App* lsp_cmd = add_lsp_command(app, lsp_options);

  RunOptions run_options;
  CLI::App* run_cmd = add_run_command(app, run_options);

  LowerOptions lower_options;
  CLI::App* lower_cmd = add_lower_command(app, lower_options);

  BuildOptions build_options;
  CLI::App* build_cmd = add_build_command(app, build_options);

  ExplainOptions explain;
  CLI::App* explain_cmd = add_explain_command(app, explain);

  ImportCommandOptions import_options;
  CLI::App* import_cmd = add_import_command(app, import_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A bad flag or a missing argument is a coded error like any other user mistake.
    Diagnostic d = make_diagnostic(diag::InvalidCommandLine{.reason = e.what()}, Span{});
    std::cerr << "raxc: error: " << d.message << " [" << code(d.id) << "]\n"
              << "Run 'raxc --help' (or 'raxc <command> --help') for usage.\n";
    return kExitUsage;
  }
  if (*parse_cmd) return run_parse(parse);
  if (*check_cmd) return run_check(check);
  if (*fmt_cmd) return run_fmt(fmt);
  if (*lsp_cmd) return run_lsp(lsp_options);
  if (*lower_cmd) return run_lower(lower_options);
  if (*explain_cmd) return run_explain(explain);
  if (*import_cmd) return run_import(import_options);
  if (*build_cmd) return run_build(build_options);
  if (*run_cmd) {
    std::string error;
    if (!take_arguments(*run_cmd, run_options, error)) return report_usage_error(error);
    return run_run(run_options);
  }
  return kExitUsage;
}

void run_with_large_stack(const std::function<void()>& body) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, size_t(512) << 20);
  pthread_t thread;
  auto trampoline = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  if (pthread_create(&thread, &attributes, trampoline, const_cast<std::function<void()>*>(&body)) !=
      0) {
    body();  // could not get a big stack: run on this one
  } else {
    pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attributes);
}

}  // namespace raxc::driver
