// Runs Relax functions (seed spec "Semantics") over the analysed module: bindings in order,
// dataflow blocks, If, tuples, nested functions and closures, calls of globals (recursion
// included, up to a depth limit), PrimFuncs through call_tir and direct calls into the
// compiled kernels, and the builtins of the language (shape_of, print, assert_op, ...).
// Annotations are checked where the spec says values meet them — every parameter on entry
// (symbolic variables bound in parameter order), R.match_cast, the return value, every call_tir
// output — and a failed check is a located RX5xxx diagnostic, never a crash.
//
// The executor walks the normalised IR the analysis produced; kernels are the machine code of
// backend/jit. It never re-parses or re-infers.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/exec/kernels.h"
#include "backend/runtime/value.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

struct Program {
  const ir::IRModule* module = nullptr;
  // The normal form of a global Relax function (analysis::Engine::normalized), or null.
  std::function<const ir::Function*(const ir::GlobalDef&)> function;
  // Why legalization kept an operator call as it is, by the call's first byte (raxc lower's
  // notes): the reason RX5000 gives when such a call is reached.
  std::unordered_map<uint32_t, std::string> why_not_lowered;
};

// Time spent in each callee a run reaches — the compiled kernels (by PrimFunc) and packed
// functions (by symbol, raxc.matmul_f32 ...) — summed over the calls: `raxc run --profile`.
struct CallProfile {
  struct Callee {
    int64_t calls = 0;
    double ms = 0;
  };
  std::map<std::string, Callee> callees;
};

struct ExecOptions {
  int max_call_depth = 4096;
  std::ostream* out = nullptr;     // where R.print writes (null: std::cout)
  CallProfile* profile = nullptr;  // filled when set
  // The caller never changes the elements of the tensors it passes to call (`raxc run`'s, read
  // from files). Then, unless the module could write into them itself (writes_given_tensors),
  // they are sealed (runtime/tensor.h): what a packed function derives from one, such as a
  // convolution's packed weights, is kept for later calls.
  bool arguments_fixed = false;
};

// Whether running the module's Relax functions may write into a tensor they did not allocate:
// an in-place call (R.call_tir_inplace, R.call_inplace_packed), a packed function called for
// its effects or asserted pure (R.call_packed, R.call_pure_packed, an ExternFunc or a variable
// called), a PrimFunc called directly (it writes the arguments it is given). R.call_tir and
// R.call_dps_packed write only the outputs they allocate.
bool writes_given_tensors(const Program& program);

class Executor {
 public:
  Executor(Program program, const KernelLibrary& kernels, ExecOptions options = {});
  ~Executor();

  // Calls the Relax function `entry` with `args`. On failure returns nullopt and sets `*error`
  // (its span is an IR span of the module).
  std::optional<runtime::Value> call(const ir::GlobalDef& entry, std::vector<runtime::Value> args,
                                     Diagnostic* error);

  // Whether call seals its arguments (ExecOptions::arguments_fixed).
  bool seals_arguments() const { return seal_arguments_; }

 private:
  bool seal_arguments_;
  std::unique_ptr<class Interpreter> impl_;
};

}  // namespace raxc::backend
