// Formatting a document: `raxc fmt`'s output with the comments kept, or the reason it cannot be
// formatted (a syntax error: printing a module that did not lower cleanly would lose text); and
// that output as line hunks.

#include <algorithm>

#include "frontend/frontend.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"
#include "ide/ide.h"

namespace raxc::ide {

FormatResult format(const std::string& text) {
  FormatResult result;
  frontend::ParsedFile parsed = frontend::parse_file(text);
  if (!parsed.has_errors()) {
    result.formatted = printer::print_module(*parsed.module, {}, parsed.comments, text);
    return result;
  }
  SourceFile file("", text);
  for (const Diagnostic& d : parsed.diagnostics) {
    if (d.severity != Severity::Error) continue;
    LineCol at = file.location(d.span.begin);
    result.error = "cannot format: line " + std::to_string(at.line) + ", column " +
                   std::to_string(at.column) + ": " + d.message + " [" + code(d.id) + "]";
    return result;
  }
  result.error = "cannot format: the file has errors";
  return result;
}

namespace {

// The lines of `text`, each with its terminator.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class LineEdit { Keep, Delete, Insert };

// Beyond this many differing lines the middle is replaced as one block: the diff's trace grows
// with the square of the difference, and a reformat that changes that much is one hunk anyway.
constexpr int kMaxLineEdits = 2000;

// A shortest edit script turning `before` into `after`, line by line (Myers' O(ND) greedy
// algorithm, with the common prefix and suffix taken first). Written here rather than taken
// from Debian's dtl, whose header does not compile with clang 19 (the fuzz build's compiler).
std::vector<LineEdit> line_edits(const std::vector<std::string>& before,
                                 const std::vector<std::string>& after) {
  size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  const int n = int(before.size() - prefix - suffix), m = int(after.size() - prefix - suffix);
  auto a = [&](int i) -> const std::string& { return before[prefix + i]; };
  auto b = [&](int j) -> const std::string& { return after[prefix + j]; };

  // trace[d] holds, for each diagonal k in [-d, d], the furthest x reached with d edits.
  std::vector<std::vector<int>> trace;
  std::vector<int> v(2 * (n + m) + 3, 0);
  const int offset = n + m + 1;
  int found = -1;
  for (int d = 0; d <= std::min(n + m, kMaxLineEdits) && found < 0; ++d) {
    for (int k = -d; k <= d; k += 2) {
      bool down = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]);
      int x = down ? v[offset + k + 1] : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a(x) == b(y)) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
  }

  std::vector<LineEdit> middle;
  if (found < 0) {  // too different: delete the old middle, insert the new one
    middle.assign(n, LineEdit::Delete);
    middle.insert(middle.end(), m, LineEdit::Insert);
  } else {
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
      const std::vector<int>& prev = trace[d - 1];  // diagonals [-(d-1), d-1]
      auto at = [&](int k) { return prev[k + d - 1]; };
      int k = x - y;
      bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
      int prev_k = down ? k + 1 : k - 1;
      int prev_x = at(prev_k), prev_y = prev_x - prev_k;
      while (x > prev_x && y > prev_y) middle.push_back(LineEdit::Keep), --x, --y;
      middle.push_back(down ? LineEdit::Insert : LineEdit::Delete);
      x = prev_x, y = prev_y;
    }
    while (x > 0 && y > 0) middle.push_back(LineEdit::Keep), --x, --y;
    std::reverse(middle.begin(), middle.end());
  }
  std::vector<LineEdit> edits(prefix, LineEdit::Keep);
  edits.insert(edits.end(), middle.begin(), middle.end());
  edits.insert(edits.end(), suffix, LineEdit::Keep);
  return edits;
}

}  // namespace

std::vector<TextHunk> format_hunks(const std::string& text, const std::string& formatted,
                                   std::optional<std::pair<uint32_t, uint32_t>> lines) {
  std::vector<std::string> before = split_lines(text), after = split_lines(formatted);
  std::vector<uint32_t> starts{0};  // offset of each line of `text`, and the end
  for (const std::string& line : before) starts.push_back(starts.back() + uint32_t(line.size()));
  struct Open {
    uint32_t first = 0, last = 0;  // old lines [first, last)
    std::string text;
  };
  std::vector<TextHunk> hunks;
  std::optional<Open> open;
  uint32_t line = 0;      // the next line of `text`
  uint32_t new_line = 0;  // the next line of `formatted`
  auto close = [&] {
    if (!open) return;
    bool wanted = !lines || (open->first <= lines->second &&
                             (open->last > lines->first || open->first >= lines->first));
    if (wanted) hunks.push_back({{starts[open->first], starts[open->last]}, std::move(open->text)});
    open.reset();
  };
  for (LineEdit edit : line_edits(before, after)) {
    if (edit == LineEdit::Keep) {
      close();
      ++line, ++new_line;
      continue;
    }
    if (!open) open = Open{line, line, {}};
    if (edit == LineEdit::Delete)
      open->last = ++line;
    else
      open->text += after[new_line++];
  }
  close();
  return hunks;
}

}  // namespace raxc::ide
