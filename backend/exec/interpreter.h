// The evaluator behind Executor (private to backend/exec). executor.cpp evaluates expressions
// and calls; builtins.cpp implements the language's operators (call_tir and its family,
// shape_of, print, assert_op, closures, ...), memory.cpp those of storage and the VM
// (R.memory.*, R.vm.*); packed.cpp is the packed-function registry, vm_builtins.cpp TVM's
// vm.builtin.* functions in it.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/exec/executor.h"
#include "backend/exec/frame.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_runtime.h"

namespace raxc::backend {

class Interpreter;

// A packed function of the registry (packed.h): called with evaluated arguments, returns a
// value or raises (ExecError) at `call_site`.
using PackedFunction =
    std::function<runtime::Value(Interpreter&, const std::vector<runtime::Value>&, Span call_site)>;
// The function registered under `symbol`, empty when there is none.
PackedFunction find_packed(const std::string& symbol);

DLDataType to_dl(ir::DataType t);

using runtime::pack_argument;

class Interpreter {
 public:
  Interpreter(Program program, const KernelLibrary& kernels, ExecOptions options);

  runtime::Value call_global(const ir::GlobalDef& g, std::vector<runtime::Value> args,
                             Span call_site);
  runtime::Value call_function(const ir::Function& f, const std::string& name,
                               const Frame* captured, std::vector<runtime::Value> args,
                               Span call_site);
  runtime::Value call_value(const runtime::Value& callee, std::vector<runtime::Value> args,
                            Span call_site);
  runtime::Value call_prim_func(const ir::GlobalDef& g, const ir::PrimFunc& pf,
                                const std::vector<runtime::Value>& args, Span call_site);
  runtime::Value call_packed(const std::string& symbol, const std::vector<runtime::Value>& args,
                             Span call_site);

  runtime::Value eval(const ir::Expr* e, Frame& frame);
  runtime::Value seq(const ir::SeqExpr* s, Frame& frame);
  runtime::Value closure(const ir::Function* f, const Frame& frame, const ir::Var* self);
  runtime::Value call_expr(const ir::Call* c, Frame& frame);
  // builtins.cpp: an operator call (`R.call_tir(...)`, `R.shape_of(x)`, ...).
  runtime::Value call_op(const std::string& op, const ir::Call* c, Frame& frame);

  runtime::Value constant(const ir::Constant* c);
  runtime::TensorPtr allocate(const std::vector<int64_t>& shape, ir::DataType dtype, Span at,
                              runtime::Tensor::Fill fill = runtime::Tensor::Fill::Zeros);
  bool condition(const runtime::Value& c, Span at);
  [[noreturn]] void kernel_error(Span call_site);
  [[noreturn]] void param_error(const ir::Function& f, const std::string& name, size_t index,
                                const std::string& why, Span call_site);

  std::ostream& out();
  // Runs `call`, adding its time to `callee`'s in the profile when there is one.
  template <class Call>
  auto timed(const std::string& callee, Call&& call) {
    if (!options.profile) return call();
    auto start = std::chrono::steady_clock::now();
    struct Record {  // also when the call raises
      CallProfile::Callee& entry;
      std::chrono::steady_clock::time_point start;
      ~Record() {
        ++entry.calls;
        entry.ms +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      }
    } record{options.profile->callees[callee], start};
    return call();
  }

  Program program;
  const KernelLibrary& kernels;
  ExecOptions options;
  int depth = 0;
  std::unordered_map<const ir::Constant*, runtime::TensorPtr> constants;
  // Per SeqExpr, per binding (in order): the variables of the SeqExpr used for the last time
  // there (released_after).
  std::unordered_map<const ir::SeqExpr*, std::vector<std::vector<const ir::Var*>>> last_uses;
  const std::vector<std::vector<const ir::Var*>>& released_after(const ir::SeqExpr* s);
};

}  // namespace raxc::backend
