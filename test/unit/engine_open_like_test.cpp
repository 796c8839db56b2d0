// Engine::open_like: a second Engine of a document that shares the first one's syntax tree (the
// language server's spare Engine). It must answer as an Engine opened from the text, stay
// correct when either Engine is edited afterwards, and not allocate a second tree.
#include <malloc.h>

#include <catch2/catch.hpp>
#include <string>

#include "analysis/engine.h"

namespace {

using raxc::Diagnostic;
using raxc::analysis::Engine;
using raxc::frontend::TextEdit;

// `count` functions in TVM's printed style, with a possibly-compatible call in each (so there
// are diagnostics to compare).
std::string module_text(int count) {
  std::string text =
      "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"
      "@I.ir_module\nclass Module:\n";
  for (int i = 0; i < count; ++i) {
    std::string n = std::to_string(i);
    text += "    @R.function\n    def f" + n +
            "(x: R.Tensor((\"n\", 4), dtype=\"float32\")) -> R.Tensor((2, 4), "
            "dtype=\"float32\"):\n        with R.dataflow():\n            y = R.add(x, x)\n"
            "            z = R.multiply(y, x)\n            R.output(z)\n        return z\n\n";
  }
  return text;
}

std::vector<std::string> messages(const Engine& engine) {
  std::vector<std::string> out;
  for (const Diagnostic& d : engine.diagnostics("m.rx"))
    out.push_back(std::to_string(d.span.begin) + ":" + d.message);
  return out;
}

size_t allocated() { return mallinfo2().uordblks; }

}  // namespace

TEST_CASE("open_like answers as open and both Engines stay independent", "[engine]") {
  std::string text = module_text(20);
  Engine first;
  first.open("m.rx", text);
  Engine second;
  REQUIRE(second.open_like("m.rx", first));
  CHECK(!second.open_like("other.rx", first));
  CHECK(*second.text("m.rx") == text);
  CHECK(messages(second) == messages(first));
  CHECK(!messages(first).empty());

  // Edit each Engine differently (their trees shared nodes until now).
  uint32_t at = uint32_t(text.find("y = R.add"));
  TextEdit rename{at, at + 1, "w"};
  REQUIRE(first.update("m.rx", {&rename, 1}));
  uint32_t end = uint32_t(text.size());
  TextEdit append{end, end,
                  "    @R.function\n    def extra() -> R.Tuple:\n        return R.tuple()\n"};
  REQUIRE(second.update("m.rx", {&append, 1}));
  for (Engine* engine : {&first, &second}) {
    Engine fresh;
    fresh.open("m.rx", *engine->text("m.rx"));
    CHECK(messages(*engine) == messages(fresh));
  }
}

TEST_CASE("open_like shares the syntax tree instead of building another", "[engine]") {
  std::string text = module_text(300);
  size_t before = allocated();
  Engine first;
  first.open("m.rx", text);
  size_t opened = allocated() - before;
  before = allocated();
  Engine second;
  REQUIRE(second.open_like("m.rx", first));
  size_t shared = allocated() - before;
  // The tree is most of an Engine; the second one holds only its IR and analysis.
  INFO("open: " << opened << " bytes, open_like: " << shared << " bytes");
  if (opened == 0) return;  // an allocator that mallinfo2 does not see (a sanitizer build)
  CHECK(shared < opened * 6 / 10);
}
