// The syntax check's entry points (frontend/syntax.h): the four parts of syntax_parts.h run over
// the whole file, or over the window of one top-level definition.
#include "frontend/syntax.h"

#include <algorithm>
#include <utility>

#include "frontend/syntax_parts.h"

namespace raxc::frontend {

bool SyntaxCheck::is_quarantined(uint32_t offset) const {
  for (const Span& s : quarantined)
    if (s.begin <= offset && offset < std::max(s.end, s.begin + 1)) return true;
  return false;
}

namespace {

using cst::Field;
using cst::Kind;

// The top-level nodes (comments left out).
std::vector<TSNode> top_nodes(const cst::Cst& cst, TSNode root) {
  std::vector<TSNode> out;
  for (TSNode child : syntax::children(root))
    if (cst.kind(child) != Kind::comment) out.push_back(child);
  return out;
}

// Where the units start: the top-level nodes, and a module class's members.
std::vector<uint32_t> unit_starts(const cst::Cst& cst, const std::vector<TSNode>& top) {
  std::vector<uint32_t> out;
  for (TSNode node : top) {
    out.push_back(ts_node_start_byte(node));
    Kind kind = cst.kind(node);
    if (kind != Kind::module_class && kind != Kind::class_definition) continue;
    TSNode body = cst.field(node, Field::body);
    if (ts_node_is_null(body)) continue;
    for (TSNode member : syntax::children(body))
      if (cst.kind(member) != Kind::comment) out.push_back(ts_node_start_byte(member));
  }
  std::sort(out.begin(), out.end());
  return out;
}

SyntaxCheck run_parts(const cst::Cst& cst, const syntax::Window& window, TSNode top, Kind parent,
                      size_t depth, const std::vector<TSNode>& units, DiagnosticSink& sink,
                      std::vector<printer::Comment>& comments, syntax::Tokens& tokens) {
  SyntaxCheck result;
  tokens = syntax::tokenize(cst.source(), window);
  syntax::check_lines(cst.source(), window, tokens);
  syntax::TreeFindings tree = syntax::walk_tree(cst, top, parent, depth, comments);
  result.lowerable = !tree.too_deep;
  syntax::combine(cst, units, tokens, tree, sink, result);
  return result;
}

}  // namespace

SyntaxCheck check_syntax(const cst::Cst& cst, TSNode root, DiagnosticSink& sink,
                         std::vector<printer::Comment>& comments) {
  std::vector<TSNode> top = top_nodes(cst, root);
  syntax::Window window;
  window.end = uint32_t(cst.source().size());
  window.unit_starts = unit_starts(cst, top);
  syntax::Tokens tokens;
  return run_parts(cst, window, root, Kind::Other, 0, top, sink, comments, tokens);
}

namespace {

// Whether a line of the window [begin, end) other than its first starts with code left of
// `column`: the whole-file check sees that line leave the enclosing block, which the window's
// own check (whose outermost level is `column`) cannot tell.
bool code_left_of(std::string_view text, uint32_t begin, uint32_t end, uint32_t column) {
  for (size_t at = text.find('\n', begin); at != std::string_view::npos && at < end;
       at = text.find('\n', at + 1)) {
    size_t first = at + 1;
    while (first < end && (text[first] == ' ' || text[first] == '\t' || text[first] == '\f'))
      ++first;
    if (first >= end) break;
    char c = text[first];
    if (c != '\n' && c != '\r' && c != '#' && first - (at + 1) < column) return true;
  }
  return false;
}

// How many ancestors `node` has and its parent's kind, as the whole-file walk's cursor sees
// them. One walk down from the root: ts_node_parent walks down from the root on every call, over
// every statement of a module class before the node.
std::pair<size_t, Kind> ancestry(const cst::Cst& cst, TSNode node) {
  uint32_t begin = ts_node_start_byte(node);
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(node.tree));
  size_t depth = 0;
  Kind parent = Kind::Other;
  bool found = false;
  for (;;) {
    TSNode at = ts_tree_cursor_current_node(&cursor);
    if ((found = ts_node_eq(at, node))) break;
    if (ts_tree_cursor_goto_first_child_for_byte(&cursor, begin) < 0) break;
    ++depth;
    parent = cst.kind(at);
  }
  ts_tree_cursor_delete(&cursor);
  if (found) return {depth, parent};
  depth = 0;  // not on the way down (zero-width nodes at `begin`): ask tree-sitter
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) ++depth;
  return {depth, cst.kind(ts_node_parent(node))};
}

}  // namespace

DefinitionSyntax check_definition_syntax(const cst::Cst& cst, TSNode definition) {
  syntax::Window window;
  window.begin = ts_node_start_byte(definition);
  window.end = ts_node_end_byte(definition);
  TSPoint start = ts_node_start_point(definition);
  window.column = start.column;
  window.base_line = start.row;
  auto [depth, parent_kind] = ancestry(cst, definition);

  DefinitionSyntax out;
  DiagnosticSink sink;
  std::vector<printer::Comment> comments;
  syntax::Tokens tokens;
  out.check =
      run_parts(cst, window, definition, parent_kind, depth, {definition}, sink, comments, tokens);
  out.diagnostics = sink.take();
  out.composable = !tokens.open_at_end && !tokens.pending_block && !tokens.indentation_error &&
                   !code_left_of(cst.source(), window.begin, window.end, window.column);
  for (const Diagnostic& d : out.diagnostics) {
    if (d.id == DiagId::RX1019 || d.id == DiagId::RX1010) out.composable = false;
    if (d.id == DiagId::RX1017 || d.id == DiagId::RX1004) out.names_lines = true;
  }
  return out;
}

}  // namespace raxc::frontend
