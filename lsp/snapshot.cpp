#include "lsp/snapshot.h"

#include <algorithm>
#include <exception>

namespace raxc::lsp {
namespace {

constexpr size_t kMaxEnginesPerDocument = 3;

// The smallest single edit turning `from` into `to` (common prefix and suffix kept).
frontend::TextEdit diff_edit(const std::string& from, const std::string& to) {
  size_t prefix = 0, limit = std::min(from.size(), to.size());
  while (prefix < limit && from[prefix] == to[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < limit - prefix && from[from.size() - 1 - suffix] == to[to.size() - 1 - suffix])
    ++suffix;
  return {uint32_t(prefix), uint32_t(from.size() - suffix),
          to.substr(prefix, to.size() - suffix - prefix)};
}

}  // namespace

size_t Snapshot::memory_bytes() const {
  size_t bytes = sizeof(Snapshot);
  if (file) bytes += file->text().capacity() + file->line_count() * sizeof(uint32_t);
  for (const Diagnostic& d : diagnostics) bytes += sizeof(Diagnostic) + d.message.capacity();
  return bytes;
}

std::shared_ptr<analysis::Engine> Analyzer::free_engine(const std::string& uri) {
  std::lock_guard lock(mutex_);
  auto& pool = pools_[uri];
  for (auto& engine : pool)
    if (engine.use_count() == 1) return engine;  // no Snapshot holds it: safe to update
  auto engine = std::make_shared<analysis::Engine>();
  if (pool.size() < kMaxEnginesPerDocument) pool.push_back(engine);
  return engine;
}

std::shared_ptr<const Snapshot> Analyzer::analyze(const std::string& uri, int64_t version,
                                                  uint64_t generation, std::string text,
                                                  std::string* failure) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->uri = uri;
  snapshot->version = version;
  snapshot->generation = generation;
  try {
    std::shared_ptr<analysis::Engine> engine = free_engine(uri);
    const std::string* old = engine->text(uri);
    if (old) {
      frontend::TextEdit edit = diff_edit(*old, text);
      if (edit.begin != edit.end || !edit.text.empty()) engine->update(uri, {&edit, 1});
    } else {
      engine->open(uri, text);
    }
    snapshot->diagnostics = engine->diagnostics(uri);
    snapshot->engine = std::move(engine);
  } catch (const std::exception& e) {
    if (failure) *failure = e.what();
    snapshot->diagnostics.clear();
    snapshot->engine.reset();
    forget(uri);  // an Engine that threw may be inconsistent
  }
  snapshot->file = std::make_unique<SourceFile>(uri, std::move(text));
  std::stable_sort(
      snapshot->diagnostics.begin(), snapshot->diagnostics.end(),
      [](const Diagnostic& a, const Diagnostic& b) { return a.span.begin < b.span.begin; });
  return snapshot;
}

void Analyzer::forget(const std::string& uri) {
  std::lock_guard lock(mutex_);
  pools_.erase(uri);
}

size_t Analyzer::engine_count() const {
  std::lock_guard lock(mutex_);
  size_t count = 0;
  for (auto& [uri, pool] : pools_) count += pool.size();
  return count;
}

}  // namespace raxc::lsp
