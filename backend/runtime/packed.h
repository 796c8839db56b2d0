// The registry of packed functions: the names R.call_packed, R.call_pure_packed,
// R.call_dps_packed, R.call_inplace_packed and R.ExternFunc call. One registry per process,
// shared by `raxc run`'s executor and the libraries `raxc build` writes: the functions of
// plugins (raxc_load_plugin, `raxc run --load`) and those a C program registers
// (raxc_register_function), all over the plugin ABI of raxc_runtime.h. A name registered again
// keeps its last definition.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/value.h"

namespace raxc::runtime {

// Evaluated arguments in, the result out (the empty tuple for none). A failure throws
// RuntimeError (error.h) with its code and arguments and no location: the caller knows where
// the call is.
using PackedFunction = std::function<Value(const std::vector<Value>& args)>;

void register_packed(const std::string& name, PackedFunction function);
// Null when nothing is registered under `name`.
std::shared_ptr<const PackedFunction> find_packed(const std::string& name);
// Loads a plugin and registers its functions; the reason on failure (the library cannot be
// opened, has no raxc_plugin_register, or that returned non-zero).
std::optional<std::string> load_plugin(const std::string& path);

// A function referred to by name (R.ExternFunc, a packed callee passed as a value).
struct PackedRef : Callable {
  std::string symbol;
  std::string describe() const override { return "packed function '" + symbol + "'"; }
};

// A tensor or scalar as kernels and plugin functions take it; false for any other value.
bool pack_argument(const Value& value, RaxcArg& arg, int32_t& kind);

}  // namespace raxc::runtime
