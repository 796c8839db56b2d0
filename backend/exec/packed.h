// The registry of packed functions that R.call_packed, R.call_pure_packed, R.call_dps_packed
// and R.ExternFunc name: the runtime's built-ins (`vm.builtin.copy`, ...) and the functions of
// plugins loaded with `raxc run --load` (the C ABI in backend/runtime/raxc_runtime.h). One
// registry per process; a name registered twice keeps its last definition.
#pragma once
#include <optional>
#include <string>

namespace raxc::backend {

// Loads a plugin and registers its functions; the reason on failure (the library cannot be
// opened, has no raxc_plugin_register, or that returned non-zero).
std::optional<std::string> load_plugin(const std::string& path);

}  // namespace raxc::backend
