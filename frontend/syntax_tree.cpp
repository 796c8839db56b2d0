// The tree part of the syntax check (frontend/syntax_parts.h): one iterative walk of the
// tree-sitter tree (any depth is safe) that collects the error sites (ERROR and MISSING nodes),
// the comments and the nesting depth, and checks what the grammar accepts but the format does
// not (positional after keyword arguments, chained assignment).
#include <string>

#include "frontend/frontend.h"
#include "frontend/syntax_parts.h"

namespace raxc::frontend::syntax {

using cst::Field;
using cst::Kind;

namespace {

std::string first_line(std::string_view text) {
  std::string t(text.substr(0, text.find('\n')));
  if (t.size() > 60) t = t.substr(0, 57) + "...";
  return t;
}

// One iterative walk (any depth is safe): comments, error sites, nesting depth, and the checks
// of what the grammar accepts but the format does not.
class TreeWalker {
 public:
  TreeWalker(const cst::Cst& cst, std::vector<printer::Comment>& comments)
      : cst_(cst), comments_(comments) {}

  TreeFindings out;

  // `depth`: the ancestors of `top` (kinds: only its parent's is needed).
  void run(TSNode top, Kind parent, size_t depth) {
    TSTreeCursor cursor = ts_tree_cursor_new(top);
    std::vector<Kind> path;  // kinds of the ancestors of the current node below `top`
    for (;;) {
      TSNode node = ts_tree_cursor_current_node(&cursor);
      bool descend = visit(node, path.empty() ? parent : path.back());
      if (depth + path.size() > kMaxTreeDepth && !out.too_deep) {
        out.too_deep = true;
        Span at = cst_.span(node);
        out.problems.push_back(
            {diag::NestingTooDeep{.max_depth = kMaxTreeDepth}, at, at, true, at});
        descend = false;
      }
      if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
        path.push_back(cst_.kind(node));
        continue;
      }
      while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          ts_tree_cursor_delete(&cursor);
          return;
        }
        path.pop_back();
      }
    }
  }

 private:
  // Returns whether to look inside the node.
  bool visit(TSNode node, Kind parent) {
    if (ts_node_is_missing(node)) {
      uint32_t at = ts_node_start_byte(node);
      out.sites.push_back({Site::Missing, node, {at, at}, parent});
      return false;
    }
    if (cst::is_error(node)) {
      out.sites.push_back({Site::Error, node, cst_.span(node), parent});
      return false;
    }
    Kind kind = cst_.kind(node);
    if (kind == Kind::comment) {
      comments_.push_back({cst_.span(node), std::string(cst_.text(node))});
      return false;
    }
    if (ts_node_has_error(node) && !has_error_child(node))
      out.sites.push_back({Site::Hidden, node, cst_.span(node), parent});
    if (kind == Kind::argument_list) check_argument_order(node);
    if (kind == Kind::binding) check_chained_assignment(node);
    return ts_node_child_count(node) > 0;
  }

  static bool has_error_child(TSNode node) {
    uint32_t count = ts_node_child_count(node);
    for (uint32_t i = 0; i < count; ++i)
      if (ts_node_has_error(ts_node_child(node, i))) return true;
    return false;
  }

  void check_argument_order(TSNode list) {
    TSNode keyword{};
    uint32_t count = ts_node_named_child_count(list);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode arg = ts_node_named_child(list, i);
      Kind kind = cst_.kind(arg);
      if (kind == Kind::comment || cst::is_error(arg)) continue;
      if (kind == Kind::keyword_argument) {
        if (ts_node_is_null(keyword)) keyword = arg;
        continue;
      }
      if (ts_node_is_null(keyword)) continue;
      Span at = cst_.span(arg);
      out.problems.push_back(
          {diag::PositionalAfterKeywordArgument{.positional = first_line(cst_.text(arg)),
                                                .keyword = first_line(cst_.text(keyword))},
           at, at, true, cst_.span(list)});
      return;
    }
  }

  void check_chained_assignment(TSNode binding) {
    TSNode right = cst_.field(binding, Field::right);
    if (!cst_.is(right, Kind::binding)) return;
    // Only the outermost binding reports; the inner one is its `right`.
    std::string chain = first_line(cst_.text(cst_.field(binding, Field::left)));
    for (TSNode b = right; cst_.is(b, Kind::binding); b = cst_.field(b, Field::right))
      chain += " = " + first_line(cst_.text(cst_.field(b, Field::left)));
    Span at = cst_.span(right);
    out.problems.push_back({diag::ChainedAssignment{.assignment = chain + " = ..."}, at, at, true,
                            cst_.span(binding)});
  }

  const cst::Cst& cst_;
  std::vector<printer::Comment>& comments_;
};

}  // namespace

TreeFindings walk_tree(const cst::Cst& cst, TSNode top, Kind parent, size_t depth,
                       std::vector<printer::Comment>& comments) {
  TreeWalker walker(cst, comments);
  walker.run(top, parent, depth);
  return std::move(walker.out);
}

std::vector<TSNode> children(TSNode node) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child) || cst::is_error(child)) out.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

}  // namespace raxc::frontend::syntax
