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

void EditLog::restart(uint64_t generation) {
  start_ = generation;
  entries_.clear();
}

void EditLog::record(uint64_t generation, std::vector<frontend::TextEdit> edits) {
  entries_.emplace_back(generation, std::move(edits));
  while (entries_.size() > kMaxEntries) {
    start_ = entries_.front().first;
    entries_.pop_front();
  }
}

std::optional<std::vector<frontend::TextEdit>> EditLog::since(uint64_t from) const {
  if (from < start_) return std::nullopt;
  std::vector<frontend::TextEdit> out;
  for (const auto& [generation, edits] : entries_)
    if (generation > from) out.insert(out.end(), edits.begin(), edits.end());
  return out;
}

std::shared_ptr<Analyzer::Pooled> Analyzer::free_engine(const std::string& uri) {
  std::lock_guard lock(mutex_);
  auto& pool = pools_[uri];
  for (auto& pooled : pool)
    if (pooled->engine.use_count() == 1) return pooled;  // no Snapshot holds it: safe to update
  auto pooled = std::make_shared<Pooled>();
  pooled->engine = std::make_shared<analysis::Engine>();
  if (pool.size() < kMaxEnginesPerDocument) pool.push_back(pooled);
  return pooled;
}

namespace {

// Brings the pooled engine to `text`: replaying the logged edits when they reach back to its
// generation (checked against the text), else one diff edit, else opening it afresh.
void catch_up(analysis::Engine& engine, uint64_t engine_generation, const std::string& uri,
              const std::string& text, const EditLog& log) {
  const std::string* old = engine.text(uri);
  if (!old) {
    engine.open(uri, text);
    return;
  }
  if (auto edits = log.since(engine_generation)) {
    if (edits->empty() && *old == text) return;
    std::string replayed = *old;
    bool in_range = true;
    for (const frontend::TextEdit& e : *edits) {
      if (e.begin > e.end || e.end > replayed.size()) {
        in_range = false;
        break;
      }
      replayed.replace(e.begin, e.end - e.begin, e.text);
    }
    if (in_range && replayed == text) {
      engine.update(uri, *edits);
      return;
    }
  }
  frontend::TextEdit edit = diff_edit(*old, text);
  if (edit.begin != edit.end || !edit.text.empty()) engine.update(uri, {&edit, 1});
}

}  // namespace

std::shared_ptr<const Snapshot> Analyzer::analyze(const std::string& uri, int64_t version,
                                                  uint64_t generation, std::string text,
                                                  const EditLog& edits, std::string* failure,
                                                  Settle settle) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->uri = uri;
  snapshot->version = version;
  snapshot->generation = generation;
  try {
    std::shared_ptr<Pooled> pooled = free_engine(uri);
    catch_up(*pooled->engine, pooled->generation, uri, text, edits);
    pooled->generation = generation;
    if (settle == Settle::Yes) pooled->engine->settle(uri);
    snapshot->settled = pooled->engine->settled(uri);
    snapshot->diagnostics = pooled->engine->diagnostics(uri);
    snapshot->engine = pooled->engine;
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

std::shared_ptr<const Snapshot> Analyzer::unanalysed(const std::string& uri, int64_t version,
                                                     uint64_t generation, std::string text) {
  forget(uri);
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->uri = uri;
  snapshot->version = version;
  snapshot->generation = generation;
  snapshot->file = std::make_unique<SourceFile>(uri, std::move(text));
  return snapshot;
}

bool Analyzer::needs_spare(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = pools_.find(uri);
  return it != pools_.end() && it->second.size() == 1;
}

void Analyzer::prepare_spare(const Snapshot& from) {
  if (!from.engine) return;
  const std::string& uri = from.uri;
  auto pooled = std::make_shared<Pooled>();
  pooled->engine = std::make_shared<analysis::Engine>();
  try {
    // Reads the snapshot's Engine (its text and tree), as the snapshot's queries do; the
    // Engine's const queries change nothing in them, so no lock is needed.
    if (!pooled->engine->open_like(uri, *from.engine)) return;
  } catch (const std::exception&) {
    return;  // the next analysis opens one itself
  }
  pooled->generation = from.generation;
  std::lock_guard lock(mutex_);
  auto it = pools_.find(uri);
  if (it != pools_.end() && it->second.size() < kMaxEnginesPerDocument)
    it->second.push_back(std::move(pooled));
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
