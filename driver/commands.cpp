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

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/ir/dump.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"

#ifndef RAXC_VERSION
#define RAXC_VERSION "0.1.0"
#endif

namespace raxc::driver {
namespace {

enum class DiagFormat { Text, Json };

struct CommonOptions {
  std::string diagnostics_format = "text";
  std::string color = "auto";
};

// Collects per-file diagnostics and prints them in the chosen format at the end (JSON is one
// array for all files).
class Reporter {
 public:
  explicit Reporter(const CommonOptions& options)
      : format_(options.diagnostics_format == "json" ? DiagFormat::Json : DiagFormat::Text),
        color_(options.color == "always" || (options.color == "auto" && isatty(STDERR_FILENO))) {}

  void add(const SourceFile& file, const std::vector<Diagnostic>& diagnostics) {
    for (const Diagnostic& d : diagnostics) {
      if (d.severity == Severity::Error) ++errors_;
      if (d.severity == Severity::Warning) ++warnings_;
    }
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

 private:
  DiagFormat format_;
  bool color_;
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
  reporter.add(empty, {make_diagnostic(DiagId::RX1000, Span{}, {path, loaded.error})});
  io_error = true;
  return nullptr;
}

void add_common_options(CLI::App* command, CommonOptions& options) {
  command->add_option("--diagnostics-format", options.diagnostics_format,
                      "How diagnostics are printed")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("--color", options.color, "Colour diagnostics")
      ->check(CLI::IsMember({"auto", "always", "never"}));
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
};

int run_check(const CheckOptions& options) {
  SourceManager sources;
  Reporter reporter(options.common);
  bool io_error = false;
  for (const std::string& path : options.files) {
    const SourceFile* file = load(sources, path, reporter, io_error);
    if (!file) continue;
    frontend::ParsedFile parsed = frontend::parse_file(file->text());
    reporter.add(*file, parsed.diagnostics);
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
  if (options.dialect == "classic-b") print_options.tir = printer::PrintOptions::TirDialect::ClassicB;
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
        reporter.add(*file, {make_diagnostic(DiagId::RX1000, Span{}, {path, error})});
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

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"raxc — a toolchain for Relax (Apache TVM) TVMScript files"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("raxc ") + RAXC_VERSION +
                                        " (tree-sitter ABI " +
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
  add_common_options(check_cmd, check.common);

  FmtOptions fmt;
  CLI::App* fmt_cmd = app.add_subcommand("fmt", "Print files in TVM's canonical form");
  fmt_cmd->add_option("files", fmt.files, "The .rx files")->required();
  fmt_cmd->add_flag("--check", fmt.check, "Exit 1 if a file is not formatted; change nothing");
  fmt_cmd->add_flag("-i,--in-place", fmt.in_place, "Rewrite the files in place");
  fmt_cmd->add_option("--tvm-dialect", fmt.dialect, "TIR spelling: classic-a (T.block) or "
                                                    "classic-b (T.sblock)")
      ->check(CLI::IsMember({"classic-a", "classic-b"}));
  add_common_options(fmt_cmd, fmt.common);
  fmt_cmd->get_option("--check")->excludes(fmt_cmd->get_option("--in-place"));

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
    Diagnostic d = make_diagnostic(DiagId::RX1099, Span{}, {e.what()});
    std::cerr << "raxc: error: " << d.message << " [" << code(d.id) << "]\n"
              << "Run 'raxc --help' (or 'raxc <command> --help') for usage.\n";
    return kExitUsage;
  }
  if (*parse_cmd) return run_parse(parse);
  if (*check_cmd) return run_check(check);
  if (*fmt_cmd) return run_fmt(fmt);
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
  if (pthread_create(&thread, &attributes, trampoline, const_cast<std::function<void()>*>(&body)) != 0) {
    body();  // could not get a big stack: run on this one
  } else {
    pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attributes);
}

}  // namespace raxc::driver
