// The compiled-kernel cache (see object_cache.h).
#include "backend/jit/object_cache.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <vector>

#include "backend/io/atomic_file.h"

namespace raxc::backend {
namespace {

namespace fs = std::filesystem;

// Bump when the optimisation pipeline or the target settings change (host_target.cpp): the
// cached code of the old ones must not be found.
constexpr const char* kPipelineVersion = "raxc-kernels-1";
constexpr uintmax_t kMaxBytes = uintmax_t{512} << 20;

std::string hex(llvm::ArrayRef<uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace

std::optional<ObjectCache> ObjectCache::open() {
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
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) return std::nullopt;
  return ObjectCache(std::move(dir));
}

std::string ObjectCache::key(const llvm::Module& module, const llvm::TargetMachine& tm) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os, nullptr);
  const std::string triple = tm.getTargetTriple().str();
  const llvm::StringRef parts[] = {kPipelineVersion,  LLVM_VERSION_STRING,         triple,
                                   tm.getTargetCPU(), tm.getTargetFeatureString(), os.str()};
  llvm::SHA256 hash;
  for (llvm::StringRef part : parts) {
    hash.update(part);
    hash.update(llvm::StringRef("\0", 1));  // parts never run into each other
  }
  return hex(hash.final());
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const std::string& key) const {
  auto buffer = llvm::MemoryBuffer::getFile((directory_ / (key + ".o")).string(),
                                            /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return nullptr;
  return std::move(*buffer);
}

void ObjectCache::store(const std::string& key, llvm::StringRef object) const {
  if (io::write_file_atomic(directory_ / (key + ".o"),
                            {std::string_view(object.data(), object.size())}))
    return;
  prune();
}

void ObjectCache::prune() const {
  struct Entry {
    fs::path path;
    fs::file_time_type written;
    uintmax_t size;
  };
  std::vector<Entry> entries;
  uintmax_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(directory_, ec)) {
    if (e.path().extension() != ".o") continue;
    uintmax_t size = e.file_size(ec);
    if (ec) continue;
    entries.push_back({e.path(), e.last_write_time(ec), size});
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
