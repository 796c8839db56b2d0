// What the Relax code generator shares between its parts (private to backend/codegen): the
// module being filled, error sites, the runtime helpers of raxc_relax_abi.h as LLVM
// declarations, and the queue of Relax functions and PrimFuncs the entries reach.
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/codegen/relax_codegen.h"

namespace raxc::backend {

// Thrown at a construct the generator does not compile (after reporting RX5040 or another
// code); caught per function, so nothing half-built is kept.
struct Refused {};

class RelaxModuleState {
 public:
  RelaxModuleState(llvm::Module& module, const RelaxLibrary& library, DiagnosticSink& diags);

  [[noreturn]] void refuse(Span at, const std::string& what);
  [[noreturn]] void report(Diagnostic d);

  llvm::Constant* string_constant(const std::string& text);
  // A constant RaxcErrorSite (raxc_runtime.h) for `code` at `at`.
  llvm::Constant* error_site(DiagId code, Span at, const std::vector<std::string>& statics,
                             int num_values = 0);
  // A declaration of a runtime helper (raxc_relax_abi.h, raxc_runtime.h, raxc_value.h).
  llvm::FunctionCallee runtime(const std::string& name);

  // The internal function of a Relax global / the packed entry of a PrimFunc, declared on first
  // use and queued for emission.
  llvm::Function* relax_function(const ir::GlobalDef& g);
  llvm::Function* kernel(const ir::GlobalDef& g);

  llvm::Module& module;
  llvm::LLVMContext& context;
  const RelaxLibrary& library;
  DiagnosticSink& diags;
  llvm::StructType* site_type;
  bool failed = false;

  std::deque<const ir::GlobalDef*> pending_functions;
  std::vector<const ir::GlobalDef*> kernels;
  std::unordered_map<const ir::GlobalDef*, llvm::Function*> functions;
  std::unordered_map<const ir::GlobalDef*, llvm::Function*> kernel_decls;

 private:
  std::unordered_map<std::string, llvm::Constant*> strings_;
};

// Emits the body of the Relax function `g` into `fn` (declared by relax_function()).
// Throws Refused after reporting.
void emit_relax_function(RelaxModuleState& state, const ir::GlobalDef& g, const ir::Function& f,
                         llvm::Function* fn);

}  // namespace raxc::backend
