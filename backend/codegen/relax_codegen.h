// Relax functions -> LLVM IR, for the libraries `raxc build` writes (ahead of time, beside the
// TIR kernels of tir_codegen.h). Each Relax function becomes an internal function
//
//   i32 raxc_relax.NAME(ptr args, i32 num_args, ptr result)
//
// over the value handles of backend/runtime/raxc_value.h: it checks its parameters against
// their StructInfo (symbolic variables bound in parameter order, held in i64 slots), runs its
// bindings in order — call_tir allocates the outputs its out_sinfo describes and calls the
// compiled kernel directly, calls of Relax globals are direct calls, If branches, tuples,
// constants as LLVM data, match_cast and annotation checks — and checks its return value.
// Every handle it creates is released on every exit path. The public functions chosen as
// entries get an exported wrapper PREFIX_NAME with the same signature that, on failure, locates
// the error in the .rx source (raxc_rt_locate) so raxc_last_error() names FILE:LINE:COL.
// Constructs not compiled yet are RX5040 at their span; the module is then not built.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/codegen/tir_codegen.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace llvm {
class Module;
}

namespace raxc::backend {

struct RelaxLibrary {
  const ir::IRModule* module = nullptr;
  // The normal form of a global Relax function (what `raxc run` executes), or null.
  std::function<const ir::Function*(const ir::GlobalDef&)> function;
  std::vector<const ir::GlobalDef*> entries;  // the exported functions
  std::string prefix;                         // exported symbol = prefix + name
  std::string file_name;                      // for error locations
  std::string_view source;                    // the .rx text (line starts)
  // Whether a function of the module may write into a tensor it is given (exec's
  // writes_given_tensors): each entry then withdraws its arguments' seals first
  // (raxc_value_seal), so that nothing kept beside them outlives a change of their elements.
  bool writes_arguments = true;
};

// The public Relax functions of `module`: not private, and a global_symbol that is not "".
std::vector<const ir::GlobalDef*> public_functions(const ir::IRModule& module);

// Emits the entries, every Relax function and PrimFunc they reach, and the wrappers into
// `module`. Returns false after reporting into `diags` (the module must then be discarded).
bool emit_relax_library(llvm::Module& module, const RelaxLibrary& library,
                        const CodegenOptions& options, DiagnosticSink& diags);

// The C header of a library: the value API (raxc_value.h) and one prototype per entry whose
// comment gives each parameter's and the result's StructInfo.
std::string relax_library_header(const RelaxLibrary& library, std::string_view guard);

}  // namespace raxc::backend
