// The frontend's entry point: text → tree-sitter CST → syntax diagnostics → Relax/TIR AST.
#pragma once
#include <tree_sitter/api.h>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"

namespace raxc::frontend {

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// Parses `text` with the relax grammar; `old` (already edited with ts_tree_edit) makes the
// parse incremental. Brackets nested past kMaxBracketDepth are hidden from tree-sitter (see
// frontend.cpp); a caller that knows `text` nests no deeper (bracket_depth) passes
// `depth_checked` and saves the scan of the whole text.
TreePtr parse_tree(std::string_view text, const TSTree* old = nullptr, bool depth_checked = false);

inline constexpr int kMaxBracketDepth = 16384;
// The deepest nesting of ( [ { in `text`, counted as parse_tree's guard counts it: every
// bracket character, inside strings and comments too, a closing one at depth 0 ignored.
int bracket_depth(std::string_view text);

struct ParsedFile {
  TreePtr tree;
  std::unique_ptr<ir::IRModule> module;    // always set; empty when lowering was skipped
  std::vector<printer::Comment> comments;  // every comment, in source order
  std::vector<Diagnostic> diagnostics;     // syntax, then lowering
  bool has_errors() const;
};

// Nesting deeper than this is reported (RX1010) instead of lowered: the lowering and the
// printer recurse over the tree.
inline constexpr uint32_t kMaxTreeDepth = 1500;

ParsedFile parse_file(std::string_view text);

// Runs `body` on a thread with a large stack (the lowering and the analysis recurse over the
// tree), waiting for it; exceptions are rethrown here. Falls back to the calling thread.
void run_with_large_stack(const std::function<void()>& body);

// Runs `beside` on a second large-stack thread while `here` runs on the calling thread, and
// returns when both are done (the first exception of either is rethrown). An editor's re-check
// has two independent halves and the machine a second core. Runs both in turn where no thread
// can be had.
void run_side_by_side(const std::function<void()>& beside, const std::function<void()>& here);

}  // namespace raxc::frontend
