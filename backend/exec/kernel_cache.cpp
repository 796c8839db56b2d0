// The compiled-code cache (kernel_cache.h).
#include "backend/exec/kernel_cache.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <vector>

#include "backend/exec/sha256.h"
#include "frontend/ir/dump.h"

#ifndef RAXC_LLVM_VERSION
#error "RAXC_LLVM_VERSION must name the LLVM the code generator links (backend/CMakeLists.txt)"
#endif

namespace raxc::backend {
namespace {

namespace fs = std::filesystem;

// Bump when what an entry holds changes in a way the other parts of the key do not show.
constexpr const char* kPipelineVersion = "raxc-kernels-3 (shared object, O2)";
constexpr uintmax_t kMaxBytes = uintmax_t{512} << 20;

// The module's PrimFuncs, dumped with spans: what the generated code depends on.
std::string kernels_text(const ir::IRModule& module) {
  ir::IRModule kernels;
  for (const ir::GlobalDef& g : module.globals)
    if (g.prim_func()) kernels.globals.push_back(g);
  return ir::dump_module(kernels, ir::DumpOptions{.spans = true, .var_names = true});
}

}  // namespace

std::string host_cpu_identity() {
  std::string id;
  auto add = [&](unsigned word) { id += std::to_string(word) + " "; };
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  unsigned max = __get_cpuid_max(0, nullptr);
  __cpuid(0, a, b, c, d);
  add(b), add(d), add(c);  // the vendor
  if (max >= 1) {
    __cpuid(1, a, b, c, d);
    add(a), add(c), add(d);  // signature and features; ebx varies from core to core
    if (c & (1u << 27)) {    // OSXSAVE: which vector registers the OS saves
      unsigned lo = 0, hi = 0;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      add(lo);
    }
  }
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    add(b), add(c), add(d);
    __cpuid_count(7, 1, a, b, c, d);
    add(a);
  }
  if (__get_cpuid_max(0x80000000, nullptr) >= 0x80000001) {
    __cpuid(0x80000001, a, b, c, d);
    add(c), add(d);
  }
#else
  // Elsewhere the first processor's description, minus what changes while it runs.
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line) && !line.empty();)
    if (!line.starts_with("cpu MHz") && !line.starts_with("BogoMIPS")) id += line + "\n";
#endif
  (void)add;
  return id;
}

std::optional<KernelCache> KernelCache::open() {
  fs::path dir;
  if (const char* set = std::getenv("RAXC_CACHE_DIR")) {
    if (!*set) return std::nullopt;
    dir = set;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = fs::path(xdg) / "raxc" / "kernels";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = fs::path(home) / ".cache" / "raxc" / "kernels";
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  return KernelCache(std::move(dir));
}

std::string KernelCache::key(const ir::IRModule& module, const CodegenOptions& options,
                             std::string_view codegen) {
  static const std::string cpu = host_cpu_identity();
  std::string flags = std::string("check_bounds=") + (options.check_bounds ? "1" : "0") +
                      " parallel=" + (options.parallel ? "1" : "0");
  const std::string parts[] = {
      kPipelineVersion, RAXC_LLVM_VERSION, cpu, std::string(codegen), flags, kernels_text(module)};
  Sha256 hash;
  for (const std::string& part : parts) {
    hash.update(part);
    hash.update(std::string_view("\0", 1));  // parts never run into each other
  }
  return hash.hex_digest();
}

fs::path KernelCache::entry(const std::string& key) const { return directory_ / (key + ".so"); }

void KernelCache::prune() const {
  struct Entry {
    fs::path path;
    fs::file_time_type written;
    uintmax_t size;
  };
  std::vector<Entry> entries;
  uintmax_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(directory_, ec)) {
    // The objects of the previous format (.o) are removed first: nothing reads them any more.
    bool old = e.path().extension() == ".o";
    if (!old && e.path().extension() != ".so") continue;
    uintmax_t size = e.file_size(ec);
    if (ec) continue;
    entries.push_back({e.path(), old ? fs::file_time_type::min() : e.last_write_time(ec), size});
    total += size;
  }
  if (total <= kMaxBytes) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.written < b.written; });
  for (const Entry& e : entries) {
    if (total <= kMaxBytes / 2) break;  // leave room, so the next store does not prune again
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

}  // namespace raxc::backend
