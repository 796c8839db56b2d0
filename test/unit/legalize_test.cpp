// Legalization (backend/legalize): the table of legalized operators matches the tracked list
// (test/ops/legalized_operators.txt, which may only grow), generated PrimFuncs are named like
// TVM's and shared between calls of the same structure, symbolic dimensions no input binds
// are passed as tir_vars, and calls that cannot be lowered are left with their reason.
#include "backend/legalize/legalize.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "analysis/engine.h"
#include "analysis/ops/registry.h"
#include "frontend/printer/printer.h"

using namespace raxc;

namespace {

struct Lowered {
  analysis::Engine engine;
  std::unique_ptr<backend::LoweredModule> module;
  std::string text;
};

std::unique_ptr<Lowered> lower(const std::string& source) {
  auto l = std::make_unique<Lowered>();
  l->engine.open("t.rx", source);
  for (const Diagnostic& d : l->engine.diagnostics("t.rx")) INFO(d.message);
  backend::LegalizeInput input;
  const analysis::Engine& engine = l->engine;
  input.module = &engine.document("t.rx")->module();
  input.function = [&engine](const ir::GlobalDef& g) {
    return engine.normalized("t.rx", g.gvar->name);
  };
  input.inference = [&engine](const ir::GlobalDef& g) {
    return engine.inference("t.rx", g.gvar->name);
  };
  l->module = backend::legalize_module(input);
  printer::PrintOptions options;
  options.struct_info_of = [m = l->module.get()](const ir::Var* v) -> const ir::StructInfo* {
    auto it = m->var_sinfo.find(v);
    return it == m->var_sinfo.end() ? nullptr : it->second;
  };
  l->text = printer::print_module(l->module->module, options);
  return l;
}

std::vector<std::string> prim_func_names(const backend::LoweredModule& m) {
  std::vector<std::string> names;
  for (const ir::GlobalDef& g : m.module.globals)
    if (g.prim_func()) names.push_back(g.gvar->name);
  return names;
}

}  // namespace

TEST_CASE("legalize: the legalized operators are the tracked list, which only grows") {
  std::ifstream in(std::string(RAXC_SOURCE_DIR) + "/test/ops/legalized_operators.txt");
  REQUIRE(in);
  std::set<std::string> listed;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') listed.insert(line);
  std::set<std::string> actual;
  for (std::string_view op : backend::legalized_operators()) {
    actual.insert(std::string(op));
    INFO(op);
    CHECK(analysis::ops::find_op(op) != nullptr);  // every row names a registered operator
  }
  for (const std::string& op : listed) {
    INFO(op << " is listed but no longer legalizes");
    CHECK(actual.count(op) == 1);
  }
  for (const std::string& op : actual) {
    INFO(op << " legalizes: add it to test/ops/legalized_operators.txt");
    CHECK(listed.count(op) == 1);
  }
  CHECK(actual.size() >= 98);  // the count when this test was written
}

TEST_CASE("legalize: TVM's names, one PrimFunc per structure, numbered on clashes") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")):
        a = R.add(x, y)
        b = R.add(x, y)
        c = R.add(y, y)
        d = R.nn.softmax(a)
        return (b, c, d)
)");
  CHECK(l->module->legalized_calls == 4);
  CHECK(prim_func_names(*l->module) == std::vector<std::string>{"add", "add1", "softmax"});
  CHECK(l->module->left.empty());
  CHECK(
      l->text.find("R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))") !=
      std::string::npos);
}

TEST_CASE("legalize: symbolic dimensions; those no input binds go through tir_vars") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), s: R.Shape(["m"])):
        m = T.int64()
        a = R.exp(x)
        z = R.zeros(R.shape([m, 2]), "float32")
        return (a, z)
)");
  CHECK(l->module->legalized_calls == 2);
  CHECK(l->text.find("tir_vars=R.shape([m])") != std::string::npos);
  CHECK(l->text.find("n = T.int64()") != std::string::npos);
}

TEST_CASE("legalize: calls that cannot be lowered stay, with the reason") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
        a = R.nn.relu(x)
        return a
)");
  CHECK(l->module->legalized_calls == 0);
  REQUIRE(l->module->left.size() == 1);
  CHECK(l->module->left[0].op == "R.nn.relu");
  CHECK(l->module->left[0].why.find("not known statically") != std::string::npos);
}

TEST_CASE("legalize: operands of known rank get fresh shape variables by a match_cast") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=2)):
        with R.dataflow():
            a = R.nn.relu(x)
            R.output(a)
        return a
)");
  CHECK(l->module->legalized_calls == 1);
  CHECK(l->module->left.empty());
  CHECK(l->text.find("x_cast: R.Tensor((x_0, x_1), dtype=\"float32\") = "
                     "R.match_cast(x, R.Tensor((x_0, x_1), dtype=\"float32\"))") !=
        std::string::npos);
  CHECK(l->text.find("R.call_tir(cls.relu, (x_cast,), out_sinfo=R.Tensor((x_0, x_1)") !=
        std::string::npos);
}

TEST_CASE("legalize: dimensions inference assumed equal are matched at the call") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", "k"), "float32"), b: R.Tensor(("k2", "m"), "float32")):
        c = R.matmul(a, b)
        return c
)");
  CHECK(l->module->legalized_calls == 1);
  CHECK(l->text.find("R.match_cast(b, R.Tensor((k, m), dtype=\"float32\"))") != std::string::npos);
  CHECK(l->text.find("R.match_cast(a,") == std::string::npos);
}

TEST_CASE("legalize: operators of the language are the executor's, not left calls") {
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        s = R.memory.alloc_storage(R.shape([24]), 0, "global", "float32")
        t = R.memory.alloc_tensor(s, 0, R.shape([2, 3]), "float32")
        n = R.shape_of(x)
        R.print(x, format="{}")
        return (t, n)
)");
  CHECK(l->module->legalized_calls == 0);
  CHECK(l->module->left.empty());
  const analysis::ops::OpDef* shape_of = analysis::ops::find_op("relax.shape_of");
  const analysis::ops::OpDef* size = analysis::ops::find_op("relax.size");
  REQUIRE((shape_of && size));
  CHECK(shape_of->language);
  CHECK_FALSE(size->language);
}

TEST_CASE("legalize: a softmax over a symbolic axis is one flat sequence of loop nests") {
  // Over an extent that may be 0, each reduction's init is a stage of its own (Builder::stage);
  // the code generator merges only adjacent nests of one sequence (codegen/row_loops.h), so
  // the init and its reduction must not arrive as a sequence nested in the function's.
  auto l = lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, "n", "n"), "float32")):
        p = R.nn.softmax(x, axis=-1)
        return p
)");
  const ir::PrimFunc* softmax = nullptr;
  for (const ir::GlobalDef& g : l->module->module.globals)
    if (g.gvar->name == "softmax") softmax = g.prim_func();
  REQUIRE(softmax);
  const ir::Stmt* body = softmax->body;
  if (const auto* root = ir::dyn_cast<ir::Block>(body)) body = root->body;
  const auto* seq = ir::dyn_cast<ir::SeqStmt>(body);
  REQUIRE(seq);
  int64_t loops = 0, nested = 0;
  for (const ir::Stmt* s : seq->stmts) {
    loops += s->kind == ir::StmtKind::For;
    nested += s->kind == ir::StmtKind::Seq;
  }
  CHECK(nested == 0);
  CHECK(loops == 6);  // max's init and update, exp, sum's init and update, the division
}
