// Well-formedness (analysis/well_formed): criteria reachable from source text are checked on
// parsed snippets; the scoping criteria the frontend makes unreachable are checked on IR built
// by hand; every valid program of the TVM corpus must be free of RX2xxx diagnostics.
#include "analysis/well_formed/well_formed.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "analysis/normalize/normal_form.h"
#include "analysis/normalize/normalize.h"
#include "analysis/well_formed/call_graph.h"
#include "frontend/frontend.h"

using namespace raxc;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file parsed, each Relax function normalised, then checked for well-formedness.
struct Checked {
  std::string text;
  frontend::ParsedFile file;
  ir::Arena arena;
  DiagnosticSink sink;

  explicit Checked(std::string_view text, analysis::WellFormedOptions options = {})
      : text(text), file(frontend::parse_file(text)) {
    analysis::check_module_well_formed(*file.module, sink, options);
    for (const ir::GlobalDef& g : file.module->globals)
      if (const ir::Function* f = g.function())
        analysis::check_function_well_formed(*file.module, g, analysis::normalize(f, arena), sink);
  }

  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink.diagnostics()) out.push_back(code(d.id));
    return out;
  }
  std::string frontend_messages() const {
    std::string out;
    for (const Diagnostic& d : file.diagnostics)
      out += std::string(code(d.id)) + " " + d.message + "\n";
    return out;
  }
  // The source text a diagnostic or note points at.
  std::string at(Span s) const { return text.substr(s.begin, s.end - s.begin); }
  const Diagnostic& only() const {
    REQUIRE(sink.diagnostics().size() == 1);
    return sink.diagnostics().front();
  }
};

const char* kHeader =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tir as T\n\n";

std::string module(const std::string& body) {
  return std::string(kHeader) + "@I.ir_module\nclass Module:\n" + body;
}

using Codes = std::vector<std::string>;

}  // namespace

TEST_CASE("well-formed programs produce no RX2xxx", "[well_formed]") {
  Checked c(module(R"(
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        with R.dataflow():
            a = R.add(R.multiply(x, x), x)
            R.output(a)
        y = R.add(a, a)
        y = R.multiply(y, y)
        return R.add(y, x)
)"));
  INFO(c.frontend_messages());
  CHECK(c.file.diagnostics.empty());
  CHECK(c.codes().empty());
}

TEST_CASE("recursion in dataflow blocks and return annotations", "[well_formed]") {
  SECTION("recursive call inside a dataflow block") {
    Checked c(module(R"(
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            b = Module.main(x)
            R.output(b)
        return b
)"));
    CHECK(c.codes() == Codes{"RX2021"});
    CHECK(c.only().message == "recursive call to 'main' inside a dataflow block");
    REQUIRE(c.only().related.size() == 1);
    CHECK(c.at(c.only().related[0].span) == "main");
    CHECK(c.only().related[0].message == "'main' is defined here");
  }
  SECTION("mutual recursion inside a dataflow block") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            b = Module.g(x)
            R.output(b)
        return b

    @R.function
    def g(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = Module.f(x)
        return y
)"));
    CHECK(c.codes() == Codes{"RX2022"});
    CHECK(c.at(c.only().span) == "Module.g(x)");
    REQUIRE(c.only().related.size() == 1);  // the partner that calls back
    CHECK(c.at(c.only().related[0].span) == "g");
    CHECK(c.only().related[0].message == "'g' calls back into 'f'");
  }
  SECTION("the same calls outside dataflow blocks are fine") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = Module.g(x)
        return b

    @R.function
    def g(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        y = Module.f(a)
        return y
)"));
    CHECK(c.codes().empty());
  }
  SECTION("recursive and mutually recursive globals need return annotations") {
    Checked c(module(R"(
    @R.function
    def r(x: R.Tensor((4,), "float32")):
        y = Module.r(x)
        return y

    @R.function
    def f(x: R.Tensor((4,), "float32")):
        b = Module.g(x)
        return b

    @R.function
    def g(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = Module.f(x)
        return x
)"));
    CHECK(c.codes() == Codes{"RX2024", "RX2025"});
    const Diagnostic& recursive = c.sink.diagnostics()[0];
    REQUIRE(recursive.related.size() == 1);  // the recursive call
    CHECK(c.at(recursive.related[0].span) == "Module.r(x)");
    CHECK(recursive.related[0].message == "'r' calls itself here");
    const Diagnostic& mutual = c.sink.diagnostics()[1];
    CHECK(mutual.message == "'f' is mutually recursive with 'g' and needs a return annotation");
    REQUIRE(mutual.related.size() == 2);  // the call to the partner, the partner
    CHECK(c.at(mutual.related[0].span) == "Module.g(x)");
    CHECK(c.at(mutual.related[1].span) == "g");
    CHECK(mutual.related[1].message == "'g' calls back into 'f'");
  }
}

TEST_CASE("attributes: global_symbol, force_pure, entry point", "[well_formed]") {
  SECTION("global_symbol differs from the name") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"global_symbol": "g"})
        return x
)"));
    CHECK(c.codes() == Codes{"RX2030"});
    CHECK(c.only().related.size() == 1);
  }
  SECTION("global_symbol equal to the name") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"global_symbol": "f"})
        return x
)"));
    CHECK(c.codes().empty());
  }
  SECTION("force_pure on an impure function") {
    Checked c(module(R"(
    @R.function(pure=False)
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        return x
)"));
    CHECK(c.codes() == Codes{"RX2036"});
  }
  SECTION("RX2029 only when asked for; near miss: a public function") {
    std::string text = module(R"(
    @R.function(private=True)
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)");
    CHECK(Checked(text).codes().empty());
    analysis::WellFormedOptions options;
    options.require_entry_point = true;
    CHECK(Checked(text, options).codes() == Codes{"RX2029"});
    std::string public_text = module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)");
    CHECK(Checked(public_text, options).codes().empty());
  }
  SECTION("check_well_formed=False silences everything") {
    std::string text = std::string(kHeader) + R"(@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"global_symbol": "g"})
        with R.dataflow():
            b = Module.f(x)
            R.output(b)
        return b
)";
    CHECK(Checked(text).codes().empty());
  }
}

TEST_CASE("annotations: dtypes, R.Prim, R.Callable", "[well_formed]") {
  SECTION("vector dtype") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32x4")) -> R.Tensor((4,), "float32x4"):
        return x
)"));
    CHECK(c.codes() == Codes{"RX2035", "RX2035"});
  }
  SECTION("R.Prim with a handle dtype") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Prim("handle")) -> R.Prim("int64"):
        y = R.prim_value(1)
        return y
)"));
    CHECK(c.codes() == Codes{"RX2034"});
  }
  SECTION("R.Prim value of another dtype") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor(("n",), "float32")) -> R.Prim("int64"):
        n = T.int64()
        d: R.Prim("int32", value=n) = R.prim_value(n)
        return R.prim_value(n)
)"));
    CHECK(c.codes() == Codes{"RX2037"});
  }
  SECTION("R.Prim value of the same dtype") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor(("n",), "float32")) -> R.Prim("int64"):
        n = T.int64()
        d: R.Prim("int64", value=n) = R.prim_value(n)
        return d
)"));
    CHECK(c.codes().empty());
  }
  SECTION("R.Callable with params and derive_func") {
    Checked c(module(R"(
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c: R.Callable((R.Tensor,), R.Object, True, derive_func="d") = Module.f
        return x
)"));
    CHECK(c.codes() == Codes{"RX2032"});
  }
}

TEST_CASE("closures in dataflow blocks do not capture dataflow variables", "[well_formed]") {
  Checked c(module(R"(
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            @R.function
            def g(z: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                return R.add(z, a)
            b = g(x)
            R.output(b)
        return b
)"));
  CHECK(c.codes() == Codes{"RX2028"});
  CHECK(c.only().message ==
        "function 'g' is defined in a dataflow block and uses dataflow variable 'a' of that "
        "block");
  CHECK(c.only().related.size() == 1);
}

TEST_CASE("every valid program of the TVM corpus is well-formed", "[well_formed][corpus]") {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test/conformance/tvm-v0.25.0";
  nlohmann::json manifest = nlohmann::json::parse(read_text(root / "manifest.json"));
  int checked = 0;
  for (const auto& program : manifest["programs"]) {
    if (program["expect"] != "valid") continue;
    std::string file = program["file"];
    Checked c(read_text(root / file));
    std::string messages;
    for (const Diagnostic& d : c.sink.diagnostics())
      messages += std::string(code(d.id)) + " " + d.message + "\n";
    INFO(file << "\n" << messages);
    CHECK(c.codes().empty());
    ++checked;
  }
  CHECK(checked > 200);
}

// The golden cases of test/cases/well_formed, checked here without the driver: every
// `# expect-error RX2nnn:` comment must match an RX2xxx diagnostic on its line, and no other
// RX2xxx diagnostic may appear. (raxc_golden checks the full `raxc check` output.)
TEST_CASE("golden cases of test/cases/well_formed", "[well_formed][golden]") {
  fs::path dir = fs::path(RAXC_SOURCE_DIR) / "test/cases/well_formed";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".rx") continue;
    ++files;
    std::string text = read_text(entry.path());
    std::multiset<std::pair<int, std::string>> expected, actual;
    std::istringstream lines(text);
    std::string line;
    // `# expect-error RX2nnn` (this line) or `# expect-error@+N RX2nnn` / `@-N` (N lines away).
    static const std::regex expectation(R"(# expect-error(@([+-]\d+))? (RX2\d{3}))");
    for (int number = 1; std::getline(lines, line); ++number) {
      std::smatch m;
      if (!std::regex_search(line, m, expectation)) continue;
      int offset = m[2].matched ? std::stoi(m[2].str()) : 0;
      expected.insert({number + offset, m[3].str()});
    }
    Checked c(text);
    for (const Diagnostic& d : c.sink.diagnostics()) {
      int number =
          1 + static_cast<int>(std::count(text.begin(), text.begin() + d.span.begin, '\n'));
      actual.insert({number, code(d.id)});
    }
    INFO(entry.path().filename().string() << "\n" << c.frontend_messages());
    CHECK(c.file.diagnostics.empty());
    CHECK(actual == expected);
  }
  CHECK(files >= 4);
}

namespace {

// IR built by hand for the criteria the frontend makes unreachable from source text (names are
// resolved at lowering time) but that passes or other producers could still violate.
struct Builder {
  ir::IRModule module;
  ir::Arena& arena = *module.arena;
  const ir::StructInfo* object = arena.make<ir::ObjectSInfo>();
  const ir::Op* add_op = arena.make<ir::Op>("relax.add", Span{1, 2});
  uint32_t next_offset = 10;

  Span fresh_span() {
    next_offset += 10;
    return {next_offset, next_offset + 5};
  }
  const ir::Var* var(const char* name, bool dataflow = false,
                     const ir::StructInfo* annotation = nullptr) {
    return arena.make<ir::Var>(dataflow, name, annotation, fresh_span());
  }
  const ir::Call* add(const ir::Expr* a, const ir::Expr* b) {
    return arena.make<ir::Call>(add_op, std::vector<const ir::Expr*>{a, b},
                                std::vector<const ir::StructInfo*>{}, ir::Attrs{}, fresh_span());
  }
  const ir::Binding* bind(const ir::Var* v, const ir::Expr* value,
                          const ir::StructInfo* cast = nullptr) {
    return arena.make<ir::Binding>(ir::Binding{v, value, cast, fresh_span()});
  }
  const ir::BindingBlock* block(std::vector<const ir::Binding*> bindings, bool dataflow = false) {
    return arena.make<ir::BindingBlock>(ir::BindingBlock{dataflow, std::move(bindings), {}});
  }
  const ir::SeqExpr* seq(std::vector<const ir::BindingBlock*> blocks, const ir::Expr* body) {
    return arena.make<ir::SeqExpr>(std::move(blocks), body, fresh_span());
  }
  const ir::Function* function(std::vector<const ir::Var*> params, const ir::SeqExpr* body,
                               const ir::StructInfo* ret = nullptr) {
    return arena.make<ir::Function>(std::move(params), body, ret ? ret : object, true, false,
                                    ir::Attrs{}, fresh_span(), fresh_span());
  }
  const ir::PrimVar* sym(const char* name) {
    return arena.make<ir::PrimVar>(name, ir::DataType::Int(64), fresh_span());
  }
  const ir::TensorSInfo* tensor(std::vector<const ir::PrimExpr*> dims, int ndim = -2) {
    auto* shape = arena.make<ir::ShapeExpr>(dims, fresh_span());
    return arena.make<ir::TensorSInfo>(shape, ir::DataType::Float(32), nullptr,
                                       ndim == -2 ? static_cast<int>(dims.size()) : ndim,
                                       fresh_span());
  }

  // Adds `f` as global "main" and checks it.
  std::vector<std::string> check(const ir::Function* f) {
    module.globals.push_back(
        ir::GlobalDef{arena.make<ir::GlobalVar>("main"), f, module.arena, Span{}});
    DiagnosticSink sink;
    analysis::check_module_well_formed(module, sink);
    analysis::check_function_well_formed(module, module.globals.back(), f, sink);
    std::vector<std::string> out;
    for (const Diagnostic& d : sink.diagnostics()) out.push_back(code(d.id));
    last = sink.take();
    return out;
  }
  std::vector<Diagnostic> last;
};

}  // namespace

TEST_CASE("scoping criteria on hand-built IR", "[well_formed]") {
  Builder b;
  const ir::Var* x = b.var("x", false, b.object);

  SECTION("a well-formed function") {
    const ir::Var* y = b.var("y");
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x))})}, y))).empty());
  }
  SECTION("RX2010/RX2011 near miss: a dataflow variable bound and used inside its block") {
    const ir::Var* y = b.var("y", true);
    const ir::Var* z = b.var("z");
    auto* f = b.function(
        {x}, b.seq({b.block({b.bind(y, b.add(x, x)), b.bind(z, b.add(y, y))}, true)}, z));
    CHECK(b.check(f).empty());
  }
  SECTION("WF-1: dataflow variable bound outside a dataflow block") {
    const ir::Var* y = b.var("y", true);
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x))})}, x))) ==
          Codes{"RX2010"});
  }
  SECTION("WF-1: dataflow variable used after its block") {
    const ir::Var* y = b.var("y", true);
    const ir::Var* z = b.var("z");
    auto* f = b.function(
        {x},
        b.seq({b.block({b.bind(y, b.add(x, x))}, true), b.block({b.bind(z, b.add(y, y))})}, z));
    CHECK(b.check(f) == Codes{"RX2011"});
    REQUIRE(b.last.front().related.size() == 1);
    CHECK(b.last.front().related[0].message == "'y' is bound here");
  }
  SECTION("WF-2: bound twice") {
    const ir::Var* y = b.var("y");
    auto* f = b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x)), b.bind(y, x)})}, y));
    CHECK(b.check(f) == Codes{"RX2012"});
  }
  SECTION("RX2012 near miss: two variables of the same name are bound once each") {
    const ir::Var* first = b.var("y");
    const ir::Var* second = b.var("y");
    auto* f = b.function(
        {x}, b.seq({b.block({b.bind(first, b.add(x, x)), b.bind(second, first)})}, second));
    CHECK(b.check(f).empty());
  }
  SECTION("WF-2: never bound") {
    const ir::Var* ghost = b.var("ghost");
    CHECK(b.check(b.function({x}, b.seq({}, ghost))) == Codes{"RX2013"});
  }
  SECTION("RX2013 near miss: the body returns a parameter") {
    CHECK(b.check(b.function({x}, b.seq({}, x))).empty());
  }
  SECTION("WF-2: a non-function value refers to its own variable") {
    const ir::Var* y = b.var("y");
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, b.add(y, x))})}, y))) ==
          Codes{"RX2014"});
  }
  SECTION("RX2014 near miss: a local function may call itself") {
    const ir::Var* g = b.var("g");
    const ir::Var* z = b.var("z", false, b.object);
    const ir::Var* r = b.var("r");
    auto* call_g = b.arena.make<ir::Call>(g, std::vector<const ir::Expr*>{z},
                                          std::vector<const ir::StructInfo*>{}, ir::Attrs{});
    auto* inner = b.function({z}, b.seq({b.block({b.bind(r, call_g)})}, r));
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(g, inner)})}, x))).empty());
  }
  SECTION("WF-3: used before it is bound") {
    const ir::Var* y = b.var("y");
    const ir::Var* z = b.var("z");
    auto* f = b.function({x}, b.seq({b.block({b.bind(z, b.add(y, x)), b.bind(y, x)})}, z));
    CHECK(b.check(f) == Codes{"RX2015"});
  }
  SECTION("RX2015 near miss: the same bindings in dependency order") {
    const ir::Var* y = b.var("y");
    const ir::Var* z = b.var("z");
    auto* f = b.function({x}, b.seq({b.block({b.bind(y, x), b.bind(z, b.add(y, x))})}, z));
    CHECK(b.check(f).empty());
  }
  SECTION("shadowing: a variable of an if branch is not visible after the if") {
    const ir::Var* inner = b.var("x");  // shadows the parameter inside the branch
    const ir::Var* r = b.var("r");
    const ir::Var* cond = b.var("c", false, b.object);
    auto* then_branch = b.seq({b.block({b.bind(inner, b.add(x, x))})}, inner);
    auto* else_branch = b.seq({}, x);
    auto* branch = b.arena.make<ir::If>(cond, then_branch, else_branch, b.fresh_span());
    const ir::Var* after = b.var("after");
    auto* bad = b.function(
        {x, cond}, b.seq({b.block({b.bind(r, branch), b.bind(after, b.add(inner, x))})}, after));
    CHECK(b.check(bad) == Codes{"RX2016"});
  }
  SECTION("RX2016 near miss: the branch's variable used inside the branch only") {
    const ir::Var* inner = b.var("x");
    const ir::Var* r = b.var("r");
    const ir::Var* cond = b.var("c", false, b.object);
    auto* then_branch = b.seq({b.block({b.bind(inner, b.add(x, x))})}, inner);
    auto* branch = b.arena.make<ir::If>(cond, then_branch, b.seq({}, x), b.fresh_span());
    CHECK(b.check(b.function({x, cond}, b.seq({b.block({b.bind(r, branch)})}, r))).empty());
  }
  SECTION("WF-7.3: if inside a dataflow block") {
    const ir::Var* cond = b.var("c", false, b.object);
    const ir::Var* r = b.var("r");
    auto* branch = b.arena.make<ir::If>(cond, b.seq({}, x), b.seq({}, x), b.fresh_span());
    auto* f = b.function({x, cond}, b.seq({b.block({b.bind(r, branch)}, true)}, r));
    CHECK(b.check(f) == Codes{"RX2023"});
    CHECK(b.last.front().message == "'if' bound to 'r' inside a dataflow block of 'main'");
  }
  SECTION("RX2023 near miss: the same if in an ordinary block") {
    const ir::Var* cond = b.var("c", false, b.object);
    const ir::Var* r = b.var("r");
    auto* branch = b.arena.make<ir::If>(cond, b.seq({}, x), b.seq({}, x), b.fresh_span());
    CHECK(b.check(b.function({x, cond}, b.seq({b.block({b.bind(r, branch)})}, r))).empty());
  }
  SECTION("WF-9: an operator used as a value") {
    const ir::Var* y = b.var("y");
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, b.add_op)})}, y))) == Codes{"RX2026"});
  }
  SECTION("RX2026 near miss: the operator as the callee of a call") {
    const ir::Var* y = b.var("y");
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x))})}, y))).empty());
  }
  SECTION("unknown global") {
    const ir::Var* y = b.var("y");
    auto* g = b.arena.make<ir::GlobalVar>("nowhere", b.fresh_span());
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, g)})}, y))) == Codes{"RX2017"});
  }
  SECTION("RX2017 near miss: a reference to a global of the module") {
    const ir::Var* y = b.var("y");
    auto* g = b.arena.make<ir::GlobalVar>("main", b.fresh_span());
    CHECK(b.check(b.function({x}, b.seq({b.block({b.bind(y, g)})}, y))).empty());
  }
  SECTION("normal form after normalize(): a nested call is reported") {
    const ir::Var* y = b.var("y");
    auto* f = b.function({x}, b.seq({b.block({b.bind(y, b.add(b.add(x, x), x))})}, y));
    CHECK(b.check(f) == Codes{"RX2000"});
    CHECK(b.last.front().message ==
          "the call to 'relax.add' is nested inside another expression; normal form binds it to "
          "a variable first");
  }
  SECTION("RX2000 near miss: the inner call bound to its own variable first") {
    const ir::Var* inner = b.var("inner");
    const ir::Var* y = b.var("y");
    auto* f = b.function(
        {x}, b.seq({b.block({b.bind(inner, b.add(x, x)), b.bind(y, b.add(inner, x))})}, y));
    CHECK(b.check(f).empty());
  }
}

TEST_CASE("shape-variable and annotation criteria on hand-built IR", "[well_formed]") {
  Builder b;
  const ir::PrimVar* n = b.sym("n");
  const ir::PrimVar* m = b.sym("m");
  auto* two_n = b.arena.make<ir::PrimBinary>(ir::PrimKind::Mul, ir::DataType::Int(64),
                                             b.arena.make<ir::IntImm>(ir::DataType::Int(64), 2), n);

  SECTION("RX2020 near miss (WF-6): parameters bind in any order") {
    const ir::Var* x = b.var("x", false, b.tensor({two_n}));
    const ir::Var* y = b.var("y", false, b.tensor({n}));
    CHECK(b.check(b.function({x, y}, b.seq({}, x), b.tensor({n}))).empty());
  }
  SECTION("WF-6: a signature variable never in a binding position") {
    const ir::Var* x = b.var("x", false, b.tensor({two_n}));
    CHECK(b.check(b.function({x}, b.seq({}, x))) == Codes{"RX2020"});
    CHECK(b.last.front().message ==
          "symbolic variable 'n' in the signature of 'main' never appears alone as a dimension or "
          "value, so no argument binds it");
    REQUIRE(b.last.front().related.size() == 1);  // the parameter that uses it
    CHECK(b.last.front().related[0].span == x->annotation->span);
    CHECK(b.last.front().related[0].message == "parameter 'x' uses 'n' only inside an expression");
  }
  SECTION("WF-4: the return annotation uses a variable the parameters do not bind") {
    const ir::Var* x = b.var("x", false, b.tensor({n}));
    CHECK(b.check(b.function({x}, b.seq({}, x), b.tensor({m}))) == Codes{"RX2019"});
    CHECK(b.last.front().message ==
          "the return annotation of 'main' uses symbolic variable 'm', which its parameters do "
          "not bind");
    REQUIRE(b.last.front().related.size() == 1);  // the parameter list
    CHECK(b.last.front().related[0].span.begin == x->span.begin);
    CHECK(b.last.front().related[0].message == "no parameter of 'main' binds 'm'");
  }
  SECTION("RX2019 near miss: the return annotation uses an expression of bound variables") {
    const ir::Var* x = b.var("x", false, b.tensor({n}));
    CHECK(b.check(b.function({x}, b.seq({}, x), b.tensor({two_n}))).empty());
  }
  SECTION("WF-5: match_cast binds; a use before it is an error") {
    const ir::Var* x = b.var("x", false, b.object);
    const ir::Var* early = b.var("early");
    const ir::Var* cast = b.var("cast");
    const ir::Var* late = b.var("late");
    auto* shape_m = b.arena.make<ir::ShapeExpr>(std::vector<const ir::PrimExpr*>{m});
    auto* f =
        b.function({x}, b.seq({b.block({b.bind(early, shape_m), b.bind(cast, x, b.tensor({m})),
                                        b.bind(late, shape_m)})},
                              late));
    CHECK(b.check(f) == Codes{"RX2018"});
  }
  SECTION("RX2018 near miss: a use after the match_cast that binds it") {
    const ir::Var* x = b.var("x", false, b.object);
    const ir::Var* cast = b.var("cast");
    const ir::Var* late = b.var("late");
    auto* shape_m = b.arena.make<ir::ShapeExpr>(std::vector<const ir::PrimExpr*>{m});
    auto* f = b.function(
        {x}, b.seq({b.block({b.bind(cast, x, b.tensor({m})), b.bind(late, shape_m)})}, late));
    CHECK(b.check(f).empty());
  }
  SECTION("WF-10/14/15: ndim against the shape") {
    const ir::Var* x = b.var("x", false, b.tensor({n}, 2));
    CHECK(b.check(b.function({x}, b.seq({}, x))) == Codes{"RX2027"});
    CHECK(b.last.front().message ==
          "the tensor annotation of parameter 'x' has ndim=2 but 1 dimension(s)");
  }
  SECTION("RX2027 near miss: ndim equal to the number of dimensions") {
    const ir::Var* x = b.var("x", false, b.tensor({n, m}, 2));
    CHECK(b.check(b.function({x}, b.seq({}, x), b.tensor({n, m}))).empty());
  }
  SECTION("WF-14: the shape of a tensor annotation is a shape variable or expression") {
    auto* bad = b.arena.make<ir::TensorSInfo>(b.arena.make<ir::StringImm>("s"),
                                              ir::DataType::Float(32), nullptr, -1);
    const ir::Var* x = b.var("x", false, bad);
    CHECK(b.check(b.function({x}, b.seq({}, x))) == Codes{"RX2031"});
    CHECK(b.last.front().message.find("the tensor annotation of parameter 'x' must be") !=
          std::string::npos);
  }
  SECTION("RX2031 near miss: the shape of a tensor annotation is a shape parameter") {
    const ir::Var* s = b.var("s", false, b.arena.make<ir::ShapeSInfo>(std::nullopt, 2));
    auto* by_var = b.arena.make<ir::TensorSInfo>(s, ir::DataType::Float(32), nullptr, 2);
    const ir::Var* x = b.var("x", false, by_var);
    CHECK(b.check(b.function({s, x}, b.seq({}, x))).empty());
  }
  SECTION("WF-18: R.prim_value of a vector dtype") {
    const ir::Var* x = b.var("x", false, b.object);
    const ir::Var* p = b.var("p");
    auto* vec = b.arena.make<ir::IntImm>(ir::DataType{ir::DataType::Code::Int, 32, 4}, 1);
    auto* f = b.function({x}, b.seq({b.block({b.bind(p, b.arena.make<ir::PrimValue>(vec))})}, p));
    CHECK(b.check(f) == Codes{"RX2033"});
  }
  SECTION("RX2033 near miss: R.prim_value of a scalar int32") {
    const ir::Var* x = b.var("x", false, b.object);
    const ir::Var* p = b.var("p");
    auto* scalar = b.arena.make<ir::IntImm>(ir::DataType::Int(32), 1);
    auto* f =
        b.function({x}, b.seq({b.block({b.bind(p, b.arena.make<ir::PrimValue>(scalar))})}, p));
    CHECK(b.check(f).empty());
  }
  SECTION("WF-24: a vdevice not listed in global_info") {
    auto* listed = b.arena.make<ir::VDevice>();
    listed->target_kind = "cuda";
    b.module.vdevices.push_back(listed);
    auto* stray = b.arena.make<ir::VDevice>();
    stray->target_kind = "llvm";
    auto make = [&](const ir::VDevice* d) {
      return b.arena.make<ir::TensorSInfo>(nullptr, ir::DataType::Float(32), d, 1);
    };
    const ir::Var* ok = b.var("ok", false, make(listed));
    const ir::Var* bad = b.var("bad", false, make(stray));
    CHECK(b.check(b.function({ok, bad}, b.seq({}, ok))) == Codes{"RX2038"});
    CHECK(b.last.front().message ==
          "vdevice 'llvm:0' in the annotation of parameter 'bad' is not listed in the module's "
          "global_info");
  }
  SECTION("RX2038 near miss: a vdevice listed in global_info") {
    auto* listed = b.arena.make<ir::VDevice>();
    listed->target_kind = "cuda";
    b.module.vdevices.push_back(listed);
    auto* tensor = b.arena.make<ir::TensorSInfo>(nullptr, ir::DataType::Float(32), listed, 1);
    const ir::Var* ok = b.var("ok", false, tensor);
    CHECK(b.check(b.function({ok}, b.seq({}, ok))).empty());
  }
}

TEST_CASE("call_tir arguments that normalize() cannot spell out", "[well_formed]") {
  Builder b;
  const ir::Var* t = b.var("t", false, b.object);  // arity unknown
  const ir::Var* y = b.var("y");
  auto* call_tir = b.arena.make<ir::Op>("relax.call_tir");
  auto* k = b.arena.make<ir::GlobalVar>("main");
  auto* c = b.arena.make<ir::Call>(call_tir, std::vector<const ir::Expr*>{k, t},
                                   std::vector<const ir::StructInfo*>{b.object}, ir::Attrs{});
  ir::Arena scratch;
  const ir::Function* f = b.function({t}, b.seq({b.block({b.bind(y, c)})}, y));
  const ir::Function* n = analysis::normalize(f, scratch);
  CHECK(n == f);
  CHECK(b.check(n) == Codes{"RX2003"});
}

TEST_CASE("RX2003 near miss: call_tir arguments as a tuple literal", "[well_formed]") {
  Builder b;
  const ir::Var* t = b.var("t", false, b.object);
  const ir::Var* y = b.var("y");
  auto* call_tir = b.arena.make<ir::Op>("relax.call_tir");
  auto* k = b.arena.make<ir::GlobalVar>("main");
  auto* args = b.arena.make<ir::Tuple>(std::vector<const ir::Expr*>{t});
  auto* c = b.arena.make<ir::Call>(call_tir, std::vector<const ir::Expr*>{k, args},
                                   std::vector<const ir::StructInfo*>{b.object}, ir::Attrs{});
  CHECK(b.check(b.function({t}, b.seq({b.block({b.bind(y, c)})}, y))).empty());
}

TEST_CASE("normal-form criteria a producer other than the parser could violate",
          "[well_formed][normal_form]") {
  Builder b;
  const ir::Var* x = b.var("x");
  const ir::Var* y = b.var("y");
  const ir::Var* z = b.var("z");
  auto codes = [](const ir::Function* f) {
    DiagnosticSink sink;
    analysis::check_normal_form(f, sink);
    std::vector<std::string> out;
    for (const Diagnostic& d : sink.diagnostics()) out.push_back(code(d.id));
    return out;
  };
  using Codes = std::vector<std::string>;
  SECTION("RX2001/RX2002 near miss: one block of flat bindings") {
    auto* f = b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x)), b.bind(z, y)})}, z));
    CHECK(codes(f).empty());
    CHECK(analysis::is_normal_form(f));
  }
  SECTION("RX2001: a SeqExpr bound to a variable") {
    auto* inner = b.seq({b.block({b.bind(z, b.add(x, x))})}, z);
    auto* f = b.function({x}, b.seq({b.block({b.bind(y, inner)})}, y));
    CHECK(codes(f) == Codes{"RX2001"});
    CHECK_FALSE(analysis::is_normal_form(f));
  }
  SECTION("RX2002: an empty block, and two consecutive ordinary blocks") {
    auto* empty = b.function({x}, b.seq({b.block({})}, x));
    CHECK(codes(empty) == Codes{"RX2002"});
    auto* split =
        b.function({x}, b.seq({b.block({b.bind(y, b.add(x, x))}), b.block({b.bind(z, y)})}, z));
    CHECK(codes(split) == Codes{"RX2002"});
  }
  SECTION("RX2002 near miss: a dataflow block followed by an ordinary block") {
    const ir::Var* d = b.var("d", true);
    auto* f = b.function(
        {x},
        b.seq({b.block({b.bind(d, b.add(x, x)), b.bind(y, d)}, true), b.block({b.bind(z, y)})}, z));
    CHECK(codes(f).empty());
  }
}

TEST_CASE("functions affected by changed call edges", "[well_formed][call_graph]") {
  // main -> ping <-> pong -> leaf; other -> leaf; lone.
  analysis::wf::CallEdges edges = {
      {"main", {"ping"}},  {"ping", {"pong"}}, {"pong", {"ping", "leaf"}},
      {"other", {"leaf"}}, {"leaf", {}},       {"lone", {}}};
  using Names = std::unordered_set<std::string>;
  CHECK(analysis::wf::affected_by_call_edges(edges, {}).empty());
  // Everything that reaches pong, through the cycle too; not leaf, other or lone.
  CHECK(analysis::wf::affected_by_call_edges(edges, {"pong"}) == Names{"pong", "ping", "main"});
  CHECK(analysis::wf::affected_by_call_edges(edges, {"leaf"}) ==
        Names{"leaf", "pong", "ping", "main", "other"});
  CHECK(analysis::wf::affected_by_call_edges(edges, {"lone", "main"}) == Names{"lone", "main"});
  // A function that no longer exists is still reported, with whatever still calls it.
  CHECK(analysis::wf::affected_by_call_edges(edges, {"gone"}) == Names{"gone"});
}
