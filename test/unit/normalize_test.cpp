// Normal form (analysis/normalize): nested expressions bound to temporaries that keep the
// source range, SeqExpr flattening, block consolidation, call_tir's tuple literal, sharing of
// unchanged sub-trees, and the corpus (normalize is idempotent and its result is normal).
#include "analysis/normalize/normalize.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analysis/normalize/normal_form.h"
#include "analysis/well_formed/well_formed.h"
#include "frontend/frontend.h"

using namespace raxc;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  std::string text;
  frontend::ParsedFile file;
  explicit Parsed(std::string t) : text(std::move(t)), file(frontend::parse_file(text)) {}
  const ir::Function* fn(size_t i = 0) const {
    REQUIRE(file.module->globals.size() > i);
    const ir::Function* f = file.module->globals[i].function();
    REQUIRE(f);
    return f;
  }
  std::string slice(Span s) const { return text.substr(s.begin, s.end - s.begin); }
};

std::string relax_function(const std::string& body) {
  return "from tvm.script import relax as R\nfrom tvm.script import ir as I\n"
         "from tvm.script import tir as T\n\n" +
         body;
}

const ir::Call* call_of(const ir::Binding* b) { return ir::dyn_cast<ir::Call>(b->value); }

}  // namespace

TEST_CASE("normal functions are returned as they are", "[normalize]") {
  Parsed p(relax_function(R"(@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a)
    b = (a, x)
    return b
)"));
  ir::Arena arena;
  CHECK(analysis::is_normal_form(p.fn()));
  CHECK(analysis::normalize(p.fn(), arena) == p.fn());
  CHECK(arena.bytes_allocated() == 0);
}

TEST_CASE("nested calls are bound to temporaries with the nested span", "[normalize]") {
  Parsed p(relax_function(R"(@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        a = R.add(R.multiply(x, x), x)
        R.output(a)
    y = R.add(a, a)
    return R.add(y, x)
)"));
  ir::Arena arena;
  const ir::Function* f = p.fn();
  REQUIRE_FALSE(analysis::is_normal_form(f));
  const ir::Function* n = analysis::normalize(f, arena);
  REQUIRE(n != f);
  CHECK(analysis::is_normal_form(n));
  CHECK(n->params == f->params);

  REQUIRE(n->body->blocks.size() == 2);
  const ir::BindingBlock* df = n->body->blocks[0];
  CHECK(df->is_dataflow);
  REQUIRE(df->bindings.size() == 2);
  const ir::Var* lv = df->bindings[0]->var;
  CHECK(lv->name == "lv");
  CHECK(lv->is_dataflow());  // a temporary in a dataflow block is a DataflowVar
  CHECK(p.slice(lv->span) == "R.multiply(x, x)");
  CHECK(p.slice(df->bindings[0]->value->span) == "R.multiply(x, x)");
  CHECK(call_of(df->bindings[1])->args[0] == lv);
  CHECK(df->bindings[1]->var == f->body->blocks[0]->bindings[0]->var);  // same variable

  // The returned call is bound in the ordinary block, which keeps its first binding.
  const ir::BindingBlock* block = n->body->blocks[1];
  CHECK_FALSE(block->is_dataflow);
  REQUIRE(block->bindings.size() == 2);
  CHECK(block->bindings[0] == f->body->blocks[1]->bindings[0]);  // shared, not copied
  const ir::Var* ret = block->bindings[1]->var;
  CHECK(ret->name == "lv1");
  CHECK_FALSE(ret->is_dataflow());
  CHECK(p.slice(ret->span) == "R.add(y, x)");
  CHECK(n->body->body == ret);
}

TEST_CASE("temporaries do not reuse the names of the function", "[normalize]") {
  Parsed p(relax_function(R"(@R.function
def f(lv: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    lv1 = R.add(lv, lv)
    return R.add(R.add(lv1, lv), lv)
)"));
  ir::Arena arena;
  const ir::Function* n = analysis::normalize(p.fn(), arena);
  const auto& bindings = n->body->blocks.at(0)->bindings;
  REQUIRE(bindings.size() == 3);
  CHECK(bindings[1]->var->name == "lv2");
  CHECK(bindings[2]->var->name == "lv3");
}

TEST_CASE("unchanged blocks and nested functions are shared", "[normalize]") {
  Parsed p(relax_function(R"(@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a)
    @R.function
    def g(z: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.add(R.add(z, z), z)
    y = g(a)
    return y
)"));
  ir::Arena arena;
  const ir::Function* f = p.fn();
  const ir::Function* n = analysis::normalize(f, arena);
  REQUIRE(n != f);
  CHECK(n->body->blocks[0] == f->body->blocks[0]);
  auto* g = ir::dyn_cast<ir::Function>(n->body->blocks[1]->bindings[0]->value);
  REQUIRE(g);
  CHECK(analysis::is_normal_form(g));
  CHECK(g->body->blocks.at(0)->bindings.size() == 2);
  CHECK(analysis::normalize(n, arena) == n);  // idempotent
}

TEST_CASE("call_tir arguments become a tuple literal", "[normalize]") {
  Parsed p(relax_function(R"(@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        t = (x, x)
        y = R.call_tir(Module.k, t, out_sinfo=R.Tensor((4,), "float32"))
        return y

    @T.prim_func
    def k(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"),
          c: T.Buffer((4,), "float32")):
        T.evaluate(0)
)"));
  ir::Arena arena;
  const ir::Function* f = p.fn();
  REQUIRE(p.file.diagnostics.empty());
  REQUIRE_FALSE(analysis::is_normal_form(f));
  const ir::Function* n = analysis::normalize(f, arena);
  CHECK(analysis::is_normal_form(n));
  const auto& bindings = n->body->blocks.at(0)->bindings;
  REQUIRE(bindings.size() == 4);  // t, t[0], t[1], y
  CHECK(ir::isa<ir::TupleGetItem>(bindings[1]->value));
  auto* args = ir::dyn_cast<ir::Tuple>(call_of(bindings[3])->args[1]);
  REQUIRE(args);
  CHECK(args->fields == std::vector<const ir::Expr*>{bindings[1]->var, bindings[2]->var});
}

TEST_CASE("sequence expressions in bindings are flattened and blocks consolidated", "[normalize]") {
  // Built by hand: the frontend never nests SeqExprs or leaves empty blocks.
  ir::Arena arena;
  auto* ty = arena.make<ir::ObjectSInfo>();
  auto* x = arena.make<ir::Var>(false, "x", ty);
  auto* a = arena.make<ir::Var>(false, "a", nullptr);
  auto* b = arena.make<ir::Var>(false, "b", nullptr);
  auto* c = arena.make<ir::Var>(false, "c", nullptr);
  auto* op = arena.make<ir::Op>("relax.add");
  auto add = [&](const ir::Expr* l, const ir::Expr* r) {
    return arena.make<ir::Call>(op, std::vector<const ir::Expr*>{l, r},
                                std::vector<const ir::StructInfo*>{}, ir::Attrs{});
  };
  auto block = [&](std::vector<const ir::Binding*> bs) {
    return arena.make<ir::BindingBlock>(ir::BindingBlock{false, std::move(bs), {}});
  };
  auto* inner = arena.make<ir::SeqExpr>(
      std::vector<const ir::BindingBlock*>{
          block({arena.make<ir::Binding>(ir::Binding{a, add(x, x), nullptr, {}})})},
      add(a, x));
  auto* body = arena.make<ir::SeqExpr>(
      std::vector<const ir::BindingBlock*>{
          block({}), block({arena.make<ir::Binding>(ir::Binding{b, inner, nullptr, {}})}),
          block({arena.make<ir::Binding>(ir::Binding{c, add(b, b), nullptr, {}})})},
      c);
  auto* f =
      arena.make<ir::Function>(std::vector<const ir::Var*>{x}, body, ty, true, false, ir::Attrs{});
  DiagnosticSink before;
  analysis::check_normal_form(f, before);
  // An empty block, twice two consecutive binding blocks, a nested SeqExpr.
  CHECK(before.error_count() == 4);

  const ir::Function* n = analysis::normalize(f, arena);
  CHECK(analysis::is_normal_form(n));
  REQUIRE(n->body->blocks.size() == 1);
  const auto& bindings = n->body->blocks[0]->bindings;
  REQUIRE(bindings.size() == 3);
  CHECK(bindings[0]->var == a);
  CHECK(bindings[1]->var == b);
  CHECK(call_of(bindings[1])->args[0] == a);  // the inner body replaces the SeqExpr
  CHECK(bindings[2]->var == c);
}

TEST_CASE("normalize over the TVM corpus: normal, idempotent, still well-formed",
          "[normalize][corpus]") {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test/conformance/tvm-v0.25.0";
  nlohmann::json manifest = nlohmann::json::parse(read_file(root / "manifest.json"));
  int functions = 0, changed = 0;
  for (const auto& program : manifest["programs"]) {
    if (program["expect"] != "valid") continue;
    std::string file = program["file"];
    INFO(file);
    frontend::ParsedFile parsed = frontend::parse_file(read_file(root / file));
    ir::Arena arena;
    for (const ir::GlobalDef& g : parsed.module->globals) {
      const ir::Function* f = g.function();
      if (!f) continue;
      const ir::Function* n = analysis::normalize(f, arena);
      ++functions;
      changed += n != f;
      CHECK(analysis::is_normal_form(n));
      CHECK(analysis::normalize(n, arena) == n);
      DiagnosticSink sink;
      analysis::check_function_well_formed(*parsed.module, g, n, sink);
      CHECK(sink.diagnostics().empty());
    }
  }
  CHECK(functions > 200);
  CHECK(changed > 0);
}
