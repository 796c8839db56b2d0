// Source files and line maps. Offsets are 0-based UTF-8 byte offsets into the exact file text
// (a UTF-8 byte-order mark, if any, is kept, so offsets from tree-sitter match the file).
// Lines end at '\n'; a '\r' right before it belongs to the line terminator ("\r\n"), a lone
// '\r' is ordinary text. Views:
//   * LineCol: 1-based line, 1-based byte column (what the CLI and JSON output print);
//   * UTF-16: 0-based line, 0-based UTF-16 code unit column (what LSP clients send/expect).
// A BOM is not part of line 1's columns: the first character after it is column 1 / UTF-16
// character 0. Invalid UTF-8 never breaks the conversions: each maximal invalid subsequence
// counts as one U+FFFD (one UTF-16 unit), like the WHATWG decoder editors use.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/span.h"

namespace raxc {

struct LineCol {
  uint32_t line = 1;    // 1-based
  uint32_t column = 1;  // 1-based, in bytes
  friend bool operator==(const LineCol&, const LineCol&) = default;
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  uint32_t size() const { return static_cast<uint32_t>(text_.size()); }
  bool has_bom() const { return bom_ != 0; }

  // Number of lines; a final line without '\n' counts, and so does the empty line after a
  // trailing '\n' (an offset equal to size() lies on it). Never 0.
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

  // Offset -> line/column. Offsets past the end are clamped to size().
  LineCol location(uint32_t offset) const;
  // Line/column -> offset, clamped to the line's content (terminator excluded) and the file.
  uint32_t offset_of(LineCol position) const;

  // Byte offsets of the first and one-past-the-last content byte of a 1-based line (the
  // "\n"/"\r\n" terminator and, on line 1, the BOM excluded). Lines out of range are clamped.
  uint32_t line_begin(uint32_t line) const;
  uint32_t line_end(uint32_t line) const;
  // The text of a 1-based line without its terminator; empty for lines out of range.
  std::string_view line_text(uint32_t line) const;

  // LSP positions: the UTF-16 column (0-based) of an offset on its line. An offset inside a
  // multi-byte character counts the characters before it only.
  uint32_t utf16_column(uint32_t offset) const;
  // (0-based line, UTF-16 character) -> byte offset. A line past the end gives size(); a
  // character past the line's end gives the line's end; a character in the middle of a
  // surrogate pair gives the start of that character.
  uint32_t offset_from_utf16(uint32_t line0, uint32_t character) const;

 private:
  uint32_t line_index(uint32_t offset) const;  // 0-based

  std::string path_;
  std::string text_;
  uint32_t bom_ = 0;                   // 3 when the text starts with EF BB BF
  std::vector<uint32_t> line_starts_;  // offset of the first byte of each line
};

// Owns every SourceFile of a session; pointers and references stay valid for its lifetime.
class SourceManager {
 public:
  struct LoadResult {
    const SourceFile* file = nullptr;  // null on failure
    std::string error;                 // why, e.g. "No such file or directory", "is a directory"
  };

  // Reads a file from disk. Never throws; failures (missing, unreadable, a directory, larger
  // than 4 GiB) come back as an error message.
  LoadResult load(const std::string& path);
  // Registers text that is not (or not as is) on disk: an editor buffer, a test input.
  const SourceFile& add_virtual(std::string path, std::string text);
  // The most recently added file with this path, or null.
  const SourceFile* find(std::string_view path) const;

  const std::vector<std::unique_ptr<SourceFile>>& files() const { return files_; }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

// Decodes one UTF-8 character (or one maximal invalid subsequence) starting at `i`, which must
// be < text.size(). Returns its length in bytes (>= 1) and its length in UTF-16 code units.
struct Utf8Step {
  uint32_t bytes;
  uint32_t utf16_units;
  bool valid;
};
Utf8Step utf8_step(std::string_view text, size_t i);

// The text with every invalid UTF-8 sequence replaced by U+FFFD (JSON output must be valid).
std::string to_valid_utf8(std::string_view text);

}  // namespace raxc
