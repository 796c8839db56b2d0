// One analysed version of one open document: what every query is answered from. A Snapshot is
// immutable once built and shared as shared_ptr<const Snapshot> between the analysis thread
// (which builds it) and the reader thread (which answers requests from the newest one, even
// while a newer version is being analysed).
//
// The analysis::Engine is incremental but neither thread-safe nor snapshot-able (its IR
// pointers die at its next update). So each document has a small pool of Engines, double
// buffered: a Snapshot holds the Engine that analysed its text, and the Analyzer only ever
// updates an Engine that no Snapshot holds any more (the pool is then its only owner). An
// Engine two versions behind is brought up to date with one diff edit, so re-analysis stays
// incremental (only the functions whose text changed). Queries on one Snapshot are serialised
// by its mutex (the Engine's const queries fill lazy caches).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"

namespace raxc::lsp {

struct Snapshot {
  std::string uri;                      // also the document's key in `engine`
  int64_t version = 0;                  // the client's version of the text analysed
  uint64_t generation = 0;              // the server's edit counter for the document (monotonic)
  std::unique_ptr<SourceFile> file;     // the analysed text and its line map
  std::vector<Diagnostic> diagnostics;  // everything to publish, in source order
  std::shared_ptr<analysis::Engine> engine;  // holds `uri` at exactly this text
  mutable std::mutex query_mutex;            // lock around every engine query

  size_t memory_bytes() const;  // an estimate of the text and line map, for raxc/memoryUsage
};

// Owns the Engines; used by the analysis thread (forget() may come from any thread).
class Analyzer {
 public:
  // Analyses `text` as the new version of `uri`. Never throws: an internal failure yields a
  // snapshot without diagnostics and `failure` set (the server logs it).
  std::shared_ptr<const Snapshot> analyze(const std::string& uri, int64_t version,
                                          uint64_t generation, std::string text,
                                          std::string* failure);
  void forget(const std::string& uri);  // the document was closed
  size_t engine_count() const;

 private:
  std::shared_ptr<analysis::Engine> free_engine(const std::string& uri);

  mutable std::mutex mutex_;  // protects pools_ only, never held during an analysis
  std::map<std::string, std::vector<std::shared_ptr<analysis::Engine>>> pools_;
};

}  // namespace raxc::lsp
