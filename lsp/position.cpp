#include "lsp/position.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace raxc::lsp {

const char* encoding_name(PositionEncoding encoding) {
  return encoding == PositionEncoding::Utf8 ? "utf-8" : "utf-16";
}

uint32_t offset_at(const SourceFile& file, Position position, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf16)
    return file.offset_from_utf16(position.line, position.character);
  if (position.line >= file.line_count()) return file.size();
  const uint32_t begin = file.line_begin(position.line + 1);
  const uint32_t end = file.line_end(position.line + 1);
  uint32_t target = uint32_t(std::min<uint64_t>(uint64_t(begin) + position.character, end));
  // A byte inside a multi-byte character means that character's start.
  uint32_t pos = begin;
  while (pos < target) {
    uint32_t next = pos + utf8_step(file.text(), pos).bytes;
    if (next > target) break;
    pos = next;
  }
  return pos;
}

Position position_at(const SourceFile& file, uint32_t offset, PositionEncoding encoding) {
  offset = std::min(offset, file.size());
  LineCol where = file.location(offset);
  Position position;
  position.line = where.line - 1;
  if (encoding == PositionEncoding::Utf16) {
    position.character = file.utf16_column(offset);
  } else {
    uint32_t begin = file.line_begin(where.line);
    position.character = offset > begin ? offset - begin : 0;
  }
  return position;
}

namespace {

std::optional<uint32_t> parse_uint(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number_unsigned()) {
    return uint32_t(std::min<uint64_t>(it->get<uint64_t>(), std::numeric_limits<uint32_t>::max()));
  }
  if (it->is_number_integer()) {
    int64_t v = it->get<int64_t>();
    if (v < 0) return std::nullopt;
    return uint32_t(std::min<int64_t>(v, std::numeric_limits<uint32_t>::max()));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Position> parse_position(const nlohmann::json& value) {
  if (!value.is_object()) return std::nullopt;
  auto line = parse_uint(value, "line");
  auto character = parse_uint(value, "character");
  if (!line || !character) return std::nullopt;
  return Position{*line, *character};
}

nlohmann::json to_json(Position position) {
  return {{"line", position.line}, {"character", position.character}};
}

nlohmann::json range_json(const SourceFile& file, Span span, PositionEncoding encoding) {
  return {{"start", to_json(position_at(file, span.begin, encoding))},
          {"end", to_json(position_at(file, std::max(span.begin, span.end), encoding))}};
}

std::optional<Span> parse_range(const SourceFile& file, const nlohmann::json& value,
                                PositionEncoding encoding) {
  if (!value.is_object() || !value.contains("start") || !value.contains("end")) return std::nullopt;
  auto start = parse_position(value["start"]);
  auto end = parse_position(value["end"]);
  if (!start || !end) return std::nullopt;
  uint32_t a = offset_at(file, *start, encoding), b = offset_at(file, *end, encoding);
  if (b < a) std::swap(a, b);
  return Span{a, b};
}

namespace {

// The offset where 0-based line `line` starts, or the text's size when it has fewer lines.
size_t line_start(std::string_view text, uint32_t line, size_t from = 0, uint32_t from_line = 0) {
  size_t at = from;
  for (uint32_t l = from_line; l < line; ++l) {
    const void* newline = std::memchr(text.data() + at, '\n', text.size() - at);
    if (!newline) return text.size();
    at = size_t(static_cast<const char*>(newline) - text.data()) + 1;
  }
  return at;
}

}  // namespace

// parse_range() over a SourceFile of the lines the range touches only: changes in one
// notification apply in sequence, each to the result of the previous one, so a line map of the
// whole text would be built (and the text copied) per change — per keystroke, for the whole of
// a large document. Positions convert within their line, so the window gives the same offsets.
std::optional<Span> parse_range_in(const std::string& text, const nlohmann::json& value,
                                   PositionEncoding encoding) {
  if (!value.is_object() || !value.contains("start") || !value.contains("end")) return std::nullopt;
  auto start = parse_position(value["start"]);
  auto end = parse_position(value["end"]);
  if (!start || !end) return std::nullopt;
  uint32_t first = std::min(start->line, end->line), last = std::max(start->line, end->line);
  size_t begin = line_start(text, first);
  // A window starting with U+FEFF would take it for a byte order mark (SourceFile skips one at
  // the start of a file): the whole text then.
  if (begin > 0 && text.compare(begin, 3, "\xEF\xBB\xBF") == 0)
    return parse_range(SourceFile("", text), value, encoding);
  size_t window_end = line_start(text, last + 1, begin, first);
  SourceFile window("", text.substr(begin, window_end - begin));
  auto relative = [&](Position p) { return Position{p.line - first, p.character}; };
  uint32_t a = uint32_t(begin) + offset_at(window, relative(*start), encoding);
  uint32_t b = uint32_t(begin) + offset_at(window, relative(*end), encoding);
  // Past the window's end is past the text's end only when the window reaches it.
  if (window_end < text.size()) {
    a = std::min<uint32_t>(a, uint32_t(window_end));
    b = std::min<uint32_t>(b, uint32_t(window_end));
  }
  if (b < a) std::swap(a, b);
  return Span{a, b};
}

bool apply_change(std::string& text, const nlohmann::json& change, PositionEncoding encoding,
                  std::string& error, frontend::TextEdit* applied) {
  if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) {
    error = "a content change needs a string \"text\"";
    return false;
  }
  const std::string& replacement = change["text"].get_ref<const std::string&>();
  auto range = change.find("range");
  if (range == change.end() || range->is_null()) {
    if (applied) *applied = {0, uint32_t(text.size()), replacement};
    text = replacement;
    return true;
  }
  auto span = parse_range_in(text, *range, encoding);
  if (!span) {
    error = "a content change has a malformed \"range\"";
    return false;
  }
  if (applied) *applied = {span->begin, span->end, replacement};
  text.replace(span->begin, span->end - span->begin, replacement);
  return true;
}

}  // namespace raxc::lsp
