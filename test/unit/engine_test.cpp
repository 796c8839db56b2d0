// analysis::Engine: incremental updates (what is re-lowered / re-analysed), span translation of
// reused definitions, and the editor queries.
#include "analysis/engine.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "frontend/printer/printer.h"

namespace {

using raxc::Diagnostic;
using raxc::Span;
using raxc::analysis::Engine;
using raxc::analysis::SymbolKind;
using raxc::frontend::TextEdit;

const char* const kModule = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        y = R.add(x, x)
        return y

    @R.function
    def g(a: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            b = R.multiply(a, a)
            R.output(b)
        c = cls.f(b)
        return c

    @R.function
    def h(a: R.Tensor((2, 4), dtype="float32")):
        z: R.Shape = a
        return z
)";

const std::string kKey = "test.rx";

uint32_t offset_of(const std::string& text, const std::string& needle, size_t nth = 0) {
  size_t at = text.find(needle);
  while (nth-- > 0 && at != std::string::npos) at = text.find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  return uint32_t(at);
}

bool edit(Engine& engine, uint32_t begin, uint32_t end, std::string text) {
  TextEdit e{begin, end, std::move(text)};
  return engine.update(kKey, std::span<const TextEdit>(&e, 1));
}

std::string text_at(const Engine& engine, Span s) {
  return engine.text(kKey)->substr(s.begin, s.end - s.begin);
}

// Code, span and message of every diagnostic: what a fresh open must agree with.
std::vector<std::string> summary(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics) {
    std::string line = std::string(raxc::code(d.id)) + "@" + std::to_string(d.span.begin) + "-" +
                       std::to_string(d.span.end) + " " + d.message;
    for (const auto& r : d.related)
      line += " | " + std::to_string(r.span.begin) + "-" + std::to_string(r.span.end);
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has_syntax_error(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics)
    if (std::string(raxc::code(d.id)) < "RX1100") return true;
  return false;
}

size_t count_code(const std::vector<Diagnostic>& diagnostics, const char* code) {
  size_t n = 0;
  for (const Diagnostic& d : diagnostics) n += std::string(raxc::code(d.id)) == code;
  return n;
}

}  // namespace

TEST_CASE("engine: open reports every stage and counts definitions", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  const auto* stats = engine.last_update(kKey);
  REQUIRE(stats != nullptr);
  CHECK(stats->definitions == 3);
  CHECK(stats->functions == 3);
  CHECK(stats->reanalysed == 3);
  auto diagnostics = engine.diagnostics(kKey);
  REQUIRE(count_code(diagnostics, "RX3000") == 1);  // h: a tensor annotated R.Shape
  for (const Diagnostic& d : diagnostics)
    if (std::string(raxc::code(d.id)) == "RX3000") CHECK(text_at(engine, d.span).find("z") == 0);
  CHECK_FALSE(engine.is_open("other.rx"));
}

TEST_CASE("engine: a one-character edit re-lowers and re-analyses one function", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  std::string text = kModule;
  uint32_t at = offset_of(text, "R.add(x, x)") + 7;  // after the comma
  REQUIRE(edit(engine, at, at, " "));
  const auto* stats = engine.last_update(kKey);
  CHECK_FALSE(stats->full);
  CHECK(stats->relowered == 1);
  CHECK(stats->reanalysed == 1);
  CHECK(*engine.text(kKey) == text.insert(at, " "));
}

TEST_CASE("engine: a changed signature re-analyses its callers only", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  std::string text = kModule;
  // f's return annotation: "n" -> 4 rows. g calls f; h does not.
  uint32_t at = offset_of(text, "-> R.Tensor((\"n\", 4)") + 13;
  REQUIRE(edit(engine, at, at + 3, "2"));
  const auto* stats = engine.last_update(kKey);
  CHECK(stats->relowered == 1);
  CHECK(stats->reanalysed == 2);
  // Back again: the same two.
  REQUIRE(edit(engine, at, at + 1, "\"n\""));
  CHECK(engine.last_update(kKey)->reanalysed == 2);
  CHECK(*engine.text(kKey) == kModule);
}

TEST_CASE("engine: spans of reused functions follow the text that moved", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  std::string text = kModule;
  // Lengthen f's body: g and h move down without being lowered again.
  uint32_t at = offset_of(text, "        return y");
  REQUIRE(edit(engine, at, at, "        y2 = R.add(y, y)\n"));
  CHECK(engine.last_update(kKey)->relowered == 1);
  auto diagnostics = engine.diagnostics(kKey);
  REQUIRE(count_code(diagnostics, "RX3000") == 1);
  for (const Diagnostic& d : diagnostics) {
    if (std::string(raxc::code(d.id)) != "RX3000") continue;
    CHECK(text_at(engine, d.span) == "z: R.Shape = a");
    REQUIRE(d.related.size() >= 1);
    CHECK(text_at(engine, d.related[0].span) == "R.Shape");
  }
  // Queries in a reused function use the current offsets too.
  const std::string& now = *engine.text(kKey);
  auto sinfo = engine.struct_info_at(kKey, offset_of(now, "c = cls.f(b)"));
  REQUIRE(sinfo);
  CHECK(sinfo->name == "c");
  CHECK(text_at(engine, sinfo->span) == "c");
  auto symbol = engine.symbol_at(kKey, offset_of(now, "a)", 0));
  REQUIRE(symbol);
  CHECK(symbol->kind == SymbolKind::Param);
}

TEST_CASE("engine: incremental results equal a fresh open", "[engine]") {
  // Random single-character insertions and deletions, including ones that break the syntax;
  // after each, the incremental diagnostics must be those of opening the text afresh.
  std::mt19937 random(GENERATE(range(1u, 9u)));
  const std::vector<std::string> pieces = {
      " ",
      "x",
      "(",
      ")",
      ",",
      ":",
      "\n",
      "2",
      "f",
      "\"m\"",
      "R.add(y, y)",
      "cls.g(a)",
      "\n    @R.function\n    def k(q: R.Tensor((2,), \"float32\")):\n        return q\n"};
  Engine engine;
  engine.open(kKey, kModule);
  for (int step = 0; step < 80; ++step) {
    const std::string& text = *engine.text(kKey);
    uint32_t at = uint32_t(random() % (text.size() + 1));
    int kind = int(random() % 3);
    if (kind == 0 && at < text.size()) {
      uint32_t length = std::min<uint32_t>(uint32_t(1 + random() % 4), uint32_t(text.size()) - at);
      REQUIRE(edit(engine, at, at + length, ""));
    } else if (kind == 1 && step % 10 == 9) {
      // Every so often, back to a clean text so that errors do not pile up.
      REQUIRE(engine.replace(kKey, kModule));
    } else {
      REQUIRE(edit(engine, at, at, pieces[random() % pieces.size()]));
    }
    Engine fresh;
    fresh.open(kKey, *engine.text(kKey));
    INFO("step " << step << " text:\n" << *engine.text(kKey));
    if (has_syntax_error(fresh.diagnostics(kKey))) {
      // tree-sitter's error recovery after an incremental parse may place the error elsewhere
      // than a parse from scratch; both must see one.
      CHECK(has_syntax_error(engine.diagnostics(kKey)));
    } else {
      REQUIRE(summary(engine.diagnostics(kKey)) == summary(fresh.diagnostics(kKey)));
    }
    // Queries anywhere never fail.
    uint32_t probe = uint32_t(random() % (engine.text(kKey)->size() + 1));
    (void)engine.struct_info_at(kKey, probe);
    for (Span s : engine.references(kKey, probe)) CHECK(s.end <= engine.text(kKey)->size());
    (void)engine.document_symbols(kKey);
  }
}

TEST_CASE("engine: a syntax error comes and goes", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  std::string text = kModule;
  uint32_t at = offset_of(text, "R.add(x, x)") + 10;  // the closing parenthesis
  REQUIRE(edit(engine, at, at + 1, ""));
  bool syntax_error = false;
  for (const Diagnostic& d : engine.diagnostics(kKey))
    syntax_error |= d.severity == raxc::Severity::Error && std::string(raxc::code(d.id)) < "RX1100";
  CHECK(syntax_error);
  REQUIRE(edit(engine, at, at, ")"));
  for (const Diagnostic& d : engine.diagnostics(kKey))
    CHECK(std::string(raxc::code(d.id)) >= "RX1100");
  CHECK(count_code(engine.diagnostics(kKey), "RX3000") == 1);
}

TEST_CASE("engine: definition and references", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  const std::string& text = *engine.text(kKey);

  SECTION("a local variable") {
    auto refs = engine.references(kKey, offset_of(text, "b = R.multiply"));
    REQUIRE(refs.size() == 3);  // b = ..., R.output(b), cls.f(b)
    for (Span s : refs) CHECK(text_at(engine, s) == "b");
    CHECK(refs[0].begin == offset_of(text, "b = R.multiply"));
  }
  SECTION("a parameter, not confused with another function's parameter of the same name") {
    uint32_t in_g = offset_of(text, "R.multiply(a, a)") + 11;
    auto symbol = engine.symbol_at(kKey, in_g);
    REQUIRE(symbol);
    CHECK(symbol->kind == SymbolKind::Param);
    CHECK(symbol->definition.begin == offset_of(text, "a: R.Tensor((2, 4)"));
    CHECK(engine.references(kKey, in_g).size() == 3);
  }
  SECTION("a global through cls.f") {
    uint32_t use = offset_of(text, "cls.f(b)") + 4;
    auto symbol = engine.symbol_at(kKey, use);
    REQUIRE(symbol);
    CHECK(symbol->kind == SymbolKind::Function);
    CHECK(text_at(engine, symbol->definition) == "f");
    CHECK(symbol->definition.begin == offset_of(text, "f(x:"));
    auto refs = engine.references(kKey, symbol->definition.begin);
    REQUIRE(refs.size() == 2);
    CHECK(refs[1].begin == use);
    const auto* signature = engine.signature(kKey, "f");
    REQUIRE(signature != nullptr);
    CHECK(raxc::printer::print_struct_info(signature).find("R.Callable") != std::string::npos);
  }
  SECTION("a shape variable") {
    uint32_t in_string = offset_of(text, "\"n\"") + 1;
    auto symbol = engine.symbol_at(kKey, in_string);
    REQUIRE(symbol);
    CHECK(symbol->kind == SymbolKind::ShapeVar);
    CHECK(engine.references(kKey, in_string).size() >= 2);
  }
  SECTION("operators are not symbols") {
    CHECK_FALSE(engine.symbol_at(kKey, offset_of(text, "add(x")));
  }
}

TEST_CASE("engine: StructInfo at a position", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  const std::string& text = *engine.text(kKey);
  auto z = engine.struct_info_at(kKey, offset_of(text, "z: R.Shape"));
  REQUIRE(z);
  CHECK(z->var != nullptr);
  REQUIRE(z->annotation != nullptr);
  CHECK(raxc::printer::print_struct_info(z->annotation).find("R.Shape") == 0);
  auto a = engine.struct_info_at(kKey, offset_of(text, "= a\n") + 2);
  REQUIRE(a);
  REQUIRE(a->struct_info != nullptr);
  CHECK(raxc::printer::print_struct_info(a->struct_info) == "R.Tensor((2, 4), dtype=\"float32\")");
}

TEST_CASE("engine: document symbols", "[engine]") {
  Engine engine;
  engine.open(kKey, kModule);
  auto symbols = engine.document_symbols(kKey);
  REQUIRE(symbols.size() == 1);
  CHECK(symbols[0].name == "Module");
  REQUIRE(symbols[0].children.size() == 3);
  CHECK(symbols[0].children[1].name == "g");
  REQUIRE(symbols[0].children[1].children.size() == 1);
  CHECK(symbols[0].children[1].children[0].kind ==
        raxc::analysis::DocumentSymbol::Kind::DataflowBlock);
  engine.close(kKey);
  CHECK(engine.document_symbols(kKey).empty());
  CHECK_FALSE(edit(engine, 0, 0, "x"));
}
