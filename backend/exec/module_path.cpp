// Finding raxc's own dlopen-ed modules (module_path.h).
#include "backend/exec/module_path.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace raxc::backend {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> candidates(const ModuleLocation& where) {
  if (const char* set = std::getenv(where.variable); set && *set) return {set};
  std::vector<std::string> paths;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    paths.push_back((self.parent_path() / where.file).string());
    paths.push_back((self.parent_path() / where.installed).lexically_normal().string());
  }
  if (*where.built) paths.push_back(where.built);
  return paths;
}

}  // namespace

std::string find_module(const ModuleLocation& where) {
  std::vector<std::string> paths = candidates(where);
  for (const std::string& p : paths)
    if (::access(p.c_str(), R_OK) == 0) return p;
  return paths.empty() ? std::string(where.file) : paths.front();
}

const ModuleHead* load_module(const std::string& path, const char* entry, size_t size,
                              const char* version, std::string& why) {
  if (::access(path.c_str(), R_OK) != 0) {
    why = "it does not exist";
    return nullptr;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    why = dlerror();
    return nullptr;
  }
  auto function = reinterpret_cast<ModuleEntry>(dlsym(handle, entry));
  const auto* found = function ? static_cast<const ModuleHead*>(function()) : nullptr;
  if (!found) {
    why = std::string("it does not export ") + entry;
    return nullptr;
  }
  if (found->size != size || std::string(found->version) != version) {
    why = std::string("it was built as '") + found->version + "', this raxc as '" + version + "'";
    return nullptr;
  }
  return found;
}

}  // namespace raxc::backend
