#include "frontend/frontend.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "frontend/lower/cst.h"
#include "frontend/lower/lower.h"
#include "frontend/syntax.h"

namespace raxc::frontend {

// The lowering recurses over the tree (up to kMaxTreeDepth levels). Sanitizer builds use
// several KB of stack per level, more than a default 8 MB thread has (a unit test, an LSP
// worker); so it runs on a thread of its own with a large stack (reserved, not committed).
// Each calling thread gets one such thread, started on first use and kept until the caller
// exits: an editor re-checks on every keystroke, and starting a thread (mapping and faulting in
// its stack, losing its thread-local caches) each time cost a noticeable part of a re-check.
namespace {

// Set on the large-stack threads: nested calls (the Engine's analysis around a Document's
// lowering) run in place instead of waiting for themselves.
thread_local bool on_large_stack = false;

class LargeStackThread {
 public:
  // False when no thread could be started (then the caller runs the body itself).
  bool start() {
    constexpr size_t kStackBytes = size_t(256) << 20;
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return false;
    started_ = pthread_attr_setstacksize(&attributes, kStackBytes) == 0 &&
               pthread_create(&thread_, &attributes, &LargeStackThread::main, this) == 0;
    pthread_attr_destroy(&attributes);
    return started_;
  }
  ~LargeStackThread() {
    if (!started_) return;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    pthread_join(thread_, nullptr);
  }

  void run(const std::function<void()>& body) {
    post(body);
    wait();
  }
  // Starts `body` and returns; wait() waits for it (and rethrows what it threw).
  void post(const std::function<void()>& body) {
    std::lock_guard lock(mutex_);
    job_ = &body;
    error_ = nullptr;
    wake_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return job_ == nullptr; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  static void* main(void* self) {
    on_large_stack = true;
    static_cast<LargeStackThread*>(self)->serve();
    return nullptr;
  }
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return job_ != nullptr || stopping_; });
      if (job_ == nullptr) return;  // stopping, nothing left to run
      lock.unlock();
      std::exception_ptr error;
      try {
        (*job_)();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error;
      job_ = nullptr;
      done_.notify_all();
    }
  }

  pthread_t thread_{};
  bool started_ = false;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void()>* job_ = nullptr;
  std::exception_ptr error_;
  bool stopping_ = false;
};

// The calling thread's own large-stack thread (`slot`), started on first use; null when none
// can be started.
LargeStackThread* thread_in(std::unique_ptr<LargeStackThread>& slot, bool& unavailable) {
  if (!slot && !unavailable) {
    auto thread = std::make_unique<LargeStackThread>();
    if (thread->start())
      slot = std::move(thread);
    else
      unavailable = true;
  }
  return slot.get();
}

}  // namespace

void run_with_large_stack(const std::function<void()>& body) {
  if (on_large_stack) return body();
  thread_local std::unique_ptr<LargeStackThread> own;
  thread_local bool unavailable = false;
  LargeStackThread* thread = thread_in(own, unavailable);
  if (!thread) return body();  // no thread to be had: use this one
  thread->run(body);
}

void run_side_by_side(const std::function<void()>& beside, const std::function<void()>& here) {
  thread_local std::unique_ptr<LargeStackThread> second;
  thread_local bool unavailable = false;
  LargeStackThread* thread = thread_in(second, unavailable);
  if (!thread) {
    beside();
    here();
    return;
  }
  thread->post(beside);
  std::exception_ptr error;
  try {
    run_with_large_stack(here);
  } catch (...) {
    error = std::current_exception();
  }
  thread->wait();  // rethrows `beside`'s exception, if any, before `here`'s
  if (error) std::rethrow_exception(error);
}

namespace {

// tree-sitter 0.20 (Debian's libtree-sitter0) corrupts its heap when it deletes a tree nested
// about 65,536 levels deep (70,000 '(' abort with a double free), and its error recovery slows
// down with the depth of the unclosed brackets it carries (24,000 lines each leaving a '(' open
// took 112 s). So from the first bracket that would open past this depth to the end of the file
// the text is hidden from it as spaces (newlines kept: same length and lines, so every offset
// stays true). Such a file is reported anyway: nesting past kMaxTreeDepth is RX1010, and the
// unclosed brackets are syntax errors. Brackets inside strings and comments are counted too;
// only absurd files differ.
// The text blanked from the first bracket past kMaxBracketDepth on, or nullopt when there is
// none.
std::optional<std::string> without_runaway_nesting(std::string_view text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      if (depth == kMaxBracketDepth) {
        std::string copy(text);
        for (size_t k = i; k < copy.size(); ++k)
          if (copy[k] != '\n') copy[k] = ' ';
        return copy;
      }
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

int bracket_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

TreePtr parse_tree(std::string_view text, const TSTree* old, bool depth_checked) {
  // One parser per thread, kept: making one allocates its stacks and tables, a noticeable part
  // of a keystroke's re-parse. A parse that finishes leaves it ready for the next.
  struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
  };
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> made(ts_parser_new());
    ts_parser_set_language(made.get(), tree_sitter_relax());
    return made;
  }();
  std::optional<std::string> tamed;
  if (!depth_checked) tamed = without_runaway_nesting(text);
  if (tamed) {
    text = *tamed;
    old = nullptr;  // the hidden brackets move with every edit: no incremental reuse
  }
  ts_parser_reset(parser.get());
  TSTree* tree = ts_parser_parse_string(parser.get(), old, text.data(), uint32_t(text.size()));
  return TreePtr(tree);
}

bool ParsedFile::has_errors() const {
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

ParsedFile parse_file(std::string_view text) {
  ParsedFile result;
  result.tree = parse_tree(text);
  cst::Cst cst(text);
  TSNode root = ts_tree_root_node(result.tree.get());
  DiagnosticSink sink;
  SyntaxCheck syntax = check_syntax(cst, root, sink, result.comments);
  if (syntax.lowerable) {
    // Lowering diagnostics inside a definition with a syntax error are consequences of it.
    DiagnosticSink lowering;
    run_with_large_stack([&] { result.module = lower::lower_file(cst, root, lowering); });
    for (Diagnostic& d : lowering.take())
      if (!syntax.is_quarantined(d.span.begin)) sink.report(std::move(d));
  } else {
    result.module = std::make_unique<ir::IRModule>();
  }
  result.diagnostics = sink.take();
  return result;
}

}  // namespace raxc::frontend
