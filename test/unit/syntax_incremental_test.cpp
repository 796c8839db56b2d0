// The incremental syntax check of frontend/document.cpp (each definition checked on its own,
// the results put together) against the whole-file check: over replays of typing, broken lines
// of every kind, the diagnostics of the edited document equal those of the same text opened
// afresh, and the incremental path is taken for most keystrokes.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/document.h"

namespace {

using raxc::Diagnostic;
using raxc::frontend::Document;
using raxc::frontend::TextEdit;

std::string read(const std::string& path) {
  std::ifstream in(std::string(RAXC_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> described(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics)
    out.push_back(std::string(raxc::code(d.id)) + " " + std::to_string(d.span.begin) + "-" +
                  std::to_string(d.span.end) + " " + d.message);
  return out;
}

// Opens a line at `at` with `line`'s indentation (as an editor does on Enter), types the rest
// of `line` one character at a time, deletes it one character at a time and removes the line;
// at every state compares the edited document with a fresh one. Returns the number of states
// whose syntax check was incremental.
size_t replay(Document& doc, uint32_t at, const std::string& line, size_t& states) {
  size_t incremental = 0;
  auto edit = [&](uint32_t begin, uint32_t end, std::string text) {
    TextEdit e{begin, end, std::move(text)};
    doc.apply(std::span<const TextEdit>(&e, 1));
    ++states;
    if (!doc.stats().full_syntax_check) ++incremental;
    Document fresh(doc.text());
    INFO("text:\n" << doc.text());
    REQUIRE(described(doc.diagnostics()) == described(fresh.diagnostics()));
  };
  uint32_t indent = uint32_t(line.find_first_not_of(' '));
  std::string rest = line.substr(indent, line.size() - indent - 1);  // without its '\n'
  edit(at, at, line.substr(0, indent) + "\n");
  uint32_t cursor = at + indent;
  for (size_t i = 0; i < rest.size(); ++i)
    edit(cursor + uint32_t(i), cursor + uint32_t(i), rest.substr(i, 1));
  for (size_t i = rest.size(); i > 0; --i) edit(cursor + uint32_t(i - 1), cursor + uint32_t(i), "");
  edit(at, at + indent + 1, "");
  return incremental;
}

// The offset of the start of the line holding `needle`.
uint32_t line_of(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  size_t start = text.rfind('\n', at);
  return start == std::string::npos ? 0 : uint32_t(start + 1);
}

TEST_CASE("the incremental syntax check equals the whole-file check while typing",
          "[syntax][document]") {
  std::string mlp = read("examples/mlp.rx");
  std::string tir = read("examples/mlp_tir.rx");
  const std::vector<std::string> lines = {
      "            zz = R.nn.\n",           // a half-typed attribute
      "            zz = R.add(h, \n",       // an unclosed call
      "            zz = R.add(h, (1, [\n",  // brackets of every kind left open
      "            zz = undefined_name\n",  // lowering, not syntax
      "            zz = R.add(h h)\n",      // operands side by side
      "              zz = h\n",             // an unexpected indent
      "            zz = \"abc\n",           // a string left open: the whole-file check
      "        def\n",                      // a header without its ':'
      "            zz = R.add(h, x]\n",     // a mismatched closer (names a line)
  };
  size_t states = 0, incremental = 0;
  for (const std::string& text : {mlp, tir}) {
    Document doc(text);
    uint32_t at = line_of(text, "R.output(");
    for (const std::string& line : lines) incremental += replay(doc, at, line, states);
  }
  // Most states must have been checked incrementally, else this test compares the whole-file
  // check with itself.
  CHECK(incremental * 2 > states);
}

TEST_CASE("an unclosed call is one diagnostic, checked incrementally", "[syntax][document]") {
  std::string text = read("examples/mlp.rx");
  Document doc(text);
  uint32_t at = line_of(text, "R.output(");
  std::string broken = "            zz = R.add(h, \n";
  TextEdit e{at, at, broken};
  doc.apply(std::span<const TextEdit>(&e, 1));
  std::vector<std::string> found = described(doc.diagnostics());
  REQUIRE(found.size() == 1);
  CHECK(found[0].rfind("RX1008", 0) == 0);
  CHECK(!doc.stats().full_syntax_check);
  CHECK(described(Document(doc.text()).diagnostics()) == found);
}

TEST_CASE("a stray indent is one diagnostic, checked incrementally", "[syntax][document]") {
  // A space typed before a statement of the first function (a PrimFunc): the rest of the module
  // keeps its structure (no cascade of top-level definitions), the check is composed from the
  // definitions' checks, and a later function's own error is still reported (then the whole
  // file is checked: two definitions report). Before the body's first line the space makes the
  // block deeper, and its second line the mismatch.
  std::string text = read("examples/mlp.rx");
  uint32_t last = line_of(text, "R.output(");
  TextEdit later{last, last, "            zz = R.add(h h)\n"};
  for (auto [body_line, code] : {std::pair{1, "RX1007"}, std::pair{0, "RX1005"}}) {
    for (bool later_error : {false, true}) {
      Document doc(text);
      if (later_error) doc.apply(std::span<const TextEdit>(&later, 1));
      uint32_t at = uint32_t(doc.text().find('\n', doc.text().find("def add_bias")) + 1);
      for (int i = 0; i < body_line; ++i) at = uint32_t(doc.text().find('\n', at) + 1);
      TextEdit space{at, at, " "};
      doc.apply(std::span<const TextEdit>(&space, 1));
      std::vector<std::string> found = described(doc.diagnostics());
      INFO(code << (later_error ? " with a later error" : "") << ", text:\n" << doc.text());
      REQUIRE(found.size() == (later_error ? 2u : 1u));
      CHECK(found[0].rfind(code, 0) == 0);
      if (later_error) CHECK(found[1].rfind("RX1027", 0) == 0);
      // (The mismatched line ends the function's block in the tree: the rest of its body is
      // then outside any definition, which only the whole-file check sees.)
      if (!later_error && body_line == 1) CHECK(!doc.stats().full_syntax_check);
      CHECK(described(Document(doc.text()).diagnostics()) == found);
    }
  }
}

}  // namespace
