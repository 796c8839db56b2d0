// analysis::Engine and the call graph: mutual-recursion verdicts (RX2022, RX2025) of a function
// depend on the bodies of the functions it calls, so an edit that adds or removes a call must
// re-analyse the functions that reach the edited one; an edit that changes no call edges must
// still re-analyse only the edited function. Likewise for the inferred returns of functions
// without a return annotation, which their callers see.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/engine.h"

namespace {

using raxc::Diagnostic;
using raxc::analysis::Engine;
using raxc::frontend::TextEdit;

const char* const kModule = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def ping(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            b = Module.pong(x)
            R.output(b)
        return b

    @R.function
    def pong(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = Module.ping(x)
        return y

    @R.function
    def tick(x: R.Tensor((4,), dtype="float32")):
        y = Module.tock(x)
        return y

    @R.function
    def tock(x: R.Tensor((4,), dtype="float32")) -> R.Object:
        y = Module.tick(x)
        return y

    @R.function
    def leaf(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y
)";

// Callers of a function without a return annotation see its inferred body (spec rules 1 and
// 15.6), so an edit inside such a function must re-analyse its callers, although its
// annotations, and so its annotation-only signature, stay the same.
const char* const kUnannotated = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        z = Module.helper(x)
        return z

    @R.function
    def other(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        w = R.multiply(x, x)
        return w
)";

const std::string kKey = "call_graph.rx";

uint32_t offset_of(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return uint32_t(at);
}

// Replaces the first occurrence of `from` in the engine's current text by `to`.
void replace_first(Engine& engine, const std::string& from, const std::string& to) {
  uint32_t at = offset_of(*engine.text(kKey), from);
  TextEdit e{at, at + uint32_t(from.size()), to};
  REQUIRE(engine.update(kKey, std::span<const TextEdit>(&e, 1)));
}

size_t count_code(const std::vector<Diagnostic>& diagnostics, const char* code) {
  size_t n = 0;
  for (const Diagnostic& d : diagnostics) n += std::string(raxc::code(d.id)) == code;
  return n;
}

std::vector<std::string> codes_of_fresh_open(const std::string& text) {
  Engine fresh;
  fresh.open(kKey, text);
  std::vector<std::string> out;
  for (const Diagnostic& d : fresh.diagnostics(kKey)) out.push_back(raxc::code(d.id));
  return out;
}

std::vector<std::string> codes(const Engine& engine) {
  std::vector<std::string> out;
  for (const Diagnostic& d : engine.diagnostics(kKey)) out.push_back(raxc::code(d.id));
  return out;
}

}  // namespace

TEST_CASE("engine: dropping pong's call to ping clears ping's RX2022", "[engine][well_formed]") {
  Engine engine;
  engine.open(kKey, kModule);
  REQUIRE(count_code(engine.diagnostics(kKey), "RX2022") == 1);

  // The edit is inside pong only; ping's text and pong's signature stay the same.
  replace_first(engine, "y = Module.ping(x)", "y = R.add(x, x)");
  const auto* stats = engine.last_update(kKey);
  CHECK(stats->relowered == 1);
  CHECK(stats->reanalysed == 2);  // pong (edited) and ping (reaches pong); not tick/tock/leaf
  CHECK(count_code(engine.diagnostics(kKey), "RX2022") == 0);
  CHECK(codes(engine) == codes_of_fresh_open(*engine.text(kKey)));

  // And back: the call returns, so does the error.
  replace_first(engine, "y = R.add(x, x)", "y = Module.ping(x)");
  CHECK(engine.last_update(kKey)->reanalysed == 2);
  CHECK(count_code(engine.diagnostics(kKey), "RX2022") == 1);
  CHECK(*engine.text(kKey) == kModule);
}

TEST_CASE("engine: dropping tock's call to tick clears tick's RX2025", "[engine][well_formed]") {
  Engine engine;
  engine.open(kKey, kModule);
  REQUIRE(count_code(engine.diagnostics(kKey), "RX2025") == 1);
  replace_first(engine, "y = Module.tick(x)", "y = R.add(x, x)");
  CHECK(engine.last_update(kKey)->reanalysed == 2);  // tock and tick
  CHECK(count_code(engine.diagnostics(kKey), "RX2025") == 0);
  CHECK(codes(engine) == codes_of_fresh_open(*engine.text(kKey)));
}

TEST_CASE("engine: an edit that keeps the call edges re-analyses one function",
          "[engine][well_formed]") {
  Engine engine;
  engine.open(kKey, kModule);
  // pong keeps calling ping; only its argument changes.
  replace_first(engine, "y = Module.ping(x)", "y = Module.ping(x )");
  CHECK(engine.last_update(kKey)->relowered == 1);
  CHECK(engine.last_update(kKey)->reanalysed == 1);
  CHECK(count_code(engine.diagnostics(kKey), "RX2022") == 1);
  // A new call of a function that does not call back: pong's edges change, so the functions
  // that reach pong (ping) are re-analysed; ping's verdict stands.
  replace_first(engine, "y = Module.ping(x )", "z = Module.leaf(x)\n        y = Module.ping(z)");
  CHECK(engine.last_update(kKey)->reanalysed == 2);
  CHECK(count_code(engine.diagnostics(kKey), "RX2022") == 1);
}

TEST_CASE("engine: an edit inside an unannotated function re-checks its callers",
          "[engine][infer]") {
  Engine engine;
  engine.open(kKey, kUnannotated);
  REQUIRE(codes(engine).empty());

  // helper now returns a 0-d tensor: main's return annotation no longer holds.
  replace_first(engine, "y = R.add(x, x)", "y = R.sum(x)");
  CHECK(engine.last_update(kKey)->reanalysed == 2);  // helper and its caller main, not other
  std::vector<std::string> after = codes(engine);
  CHECK_FALSE(after.empty());
  CHECK(after == codes_of_fresh_open(*engine.text(kKey)));

  // And back.
  replace_first(engine, "y = R.sum(x)", "y = R.add(x, x)");
  CHECK(codes(engine).empty());
}

TEST_CASE("engine: an edit in an annotated function leaves callers of unannotated ones alone",
          "[engine][infer]") {
  Engine engine;
  engine.open(kKey, kUnannotated);
  replace_first(engine, "w = R.multiply(x, x)", "w = R.add(x, x)");
  CHECK(engine.last_update(kKey)->reanalysed == 1);
  CHECK(codes(engine).empty());
}
