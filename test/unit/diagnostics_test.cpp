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
Diagnostic spelled(DiagId id, Span span, std::string message) {
  return Diagnostic{id, Severity::Error, span, std::move(message), {}, nullptr, {}};
}

}  // namespace

TEST_CASE("registry: every code is unique and well-formed", "[diagnostics]") {
  std::set<std::string> codes, names;
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
    // The message: non-empty, no trailing period or newline; its placeholders are exactly the
    // entry's arguments, each used.
    std::string m = entry.message;
    REQUIRE(!m.empty());
    CHECK(m.back() != '.');
    CHECK(m.find('\n') == std::string::npos);
    std::set<std::string> placeholders;
    for (size_t i = 0; i < m.size(); ++i) {
      if (m[i] == '{' && i + 1 < m.size() && m[i + 1] == '{') {
        ++i;
        continue;
      }
      if (m[i] != '{') continue;
      size_t close = m.find('}', i);
      REQUIRE(close != std::string::npos);
      placeholders.insert(m.substr(i + 1, close - i - 1));
      i = close;
    }
    std::set<std::string> arguments;
    for (const ArgInfo& a : entry.args) CHECK(arguments.insert(a.name).second);
    CHECK(placeholders == arguments);
    CHECK(names.insert(entry.name).second);  // one struct per entry
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
  CHECK(std::string(info(DiagId::RX1000).name) == "CannotReadFile");
  CHECK(default_severity(DiagId::RX1001) == Severity::Error);
  CHECK(std::string(message_template(DiagId::RX1002)).find("{what}") != std::string::npos);
}

TEST_CASE("format_message fills named placeholders", "[diagnostics]") {
  CHECK(format_message("a {x} b {y}", {{"x", "1"}, {"y", "2"}}) == "a 1 b 2");
  CHECK(format_message("{y}{x}{y}", {{"x", "1"}, {"y", "2"}}) == "212");
  CHECK(format_message("missing {x}", {}) == "missing {x}");  // visible, not silent
  CHECK(format_message("{{literal}} {x}", {{"x", "1"}}) == "{literal} 1");
  CHECK(format_message("{not a name} {", {{"x", "1"}}) == "{not a name} {");
  CHECK(format_message("", {{"x", "1"}}) == "");
}

TEST_CASE("a diagnostic keeps its typed arguments", "[diagnostics]") {
  Diagnostic d =
      make_diagnostic(diag::CannotReadFile{.path = "a.rx", .reason = "No such file"}, Span{0, 0});
  CHECK(d.message == "cannot read file 'a.rx': No such file");
  CHECK(d.severity == Severity::Error);
  CHECK(d.id == DiagId::RX1000);
  CHECK(d.related.empty());
  const auto* args = d.as<diag::CannotReadFile>();
  REQUIRE(args != nullptr);
  CHECK(args->path == "a.rx");
  CHECK(args->reason == "No such file");
  CHECK(d.as<diag::UnexpectedToken>() == nullptr);  // another entry: no payload of that type
  auto named = arguments(d);
  REQUIRE(named.size() == 2);
  CHECK(std::string(named[0].first) == "path");
  CHECK(named[1].second == "No such file");

  // Integers are typed: a site passes the number, the message prints it.
  Diagnostic depth = make_diagnostic(diag::RecursionTooDeep{.max_depth = size_t(4096)}, Span{});
  CHECK(depth.as<diag::RecursionTooDeep>()->max_depth.value == 4096);
  CHECK(depth.message.find("4096") != std::string::npos);
}

TEST_CASE("positional arguments at the runtime's boundary", "[diagnostics]") {
  // The runtime of a built library fills the positional form of a template.
  CHECK(positional_template(DiagId::RX5011) ==
        "'{0}' axis {1}: index {2} is out of bounds for extent {3}");
  DiagPayload payload = DiagPayload::from_positional(DiagId::RX5011, {"A", "1", "7", "4"});
  Diagnostic d = make_diagnostic(payload, Span{});
  CHECK(d.message == "'A' axis 1: index 7 is out of bounds for extent 4");
  const auto* args = d.as<diag::IndexOutOfBounds>();
  REQUIRE(args != nullptr);
  CHECK(args->buffer == "A");
  CHECK(args->index.value == 7);
  CHECK(args->extent.value == 4);
}

TEST_CASE("JSON carries the arguments by name", "[diagnostics]") {
  SourceFile file("t.rx", "x\n");
  nlohmann::json j = render_json_diagnostic(
      file, make_diagnostic(diag::UnusedBinding{.binding = "x"}, Span{0, 1}));
  CHECK(j["arguments"]["binding"] == "x");
}

TEST_CASE("sink counts and applies severity settings", "[diagnostics]") {
  DiagnosticSink sink;
  sink.report(make_diagnostic(diag::UnexpectedToken{.token = "'x'"}, {0, 1}));
  Diagnostic warning = make_diagnostic(diag::MissingToken{.what = "':'"}, {0, 1});
  warning.severity = Severity::Warning;  // the registry has no warning yet: fake one
  sink.report(warning);
  Diagnostic note = make_diagnostic(diag::MissingToken{.what = "':'"}, {0, 1});
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
    sink.report(make_diagnostic(diag::UnexpectedToken{.token = "'x'"}, {0, 1}));
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
    sink.report(make_diagnostic(diag::UnexpectedToken{.token = "'x'"}, {0, 1}));
    CHECK(sink.error_count() == 1);
    for (const DiagInfo& entry : all_diagnostics()) {
      if (entry.severity == Severity::Error) continue;
      CHECK(sink.set_enabled(entry.id, false));
      CHECK(!sink.is_enabled(entry.id));
      sink.report(make_diagnostic(DiagPayload::from_positional(entry.id, {}), {0, 0}));
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
  Diagnostic d = spelled(DiagId::RX1002, Span{14, 14}, "missing ':'");
  CHECK(render_text(file, d, false) ==
        "t.rx:2:9: error: missing ':' [RX1002]\n"
        "def f(x)\n"
        "        ^\n");

  Diagnostic range = spelled(DiagId::RX1001, Span{6, 9}, "unexpected 'def'");
  range.note(Span{0, 1}, "first use of 'x'");
  CHECK(render_text(file, range, false) ==
        "t.rx:2:1: error: unexpected 'def' [RX1001]\n"
        "def f(x)\n"
        "^~~\n"
        "t.rx:1:1: note: first use of 'x'\n"
        "x = 1\n"
        "^\n");

  // A span running over several lines is underlined to the end of its first line.
  Diagnostic multi = spelled(DiagId::RX1001, Span{10, 30}, "unexpected 'f'");
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
  Diagnostic d = spelled(DiagId::RX1001, Span{7, 8}, "unexpected 'y'");
  CHECK(render_text(tabs, d, false) ==
        "t.rx:1:8: error: unexpected 'y' [RX1001]\n"
        "\tx =\t\xC3\xA9y\n"
        "\t   \t ^\n");

  // Spans past the end are clamped to the file.
  SourceFile small("s.rx", "ab");
  Diagnostic past = spelled(DiagId::RX1001, Span{50, 60}, "unexpected end of file");
  CHECK(render_text(small, past, false) ==
        "s.rx:1:3: error: unexpected end of file [RX1001]\n"
        "ab\n"
        "  ^\n");

  // Control characters are not sent to the terminal.
  SourceFile control("c.rx", "a\x1b[2Jb");
  Diagnostic ctl = spelled(DiagId::RX1001, Span{1, 2}, "unexpected control character");
  CHECK(render_text(control, ctl, false).find('\x1b') == std::string::npos);

  // An empty (e.g. unreadable) file: just the header.
  SourceFile empty("gone.rx", "");
  Diagnostic io =
      spelled(DiagId::RX1000, Span{}, "cannot read file 'gone.rx': No such file or directory");
  CHECK(render_text(empty, io, false) ==
        "gone.rx:1:1: error: cannot read file 'gone.rx': No such file or directory [RX1000]\n");
}

TEST_CASE("text renderer: a long line is shown as a window around the caret", "[diagnostics]") {
  // 1000 '[' then 'x': the caret on 'x' is shown with 80 bytes before it and "..." for the cut.
  std::string line(1000, '[');
  SourceFile file("long.rx", line + "x" + std::string(500, ']') + "\n");
  Diagnostic d = spelled(DiagId::RX1001, Span{1000, 1001}, "unexpected 'x'");
  std::string text = render_text(file, d, false);
  std::string shown = "..." + std::string(80, '[') + "x" + std::string(119, ']') + "...";
  CHECK(text == "long.rx:1:1001: error: unexpected 'x' [RX1001]\n" + shown + "\n" +
                    std::string(83, ' ') + "^\n");

  // A caret near the start keeps the line's beginning; a short line is never cut.
  Diagnostic start = spelled(DiagId::RX1001, Span{2, 3}, "unexpected '['");
  CHECK(render_text(file, start, false).find("\n[[[") != std::string::npos);
  SourceFile short_line("s.rx", std::string(199, '[') + "\n");
  Diagnostic whole = spelled(DiagId::RX1001, Span{198, 199}, "unexpected '['");
  CHECK(render_text(short_line, whole, false).find("...") == std::string::npos);

  // A window never starts inside a UTF-8 character.
  std::string euros;  // three bytes each: 80 bytes before the caret falls inside one
  for (int i = 0; i < 300; ++i) euros += "\xE2\x82\xAC";
  SourceFile utf8("u.rx", euros + "y\n");
  Diagnostic y = spelled(DiagId::RX1001, Span{900, 901}, "unexpected 'y'");
  std::string rendered = render_text(utf8, y, false);
  size_t cut = rendered.find("...");
  REQUIRE(cut != std::string::npos);
  CHECK(static_cast<unsigned char>(rendered[cut + 3]) == 0xE2);
}

TEST_CASE("text renderer: colour only when asked", "[diagnostics]") {
  SourceFile file("t.rx", "def f(x)\n");
  Diagnostic d = spelled(DiagId::RX1002, Span{8, 8}, "missing ':'");
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
  Diagnostic d = spelled(DiagId::RX1001, Span{6, 9}, "unexpected 'def'");
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
      "arguments": {},
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
  Diagnostic bad = spelled(DiagId::RX1001, Span{0, 1}, "unexpected '\xFF'");
  nlohmann::json b = render_json(file, std::vector<Diagnostic>{bad});
  CHECK_NOTHROW(b.dump());
  CHECK(b["diagnostics"][0]["message"] == "unexpected '\xEF\xBF\xBD'");

  // Severities and clamped, reversed spans.
  Diagnostic w = spelled(DiagId::RX1002, Span{9, 2}, "missing x");
  w.severity = Severity::Warning;
  nlohmann::json wj = render_json_diagnostic(file, w);
  CHECK(wj["severity"] == "warning");
  CHECK(wj["range"]["start"]["offset"] == 9);
  CHECK(wj["range"]["end"]["offset"] == 9);
}
