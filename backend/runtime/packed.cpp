// Packed-function registry and plugins (see packed.h), and the C entry points over them:
// raxc_register_function / raxc_load_plugin for programs that link a built library, and
// raxc_rt_call_packed for the Relax code of such a library.
#include "backend/runtime/packed.h"

#include <dlfcn.h>

#include <mutex>
#include <unordered_map>

#include "backend/runtime/error.h"
#include "backend/runtime/raxc_relax_abi.h"

namespace raxc::runtime {
namespace {}  // namespace

// TVM's vm.builtin.* functions (vm_builtins.cpp, and relax_builtins.cpp for those that call a
// callable of a built library): the registry starts with them.
std::vector<std::pair<const char*, PackedFunction>> vm_builtins();
std::vector<std::pair<const char*, PackedFunction>> callable_builtins();
// R.inspect.* (relax_builtins.cpp).
std::vector<std::pair<const char*, PackedFunction>> inspect_builtins();
// The kernels of the data-dependent operators (data_dependent.cpp).
std::vector<std::pair<const char*, PackedFunction>> data_dependent_builtins();
// The float32 matmul kernel (matmul.cpp).
std::vector<std::pair<const char*, PackedFunction>> matmul_builtins();
// The float32 convolution kernel (conv2d.cpp).
std::vector<std::pair<const char*, PackedFunction>> conv2d_builtins();

namespace {

struct Registry {
  Registry() {
    for (auto& [name, fn] : vm_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
    for (auto& [name, fn] : callable_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
    for (auto& [name, fn] : inspect_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
    for (auto& [name, fn] : data_dependent_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
    for (auto& [name, fn] : matmul_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
    for (auto& [name, fn] : conv2d_builtins())
      functions[name] = std::make_shared<const PackedFunction>(std::move(fn));
  }
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const PackedFunction>> functions;
};

Registry& registry() {
  static Registry r;
  return r;
}

[[noreturn]] void throw_failed(std::string message) {
  RuntimeError e;
  e.code = "RX5032";  // "packed function failed: {message}"
  e.args.push_back(std::move(message));
  throw e;
}

// A plugin-ABI function behind PackedFunction: tensors and scalars in, a scalar or nothing out.
PackedFunction wrap_plugin(std::string name, RaxcPluginFunc fn) {
  return [name, fn](const std::vector<Value>& args) -> Value {
    std::vector<RaxcArg> packed(args.size());
    std::vector<int32_t> kinds(args.size());
    for (size_t i = 0; i < args.size(); ++i)
      if (!pack_argument(args[i], packed[i], kinds[i]))
        throw_failed("'" + name + "': argument " + std::to_string(i) + " is a " +
                     args[i].kind_name() + "; plugin functions take tensors and scalars");
    RaxcArg ret{};
    int32_t ret_kind = RAXC_RET_NONE;
    int32_t status =
        fn(packed.data(), kinds.data(), static_cast<int32_t>(packed.size()), &ret, &ret_kind);
    if (status != 0) {
      std::optional<RuntimeError> e = take_last_error();
      throw_failed("'" + name + "': " +
                   (e && !e->args.empty() ? e->args[0] : "status " + std::to_string(status)));
    }
    if (ret_kind == RAXC_ARG_INT) return Prim{DLDataType{kDLInt, 64, 1}, ret.i64, 0};
    if (ret_kind == RAXC_ARG_FLOAT) return Prim{DLDataType{kDLFloat, 64, 1}, 0, ret.f64};
    return Tuple{};
  };
}

}  // namespace

void register_packed(const std::string& name, PackedFunction function) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[name] = std::make_shared<const PackedFunction>(std::move(function));
}

std::shared_ptr<const PackedFunction> find_packed(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second;
}

std::optional<std::string> load_plugin(const std::string& path) {
  // A path without a slash would be searched for in the system's library directories.
  std::string where = path.find('/') == std::string::npos ? "./" + path : path;
  void* library = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return std::string(dlerror());
  auto entry = reinterpret_cast<RaxcPluginRegister>(dlsym(library, "raxc_plugin_register"));
  if (!entry) return std::string("it does not export raxc_plugin_register");
  auto add = [](void*, const char* name, RaxcPluginFunc fn) {
    if (name && fn) register_packed(name, wrap_plugin(name, fn));
  };
  int32_t status = entry(add, nullptr);
  if (status != 0) return "raxc_plugin_register returned " + std::to_string(status);
  return std::nullopt;  // the library stays loaded: its functions are registered
}

bool pack_argument(const Value& value, RaxcArg& arg, int32_t& kind) {
  if (const TensorPtr* t = value.tensor()) {
    arg.tensor = (*t)->dl();
    kind = RAXC_ARG_TENSOR;
  } else if (const auto* p = value.get_if<Prim>()) {
    if (p->is_float()) {
      arg.f64 = p->f;
      kind = RAXC_ARG_FLOAT;
    } else {
      arg.i64 = p->i;
      kind = RAXC_ARG_INT;
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace raxc::runtime

using raxc::runtime::RuntimeError;

extern "C" int32_t raxc_register_function(const char* name, RaxcPluginFunc function) {
  if (!name || !function) return 1;
  raxc::runtime::register_packed(name, raxc::runtime::wrap_plugin(name, function));
  return 0;
}

extern "C" int32_t raxc_load_plugin(const char* path) {
  std::optional<std::string> why = raxc::runtime::load_plugin(path ? path : "");
  if (!why) return 0;
  RuntimeError e;
  e.code = "RX5033";  // "cannot load plugin '{path}': {reason}"
  e.args = {path ? path : "", *why};
  e.rendered = "RX5033: cannot load plugin '" + e.args[0] + "': " + *why;
  raxc::runtime::set_last_error(std::move(e));
  return 1;
}
