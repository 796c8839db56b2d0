// Recovery from a broken statement: lowering keeps an ir::ErrorExpr where the text is wrong, the
// unknown StructInfo is compatible with everything, and the rest of the function keeps its
// StructInfo and diagnostics, also while a line is being typed one character at a time.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "analysis/engine.h"
#include "analysis/struct_info/relations.h"
#include "frontend/ir/arena.h"
#include "frontend/ir/visitor.h"
#include "frontend/printer/printer.h"

namespace {

using raxc::Diagnostic;
using raxc::Severity;
using raxc::analysis::Engine;
using raxc::frontend::TextEdit;

const char* const kHead = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w1: R.Tensor((784, 128), dtype="float32"), w2: R.Tensor((128, 10), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            h = R.matmul(x, w1)
)";
const char* const kTail = R"(            a = R.nn.relu(h)
            logits: R.Tensor((n, 10), dtype="float32") = R.matmul(a, w2)
            out = R.nn.softmax(logits, axis=-1)
            R.output(out)
        return out
)";
const std::string kKey = "recovery.rx";

// name -> printed StructInfo of every binding of every function.
std::map<std::string, std::string> struct_infos(const Engine& engine) {
  struct Bindings : raxc::ir::Visitor {
    std::vector<const raxc::ir::Binding*> all;
    void on_binding(const raxc::ir::Binding& b) override { all.push_back(&b); }
  } bindings;
  for (const raxc::ir::GlobalDef& g : engine.document(kKey)->module().globals)
    if (const raxc::ir::Function* f = g.function()) bindings.visit(f);
  std::map<std::string, std::string> out;
  for (const raxc::ir::Binding* b : bindings.all)
    if (const raxc::ir::StructInfo* s = engine.inferred(kKey, b->var))
      out[b->var->name] = raxc::printer::print_struct_info(s);
  return out;
}

std::vector<Diagnostic> errors(const Engine& engine) {
  std::vector<Diagnostic> out;
  for (Diagnostic& d : engine.diagnostics(kKey))
    if (d.severity == Severity::Error) out.push_back(std::move(d));
  return out;
}

const raxc::ir::Binding* binding_of(const Engine& engine, const std::string& name) {
  struct Find : raxc::ir::Visitor {
    std::string name;
    const raxc::ir::Binding* found = nullptr;
    void on_binding(const raxc::ir::Binding& b) override {
      if (b.var && b.var->name == name) found = &b;
    }
  } find;
  find.name = name;
  for (const raxc::ir::GlobalDef& g : engine.document(kKey)->module().globals)
    if (const raxc::ir::Function* f = g.function()) find.visit(f);
  return find.found;
}

}  // namespace

TEST_CASE("recovery: the unknown StructInfo is compatible with everything", "[recovery]") {
  raxc::ir::Arena arena;
  raxc::analysis::arith::Analyzer analyzer(arena);
  const raxc::ir::StructInfo* unknown = raxc::ir::unknown_sinfo();
  REQUIRE(raxc::ir::is_unknown(unknown));
  raxc::ir::ObjectSInfo object;
  CHECK_FALSE(raxc::ir::is_unknown(&object));
  raxc::ir::PrimSInfo prim(raxc::ir::DataType::Int(64), nullptr);
  using raxc::analysis::Compat;
  CHECK(raxc::analysis::check_compatibility(analyzer, &prim, unknown).result == Compat::Compatible);
  CHECK(raxc::analysis::check_compatibility(analyzer, unknown, &prim).result == Compat::Compatible);
  // near miss: a plain R.Object is not an R.Prim (the spec's check_compatibility step 2)
  CHECK(raxc::analysis::check_compatibility(analyzer, &prim, &object).result ==
        Compat::Incompatible);
  CHECK(raxc::ir::is_unknown(raxc::analysis::unify(analyzer, &prim, unknown)));
  CHECK(raxc::printer::print_struct_info(unknown) == "{unknown}");
}

TEST_CASE("recovery: a broken line costs only its own binding", "[recovery]") {
  Engine clean_engine;
  clean_engine.open(kKey, std::string(kHead) + kTail);
  REQUIRE(errors(clean_engine).empty());
  std::map<std::string, std::string> clean = struct_infos(clean_engine);
  REQUIRE(clean.size() == 4);

  for (const char* line : {"z = R.nn.", "z = ", "z = R.add(out, ", "z = R.add(h, h", "z = R.add(h, (h, "}) {
    Engine engine;
    engine.open(kKey, std::string(kHead) + "            " + line + "\n" + kTail);
    INFO(line);
    std::vector<Diagnostic> found = errors(engine);
    REQUIRE(found.size() == 1);
    CHECK(found[0].span.begin >= std::string(kHead).size());
    std::map<std::string, std::string> now = struct_infos(engine);
    for (const auto& [name, sinfo] : clean) CHECK(now[name] == sinfo);
    // The broken statement still binds its name, to an error with the unknown StructInfo.
    const raxc::ir::Binding* z = binding_of(engine, "z");
    REQUIRE(z != nullptr);
    CHECK(raxc::ir::isa<raxc::ir::ErrorExpr>(z->value));
    CHECK(now["z"] == "{unknown}");
  }
}

TEST_CASE("recovery: an undefined name is an error node inside its expression", "[recovery]") {
  Engine engine;
  engine.open(kKey, std::string(kHead) + "            z = R.add(undefined_name, h)\n" + kTail);
  std::vector<Diagnostic> found = errors(engine);
  REQUIRE(found.size() == 1);
  CHECK(found[0].id == raxc::DiagId::RX1164);
  const raxc::ir::Binding* z = binding_of(engine, "z");
  REQUIRE(z != nullptr);
  const auto* call = raxc::ir::dyn_cast<raxc::ir::Call>(z->value);
  REQUIRE(call != nullptr);
  REQUIRE(call->args.size() == 2);
  const auto* unresolved = raxc::ir::dyn_cast<raxc::ir::ErrorExpr>(call->args[0]);
  REQUIRE(unresolved != nullptr);
  CHECK(unresolved->name == "undefined_name");
  CHECK(raxc::ir::isa<raxc::ir::Var>(call->args[1]));
  CHECK(struct_infos(engine)["a"] == "R.Tensor((n, 128), dtype=\"float32\")");
}

TEST_CASE("recovery: typing a line keeps the rest of the function", "[recovery]") {
  Engine clean_engine;
  clean_engine.open(kKey, std::string(kHead) + kTail);
  std::map<std::string, std::string> clean = struct_infos(clean_engine);

  const std::string typed = "z = R.add(h, R.nn.relu(h))";
  Engine engine;
  engine.open(kKey, std::string(kHead) + "            \n" + kTail);
  uint32_t at = uint32_t(std::string(kHead).size() + 12);
  for (size_t i = 0; i < typed.size(); ++i) {
    TextEdit e{at + uint32_t(i), at + uint32_t(i), typed.substr(i, 1)};
    REQUIRE(engine.update(kKey, std::span<const TextEdit>(&e, 1)));
    INFO(engine.text(kKey)->substr(at, i + 1));
    std::map<std::string, std::string> now = struct_infos(engine);
    for (const auto& [name, sinfo] : clean) CHECK(now[name] == sinfo);
    CHECK(errors(engine).size() <= 1);
  }
  CHECK(errors(engine).empty());
  CHECK(struct_infos(engine)["z"] == "R.Tensor((n, 128), dtype=\"float32\")");
}
