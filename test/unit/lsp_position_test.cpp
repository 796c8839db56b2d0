// LSP positions <-> byte offsets in UTF-16 and UTF-8, clamping, incremental edits, and request
// positions pinned through later edits.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "lsp/pinned_positions.h"
#include "lsp/position.h"

using namespace raxc;
using namespace raxc::lsp;
using nlohmann::json;

namespace {

// "é" is 2 bytes / 1 UTF-16 unit; "𝔘" (U+1D518) is 4 bytes / 2 UTF-16 units.
const std::string kText = "x = \"é𝔘\"  # c\r\ny\n";

json change(uint32_t l0, uint32_t c0, uint32_t l1, uint32_t c1, const std::string& text) {
  return {
      {"range",
       {{"start", {{"line", l0}, {"character", c0}}}, {"end", {{"line", l1}, {"character", c1}}}}},
      {"text", text}};
}

}  // namespace

TEST_CASE("positions: UTF-16 columns count surrogate pairs as two", "[lsp]") {
  SourceFile file("t", kText);
  const uint32_t after_e = 7, after_u = 11;  // byte offsets after é and after 𝔘
  CHECK(offset_at(file, {0, 6}, PositionEncoding::Utf16) == after_e);
  CHECK(offset_at(file, {0, 8}, PositionEncoding::Utf16) == after_u);
  CHECK(position_at(file, after_u, PositionEncoding::Utf16) == Position{0, 8});
  // The middle of a surrogate pair means the start of the character.
  CHECK(offset_at(file, {0, 7}, PositionEncoding::Utf16) == after_e);
}

TEST_CASE("positions: UTF-8 columns are bytes; a byte inside a character snaps back", "[lsp]") {
  SourceFile file("t", kText);
  CHECK(offset_at(file, {0, 7}, PositionEncoding::Utf8) == 7);
  CHECK(offset_at(file, {0, 6}, PositionEncoding::Utf8) == 5);  // inside é
  CHECK(offset_at(file, {0, 9}, PositionEncoding::Utf8) == 7);  // inside 𝔘
  CHECK(position_at(file, 11, PositionEncoding::Utf8) == Position{0, 11});
}

TEST_CASE("positions: past the end of a line or the file is clamped", "[lsp]") {
  SourceFile file("t", kText);
  for (auto encoding : {PositionEncoding::Utf16, PositionEncoding::Utf8}) {
    CHECK(offset_at(file, {0, 1000}, encoding) == file.line_end(1));  // before "\r\n"
    CHECK(offset_at(file, {1, 1000}, encoding) == file.line_end(2));
    CHECK(offset_at(file, {99, 0}, encoding) == file.size());
    CHECK(offset_at(file, {0xFFFFFFFFu, 0xFFFFFFFFu}, encoding) == file.size());
    CHECK(position_at(file, 100000, encoding) == Position{2, 0});
  }
}

TEST_CASE("positions: JSON parsing rejects what is not a position", "[lsp]") {
  CHECK(parse_position(json{{"line", 1}, {"character", 2}}) == Position{1, 2});
  CHECK(!parse_position(json{{"line", -1}, {"character", 2}}));
  CHECK(!parse_position(json{{"line", "1"}, {"character", 2}}));
  CHECK(!parse_position(json{{"line", 1}}));
  CHECK(!parse_position(json::array()));
  CHECK(parse_position(json{{"line", 1ull << 40}, {"character", 0}})->line == 0xFFFFFFFFu);
}

TEST_CASE("edits: incremental changes with non-ASCII text, in sequence", "[lsp]") {
  std::string text = kText, error;
  // Replace 𝔘 (UTF-16 characters 6..8 on line 0) by "ab".
  REQUIRE(apply_change(text, change(0, 6, 0, 8, "ab"), PositionEncoding::Utf16, error));
  CHECK(text == "x = \"éab\"  # c\r\ny\n");
  // Insert at the end of the file, then on a line past the end (clamped to the end).
  REQUIRE(apply_change(text, change(2, 0, 2, 0, "z\n"), PositionEncoding::Utf16, error));
  REQUIRE(apply_change(text, change(40, 3, 41, 0, "!"), PositionEncoding::Utf16, error));
  CHECK(text == "x = \"éab\"  # c\r\ny\nz\n!");
  // A reversed range is swapped; a full replacement has no range.
  REQUIRE(apply_change(text, change(1, 1, 1, 0, "Y"), PositionEncoding::Utf16, error));
  CHECK(text == "x = \"éab\"  # c\r\nY\nz\n!");
  REQUIRE(apply_change(text, json{{"text", "new"}}, PositionEncoding::Utf16, error));
  CHECK(text == "new");
}

TEST_CASE("edits: UTF-8 positions", "[lsp]") {
  std::string text = "é=1\n", error;
  REQUIRE(apply_change(text, change(0, 2, 0, 3, ":"), PositionEncoding::Utf8, error));
  CHECK(text == "é:1\n");
}

TEST_CASE("edits: malformed changes leave the text alone", "[lsp]") {
  std::string text = "abc", error;
  CHECK(!apply_change(text, json{{"range", 3}, {"text", "x"}}, PositionEncoding::Utf16, error));
  CHECK(!apply_change(text, json{{"text", 3}}, PositionEncoding::Utf16, error));
  CHECK(!apply_change(text, json::array(), PositionEncoding::Utf16, error));
  json no_end = change(0, 0, 0, 1, "x");
  no_end["range"].erase("end");
  CHECK(!apply_change(text, no_end, PositionEncoding::Utf16, error));
  CHECK(text == "abc");
}

TEST_CASE("pinned positions follow edits and go stale when their text is replaced") {
  SourceFile before("", "ab\ncd\nef\n");
  nlohmann::json params = {{"position", {{"line", 1}, {"character", 1}}},
                           {"context", {{"includeDeclaration", true}}}};
  SECTION("edits before the pin move it; the result is in the new text's coordinates") {
    lsp::PinnedPositions pins(params, before, lsp::PositionEncoding::Utf16);
    // Insert a line at the top, then delete "ab": the pin stays on the 'd' of "cd".
    REQUIRE(pins.follow({{0, 0, "zz\n"}, {3, 5, ""}}));
    SourceFile after("", "zz\n\ncd\nef\n");
    nlohmann::json placed = pins.place(params, after, lsp::PositionEncoding::Utf16);
    CHECK(placed["position"] == nlohmann::json({{"line", 2}, {"character", 1}}));
    CHECK(placed["context"]["includeDeclaration"] == true);
  }
  SECTION("typing at the pin or after it keeps it") {
    lsp::PinnedPositions pins(params, before, lsp::PositionEncoding::Utf16);
    REQUIRE(pins.follow({{4, 4, "x"}, {9, 9, "y"}}));
    CHECK(pins.place(params, SourceFile("", "ab\ncxd\nefy\n"),
                     lsp::PositionEncoding::Utf16)["position"] ==
          nlohmann::json({{"line", 1}, {"character", 1}}));
  }
  SECTION("an edit replacing the text at the pin makes the request stale") {
    lsp::PinnedPositions pins(params, before, lsp::PositionEncoding::Utf16);
    CHECK_FALSE(pins.follow({{3, 6, ""}}));
    lsp::PinnedPositions at_start(params, before, lsp::PositionEncoding::Utf16);
    CHECK_FALSE(at_start.follow({{4, 5, "q"}}));
  }
}

TEST_CASE("a change's range converts on its lines alone as on the whole text", "[lsp]") {
  // parse_range_in builds a line map of the lines the range touches only (a keystroke in a large
  // document); it must give parse_range's offsets everywhere: past line ends and the end of the
  // file, in CRLF text, after a byte order mark, next to multi-byte and astral characters, and
  // at a line starting with U+FEFF.
  const std::vector<std::string> texts = {
      "",
      "x",
      "x\n",
      "\n\n",
      "a = 1\r\nbé = 𝔘\r\n\r\nend",
      "\xEF\xBB\xBFx = 1\ny\n",
      "first\n\xEF\xBB\xBFsecond 𝔘\nthird",
      "no newline at the end 𝔘é",
  };
  std::mt19937 random(7);
  for (const std::string& text : texts) {
    SourceFile file("", text);
    for (int i = 0; i < 400; ++i) {
      uint32_t lines = file.line_count() + 2;
      json range = {{"start", {{"line", random() % lines}, {"character", random() % 12}}},
                    {"end", {{"line", random() % lines}, {"character", random() % 12}}}};
      for (PositionEncoding encoding : {PositionEncoding::Utf16, PositionEncoding::Utf8}) {
        INFO(text << " " << range.dump());
        auto whole = parse_range(file, range, encoding);
        auto window = parse_range_in(text, range, encoding);
        REQUIRE(whole.has_value());
        REQUIRE(window.has_value());
        CHECK(window->begin == whole->begin);
        CHECK(window->end == whole->end);
      }
    }
  }
}
