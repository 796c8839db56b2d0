// StructInfo inference (analysis/infer): targeted checks of the derivation rules and diagnostics
// (on normalised functions, as the engine runs it), and the TVM corpus (every valid program: no
// error). The `# sinfo:` goldens are the golden runner's.
#include "analysis/infer/infer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/normalize/normalize.h"
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"

using namespace raxc;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One file parsed and inferred: every Relax function of the module, in source order.
struct Inferred {
  frontend::ParsedFile file;
  ir::Arena arena;
  std::unique_ptr<analysis::arith::Analyzer> analyzer;
  DiagnosticSink sink;
  std::vector<analysis::FunctionInference> functions;
  std::vector<const ir::Function*> normalized;  // what `functions` were inferred on

  explicit Inferred(std::string_view text, bool even_with_errors = false)
      : file(frontend::parse_file(text)) {
    analyzer = std::make_unique<analysis::arith::Analyzer>(arena);
    if (file.has_errors() && !even_with_errors) return;
    analysis::GlobalSignatures globals = analysis::module_signatures(*file.module, *analyzer);
    for (const ir::GlobalDef& g : file.module->globals)
      if (const ir::Function* f = g.function()) {
        normalized.push_back(analysis::normalize(f, arena));
        functions.push_back(
            analysis::infer_function(*file.module, normalized.back(), globals, *analyzer, sink));
      }
  }

  std::string messages() const {
    std::string out;
    for (const Diagnostic& d : file.diagnostics)
      out += std::string(code(d.id)) + " " + d.message + "\n";
    for (const Diagnostic& d : sink.diagnostics())
      out += std::string(code(d.id)) + " " + d.message + "\n";
    return out;
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink.diagnostics()) out.push_back(code(d.id));
    return out;
  }
  // The inferred StructInfo of the binding variable named `name` (the last one bound).
  std::string sinfo_of(const std::string& name) const {
    std::string found = "<unbound>";
    uint32_t best = 0;
    for (const auto& fi : functions)
      for (const auto& [var, s] : fi.var_sinfo)
        if (var->name == name && var->span.begin >= best) {
          best = var->span.begin;
          found = printer::print_struct_info(s);
        }
    return found;
  }
};

std::string module_text(const std::string& body) { return "@I.ir_module\nclass Module:\n" + body; }

uint32_t line_of(const std::string& text, uint32_t offset) {
  uint32_t line = 0;
  for (uint32_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

}  // namespace

// ------------------------------------------------------------------------------ goldens
// The `# sinfo:` comments of every golden case are checked by the golden runner
// (test/golden/golden_runner.cpp) against `raxc check`, the engine's own output.

// The diagnostic cases of test/cases/struct_info (every RX30xx/RX40xx code with a near miss),
// checked against inference alone, so that they hold before `raxc check` runs the whole engine.
TEST_CASE("infer: test/cases/struct_info expectations", "[infer]") {
  fs::path dir = fs::path(RAXC_SOURCE_DIR) / "test" / "cases" / "struct_info";
  const std::regex expect_re(
      R"(#\s*expect-(error|warning)(?:@([+-][0-9]+))?\s+(RX[0-9]{4})(?:\s*:\s*(.*?))?\s*$)");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".rx") continue;
    ++files;
    std::string text = read_text(entry.path());
    INFO(entry.path().filename().string());
    Inferred r(text);
    INFO(r.messages());
    CHECK_FALSE(r.file.has_errors());
    if (r.file.has_errors()) continue;
    struct Expected {
      uint32_t line;
      std::string code, pattern;
      bool matched = false;
    };
    std::vector<Expected> expected;
    std::istringstream in(text);
    std::string line;
    for (uint32_t n = 0; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, expect_re)) continue;
      int offset = m[2].matched ? std::stoi(m[2].str()) : 0;
      expected.push_back({uint32_t(int(n) + offset), m[3].str(), m[4].str()});
    }
    for (const Diagnostic& d : r.sink.diagnostics()) {
      uint32_t at = line_of(text, d.span.begin);
      bool found = false;
      for (Expected& e : expected) {
        if (e.matched || e.line != at || e.code != code(d.id)) continue;
        if (!e.pattern.empty() && !std::regex_search(d.message, std::regex(e.pattern))) continue;
        e.matched = found = true;
        break;
      }
      INFO("line " << at + 1 << ": " << code(d.id) << " " << d.message);
      CHECK(found);
    }
    for (const Expected& e : expected) {
      INFO("expected on line " << e.line + 1 << ": " << e.code << " " << e.pattern);
      // Only inference's own codes: well-formedness (RX2xxx) runs in the engine.
      if (e.code[2] == '3' || e.code[2] == '4') CHECK(e.matched);
    }
  }
  CHECK(files >= 20);
}

// ------------------------------------------------------------------------------ rules

TEST_CASE("infer: a call substitutes the callee's shape variables", "[infer]") {
  Inferred r(module_text(R"(
    @R.function
    def callee(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("m", "n * 2"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        y: R.Tensor((m, n * 2), dtype="float32") = R.call_pure_packed("f", x, sinfo_args=R.Tensor((m, n * 2), dtype="float32"))
        return y

    @R.function
    def main(a: R.Tensor((3, "k"), dtype="float32")) -> R.Tensor(("k", 6), dtype="float32"):
        k = T.int64()
        cls = Module
        b = cls.callee(a)
        return b
)"));
  INFO(r.messages());
  REQUIRE_FALSE(r.file.has_errors());
  CHECK_FALSE(r.sink.has_errors());
  CHECK(r.sinfo_of("b") == "R.Tensor((k, 6), dtype=\"float32\")");
}

TEST_CASE("infer: argument compatibility errors and warnings", "[infer]") {
  std::string callee = R"(
    @R.function
    def callee(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        return x
)";
  SECTION("incompatible dimension") {
    Inferred r(module_text(callee + R"(
    @R.function
    def main(a: R.Tensor((2, 4), dtype="float32"), b: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        c = cls.callee(a, b)
        return c
)"));
    INFO(r.messages());
    CHECK(r.codes() == std::vector<std::string>{"RX3001"});
    REQUIRE(r.sink.diagnostics().size() == 1);
    const Diagnostic& d = r.sink.diagnostics()[0];
    CHECK(d.message.find("dimension 0: '3' vs '2'") != std::string::npos);
    CHECK(d.related.size() == 1);
  }
  SECTION("possibly compatible dimension") {
    Inferred r(module_text(callee + R"(
    @R.function
    def main(a: R.Tensor(("p", 4), dtype="float32"), b: R.Tensor(("q", 4), dtype="float32")) -> R.Tensor(("p", 4), dtype="float32"):
        cls = Module
        c = cls.callee(a, b)
        return c
)"));
    INFO(r.messages());
    CHECK(r.codes() == std::vector<std::string>{"RX4001"});
    REQUIRE(r.sink.diagnostics().size() == 1);
    const Diagnostic& d = r.sink.diagnostics()[0];
    CHECK(d.message.find("'q' vs 'p'") != std::string::npos);
    CHECK(d.message.find("R.match_cast") != std::string::npos);
    CHECK(d.message.find("R.Tensor((q, 4), dtype=\"float32\")") != std::string::npos);
    CHECK(d.severity == Severity::Warning);
  }
  SECTION("wrong arity") {
    Inferred r(module_text(callee + R"(
    @R.function
    def main(a: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        c = cls.callee(a)
        return c
)"));
    CHECK(r.codes() == std::vector<std::string>{"RX3002"});
  }
}

TEST_CASE("infer: annotations override calls and are checked elsewhere", "[infer]") {
  SECTION("incompatible annotation on an alias") {
    Inferred r(R"(
@R.function
def test(x: R.Tensor):
    z: R.Shape = x
    return z
)");
    INFO(r.messages());
    CHECK(r.codes() == std::vector<std::string>{"RX3000"});
  }
  std::string callee = R"(
    @R.function
    def g(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        return x
)";
  SECTION("more specific than inferred: warning, and the call takes the annotation") {
    Inferred r(module_text(callee + R"(
    @R.function
    def f(x: R.Tensor(("m",), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.g(x)
        return y
)"));
    INFO(r.messages());
    CHECK(r.codes() == std::vector<std::string>{"RX4000"});
    CHECK(r.sinfo_of("y") == "R.Tensor((4,), dtype=\"float32\")");
    REQUIRE(r.sink.diagnostics().size() == 1);
    const Diagnostic& d = r.sink.diagnostics()[0];
    CHECK(d.message.find("dimension 0: 'm' vs '4'") != std::string::npos);
    CHECK(d.related.size() == 1);
  }
  SECTION("less specific annotation on a call coarsens it silently") {
    Inferred r(module_text(callee + R"(
    @R.function
    def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        y: R.Tensor(dtype="float32", ndim=1) = cls.g(x)
        return y
)"));
    INFO(r.messages());
    CHECK(r.codes().empty());
    CHECK(r.sinfo_of("y") == "R.Tensor(dtype=\"float32\", ndim=1)");
  }
  SECTION("an alias keeps its value's StructInfo") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
    y: R.Tensor(dtype="float32", ndim=1) = x
    return y
)");
    INFO(r.messages());
    CHECK(r.codes().empty());
    CHECK(r.sinfo_of("y") == "R.Tensor((4,), dtype=\"float32\")");
  }
}

TEST_CASE("infer: purity", "[infer]") {
  SECTION("packed call in a pure function") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
    y = R.call_packed("g", x, sinfo_args=R.Object)
    return y
)");
    CHECK(r.codes() == std::vector<std::string>{"RX3006"});
  }
  SECTION("packed call in an impure function") {
    Inferred r(R"(
@R.function(pure=False)
def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
    y = R.call_packed("g", x, sinfo_args=R.Object)
    return y
)");
    CHECK(r.codes().empty());
  }
  SECTION("relax.force_pure") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
    R.func_attr({"relax.force_pure": True})
    y = R.call_packed("g", x, sinfo_args=R.Object)
    return y
)");
    CHECK(r.codes().empty());
  }
  SECTION("packed call in a dataflow block of an impure function") {
    Inferred r(R"(
@R.function(pure=False)
def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
    with R.dataflow():
        y = R.call_packed("g", x, sinfo_args=R.Object)
        R.output(y)
    return y
)");
    CHECK(r.codes() == std::vector<std::string>{"RX3005"});
  }
  SECTION("a pure function calling an impure global") {
    Inferred r(module_text(R"(
    @R.function(pure=False)
    def g(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = cls.g(x)
        return y
)"));
    CHECK(r.codes() == std::vector<std::string>{"RX3006"});
  }
}

TEST_CASE("infer: match_cast, tuples, if, return", "[infer]") {
  SECTION("a cast that can never succeed") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Shape(ndim=1):
    y = R.match_cast(x, R.Shape(ndim=1))
    return y
)");
    CHECK(r.codes() == std::vector<std::string>{"RX4003"});
  }
  SECTION("a cast that binds a variable") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n,), dtype="float32"))
    return y
)");
    INFO(r.messages());
    CHECK(r.codes().empty());
    CHECK(r.sinfo_of("y") == "R.Tensor((n,), dtype=\"float32\")");
    // `n` leaves scope with the body: the function's result is erased.
    REQUIRE(r.functions.size() == 1);
  }
  SECTION("tuple index out of range") {
    Inferred r(module_text(R"(
    @R.function
    def g(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32")):
        return (x,)

    @R.function
    def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
        cls = Module
        t = cls.g(x)
        y = t[1]
        return y
)"));
    CHECK(r.codes() == std::vector<std::string>{"RX3007"});
  }
  SECTION("indexing a tensor") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Object:
    y = x[0]
    return y
)");
    CHECK(r.codes() == std::vector<std::string>{"RX3008"});
  }
  SECTION("an int condition") {
    Inferred r(R"(
@R.function
def f(c: R.Prim("int64"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    if c:
        y = x
    else:
        y = x
    return y
)");
    CHECK(r.codes() == std::vector<std::string>{"RX3009"});
  }
  SECTION("return incompatible with the annotation") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((5,), dtype="float32"):
    return x
)");
    CHECK(r.codes() == std::vector<std::string>{"RX3004"});
  }
  SECTION("return only possibly compatible with the annotation") {
    Inferred r(R"(
@R.function
def f(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor((5,), dtype="float32"):
    return x
)");
    CHECK(r.codes() == std::vector<std::string>{"RX4002"});
  }
}

// ------------------------------------------------------------------------------ corpus

namespace {

struct CorpusResult {
  std::string file;
  std::vector<std::string> errors, warnings;
};

std::vector<CorpusResult> run_corpus(const std::string& expect) {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "tvm-v0.25.0";
  nlohmann::json manifest = nlohmann::json::parse(read_text(root / "manifest.json"));
  std::vector<CorpusResult> results;
  for (const auto& p : manifest["programs"]) {
    if (p["expect"] != expect) continue;
    std::string file = p["file"];
    Inferred r(read_text(root / file));
    if (r.file.has_errors()) continue;  // rejected by the frontend already
    CorpusResult cr{file, {}, {}};
    for (const Diagnostic& d : r.sink.diagnostics()) {
      std::string line = std::string(code(d.id)) + " " + d.message;
      (d.severity == Severity::Error ? cr.errors : cr.warnings).push_back(line);
    }
    results.push_back(std::move(cr));
  }
  return results;
}

}  // namespace

// Valid programs that the seed spec rejects (test/conformance/spec_deviations.json): the file
// name and the one error code raxc must report.
std::map<std::string, std::string> spec_deviations() {
  fs::path path = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "spec_deviations.json";
  const nlohmann::json deviations = nlohmann::json::parse(read_text(path));
  std::map<std::string, std::string> codes;
  for (auto it = deviations.begin(); it != deviations.end(); ++it)
    codes["visible/" + it.key()] = it.value().at("code").get<std::string>();
  return codes;
}

TEST_CASE("infer: every valid corpus program infers without errors", "[infer][corpus]") {
  std::vector<CorpusResult> results = run_corpus("valid");
  std::map<std::string, std::string> deviations = spec_deviations();
  CHECK(results.size() >= 200);
  for (const CorpusResult& r : results) {
    INFO(r.file);
    if (auto it = deviations.find(r.file); it != deviations.end()) {
      REQUIRE(r.errors.size() == 1);
      CHECK(r.errors[0].substr(0, it->second.size()) == it->second);
      continue;
    }
    for (const std::string& e : r.errors) CHECK(e == "");
  }
}

TEST_CASE("infer: StructInfo errors among the invalid corpus programs", "[infer][corpus]") {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "tvm-v0.25.0";
  Inferred r(read_text(root / "visible/test_tvmscript_parser__test_annotate_override.test__0.rx"));
  CHECK(r.codes() == std::vector<std::string>{"RX3000"});
}

// Lists the warnings inference gives on the valid corpus (run explicitly).
TEST_CASE("infer: corpus warning report", "[.infer-report]") {
  std::map<std::string, int> by_code;
  for (const CorpusResult& r : run_corpus("valid"))
    for (const std::string& w : r.warnings) {
      ++by_code[w.substr(0, 6)];
      std::printf("%s: %s\n", r.file.c_str(), w.c_str());
    }
  for (const auto& [c, n] : by_code) std::printf("%s x%d\n", c.c_str(), n);
}

// The language server infers what it can of a file with errors: partially lowered modules must
// never crash inference.
TEST_CASE("infer: partially lowered files do not crash inference", "[infer]") {
  size_t files = 0;
  for (const char* sub : {"test/cases", "test/conformance/tvm-v0.25.0/visible"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(RAXC_SOURCE_DIR) / sub)) {
      if (entry.path().extension() != ".rx") continue;
      Inferred r(read_text(entry.path()), true);
      ++files;
    }
  }
  CHECK(files > 300);
}

TEST_CASE("infer: signatures of globals (rules 13, 15, 16)", "[infer]") {
  Inferred r(module_text(R"(
    ext = R.ExternFunc("ext_symbol")

    @T.prim_func
    def kernel(a: T.Buffer((T.int64(4), T.int64(8)), "float16"), n: T.int64):
        T.evaluate(0)

    @R.function(pure=False)
    def noret(x: R.Tensor(("n",), dtype="float32"), o: R.Object):
        return x

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float16")) -> R.Tensor((4, 8), dtype="float16"):
        return x
)"));
  INFO(r.messages());
  REQUIRE_FALSE(r.file.has_errors());
  auto sig = [&](const char* name) {
    const ir::GlobalDef* def = r.file.module->find(name);
    REQUIRE(def != nullptr);
    return printer::print_struct_info(analysis::signature_of(*def, *r.analyzer));
  };
  CHECK(sig("kernel") ==
        "R.Callable((R.Tensor((4, 8), dtype=\"float16\"), R.Prim(\"int64\")), R.Tuple, False)");
  CHECK(sig("ext") == "R.Callable");
  // A missing return annotation declares R.Object to callers.
  CHECK(sig("noret").find("R.Object, False)") != std::string::npos);
  CHECK(sig("main") ==
        "R.Callable((R.Tensor((4, 8), dtype=\"float16\"),), R.Tensor((4, 8), dtype=\"float16\"), "
        "True)");
  // The inferred signature of a function without return annotation has the body's result.
  REQUIRE(r.functions.size() == 2);
  CHECK(printer::print_struct_info(r.functions[0].signature) ==
        "R.Callable((R.Tensor((n,), dtype=\"float32\"), R.Object), R.Tensor((n,), "
        "dtype=\"float32\"), False)");
}

namespace {

void collect_exprs(const ir::Expr* e, std::vector<const ir::Expr*>& out) {
  if (e == nullptr) return;
  out.push_back(e);
  switch (e->kind) {
    case ir::ExprKind::Tuple:
      for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) collect_exprs(f, out);
      break;
    case ir::ExprKind::SeqExpr: {
      const auto* s = ir::cast<ir::SeqExpr>(e);
      for (const ir::BindingBlock* b : s->blocks)
        for (const ir::Binding* x : b->bindings) collect_exprs(x->value, out);
      collect_exprs(s->body, out);
      break;
    }
    case ir::ExprKind::Function: collect_exprs(ir::cast<ir::Function>(e)->body, out); break;
    case ir::ExprKind::If: {
      const auto* i = ir::cast<ir::If>(e);
      collect_exprs(i->cond, out);
      collect_exprs(i->true_branch, out);
      collect_exprs(i->false_branch, out);
      break;
    }
    case ir::ExprKind::Call: {
      const auto* c = ir::cast<ir::Call>(e);
      collect_exprs(c->op, out);
      for (const ir::Expr* a : c->args) collect_exprs(a, out);
      break;
    }
    case ir::ExprKind::TupleGetItem:
      collect_exprs(ir::cast<ir::TupleGetItem>(e)->tuple, out);
      break;
    default: break;
  }
}

}  // namespace

TEST_CASE("infer: every expression of the corpus gets a StructInfo", "[infer][corpus]") {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "tvm-v0.25.0" / "visible";
  size_t exprs = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    Inferred r(read_text(entry.path()));
    if (r.file.has_errors()) continue;
    size_t i = 0;
    for (const ir::GlobalDef& g : r.file.module->globals) {
      const ir::Function* f = g.function();
      if (f == nullptr) continue;
      std::vector<const ir::Expr*> all;
      collect_exprs(r.normalized[i], all);
      const auto& fi = r.functions[i++];
      for (const ir::Expr* e : all) {
        ++exprs;
        if (ir::isa<ir::Op>(e)) continue;  // an operator reference has no value of its own
        INFO(entry.path().filename().string() << " " << g.gvar->name);
        CHECK(fi.expr_sinfo.count(e) == 1);
      }
    }
  }
  CHECK(exprs > 1000);
}
