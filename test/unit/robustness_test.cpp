// Robustness of frontend::parse_file against bad and extreme input: it never crashes, never
// overflows the stack, and every problem becomes a diagnostic with a span inside the file.
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>

#include "frontend/frontend.h"

namespace raxc::frontend {
namespace {

const std::string kHeader =
    "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n";

// A valid Relax function `name` of a module (indented by 4).
std::string module_function(const std::string& name) {
  return "    @R.function\n"
         "    def " +
         name +
         "(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
         "        with R.dataflow():\n"
         "            y = R.add(x, x)\n"
         "            z = R.multiply(y, x)\n"
         "            R.output(z)\n"
         "        return z\n\n";
}

std::string small_module() {
  return kHeader + "@I.ir_module\nclass Module:\n" + module_function("main");
}

size_t count(const ParsedFile& parsed, DiagId id) {
  size_t n = 0;
  for (const Diagnostic& d : parsed.diagnostics) n += d.id == id;
  return n;
}

bool has_code(const ParsedFile& parsed, DiagId id) { return count(parsed, id) > 0; }

// Every diagnostic lies inside the text; the module is always there.
void check_sane(const ParsedFile& parsed, size_t size) {
  REQUIRE(parsed.module != nullptr);
  REQUIRE(parsed.tree != nullptr);
  for (const Diagnostic& d : parsed.diagnostics) {
    CHECK(d.span.begin <= d.span.end);
    CHECK(d.span.end <= size);
    CHECK(!d.message.empty());
  }
}

ParsedFile parse(const std::string& text) {
  ParsedFile parsed = parse_file(text);
  check_sane(parsed, text.size());
  return parsed;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("the reference module is clean", "[robustness]") {
  CHECK(parse(small_module()).diagnostics.empty());
}

TEST_CASE("empty and comment-only files", "[robustness]") {
  for (std::string text : {"", "\n", "   \n\n", "# only a comment", "# a\n# b\n\n   # c\n"}) {
    ParsedFile parsed = parse(text);
    // Not a syntax error: lowering says the file has no module or function.
    for (const Diagnostic& d : parsed.diagnostics) CHECK(d.id == DiagId::RX1107);
  }
}

TEST_CASE("binary garbage", "[robustness]") {
  std::mt19937 rng(20240611);
  for (size_t size : {1u, 7u, 100u, 4096u, 100000u}) {
    std::string text(size, '\0');
    for (char& c : text) c = char(rng() & 0xFF);
    ParsedFile parsed = parse(text);
    CHECK(parsed.has_errors());
    size_t errors = 0;
    for (const Diagnostic& d : parsed.diagnostics) errors += d.severity == Severity::Error;
    CHECK(errors <= 101);  // syntax errors are capped at 100 (plus RX1019), lowering adds few
  }
  // Mostly printable garbage: many lines, many tokens.
  for (int round = 0; round < 20; ++round) {
    std::string text;
    static constexpr std::string_view kAlphabet = " \n\t()[]{}:=.,@#'\"\\abcdefR0123+-*/";
    for (int i = 0; i < 2000; ++i) text += kAlphabet[rng() % kAlphabet.size()];
    parse(text);
  }
}

TEST_CASE("invalid UTF-8, NUL bytes, control characters", "[robustness]") {
  std::string m = small_module();
  std::string bad_utf8 = m;
  bad_utf8.insert(bad_utf8.find("y = R.add"), "\xC3\x28 ");
  ParsedFile parsed = parse(bad_utf8);
  CHECK(count(parsed, DiagId::RX1018) == 1);

  std::string in_comment = m + "# caf\xE9\n";
  parsed = parse(in_comment);
  CHECK(count(parsed, DiagId::RX1018) == 1);
  CHECK(parsed.diagnostics.size() == 1);

  std::string nul = m;
  nul.insert(nul.find("y = R.add"), std::string("\0", 1));
  parsed = parse(nul);
  CHECK(has_code(parsed, DiagId::RX1006));

  std::string overlong = m;  // an overlong encoding of '/' and a UTF-16 surrogate
  overlong.insert(overlong.find("z = R"), "\xC0\xAF \xED\xA0\x80 ");
  parsed = parse(overlong);
  CHECK(has_code(parsed, DiagId::RX1018));
}

TEST_CASE("BOM and CRLF are accepted", "[robustness]") {
  std::string m = small_module();
  CHECK(parse("\xEF\xBB\xBF" + m).diagnostics.empty());
  std::string crlf;
  for (char c : m) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  CHECK(parse(crlf).diagnostics.empty());
  CHECK(parse("\xEF\xBB\xBF" + crlf).diagnostics.empty());
  // A syntax error in a CRLF file is reported at the same line and column as with LF.
  std::string broken = crlf;
  broken.replace(broken.find("R.add(x, x)"), 11, "R.add(x, x");
  ParsedFile parsed = parse(broken);
  REQUIRE(parsed.diagnostics.size() == 1);
  CHECK(parsed.diagnostics[0].id == DiagId::RX1008);
}

TEST_CASE("tabs", "[robustness]") {
  std::string tabs = small_module();
  // Consistent tabs: one tab per level (Python accepts this, so do we).
  std::string consistent;
  for (size_t i = 0; i < tabs.size();) {
    bool line_start = consistent.empty() || consistent.back() == '\n' || consistent.back() == '\t';
    if (tabs.compare(i, 4, "    ") == 0 && line_start) {
      consistent += '\t';
      i += 4;
    } else {
      consistent += tabs[i++];
    }
  }
  CHECK(parse(consistent).diagnostics.empty());
  // One line indented with spaces that equal the tab width: ambiguous, so an error.
  std::string mixed = consistent;
  size_t at = mixed.find("\t\t\tz = R");
  REQUIRE(at != std::string::npos);
  mixed.replace(at, 3, "        \t\t");
  ParsedFile parsed = parse(mixed);
  CHECK(count(parsed, DiagId::RX1013) == 1);
}

// A long Relax function: `bindings` bindings in one dataflow block.
std::string long_function(const std::string& name, int bindings) {
  std::string s =
      "    @R.function\n    def " + name +
      "(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
      "        with R.dataflow():\n            y0 = R.add(x, x)\n";
  for (int k = 1; k <= bindings; ++k)
    s += "            y" + std::to_string(k) + " = R.add(y" + std::to_string(k - 1) + ", x)\n";
  std::string last = "y" + std::to_string(bindings);
  return s + "            R.output(" + last + ")\n        return " + last + "\n\n";
}

std::string module_of_size(size_t bytes) {
  std::string text = kHeader + "@I.ir_module\nclass Module:\n";
  for (int i = 0; text.size() < bytes; ++i) text += long_function("f" + std::to_string(i), 1000);
  return text;
}

// A ~10 MB module built in a loop (like test/bench/gen_model.py, simpler).
TEST_CASE("a 10 MB module", "[robustness][slow]") {
  std::string text = module_of_size(10'000'000);
  CHECK(parse(text).diagnostics.empty());
  // A smaller one with a syntax error in its first function and a semantic error in its
  // last: one syntax diagnostic, and the other functions are still lowered.
  std::string broken = module_of_size(2'000'000);
  size_t at = broken.find("y1 = R.add(y0, x)");
  broken.replace(at, 17, "y1 = R.add(y0, x) +");
  at = broken.rfind("R.add(y0, x)");
  broken.replace(at, 12, "R.add(y0, w)");
  ParsedFile parsed = parse(broken);
  REQUIRE(parsed.diagnostics.size() == 2);
  CHECK(parsed.diagnostics[0].id == DiagId::RX1012);
  CHECK(parsed.diagnostics[1].id == DiagId::RX1164);  // undefined name 'w'
}

std::string nested(size_t depth, const std::string& open, const std::string& leaf,
                   const std::string& close) {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + leaf.size());
  for (size_t i = 0; i < depth; ++i) s += open;
  s += leaf;
  for (size_t i = 0; i < depth; ++i) s += close;
  return s;
}

std::string in_function(const std::string& expression) {
  return kHeader + "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = " + expression +
         "\n    return y\n";
}

TEST_CASE("expressions nested 10,000 deep", "[robustness]") {
  for (auto [open, close] : std::vector<std::pair<std::string, std::string>>{{"(", ")"},
                                                                             {"[", "]"},
                                                                             {"R.add(x, ", ")"},
                                                                             {"-", ""},
                                                                             {"not ", ""},
                                                                             {"x + (", ")"},
                                                                             {"{1: ", "}"},
                                                                             {"lambda: ", ""},
                                                                             {"x if x else ", ""},
                                                                             {"x[", "]"}}) {
    ParsedFile parsed = parse(in_function(nested(10000, open, "x", close)));
    CHECK(count(parsed, DiagId::RX1010) == 1);
  }
  // Unbalanced: never closed, and never opened.
  CHECK(has_code(parse(in_function(nested(10000, "(", "x", ""))), DiagId::RX1008));
  CHECK(has_code(parse(in_function(nested(10000, "", "x", ")"))), DiagId::RX1016));
  // Deep but just under the limit: lowered normally (no RX1010), on the default 8 MB stack.
  for (auto [open, close] : std::vector<std::pair<std::string, std::string>>{
           {"(", ")"}, {"R.add(x, ", ")"}, {"-", ""}, {"(x, ", ")"}}) {
    ParsedFile parsed = parse(in_function(nested(kMaxTreeDepth / 2 - 10, open, "x", close)));
    CHECK(!has_code(parsed, DiagId::RX1010));
  }
  ParsedFile parsed = parse(in_function(nested(kMaxTreeDepth - 10, "(", "x", ")")));
  CHECK(!has_code(parsed, DiagId::RX1010));
}

TEST_CASE("statements nested deeply", "[robustness]") {
  for (size_t depth : {50u, 254u, 255u, 256u, 1000u}) {
    std::string text = kHeader + "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n";
    for (size_t i = 1; i <= depth; ++i) text += std::string(i, ' ') + "if x:\n";
    text += std::string(depth + 1, ' ') + "y = x\n";
    ParsedFile parsed = parse(text);
    CHECK(parsed.has_errors());  // Relax 'if' needs 'else' (lowering) or too deep (syntax)
    if (depth >= 256) CHECK(count(parsed, DiagId::RX1010) == 1);
  }
  // Deep one-line suites and deep with-blocks.
  std::string text = kHeader + "def f(x):\n";
  for (size_t i = 1; i <= 2000; ++i) text += std::string(i, ' ') + "with a:\n";
  text += std::string(2001, ' ') + "pass\n";
  parse(text);
}

TEST_CASE("odd but well-formed top levels", "[robustness]") {
  std::string body = "    return x\n";
  ParsedFile parsed = parse(kHeader + "@foo.bar\ndef f(x):\n" + body);
  CHECK(has_code(parsed, DiagId::RX1105));
  parsed = parse(kHeader + "@R.function\nclass X:\n    pass\n");
  CHECK(has_code(parsed, DiagId::RX1106));
  parsed = parse(small_module() + "\n@I.ir_module\nclass Second:\n" + module_function("g"));
  CHECK(has_code(parsed, DiagId::RX1104));
  parsed = parse(kHeader + "@R.function(pure=\ndef f(x):\n" + body);
  CHECK(parsed.has_errors());
}

TEST_CASE("every prefix of examples/mlp.rx", "[robustness]") {
  std::string full = read_file(std::string(RAXC_SOURCE_DIR) + "/examples/mlp.rx");
  REQUIRE(full.size() > 1000);
  CHECK(parse(full).diagnostics.empty());
  // Cut before the Relax function, the module may be complete (TIR functions only); cut in
  // it, never (it ends with 'return out').
  size_t relax_start = full.find("@R.function");
  REQUIRE(relax_start != std::string::npos);
  for (size_t cut = 0; cut < full.size(); cut += 37) {
    INFO("cut at byte " << cut);
    ParsedFile parsed = parse(full.substr(0, cut));
    if (cut > relax_start) CHECK(parsed.has_errors());
  }
  // Cut everywhere in a smaller file, also inside multi-byte characters.
  std::string m = small_module() + "# caf\xC3\xA9 \xE2\x82\xAC\n";
  for (size_t cut = 0; cut <= m.size(); ++cut) parse(m.substr(0, cut));
  for (size_t cut = 0; cut + 1 <= m.size(); ++cut) parse(m.substr(cut));  // suffixes
}

}  // namespace
}  // namespace raxc::frontend
