#include "frontend/source.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

namespace raxc {
// Lets Catch print positions in failed checks.
std::ostream& operator<<(std::ostream& out, const LineCol& at) {
  return out << at.line << ":" << at.column;
}
}  // namespace raxc

using raxc::LineCol;
using raxc::SourceFile;
using raxc::SourceManager;

TEST_CASE("line table: LF lines", "[source]") {
  SourceFile f("a.rx", "ab\ncd\n\nx");
  CHECK(f.line_count() == 4);
  CHECK(f.location(0) == LineCol{1, 1});
  CHECK(f.location(1) == LineCol{1, 2});
  CHECK(f.location(2) == LineCol{1, 3});  // the '\n' itself
  CHECK(f.location(3) == LineCol{2, 1});
  CHECK(f.location(6) == LineCol{3, 1});
  CHECK(f.location(7) == LineCol{4, 1});
  CHECK(f.location(8) == LineCol{4, 2});  // end of file
  CHECK(f.line_text(1) == "ab");
  CHECK(f.line_text(2) == "cd");
  CHECK(f.line_text(3) == "");
  CHECK(f.line_text(4) == "x");
  CHECK(f.line_text(0) == "");
  CHECK(f.line_text(5) == "");
  CHECK(f.line_begin(2) == 3);
  CHECK(f.line_end(2) == 5);
}

TEST_CASE("line table: trailing newline and empty file", "[source]") {
  SourceFile f("a.rx", "ab\n");
  CHECK(f.line_count() == 2);
  CHECK(f.location(3) == LineCol{2, 1});
  CHECK(f.line_text(2) == "");

  SourceFile empty("e.rx", "");
  CHECK(empty.line_count() == 1);
  CHECK(empty.location(0) == LineCol{1, 1});
  CHECK(empty.location(100) == LineCol{1, 1});
  CHECK(empty.line_text(1) == "");
  CHECK(empty.utf16_column(0) == 0);
  CHECK(empty.offset_from_utf16(0, 5) == 0);
  CHECK(empty.offset_from_utf16(3, 0) == 0);
}

TEST_CASE("line table: offsets past the end are clamped", "[source]") {
  SourceFile f("a.rx", "ab\ncd");
  CHECK(f.location(5) == LineCol{2, 3});
  CHECK(f.location(1000) == LineCol{2, 3});
  CHECK(f.location(UINT32_MAX) == LineCol{2, 3});
  CHECK(f.offset_of({1, 1}) == 0);
  CHECK(f.offset_of({1, 99}) == 2);  // clamped to the end of line 1 (before '\n')
  CHECK(f.offset_of({2, 2}) == 4);
  CHECK(f.offset_of({9, 1}) == 3);  // line clamped to the last one
  CHECK(f.offset_of({0, 0}) == 0);
}

TEST_CASE("line table: CRLF", "[source]") {
  SourceFile f("a.rx", "ab\r\ncd\r\n\r\nx\ry");
  CHECK(f.line_count() == 4);
  CHECK(f.line_text(1) == "ab");
  CHECK(f.line_text(2) == "cd");
  CHECK(f.line_text(3) == "");
  CHECK(f.line_text(4) == "x\ry");  // a lone CR is not a line break
  CHECK(f.location(4) == LineCol{2, 1});
  CHECK(f.location(2) == LineCol{1, 3});  // the '\r'
  CHECK(f.line_end(1) == 2);
  CHECK(f.offset_from_utf16(0, 10) == 2);  // clamped before "\r\n"
  CHECK(f.offset_from_utf16(1, 1) == 5);
  CHECK(f.offset_from_utf16(2, 3) == 8);
}

TEST_CASE("byte-order mark is kept but not a column", "[source]") {
  std::string text =
      "\xEF\xBB\xBF"
      "def\nx";
  SourceFile f("a.rx", text);
  CHECK(f.has_bom());
  CHECK(f.text() == text);  // offsets stay exact
  CHECK(f.size() == 8);
  CHECK(f.location(3) == LineCol{1, 1});
  CHECK(f.location(0) == LineCol{1, 1});
  CHECK(f.location(4) == LineCol{1, 2});
  CHECK(f.location(7) == LineCol{2, 1});
  CHECK(f.line_text(1) == "def");
  CHECK(f.utf16_column(3) == 0);
  CHECK(f.utf16_column(5) == 2);
  CHECK(f.offset_from_utf16(0, 0) == 3);
  CHECK(f.offset_from_utf16(0, 1) == 4);
  CHECK(f.offset_of({1, 1}) == 3);

  SourceFile only_bom("b.rx", "\xEF\xBB\xBF");
  CHECK(only_bom.line_text(1) == "");
  CHECK(only_bom.location(3) == LineCol{1, 1});
  CHECK(!SourceFile("c.rx", "\xEF\xBB").has_bom());
}

TEST_CASE("UTF-16 columns: BMP and astral characters", "[source]") {
  // "é" is 2 bytes / 1 unit, "中" 3 bytes / 1 unit, "😀" (U+1F600) 4 bytes / 2 units.
  std::string text = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z\nq";
  SourceFile f("u.rx", text);
  CHECK(f.utf16_column(0) == 0);
  CHECK(f.utf16_column(1) == 1);   // before é
  CHECK(f.utf16_column(3) == 2);   // before 中
  CHECK(f.utf16_column(6) == 3);   // before 😀
  CHECK(f.utf16_column(10) == 5);  // before z
  CHECK(f.utf16_column(11) == 6);  // the '\n'
  CHECK(f.utf16_column(12) == 0);  // q
  // An offset inside a character counts only the characters before it.
  CHECK(f.utf16_column(2) == 1);
  CHECK(f.utf16_column(8) == 3);

  CHECK(f.offset_from_utf16(0, 0) == 0);
  CHECK(f.offset_from_utf16(0, 1) == 1);
  CHECK(f.offset_from_utf16(0, 2) == 3);
  CHECK(f.offset_from_utf16(0, 3) == 6);
  CHECK(f.offset_from_utf16(0, 4) == 6);  // inside the surrogate pair: start of the character
  CHECK(f.offset_from_utf16(0, 5) == 10);
  CHECK(f.offset_from_utf16(0, 6) == 11);
  CHECK(f.offset_from_utf16(0, 99) == 11);  // past the line's end
  CHECK(f.offset_from_utf16(1, 0) == 12);
  CHECK(f.offset_from_utf16(1, 1) == 13);
  CHECK(f.offset_from_utf16(2, 0) == f.size());  // past the last line
  CHECK(f.offset_from_utf16(UINT32_MAX, UINT32_MAX) == f.size());

  // Byte columns stay byte columns.
  CHECK(f.location(10) == LineCol{1, 11});

  // Round trip at every character boundary.
  for (uint32_t off : {0u, 1u, 3u, 6u, 10u, 11u})
    CHECK(f.offset_from_utf16(0, f.utf16_column(off)) == off);
}

TEST_CASE("UTF-16 columns survive invalid UTF-8", "[source]") {
  // 0xFF (invalid lead), a truncated 3-byte sequence (E4 B8) then 'x', a stray continuation
  // byte, an overlong 2-byte form (C0 AF), a surrogate encoding (ED A0 80), and a 4-byte
  // sequence cut off by the end of the text.
  std::string text =
      "\xFF"
      "a\xE4\xB8x\x80y\xC0\xAF\xED\xA0\x80z\xF0\x9F\x98";
  SourceFile f("bad.rx", text);
  // Units: FF=1, a=1, E4B8=1, x=1, 80=1, y=1, C0=1, AF=1, ED=1, A0=1, 80=1, z=1, F09F98=1
  CHECK(f.utf16_column(1) == 1);
  CHECK(f.utf16_column(2) == 2);
  CHECK(f.utf16_column(4) == 3);  // the truncated sequence is one replacement character
  CHECK(f.utf16_column(5) == 4);
  CHECK(f.utf16_column(6) == 5);
  CHECK(f.utf16_column(7) == 6);
  CHECK(f.utf16_column(12) == 11);
  CHECK(f.utf16_column(13) == 12);
  CHECK(f.utf16_column(f.size()) == 13);
  CHECK(f.offset_from_utf16(0, 3) == 4);
  CHECK(f.offset_from_utf16(0, 12) == 13);
  CHECK(f.offset_from_utf16(0, 13) == f.size());
  CHECK(f.offset_from_utf16(0, 100) == f.size());
  for (uint32_t off = 0; off <= f.size(); ++off) {
    uint32_t col = f.utf16_column(off);
    CHECK(f.offset_from_utf16(0, col) <= off);
  }
}

TEST_CASE("to_valid_utf8 replaces invalid sequences", "[source]") {
  CHECK(raxc::to_valid_utf8("abc") == "abc");
  CHECK(raxc::to_valid_utf8("\xC3\xA9") == "\xC3\xA9");
  CHECK(raxc::to_valid_utf8("a\xFF"
                            "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(raxc::to_valid_utf8("\xE4\xB8") == "\xEF\xBF\xBD");
  CHECK(raxc::to_valid_utf8("\xE4\xB8x") == "\xEF\xBF\xBDx");
}

TEST_CASE("SourceManager loads files and reports failures", "[source]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("raxc_source_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "x.rx";
  {
    std::ofstream out(file, std::ios::binary);
    out << "\xEF\xBB\xBF"
           "a\r\nb";
  }
  SourceManager sources;
  auto ok = sources.load(file.string());
  REQUIRE(ok.file != nullptr);
  CHECK(ok.error.empty());
  CHECK(ok.file->text() ==
        "\xEF\xBB\xBF"
        "a\r\nb");
  CHECK(ok.file->path() == file.string());
  CHECK(sources.find(file.string()) == ok.file);

  auto missing = sources.load((dir / "nope.rx").string());
  CHECK(missing.file == nullptr);
  CHECK(missing.error == "No such file or directory");

  auto directory = sources.load(dir.string());
  CHECK(directory.file == nullptr);
  CHECK(directory.error == "is a directory");

  const SourceFile& v = sources.add_virtual("buffer.rx", "x = 1\n");
  CHECK(v.line_count() == 2);
  CHECK(sources.find("buffer.rx") == &v);
  CHECK(sources.find("other.rx") == nullptr);
  CHECK(ok.file->text().size() == 7);  // earlier files stay valid
  fs::remove_all(dir);
}
