// The `raxc lsp` server: lifecycle, document sync and request dispatch over one stdio stream.
//
// Threads (the whole concurrency design):
//   * the reader thread (the caller of run()) reads and parses every message, handles the
//     lifecycle and document sync, and answers requests at once from the newest Snapshot of
//     their document. It never runs an analysis, so hover, symbols and the like are never
//     queued behind one;
//   * the analysis thread waits until a document has been quiet for `debounce` after its last
//     edit, copies its text, analyses it without holding any lock, and then, under the lock,
//     installs the new Snapshot and publishes its diagnostics only if the document still has
//     the generation that was analysed (a newer edit or a close discards the result: nothing
//     is ever published for a superseded version). A document with syntax errors that stays
//     quiet for `settle_after` is analysed once more from a fresh parse (Snapshot::settled), so
//     what is published at rest is what `raxc check` reports.
// One mutex protects the document table and the deferred requests; the MessageWriter has its
// own. Requests that need the current text (definition, references, ...) wait when the newest
// Snapshot is older than the text. Edits arriving meanwhile do not cancel them: their positions
// are pinned (PinnedPositions) and follow the edits, and they are answered from the Snapshot
// of the newest text, in its coordinates, which is the client's text by then; only an edit at
// one of their positions answers them ContentModified. Requests with no Snapshot at all yet
// (just opened) wait for the first one.
#pragma once
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lsp/features.h"
#include "lsp/jsonrpc.h"
#include "lsp/pinned_positions.h"
#include "lsp/snapshot.h"
#include "lsp/transport.h"

namespace raxc::lsp {

// window/logMessage types; messages above the chosen level are not sent.
enum class LogLevel { Error = 1, Warning = 2, Info = 3, Debug = 4 };

// The registry the diagnostic codes link to (the source tree's frontend/diagnostics.def).
std::string default_diagnostic_url();

struct ServerOptions {
  std::chrono::milliseconds debounce{150};
  // How long a document with syntax errors must be quiet before it is parsed again from scratch
  // (analysis::Engine::settle), so that what is published at rest is what `raxc check` says.
  std::chrono::milliseconds settle_after{500};
  LogLevel log_level = LogLevel::Info;
  // codeDescription.href template, "{code}" replaced by the diagnostic's code.
  std::string diagnostic_url = default_diagnostic_url();
  // A larger document (blanks not counted) is not analysed: its syntax tree and IR would take
  // about 70 times its size in memory and seconds per change. It is highlighted from a lexical scan
  // (no diagnostics, hover or navigation), and the person is told once.
  size_t max_analysed_bytes = size_t(8) << 20;
};

class Server {
 public:
  Server(MessageWriter& out, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Reads and handles messages until `exit` or the end of the input. Returns the process exit
  // status: 0 after shutdown + exit, 1 otherwise.
  int run(MessageReader& in);

  // One framed body (exposed for tests). `in`, if given, gets back the tail of a body that was
  // cut short by a wrong Content-Length so the following message survives.
  void handle_body(std::string_view body, MessageReader* in);
  bool exited() const { return state_ == State::Exited; }
  int exit_status() const { return shutdown_requested_ ? 0 : 1; }

 private:
  enum class State { Uninitialized, Running, ShutDown, Exited };
  using Clock = std::chrono::steady_clock;
  using Handler = std::function<json(const Snapshot&, const json& params)>;
  // A handler that writes its result as JSON text itself (semantic tokens: building a json
  // value of hundreds of thousands of numbers costs more than computing them).
  using TextHandler = std::function<std::string(const Snapshot&, const json& params)>;

  struct Document {
    int64_t version = 0;
    uint64_t generation = 0;
    std::string text;
    Clock::time_point changed;
    bool dirty = false;  // text newer than the last analysis started
    bool published_nonempty = false;
    bool told_too_large = false;  // the person was told it is past max_analysed_bytes
    std::shared_ptr<const Snapshot> snapshot;
    EditLog edits;  // the recent edits, so a stale Engine catches up incrementally
  };
  struct DocumentRequest {
    Handler handler;
    bool needs_fresh = false;  // must be answered from the current text's Snapshot
    TextHandler text_handler;  // used instead of `handler` when set
  };
  struct Deferred {
    json id;
    std::string method;
    json params;
    std::string uri;
    bool needs_fresh;
    uint64_t generation = 0;  // of the text the request was asked against
    PinnedPositions pins;     // its positions in that text
  };

  void handle(const json& message);
  void handle_request(const Incoming& in);
  void handle_notification(const Incoming& in);
  json initialize(const json& params);
  json memory_usage();
  // The text before the cursor of a completion or signature help request, and the newest
  // snapshot of its document.
  struct TypingContext {
    std::string before_cursor;
    Position cursor;
    std::shared_ptr<const Snapshot> snapshot;
  };
  TypingContext typing_context(const json& params);
  json complete(const json& params);
  json signature_help_at(const json& params);
  std::string full_tokens(const Snapshot& snapshot, const json& params,
                          const std::string* previous_id);
  json workspace_symbols(const json& params);
  void handle_document_request(const Incoming& in, const DocumentRequest& request);
  void answer(const json& id, const std::string& method, const json& params,
              const Snapshot& snapshot);

  void did_open(const json& params);
  void did_change(const json& params);
  void did_close(const json& params);
  // Requires mutex_. Answers the deferred requests of `uri` with `code`.
  std::vector<bool> follow_edits_locked(const Document& document, const Snapshot& snapshot,
                                        std::vector<Deferred>& requests);
  void fail_deferred_locked(const std::string& uri, bool only_fresh, int code,
                            const std::string& message);
  // Requires mutex_. Pushes the snapshot's diagnostics, unless the client pulls them.
  void publish_locked(const std::string& uri, Document& document, const Snapshot& snapshot);

  // Whether `text` is past max_analysed_bytes, blanks not counted; window/showMessage if so.
  bool beyond_limit(const std::string& text) const;
  void tell_too_large(const std::string& uri, size_t bytes);
  void start_worker();
  void request_stop();  // the worker ends after what it is doing; stop_worker() joins it
  void stop_worker();
  void drain_deferred();
  struct Job {
    std::map<std::string, Document>::iterator document;
    bool dirty = false;  // a new text to analyse; else a quiet one to settle
    Clock::time_point at;
  };
  Job next_job_locked(Clock::time_point now);
  void worker_loop();

  void send(const json& message);
  void log(LogLevel level, const std::string& message);
  void trace_incoming(const Incoming& in);

  MessageWriter& out_;
  ServerOptions options_;
  FeatureOptions features_;
  Analyzer analyzer_;
  std::map<std::string, DocumentRequest> document_requests_;
  State state_ = State::Uninitialized;
  bool shutdown_requested_ = false;
  std::string trace_ = "off";
  bool push_diagnostics_ = true;  // false when the client declared pull diagnostics

  // The last semantic tokens sent per document, for delta requests, and to answer another
  // request for the same text without computing them again.
  struct TokensResult {
    std::string id;
    std::vector<uint32_t> data;
    uint64_t generation = 0;  // of the snapshot `data` was computed from (one per generation)
  };
  std::mutex tokens_mutex_;
  std::map<std::string, TokensResult> last_tokens_;
  uint64_t tokens_counter_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, Document> documents_;
  std::vector<Deferred> deferred_;
  uint64_t next_generation_ = 1;
  bool stop_ = false;
  bool worker_running_ = false;
  // After `shutdown`: analyse what is pending without the debounce so the requests still
  // waiting get their answers before the worker stops (drained_ signals each answered batch).
  bool draining_ = false;
  std::condition_variable drained_;
  pthread_t worker_{};
};

// `raxc lsp`: serves stdin/stdout until exit; returns the exit status.
int run_stdio(const ServerOptions& options);

}  // namespace raxc::lsp
