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
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
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
  // What a fresh check of the text gives (analysis::Engine::settle); false when incremental
  // error recovery may differ from it and the server should settle the text once it is quiet.
  bool settled = true;
  mutable std::mutex query_mutex;  // lock around every engine query

  size_t memory_bytes() const;  // an estimate of the text and line map, for raxc/memoryUsage
};

// The last edits of one document, each tagged with the generation it produced. An Engine whose
// text is generation g replays the edits after g: a few bytes of work, where one diff between
// two far-apart keystrokes would re-lower every function in between.
class EditLog {
 public:
  void restart(uint64_t generation);  // a new text (didOpen): nothing to replay before it
  void record(uint64_t generation, std::vector<frontend::TextEdit> edits);
  // The edits that turn generation `from` into the newest one; nullopt when the log no longer
  // reaches back that far.
  std::optional<std::vector<frontend::TextEdit>> since(uint64_t from) const;

 private:
  static constexpr size_t kMaxEntries = 64;
  uint64_t start_ = 0;  // the generation before the first entry
  std::deque<std::pair<uint64_t, std::vector<frontend::TextEdit>>> entries_;
};

// Owns the Engines; used by the analysis thread (forget() may come from any thread).
class Analyzer {
 public:
  // Analyses `text` as the new version of `uri`, and settles it (analysis::Engine::settle:
  // a whole-file parse when it has syntax errors) when asked. Never throws: an internal failure
  // yields a snapshot without diagnostics and `failure` set (the server logs it).
  enum class Settle { No, Yes };
  std::shared_ptr<const Snapshot> analyze(const std::string& uri, int64_t version,
                                          uint64_t generation, std::string text,
                                          const EditLog& edits, std::string* failure,
                                          Settle settle = Settle::No);
  // A snapshot of `text` without analysis (a document past the server's size limit): no Engine,
  // no diagnostics; the document's Engines are dropped.
  std::shared_ptr<const Snapshot> unanalysed(const std::string& uri, int64_t version,
                                             uint64_t generation, std::string text);
  void forget(const std::string& uri);  // the document was closed
  // The first edit after opening would find the only Engine held by the Snapshot and have to
  // analyse the whole document in a new one; the server prepares that spare Engine while the
  // document is quiet, from the snapshot's Engine, whose syntax tree it shares (the tree is most
  // of an Engine's memory).
  bool needs_spare(const std::string& uri) const;
  void prepare_spare(const Snapshot& from);
  size_t engine_count() const;

 private:
  struct Pooled {
    std::shared_ptr<analysis::Engine> engine;
    uint64_t generation = 0;  // of the text the engine holds
  };
  // Shared so that forget() on another thread never frees one the analysis is using.
  std::shared_ptr<Pooled> free_engine(const std::string& uri);

  mutable std::mutex mutex_;  // protects pools_ only, never held during an analysis
  std::map<std::string, std::vector<std::shared_ptr<Pooled>>> pools_;
};

}  // namespace raxc::lsp
