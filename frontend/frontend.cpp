#include "frontend/frontend.h"

#include <pthread.h>

#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "frontend/lower/cst.h"
#include "frontend/lower/lower.h"
#include "frontend/syntax.h"

namespace raxc::frontend {

// The lowering recurses over the tree (up to kMaxTreeDepth levels). Sanitizer builds use
// several KB of stack per level, more than a default 8 MB thread has (a unit test, an LSP
// worker); so it runs on a thread of its own with a large stack (reserved, not committed).
namespace {
// Set on the threads run_with_large_stack() starts: nested calls (the Engine's analysis around
// a Document's lowering) run in place instead of starting another thread.
thread_local bool on_large_stack = false;
}  // namespace

void run_with_large_stack(const std::function<void()>& body) {
  if (on_large_stack) return body();
  constexpr size_t kStackBytes = size_t(256) << 20;
  struct Call {
    const std::function<void()>* body;
    std::exception_ptr error;
  } call{&body, nullptr};
  auto trampoline = [](void* argument) -> void* {
    Call* c = static_cast<Call*>(argument);
    on_large_stack = true;
    try {
      (*c->body)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return body();
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attributes, kStackBytes) == 0 &&
                 pthread_create(&thread, &attributes, trampoline, &call) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) return body();  // no thread to be had: use this one
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
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
constexpr int kMaxBracketDepth = 16384;

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

TreePtr parse_tree(std::string_view text, const TSTree* old) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_relax());
  std::optional<std::string> tamed = without_runaway_nesting(text);
  if (tamed) {
    text = *tamed;
    old = nullptr;  // the hidden brackets move with every edit: no incremental reuse
  }
  TSTree* tree = ts_parser_parse_string(parser, old, text.data(), uint32_t(text.size()));
  ts_parser_delete(parser);
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
