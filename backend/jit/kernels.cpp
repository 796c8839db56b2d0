// Host target, O3 and ORC LLJIT for the module's PrimFuncs (see kernels.h). Settings follow
// what ../shared/research/backend.md measured: the host CPU name and features (not "generic"),
// aggressive code generation, FP contraction into FMA allowed, the data layout and triple set
// on the module before optimisation so the vectoriser sees the real target.
#include "backend/jit/kernels.h"

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>

#include "backend/jit/host_target.h"
#include "backend/jit/object_cache.h"

namespace raxc::backend {
namespace {

// The PrimFuncs of `module` as one LLVM module; symbols are "raxc_kernel.<global name>".
std::unique_ptr<llvm::Module> generate(const ir::IRModule& module, llvm::LLVMContext& context,
                                       const CodegenOptions& options, DiagnosticSink& diags,
                                       size_t* count) {
  auto llvm_module = std::make_unique<llvm::Module>(module.name, context);
  bool ok = true;
  for (const ir::GlobalDef& g : module.globals) {
    const ir::PrimFunc* f = g.prim_func();
    if (!f) continue;
    ok &= emit_prim_func(*llvm_module, *f, g.gvar->name, "raxc_kernel." + g.gvar->name, options,
                         diags);
    ++*count;
  }
  return ok ? std::move(llvm_module) : nullptr;
}

void report_llvm_error(DiagnosticSink& diags, const std::string& what) {
  diags.report(make_diagnostic(
      diag::UnsupportedOnCpu{.what = "the LLVM step failed: " + what + ";"}, Span{}));
}

}  // namespace

struct KernelLibrary::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

KernelLibrary::KernelLibrary() : impl_(std::make_unique<Impl>()) {}
KernelLibrary::~KernelLibrary() = default;

RaxcPackedFunc KernelLibrary::find(std::string_view global) const {
  auto it = kernels_.find(std::string(global));
  return it == kernels_.end() ? nullptr : it->second;
}

std::unique_ptr<KernelLibrary> KernelLibrary::compile(const ir::IRModule& module,
                                                      const CodegenOptions& options,
                                                      DiagnosticSink& diags, CompileStats* stats,
                                                      bool use_cache) {
  CompileStats local;
  CompileStats& st = stats ? *stats : local;
  std::optional<ObjectCache> cache = use_cache ? ObjectCache::open() : std::nullopt;
  DiagnosticSink attempt;
  std::unique_ptr<KernelLibrary> library =
      compile_with(module, options, attempt, st, cache ? &*cache : nullptr, CacheUse::Load);
  if (!library && st.cached) {
    // A cached object that does not load (written by a different build, damaged): compile
    // again and replace it.
    st = CompileStats{};
    return compile_with(module, options, diags, st, &*cache, CacheUse::Replace);
  }
  for (Diagnostic& d : attempt.take()) diags.report(std::move(d));
  return library;
}

std::unique_ptr<KernelLibrary> KernelLibrary::compile_with(const ir::IRModule& module,
                                                           const CodegenOptions& options,
                                                           DiagnosticSink& diags, CompileStats& st,
                                                           const ObjectCache* cache, CacheUse use) {
  initialize_llvm();
  std::string error;
  auto jtmb = host_target(&error);
  if (!jtmb) {
    report_llvm_error(diags, error);
    return nullptr;
  }
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    report_llvm_error(diags, llvm::toString(tm.takeError()));
    return nullptr;
  }

  auto start = std::chrono::steady_clock::now();
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvm_module =
      generate(module, *context, options, diags, &st.kernels);
  if (!llvm_module) return nullptr;
  llvm_module->setDataLayout((*tm)->createDataLayout());
  llvm_module->setTargetTriple((*tm)->getTargetTriple().str());
  st.codegen_ms = ms_since(start);

  // Machine code: from the cache, or O3 and the target's code generator (then cached).
  std::string key;
  std::unique_ptr<llvm::MemoryBuffer> object;
  if (cache) {
    key = ObjectCache::key(*llvm_module, **tm);
    if (use == CacheUse::Load) object = cache->load(key);
    st.cached = object != nullptr;
  }
  if (!object) {
    start = std::chrono::steady_clock::now();
    optimize_o3(*llvm_module, **tm);
    st.optimize_ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    std::optional<std::string> code =
        machine_code(*llvm_module, **tm, llvm::CodeGenFileType::ObjectFile);
    if (!code) {
      report_llvm_error(diags, "the target cannot emit an object file");
      return nullptr;
    }
    if (cache) cache->store(key, *code);
    object = llvm::MemoryBuffer::getMemBufferCopy(*code, "raxc-kernels.o");
    st.jit_ms = ms_since(start);
  }

  start = std::chrono::steady_clock::now();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) {
    report_llvm_error(diags, llvm::toString(jit.takeError()));
    return nullptr;
  }
  llvm::orc::JITDylib& dylib = (*jit)->getMainJITDylib();
  // The runtime's entry points, by address: no reliance on the executable exporting them.
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), (*jit)->getDataLayout());
  llvm::orc::SymbolMap runtime;
  auto add = [&](const char* name, auto* fn) {
    runtime[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void*>(fn)),
                             llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  add("raxc_fail", &raxc_fail);
  add("raxc_workspace_alloc", &raxc_workspace_alloc);
  add("raxc_workspace_free", &raxc_workspace_free);
  add("raxc_parallel_for", &raxc_parallel_for);
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    report_llvm_error(diags, llvm::toString(std::move(err)));
    return nullptr;
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    report_llvm_error(diags, llvm::toString(process.takeError()));
    return nullptr;
  }
  dylib.addGenerator(std::move(*process));

  if (auto err = (*jit)->addObjectFile(std::move(object))) {
    report_llvm_error(diags, llvm::toString(std::move(err)));
    return nullptr;
  }
  std::unique_ptr<KernelLibrary> library(new KernelLibrary());
  for (const ir::GlobalDef& g : module.globals) {
    if (!g.prim_func()) continue;
    auto symbol = (*jit)->lookup("raxc_kernel." + g.gvar->name);
    if (!symbol) {
      // An unresolved external (a T.call_extern of a function the process does not have).
      std::string message = llvm::toString(symbol.takeError());
      diags.report(make_diagnostic(
          diag::UnsupportedOnCpu{.what = "PrimFunc '" + g.gvar->name + "' (" + message + ")"},
          g.gvar->span));
      return nullptr;
    }
    library->kernels_[g.gvar->name] = symbol->toPtr<RaxcPackedFunc>();
  }
  st.jit_ms += ms_since(start);
  library->impl_->jit = std::move(*jit);
  return library;
}

std::optional<std::string> KernelLibrary::llvm_ir(const ir::IRModule& module,
                                                  const CodegenOptions& options, bool optimize_it,
                                                  DiagnosticSink& diags) {
  initialize_llvm();
  std::string error;
  auto jtmb = host_target(&error);
  if (!jtmb) {
    report_llvm_error(diags, error);
    return std::nullopt;
  }
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    report_llvm_error(diags, llvm::toString(tm.takeError()));
    return std::nullopt;
  }
  llvm::LLVMContext context;
  size_t count = 0;
  auto llvm_module = generate(module, context, options, diags, &count);
  if (!llvm_module) return std::nullopt;
  llvm_module->setDataLayout((*tm)->createDataLayout());
  llvm_module->setTargetTriple((*tm)->getTargetTriple().str());
  if (optimize_it) optimize_o3(*llvm_module, **tm);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm_module->print(os, nullptr);
  return os.str();
}

}  // namespace raxc::backend
