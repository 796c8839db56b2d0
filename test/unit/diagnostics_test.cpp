#include "frontend/diagnostics.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

using namespace raxc;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The renderer tests spell messages out, so that rewording a template never breaks them.
Diagnostic diag(DiagId id, Span span, std::string message) {
  return Diagnostic{id, Severity::Error, span, std::move(message), {}, {}};
}

}  // namespace

TEST_CASE("registry: every code is unique and well-formed", "[diagnostics]") {
  std::set<std::string> codes;
  size_t index = 0;
  for (const DiagInfo& entry : all_diagnostics()) {
    INFO("entry " << index << ": " << entry.code);
    std::string c = entry.code;
    // "RX" + 4 digits, first digit 1..5 (the stage ranges).
    REQUIRE(c.size() == 6);
    CHECK(c.substr(0, 2) == "RX");
    CHECK(std::all_of(c.begin() + 2, c.end(), is_digit));
    CHECK(c[2] >= '1');
    CHECK(c[2] <= '5');
    CHECK(codes.insert(c).second);
    // The enumerator is the code and entries are in enum order.
    CHECK(static_cast<size_t>(entry.id) == index);
    CHECK(code(entry.id) == c);
    CHECK(find_diagnostic(c) == entry.id);
    // RX4xxx holds warnings only.
    if (c[2] == '4') CHECK(entry.severity == Severity::Warning);
    // The message: non-empty, no trailing period or newline, placeholders {0}..{n-1}.
    std::string m = entry.message;
    REQUIRE(!m.empty());
    CHECK(m.back() != '.');
    CHECK(m.find('\n') == std::string::npos);
    std::set<int> placeholders;
    for (size_t i = 0; i < m.size(); ++i) {
      if (m[i] == '{' && i + 1 < m.size() && m[i + 1] == '{') {
        ++i;
        continue;
      }
      if (m[i] != '{') continue;
      size_t j = i + 1;
      while (j < m.size() && is_digit(m[j])) ++j;
      CHECK(j > i + 1);  // "{" must open a numbered placeholder (or be doubled)
      CHECK(j < m.size());
      if (j < m.size()) CHECK(m[j] == '}');
      if (j > i + 1) placeholders.insert(std::stoi(m.substr(i + 1, j - i - 1)));
      i = j;
    }
    int expected = 0;
    for (int p : placeholders) CHECK(p == expected++);
    ++index;
  }
  CHECK(index > 0);
  // Each code sits in its range's section: the range digit never decreases along the list.
  char section = '1';
  for (const DiagInfo& entry : all_diagnostics()) {
    INFO(entry.code << " is outside the RX" << section << "xxx section (or before it)");
    CHECK(entry.code[2] >= section);
    section = entry.code[2];
  }
  CHECK(!find_diagnostic("RX9999").has_value());
  CHECK(!find_diagnostic("").has_value());
}

TEST_CASE("the base syntax codes exist", "[diagnostics]") {
  CHECK(std::string(code(DiagId::RX1000)) == "RX1000");
  CHECK(default_severity(DiagId::RX1001) == Severity::Error);
  CHECK(std::string(message_template(DiagId::RX1002)).find("{0}") != std::string::npos);
}

TEST_CASE("format_message fills placeholders", "[diagnostics]") {
  CHECK(format_message("a {0} b {1}", {"x", "y"}) == "a x b y");
  CHECK(format_message("{1}{0}{1}", {"x", "y"}) == "yxy");
  CHECK(format_message("missing {0}", {}) == "missing {0}");  // visible, not silent
  CHECK(format_message("{{literal}} {0}", {"x"}) == "{literal} x");
  CHECK(format_message("{x} {", {"a"}) == "{x} {");
  CHECK(format_message("", {"a"}) == "");
  Diagnostic d = make_diagnostic(DiagId::RX1000, Span{0, 0}, {"a.rx", "No such file"});
  CHECK(d.message == format_message(message_template(DiagId::RX1000), {"a.rx", "No such file"}));
  CHECK(d.message.find("'a.rx'") != std::string::npos);
  CHECK(d.message.find("{") == std::string::npos);
  CHECK(d.severity == Severity::Error);
  CHECK(d.id == DiagId::RX1000);
  CHECK(d.related.empty());
}

TEST_CASE("sink counts and applies severity settings", "[diagnostics]") {
  DiagnosticSink sink;
  sink.report(make_diagnostic(DiagId::RX1001, {0, 1}, {"'x'"}));
  Diagnostic warning = make_diagnostic(DiagId::RX1002, {0, 1}, {"':'"});
  warning.severity = Severity::Warning;  // the registry has no warning yet: fake one
  sink.report(warning);
  Diagnostic note = make_diagnostic(DiagId::RX1002, {0, 1}, {"':'"});
  note.severity = Severity::Note;
  sink.report(note);
  CHECK(sink.error_count() == 1);
  CHECK(sink.warning_count() == 1);
  CHECK(sink.has_errors());
  CHECK(sink.diagnostics().size() == 3);
  auto taken = sink.take();
  CHECK(taken.size() == 3);
  CHECK(sink.diagnostics().empty());
  CHECK(sink.error_count() == 0);

  SECTION("errors as warnings") {
    sink.set_errors_as_warnings(true);
    sink.report(make_diagnostic(DiagId::RX1001, {0, 1}, {"'x'"}));
    CHECK(sink.error_count() == 0);
    CHECK(sink.warning_count() == 1);
    CHECK(sink.diagnostics()[0].severity == Severity::Warning);
  }
  SECTION("warnings as errors") {
    sink.set_warnings_as_errors(true);
    sink.report(warning);
    sink.report(note);
    CHECK(sink.error_count() == 1);
    CHECK(sink.warning_count() == 0);
    CHECK(sink.diagnostics()[1].severity == Severity::Note);
  }
  SECTION("errors cannot be disabled, other codes can") {
    CHECK(!sink.set_enabled(DiagId::RX1001, false));
    CHECK(sink.is_enabled(DiagId::RX1001));
    sink.report(make_diagnostic(DiagId::RX1001, {0, 1}, {"'x'"}));
    CHECK(sink.error_count() == 1);
    for (const DiagInfo& entry : all_diagnostics()) {
      if (entry.severity == Severity::Error) continue;
      CHECK(sink.set_enabled(entry.id, false));
      CHECK(!sink.is_enabled(entry.id));
      sink.report(make_diagnostic(entry.id, {0, 0}));
      CHECK(sink.diagnostics().size() == 1);
      CHECK(sink.set_enabled(entry.id, true));
    }
  }
  SECTION("per-code severity override") {
    sink.set_severity(DiagId::RX1002, Severity::Error);
    sink.report(warning);
    CHECK(sink.error_count() == 1);
    CHECK(sink.diagnostics()[0].severity == Severity::Error);
  }
}

TEST_CASE("text renderer: clang style with caret and underline", "[diagnostics]") {
  SourceFile file("t.rx", "x = 1\ndef f(x)\n    return x\n");
  Diagnostic d = diag(DiagId::RX1002, Span{14, 14}, "missing ':'");
  CHECK(render_text(file, d, false) ==
        "t.rx:2:9: error: missing ':' [RX1002]\n"
        "def f(x)\n"
        "        ^\n");

  Diagnostic range = diag(DiagId::RX1001, Span{6, 9}, "unexpected 'def'");
  range.note(Span{0, 1}, "first use of 'x'");
  CHECK(render_text(file, range, false) ==
        "t.rx:2:1: error: unexpected 'def' [RX1001]\n"
        "def f(x)\n"
        "^~~\n"
        "t.rx:1:1: note: first use of 'x'\n"
        "x = 1\n"
        "^\n");

  // A span running over several lines is underlined to the end of its first line.
  Diagnostic multi = diag(DiagId::RX1001, Span{10, 30}, "unexpected 'f'");
  CHECK(render_text(file, multi, false) ==
        "t.rx:2:5: error: unexpected 'f' [RX1001]\n"
        "def f(x)\n"
        "    ^~~~\n");

  // A list renders every diagnostic in order.
  CHECK(render_text(file, std::vector<Diagnostic>{d, d}, false) ==
        render_text(file, d, false) + render_text(file, d, false));
}

TEST_CASE("text renderer: tabs, UTF-8, CRLF, clamping, empty files", "[diagnostics]") {
  SourceFile tabs("t.rx", "\tx =\t\xC3\xA9y\r\nz");
  // caret under 'y' (offset 7): the tabs are copied, é takes one column.
  Diagnostic d = diag(DiagId::RX1001, Span{7, 8}, "unexpected 'y'");
  CHECK(render_text(tabs, d, false) ==
        "t.rx:1:8: error: unexpected 'y' [RX1001]\n"
        "\tx =\t\xC3\xA9y\n"
        "\t   \t ^\n");

  // Spans past the end are clamped to the file.
  SourceFile small("s.rx", "ab");
  Diagnostic past = diag(DiagId::RX1001, Span{50, 60}, "unexpected end of file");
  CHECK(render_text(small, past, false) ==
        "s.rx:1:3: error: unexpected end of file [RX1001]\n"
        "ab\n"
        "  ^\n");

  // Control characters are not sent to the terminal.
  SourceFile control("c.rx", "a\x1b[2Jb");
  Diagnostic ctl = diag(DiagId::RX1001, Span{1, 2}, "unexpected control character");
  CHECK(render_text(control, ctl, false).find('\x1b') == std::string::npos);

  // An empty (e.g. unreadable) file: just the header.
  SourceFile empty("gone.rx", "");
  Diagnostic io =
      diag(DiagId::RX1000, Span{}, "cannot read file 'gone.rx': No such file or directory");
  CHECK(render_text(empty, io, false) ==
        "gone.rx:1:1: error: cannot read file 'gone.rx': No such file or directory [RX1000]\n");
}

TEST_CASE("text renderer: a long line is shown as a window around the caret", "[diagnostics]") {
  // 1000 '[' then 'x': the caret on 'x' is shown with 80 bytes before it and "..." for the cut.
  std::string line(1000, '[');
  SourceFile file("long.rx", line + "x" + std::string(500, ']') + "\n");
  Diagnostic d = diag(DiagId::RX1001, Span{1000, 1001}, "unexpected 'x'");
  std::string text = render_text(file, d, false);
  std::string shown = "..." + std::string(80, '[') + "x" + std::string(119, ']') + "...";
  CHECK(text == "long.rx:1:1001: error: unexpected 'x' [RX1001]\n" + shown + "\n" +
                    std::string(83, ' ') + "^\n");

  // A caret near the start keeps the line's beginning; a short line is never cut.
  Diagnostic start = diag(DiagId::RX1001, Span{2, 3}, "unexpected '['");
  CHECK(render_text(file, start, false).find("\n[[[") != std::string::npos);
  SourceFile short_line("s.rx", std::string(199, '[') + "\n");
  Diagnostic whole = diag(DiagId::RX1001, Span{198, 199}, "unexpected '['");
  CHECK(render_text(short_line, whole, false).find("...") == std::string::npos);

  // A window never starts inside a UTF-8 character.
  std::string euros;  // three bytes each: 80 bytes before the caret falls inside one
  for (int i = 0; i < 300; ++i) euros += "\xE2\x82\xAC";
  SourceFile utf8("u.rx", euros + "y\n");
  Diagnostic y = diag(DiagId::RX1001, Span{900, 901}, "unexpected 'y'");
  std::string rendered = render_text(utf8, y, false);
  size_t cut = rendered.find("...");
  REQUIRE(cut != std::string::npos);
  CHECK(static_cast<unsigned char>(rendered[cut + 3]) == 0xE2);
}

TEST_CASE("text renderer: colour only when asked", "[diagnostics]") {
  SourceFile file("t.rx", "def f(x)\n");
  Diagnostic d = diag(DiagId::RX1002, Span{8, 8}, "missing ':'");
  std::string plain = render_text(file, d, false);
  std::string colored = render_text(file, d, true);
  CHECK(plain.find('\x1b') == std::string::npos);
  CHECK(colored.find("\x1b[1;31merror: ") != std::string::npos);
  CHECK(colored.find("\x1b[0m") != std::string::npos);
  // Stripping the escapes gives the plain text back.
  std::string stripped;
  for (size_t i = 0; i < colored.size(); ++i) {
    if (colored[i] == '\x1b') {
      while (colored[i] != 'm') ++i;
      continue;
    }
    stripped += colored[i];
  }
  CHECK(stripped == plain);
}

TEST_CASE("JSON renderer", "[diagnostics]") {
  SourceFile file("dir/t.rx", "x = 1\ndef f(x)\n");
  Diagnostic d = diag(DiagId::RX1001, Span{6, 9}, "unexpected 'def'");
  d.note(Span{0, 1}, "see here");
  nlohmann::json j = render_json(file, std::vector<Diagnostic>{d});
  nlohmann::json expected = nlohmann::json::parse(R"({
    "file": "dir/t.rx",
    "diagnostics": [{
      "code": "RX1001",
      "severity": "error",
      "message": "unexpected 'def'",
      "range": {"start": {"line": 2, "column": 1, "offset": 6},
                "end": {"line": 2, "column": 4, "offset": 9}},
      "related": [{"message": "see here",
                   "range": {"start": {"line": 1, "column": 1, "offset": 0},
                             "end": {"line": 1, "column": 2, "offset": 1}}}]
    }]
  })");
  CHECK(j == expected);

  nlohmann::json none = render_json(file, std::vector<Diagnostic>{});
  CHECK(none["diagnostics"].is_array());
  CHECK(none["diagnostics"].empty());

  // Invalid UTF-8 in a message never makes the JSON unprintable.
  Diagnostic bad = diag(DiagId::RX1001, Span{0, 1}, "unexpected '\xFF'");
  nlohmann::json b = render_json(file, std::vector<Diagnostic>{bad});
  CHECK_NOTHROW(b.dump());
  CHECK(b["diagnostics"][0]["message"] == "unexpected '\xEF\xBF\xBD'");

  // Severities and clamped, reversed spans.
  Diagnostic w = diag(DiagId::RX1002, Span{9, 2}, "missing x");
  w.severity = Severity::Warning;
  nlohmann::json wj = render_json_diagnostic(file, w);
  CHECK(wj["severity"] == "warning");
  CHECK(wj["range"]["start"]["offset"] == 9);
  CHECK(wj["range"]["end"]["offset"] == 9);
}
