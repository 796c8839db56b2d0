// Packed-function registry: built-ins and plugins (see packed.h).
#include "backend/exec/packed.h"

#include <dlfcn.h>

#include <mutex>
#include <unordered_map>

#include "backend/exec/checks.h"
#include "backend/exec/interpreter.h"
#include "backend/exec/memory.h"
#include "backend/runtime/error.h"
#include "backend/runtime/raxc_runtime.h"

namespace raxc::backend {

using runtime::Value;

// The kernels of the data-dependent operators (data_dependent.cpp).
Value builtin_unique(Interpreter&, const std::vector<Value>& args, Span at);
Value builtin_nonzero(Interpreter&, const std::vector<Value>& args, Span at);
Value builtin_dynamic_strided_slice(Interpreter&, const std::vector<Value>& args, Span at);
Value builtin_all_class_nms(Interpreter&, const std::vector<Value>& args, Span at);
Value builtin_non_max_suppression(Interpreter&, const std::vector<Value>& args, Span at);

namespace {

// vm.builtin.copy(x): x itself. TVM's VM emits it to copy a register (a binding `y = x`), which
// copies the reference, not the data (src/runtime/vm/builtin.cc returns its argument): y and x
// are the same tensor afterwards.
Value builtin_copy(Interpreter&, const std::vector<Value>& args, Span at) {
  if (args.size() != 1)
    raise(diag::PackedFunctionFailed{.message = "vm.builtin.copy takes one argument"}, at);
  return args[0];
}

// A plugin function behind the PackedFunction interface: tensors and scalars in, a scalar or
// nothing out.
PackedFunction wrap_plugin(std::string name, RaxcPluginFunc fn) {
  return [name, fn](Interpreter&, const std::vector<Value>& args, Span at) -> Value {
    std::vector<RaxcArg> packed(args.size());
    std::vector<int32_t> kinds(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (!pack_argument(args[i], packed[i], kinds[i])) {
        raise(
            diag::PackedFunctionFailed{.message = "'" + name + "': argument " + std::to_string(i) +
                                                  " is " + describe_value(args[i]) +
                                                  "; plugin functions take tensors and scalars"},
            at);
      }
    }
    RaxcArg ret{};
    int32_t ret_kind = RAXC_RET_NONE;
    int32_t status =
        fn(packed.data(), kinds.data(), static_cast<int32_t>(packed.size()), &ret, &ret_kind);
    if (status != 0) {
      std::optional<runtime::RuntimeError> e = runtime::take_last_error();
      std::string message = e && !e->args.empty() ? e->args[0] : "status " + std::to_string(status);
      raise(diag::PackedFunctionFailed{.message = "'" + name + "': " + message}, at);
    }
    if (ret_kind == RAXC_ARG_INT) return runtime::Prim{DLDataType{kDLInt, 64, 1}, ret.i64, 0};
    if (ret_kind == RAXC_ARG_FLOAT) return runtime::Prim{DLDataType{kDLFloat, 64, 1}, 0, ret.f64};
    return runtime::Tuple{};
  };
}

struct Registry {
  Registry() { register_vm_builtins(functions); }
  std::mutex mutex;
  std::unordered_map<std::string, PackedFunction> functions{
      {"vm.builtin.copy", builtin_copy},
      {"relax.run.unique", builtin_unique},
      {"relax.run.nonzero", builtin_nonzero},
      {"relax.run.dynamic_strided_slice", builtin_dynamic_strided_slice},
      {"relax.run.all_class_non_max_suppression", builtin_all_class_nms},
      {"relax.run.non_max_suppression", builtin_non_max_suppression},
  };
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const PackedFunction* find_packed(const std::string& symbol) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(symbol);
  return it == r.functions.end() ? nullptr : &it->second;
}

std::optional<std::string> load_plugin(const std::string& path) {
  // A path without a slash would be searched for in the system's library directories.
  std::string where = path.find('/') == std::string::npos ? "./" + path : path;
  void* library = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return std::string(dlerror());
  auto entry = reinterpret_cast<RaxcPluginRegister>(dlsym(library, "raxc_plugin_register"));
  if (!entry) return std::string("it does not export raxc_plugin_register");
  auto add = [](void* context, const char* name, RaxcPluginFunc fn) {
    if (!name || !fn) return;
    auto* r = static_cast<Registry*>(context);
    std::lock_guard<std::mutex> lock(r->mutex);
    r->functions[name] = wrap_plugin(name, fn);
  };
  int32_t status = entry(add, &registry());
  if (status != 0) return "raxc_plugin_register returned " + std::to_string(status);
  return std::nullopt;  // the library stays loaded: its functions are registered
}

}  // namespace raxc::backend
