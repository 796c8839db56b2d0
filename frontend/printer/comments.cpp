// Keeping source comments through `raxc fmt`. The IR has no comment nodes, so each comment is
// attached to a printed statement ("anchor") by position:
//  - a comment on the same line after the start of a statement trails that statement;
//  - any other comment precedes the first statement that starts after it, at its indentation;
//  - comments after the last statement, or whose statement is not printed as a line of its own,
//    go to the end of the file.
// Comments the printer generates itself (headers, the root-block marker, the metadata note) are
// dropped, so that printing is idempotent.
#include <algorithm>

#include "frontend/printer/printer_impl.h"

namespace raxc::printer::detail {

static std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n'))
    text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

bool is_generated_comment(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  text = trim(text);
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  return starts("from tvm.script import") || starts("from tvm.tirx.layout import") ||
         starts("from typing import") || text == "with T.block(\"root\"):" ||
         text == "with T.sblock(\"root\"):" || starts("Metadata omitted");
}

CommentIndex::CommentIndex(const std::vector<Comment>& comments, std::string_view source)
    : source_(source) {
  for (const Comment& c : comments) {
    std::string_view text = trim(c.text);
    if (text.empty() || is_generated_comment(text)) continue;
    comments_.push_back({c.span, std::string(text)});
  }
  std::stable_sort(comments_.begin(), comments_.end(),
                   [](const Comment& a, const Comment& b) { return a.span.begin < b.span.begin; });
  emitted_.assign(comments_.size(), false);
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < source_.size(); ++i)
    if (source_[i] == '\n') line_starts_.push_back(i + 1);
}

uint32_t CommentIndex::line_of(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return uint32_t(it - line_starts_.begin()) - 1;
}

void CommentIndex::add_anchor(const void* node, Span span, bool can_trail) {
  if (comments_.empty() || span.begin >= span.end) return;
  anchors_.push_back({node, span, anchors_.size(), can_trail});
}

void CommentIndex::resolve() {
  if (comments_.empty()) return;
  std::stable_sort(anchors_.begin(), anchors_.end(), [](const Anchor& a, const Anchor& b) {
    return a.span.begin != b.span.begin ? a.span.begin < b.span.begin : a.order < b.order;
  });
  auto by_begin = [](const Anchor& a, uint32_t offset) { return a.span.begin < offset; };
  for (size_t i = 0; i < comments_.size(); ++i) {
    Span c = comments_[i].span;
    uint32_t line_start = line_starts_.empty() ? 0 : line_starts_[line_of(c.begin)];
    // Trailing: the latest statement that starts on this line before the comment.
    auto first_on_line =
        std::lower_bound(anchors_.begin(), anchors_.end(), line_start, by_begin);
    auto after_comment = std::lower_bound(anchors_.begin(), anchors_.end(), c.begin, by_begin);
    if (first_on_line != after_comment) {
      auto last = after_comment - 1;
      // Among anchors starting at the same offset, the outermost (first registered) that can
      // trail wins.
      while (last != first_on_line && (last - 1)->span.begin == last->span.begin) --last;
      while (!last->can_trail && last + 1 != after_comment) ++last;
      if (last->can_trail) {
        attached_[last->node].trailing.push_back(i);
        continue;
      }
    }
    auto next = std::lower_bound(anchors_.begin(), anchors_.end(), c.end, by_begin);
    if (next != anchors_.end()) attached_[next->node].leading.push_back(i);
  }
}

void CommentIndex::emit_leading(const void* node, int indent, Lines& out) {
  auto it = attached_.find(node);
  if (it == attached_.end()) return;
  for (size_t i : it->second.leading) {
    if (emitted_[i]) continue;
    emitted_[i] = true;
    out.add(indent, comments_[i].text);
  }
}

std::string CommentIndex::trailing(const void* node) {
  auto it = attached_.find(node);
  if (it == attached_.end()) return "";
  std::string text;
  for (size_t i : it->second.trailing) {
    if (emitted_[i]) continue;
    emitted_[i] = true;
    text += "  " + comments_[i].text;
  }
  return text;
}

std::vector<std::string> CommentIndex::take_leftovers() {
  std::vector<std::string> texts;
  for (size_t i = 0; i < comments_.size(); ++i) {
    if (emitted_[i]) continue;
    emitted_[i] = true;
    texts.push_back(comments_[i].text);
  }
  return texts;
}

}  // namespace raxc::printer::detail
