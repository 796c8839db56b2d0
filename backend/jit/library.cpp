// Object, assembly, IR and shared-library emission for `raxc build` (see library.h). The target
// is this machine's CPU with its features (as the JIT: ../shared/research/backend.md), with
// position-independent code for the shared object. Linking runs the system C compiler:
//
//   cc -shared -o LIB obj.o librx_runtime.a -Wl,--version-script=... -Wl,-Bsymbolic
//      -lstdc++ -lm -pthread [-l:libsleef.so.3]
//
// (SLEEF when the code calls its vector math functions: backend/codegen/vector_math.h.)
// The version script exports the entries and the runtime's C API (raxc_value_*,
// raxc_last_error, threads, the packed-function registry and raxc_plugin_fail, which plugins
// call) and hides everything else; -Bsymbolic binds the library's own
// references to its own runtime copy, so a program that links two libraries (or raxc itself)
// never mixes their error slots.
#include "backend/jit/library.h"

#include <fcntl.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/io/atomic_file.h"
#include "backend/jit/host_target.h"

extern char** environ;

#ifndef RAXC_RUNTIME_ARCHIVE
#define RAXC_RUNTIME_ARCHIVE ""
#endif
#ifndef RAXC_RUNTIME_LINK_FLAGS
#define RAXC_RUNTIME_LINK_FLAGS ""
#endif

namespace raxc::backend {
namespace {

namespace fs = std::filesystem;

// This CPU as a target machine for position-independent code (host_target.h).
std::unique_ptr<llvm::TargetMachine> host_machine(std::string* error) {
  auto jtmb = host_target(error, /*pic=*/true);
  if (!jtmb) return nullptr;
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    *error = llvm::toString(tm.takeError());
    return nullptr;
  }
  return std::move(*tm);
}

// Runs argv, its output into `log`; the exit status (or -1 when it could not start).
int run_process(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const fs::path& path, size_t limit) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Links `objects` into a shared library at `output` with `cc -shared ARGS...` (the objects'
// paths inserted where ARGS holds "{objects}"): built under a temporary name in the same
// directory and renamed over the target, so a failed link leaves any existing file alone.
std::optional<std::string> link(const std::vector<std::string>& objects, const fs::path& output,
                                const std::vector<std::string>& args,
                                const std::string& version_script = {}) {
  fs::path dir = output.parent_path().empty() ? fs::path(".") : output.parent_path();
  std::string stem = "." + output.filename().string() + ".raxc-tmp-" + std::to_string(getpid());
  std::vector<fs::path> objs;
  for (size_t i = 0; i < objects.size(); ++i)
    objs.push_back(dir / (stem + std::to_string(i) + ".o"));
  fs::path script = dir / (stem + ".map"), log = dir / (stem + ".log"), temp = dir / (stem + ".so");
  auto cleanup = [&] {
    std::error_code ec;
    for (const fs::path& p : objs) fs::remove(p, ec);
    for (const fs::path& p : {script, log, temp}) fs::remove(p, ec);
  };
  bool written = true;
  for (size_t i = 0; i < objects.size(); ++i) {
    std::ofstream o(objs[i], std::ios::binary);
    o.write(objects[i].data(), static_cast<std::streamsize>(objects[i].size()));
    written = written && o.good();
  }
  if (!version_script.empty())
    written = written && (std::ofstream(script) << version_script).good();
  if (!written) {
    cleanup();
    return "cannot write temporary files in '" + dir.string() + "'";
  }
  const char* env_cc = std::getenv("RAXC_CC");
  std::vector<std::string> argv{env_cc && *env_cc ? env_cc : "cc", "-shared", "-o", temp.string()};
  for (const std::string& a : args) {
    if (a == "{objects}")
      for (const fs::path& p : objs) argv.push_back(p.string());
    else if (a == "{version-script}")
      argv.push_back("-Wl,--version-script=" + script.string());
    else
      argv.push_back(a);
  }
  int status = run_process(argv, log);
  if (status != 0) {
    std::string why = status < 0 ? "cannot run the C compiler '" + argv[0] + "'"
                                 : "the link failed: " + read_text(log, 400);
    cleanup();
    return why;
  }
  std::error_code ec;
  fs::rename(temp, output, ec);
  if (ec) {
    cleanup();
    return ec.message();
  }
  cleanup();
  return std::nullopt;
}

// A library `raxc build` writes: the object with the runtime archive linked in, exporting the
// entries (`prefix`*) and the runtime's C API.
std::optional<std::string> link_library(const std::string& object, const fs::path& output,
                                        const std::string& prefix, bool with_sleef) {
  const char* env_archive = std::getenv("RAXC_RUNTIME_LIB");
  std::string archive = env_archive && *env_archive ? env_archive : RAXC_RUNTIME_ARCHIVE;
  if (archive.empty() || !fs::exists(archive))
    return "the runtime library '" + archive + "' does not exist (set RAXC_RUNTIME_LIB)";
  std::ostringstream script;
  script << "{\n  global:\n    " << prefix << "*;\n    raxc_value_*;\n    raxc_last_error;\n"
         << "    raxc_set_num_threads;\n    raxc_num_threads;\n    raxc_load_plugin;\n"
         << "    raxc_register_function;\n    raxc_plugin_fail;\n  local: *;\n};\n";
  std::vector<std::string> args{"{objects}",
                                // The packed-function registry a program fills before it
                                // calls an entry, even when no entry makes a packed call.
                                "-Wl,--undefined=raxc_load_plugin", archive, "{version-script}",
                                "-Wl,-Bsymbolic", "-lstdc++", "-lm", "-pthread"};
  if (with_sleef) args.push_back(std::string("-l:") + kSleefLibrary);
  for (const std::string& f : split_words(RAXC_RUNTIME_LINK_FLAGS)) args.push_back(f);
  return link({object}, output, args, script.str());
}

}  // namespace

std::optional<std::string> link_kernels(const std::vector<std::string>& objects,
                                        const std::string& output, bool with_sleef) {
  // No C start files and no libc to search: the kernels define no constructors, and what they
  // call (the runtime, libc, libgcc's helpers) resolves from the process that loads them, as
  // the JIT resolved it. This halves the time cc takes.
  std::vector<std::string> args{"-nostdlib", "{objects}", "-lm"};
  if (with_sleef) args.push_back(std::string("-l:") + kSleefLibrary);
  return link(objects, output, args);
}

namespace {

int write_failed(DiagnosticSink& diags, const std::string& output, const std::string& why) {
  diags.report(make_diagnostic(diag::BuildFailed{.output = output, .reason = why}, Span{}));
  return 2;
}

}  // namespace

int build_library(const RelaxLibrary& library, const CodegenOptions& options, EmitKind kind,
                  const std::string& output, DiagnosticSink& diags, LibraryStats* stats) {
  LibraryStats local;
  LibraryStats& st = stats ? *stats : local;
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = host_machine(&error);
  if (!tm) return write_failed(diags, output, "no LLVM target for this machine: " + error);

  auto start = std::chrono::steady_clock::now();
  llvm::LLVMContext context;
  llvm::Module module(library.module->name, context);
  module.setDataLayout(tm->createDataLayout());
  module.setTargetTriple(tm->getTargetTriple().str());
  if (!emit_relax_library(module, library, options, diags)) return 1;
  st.codegen_ms = ms_since(start);

  start = std::chrono::steady_clock::now();
  optimize_module(module, *tm);
  st.optimize_ms = ms_since(start);

  std::string bytes;
  start = std::chrono::steady_clock::now();
  if (kind == EmitKind::LlvmIr) {
    llvm::raw_string_ostream os(bytes);
    module.print(os, nullptr);
  } else {
    auto code = machine_code(module, *tm,
                             kind == EmitKind::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                        : llvm::CodeGenFileType::ObjectFile);
    if (!code) return write_failed(diags, output, "LLVM cannot emit this file type");
    bytes = std::move(*code);
  }
  st.emit_ms = ms_since(start);

  if (kind != EmitKind::SharedLibrary) {
    if (io::Status s = io::write_file_atomic(output, {bytes}))
      return write_failed(diags, output, s->message);
    return 0;
  }
  start = std::chrono::steady_clock::now();
  std::optional<std::string> why = link_library(bytes, output, library.prefix, calls_sleef(module));
  st.link_ms = ms_since(start);
  if (why) return write_failed(diags, output, *why);
  return 0;
}

}  // namespace raxc::backend
