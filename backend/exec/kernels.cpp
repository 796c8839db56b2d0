// Kernels loaded from a shared object, cached or compiled (kernels.h).
#include "backend/exec/kernels.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "backend/exec/codegen.h"
#include "backend/exec/elf_file.h"
#include "backend/exec/kernel_cache.h"

namespace raxc::backend {
namespace {

namespace fs = std::filesystem;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

size_t count_prim_funcs(const ir::IRModule& module) {
  size_t n = 0;
  for (const ir::GlobalDef& g : module.globals) n += g.prim_func() != nullptr;
  return n;
}

// A private directory for kernels compiled outside the cache, removed when done (a loaded
// shared object stays mapped after its file is gone).
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    fs::path temp = fs::temp_directory_path(ec);
    std::string pattern = ((ec ? fs::path("/tmp") : temp) / "raxc-kernels-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

KernelLibrary::~KernelLibrary() {
  if (handle_) dlclose(handle_);
}

RaxcPackedFunc KernelLibrary::find(std::string_view global) const {
  auto it = kernels_.find(std::string(global));
  return it == kernels_.end() ? nullptr : it->second;
}

std::unique_ptr<KernelLibrary> KernelLibrary::open(const std::string& path,
                                                   const ir::IRModule& module, std::string* error) {
  if (!elf_shared_object_complete(path)) {
    *error = "'" + path + "' is not a complete shared object";
    return nullptr;
  }
  std::unique_ptr<KernelLibrary> library(new KernelLibrary());
  library->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    *error = dlerror();
    return nullptr;
  }
  for (const ir::GlobalDef& g : module.globals) {
    if (!g.prim_func()) continue;
    void* symbol = dlsym(library->handle_, ("raxc_kernel." + g.gvar->name).c_str());
    if (!symbol) {
      *error = "'" + path + "' has no kernel '" + g.gvar->name + "'";
      return nullptr;
    }
    library->kernels_[g.gvar->name] = reinterpret_cast<RaxcPackedFunc>(symbol);
  }
  return library;
}

std::unique_ptr<KernelLibrary> KernelLibrary::compile(const ir::IRModule& module,
                                                      const CodegenOptions& options,
                                                      DiagnosticSink& diags, CompileStats* stats,
                                                      bool use_cache) {
  CompileStats local;
  CompileStats& st = stats ? *stats : local;
  if (count_prim_funcs(module) == 0) return std::unique_ptr<KernelLibrary>(new KernelLibrary());

  // A cache hit: no code generator, no LLVM.
  auto start = std::chrono::steady_clock::now();
  std::optional<KernelCache> cache = use_cache ? KernelCache::open() : std::nullopt;
  std::string entry, error;
  if (cache && !codegen_identity().empty()) {
    entry = cache->entry(KernelCache::key(module, options, codegen_identity())).string();
    if (auto library = open(entry, module, &error)) {
      st.kernels = count_prim_funcs(module);
      st.cached = true;
      st.jit_ms = ms_since(start);
      return library;
    }
  }

  // Compiled, into the cache (replacing an entry that did not load) or a private directory.
  Diagnostic unavailable;
  const CodegenApi* codegen = load_codegen(&unavailable);
  if (!codegen) {
    diags.report(std::move(unavailable));
    return nullptr;
  }
  std::optional<ScratchDir> scratch;
  if (entry.empty()) {
    if (scratch.emplace().path().empty()) {
      diags.report(make_diagnostic(
          diag::UnsupportedOnCpu{.what = "compiling without a writable temporary directory "
                                         "($TMPDIR, else /tmp)"},
          Span{}));
      return nullptr;
    }
    entry = scratch->path() + "/kernels.so";
  }
  if (!codegen->compile_kernels(module, options, entry, diags, st)) return nullptr;
  start = std::chrono::steady_clock::now();
  auto library = open(entry, module, &error);
  if (!library) {
    diags.report(make_diagnostic(
        diag::UnsupportedOnCpu{.what = "loading the compiled kernels (" + error + ")"}, Span{}));
    return nullptr;
  }
  if (cache) cache->prune();
  st.jit_ms += ms_since(start);
  return library;
}

std::optional<std::string> KernelLibrary::llvm_ir(const ir::IRModule& module,
                                                  const CodegenOptions& options, bool optimize,
                                                  DiagnosticSink& diags) {
  Diagnostic unavailable;
  const CodegenApi* codegen = load_codegen(&unavailable);
  if (!codegen) {
    diags.report(std::move(unavailable));
    return std::nullopt;
  }
  return codegen->kernels_llvm_ir(module, options, optimize, diags);
}

}  // namespace raxc::backend
