// The combination part of the syntax check (frontend/syntax_parts.h): one diagnostic per
// problem. A tokenizer or line problem is reported when it is certain or the tree agrees (an
// error site in the same unit or on its lines); a tree error that no problem explains gets the
// generic "unexpected <token>"; the tree errors a problem explains are its consequences. Every
// report quarantines what it spoils (the definition holding it, as the indentation shows it):
// lowering diagnostics there are consequences too.
#include <algorithm>
#include <optional>
#include <string>

#include "frontend/syntax_parts.h"

namespace raxc::frontend::syntax {

using cst::Field;
using cst::Kind;

namespace {

std::string describe_token(std::string_view text) {
  if (text.empty()) return "end of file";
  size_t cut = std::min(text.find_first_of("\r\n"), size_t(24));
  if (cut < text.size()) return "'" + std::string(text.substr(0, cut)) + "...'";
  return "'" + std::string(text) + "'";
}

std::string describe_missing(std::string_view token, Kind parent) {
  if (token == "_indent" || token == "indent") return "an indented block";
  if (token == "_newline" || token == "newline") return "a line break";
  if (token == "_dedent" || token == "dedent") return "a dedent";
  if (token == "identifier") {
    switch (parent) {
      case Kind::relax_function:
      case Kind::prim_function:
      case Kind::function_definition: return "the function name";
      case Kind::module_class:
      case Kind::class_definition: return "the class name";
      case Kind::parameter:
      case Kind::aliased_import:
      case Kind::dotted_name:
      case Kind::attribute:
      case Kind::keyword_argument: return "a name";
      default: return "an expression";  // tree-sitter fills any missing expression with a name
    }
  }
  if (token.empty() || !(token[0] >= 'a' && token[0] <= 'z')) return "'" + std::string(token) + "'";
  return std::string(token);
}

const char* colon_context(Kind parent) {
  switch (parent) {
    case Kind::relax_function:
    case Kind::prim_function:
    case Kind::function_definition: return "function signature";
    case Kind::module_class:
    case Kind::class_definition: return "class name";
    case Kind::if_statement: return "'if' condition";
    case Kind::elif_clause: return "'elif' condition";
    case Kind::else_clause: return "'else'";
    case Kind::for_statement: return "'for' clause";
    case Kind::while_statement: return "'while' condition";
    case Kind::with_statement:
    case Kind::dataflow_block: return "'with' item";
    case Kind::lambda: return "lambda parameters";
    default: return nullptr;
  }
}

class Combiner {
 public:
  Combiner(const cst::Cst& cst, const std::vector<TSNode>& units, Tokens& tz,
           const TreeFindings& tree)
      : cst_(cst), text_(cst.source()), tz_(tz), tree_(tree) {
    collect_units(units);
    collect_regions();
    index_indentation();
  }

  void run(DiagnosticSink& sink, SyntaxCheck& result) {
    std::vector<Problem> problems = std::move(tz_.problems);
    problems.insert(problems.end(), tree_.problems.begin(), tree_.problems.end());
    std::stable_sort(problems.begin(), problems.end(),
                     [](const Problem& a, const Problem& b) { return a.at.begin < b.at.begin; });
    site_units_.reserve(tree_.sites.size());
    for (const Site& s : tree_.sites) {
      int u = unit_of(s.span.begin);
      site_units_.push_back(u);
      if (u >= 0) unit_has_site_[u] = true;
    }
    for (Problem& p : problems) consider(p);
    for (size_t i = 0; i < tree_.sites.size(); ++i) fallback(tree_.sites[i], site_units_[i]);
    emit(sink, result);
  }

 private:
  struct Reported {
    Diagnostic diagnostic;
    Span extent;  // line-extended
  };

  void consider(Problem& p) {
    Span lines = line_extended(p.extent);
    int u = unit_of(p.at.begin);
    bool tree_agrees = (u >= 0 && unit_has_site_[u]) || intersects_site(lines);
    if (!p.certain && !tree_agrees) return;
    // An inference inside what an earlier problem spoils is likely its consequence (a stray
    // ')' makes the next line look over-indented).
    if (!p.certain && std::any_of(quarantined_.begin(), quarantined_.end(), [&](Span q) {
          return q.begin <= p.at.begin && p.at.begin < q.end;
        }))
      return;
    if (u >= 0) unit_has_problem_[u] = true;
    std::optional<Span> quarantine;  // inconsistent tabs (RX1013) spoil nothing
    if (p.what.id() != DiagId::RX1013) {
      if (!p.quarantine.empty()) {
        quarantine = p.quarantine;  // a tree-level problem in an otherwise good tree
      } else if (!tree_agrees && !is_indentation(p.what.id())) {
        quarantine = p.extent;
      } else {
        quarantine = spoiled_by(p.at.begin, u, lines);
      }
    }
    int region = top_region(p.at.begin);
    if (region >= 0) region_reports_.push_back({region, p.at.begin});
    if (quarantine) problem_quarantines_.push_back(*quarantine);
    add(make_diagnostic(std::move(p.what), p.at), lines, quarantine);
  }

  // A stray indent or dedent leaves a clean tree (grammar.js `_indented_statements`), but the
  // definition holding it is not what its author meant: it is spoiled like a tree error's.
  static bool is_indentation(DiagId id) { return id == DiagId::RX1007 || id == DiagId::RX1005; }

  // A tree error that no problem explains gets the generic message, unless something was
  // already reported before it in the same top-level item: after a first error, tree-sitter's
  // recovery often produces more ERROR regions (a lost decorator, a class cut short) that are
  // the same problem's. What the lowering says around it is dropped either way.
  void fallback(const Site& site, int u) {
    Span lines = line_extended(site.span);
    quarantined_.push_back(spoiled_by(site.span.begin, u, lines));
    if (u >= 0 && (unit_has_problem_[u] || unit_has_fallback_[u])) return;
    for (const Reported& r : reported_)
      if (overlaps(r.extent, lines)) return;
    int region = top_region(site.span.begin);
    for (auto [r, at] : region_reports_)
      if (r == region && region >= 0 && at <= lines.end) return;
    // The parser's state is disturbed right after a problem: an ERROR that starts at the first
    // token after what a reported problem spoils is that problem's echo.
    auto next = first_token_at(site.span.begin);
    if (next != tz_.tokens.begin()) {
      uint32_t previous_end = std::prev(next)->end;
      for (Span q : problem_quarantines_)
        if (q.begin < previous_end && previous_end <= q.end) return;
    }
    if (u >= 0) unit_has_fallback_[u] = true;
    if (region >= 0) region_reports_.push_back({region, site.span.begin});
    add(describe_site(site), lines, std::nullopt);
  }

  // What a syntax error at `offset` spoils for the lowering: its unit in the tree, and the
  // outermost 'def' around it as the indentation shows it (with its decorators), since a broken
  // tree may have cut the definition in pieces.
  Span spoiled_by(uint32_t offset, int u, Span lines) const {
    Span s = u >= 0 ? join(units_[u], lines) : lines;
    int idx = line_index(offset);
    if (idx < 0) return indentation_suite(s);
    // The line and the lines that enclose it by indentation, innermost first (each the nearest
    // earlier line indented less: parent_line_, so an error costs its depth, not its line).
    int start = idx;
    for (int j = idx; j >= 0; j = parent_line_[j]) {
      const LogicalLine& l = tz_.lines[j];
      std::string_view first = token_text(tz_.tokens[l.first]);
      if (first == "def") start = j;
      if (first == "class" || l.column == 0) break;
    }
    while (start > 0 && tz_.lines[start - 1].column == tz_.lines[start].column &&
           token_text(tz_.tokens[tz_.lines[start - 1].first]) == "@")
      --start;
    int last = idx;  // a decorator spoils the definition it decorates
    while (last + 1 < int(tz_.lines.size()) &&
           token_text(tz_.tokens[tz_.lines[last].first]) == "@" &&
           tz_.lines[last + 1].column == tz_.lines[last].column)
      ++last;
    s = join(s, {tz_.lines[start].line_start, tz_.lines[last].end});
    return indentation_suite(s);
  }

  // Logical lines split into top-level items at column 0 (a decorator line joins the next).
  void collect_regions() {
    int region = -1;
    for (size_t i = 0; i < tz_.lines.size(); ++i) {
      bool after_decorator = i > 0 && tz_.lines[i - 1].column == 0 &&
                             token_text(tz_.tokens[tz_.lines[i - 1].first]) == "@";
      if (i == 0 || (tz_.lines[i].column == 0 && !after_decorator)) ++region;
      region_of_line_.push_back(region);
    }
  }

  int line_index(uint32_t offset) const {
    auto it = std::upper_bound(tz_.lines.begin(), tz_.lines.end(), offset,
                               [](uint32_t o, const LogicalLine& l) { return o < l.line_start; });
    return int(it - tz_.lines.begin()) - 1;
  }

  int top_region(uint32_t offset) const {
    int idx = line_index(offset);
    return idx < 0 ? -1 : region_of_line_[idx];
  }

  std::string_view token_text(const Token& t) const {
    return text_.substr(t.begin, t.end - t.begin);
  }

  Diagnostic describe_site(const Site& site) const {
    if (site.type == Site::Missing) {
      std::string_view token = ts_node_type(site.node);
      if (token == ":")
        if (const char* context = colon_context(site.parent))
          return make_diagnostic(diag::ExpectedColon{.context = context}, site.span);
      return make_diagnostic(diag::MissingToken{.what = describe_missing(token, site.parent)},
                             site.span);
    }
    // The parser gave up at the first token of an ERROR region; for a missing hidden token, at
    // the token after the node.
    uint32_t at = site.type == Site::Error ? site.span.begin : site.span.end;
    if (site.type == Site::Error && only_complete_children(site.node)) {
      // `y = 1 2`: the parser wrapped the good '1' in the ERROR; the culprit follows it.
      uint32_t end = site.span.end;
      auto next = first_token_at(end);
      if (next != tz_.tokens.end() && !has_newline(end, next->begin)) at = end;
    }
    auto it = first_token_at(at);
    if (it == tz_.tokens.end()) {
      tz_.open_at_end = true;  // a window cannot tell what follows it
      uint32_t n = uint32_t(text_.size());
      return make_diagnostic(diag::UnexpectedToken{.token = "end of file"}, {n, n});
    }
    std::string_view token = text_.substr(it->begin, it->end - it->begin);
    return make_diagnostic(diag::UnexpectedToken{.token = describe_token(token)},
                           {it->begin, it->end});
  }

  std::vector<Token>::const_iterator first_token_at(uint32_t offset) const {
    return std::lower_bound(tz_.tokens.begin(), tz_.tokens.end(), offset,
                            [](const Token& t, uint32_t o) { return t.begin < o; });
  }

  bool has_newline(uint32_t begin, uint32_t end) const {
    return text_.substr(begin, end - begin).find('\n') != std::string_view::npos;
  }

  static bool only_complete_children(TSNode error) {
    uint32_t count = ts_node_child_count(error);
    if (count != 1) return false;  // `with R.dataflow() as d`: the first token is the culprit
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_child(error, i);
      if (!ts_node_is_named(child) || cst::is_error(child) || ts_node_has_error(child))
        return false;
    }
    return true;
  }

  void add(Diagnostic d, Span extent, std::optional<Span> quarantine) {
    if (quarantine) quarantined_.push_back(*quarantine);
    reported_.push_back({std::move(d), extent});
  }

  void emit(DiagnosticSink& sink, SyntaxCheck& result) {
    std::stable_sort(reported_.begin(), reported_.end(), [](const Reported& a, const Reported& b) {
      return a.diagnostic.span.begin < b.diagnostic.span.begin;
    });
    size_t errors = 0;
    for (Reported& r : reported_) {
      if (r.diagnostic.severity == Severity::Error && ++errors > kMaxSyntaxErrors) {
        sink.report(make_diagnostic(diag::TooManySyntaxErrors{}, r.diagnostic.span));
        // Nothing after this point is checked: lowering diagnostics there are noise too.
        quarantined_.push_back({r.diagnostic.span.begin, uint32_t(text_.size()) + 1});
        break;
      }
      sink.report(std::move(r.diagnostic));
    }
    result.quarantined = std::move(quarantined_);
  }

  // Units are the definitions a syntax error spoils: the top-level statements, and the
  // members of a class (plus the class header).
  void collect_units(const std::vector<TSNode>& top) {
    for (TSNode child : top) {
      Kind kind = cst_.kind(child);
      if (kind == Kind::comment) continue;
      TSNode body = (kind == Kind::module_class || kind == Kind::class_definition)
                        ? cst_.field(child, Field::body)
                        : TSNode{};
      if (ts_node_is_null(body)) {
        units_.push_back(cst_.span(child));
        continue;
      }
      units_.push_back({ts_node_start_byte(child), ts_node_start_byte(body)});
      for (TSNode member : children(body))
        if (cst_.kind(member) != Kind::comment) units_.push_back(cst_.span(member));
    }
    unit_has_site_.assign(units_.size(), false);
    unit_has_problem_.assign(units_.size(), false);
    unit_has_fallback_.assign(units_.size(), false);
  }

  int unit_of(uint32_t offset) const {
    auto it = std::upper_bound(units_.begin(), units_.end(), offset,
                               [](uint32_t o, const Span& s) { return o < s.begin; });
    if (it == units_.begin()) return -1;
    --it;
    if (offset >= it->end && !(it->empty() && offset == it->begin)) return -1;
    return int(it - units_.begin());
  }

  bool intersects_site(Span lines) const {
    // Sites are disjoint and in document order.
    auto it = std::lower_bound(tree_.sites.begin(), tree_.sites.end(), lines.begin,
                               [](const Site& s, uint32_t o) { return s.span.end < o; });
    return it != tree_.sites.end() && it->span.begin <= lines.end;
  }

  static bool overlaps(Span a, Span b) { return a.begin <= b.end && b.begin <= a.end; }
  static Span join(Span a, Span b) { return {std::min(a.begin, b.begin), std::max(a.end, b.end)}; }

  // From the start of the first line to the end of the last line of `s`.
  Span line_extended(Span s) const {
    uint32_t begin = std::min<uint32_t>(s.begin, uint32_t(text_.size()));
    while (begin > 0 && text_[begin - 1] != '\n') --begin;
    uint32_t end = std::max(s.end, s.begin);
    while (end < text_.size() && text_[end] != '\n') ++end;
    return {begin, end};
  }

  // Extends `s` over the following logical lines indented deeper than its first line: what
  // the indentation says belongs to the same definition, whatever the broken tree says.
  Span indentation_suite(Span s) const {
    const auto& lines = tz_.lines;
    auto by_start = [](uint32_t o, const LogicalLine& l) { return o < l.line_start; };
    auto it = std::upper_bound(lines.begin(), lines.end(), s.begin, by_start);
    if (it == lines.begin()) return s;
    uint32_t column = std::prev(it)->column;
    // From the first line at or after s.end, the run of lines indented deeper than `column`
    // extends the suite: found by jumping over blocks whose least column is deeper (the sparse
    // table column_min_), so that every error does not walk the rest of the file.
    size_t j =
        size_t(std::lower_bound(it, lines.end(), s.end,
                                [](const LogicalLine& l, uint32_t o) { return l.line_start < o; }) -
               lines.begin());
    size_t first = j;
    for (size_t level = column_min_.size(); level-- > 0;) {
      size_t width = size_t(1) << level;
      if (j + width <= lines.size() && column_min_[level][j] > column) j += width;
    }
    if (j > first) s.end = std::max(s.end, lines[j - 1].end);
    return s;
  }

  // parent_line_[i]: the nearest earlier logical line indented less than line i (-1: none);
  // column_min_[k][i]: the least column of lines [i, i + 2^k).
  void index_indentation() {
    const auto& lines = tz_.lines;
    parent_line_.assign(lines.size(), -1);
    std::vector<int> open;  // lines of strictly increasing column
    for (size_t i = 0; i < lines.size(); ++i) {
      while (!open.empty() && lines[size_t(open.back())].column >= lines[i].column) open.pop_back();
      parent_line_[i] = open.empty() ? -1 : open.back();
      open.push_back(int(i));
    }
    column_min_.clear();
    if (lines.empty()) return;
    column_min_.emplace_back();
    for (const LogicalLine& l : lines) column_min_[0].push_back(l.column);
    for (size_t width = 2; width <= lines.size(); width *= 2) {
      const std::vector<uint32_t>& half = column_min_.back();
      std::vector<uint32_t> next(lines.size() - width + 1);
      for (size_t i = 0; i < next.size(); ++i) next[i] = std::min(half[i], half[i + width / 2]);
      column_min_.push_back(std::move(next));
    }
  }

  const cst::Cst& cst_;
  std::string_view text_;
  Tokens& tz_;
  const TreeFindings& tree_;
  std::vector<Span> units_;  // sorted, disjoint
  std::vector<int> site_units_;
  std::vector<bool> unit_has_site_, unit_has_problem_, unit_has_fallback_;
  std::vector<Reported> reported_;
  std::vector<int> region_of_line_;
  std::vector<Span> problem_quarantines_;  // of the reported problems (not of tree errors)
  std::vector<std::pair<int, uint32_t>> region_reports_;  // (top-level item, offset) reported
  std::vector<Span> quarantined_;
  std::vector<int> parent_line_;
  std::vector<std::vector<uint32_t>> column_min_;
};

}  // namespace

void combine(const cst::Cst& cst, const std::vector<TSNode>& units, Tokens& tokens,
             const TreeFindings& tree, DiagnosticSink& sink, SyntaxCheck& result) {
  Combiner(cst, units, tokens, tree).run(sink, result);
}

}  // namespace raxc::frontend::syntax
