// Syntax diagnostics (frontend/syntax.cpp) through frontend::parse_file: one precise diagnostic
// per mistake, at the right place, and no cascades into the lowering.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "frontend/source.h"

namespace raxc::frontend {
namespace {

// "RX1003 1:9 expected ':' after function signature" for each diagnostic.
std::vector<std::string> diagnose(const std::string& text, bool syntax_only = false) {
  SourceFile file("t.rx", text);
  ParsedFile parsed = parse_file(text);
  std::vector<std::string> out;
  for (const Diagnostic& d : parsed.diagnostics) {
    std::string c = code(d.id);
    if (syntax_only && c >= "RX1100") continue;
    LineCol at = file.location(d.span.begin);
    out.push_back(c + " " + std::to_string(at.line) + ":" + std::to_string(at.column) + " " +
                  d.message);
  }
  return out;
}

std::vector<std::string> syntax(const std::string& text) { return diagnose(text, true); }

// A Relax function around `body` (indented by 4), so that only the body's problems show.
std::string relax(const std::string& body) {
  return "from tvm.script import relax as R\n\n@R.function\n"
         "def f(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n" +
         body + "    return x\n";
}

TEST_CASE("a missing ':' is reported at the end of the header", "[syntax]") {
  CHECK(syntax("def f(x)\n    return x\n") ==
        std::vector<std::string>{"RX1003 1:9 expected ':' after function signature"});
  CHECK(syntax("def f(x) -> R.Tensor\n    return x\n") ==
        std::vector<std::string>{"RX1003 1:21 expected ':' after function signature"});
  CHECK(syntax(relax("    if x\n        y = x\n")) ==
        std::vector<std::string>{"RX1003 5:9 expected ':' after 'if' condition"});
  CHECK(syntax("class M\n    pass\n") ==
        std::vector<std::string>{"RX1003 1:8 expected ':' after class name"});
  CHECK(syntax(relax("    with R.dataflow()\n        y = x\n")) ==
        std::vector<std::string>{"RX1003 5:22 expected ':' after 'with' item"});
}

TEST_CASE("an unclosed bracket is reported at the bracket", "[syntax]") {
  std::string text = relax("    y = R.add(x, x\n");
  CHECK(diagnose(text) == std::vector<std::string>{"RX1008 5:14 '(' was never closed"});
  CHECK(syntax("x = [1, (2, 3]\n") ==
        std::vector<std::string>{"RX1017 1:14 closing ']' does not match opening '(' on line 1"});
  CHECK(syntax("x = 1)\n") == std::vector<std::string>{"RX1016 1:6 unmatched ')'"});
}

TEST_CASE("indentation errors", "[syntax]") {
  CHECK(syntax(relax("    if x:\n    y = x\n")) ==
        std::vector<std::string>{
            "RX1004 6:5 expected an indented block after 'if' statement on line 5"});
  CHECK(syntax("def f(x):\n") ==
        std::vector<std::string>{
            "RX1004 2:1 expected an indented block after function definition on line 1"});
  CHECK(syntax(relax("    y = x\n        z = x\n")) ==
        std::vector<std::string>{"RX1007 6:9 unexpected indent"});
  CHECK(syntax(relax("        y = x\n  z = x\n")) ==
        std::vector<std::string>{"RX1005 6:3 unindent does not match any outer indentation level"});
  // Python's rule: a tab is 8 columns for the comparison, but also 1; both must agree.
  CHECK(syntax("def f(x):\n\tif x:\n\t\ty = 1\n        \tz = 2\n") ==
        std::vector<std::string>{
            "RX1013 4:1 inconsistent use of tabs and spaces in indentation (a tab counts as 8 "
            "columns here but as 1 in the enclosing block)"});
  CHECK(syntax("def f(x):\n\ty = 1\n\tz = 2\n").empty());  // tabs only: consistent
}

TEST_CASE("lexical errors", "[syntax]") {
  CHECK(syntax("x = 1 \xC2\xA7 2\n") ==
        std::vector<std::string>{"RX1006 1:7 invalid character '\xC2\xA7' (U+00A7)"});
  CHECK(syntax("x = 1\x01\n") ==
        std::vector<std::string>{"RX1006 1:6 invalid character U+0001 (a control character)"});
  CHECK(syntax("x = \"abc\n") ==
        std::vector<std::string>{"RX1011 1:5 unterminated string literal"});
  CHECK(syntax("x = '''abc\n\ny = 2\n") ==
        std::vector<std::string>{"RX1011 1:5 unterminated triple-quoted string literal"});
  CHECK(syntax("x = 1 \\ 2\n") ==
        std::vector<std::string>{
            "RX1026 1:7 unexpected character after line continuation character '\\'"});
  CHECK(syntax("x = f\"a{b}\"\n") ==
        std::vector<std::string>{
            "RX1020 1:5 f-strings are not supported; write a plain string literal"});
  CHECK(syntax("# caf\xFF\n") ==
        std::vector<std::string>{"RX1018 1:6 the file is not valid UTF-8: byte 0xFF cannot "
                                 "start or continue a character here"});
  // Non-ASCII text is fine in strings and comments.
  CHECK(syntax("# caf\xC3\xA9\nx = \"\xC3\xA9\"\n").empty());
}

TEST_CASE("reserved keywords, operands, clauses", "[syntax]") {
  CHECK(syntax(relax("    yield x\n")) ==
        std::vector<std::string>{"RX1009 5:5 'yield' is a reserved Python keyword; the Relax text "
                                 "format does not use it"});
  CHECK(syntax(relax("    y = x.yield\n")).empty());  // after '.', any word is an attribute
  CHECK(syntax(relax("    y =\n")) ==
        std::vector<std::string>{"RX1012 5:7 expected an expression after '='"});
  CHECK(syntax(relax("    y = R.sum(x, axis=)\n")) ==
        std::vector<std::string>{"RX1012 5:22 expected an expression after '='"});
  CHECK(syntax(relax("    y = x +\n")) ==
        std::vector<std::string>{"RX1012 5:11 expected an expression after '+'"});
  CHECK(syntax(relax("    y = x.\n")) ==
        std::vector<std::string>{"RX1021 5:10 expected an attribute name after '.'"});
  CHECK(syntax(relax("    else:\n        y = x\n")) ==
        std::vector<std::string>{"RX1025 5:5 'else' without a matching 'if'"});
  CHECK(syntax(relax("    y = [a for a in x]\n")) ==
        std::vector<std::string>{
            "RX1022 5:12 comprehensions are not supported; write the elements out"});
  CHECK(
      syntax("def f(x=1):\n    return x\n") ==
      std::vector<std::string>{
          "RX1023 1:8 a default value for parameter 'x' is not supported in a function signature"});
  CHECK(syntax("def f(*args):\n    return x\n") ==
        std::vector<std::string>{
            "RX1023 1:7 '*args' in the parameter list is not supported in a function signature"});
  CHECK(syntax(relax("    y: R.Tensor\n")) ==
        std::vector<std::string>{
            "RX1024 5:5 annotated name 'y' needs a value: 'y: <annotation> = <value>'"});
}

TEST_CASE("what the grammar accepts but the format does not", "[syntax]") {
  CHECK(diagnose(relax("    y = R.sum(axis=0, x)\n")) ==
        std::vector<std::string>{
            "RX1014 5:23 positional argument 'x' follows keyword argument 'axis=0'"});
  // Exactly one diagnostic for a chained assignment: the lowering's own report is a consequence.
  CHECK(diagnose(relax("    a = b = x\n")) ==
        std::vector<std::string>{"RX1015 5:9 chained assignment 'a = b = ...' is not supported; "
                                 "bind one name per statement"});
  std::string tir =
      "from tvm.script import tir as T\n\n@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"float32\")):\n    a = b = T.int32(1)\n    A[0] = T.float32(0)\n";
  CHECK(diagnose(tir) == std::vector<std::string>{"RX1015 5:9 chained assignment 'a = b = ...' is "
                                                  "not supported; bind one name per statement"});
}

TEST_CASE("fallback: unexpected token, at the culprit", "[syntax]") {
  CHECK(syntax(relax("    y = 1 2\n")) ==
        std::vector<std::string>{"RX1027 5:11 missing operator or ',' between '1' and '2'"});
  CHECK(syntax(relax("    y = R.add(x.def z)\n")) ==
        std::vector<std::string>{"RX1027 5:21 missing operator or ',' between 'def' and 'z'"});
  CHECK(syntax(relax("    y = R.f(\"a\" \"b\", x if x else x, not x)\n")).empty());
  CHECK(syntax(relax("    with R.dataflow() as d:\n        y = x\n")) ==
        std::vector<std::string>{"RX1001 5:23 unexpected 'as'"});
}

const char* kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def bad(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.add(x, x
        z = undefined_a
        return z

    @R.function
    def good(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = undefined_b
        return y
)";

TEST_CASE("a syntax error spoils only its own function", "[syntax]") {
  std::vector<std::string> got = diagnose(kModule);
  REQUIRE(got.size() >= 1);
  CHECK(got[0] == "RX1008 9:18 '(' was never closed");
  // The bracket ends where the next definition starts (as the grammar's recovery ends the
  // statement), so `good` is still lowered and its semantic error reported.
  REQUIRE(got.size() == 2);
  CHECK(got[1].rfind("RX1164 15:13", 0) == 0);

  std::string two = kModule;
  two.replace(two.find("y = R.add(x, x"), 14, "y = R.add(x, x) +");
  got = diagnose(two);
  REQUIRE(got.size() == 2);
  CHECK(got[0] == "RX1012 9:25 expected an expression after '+'");
  // `good` is still lowered and its semantic error reported; `bad`'s undefined name is not.
  CHECK(got[1].rfind("RX1164 15:13", 0) == 0);
}

TEST_CASE("no cascade after a header without ':' at file level", "[syntax]") {
  // tree-sitter's recovery leaves `x` of `return x` as a file-level statement: not reported.
  CHECK(diagnose("def f(x)\n    return x\n") ==
        std::vector<std::string>{"RX1003 1:9 expected ':' after function signature"});
  CHECK(diagnose("def f(x):\n    y = 1\n        z = 2\n    return x\n") ==
        std::vector<std::string>{"RX1007 3:9 unexpected indent"});
}

TEST_CASE("too many errors are capped", "[syntax]") {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "x = 1 $ 2\n";
  ParsedFile parsed = parse_file(text);
  size_t errors = 0, notes = 0;
  for (const Diagnostic& d : parsed.diagnostics) {
    if (d.severity == Severity::Error) ++errors;
    if (d.id == DiagId::RX1019) ++notes;
  }
  CHECK(errors == 100);
  CHECK(notes == 1);
}

}  // namespace
}  // namespace raxc::frontend
