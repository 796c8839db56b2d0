// What one activation of a Relax function sees while it runs (private to backend/exec): the
// values of its variables and of its symbolic shape variables, the callables the executor
// creates, and the error type the executor unwinds with (it never crosses a kernel frame:
// kernels return a status that is turned into this error after they return).
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/value.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

struct Frame {
  std::unordered_map<const ir::Var*, runtime::Value> vars;
  std::unordered_map<const ir::PrimVar*, int64_t> dims;  // symbolic variables bound so far
};

struct ExecError {
  Diagnostic diagnostic;
};

[[noreturn]] inline void raise(DiagPayload what, Span at) {
  throw ExecError{make_diagnostic(std::move(what), at)};
}

// A runtime error (backend/runtime/error.h: a code and its message's arguments) located at `at`.
[[noreturn]] void raise_runtime_error(const runtime::RuntimeError& e, Span at);

// Runs `fn`, a call into the runtime, locating the RuntimeError it may throw at `at`.
template <class Fn>
auto located(Span at, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const runtime::RuntimeError& e) {
    raise_runtime_error(e, at);
  }
}

// A global function used as a value (`cls.f` passed around) or called.
struct GlobalRef : runtime::Callable {
  const ir::GlobalDef* global = nullptr;
  std::string describe() const override { return "function '" + global->gvar->name + "'"; }
};

// A nested function with the frame it was created in, or R.make_closure's function with its
// bound leading arguments.
struct Closure : runtime::Callable {
  const ir::Function* function = nullptr;
  const ir::GlobalDef* global = nullptr;  // set for R.make_closure of a global
  std::shared_ptr<const Frame> captured;
  std::vector<runtime::Value> bound;
  std::string name;
  // The variable a nested function is bound to: its body sees itself under that name, so a
  // local function can recur (the captured frame predates the binding).
  const ir::Var* self = nullptr;
  std::string describe() const override { return "closure '" + name + "'"; }
};

// A packed function referred to by name (R.ExternFunc, call_packed): the runtime's.
using runtime::PackedRef;

}  // namespace raxc::backend
