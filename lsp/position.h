// LSP positions <-> byte offsets. A position is (0-based line, 0-based character) where the
// character counts UTF-16 code units (the default) or UTF-8 bytes (only when the client offered
// "utf-8" in general.positionEncodings and the server chose it). Out-of-range positions are
// clamped: a character past the end of its line means the line's end, a line past the end of
// the file means the end of the file. Conversions never fail.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "frontend/document.h"
#include "frontend/source.h"
#include "frontend/span.h"

namespace raxc::lsp {

enum class PositionEncoding { Utf16, Utf8 };

const char* encoding_name(PositionEncoding encoding);  // "utf-16", "utf-8"

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

uint32_t offset_at(const SourceFile& file, Position position, PositionEncoding encoding);
Position position_at(const SourceFile& file, uint32_t offset, PositionEncoding encoding);

// JSON views. parse_position() rejects what is not {"line": uint, "character": uint}
// (negative numbers, strings, missing fields); values above 2^32-1 saturate.
std::optional<Position> parse_position(const nlohmann::json& value);
nlohmann::json to_json(Position position);
nlohmann::json range_json(const SourceFile& file, Span span, PositionEncoding encoding);
// A {"start","end"} range as a span; end before start is swapped.
std::optional<Span> parse_range(const SourceFile& file, const nlohmann::json& value,
                                PositionEncoding encoding);

// parse_range() on `text` without a line map of all of it (the lines the range touches only).
std::optional<Span> parse_range_in(const std::string& text, const nlohmann::json& value,
                                   PositionEncoding encoding);

// Applies one TextDocumentContentChangeEvent to `text`: with "range" it replaces that range
// (clamped) by "text", without it "text" replaces everything. False (and `error`) when the
// change is malformed; `text` is then unchanged.
// `applied`, when given, receives the change as a byte-offset edit of the old text.
bool apply_change(std::string& text, const nlohmann::json& change, PositionEncoding encoding,
                  std::string& error, frontend::TextEdit* applied = nullptr);

}  // namespace raxc::lsp
