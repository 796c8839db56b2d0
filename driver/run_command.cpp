// `raxc run FILE.rx [ARG...]`: check the module with the analysis engine, compile its PrimFuncs
// (backend/exec/kernels.h), build the entry's arguments (backend/exec/arguments.h), run it
// (backend/exec) and print the result like numpy, as JSON, or into .npy files. Every failure a user
// can cause is a coded diagnostic: errors of the module (exit 1, as `raxc check` prints them), bad
// arguments or unreadable inputs (exit 2), compile and run-time errors located in the .rx text
// (exit 1).
#include "driver/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "analysis/engine.h"
#include "backend/exec/arguments.h"
#include "backend/exec/executor.h"
#include "backend/exec/kernels.h"
#include "backend/exec/packed.h"
#include "backend/fuse/fuse.h"
#include "backend/io/print.h"
#include "backend/io/save.h"
#include "backend/runtime/raxc_runtime.h"
#include "driver/commands.h"
#include "driver/import_command.h"
#include "driver/lower_command.h"
#include "frontend/source.h"

namespace raxc::driver {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// A private temporary directory, removed with everything in it when the run ends.
class ScratchDir {
 public:
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() {
    if (path_.empty()) {
      std::string pattern = (std::filesystem::temp_directory_path() / "raxc-run-XXXXXX").string();
      if (mkdtemp(pattern.data())) path_ = pattern;
    }
    return path_;
  }

 private:
  std::string path_;
};

std::string function_list(const ir::IRModule& module) {
  std::string names;
  for (const ir::GlobalDef& g : module.globals) {
    if (!g.function()) continue;
    names += (names.empty() ? "" : ", ") + g.gvar->name;
  }
  return names.empty() ? "no Relax function" : names;
}

// A failed compile exits 1, but a code generator that does not load (RX5034) is the
// installation's problem, not the module's: 2.
int compile_failure_status(const std::vector<Diagnostic>& ds) {
  bool unavailable =
      std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == DiagId::RX5034; });
  return unavailable ? kExitUsage : kExitErrors;
}

void print_result(const runtime::Value& result, const RunOptions& options) {
  if (options.output_format == "json")
    std::cout << io::value_to_json(result).dump() << "\n";
  else
    std::cout << io::format_value(result) << "\n";
}

}  // namespace

// `--profile`: per run, the time in each callee, most first, and what is left for the
// interpreter (binding values, allocating outputs, checking annotations).
void print_profile(const backend::CallProfile& profile, const std::vector<double>& times) {
  double runs = static_cast<double>(times.size()), total = 0, in_callees = 0;
  for (double t : times) total += t;
  std::vector<std::pair<std::string, backend::CallProfile::Callee>> rows(profile.callees.begin(),
                                                                         profile.callees.end());
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.ms > b.second.ms; });
  std::fprintf(stderr, "profile, per run (%.0f run%s of %.3f ms on average):\n", runs,
               runs == 1 ? "" : "s", total / runs);
  std::fprintf(stderr, "  %10s %7s %6s  %s\n", "ms", "%", "calls", "callee");
  auto row = [&](double ms, double calls, const std::string& name) {
    std::fprintf(stderr, "  %10.3f %6.1f%% %6.0f  %s\n", ms / runs,
                 total > 0 ? 100 * ms / total : 0, calls / runs, name.c_str());
  };
  for (const auto& [name, callee] : rows) {
    row(callee.ms, static_cast<double>(callee.calls), name);
    in_callees += callee.ms;
  }
  row(std::max(0.0, total - in_callees), 0, "(the interpreter: bindings, outputs, checks)");
}

CLI::App* add_run_command(CLI::App& app, RunOptions& options) {
  CLI::App* command = app.add_subcommand("run", "Compile and run a function of a module");
  command->add_option("file", options.file, "The .rx file")->required();
  // The arguments are the words after FILE that are not options, taken as written (see
  // take_arguments): CLI11 would split "[1, 2]" into two values.
  command->allow_extras();
  command->add_option("--entry", options.entry, "The function to run (default: main)");
  // Repeatable options take one value per occurrence: the words after them are arguments.
  command
      ->add_option("--bind", options.binds,
                   "NAME=VALUE: a symbolic dimension no input fixes (repeatable)")
      ->allow_extra_args(false);
  command
      ->add_option("--default-dim", options.default_dim,
                   "The value of symbolic dimensions neither an input nor --bind fixes")
      ->check(CLI::NonNegativeNumber);
  command->add_flag("--random", options.random, "Generate every argument (see --seed)");
  command->add_option("--seed", options.seed, "Seed of generated arguments (default 0)");
  command->add_option("--save", options.save_dir,
                      "Write each result tensor as N.npy and outputs.json into this directory");
  command->add_option("--output-format", options.output_format, "How results are printed")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("--repeat", options.repeat, "Run N times and report compile and run times")
      ->check(CLI::Range(1, 1000000));
  command
      ->add_option(
          "--threads", options.threads,
          "Threads for T.parallel loops and matmul (default: $RAXC_NUM_THREADS, else the CPUs "
          "this process may use)")
      ->check(CLI::Range(1, 1024));
  command
      ->add_option("--load", options.plugins,
                   "A plugin (shared library) whose packed functions the module calls "
                   "(repeatable; C ABI in backend/runtime/raxc_runtime.h)")
      ->allow_extra_args(false);
  command->add_flag("--no-cache", options.no_cache,
                    "Compile the kernels even when the compiled-code cache has them (see "
                    "RAXC_CACHE_DIR)");
  command->add_flag("--check-bounds", options.check_bounds,
                    "Check every buffer access of every PrimFunc against its shape");
  command->add_flag("--profile", options.profile,
                    "After the runs, print the time spent in each kernel and packed function");
  command->add_flag("--emit-llvm", options.emit_llvm,
                    "Print the optimised LLVM IR of the PrimFuncs instead of running");
  options.diagnostics.add_options(command);
  command->add_option("--params", options.params,
                      "Directory of NAME.npy files for the parameters no argument binds "
                      "(the weights `raxc import` writes)");
  return command;
}

bool take_arguments(CLI::App& command, RunOptions& options, std::string& error) {
  for (const std::string& word : command.remaining()) {
    // A leftover word that looks like an option is a misspelled one, not an argument (negative
    // numbers are arguments).
    if (word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1])) &&
        word[1] != '.' && word != "-inf") {
      error = "unknown option '" + word + "' for 'raxc run'";
      return false;
    }
    options.args.push_back(word);
  }
  return true;
}

int run_run(const RunOptions& options) {
  SourceManager sources;
  // An ONNX model is imported in memory; .pb (TensorProto) arguments become .npy files, and the
  // model's weights are written beside them (import_command.h).
  ScratchDir scratch;
  std::vector<std::string> arg_texts = options.args;
  std::optional<std::string> imported;
  auto early_failure = [&](Diagnostic d) {
    int status = d.id == DiagId::RX1000 || d.id == DiagId::RX1407 || d.id == DiagId::RX1409
                     ? kExitUsage
                     : kExitErrors;
    options.diagnostics.print_about(options.file, {std::move(d)});
    return status;
  };
  bool onnx = options.file.size() > 5 && options.file.ends_with(".onnx");
  if (onnx) {
    auto prepared = prepare_onnx_run(options.file, arg_texts, scratch.path());
    if (auto* d = std::get_if<Diagnostic>(&prepared)) return early_failure(std::move(*d));
    imported = std::move(std::get<OnnxRun>(prepared).text);
    arg_texts = std::move(std::get<OnnxRun>(prepared).args);
  } else if (std::any_of(arg_texts.begin(), arg_texts.end(),
                         [](const std::string& a) { return a.ends_with(".pb"); })) {
    auto converted = convert_pb_arguments(arg_texts, scratch.path());
    if (auto* d = std::get_if<Diagnostic>(&converted)) return early_failure(std::move(*d));
    arg_texts = std::move(std::get<std::vector<std::string>>(converted));
  }
  auto loaded = imported
                    ? SourceManager::LoadResult{&sources.add_virtual(options.file, *imported), {}}
                    : sources.load(options.file);
  if (!loaded.file) {
    options.diagnostics.print_about(
        options.file,
        {make_diagnostic(diag::CannotReadFile{.path = options.file, .reason = loaded.error},
                         Span{})});
    return kExitUsage;
  }
  const SourceFile& file = *loaded.file;
  auto report = [&](const std::vector<Diagnostic>& ds) { options.diagnostics.print(file, ds); };

  analysis::Engine engine;
  if (!check_cleanly(engine, file, options.diagnostics)) return kExitErrors;
  const frontend::Document& doc = *engine.document(options.file);
  if (!refuse_distributed(doc.module(), file, options.diagnostics)) return kExitErrors;
  // Tensor operators run as the TIR their legalization generates (raxc lower shows it); the
  // rewritten functions keep the original variables and spans, so diagnostics still point at
  // the .rx text.
  std::unique_ptr<backend::LoweredModule> lowered = lower_document(engine, options.file);
  // Chains of element-wise kernels run as one loop (backend/fuse), written or legalized ones.
  size_t fused = lowered ? backend::fuse_elementwise(*lowered).fused_calls : 0;
  bool use_lowered = lowered && (lowered->legalized_calls > 0 || fused > 0);
  const ir::IRModule& module = use_lowered ? lowered->module : doc.module();
  auto normalized = [&](const ir::GlobalDef& g) -> const ir::Function* {
    const ir::Function* analysed = engine.normalized(options.file, g.gvar->name);
    return analysed && use_lowered ? g.function() : analysed;
  };
  auto fail = [&](Diagnostic d, int status) {
    report({doc.to_text(std::move(d))});
    return status;
  };

  const ir::GlobalDef* entry = module.find(options.entry);
  const ir::Function* function = entry ? normalized(*entry) : nullptr;
  if (!function)
    return fail(make_diagnostic(diag::NoSuchEntryFunction{.entry = options.entry,
                                                          .functions = function_list(module)},
                                Span{}),
                kExitUsage);  // a wrong --entry is a usage error

  backend::CodegenOptions codegen;
  codegen.check_bounds = options.check_bounds;
  if (options.emit_llvm) {
    DiagnosticSink sink;
    std::optional<std::string> ir = backend::KernelLibrary::llvm_ir(module, codegen, true, sink);
    if (!ir) {
      std::vector<Diagnostic> ds;
      for (Diagnostic& d : sink.take()) ds.push_back(doc.to_text(std::move(d)));
      int status = compile_failure_status(ds);
      report(std::move(ds));
      return status;
    }
    std::cout << *ir;
    return kExitClean;
  }

  backend::ArgumentOptions arg_options;
  for (const std::string& bind : options.binds) {
    size_t eq = bind.find('=');
    int64_t value = 0;
    bool ok = eq != std::string::npos && eq > 0;
    try {
      size_t used = 0;
      if (ok) value = std::stoll(bind.substr(eq + 1), &used);
      ok = ok && used == bind.size() - eq - 1 && value >= 0;
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok)
      return fail(
          make_diagnostic(
              diag::BadArgument{.argument = "--bind",
                                .text = bind,
                                .reason = "expected NAME=VALUE with a non-negative integer"},
              Span{}),
          kExitUsage);
    arg_options.binds.emplace_back(bind.substr(0, eq), value);
  }
  arg_options.default_dim = options.default_dim;
  arg_options.random = options.random;
  arg_options.seed = options.seed;
  // --params: each parameter past the given arguments from DIR/<name>.npy.
  if (!options.params.empty())
    for (size_t i = arg_texts.size(); i < function->params.size(); ++i)
      arg_texts.push_back(options.params + "/" + function->params[i]->name + ".npy");
  auto args = backend::make_arguments(*function, options.entry, arg_texts, arg_options);
  if (auto* d = std::get_if<Diagnostic>(&args)) return fail(std::move(*d), kExitUsage);

  for (const std::string& plugin : options.plugins)
    if (std::optional<std::string> why = backend::load_plugin(plugin))
      return fail(make_diagnostic(diag::CannotLoadPlugin{.path = plugin, .reason = *why}, Span{}),
                  kExitUsage);
  raxc_set_num_threads(options.threads);
  auto compile_start = std::chrono::steady_clock::now();
  DiagnosticSink compile_sink;
  backend::CompileStats stats;
  std::unique_ptr<backend::KernelLibrary> kernels =
      backend::KernelLibrary::compile(module, codegen, compile_sink, &stats, !options.no_cache);
  double compile_ms = ms_since(compile_start);
  if (!kernels) {
    std::vector<Diagnostic> ds;
    for (Diagnostic& d : compile_sink.take()) ds.push_back(doc.to_text(std::move(d)));
    int status = compile_failure_status(ds);
    report(std::move(ds));
    return status;
  }

  backend::Program program{&module, normalized, {}};
  if (lowered)
    for (const backend::LeftCall& call : lowered->left)
      program.why_not_lowered.emplace(call.span.begin, call.why);
  backend::ExecOptions exec_options;
  exec_options.arguments_fixed = true;  // read from files or made here, never changed
  backend::CallProfile profile;
  if (options.profile) exec_options.profile = &profile;
  backend::Executor executor(program, *kernels, exec_options);
  std::vector<double> times;
  std::optional<runtime::Value> result;
  const auto& values = std::get<std::vector<runtime::Value>>(args);
  for (int i = 0; i < options.repeat; ++i) {
    Diagnostic error;
    auto start = std::chrono::steady_clock::now();
    result = executor.call(*entry, values, &error);
    times.push_back(ms_since(start));
    if (!result) return fail(std::move(error), kExitErrors);
  }

  if (!options.save_dir.empty()) {
    if (io::Status s = io::save_outputs(options.save_dir, *result))
      return fail(make_diagnostic(
                      diag::CannotReadFile{.path = options.save_dir, .reason = s->message}, Span{}),
                  kExitUsage);
  }
  print_result(*result, options);
  if (options.repeat > 1) {
    std::sort(times.begin(), times.end());
    std::fprintf(
        stderr,
        "compile %.2f ms (%zu kernels%s: codegen %.2f, optimize %.2f, jit %.2f); run over %d "
        "with %d thread(s): min %.3f ms, median %.3f ms\n",
        compile_ms, stats.kernels, stats.cached ? ", machine code cached" : "", stats.codegen_ms,
        stats.optimize_ms, stats.jit_ms, options.repeat, raxc_num_threads(), times.front(),
        times[times.size() / 2]);
  }
  if (options.profile) print_profile(profile, times);
  return kExitClean;
}

}  // namespace raxc::driver
