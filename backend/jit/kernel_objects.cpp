// Host target and O2 for the module's PrimFuncs, linked into a shared object (kernel_objects.h).
// Settings follow what ../shared/research/backend.md measured: the host CPU name and features
// (not "generic"), aggressive code generation, FP contraction into FMA allowed, the data layout
// and triple set on the module before optimisation so the vectoriser sees the real target.
#include "backend/jit/kernel_objects.h"

#include <dlfcn.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "backend/jit/host_target.h"
#include "backend/jit/library.h"
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

// The size of a PrimFunc's TIR (statements and expressions): what optimisation and instruction
// selection take time in proportion to, roughly.
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

// The functions `module` declares, calls and that the process loading the kernels does not
// define (a T.call_extern of a name no library has), each with the kernels calling it.
std::map<std::string, std::vector<std::string>> unresolved_calls(const llvm::Module& module) {
  std::map<std::string, std::vector<std::string>> missing;
  for (const llvm::Function& f : module.functions()) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty()) continue;
    if (dlsym(RTLD_DEFAULT, f.getName().str().c_str())) continue;
    std::vector<std::string>& callers = missing[f.getName().str()];
    for (const llvm::User* user : f.users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(user))
        callers.push_back(call->getFunction()->getName().str());
  }
  return missing;
}

// One group of kernels compiled to an object file on its own thread, with its own LLVM context
// and target machine (neither may be shared between threads).
struct Part {
  std::vector<const ir::GlobalDef*> kernels;
  std::vector<DiagnosticSink> sinks;  // per kernel
  std::string llvm_error;             // an LLVM step that failed
  CompileStats stats;
  std::optional<std::string> object;
  bool calls_sleef = false;

  void compile(const std::string& name, llvm::orc::JITTargetMachineBuilder jtmb,
               const CodegenOptions& options) {
    auto tm = jtmb.createTargetMachine();
    if (!tm) {
      llvm_error = llvm::toString(tm.takeError());
      return;
    }
    auto start = std::chrono::steady_clock::now();
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvm_module = generate(kernels, name, context, options, sinks);
    stats.kernels = kernels.size();
    if (!llvm_module || !resolved(*llvm_module)) return;
    llvm_module->setDataLayout((*tm)->createDataLayout());
    llvm_module->setTargetTriple((*tm)->getTargetTriple().str());
    stats.codegen_ms = ms_since(start);

    start = std::chrono::steady_clock::now();
    optimize_module(*llvm_module, **tm);
    stats.optimize_ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    object = machine_code(*llvm_module, **tm, llvm::CodeGenFileType::ObjectFile);
    if (!object) llvm_error = "the target cannot emit an object file";
    calls_sleef = backend::calls_sleef(*llvm_module);
    stats.jit_ms = ms_since(start);
  }

  // False after reporting each function the kernels call that the process does not define, at
  // the kernel calling it: the shared object would not load.
  bool resolved(const llvm::Module& module) {
    auto missing = unresolved_calls(module);
    for (auto& [symbol, callers] : missing) {
      bool reported = false;
      for (size_t i = 0; i < kernels.size(); ++i) {
        std::string own = "raxc_kernel." + kernels[i]->gvar->name;
        bool calls = std::any_of(callers.begin(), callers.end(), [&](const std::string& c) {
          return c == own || c.starts_with(own + ".");
        });
        // A caller that is no kernel's own (a helper) is charged to the group's first kernel.
        if (calls || (!reported && i + 1 == kernels.size())) {
          size_t at = calls ? i : 0;
          sinks[at].report(make_diagnostic(
              diag::UnsupportedOnCpu{.what = "PrimFunc '" + kernels[at]->gvar->name +
                                             "' (it calls '" + symbol +
                                             "', which this process does not define)"},
              kernels[at]->gvar->span));
          reported = true;
        }
      }
    }
    return missing.empty();
  }
};

}  // namespace

bool compile_kernels(const ir::IRModule& module, const CodegenOptions& options,
                     const std::string& output, DiagnosticSink& diags, CompileStats& st) {
  initialize_llvm();
  std::string error;
  auto jtmb = host_target(&error, /*pic=*/true);
  if (!jtmb) {
    report_llvm_error(diags, error);
    return false;
  }

  // The kernels are compiled in groups, one thread each, up to the machine's cores: optimisation
  // and instruction selection are most of a cold start.
  std::vector<Part> parts;
  for (auto& group : partition(prim_funcs(module), std::thread::hardware_concurrency()))
    parts.emplace_back().kernels = std::move(group);
  std::vector<std::thread> threads;
  for (size_t i = 1; i < parts.size(); ++i)
    threads.emplace_back(
        [&, i] { parts[i].compile(module.name + "." + std::to_string(i), *jtmb, options); });
  if (!parts.empty()) parts[0].compile(module.name, *jtmb, options);
  for (std::thread& t : threads) t.join();

  // The stats sum the groups' times: on parallel threads, more than the wall time taken.
  bool ok = true, sleef = false;
  std::vector<std::string> objects;
  for (Part& part : parts) {
    st.kernels += part.stats.kernels;
    st.codegen_ms += part.stats.codegen_ms;
    st.optimize_ms += part.stats.optimize_ms;
    st.jit_ms += part.stats.jit_ms;
    ok &= part.object.has_value();
    sleef |= part.calls_sleef;
    if (part.object) objects.push_back(std::move(*part.object));
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
  if (!ok) return false;

  auto start = std::chrono::steady_clock::now();
  if (std::optional<std::string> why = link_kernels(objects, output, sleef)) {
    report_llvm_error(diags, "linking the kernels: " + *why);
    return false;
  }
  st.jit_ms += ms_since(start);
  return true;
}

std::optional<std::string> kernels_llvm_ir(const ir::IRModule& module,
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
  if (optimize_it) optimize_module(*llvm_module, **tm);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm_module->print(os, nullptr);
  return os.str();
}

}  // namespace raxc::backend
