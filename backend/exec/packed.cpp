// The packed functions the executor calls: its built-ins, then the runtime's registry of
// plugins and registered functions (backend/runtime/packed.h).
#include "backend/exec/packed.h"

#include <unordered_map>

#include "backend/exec/checks.h"
#include "backend/exec/interpreter.h"
#include "backend/exec/memory.h"
#include "backend/runtime/error.h"
#include "backend/runtime/packed.h"

namespace raxc::backend {

using runtime::Value;

namespace {

// The executor's own built-ins, searched before the runtime's registry (TVM's other vm.builtin.*
// functions, plugins, functions a program registered).
struct Builtins {
  Builtins() { register_vm_builtins(functions); }
  std::unordered_map<std::string, PackedFunction> functions;
};

const Builtins& builtins() {
  static const Builtins b;
  return b;
}

}  // namespace

PackedFunction find_packed(const std::string& symbol) {
  // The executor's own first: vm.builtin.invoke_closure and call_tir_dyn call the executor's
  // callables, which the runtime's versions (for built libraries) do not know.
  auto it = builtins().functions.find(symbol);
  if (it != builtins().functions.end()) return it->second;
  std::shared_ptr<const runtime::PackedFunction> fn = runtime::find_packed(symbol);
  if (!fn) return {};
  return [fn](Interpreter&, const std::vector<Value>& args, Span at) -> Value {
    return located(at, [&] { return (*fn)(args); });
  };
}

void raise_runtime_error(const runtime::RuntimeError& e, Span at) {
  std::optional<DiagId> id = find_diagnostic(e.code);
  throw ExecError{
      make_diagnostic(DiagPayload::from_positional(id.value_or(DiagId::RX5032), e.args), at)};
}

std::optional<std::string> load_plugin(const std::string& path) {
  return runtime::load_plugin(path);
}

}  // namespace raxc::backend
