// What frontend::Document takes over from before an edit without looking at the text again
// (document.cpp: the edited range, the nesting headroom, OutlineReuse): every shortcut must
// give what a fresh Document of the same text gives, and the usual keystroke must take it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "frontend/document.h"
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"

namespace {

using raxc::Diagnostic;
using raxc::frontend::Document;
using raxc::frontend::TextEdit;

std::vector<std::string> described(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics)
    out.push_back(std::string(raxc::code(d.id)) + " " + std::to_string(d.span.begin) + "-" +
                  std::to_string(d.span.end) + " " + d.message);
  return out;
}

// The lowered globals, each with its name, kind of body and diagnostics count: what a reused
// declaration or definition would get wrong.
std::vector<std::string> globals_of(const Document& doc) {
  std::vector<std::string> out;
  for (const auto& def : doc.definitions())
    out.push_back(
        def->name + (def->global ? (def->global->function() ? " relax" : " other") : " failed") +
        " @" + std::to_string(def->begin) + " " + std::to_string(def->diagnostics.size()));
  return out;
}

void apply(Document& doc, std::vector<TextEdit> edits) {
  doc.apply(std::span<const TextEdit>(edits.data(), edits.size()));
  Document fresh(doc.text());
  INFO("text:\n" << doc.text());
  REQUIRE(described(doc.diagnostics()) == described(fresh.diagnostics()));
  REQUIRE(globals_of(doc) == globals_of(fresh));
}

uint32_t offset_of(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return uint32_t(at);
}

// Two functions of the same length, and one whose return annotation decides how its callers
// lower (`-> R.Tuple` makes a call of it a statement of its own).
const char* const kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def first(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y

    @R.function
    def second(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.exp(x)
        return y

    @R.function
    def nothing(x: R.Tensor((4,), dtype="float32")) -> R.Tuple:
        return R.tuple()

    @R.function
    def caller(x: R.Tensor((4,), dtype="float32")):
        cls = Module
        v = cls.nothing(x)
        return x
)";

}  // namespace

TEST_CASE("document: a keystroke in a body reads no other signature", "[document]") {
  Document doc(kModule);
  uint32_t at = offset_of(doc.text(), "R.exp(x)") + 6;
  apply(doc, {{at, at, " "}});
  CHECK(doc.stats().lowered == 1);
  CHECK(doc.stats().declarations_reused == 3);  // first, nothing, caller; second was edited
  apply(doc, {{at, at + 1, ""}});
  CHECK(doc.stats().declarations_reused == 3);
}

TEST_CASE("document: the edited definition is syntax-checked beside the outline", "[document]") {
  Document doc(kModule);
  uint32_t at = offset_of(doc.text(), "R.exp(x)") + 6;
  // Opening checked every definition on its own beside the whole-file check, so the first
  // keystroke checks only the one it edits (it checked all four, on the 20k-line module
  // 110 ms instead of 8).
  apply(doc, {{at, at, " "}});
  CHECK_FALSE(doc.stats().full_syntax_check);
  CHECK(doc.stats().definitions_syntax_checked == 1);
  apply(doc, {{at, at + 1, ""}});
  // A line left of its definition's column cannot be composed: the whole file is checked, and
  // the definitions the edit did not touch keep their checks.
  uint32_t line = offset_of(doc.text(), "        y = R.exp(x)");
  apply(doc, {{line, line + 8, ""}});
  CHECK(doc.stats().full_syntax_check);
  apply(doc, {{line, line, "        "}});
  CHECK(doc.stats().definitions_syntax_checked <= 1);
  apply(doc, {{at, at, " "}});  // a keystroke in a body: found from the tree before the outline
  CHECK_FALSE(doc.stats().full_syntax_check);
  CHECK(doc.stats().definitions_syntax_checked == 1);
  CHECK(doc.stats().syntax_checked_beside);
  apply(doc, {{at, at, "="}});  // the same with a syntax error, which the check reports
  CHECK(doc.stats().syntax_checked_beside);
  CHECK_FALSE(doc.diagnostics().empty());
  apply(doc, {{at, at + 1, ""}});

  // Edits in two definitions: the one found beside is one of them, the other checked after.
  uint32_t other = offset_of(doc.text(), "R.add(x, x)") + 6;
  apply(doc, {{at, at, " "}, {other, other, " "}});
  CHECK(doc.stats().definitions_syntax_checked == 2);
  CHECK_FALSE(doc.stats().syntax_checked_beside);  // no one definition holds both edits
}

TEST_CASE("document: definitions that traded places are matched by text", "[document]") {
  // the bodies of first and second have the same length: after one edit swaps them, each old
  // definition still stands at its old offset with a text of the same length, but not the same
  // text.
  Document doc(kModule);
  std::string text = doc.text();
  uint32_t a_at = offset_of(text, "R.add(x, x)"), b_at = offset_of(text, "R.exp(x)");
  apply(doc, {{b_at, b_at + 8, "R.add(x, x)"}, {a_at, a_at + 11, "R.exp(x)"}});
  CHECK(doc.stats().lowered == 2);
  CHECK(doc.definitions()[0]->text.find("R.exp(x)") != std::string::npos);
  CHECK(doc.definitions()[1]->text.find("R.add(x, x)") != std::string::npos);
}

TEST_CASE("document: a changed signature is read again and its callers lowered", "[document]") {
  Document doc(kModule);
  uint32_t at = offset_of(doc.text(), "-> R.Tuple:");
  apply(doc, {{at, at + 10, ""}});  // `nothing` no longer returns void
  CHECK(doc.stats().declarations_reused == 3);
  CHECK(doc.stats().lowered == 2);  // nothing, and caller, which calls it
  apply(doc, {{at, at, "-> R.Tuple"}});
  CHECK(doc.stats().lowered == 2);
}

TEST_CASE("document: declarations are read again when the imports change", "[document]") {
  Document doc(kModule);
  // `R` now names nothing Relax: `-> R.Tuple` is not the void annotation any more.
  uint32_t at = offset_of(doc.text(), "import relax as R") + 16;
  apply(doc, {{at, at + 1, "Q"}});
  CHECK(doc.stats().declarations_reused == 0);
  apply(doc, {{at, at + 1, "R"}});
  CHECK(doc.stats().declarations_reused == 0);
  uint32_t body = offset_of(doc.text(), "R.exp(x)");
  apply(doc, {{body, body, " "}});
  CHECK(doc.stats().declarations_reused == 3);
}

TEST_CASE("document: edits that move text keep the shortcuts exact", "[document]") {
  Document doc(kModule);
  // A line added to the first function moves every other one; then edits inside moved
  // definitions, in one batch and one at a time.
  uint32_t line = offset_of(doc.text(), "        y = R.add");
  apply(doc, {{line, line, "        z = x\n"}});
  CHECK(doc.stats().lowered == 1);
  uint32_t caller_body = offset_of(doc.text(), "v = cls.nothing(x)");
  uint32_t b_body = offset_of(doc.text(), "R.exp(x)");
  apply(doc, {{caller_body, caller_body, "w = x\n        "}, {b_body, b_body + 5, "R.log"}});
  CHECK(doc.stats().lowered == 2);
  apply(doc, {{line, line + 14, ""}});
  CHECK(doc.stats().lowered == 1);
  // The first definition cut and pasted back.
  uint32_t a_begin = offset_of(doc.text(), "    @R.function");
  uint32_t b_begin = offset_of(doc.text(), "    @R.function\n    def second");
  std::string a_text = doc.text().substr(a_begin, b_begin - a_begin);
  apply(doc, {{a_begin, b_begin, ""}});
  CHECK(doc.stats().lowered == 0);
  apply(doc, {{a_begin, a_begin, a_text}});
  CHECK(doc.stats().lowered == 1);
}

TEST_CASE("document: nesting typed past the limit is hidden as a fresh parse hides it",
          "[document]") {
  // Brackets open to just under the depth tree-sitter is spared (frontend.h), then typed one
  // at a time past it: each keystroke's parse must hide what a fresh parse hides (the text from
  // there on, the names of the next line included).
  const int start = raxc::frontend::kMaxBracketDepth - 3;
  std::string text = "x = " + std::string(start, '(') + "\ny = z\n";
  Document doc(text);
  auto names_seen = [](const Document& d) {
    return d.tokens_in({0, uint32_t(d.text().size())}).size();
  };
  for (int i = 0; i < 6; ++i) {
    uint32_t at = 4 + uint32_t(start);
    apply(doc, {{at, at, "["}});
    CHECK(names_seen(doc) == names_seen(Document(doc.text())));
  }
  CHECK(names_seen(doc) == 1);  // `x`: the line after is hidden
  // And back under it.
  for (int i = 0; i < 6; ++i) {
    apply(doc, {{4, 5, ""}});
    CHECK(names_seen(doc) == names_seen(Document(doc.text())));
  }
  CHECK(names_seen(doc) == 3);
}

// Tree-sitter's incremental re-parse recovers from `y = x` becoming `y =:` differently from a
// parse of the final text from scratch (found by searching random edits of this module): it
// reports the ':' where a fresh parse reports the '='. What the document reports may differ
// until it is settled, and must equal a fresh parse's after.
TEST_CASE("document: settling gives what a fresh parse gives after error recovery", "[document]") {
  const std::string valid = R"(# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            y = x
            R.output(y)
        return y
)";
  Document doc(valid);
  CHECK(doc.settled());  // parsed from scratch
  CHECK_FALSE(doc.settle());
  TextEdit edit{offset_of(valid, "x\n            R.output") - 1, 0, ":"};
  edit.end = edit.begin + 2;  // " x" -> ":"
  doc.apply(std::span<const TextEdit>(&edit, 1));
  Document fresh(doc.text());
  INFO("text:\n" << doc.text());
  REQUIRE_FALSE(doc.settled());
  CHECK(described(doc.diagnostics()) != described(fresh.diagnostics()));
  REQUIRE(doc.settle());
  CHECK(doc.settled());
  CHECK(described(doc.diagnostics()) == described(fresh.diagnostics()));
  CHECK(globals_of(doc) == globals_of(fresh));
  CHECK_FALSE(doc.settle());  // once is enough

  // Text without syntax errors needs no second parse, whatever its edits.
  doc.replace(valid);
  CHECK(doc.settled());
}

// Tree-sitter's recovery from a broken line can change when text after it is edited: here the
// broken binding was read as an error statement after the first edit, and as an expression
// statement (`R.multiply(b, b)`, which uses `b`) once `if x:` broke the class after it. The
// definition's text never changed after the first edit, so the updates kept its first reading;
// the tree at rest is the fresh one, so settling must read the definition again (found by
// random edits of test/cases/infer/vdevice.rx: `b` reported unused only incrementally).
TEST_CASE("document: settling reads again a definition an earlier tree recovered otherwise",
          "[document]") {
  const std::string module = R"(# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def backward(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.add(x, y)
        b = a
        c: R.Tensor((4,), "float32") = R.multiply(b, b)
        return c

    @R.function
    def through(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)";
  Document doc(module);
  TextEdit broken{offset_of(module, "c: R.Tensor"), 0, ""};
  broken.end = broken.begin + 5;  // "c: R." deleted
  doc.apply(std::span<const TextEdit>(&broken, 1));
  (void)doc.diagnostics();
  std::string text = doc.text();
  TextEdit below{offset_of(text, "    def through"), 0, "if x:\n"};
  below.end = below.begin + 1;
  doc.apply(std::span<const TextEdit>(&below, 1));
  (void)doc.settle();
  Document fresh(doc.text());
  INFO("text:\n" << doc.text());
  CHECK(raxc::printer::print_module(doc.module()) == raxc::printer::print_module(fresh.module()));
  CHECK(described(doc.diagnostics()) == described(fresh.diagnostics()));
}

// A line of a definition that starts left of the definition's own column leaves the class body
// for the whole-file check: here `[` typed over the indentation of a `def` line, whose bracket
// then joins the lines after it. The definition's own check cannot see that, so the whole
// file is checked again (found by random edits of test/cases/run/tir_control.rx).
TEST_CASE("document: a line left of its definition's column is checked with the whole file",
          "[document]") {
  const std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def first(n: T.int32) -> T.int32:
        T.attr(0, "pragma_scope", "seq")
    @R.function(pure=False)
    def main(a: R.Tensor((2, 3), "float32")):
        cls = Module
)";
  Document doc(text);
  uint32_t at = offset_of(doc.text(), "    def first");
  apply(doc, {{at, at + 2, "["}});  // "[  def first(...": compared with a fresh Document
  CHECK(doc.stats().full_syntax_check);
}

// An indentation error at a definition's first line is about the lines before it: a keystroke
// inside the definition must not lose it (found by random edits of test/cases/ops/binary.rx).
TEST_CASE("document: an indentation error at a definition's start survives edits inside it",
          "[document]") {
  Document doc(R"(@I.ir_module
class Module:
   I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        a = R.add(x, x)
        return a
)");
  REQUIRE_FALSE(doc.diagnostics().empty());  // '@R.function' is indented past the line above
  uint32_t at = offset_of(doc.text(), "R.add(x, x)") + 6;
  apply(doc, {{at, at, " "}});  // compared with a fresh Document
  apply(doc, {{at, at + 1, ""}});
}

TEST_CASE("document: the outline shares the last scope while it declares the same globals",
          "[document]") {
  Document doc(kModule);
  uint32_t at = offset_of(doc.text(), "R.exp(x)") + 6;
  apply(doc, {{at, at, " "}});  // a keystroke in a body: the same globals
  CHECK(doc.stats().scope_shared);
  // A global renamed: its caller's `cls.nothing` names nothing any more.
  uint32_t name = offset_of(doc.text(), "def nothing") + 10;
  apply(doc, {{name, name + 1, ""}});
  CHECK_FALSE(doc.stats().scope_shared);
  apply(doc, {{name, name, "g"}});
  CHECK_FALSE(doc.stats().scope_shared);
  apply(doc, {{at, at + 1, ""}});
  CHECK(doc.stats().scope_shared);
  // The same names, but a changed fact: `nothing` no longer returns void.
  uint32_t ret = offset_of(doc.text(), "-> R.Tuple:");
  apply(doc, {{ret, ret + 10, ""}});
  CHECK_FALSE(doc.stats().scope_shared);
  apply(doc, {{ret, ret, "-> R.Tuple"}});
  CHECK_FALSE(doc.stats().scope_shared);
  // The class renamed: `cls = Module` names nothing.
  uint32_t cls = offset_of(doc.text(), "class Module") + 11;
  apply(doc, {{cls, cls + 1, ""}});
  CHECK_FALSE(doc.stats().scope_shared);
  apply(doc, {{cls, cls, "e"}});
  CHECK_FALSE(doc.stats().scope_shared);
}

TEST_CASE("document: a scope with other globals or facts than the last is not shared",
          "[document]") {
  const std::string text = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        cls = Module
        cls.nothing(x)
        v = cls.last(x)
        return x

    @R.function
    def nothing(x: R.Tensor((4,), dtype="float32")) -> R.Tuple:
        return R.tuple()

    @R.function
    def last(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
)";
  Document doc(text);
  CHECK(doc.diagnostics().empty());
  // `nothing` returns a value now: main discards it (a fact of the declaration, not its name).
  uint32_t ret = offset_of(doc.text(), "-> R.Tuple:") + 5;
  apply(doc, {{ret, ret + 5, "Object"}});
  CHECK_FALSE(doc.stats().scope_shared);
  CHECK_FALSE(doc.diagnostics().empty());
  apply(doc, {{ret, ret + 6, "Tuple"}});
  CHECK(doc.diagnostics().empty());
  // The last global removed: main's `cls.last` names nothing now.
  uint32_t begin = offset_of(doc.text(), "\n    @R.function\n    def last");
  uint32_t end = uint32_t(doc.text().size());
  std::string removed = doc.text().substr(begin, end - begin);
  apply(doc, {{begin, end, ""}});
  CHECK_FALSE(doc.stats().scope_shared);
  CHECK_FALSE(doc.diagnostics().empty());
  apply(doc, {{begin, begin, removed}});  // and a global added at the end
  CHECK_FALSE(doc.stats().scope_shared);
  CHECK(doc.diagnostics().empty());
}
