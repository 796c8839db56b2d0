// Fuzz target: text → `raxc run`, in-process, on one of the module's Relax functions.
//
// A module that checks cleanly is lowered, compiled and run (backend/) on generated arguments,
// exactly as `raxc run FILE --entry NAME --random --default-dim D --seed S --threads T
// --check-bounds` does it. Whatever the program computes, no input may crash, hang or leak:
// every failure a user can cause (a failed match_cast, a shape mismatch, an allocation too
// large, a kernel reading past its buffer) is a coded diagnostic and exit status 1 or 2
// (README "Fuzzing"). The control bytes after the text choose the function, D (0–4), S and T
// (1 or 2). Results and diagnostics go to stdout, which the target sends to /dev/null.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/run_command.h"
#include "frontend/frontend.h"
#include "test/fuzz/fuzz_input.h"

namespace {

// The input file and the compiled-code cache: one private directory for the process, so that
// inputs whose kernels did not change reuse their machine code; removed when the process exits
// (the string is never destroyed, so the exit handler can still read it).
const std::string& scratch_dir() {
  static const std::string* dir = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "raxc-fuzz-run-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    auto* kept = new std::string(std::move(pattern));
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
    });
    return kept;
  }();
  return *dir;
}

std::vector<std::string> relax_functions(std::string_view text) {
  std::vector<std::string> names;
  raxc::frontend::ParsedFile parsed = raxc::frontend::parse_file(text);
  if (parsed.has_errors()) return names;
  for (const raxc::ir::GlobalDef& g : parsed.module->globals)
    if (g.function()) names.push_back(g.gvar->name);
  return names;
}

void run(raxc::fuzz::FuzzInput& input) {
  std::vector<std::string> functions = relax_functions(input.text());
  if (functions.empty()) return;
  raxc::driver::RunOptions options;
  options.file = scratch_dir() + "/input.rx";
  std::ofstream(options.file, std::ios::binary | std::ios::trunc) << input.text();
  options.entry = functions[input.choose(static_cast<uint32_t>(functions.size()))];
  options.random = true;
  options.default_dim = input.choose(5);
  options.seed = input.choose(256);
  options.threads = 1 + static_cast<int>(input.choose(2));
  options.check_bounds = true;
  options.diagnostics.format = "json";  // to stdout, not into the fuzzer's log
  options.diagnostics.color = "never";
  int status = raxc::driver::run_run(options);
  if (status < 0 || status > 2) {
    std::fprintf(stderr, "raxc run: exit status %d (entry %s)\n", status, options.entry.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // What a run prints is not what the fuzzer checks; its own log is on stderr.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  if (!std::getenv("RAXC_CACHE_DIR"))
    setenv("RAXC_CACHE_DIR", (scratch_dir() + "/cache").c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raxc::fuzz::FuzzInput input(data, size);
  // As raxc's main does: the frontend and the analysis recurse over the tree.
  raxc::driver::run_with_large_stack([&] { run(input); });
  return 0;
}
