// Compiled kernels kept between runs: an unchanged module's second `raxc run` loads the machine
// code its first run produced instead of optimising and compiling again. The key is a SHA-256
// of everything the code depends on: the unoptimised LLVM IR of the kernels (which carries the
// codegen options), the target CPU and its features, LLVM's version and the version of our
// pipeline (kPipelineVersion, bumped whenever optimize_o3 or the target settings change).
//
// Where: $RAXC_CACHE_DIR, else $XDG_CACHE_HOME/raxc/kernels, else ~/.cache/raxc/kernels;
// RAXC_CACHE_DIR set to "" (or `raxc run --no-cache`) turns it off. Entries are written
// atomically (a reader never sees half an object); an entry that does not load is compiled
// again and replaced. The directory is kept under 512 MiB by removing the least recently
// written entries.
#pragma once
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace raxc::backend {

class ObjectCache {
 public:
  // The cache of this process's environment, or nullopt when it is off or has no home.
  static std::optional<ObjectCache> open();

  // The key of `module` (before optimisation) compiled by `tm`.
  static std::string key(const llvm::Module& module, const llvm::TargetMachine& tm);

  // The object stored under `key`, or null.
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string& key) const;
  // Stores `object` under `key`; failures (a read-only disk, a full one) are ignored: the cache
  // only ever saves time.
  void store(const std::string& key, llvm::StringRef object) const;

  const std::filesystem::path& directory() const { return directory_; }

 private:
  explicit ObjectCache(std::filesystem::path directory) : directory_(std::move(directory)) {}
  void prune() const;
  std::filesystem::path directory_;
};

}  // namespace raxc::backend
