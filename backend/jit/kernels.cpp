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

#include <algorithm>
#include <chrono>
#include <thread>

#include "backend/jit/host_target.h"
#include "backend/jit/object_cache.h"
#include "frontend/ir/visitor.h"

namespace raxc::backend {
namespace {

// The PrimFuncs `kernels` as one LLVM module; symbols are "raxc_kernel.<global name>". Each
// kernel's refusals go to its own sink (in `sinks`, same order), so that kernels compiled on
// different threads still report in the module's order.
std::unique_ptr<llvm::Module> generate(const std::vector<const ir::GlobalDef*>& kernels,
                                       const std::string& name, llvm::LLVMContext& context,
                                       const CodegenOptions& options,
                                       std::vector<DiagnosticSink>& sinks) {
  auto llvm_module = std::make_unique<llvm::Module>(name, context);
  bool ok = true;
  sinks.resize(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ir::GlobalDef& g = *kernels[i];
    ok &= emit_prim_func(*llvm_module, *g.prim_func(), g.gvar->name, "raxc_kernel." + g.gvar->name,
                         options, sinks[i]);
  }
  return ok ? std::move(llvm_module) : nullptr;
}

std::vector<const ir::GlobalDef*> prim_funcs(const ir::IRModule& module) {
  std::vector<const ir::GlobalDef*> kernels;
  for (const ir::GlobalDef& g : module.globals)
    if (g.prim_func()) kernels.push_back(&g);
  return kernels;
}

// The size of a PrimFunc's TIR (statements and expressions): what O3 and instruction selection
// take time in proportion to, roughly.
size_t tir_size(const ir::PrimFunc& f) {
  struct Counter : ir::Visitor {
    Counter() : ir::Visitor(ir::WalkOptions{.prim_exprs = true}) {}
    void on_stmt(const ir::Stmt*) override { ++nodes; }
    void on_prim_expr(const ir::PrimExpr*) override { ++nodes; }
    size_t nodes = 0;
  } counter;
  counter.visit(f);
  return counter.nodes;
}

// The kernels split into at most `parts` groups of about equal TIR size (largest first onto the
// lightest group), each group in module order.
std::vector<std::vector<const ir::GlobalDef*>> partition(
    const std::vector<const ir::GlobalDef*>& kernels, size_t parts) {
  parts = std::max<size_t>(1, std::min(parts, kernels.size()));
  std::vector<std::pair<size_t, size_t>> by_size;  // (size, index in kernels)
  for (size_t i = 0; i < kernels.size(); ++i)
    by_size.emplace_back(tir_size(*kernels[i]->prim_func()), i);
  std::sort(by_size.begin(), by_size.end(), std::greater<>());
  std::vector<size_t> load(parts, 0);
  std::vector<std::vector<size_t>> members(parts);
  for (auto [size, index] : by_size) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    load[lightest] += size + 1;
    members[lightest].push_back(index);
  }
  std::vector<std::vector<const ir::GlobalDef*>> groups;
  for (std::vector<size_t>& m : members) {
    if (m.empty()) continue;
    std::sort(m.begin(), m.end());
    groups.emplace_back();
    for (size_t index : m) groups.back().push_back(kernels[index]);
  }
  return groups;
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

// One group of kernels compiled to an object file on its own thread, with its own LLVM context
// and target machine (neither may be shared between threads).
struct KernelLibrary::Part {
  std::vector<const ir::GlobalDef*> kernels;
  std::vector<DiagnosticSink> sinks;  // per kernel
  std::string llvm_error;             // an LLVM step that failed
  CompileStats stats;
  std::unique_ptr<llvm::MemoryBuffer> object;

  void compile(const std::string& name, llvm::orc::JITTargetMachineBuilder jtmb,
               const CodegenOptions& options, const ObjectCache* cache, CacheUse use) {
    auto tm = jtmb.createTargetMachine();
    if (!tm) {
      llvm_error = llvm::toString(tm.takeError());
      return;
    }
    auto start = std::chrono::steady_clock::now();
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvm_module = generate(kernels, name, context, options, sinks);
    stats.kernels = kernels.size();
    if (!llvm_module) return;
    llvm_module->setDataLayout((*tm)->createDataLayout());
    llvm_module->setTargetTriple((*tm)->getTargetTriple().str());
    stats.codegen_ms = ms_since(start);

    // Machine code: from the cache, or O3 and the target's code generator (then cached).
    std::string key;
    if (cache) {
      key = ObjectCache::key(*llvm_module, **tm);
      if (use == CacheUse::Load) object = cache->load(key);
      stats.cached = object != nullptr;
    }
    if (object) return;
    start = std::chrono::steady_clock::now();
    optimize_o3(*llvm_module, **tm);
    stats.optimize_ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    std::optional<std::string> code =
        machine_code(*llvm_module, **tm, llvm::CodeGenFileType::ObjectFile);
    if (!code) {
      llvm_error = "the target cannot emit an object file";
      return;
    }
    if (cache) cache->store(key, *code);
    object = llvm::MemoryBuffer::getMemBufferCopy(*code, name + ".o");
    stats.jit_ms = ms_since(start);
  }
};

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

  // The kernels are compiled in groups, one thread each, up to the machine's cores: O3 and
  // instruction selection are most of a cold start.
  std::vector<Part> parts;
  for (auto& group : partition(prim_funcs(module), std::thread::hardware_concurrency()))
    parts.emplace_back().kernels = std::move(group);
  std::vector<std::thread> threads;
  for (size_t i = 1; i < parts.size(); ++i)
    threads.emplace_back([&, i] {
      parts[i].compile(module.name + "." + std::to_string(i), *jtmb, options, cache, use);
    });
  if (!parts.empty()) parts[0].compile(module.name, *jtmb, options, cache, use);
  for (std::thread& t : threads) t.join();

  // The stats sum the groups' times: on parallel threads, more than the wall time taken.
  bool ok = true;
  for (Part& part : parts) {
    st.kernels += part.stats.kernels;
    st.codegen_ms += part.stats.codegen_ms;
    st.optimize_ms += part.stats.optimize_ms;
    st.jit_ms += part.stats.jit_ms;
    st.cached |= part.stats.cached;
    ok &= part.object != nullptr;
  }
  // Refusals in the module's order (module.globals is one vector: its addresses are in order);
  // then LLVM's failures.
  std::vector<std::pair<const ir::GlobalDef*, DiagnosticSink*>> sinks;
  for (Part& part : parts)
    for (size_t i = 0; i < part.sinks.size(); ++i)
      sinks.emplace_back(part.kernels[i], &part.sinks[i]);
  std::sort(sinks.begin(), sinks.end());
  for (auto& [kernel, sink] : sinks)
    for (Diagnostic& d : sink->take()) diags.report(std::move(d));
  for (Part& part : parts)
    if (!part.llvm_error.empty()) report_llvm_error(diags, part.llvm_error);
  if (!ok) return nullptr;

  auto start = std::chrono::steady_clock::now();
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

  for (Part& part : parts)
    if (auto err = (*jit)->addObjectFile(std::move(part.object))) {
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
  std::vector<DiagnosticSink> sinks;
  auto llvm_module = generate(prim_funcs(module), module.name, context, options, sinks);
  for (DiagnosticSink& sink : sinks)
    for (Diagnostic& d : sink.take()) diags.report(std::move(d));
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
