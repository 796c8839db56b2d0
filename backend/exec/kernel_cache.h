// The compiled-code cache: an unchanged module's second `raxc run` loads the shared object of
// kernels its first run linked (backend/jit/kernel_objects.h) with dlopen, without loading LLVM
// at all. So the key is computed without LLVM: a SHA-256 of the module's PrimFuncs as the IR
// dump prints them with their spans (every field the code generator reads; the spans are the
// .rx locations compiled into error sites), the codegen options, this CPU (cpuid: vendor,
// model and feature bits, and what the OS enables), LLVM's version, the code generator's build
// ID (codegen.h: a rebuilt code generator never finds another build's code) and the version of
// the pipeline (kPipelineVersion, bumped whenever what goes into an entry changes).
//
// Where: $RAXC_CACHE_DIR, else $XDG_CACHE_HOME/raxc/kernels, else ~/.cache/raxc/kernels;
// RAXC_CACHE_DIR set to "" (or `raxc run --no-cache`) turns it off. Entries (KEY.so) are written
// atomically (a reader never sees half a file); an entry that does not load — incomplete,
// damaged, missing a kernel — is compiled again and replaced. The directory is kept under
// 512 MiB by removing the least recently written entries.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "backend/codegen/tir_codegen.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

class KernelCache {
 public:
  // The cache of this process's environment, or nullopt when it is off or has no home.
  static std::optional<KernelCache> open();

  // The key of `module`'s PrimFuncs compiled with `options` by the code generator `codegen`
  // (codegen_identity()).
  static std::string key(const ir::IRModule& module, const CodegenOptions& options,
                         std::string_view codegen);

  // Where the entry of `key` is (it may not exist).
  std::filesystem::path entry(const std::string& key) const;

  // Removes the oldest entries while the directory holds more than the bound.
  void prune() const;

  const std::filesystem::path& directory() const { return directory_; }

 private:
  explicit KernelCache(std::filesystem::path directory) : directory_(std::move(directory)) {}
  std::filesystem::path directory_;
};

// This CPU as the compiled code depends on it, read without LLVM (cpuid on x86).
std::string host_cpu_identity();

}  // namespace raxc::backend
