// analysis::Engine and functions without a return annotation: their callers see the inferred
// body (spec rules 1 and 15.6), so an edit inside such a function must re-analyse its callers,
// even though its annotations, and so its annotation-only signature, stay the same.
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

const std::string kKey = "inferred_return.rx";

void replace_first(Engine& engine, const std::string& from, const std::string& to) {
  const std::string& text = *engine.text(kKey);
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  TextEdit e{uint32_t(at), uint32_t(at + from.size()), to};
  REQUIRE(engine.update(kKey, std::span<const TextEdit>(&e, 1)));
}

std::vector<std::string> codes(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics) out.push_back(raxc::code(d.id));
  return out;
}

std::vector<std::string> codes_of_fresh_open(const std::string& text) {
  Engine fresh;
  fresh.open(kKey, text);
  return codes(fresh.diagnostics(kKey));
}

}  // namespace

TEST_CASE("engine: an edit inside an unannotated function re-checks its callers",
          "[engine][infer]") {
  Engine engine;
  engine.open(kKey, kModule);
  REQUIRE(codes(engine.diagnostics(kKey)).empty());

  // helper now returns a 0-d tensor: main's return annotation no longer holds.
  replace_first(engine, "y = R.add(x, x)", "y = R.sum(x)");
  CHECK(engine.last_update(kKey)->reanalysed == 2);  // helper and its caller main, not other
  std::vector<std::string> after = codes(engine.diagnostics(kKey));
  CHECK_FALSE(after.empty());
  CHECK(after == codes_of_fresh_open(*engine.text(kKey)));

  // And back.
  replace_first(engine, "y = R.sum(x)", "y = R.add(x, x)");
  CHECK(codes(engine.diagnostics(kKey)).empty());
}

TEST_CASE("engine: an edit in an annotated function leaves callers of unannotated ones alone",
          "[engine][infer]") {
  Engine engine;
  engine.open(kKey, kModule);
  replace_first(engine, "w = R.multiply(x, x)", "w = R.add(x, x)");
  CHECK(engine.last_update(kKey)->reanalysed == 1);
  CHECK(codes(engine.diagnostics(kKey)).empty());
}
