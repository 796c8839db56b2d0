// Formatting a document: `raxc fmt`'s output with the comments kept, or the reason it cannot be
// formatted (a syntax error: printing a module that did not lower cleanly would lose text); and
// that output as line hunks (Debian's dtl computes the line diff).
#include <dtl/dtl.hpp>

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

}  // namespace

std::vector<TextHunk> format_hunks(const std::string& text, const std::string& formatted,
                                   std::optional<std::pair<uint32_t, uint32_t>> lines) {
  std::vector<std::string> before = split_lines(text), after = split_lines(formatted);
  std::vector<uint32_t> starts{0};  // offset of each line of `text`, and the end
  for (const std::string& line : before) starts.push_back(starts.back() + uint32_t(line.size()));
  dtl::Diff<std::string, std::vector<std::string>> diff(before, after);
  diff.compose();
  struct Open {
    uint32_t first = 0, last = 0;  // old lines [first, last)
    std::string text;
  };
  std::vector<TextHunk> hunks;
  std::optional<Open> open;
  uint32_t line = 0;  // the next line of `text`
  auto close = [&] {
    if (!open) return;
    bool wanted = !lines || (open->first <= lines->second &&
                             (open->last > lines->first || open->first >= lines->first));
    if (wanted) hunks.push_back({{starts[open->first], starts[open->last]}, std::move(open->text)});
    open.reset();
  };
  for (const auto& [element, info] : diff.getSes().getSequence()) {
    if (info.type == dtl::SES_COMMON) {
      close();
      ++line;
      continue;
    }
    if (!open) open = Open{line, line, {}};
    if (info.type == dtl::SES_DELETE)
      open->last = ++line;
    else
      open->text += element;
  }
  close();
  return hunks;
}

}  // namespace raxc::ide
