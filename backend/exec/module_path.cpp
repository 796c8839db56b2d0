// Finding raxc's own dlopen-ed modules (module_path.h).
#include "backend/exec/module_path.h"

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

}  // namespace raxc::backend
