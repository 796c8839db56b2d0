#include "frontend/document.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "frontend/frontend.h"
#include "frontend/lower/cst.h"
#include "frontend/lower/lower.h"
#include "frontend/syntax.h"

namespace raxc::frontend {
namespace {

// IR offsets are 32-bit; when the ranges handed out to re-lowered definitions come near the
// top, the next update lowers everything again from text offsets.
constexpr uint32_t kIrOffsetLimit = 0xC0000000u;

TSPoint advance_point(TSPoint start, std::string_view inserted) {
  for (char c : inserted) {
    if (c == '\n') {
      ++start.row;
      start.column = 0;
    } else {
      ++start.column;
    }
  }
  return start;
}

// The globals whose declaration facts differ between two outlines (added, removed or changed).
std::vector<std::string> changed_names(const std::vector<lower::DeclaredStatement>& before,
                                       const std::vector<lower::DeclaredStatement>& after) {
  auto same = [](const lower::DeclaredStatement& a, const lower::DeclaredStatement& b) {
    return a.name == b.name && a.facts == b.facts;
  };
  // The usual case, a keystroke that changed no signature: the same globals in the same order.
  if (std::equal(before.begin(), before.end(), after.begin(), after.end(), same)) return {};
  std::unordered_map<std::string_view, lower::DeclarationFacts> was;
  for (const auto& d : before) was.emplace(d.name, d.facts);
  std::vector<std::string> changed;
  for (const auto& d : after) {
    auto it = was.find(d.name);
    if (it == was.end() || it->second != d.facts) changed.push_back(d.name);
    if (it != was.end()) was.erase(it);
  }
  for (const auto& [name, facts] : was) changed.emplace_back(name);
  return changed;
}

// Whether two syntax trees of one text have the same nodes (kind and extent, in order).
// ts_tree_get_changed_ranges is no help here: it does not look inside ERROR nodes, where two
// recoveries differ.
bool same_shape(TSNode a, TSNode b) {
  TSTreeCursor x = ts_tree_cursor_new(a), y = ts_tree_cursor_new(b);
  bool same = true;
  for (;;) {
    TSNode m = ts_tree_cursor_current_node(&x), n = ts_tree_cursor_current_node(&y);
    if (ts_node_symbol(m) != ts_node_symbol(n) || ts_node_start_byte(m) != ts_node_start_byte(n) ||
        ts_node_end_byte(m) != ts_node_end_byte(n) ||
        ts_node_child_count(m) != ts_node_child_count(n)) {
      same = false;
      break;
    }
    if (ts_tree_cursor_goto_first_child(&x)) {
      ts_tree_cursor_goto_first_child(&y);
      continue;
    }
    bool more = false;
    while (!(more = ts_tree_cursor_goto_next_sibling(&x))) {
      if (!ts_tree_cursor_goto_parent(&x)) break;
      ts_tree_cursor_goto_parent(&y);
    }
    if (!more) break;
    ts_tree_cursor_goto_next_sibling(&y);
  }
  ts_tree_cursor_delete(&x);
  ts_tree_cursor_delete(&y);
  return same;
}

// Where the text changed since the last update: [begin, end) in current offsets holds every
// byte an edit wrote or moved into place; the text before `begin` is as it was, and the text
// from `end` on is what was at `end - shift` (`shift`: how much the text grew). A definition
// outside the range kept its text, so matching it to its old lowering and syntax check needs
// no comparison of texts: a keystroke costs no pass over the whole file.
class EditedRange {
 public:
  void add(uint32_t begin, uint32_t end, uint32_t inserted) {
    int64_t growth = int64_t(inserted) - int64_t(end - begin);
    if (!any_) {
      begin_ = begin;
      end_ = begin + inserted;
    } else {
      auto moved = [&](uint32_t at, uint32_t inside) {
        return at < begin ? at : at >= end ? uint32_t(at + growth) : inside;
      };
      begin_ = std::min(moved(begin_, begin), begin);
      end_ = std::max(moved(end_, begin + inserted), begin + inserted);
    }
    shift_ += growth;
    any_ = true;
  }
  void reset() { *this = {}; }
  bool any() const { return any_; }
  uint32_t begin() const { return begin_; }  // valid when any()
  uint32_t end() const { return end_; }

  // True when the text [begin, end) was there before the edits, at old_offset(begin).
  bool unchanged(uint32_t begin, uint32_t end) const {
    return !any_ || end <= begin_ || begin >= end_;
  }
  uint32_t old_offset(uint32_t at) const {
    return any_ && at >= end_ ? uint32_t(int64_t(at) - shift_) : at;
  }

 private:
  bool any_ = false;
  uint32_t begin_ = 0, end_ = 0;
  int64_t shift_ = 0;
};

// The entries of a list (the last update's definitions or syntax checks) whose text has a given
// length, for finding one that moved. A keystroke misses one definition at its old index: a
// scan of the lengths costs it about 5 instructions a definition, where hashing every length
// into an index cost 150 (and 0.1 ms on the 20,537-line module). After kScans lookups (many
// definitions moved: a pasted block), the index is built, so that lookups stay linear in all.
class ByLength {
 public:
  // length_of(i): the length of entry i, or SIZE_MAX for none.
  ByLength(size_t count, std::function<size_t(size_t)> length_of)
      : count_(count), length_of_(std::move(length_of)) {}

  // Calls visit(i) for every entry i of that length, in increasing order, until it returns
  // true.
  template <typename Visit>
  void find(size_t length, const Visit& visit) {
    if (scans_ < kScans) {
      ++scans_;
      for (size_t i = 0; i < count_; ++i)
        if (length_of_(i) == length && visit(i)) return;
      return;
    }
    if (index_.empty())
      for (size_t i = 0; i < count_; ++i)
        if (size_t n = length_of_(i); n != SIZE_MAX) index_[n].push_back(i);
    if (auto it = index_.find(length); it != index_.end())
      for (size_t i : it->second)
        if (visit(i)) return;
  }

 private:
  static constexpr int kScans = 8;
  size_t count_;
  std::function<size_t(size_t)> length_of_;
  int scans_ = 0;
  std::unordered_map<size_t, std::vector<size_t>> index_;
};

}  // namespace

struct Document::Impl {
  std::string text;
  TreePtr tree;
  SyntaxCheck syntax;
  std::vector<Diagnostic> syntax_diagnostics;
  std::vector<Diagnostic> header_diagnostics;
  std::vector<printer::Comment> comments;
  std::shared_ptr<ir::IRModule> header;  // module-level IR, no globals
  lower::HeaderKey header_key;
  std::vector<std::shared_ptr<Definition>> definitions;
  ir::IRModule module;
  uint32_t next_ir_offset = 0;
  uint64_t next_id = 1;
  LoweringStats stats;
  bool moved_or_relowered = false;
  // Syntax checking, incremental per definition: each definition's check is kept with its
  // text (check_definition_syntax), and when the rest of the file is as the last whole-file
  // check left it, the file's result is its definitions' results put together; otherwise the
  // whole file is checked again (see try_composed_syntax_check for when that is exact).
  struct SyntaxWindow {
    std::string text;
    uint32_t begin = 0;  // where it was checked
    uint32_t column = 0;
    uint32_t row = 0;
    bool has_error = false;
    DefinitionSyntax syntax;
    uint32_t at = 0;  // where it stood after update number `seen`
    uint64_t seen = 0;
  };
  std::vector<std::shared_ptr<SyntaxWindow>> windows;  // of the last update's definitions
  std::vector<TSNode> definition_nodes;  // the last outline's (valid until the next edit)
  std::string gaps;         // the text outside definitions at the last whole-file check
  bool gaps_clean = false;  // ... which reported nothing outside definitions
  bool comments_stale = false;
  size_t full_syntax_checks = 0;
  // How many more levels the text's brackets may nest before parse_tree must hide some from
  // tree-sitter: kMaxBracketDepth less the depth the last scan found, less every bracket an edit
  // inserted or removed since (each moves the depth of the text after it by at most one level).
  // Negative: scan again. Spares a keystroke the scan of the whole text.
  int nesting_headroom = -1;
  uint32_t row_known_at = 0, known_row = 0;  // point_at: the row of offset row_known_at
  EditedRange edited;                        // since the last update
  lower::ModuleOutline declared;             // the last outline's declarations (OutlineReuse)
  uint64_t updates = 0;
  bool tree_from_scratch = false;  // the tree was parsed without an old tree (settle)

  void edit(const TextEdit& e) {
    uint32_t size = uint32_t(text.size());
    uint32_t begin = std::min(e.begin, size);
    uint32_t end = std::clamp(e.end, begin, size);
    TSInputEdit input{};
    input.start_byte = begin;
    input.old_end_byte = end;
    input.new_end_byte = begin + uint32_t(e.text.size());
    input.start_point = point_at(begin);
    input.old_end_point = advance_point(input.start_point, text_between(begin, end));
    input.new_end_point = advance_point(input.start_point, e.text);
    nesting_headroom = std::max(
        -1, nesting_headroom - brackets_in(text_between(begin, end)) - brackets_in(e.text));
    text.replace(begin, end - begin, e.text);
    edited.add(begin, end, uint32_t(e.text.size()));
    if (tree) ts_tree_edit(tree.get(), &input);
  }

  // The row and column of `offset`, counted from the offset asked about last: the text before
  // an edit's start is left as it was, and edits come close together (a keystroke counts the
  // lines it moved over, not every line above it).
  TSPoint point_at(uint32_t offset) {
    const char* data = text.data();
    auto newlines = [&](uint32_t from, uint32_t to) {
      return uint32_t(std::count(data + from, data + to, '\n'));
    };
    if (offset >= row_known_at)
      known_row += newlines(row_known_at, offset);
    else
      known_row -= newlines(offset, row_known_at);
    row_known_at = offset;
    const void* newline = offset ? memrchr(data, '\n', offset) : nullptr;
    uint32_t line_start = newline ? uint32_t(static_cast<const char*>(newline) - data) + 1 : 0;
    return TSPoint{known_row, offset - line_start};
  }

  std::string_view text_between(uint32_t begin, uint32_t end) const {
    return std::string_view(text).substr(begin, end - begin);
  }

  static int brackets_in(std::string_view s) {  // at most kMaxBracketDepth + 1
    size_t count = 0;
    for (char c : s) count += c == '(' || c == '[' || c == '{' || c == ')' || c == ']' || c == '}';
    return int(std::min<size_t>(count, kMaxBracketDepth + 1));
  }

  // Parses the edited text (re-using the old tree) unless `parsed` is given, and lowers it.
  void update(TreePtr parsed = nullptr) {
    ++updates;
    if (nesting_headroom < 0) nesting_headroom = kMaxBracketDepth - bracket_depth(text);
    tree_from_scratch = parsed || !tree;
    tree = parsed ? std::move(parsed) : parse_tree(text, tree.get(), nesting_headroom >= 0);
    cst::Cst cst(text);
    TSNode root = ts_tree_root_node(tree.get());
    stats = {};
    run_with_large_stack([&] {
      DiagnosticSink header_sink;
      lower::OutlineReuse reuse{
          &declared, [&](uint32_t begin, uint32_t end) { return edited.unchanged(begin, end); },
          [&](uint32_t at) { return edited.old_offset(at); }};
      lower::ModuleOutline outline;
      std::vector<lower::DeclaredStatement> declared_before;
      std::vector<std::shared_ptr<Definition>> reused;
      std::string new_gaps;
      // The edited definition's syntax check does not need the outline: on the second core it
      // costs a keystroke nothing (try_composed_syntax_check takes it when the outline agrees).
      auto read_outline = [&] {
        outline = lower::lower_outline(cst, root, header_sink, &reuse);
        declared_before = std::exchange(declared.declared, std::move(outline.declared));
        declared.declared_under = std::move(outline.declared_under);
        declared.scope = outline.scope;
        stats.declarations_reused = outline.declarations_reused;
        stats.scope_shared = outline.scope_shared;
        reused = match_definitions(outline, cst);
        new_gaps = gaps_of(outline, cst);
        definition_nodes = outline.definitions;
      };
      TSNode edited_definition = definition_around_edits(root, cst);
      std::optional<DefinitionSyntax> checked_early;
      if (ts_node_is_null(edited_definition))
        read_outline();
      else
        run_side_by_side([&] { checked_early = check_definition_syntax(cst, edited_definition); },
                         read_outline);
      EarlyCheck early{edited_definition, checked_early ? &*checked_early : nullptr};
      bool composed =
          new_gaps == gaps && gaps_clean && try_composed_syntax_check(root, outline, cst, early);
      stats.full_syntax_check = !composed;
      if (!composed) {
        run_side_by_side([&] { fill_windows(cst); },
                         [&] { full_syntax_check(cst, root, outline); });
        gaps = std::move(new_gaps);
      }
      if (!syntax.lowerable) {
        definitions.clear();
        header.reset();
        header_key = {};
        header_diagnostics.clear();
        module = ir::IRModule();
        stats.full = true;
        return;
      }
      header_diagnostics = header_sink.take();
      lower(cst, outline, std::move(reused), declared_before);
    });
    edited.reset();
  }

  bool settled() const {
    return tree_from_scratch || !ts_node_has_error(ts_tree_root_node(tree.get()));
  }

  bool settle() {
    if (settled()) return false;
    TreePtr fresh = parse_tree(text, nullptr, nesting_headroom >= 0);
    if (same_shape(ts_tree_root_node(tree.get()), ts_tree_root_node(fresh.get())))
      return relower_broken_definitions(std::move(fresh));
    // Nothing of the old state is kept: its definitions, syntax windows and outline were read
    // from the other tree, and a definition's text alone does not say which tree it came from.
    definitions.clear();
    windows.clear();
    gaps.clear();
    gaps_clean = false;
    declared = {};
    header.reset();
    edited.reset();
    update(std::move(fresh));
    return true;
  }

  // The tree is what a fresh parse gives, but a definition with errors in it may have been read
  // from an earlier tree: its text has not changed since, so later updates kept its lowering,
  // syntax check and declaration, and that tree's recovery may have read it otherwise (a broken
  // line as an error statement there, as an expression here). Those definitions are read again
  // from `fresh`; the others read the same from any tree.
  bool relower_broken_definitions(TreePtr fresh) {
    tree_from_scratch = true;
    TSNode root = ts_tree_root_node(fresh.get());
    auto broken = [&](uint32_t begin, uint32_t end) {
      return ts_node_has_error(ts_node_descendant_for_byte_range(root, begin, end));
    };
    std::optional<Span> dropped;
    std::erase_if(definitions, [&](const std::shared_ptr<Definition>& def) {
      Span s = def->text_span();
      if (!broken(s.begin, s.end)) return false;
      dropped = dropped ? Span{dropped->begin, s.end} : s;
      return true;
    });
    std::erase_if(windows,
                  [](const std::shared_ptr<SyntaxWindow>& w) { return w && w->has_error; });
    if (!dropped) return false;
    edited.add(dropped->begin, dropped->end, dropped->end - dropped->begin);
    update(std::move(fresh));
    return true;
  }

  void full_syntax_check(const cst::Cst& cst, TSNode root, const lower::ModuleOutline& outline) {
    DiagnosticSink sink;
    comments.clear();
    syntax = check_syntax(cst, root, sink, comments);
    syntax_diagnostics = sink.take();
    gaps_clean =
        syntax.lowerable &&
        std::all_of(syntax_diagnostics.begin(), syntax_diagnostics.end(),
                    [&](const Diagnostic& d) { return inside_definition(outline, d.span.begin); });
    comments_stale = false;
    ++full_syntax_checks;
  }

  // Whether `offset` lies in a definition after its first byte: what is reported at a
  // definition's first byte (its line's indentation against the lines before it) depends on the
  // text outside it, which its own check does not see.
  static bool inside_definition(const lower::ModuleOutline& outline, uint32_t offset) {
    auto it =
        std::upper_bound(outline.definitions.begin(), outline.definitions.end(), offset,
                         [](uint32_t at, TSNode def) { return at <= ts_node_start_byte(def); });
    return it != outline.definitions.begin() && offset <= ts_node_end_byte(*std::prev(it));
  }

  // The file's syntax check put together from its definitions' checks, each reused when its
  // text, indentation and tree errors are as when it was checked. Exact (the whole-file check
  // would report the same; test/unit/syntax_incremental_test.cpp replays edits to hold it to
  // that) when the text between definitions is as the last whole-file check saw it and reported
  // nothing in (the caller checks), the tree has no error outside the definitions, every
  // definition's check is composable (nothing left open at its end), and at most one
  // definition has a diagnostic (the whole-file check lets one item's report silence another's
  // in the same class). Returns false, changing nothing, when it is not.
  // The function or PrimFunc the edits since the last update fell in, found from the tree alone
  // (the outermost one around the edited range), or a null node.
  TSNode definition_around_edits(TSNode root, const cst::Cst& cst) const {
    if (!edited.any()) return TSNode{};
    TSNode node = root;
    for (;;) {
      if (cst.is(node, cst::Kind::relax_function) || cst.is(node, cst::Kind::prim_function)) {
        uint32_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
        return begin <= edited.begin() && edited.end() <= end ? node : TSNode{};
      }
      TSNode child = ts_node_first_named_child_for_byte(node, edited.begin());
      if (ts_node_is_null(child) || ts_node_start_byte(child) > edited.begin()) return TSNode{};
      node = child;
    }
  }

  // A definition's syntax check made before the outline was known (definition_around_edits).
  struct EarlyCheck {
    TSNode node;
    const DefinitionSyntax* syntax = nullptr;
    bool is_for(TSNode n) const { return syntax && ts_node_eq(node, n); }
  };

  // Definition `node`'s own syntax check (the one run beside the outline, if it was for it).
  std::shared_ptr<SyntaxWindow> checked_window(const cst::Cst& cst, TSNode node,
                                               const EarlyCheck& early) {
    auto w = std::make_shared<SyntaxWindow>();
    TSPoint start = ts_node_start_point(node);
    w->text = std::string(cst.text(node));
    w->column = start.column;
    w->row = start.row;
    w->has_error = ts_node_has_error(node);
    w->begin = ts_node_start_byte(node);
    bool beside = early.is_for(node);
    w->syntax = beside ? *early.syntax : check_definition_syntax(cst, node);
    stats.syntax_checked_beside |= beside;
    ++stats.definitions_syntax_checked;
    return w;
  }

  // Whether `w`, checked in an earlier update, is `node`'s check: the same text, indentation and
  // tree errors (and row, when its diagnostics name lines).
  bool window_fits(const std::shared_ptr<SyntaxWindow>& w, TSNode node, const cst::Cst& cst) const {
    if (!w) return false;
    TSPoint start = ts_node_start_point(node);
    uint32_t was_at = w->seen + 1 == updates ? w->at : UINT32_MAX;
    return same_text(w->text, was_at, cst.text(node), ts_node_start_byte(node)) &&
           w->column == start.column && w->has_error == ts_node_has_error(node) &&
           (!w->syntax.names_lines || w->row == start.row);
  }

  // Gives every definition of this update (definition_nodes) that has none its own syntax
  // check, for the next keystroke to compose the file's check from. Runs beside the whole-file
  // check, on the second core: after opening a file none has one, and the first keystroke
  // checked all of them (970 M instructions, about 250 ms, on the 20,537-line module).
  void fill_windows(const cst::Cst& cst) {
    std::vector<std::shared_ptr<SyntaxWindow>> next(definition_nodes.size());
    WindowFinder finder(*this, cst);
    for (size_t k = 0; k < next.size(); ++k) {
      TSNode node = definition_nodes[k];
      bool current = k < windows.size() && windows[k] && windows[k]->seen == updates;
      next[k] = current ? windows[k] : finder.find(k, node);
      if (!next[k]) next[k] = checked_window(cst, node, EarlyCheck{});
      next[k]->at = ts_node_start_byte(node);
      next[k]->seen = updates;
    }
    // The last update's checks of definitions this outline lacks (a line typed left of a
    // definition's column can end the class early) stay one more update, for the keystroke
    // that undoes it.
    std::unordered_set<const SyntaxWindow*> used;
    for (const auto& w : next) used.insert(w.get());
    for (auto& w : windows)
      if (w && w->seen + 1 >= updates && !used.count(w.get())) next.push_back(std::move(w));
    windows = std::move(next);
  }

  // Finds the last update's check of a definition: at its index, else one of the same text
  // elsewhere (texts that moved are found by length first: hashing every definition's text
  // would cost a pass over the whole file per keystroke).
  class WindowFinder {
   public:
    WindowFinder(const Impl& doc, const cst::Cst& cst)
        : doc_(doc), cst_(cst), by_length_(doc.windows.size(), [&windows = doc.windows](size_t i) {
            return windows[i] ? windows[i]->text.size() : SIZE_MAX;
          }) {}
    std::shared_ptr<SyntaxWindow> find(size_t k, TSNode node) {
      const auto& windows = doc_.windows;
      if (k < windows.size() && doc_.window_fits(windows[k], node, cst_)) return windows[k];
      std::shared_ptr<SyntaxWindow> found;  // the last that fits
      by_length_.find(cst_.text(node).size(), [&](size_t i) {
        if (doc_.window_fits(windows[i], node, cst_)) found = windows[i];
        return false;
      });
      return found;
    }

   private:
    const Impl& doc_;
    const cst::Cst& cst_;
    ByLength by_length_;
  };

  bool try_composed_syntax_check(TSNode root, const lower::ModuleOutline& outline,
                                 const cst::Cst& cst, const EarlyCheck& early) {
    if (error_outside_definitions(root, outline)) return false;
    std::vector<std::shared_ptr<SyntaxWindow>> next(outline.definitions.size());
    WindowFinder finder(*this, cst);
    int with_diagnostics = -1;
    for (size_t k = 0; k < outline.definitions.size(); ++k) {
      TSNode node = outline.definitions[k];
      next[k] = finder.find(k, node);
      if (!next[k]) next[k] = checked_window(cst, node, early);
      next[k]->at = ts_node_start_byte(node);
      next[k]->seen = updates;
      const DefinitionSyntax& ds = next[k]->syntax;
      bool reports =
          !ds.diagnostics.empty() || !ds.check.quarantined.empty() || !ds.check.lowerable;
      if (!ds.composable || (reports && with_diagnostics >= 0)) {
        // Keep what was checked, and the rest as it was, for the next try.
        for (size_t i = k + 1; i < next.size() && i < windows.size(); ++i) next[i] = windows[i];
        windows = std::move(next);
        return false;
      }
      if (reports) with_diagnostics = int(k);
    }
    windows = std::move(next);
    // The whole-file check extends what an error spoils over the deeper-indented lines after
    // it, which a definition's check cannot see: code after it (not in a definition) is
    // left to the whole-file check.
    if (with_diagnostics >= 0 && code_follows(outline, cst, size_t(with_diagnostics))) return false;
    syntax = {};
    syntax_diagnostics.clear();
    comments_stale = true;
    if (with_diagnostics < 0) return true;
    TSNode node = outline.definitions[with_diagnostics];
    const SyntaxWindow& w = *windows[with_diagnostics];
    int64_t shift = int64_t(ts_node_start_byte(node)) - int64_t(w.begin);
    auto moved = [&](Span s) { return Span{uint32_t(s.begin + shift), uint32_t(s.end + shift)}; };
    syntax.lowerable = w.syntax.check.lowerable;
    for (Span q : w.syntax.check.quarantined) syntax.quarantined.push_back(moved(q));
    for (Diagnostic d : w.syntax.diagnostics) {
      d.span = moved(d.span);
      for (RelatedInfo& r : d.related) r.span = moved(r.span);
      syntax_diagnostics.push_back(std::move(d));
    }
    return true;
  }

  // Whether anything but blank lines and comments lies between definition `k` and the next
  // one (or the end of the text).
  static bool code_follows(const lower::ModuleOutline& outline, const cst::Cst& cst, size_t k) {
    std::string_view text = cst.source();
    size_t at = ts_node_end_byte(outline.definitions[k]);
    size_t end = k + 1 < outline.definitions.size() ? ts_node_start_byte(outline.definitions[k + 1])
                                                    : text.size();
    while (at < end) {
      char c = text[at];
      if (c == '#') {
        size_t nl = text.find('\n', at);
        at = nl == std::string_view::npos ? end : nl;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        ++at;
      } else {
        return true;
      }
    }
    return false;
  }

  // An error in the tree that no definition holds (the module class's header, an import, a
  // duplicate definition): only the whole-file check knows what to say.
  static bool error_outside_definitions(TSNode root, const lower::ModuleOutline& outline) {
    if (!ts_node_has_error(root)) return false;
    std::unordered_set<const void*> defs;
    for (TSNode d : outline.definitions) defs.insert(d.id);
    // Depth-first over the nodes around the definitions, not into them.
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
      TSNode node = stack.back();
      stack.pop_back();
      if (defs.count(node.id) || !ts_node_has_error(node)) continue;
      if (cst::is_error(node) || ts_node_is_missing(node)) return true;
      uint32_t count = ts_node_child_count(node);
      for (uint32_t i = 0; i < count; ++i) stack.push_back(ts_node_child(node, i));
    }
    return false;
  }

  void refresh_comments() {
    if (!comments_stale || !tree) return;
    cst::Cst cst(text);
    DiagnosticSink ignored;
    comments.clear();
    check_syntax(cst, ts_tree_root_node(tree.get()), ignored, comments);
    comments_stale = false;
  }

  static std::string gaps_of(const lower::ModuleOutline& outline, const cst::Cst& cst) {
    std::string out;
    std::string_view source = cst.source();
    uint32_t at = 0;
    for (TSNode def : outline.definitions) {
      uint32_t begin = ts_node_start_byte(def);
      if (begin >= at) out.append(source.substr(at, begin - at));
      out += '\x01';
      at = std::max(at, ts_node_end_byte(def));
    }
    if (at < source.size()) out.append(source.substr(at));
    return out;
  }

  // Whether `old_text`, which stood at `old_begin` before the edits, is the text `now` at
  // `begin`: known from the edited range alone when the edits left that text alone.
  bool same_text(std::string_view old_text, uint32_t old_begin, std::string_view now,
                 uint32_t begin) const {
    if (old_text.size() != now.size()) return false;
    if (edited.unchanged(begin, begin + uint32_t(now.size())) &&
        edited.old_offset(begin) == old_begin)
      return true;
    return old_text == now;
  }

  // For each definition of `outline`, the old Definition with the same text (null: none). The
  // same position in the list is tried first (the common case: an edit inside one definition).
  std::vector<std::shared_ptr<Definition>> match_definitions(const lower::ModuleOutline& outline,
                                                             const cst::Cst& cst) {
    std::vector<std::shared_ptr<Definition>> out(outline.definitions.size());
    std::vector<bool> taken(definitions.size(), false);
    ByLength by_length(definitions.size(), [&](size_t i) { return definitions[i]->text.size(); });
    for (size_t k = 0; k < outline.definitions.size(); ++k) {
      std::string_view node_text = cst.text(outline.definitions[k]);
      uint32_t begin = ts_node_start_byte(outline.definitions[k]);
      if (k < definitions.size() && !taken[k] &&
          same_text(definitions[k]->text, definitions[k]->begin, node_text, begin)) {
        out[k] = definitions[k];
        taken[k] = true;
        continue;
      }
      by_length.find(node_text.size(), [&](size_t i) {
        if (taken[i] || definitions[i]->text != node_text) return false;
        out[k] = definitions[i];
        taken[i] = true;
        return true;
      });
    }
    return out;
  }

  // `declared_before`: the declarations the reused definitions were lowered with.
  void lower(const cst::Cst& cst, lower::ModuleOutline& outline,
             std::vector<std::shared_ptr<Definition>> reused,
             const std::vector<lower::DeclaredStatement>& declared_before) {
    bool full = !header || outline.header_key != header_key ||
                next_ir_offset > kIrOffsetLimit - uint32_t(text.size());
    std::vector<std::string> changed;
    if (!full) changed = changed_names(declared_before, declared.declared);
    if (full) {
      header = std::shared_ptr<ir::IRModule>(std::move(outline.module));
      header_key = outline.header_key;
      next_ir_offset = uint32_t(text.size()) + 1;
      moved_or_relowered = false;
    }
    stats.full = full;

    // A reused definition must not mention a global whose declaration changed: its lowering
    // asked about it.
    auto reusable = [&](const std::shared_ptr<Definition>& old) {
      if (full || !old) return false;
      for (const std::string& name : changed)
        if (old->text.find(name) != std::string::npos) return false;
      return true;
    };
    definitions.clear();
    for (size_t k = 0; k < outline.definitions.size(); ++k) {
      TSNode node = outline.definitions[k];
      std::string_view node_text = cst.text(node);
      uint32_t begin = ts_node_start_byte(node);
      std::shared_ptr<Definition> found = reusable(reused[k]) ? std::move(reused[k]) : nullptr;
      if (found) {
        if (found->begin != begin) moved_or_relowered = true;
        found->begin = begin;
        ++stats.reused;
        definitions.push_back(std::move(found));
        continue;
      }
      definitions.push_back(lower_definition(outline, node, node_text, begin, full));
      ++stats.lowered;
    }
    assemble();
  }

  std::shared_ptr<Definition> lower_definition(const lower::ModuleOutline& outline, TSNode node,
                                               std::string_view node_text, uint32_t begin,
                                               bool full) {
    auto def = std::make_shared<Definition>();
    def->id = next_id++;
    def->text = std::string(node_text);
    def->begin = begin;
    def->ir_begin = full ? begin : next_ir_offset;
    if (!full) {
      next_ir_offset += uint32_t(node_text.size()) + 1;
      moved_or_relowered = true;
    }
    cst::Cst biased(text, def->ir_begin - begin);
    DiagnosticSink sink;
    def->global = lower::lower_definition(biased, outline, *header, node, sink, &def->source_map);
    def->diagnostics = sink.take();
    if (def->global) def->name = def->global->gvar->name;
    return def;
  }

  void assemble() {
    module = ir::IRModule();
    module.top_level = header->top_level;
    module.name = header->name;
    module.check_well_formed = header->check_well_formed;
    module.s_tir = header->s_tir;
    module.attrs = header->attrs;
    module.global_infos = header->global_infos;
    module.vdevices = header->vdevices;
    module.device_meshes = header->device_meshes;
    module.has_metadata_def = header->has_metadata_def;
    module.arena = header->arena;
    for (const auto& def : definitions)
      if (def->global) module.globals.push_back(*def->global);
  }

  // Definitions sorted by IR offset, for to_text(). Few enough for a linear scan in order of
  // the text; re-lowered ones are the rare case.
  const Definition* owner_of_ir(uint32_t offset) const {
    for (const auto& def : definitions) {
      Span s = def->ir_span();
      if (s.begin <= offset && offset <= s.end) return def.get();
    }
    return nullptr;
  }

  Span to_text(Span s) const {
    uint32_t size = uint32_t(text.size());
    if (const Definition* def = owner_of_ir(s.begin)) {
      uint32_t length = s.end >= s.begin ? s.end - s.begin : 0;
      uint32_t begin = s.begin - def->ir_begin + def->begin;
      return {begin, std::min(begin + length, def->begin + uint32_t(def->text.size()))};
    }
    return {std::min(s.begin, size), std::min(std::max(s.end, s.begin), size)};
  }

  Diagnostic to_text(Diagnostic d) const {
    d.span = to_text(d.span);
    for (RelatedInfo& r : d.related) r.span = to_text(r.span);
    for_each_fix_span(d, [&](Span& s) { s = to_text(s); });
    return d;
  }

  Token token_of(TSNode node, const cst::Cst& cst) const {
    return token_of(node, ts_node_parent(node), cst);
  }
  // ts_node_parent walks down from the root: walkers that know the parent pass it.
  Token token_of(TSNode node, TSNode parent, const cst::Cst& cst) const {
    Token t;
    t.span = cst.span(node);
    t.text = std::string(cst.text(node));
    if (cst.is(node, cst::Kind::string_content)) {
      t.kind = Token::Kind::String;
      return t;
    }
    if (cst.is(parent, cst::Kind::attribute) &&
        ts_node_eq(cst.field(parent, cst::Field::attribute), node)) {
      t.kind = Token::Kind::Attribute;
      TSNode object = cst.field(parent, cst::Field::object);
      if (cst.is(object, cst::Kind::identifier)) t.object = std::string(cst.text(object));
    }
    return t;
  }

  static bool is_name(const cst::Cst& cst, TSNode node) {
    return cst.is(node, cst::Kind::identifier) || cst.is(node, cst::Kind::string_content);
  }
};

Document::Document(std::string text) : impl_(std::make_unique<Impl>()) {
  impl_->text = std::move(text);
  impl_->update();
}

Document::Document(const Document& other, std::nullptr_t) : impl_(std::make_unique<Impl>()) {
  impl_->text = other.impl_->text;
  impl_->nesting_headroom = other.impl_->nesting_headroom;
  if (other.impl_->tree) impl_->tree = TreePtr(ts_tree_copy(other.impl_->tree.get()));
  impl_->update();  // parsing with the unedited copy as the old tree reuses all of it
  impl_->tree_from_scratch = other.impl_->tree_from_scratch;  // the same tree
}

Document::~Document() = default;

const std::string& Document::text() const { return impl_->text; }

void Document::apply(std::span<const TextEdit> edits) {
  for (const TextEdit& e : edits) impl_->edit(e);
  impl_->update();
}

bool Document::settle() { return impl_->settle(); }
bool Document::settled() const { return impl_->settled(); }

void Document::replace(std::string text) {
  TextEdit all{0, uint32_t(impl_->text.size()), std::move(text)};
  apply(std::span<const TextEdit>(&all, 1));
}

const ir::IRModule& Document::module() const { return impl_->module; }
const std::vector<std::shared_ptr<Definition>>& Document::definitions() const {
  return impl_->definitions;
}
const LoweringStats& Document::stats() const { return impl_->stats; }
const std::vector<printer::Comment>& Document::comments() const {
  impl_->refresh_comments();
  return impl_->comments;
}

std::vector<Diagnostic> Document::diagnostics() const {
  std::vector<Diagnostic> out = impl_->syntax_diagnostics;
  auto add_lowering = [&](const Diagnostic& d) {
    Diagnostic t = impl_->to_text(d);
    if (!impl_->syntax.is_quarantined(t.span.begin)) out.push_back(std::move(t));
  };
  // Module-level diagnostics come from this update's outline: text offsets already.
  for (const Diagnostic& d : impl_->header_diagnostics)
    if (!impl_->syntax.is_quarantined(d.span.begin)) out.push_back(d);
  for (const auto& def : impl_->definitions)
    for (const Diagnostic& d : def->diagnostics) add_lowering(d);
  return out;
}

bool Document::overlaps_syntax_error(Span range) const {
  for (Span q : impl_->syntax.quarantined)
    if (q.begin < range.end && range.begin < q.end) return true;
  for (const Diagnostic& d : impl_->syntax_diagnostics)
    if (d.severity == Severity::Error && range.begin <= d.span.begin && d.span.begin < range.end)
      return true;
  return false;
}

Span Document::to_text(Span ir_span) const { return impl_->to_text(ir_span); }
Diagnostic Document::to_text(Diagnostic d) const { return impl_->to_text(std::move(d)); }

const Definition* Document::definition_at(uint32_t offset) const {
  // Definitions are in source order and do not overlap (at most they touch): binary search for
  // the last one beginning at or before `offset`; where two touch, the earlier one wins.
  const auto& defs = impl_->definitions;
  auto after = std::upper_bound(defs.begin(), defs.end(), offset, [](uint32_t at, const auto& d) {
    return at < d->text_span().begin;
  });
  const Definition* found = nullptr;
  for (auto it = after; it != defs.begin() && std::distance(it, after) < 2;) {
    --it;
    Span s = (*it)->text_span();
    if (s.begin <= offset && offset <= s.end) found = it->get();
  }
  return found;
}

const Definition* Document::definition_of_ir(Span ir_span) const {
  return impl_->owner_of_ir(ir_span.begin);
}

std::optional<uint32_t> Document::to_ir(uint32_t text_offset) const {
  const Definition* def = definition_at(text_offset);
  if (!def) return std::nullopt;
  return text_offset - def->begin + def->ir_begin;
}

std::optional<Token> Document::token_at(uint32_t offset) const {
  if (!impl_->tree) return std::nullopt;
  cst::Cst cst(impl_->text);
  TSNode root = ts_tree_root_node(impl_->tree.get());
  for (uint32_t at : {offset, offset > 0 ? offset - 1 : offset}) {
    TSNode node = ts_node_descendant_for_byte_range(root, at, at);
    if (!ts_node_is_null(node) && Impl::is_name(cst, node)) {
      Span s = cst.span(node);
      if (s.begin <= offset && offset <= s.end) return impl_->token_of(node, cst);
    }
  }
  return std::nullopt;
}

std::vector<Span> Document::enclosing_spans(uint32_t offset) const {
  std::vector<Span> out;
  if (!impl_->tree) return out;
  cst::Cst cst(impl_->text);
  // The named nodes from the root down to the smallest one holding `offset` (the first child
  // that ends at or after it, as ts_node_descendant_for_byte_range picks), walked down with a
  // cursor: asking each node for its parent would cost the depth every time (quadratic in a
  // file nested 100,000 deep).
  std::vector<TSNode> path;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(impl_->tree.get()));
  for (bool descend = true; descend;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (ts_node_is_named(node)) path.push_back(node);
    descend = false;
    if (!ts_tree_cursor_goto_first_child(&cursor)) break;
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_end_byte(child) < offset) continue;
      descend = ts_node_start_byte(child) <= offset;
      break;
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  // Innermost first. Blocks start at the first statement; widen nothing, only drop repeats and
  // zero widths. An editor expands a selection a step at a time: past kMaxEnclosing steps the
  // outer ones are left out (and the reply stays shallow enough to serialise).
  constexpr size_t kMaxEnclosing = 256;
  for (auto it = path.rbegin(); it != path.rend() && out.size() < kMaxEnclosing; ++it) {
    Span s = cst.span(*it);
    if (s.empty() || (!out.empty() && s.begin >= out.back().begin && s.end <= out.back().end))
      continue;
    out.push_back(s);
  }
  return out;
}

std::vector<Token> Document::tokens_in(Span range) const {
  std::vector<Token> out;
  for_each_token(range, [&](const Token& token) { out.push_back(token); });
  return out;
}

void Document::for_each_token(Span range, const std::function<void(const Token&)>& visit) const {
  if (!impl_->tree) return;
  cst::Cst cst(impl_->text);
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(impl_->tree.get()));
  std::vector<TSNode> ancestors;  // the cursor's path from the root, for token_of's parent
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    Span s = cst.span(node);
    bool overlaps = s.begin < range.end && range.begin < s.end;
    if (overlaps && Impl::is_name(cst, node) && range.begin <= s.begin && s.end <= range.end) {
      TSNode parent = ancestors.empty() ? TSNode{} : ancestors.back();
      visit(impl_->token_of(node, parent, cst));
    }
    if (overlaps && ts_tree_cursor_goto_first_child(&cursor)) {
      ancestors.push_back(node);
      continue;
    }
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      ancestors.pop_back();
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
}

bool Document::offsets_are_text_offsets() const { return !impl_->moved_or_relowered; }

}  // namespace raxc::frontend
