// ide::format_hunks: a formatted text as line hunks of the original. Applying the hunks must give
// the formatted text exactly (random edits, and a rewrite beyond the diff's edit cap); an edit of
// one line is one hunk of that line; range formatting keeps only the hunks touching its lines.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "ide/ide.h"

using namespace raxc;

namespace {

std::string apply_hunks(const std::string& text, const std::vector<ide::TextHunk>& hunks) {
  std::string out;
  uint32_t at = 0;
  for (const ide::TextHunk& h : hunks) {
    REQUIRE(h.replaced.begin >= at);
    out += text.substr(at, h.replaced.begin - at) + h.text;
    at = h.replaced.end;
  }
  return out + text.substr(at);
}

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

}  // namespace

TEST_CASE("format hunks reproduce the formatted text") {
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> before, after;
    int n = int(random() % 40);
    for (int i = 0; i < n; ++i) before.push_back("line " + std::to_string(random() % 12));
    after = before;
    int edits = int(random() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t at = after.empty() ? 0 : random() % after.size();
      switch (random() % 3) {
        case 0: after.insert(after.begin() + at, "new " + std::to_string(e)); break;
        case 1:
          if (!after.empty()) after.erase(after.begin() + at);
          break;
        default:
          if (!after.empty()) after[at] = "changed " + std::to_string(e);
      }
    }
    std::string text = join(before), formatted = join(after);
    if (round % 5 == 0 && !formatted.empty()) formatted.pop_back();  // no final newline
    CHECK(apply_hunks(text, ide::format_hunks(text, formatted)) == formatted);
  }
}

TEST_CASE("format hunks touch only the changed lines") {
  std::string text = "a\nb\nc\nd\ne\n";
  auto hunks = ide::format_hunks(text, "a\nb\nC\nd\ne\n");
  REQUIRE(hunks.size() == 1);
  CHECK(text.substr(hunks[0].replaced.begin, hunks[0].replaced.end - hunks[0].replaced.begin) ==
        "c\n");
  CHECK(hunks[0].text == "C\n");
  CHECK(ide::format_hunks(text, text).empty());

  SECTION("range formatting keeps the hunks on its lines") {
    std::string formatted = "A\nb\nc\nd\nE\n";
    CHECK(ide::format_hunks(text, formatted).size() == 2);
    auto first = ide::format_hunks(text, formatted, std::pair<uint32_t, uint32_t>{0, 1});
    REQUIRE(first.size() == 1);
    CHECK(first[0].text == "A\n");
  }
}

TEST_CASE("format hunks of a whole rewrite stay correct past the diff's edit cap") {
  std::vector<std::string> before, after;
  for (int i = 0; i < 3000; ++i) before.push_back("old " + std::to_string(i));
  for (int i = 0; i < 3000; ++i) after.push_back("new " + std::to_string(i));
  before.insert(before.begin(), "same head");
  after.insert(after.begin(), "same head");
  std::string text = join(before), formatted = join(after);
  auto hunks = ide::format_hunks(text, formatted);
  CHECK(apply_hunks(text, hunks) == formatted);
  REQUIRE(hunks.size() == 1);
  CHECK(hunks[0].replaced.begin == std::string("same head\n").size());
}
