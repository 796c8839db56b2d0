// The source map lowering records (frontend/ir/source_map.h) and the engine's symbol queries
// answered from it: every name resolves to the very entity lowering put into the IR, also where a
// name is rebound or shadowed, where a shape variable is bound by a match_cast or written in
// quotes, and inside a statement that does not lower.
#include "frontend/ir/source_map.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "frontend/document.h"
#include "frontend/ir/visitor.h"

namespace {

using raxc::Span;
using raxc::analysis::Engine;
using raxc::analysis::Symbol;
using raxc::analysis::SymbolKind;
namespace ir = raxc::ir;

const std::string kKey = "source_map.rx";

uint32_t offset_of(const std::string& text, const std::string& needle, size_t nth = 0) {
  size_t at = text.find(needle);
  while (nth-- > 0 && at != std::string::npos) at = text.find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  return uint32_t(at);
}

std::string module_of(const std::string& body) {
  return "# from tvm.script import ir as I\n"
         "# from tvm.script import tir as T\n"
         "# from tvm.script import relax as R\n\n"
         "@I.ir_module\nclass Module:\n" +
         body;
}

Symbol symbol_at(const Engine& engine, uint32_t offset) {
  std::optional<Symbol> s = engine.symbol_at(kKey, offset);
  REQUIRE(s.has_value());
  return *s;
}

std::string text_of(const Engine& engine, Span s) {
  return engine.text(kKey)->substr(s.begin, s.end - s.begin);
}

// Every binding of every Relax function, nested ones included.
std::vector<const ir::Binding*> bindings_of(const Engine& engine) {
  struct Bindings : ir::Visitor {
    std::vector<const ir::Binding*> all;
    void on_binding(const ir::Binding& b) override { all.push_back(&b); }
  } bindings;
  for (const ir::GlobalDef& g : engine.document(kKey)->module().globals)
    if (const ir::Function* f = g.function()) bindings.visit(f);
  return bindings.all;
}

// The nth binding of `name` (in the order the visitor meets them).
const ir::Binding* binding_of(const Engine& engine, const std::string& name, size_t nth = 0) {
  for (const ir::Binding* b : bindings_of(engine))
    if (b->var->name == name && nth-- == 0) return b;
  FAIL("no binding of " << name);
  return nullptr;
}

const ir::Call* call_of(const ir::Binding* b) {
  const auto* call = ir::dyn_cast<ir::Call>(b->value);
  REQUIRE(call != nullptr);
  return call;
}

}  // namespace

TEST_CASE("source map: a use is the entity lowering put into the IR", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y
)");
  raxc::frontend::Document doc(text);
  REQUIRE(doc.definitions().size() == 1);
  const raxc::frontend::Definition& def = *doc.definitions()[0];
  REQUIRE(def.global);
  const ir::Function* f = def.global->function();
  REQUIRE(f != nullptr);
  const ir::Binding* y = f->body->blocks.at(0)->bindings.at(0);
  const auto* call = ir::dyn_cast<ir::Call>(y->value);
  REQUIRE(call != nullptr);
  // Offsets of a first lowering are text offsets.
  uint32_t use = offset_of(text, "x, x)");
  const ir::NameRef* ref = def.source_map.at({use, use + 1});
  REQUIRE(ref != nullptr);
  CHECK(ref->var() == f->params[0]);
  CHECK(ref->var() == call->args[0]);
  CHECK(def.source_map.is_param(ref->var()));
  uint32_t target = offset_of(text, "y = R.add");
  ref = def.source_map.at({target, target + 1});
  REQUIRE(ref != nullptr);
  CHECK(ref->var() == y->var);
  CHECK_FALSE(def.source_map.is_param(y->var));
  // Operators and namespaces are no names in scope.
  uint32_t op = offset_of(text, "add(x");
  CHECK(def.source_map.at({op, op + 3}) == nullptr);
}

TEST_CASE("source map: a name rebound later in the function", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        y = R.multiply(y, y)
        z = R.add(y, x)
        return z
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Binding* first = binding_of(engine, "y", 0);
  const ir::Binding* second = binding_of(engine, "y", 1);
  REQUIRE(first->var != second->var);
  // The operands of the rebinding are the first y, its target the second.
  Symbol operand = symbol_at(engine, offset_of(text, "y, y)"));
  CHECK(operand.var == first->var);
  CHECK(operand.var == call_of(second)->args[0]);
  CHECK(operand.definition.begin == offset_of(text, "y = R.add"));
  Symbol target = symbol_at(engine, offset_of(text, "y = R.multiply"));
  CHECK(target.var == second->var);
  CHECK(target.kind == SymbolKind::Var);
  Symbol later = symbol_at(engine, offset_of(text, "y, x)"));
  CHECK(later.var == second->var);
  CHECK(later.var == call_of(binding_of(engine, "z"))->args[0]);
  // References follow the variable, not the name.
  std::vector<Span> refs = engine.references(kKey, offset_of(text, "y = R.add"));
  REQUIRE(refs.size() == 3);
  CHECK(refs[1].begin == offset_of(text, "y, y)"));
  CHECK(refs[2].begin == offset_of(text, "y, y)") + 3);
  CHECK(engine.references(kKey, offset_of(text, "y, x)")).size() == 2);
}

TEST_CASE("source map: a nested function's parameter shadows an outer variable", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            w = R.add(x, x)
            return w
        v = inner(x)
        return v
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Function* main = engine.document(kKey)->module().globals.at(0).function();
  REQUIRE(main != nullptr);
  const ir::Binding* inner = binding_of(engine, "inner");
  const auto* inner_fn = ir::dyn_cast<ir::Function>(inner->value);
  REQUIRE(inner_fn != nullptr);

  Symbol in_inner = symbol_at(engine, offset_of(text, "x, x)"));
  CHECK(in_inner.kind == SymbolKind::Param);
  CHECK(in_inner.var == inner_fn->params.at(0));
  CHECK(in_inner.definition.begin == offset_of(text, "x: R.Tensor", 1));
  // After the nested function the outer parameter is visible again.
  Symbol after = symbol_at(engine, offset_of(text, "inner(x)") + 6);
  CHECK(after.kind == SymbolKind::Param);
  CHECK(after.var == main->params.at(0));
  CHECK(after.var == call_of(binding_of(engine, "v"))->args.at(0));
  // The local function's name is the variable it is bound to.
  Symbol callee = symbol_at(engine, offset_of(text, "inner(x)"));
  CHECK(callee.kind == SymbolKind::Var);
  CHECK(callee.var == inner->var);
  CHECK(callee.definition.begin == offset_of(text, "inner("));
  CHECK(engine.references(kKey, offset_of(text, "x: R.Tensor", 0)).size() == 2);
  CHECK(engine.references(kKey, offset_of(text, "x: R.Tensor", 1)).size() == 3);
}

TEST_CASE("source map: shape variables bound by a match_cast", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(ndim=1, dtype="float32"):
        m = T.int64()
        y = R.match_cast(x, R.Tensor((m,), dtype="float32"))
        z: R.Tensor((m,), dtype="float32") = R.add(y, y)
        return z
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Binding* y = binding_of(engine, "y");
  REQUIRE(y->match_cast != nullptr);
  const auto* target = ir::dyn_cast<ir::TensorSInfo>(y->match_cast);
  REQUIRE(target != nullptr);
  const auto* shape = ir::dyn_cast<ir::ShapeExpr>(target->shape);
  REQUIRE(shape != nullptr);
  const auto* m = ir::dyn_cast<ir::PrimVar>(shape->values.at(0));
  REQUIRE(m != nullptr);

  Symbol in_cast = symbol_at(engine, offset_of(text, "m,)", 0));
  CHECK(in_cast.kind == SymbolKind::ShapeVar);
  CHECK(in_cast.prim_var == m);
  CHECK(in_cast.definition.begin == offset_of(text, "m = T.int64"));
  Symbol in_annotation = symbol_at(engine, offset_of(text, "m,)", 1));
  CHECK(in_annotation.prim_var == m);
  Symbol declared = symbol_at(engine, offset_of(text, "m = T.int64"));
  CHECK(declared.prim_var == m);
  CHECK(engine.references(kKey, offset_of(text, "m = T.int64")).size() == 3);
  // The match_cast's value is the parameter.
  CHECK(symbol_at(engine, offset_of(text, "x, R.Tensor")).kind == SymbolKind::Param);
}

TEST_CASE("source map: a quoted shape variable in annotations", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), s: R.Shape(["n"])) -> R.Tensor(("n", 4), dtype="float32"):
        y: R.Tensor((n, 4), dtype="float32") = R.add(x, x)
        return y
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Function* main = engine.document(kKey)->module().globals.at(0).function();
  REQUIRE(main != nullptr);
  const auto* x_sinfo = ir::dyn_cast<ir::TensorSInfo>(main->params.at(0)->annotation);
  REQUIRE(x_sinfo != nullptr);
  const auto* n =
      ir::dyn_cast<ir::PrimVar>(ir::dyn_cast<ir::ShapeExpr>(x_sinfo->shape)->values.at(0));
  REQUIRE(n != nullptr);

  // The name inside the quotes is the token; the first one introduces the variable.
  uint32_t first = offset_of(text, "\"n\"") + 1;
  Symbol introduced = symbol_at(engine, first);
  CHECK(introduced.kind == SymbolKind::ShapeVar);
  CHECK(introduced.prim_var == n);
  CHECK(introduced.definition == Span{first, first + 1});
  for (size_t nth : {1, 2}) {
    Symbol again = symbol_at(engine, offset_of(text, "\"n\"", nth) + 1);
    CHECK(again.prim_var == n);
  }
  // A bare use in the body is the same variable.
  CHECK(symbol_at(engine, offset_of(text, "(n, 4)") + 1).prim_var == n);
  std::vector<Span> refs = engine.references(kKey, first);
  REQUIRE(refs.size() == 4);
  for (Span s : refs) CHECK(text_of(engine, s) == "n");
  // A string that is not a name of the function is no symbol.
  CHECK_FALSE(engine.symbol_at(kKey, offset_of(text, "float32") + 1));
}

TEST_CASE("source map: uses inside a broken binding", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.add(x, x)
        y = R.multiply(y, cls.helper(
        w = R.add(y, x)
        return w

    @R.function
    def helper(a: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return a
)");
  Engine engine;
  engine.open(kKey, text);
  bool syntax_error = false;
  for (const raxc::Diagnostic& d : engine.diagnostics(kKey))
    syntax_error |= std::string(raxc::code(d.id)) < "RX1100";
  REQUIRE(syntax_error);
  const ir::Binding* first = binding_of(engine, "y", 0);
  // The operand of the broken statement is the y bound before it.
  Symbol operand = symbol_at(engine, offset_of(text, "y, cls"));
  CHECK(operand.var == first->var);
  // A global inside it.
  Symbol helper = symbol_at(engine, offset_of(text, "helper("));
  CHECK(helper.kind == SymbolKind::Function);
  CHECK(helper.definition.begin == offset_of(text, "helper(a"));
  // The broken statement's target is a variable of its own (bound to an error), and what
  // follows sees it.
  const ir::Binding* broken = binding_of(engine, "y", 1);
  CHECK(ir::isa<ir::ErrorExpr>(broken->value));
  Symbol target = symbol_at(engine, offset_of(text, "y = R.multiply"));
  CHECK(target.var == broken->var);
  // Names outside the broken statement keep working.
  Symbol after = symbol_at(engine, offset_of(text, "x)\n        return w"));
  CHECK(after.kind == SymbolKind::Param);
  Symbol w = symbol_at(engine, offset_of(text, "w\n"));
  CHECK(w.definition.begin == offset_of(text, "w = R.add"));
  CHECK(engine.references(kKey, offset_of(text, "y = R.add")).size() == 2);
}

TEST_CASE("source map: a use in a statement that failed to lower", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        z = R.no_such_operator(y, x)
        return y
)");
  Engine engine;
  engine.open(kKey, text);
  Symbol operand = symbol_at(engine, offset_of(text, "y, x)"));
  CHECK(operand.var == binding_of(engine, "y")->var);
  CHECK(engine.references(kKey, offset_of(text, "y = R.add")).size() == 3);
}

TEST_CASE("source map: a dataflow variable used outside its block", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.multiply(lv, lv)
            R.output(gv)
        return lv
)");
  Engine engine;
  engine.open(kKey, text);
  // An error (RX1163), but the name still denotes the block's variable.
  Symbol use = symbol_at(engine, offset_of(text, "lv\n"));
  CHECK(use.var == binding_of(engine, "lv")->var);
  CHECK(use.definition.begin == offset_of(text, "lv = R.add"));
  // R.output names the variable it turns into an ordinary one.
  Symbol output = symbol_at(engine, offset_of(text, "gv)"));
  CHECK(output.var == binding_of(engine, "gv")->var);
}

TEST_CASE("source map: if-branch targets name the if's result", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        if c:
            r = R.add(x, x)
        else:
            r = x
        s = R.multiply(r, r)
        return s
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Binding* s = binding_of(engine, "s");
  const ir::Var* result = ir::dyn_cast<ir::Var>(call_of(s)->args.at(0));
  REQUIRE(result != nullptr);
  CHECK(symbol_at(engine, offset_of(text, "r, r)")).var == result);
  CHECK(symbol_at(engine, offset_of(text, "r = R.add")).var == result);
  CHECK(symbol_at(engine, offset_of(text, "r = x")).var == result);
  // The else branch's value is the parameter, not the result.
  CHECK(symbol_at(engine, offset_of(text, "x\n        s =")).kind == SymbolKind::Param);
}

TEST_CASE("source map: a reused definition after an edit elsewhere", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def f(a: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return a

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = cls.f(x)
        return y
)");
  Engine engine;
  engine.open(kKey, text);
  // Grow f: main is reused with its old IR offsets and moves in the text.
  uint32_t at = offset_of(text, "return a");
  raxc::frontend::TextEdit e{at, at, "b = R.add(a, a)\n        "};
  REQUIRE(engine.update(kKey, std::span<const raxc::frontend::TextEdit>(&e, 1)));
  REQUIRE(engine.last_update(kKey)->relowered == 1);
  const std::string& now = *engine.text(kKey);
  Symbol y = symbol_at(engine, offset_of(now, "y\n"));
  CHECK(y.definition.begin == offset_of(now, "y = cls"));
  Symbol f = symbol_at(engine, offset_of(now, "f(x)"));
  CHECK(f.kind == SymbolKind::Function);
  CHECK(f.definition.begin == offset_of(now, "f(a"));
  std::vector<Span> refs = engine.references(kKey, offset_of(now, "f(a"));
  REQUIRE(refs.size() == 2);
  CHECK(refs[1].begin == offset_of(now, "f(x)"));
  CHECK(engine.references(kKey, offset_of(now, "a, a")).size() == 4);
}

TEST_CASE("source map: names in code lowering refuses or never reaches", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        for i in range(2):
            y = R.add(y, x)
        a = (x, y)[1]
        return a
        z = R.multiply(y, x)
)");
  Engine engine;
  engine.open(kKey, text);
  const ir::Var* y = binding_of(engine, "y")->var;
  // Inside a refused `for` loop, in a tuple field folded away, after the return.
  CHECK(symbol_at(engine, offset_of(text, "y, x)")).var == y);
  CHECK(symbol_at(engine, offset_of(text, "(x, y)") + 1).kind == SymbolKind::Param);
  CHECK(symbol_at(engine, offset_of(text, "y, x)", 1)).var == y);
  CHECK(engine.references(kKey, offset_of(text, "y = R.add")).size() == 5);
}

TEST_CASE("source map: a keyword or TIR name is not a global of the same name", "[source_map]") {
  const std::string text = module_of(R"(    @R.function
    def axes(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return x

    @T.prim_func
    def copy(A: T.Buffer((4,), "float32"), axes: T.Buffer((4,), "float32")):
        for i in range(4):
            axes[i] = A[i]

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((3, 2), dtype="float32"):
        y = R.permute_dims(x, axes=[1, 0])
        return y
)");
  Engine engine;
  engine.open(kKey, text);
  CHECK_FALSE(engine.symbol_at(kKey, offset_of(text, "axes=")));
  CHECK_FALSE(engine.symbol_at(kKey, offset_of(text, "axes[i]")));
  // The definition's own name still is the global.
  Symbol global = symbol_at(engine, offset_of(text, "axes(x"));
  CHECK(global.kind == SymbolKind::Function);
  CHECK(engine.references(kKey, offset_of(text, "axes(x")).size() == 1);
}
