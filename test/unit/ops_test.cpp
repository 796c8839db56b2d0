// The operator registry (analysis/ops): inference rules on parsed snippets, symbolic examples
// of operators.md §5, diagnostics, and the TVM corpus (every valid program's operator calls infer
// without errors or warnings and agree with the annotations).
//
// The tests use their own small walker (annotation-driven environment) instead of
// analysis/infer so they exercise the registry alone.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/ops/registry.h"
#include "analysis/struct_info/relations.h"
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"

using namespace raxc;
namespace fs = std::filesystem;
namespace ops = raxc::analysis::ops;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A parsed module whose op-call bindings are inferred with the registry.
struct Walked {
  frontend::ParsedFile file;
  ir::Arena arena;
  std::unique_ptr<analysis::arith::Analyzer> analyzer;
  DiagnosticSink sink;
  std::unordered_map<const ir::Var*, const ir::StructInfo*> env;
  std::vector<std::pair<std::string, std::string>> bound;  // var name -> inferred sinfo text
  // Op-call bindings by the offset of the bound variable -> inferred sinfo text (for the
  // `# sinfo:` comments of the goldens).
  std::vector<std::pair<uint32_t, std::string>> bound_at;
  std::vector<std::string> mismatches;  // annotation vs inferred (incompatible / possibly)

  explicit Walked(std::string_view text) : file(frontend::parse_file(text)) {
    analyzer = std::make_unique<analysis::arith::Analyzer>(arena);
    if (file.has_errors()) return;
    for (const ir::GlobalDef& g : file.module->globals)
      if (const ir::Function* f = g.function()) walk_function(*f);
  }

  const ir::StructInfo* object() { return arena.make<ir::ObjectSInfo>(); }

  const ir::StructInfo* infer(const ir::Expr* e) {
    switch (e->kind) {
      case ir::ExprKind::Var:
      case ir::ExprKind::DataflowVar: {
        auto* v = ir::cast<ir::Var>(e);
        auto it = env.find(v);
        if (it != env.end()) return it->second;
        return v->annotation ? v->annotation : object();
      }
      case ir::ExprKind::Constant: {
        auto* c = ir::cast<ir::Constant>(e);
        std::vector<const ir::PrimExpr*> dims;
        for (int64_t d : c->shape) dims.push_back(analyzer->make_int(d));
        int n = int(dims.size());
        return arena.make<ir::TensorSInfo>(arena.make<ir::ShapeExpr>(dims), c->dtype, nullptr, n);
      }
      case ir::ExprKind::ShapeExpr: {
        auto* s = ir::cast<ir::ShapeExpr>(e);
        return arena.make<ir::ShapeSInfo>(s->values, int(s->values.size()));
      }
      case ir::ExprKind::PrimValue: {
        auto* p = ir::cast<ir::PrimValue>(e);
        return arena.make<ir::PrimSInfo>(p->value->dtype, p->value);
      }
      case ir::ExprKind::Tuple: {
        std::vector<const ir::StructInfo*> fields;
        for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) fields.push_back(infer(f));
        return arena.make<ir::TupleSInfo>(std::move(fields));
      }
      case ir::ExprKind::TupleGetItem: {
        auto* t = ir::cast<ir::TupleGetItem>(e);
        auto* ts = ir::dyn_cast<ir::TupleSInfo>(infer(t->tuple));
        if (ts && t->index >= 0 && size_t(t->index) < ts->fields.size())
          return ts->fields[size_t(t->index)];
        return object();
      }
      case ir::ExprKind::Call: {
        auto* call = ir::cast<ir::Call>(e);
        std::vector<const ir::StructInfo*> args;
        for (const ir::Expr* a : call->args) args.push_back(infer(a));
        if (auto* op = ir::dyn_cast<ir::Op>(call->op)) {
          ops::InferContext ctx{*call, std::move(args), *analyzer, sink};
          ctx.module = file.module.get();
          return ops::infer_call(*op, ctx);
        }
        if (call->sinfo_args.size() == 1) return call->sinfo_args[0];
        return object();
      }
      case ir::ExprKind::SeqExpr: return walk_seq(*ir::cast<ir::SeqExpr>(e));
      case ir::ExprKind::If: {
        auto* i = ir::cast<ir::If>(e);
        walk_seq(*i->true_branch);
        walk_seq(*i->false_branch);
        return object();
      }
      case ir::ExprKind::Function: walk_function(*ir::cast<ir::Function>(e)); return object();
      default: return object();
    }
  }

  const ir::StructInfo* walk_seq(const ir::SeqExpr& seq) {
    for (const ir::BindingBlock* block : seq.blocks)
      for (const ir::Binding* b : block->bindings) walk_binding(*b);
    return infer(seq.body);
  }

  void walk_binding(const ir::Binding& b) {
    const ir::StructInfo* s = infer(b.value);
    bool is_op_call = false;
    if (auto* c = ir::dyn_cast<ir::Call>(b.value)) is_op_call = ir::isa<ir::Op>(c->op);
    if (b.is_match_cast()) {
      env[b.var] = b.match_cast;
      return;
    }
    if (is_op_call) {
      bound.emplace_back(b.var->name, printer::print_struct_info(s));
      bound_at.emplace_back(b.var->span.begin, bound.back().second);
    }
    if (b.var->annotation && is_op_call) {
      analysis::CompatResult r = analysis::check_compatibility(*analyzer, b.var->annotation, s);
      if (r.result == analysis::Compat::Incompatible)
        mismatches.push_back(b.var->name + ": annotated " +
                             printer::print_struct_info(b.var->annotation) + ", inferred " +
                             printer::print_struct_info(s) + " (" + r.detail + ")");
    }
    env[b.var] = b.var->annotation ? b.var->annotation : s;
  }

  void walk_function(const ir::Function& f) {
    for (const ir::Var* p : f.params)
      if (p->annotation) env[p] = p->annotation;
    walk_seq(*f.body);
  }

  std::string sinfo_of(const std::string& name) const {
    for (auto it = bound.rbegin(); it != bound.rend(); ++it)
      if (it->first == name) return it->second;
    return "<unbound>";
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink.diagnostics()) out.push_back(code(d.id));
    return out;
  }
  std::string messages() const {
    std::string out;
    for (const Diagnostic& d : file.diagnostics)
      out += std::string(code(d.id)) + " " + d.message + "\n";
    for (const Diagnostic& d : sink.diagnostics())
      out += std::string(code(d.id)) + " " + d.message + "\n";
    for (const std::string& m : mismatches) out += "mismatch " + m + "\n";
    return out;
  }
};

// A one-function module: `params` is the parameter list, `body` the statements (indented 4).
std::string fn(const std::string& params, const std::string& body) {
  std::string out = "@R.function\ndef main(" + params + "):\n";
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) out += "    " + line + "\n";
  return out;
}

// Infers `expr` bound to `y` and returns its printed StructInfo; `codes` receives the codes.
std::string infer_expr(const std::string& params, const std::string& expr,
                       std::vector<std::string>* codes = nullptr, std::string* messages = nullptr) {
  Walked w(fn(params, "y = " + expr + "\nreturn y"));
  if (codes) *codes = w.codes();
  if (messages) *messages = w.messages();
  if (w.file.has_errors()) return "<parse error> " + w.messages();
  return w.sinfo_of("y");
}

using Codes = std::vector<std::string>;

}  // namespace

// --------------------------------------------------------------------------- registry

TEST_CASE("ops: registry lookup, docs and purity", "[ops]") {
  CHECK(ops::find_op("relax.add") != nullptr);
  CHECK(ops::find_op("relax.nn.conv2d") != nullptr);
  CHECK(ops::find_op("relax.no_such_op") == nullptr);
  CHECK(ops::all_ops().size() > 150);
  for (const ops::OpDef& d : ops::all_ops()) {
    INFO(d.name);
    CHECK(!d.doc.empty());
    CHECK(d.infer != nullptr);
    CHECK(d.text.substr(0, 2) == "R.");
    CHECK(ops::find_op(d.name) == &d);  // no duplicate names
  }
  CHECK(ops::find_op("relax.print")->purity == ops::Purity::Impure);
  CHECK(ops::find_op("relax.assert_op")->purity == ops::Purity::Impure);
  CHECK(ops::find_op("relax.invoke_closure")->purity == ops::Purity::Impure);
  CHECK(ops::find_op("relax.call_builtin_with_ctx")->purity == ops::Purity::Impure);
  CHECK(ops::find_op("relax.call_pure_packed")->purity == ops::Purity::Pure);
  CHECK(ops::find_op("relax.call_tir_inplace")->purity == ops::Purity::Pure);
  CHECK(ops::find_op("relax.nn.dropout")->purity == ops::Purity::Pure);
}

TEST_CASE("ops: unknown operators warn and give Object", "[ops]") {
  Codes codes;
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.frobnicate(x)", &codes) == "R.Object");
  CHECK(codes == Codes{"RX4100"});
}

TEST_CASE("ops: arity and keyword errors", "[ops]") {
  Codes codes;
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.add(x)", &codes);
  CHECK(codes == Codes{"RX3100"});
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.add(x, x, x)", &codes);
  CHECK(codes == Codes{"RX3100"});
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axes=[1])", &codes);
  CHECK(codes == Codes{"RX3101"});
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, [1], axis=[1])", &codes);
  CHECK(codes == Codes{"RX3102"});
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axis=\"one\")", &codes);
  CHECK(codes == Codes{"RX3103"});
  infer_expr("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axis=1, keepdims=True)", &codes);
  CHECK(codes.empty());
}

// ------------------------------------------------------------------------- binary ops

TEST_CASE("ops: binary broadcasting (operators.md 2.5)", "[ops]") {
  const std::string p = "x: R.Tensor((\"n\", 1, 3), \"float32\"), y: R.Tensor((4, 1), \"float32\")";
  Codes codes;
  CHECK(infer_expr(p, "R.add(x, y)", &codes) == "R.Tensor((n, 4, 3), dtype=\"float32\")");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((3, 3), \"float32\")",
                   "R.add(x, y)", &codes) == "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK(codes == Codes{"RX3109"});
  // n vs m: undecided -> rank-only and a warning suggesting match_cast.
  std::string messages;
  CHECK(infer_expr("x: R.Tensor((\"n\",), \"float32\"), y: R.Tensor((\"m\",), \"float32\")",
                   "R.multiply(x, y)", &codes, &messages) == "R.Tensor(dtype=\"float32\", ndim=1)");
  CHECK(codes == Codes{"RX4101"});
  CHECK(messages.find("match_cast") != std::string::npos);
  // n + 1 vs 1 + n: provably equal, lhs spelling.
  CHECK(infer_expr("x: R.Tensor((\"n\",), \"float32\"), y: R.Tensor((\"n\",), \"float32\")",
                   "R.add(x, R.reshape(y, R.shape([1 + n])))",
                   &codes) == "R.Tensor(dtype=\"float32\", ndim=1)");
  CHECK(codes == Codes{"RX3115", "RX4101"});
  // The same shape variable propagates.
  CHECK(infer_expr("s: R.Shape(ndim=2), x: R.Tensor(s, \"float32\")", "R.add(x, x)", &codes) ==
        "R.Tensor(s, dtype=\"float32\")");
  CHECK(codes.empty());
}

TEST_CASE("ops: binary dtypes and Prim operands (2.6, 2.7)", "[ops]") {
  Codes codes;
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"int32\")",
                   "R.add(x, y)", &codes) == "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(codes == Codes{"RX3108"});
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"int32\")",
                   "R.less(x, y)", &codes) == "R.Tensor((2, 3), dtype=\"bool\")");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Prim(\"float32\")", "R.add(x, y)",
                   &codes) == "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Prim(\"float32\"), y: R.Prim(\"float32\")", "R.add(x, y)", &codes) ==
        "R.Prim(\"float32\")");
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"bool\")", "R.add(x, y)",
                   &codes) == "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(codes == Codes{"RX4103"});
  CHECK(infer_expr("x: R.Tensor((2, 3), \"float32\"), y: R.Object", "R.add(x, y)", &codes)
            .find("R.Tensor") != std::string::npos);
  CHECK(codes == Codes{"RX3104"});
}

// -------------------------------------------------------------------- manipulation

TEST_CASE("ops: reshape with -1 and symbolic dims", "[ops]") {
  Codes codes;
  CHECK(infer_expr("x: R.Tensor((2, 3, 4), \"float32\")", "R.reshape(x, (8, -1))", &codes) ==
        "R.Tensor((8, 3), dtype=\"float32\")");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((2, 3, 4), \"float32\")", "R.reshape(x, (5, 5))", &codes) ==
        "R.Tensor((5, 5), dtype=\"float32\")");
  CHECK(codes == Codes{"RX3115"});
  CHECK(infer_expr("x: R.Tensor((2, 3, 4), \"float32\")", "R.reshape(x, (-1, -1))", &codes)
            .find("ndim=2") != std::string::npos);
  CHECK(codes == Codes{"RX3116"});
  CHECK(infer_expr("x: R.Tensor((\"a\", \"b\"), \"float32\")", "R.reshape(x, (b, -1))", &codes) ==
        "R.Tensor((b, a), dtype=\"float32\")");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((\"a\", \"b\"), \"float32\")", "R.reshape(x, R.shape([a * b]))",
                   &codes) == "R.Tensor((a * b,), dtype=\"float32\")");
  CHECK(codes.empty());
}

TEST_CASE("ops: permute_dims, expand_dims, squeeze, flatten", "[ops]") {
  Codes codes;
  const std::string p = "x: R.Tensor((1, \"n\", 3, 1), \"float32\")";
  CHECK(infer_expr(p, "R.permute_dims(x)", &codes) == "R.Tensor((1, 3, n, 1), dtype=\"float32\")");
  CHECK(infer_expr(p, "R.permute_dims(x, [1, 0, 3, 2])", &codes) ==
        "R.Tensor((n, 1, 1, 3), dtype=\"float32\")");
  CHECK(codes.empty());
  infer_expr(p, "R.permute_dims(x, axes=[0, 0, 1, 2])", &codes);
  CHECK(codes == Codes{"RX3111"});
  infer_expr(p, "R.permute_dims(x, axes=[0, 1, 2, 4])", &codes);
  CHECK(codes == Codes{"RX3110"});
  CHECK(infer_expr(p, "R.expand_dims(x, axis=[0, -1])", &codes) ==
        "R.Tensor((1, 1, n, 3, 1, 1), dtype=\"float32\")");
  CHECK(infer_expr(p, "R.squeeze(x)", &codes) == "R.Tensor(dtype=\"float32\")");
  CHECK(infer_expr(p, "R.squeeze(x, axis=[0, 3])", &codes) ==
        "R.Tensor((n, 3), dtype=\"float32\")");
  CHECK(infer_expr(p, "R.flatten(x)", &codes) == "R.Tensor((n * 3,), dtype=\"float32\")");
}

TEST_CASE("ops: concat and split", "[ops]") {
  Codes codes;
  const std::string p =
      "x: R.Tensor((2, \"n\"), \"float32\"), y: R.Tensor((3, \"n\"), \"float32\"), z: "
      "R.Tensor((3, 4), \"float32\")";
  CHECK(infer_expr(p, "R.concat((x, y))", &codes) == "R.Tensor((5, n), dtype=\"float32\")");
  CHECK(codes.empty());
  infer_expr(p, "R.concat((x, y), axis=1)", &codes);
  CHECK(codes == Codes{"RX3114"});
  CHECK(infer_expr(p, "R.concat((y, z))", &codes) == "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK(codes == Codes{"RX4102"});
  CHECK(infer_expr("x: R.Tensor((10, \"b\"), \"float32\")", "R.split(x, 3, axis=0)", &codes) ==
        "R.Tuple(R.Tensor((4, b), dtype=\"float32\"), R.Tensor((4, b), dtype=\"float32\"), "
        "R.Tensor((2, b), dtype=\"float32\"))");
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((10, 4), \"float32\")", "R.split(x, [2, 5], axis=0)", &codes) ==
        "R.Tuple(R.Tensor((2, 4), dtype=\"float32\"), R.Tensor((3, 4), dtype=\"float32\"), "
        "R.Tensor((5, 4), dtype=\"float32\"))");
  CHECK(infer_expr("x: R.Tensor((5, 4), \"float32\")", "R.split(x, 4)", &codes).find("R.Tuple") ==
        0);
  CHECK(codes == Codes{"RX4105"});
  CHECK(infer_expr("x: R.Tensor((5, 4), \"float32\")", "R.split(x, 1)", &codes) ==
        "R.Tensor((5, 4), dtype=\"float32\")");
}

// ------------------------------------------------------------------- linalg, reduce

TEST_CASE("ops: matmul promotion and batch broadcasting (3.8)", "[ops]") {
  Codes codes;
  CHECK(infer_expr("a: R.Tensor((\"m\", \"k\"), \"float32\"), b: R.Tensor((\"k\", \"n\"), "
                   "\"float32\")",
                   "R.matmul(a, b)", &codes) == "R.Tensor((m, n), dtype=\"float32\")");
  CHECK(codes.empty());
  CHECK(infer_expr("a: R.Tensor((4,), \"float32\"), b: R.Tensor((4,), \"float32\")",
                   "R.matmul(a, b)", &codes) == "R.Tensor((), dtype=\"float32\")");
  CHECK(infer_expr("a: R.Tensor((\"b\", 1, \"m\", \"k\"), \"float32\"), c: R.Tensor((\"a\", 1, "
                   "\"c\", \"k\", \"n\"), \"float32\")",
                   "R.matmul(a, c)", &codes) == "R.Tensor((a, b, c, m, n), dtype=\"float32\")");
  CHECK(codes.empty());
  infer_expr("a: R.Tensor((2, 3), \"float32\"), b: R.Tensor((4, 5), \"float32\")", "R.matmul(a, b)",
             &codes);
  CHECK(codes == Codes{"RX3114"});
  infer_expr("a: R.Tensor((2, \"k\"), \"float32\"), b: R.Tensor((\"j\", 5), \"float32\")",
             "R.matmul(a, b)", &codes);
  CHECK(codes == Codes{"RX4102"});
  CHECK(infer_expr("a: R.Tensor((2, 3), \"float16\"), b: R.Tensor((3, 5), \"float16\")",
                   "R.matmul(a, b, out_dtype=\"float32\")",
                   &codes) == "R.Tensor((2, 5), dtype=\"float32\")");
}

TEST_CASE("ops: reductions with axis and keepdims (3.9)", "[ops]") {
  Codes codes;
  const std::string p = "x: R.Tensor((2, \"n\", 4), \"float32\")";
  CHECK(infer_expr(p, "R.sum(x)", &codes) == "R.Tensor((), dtype=\"float32\")");
  CHECK(infer_expr(p, "R.sum(x, axis=[1, -1])", &codes) == "R.Tensor((2,), dtype=\"float32\")");
  CHECK(infer_expr(p, "R.mean(x, axis=1, keepdims=True)", &codes) ==
        "R.Tensor((2, 1, 4), dtype=\"float32\")");
  CHECK(codes.empty());
  infer_expr(p, "R.max(x, axis=[3])", &codes);
  CHECK(codes == Codes{"RX3110"});
  infer_expr(p, "R.max(x, axis=[1, -2])", &codes);
  CHECK(codes == Codes{"RX3111"});
  CHECK(infer_expr(p, "R.argmax(x, axis=1)", &codes) == "R.Tensor((2, 4), dtype=\"int64\")");
}

// ---------------------------------------------------------------------- nn, calls

TEST_CASE("ops: conv2d and pooling output sizes", "[ops]") {
  Codes codes;
  CHECK(infer_expr("x: R.Tensor((1, 3, \"h\", \"w\"), \"float32\"), k: R.Tensor((8, 3, 3, 3), "
                   "\"float32\")",
                   "R.nn.conv2d(x, k, strides=[2, 2], padding=[1, 1])", &codes)
            .find("R.Tensor((1, 8, ") == 0);
  CHECK(codes.empty());
  CHECK(infer_expr("x: R.Tensor((2, 3, 28, 28), \"float32\"), k: R.Tensor((4, 3, 3, 3), "
                   "\"float32\")",
                   "R.nn.conv2d(x, k)", &codes) == "R.Tensor((2, 4, 26, 26), dtype=\"float32\")");
  infer_expr("x: R.Tensor((2, 3, 28, 28), \"float32\"), k: R.Tensor((4, 5, 3, 3), \"float32\")",
             "R.nn.conv2d(x, k)", &codes);
  CHECK(codes == Codes{"RX3114"});
  infer_expr("x: R.Tensor((2, 3, 28, 28), \"float32\"), k: R.Tensor((4, 3, 3, 3), \"float32\")",
             "R.nn.conv2d(x, k, data_layout=\"NCXW\")", &codes);
  CHECK(codes == Codes{"RX3120"});
  CHECK(infer_expr("x: R.Tensor((1, 1, 32, 32), \"float32\")", "R.nn.max_pool2d(x, pool_size=(3,))",
                   &codes) == "R.Tensor((1, 1, 30, 30), dtype=\"float32\")");
  CHECK(infer_expr("x: R.Tensor((1, 32, 32, 4), \"float32\")",
                   "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")",
                   &codes) == "R.Tensor((1, 16, 16, 4), dtype=\"float32\")");
}

TEST_CASE("ops: call_tir family and packed calls", "[ops]") {
  Codes codes;
  Walked w(
      "@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n"
      "    def f(a: T.Buffer((2,), \"float32\"), b: T.Buffer((2,), \"float32\")):\n"
      "        T.evaluate(0)\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2,), \"float32\")):\n"
      "        cls = Module\n"
      "        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((2,), \"float32\"))\n"
      "        z = R.call_tir_inplace(cls.f, (x, y), inplace_indices=[1], "
      "out_sinfo=R.Tensor((2,), \"float32\"))\n"
      "        u = R.call_pure_packed(\"f\", x, sinfo_args=R.Tensor((2,), \"float32\"))\n"
      "        v = R.call_dps_packed(\"g\", (x,), out_sinfo=[R.Tensor((2,), \"float32\"), "
      "R.Tensor((3,), \"int32\")])\n"
      "        return (y, z, u, v)\n");
  INFO(w.messages());
  CHECK(w.codes().empty());
  CHECK(w.sinfo_of("y") == "R.Tensor((2,), dtype=\"float32\")");
  CHECK(w.sinfo_of("z") == "R.Tensor((2,), dtype=\"float32\")");
  CHECK(w.sinfo_of("u") == "R.Tensor((2,), dtype=\"float32\")");
  CHECK(w.sinfo_of("v").find("R.Tuple(") == 0);
  Walked bad(
      "@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n"
      "    def f(a: T.Buffer((2,), \"float32\"), b: T.Buffer((2,), \"float32\")):\n"
      "        T.evaluate(0)\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2,), \"float32\")):\n"
      "        cls = Module\n"
      "        z = R.call_tir_inplace(cls.f, (x,), inplace_indices=[0], "
      "out_sinfo=R.Tensor((3,), \"float32\"))\n"
      "        return z\n");
  INFO(bad.messages());
  CHECK(bad.codes() == Codes{"RX3123", "RX3114"});
}

// ------------------------------------------------------------------------------ corpus

namespace {
struct CorpusOutcome {
  std::string file;
  std::string messages;
  bool clean;
};

std::vector<CorpusOutcome> run_corpus(const std::string& expect) {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "tvm-v0.25.0";
  nlohmann::json manifest = nlohmann::json::parse(read_text(root / "manifest.json"));
  std::vector<CorpusOutcome> out;
  for (const auto& p : manifest["programs"]) {
    if (p["expect"] != expect) continue;
    std::string file = p["file"];
    Walked w(read_text(root / file));
    if (w.file.has_errors()) continue;
    bool clean = w.sink.diagnostics().empty() && w.mismatches.empty();
    out.push_back({file, w.messages(), clean});
  }
  return out;
}
}  // namespace

TEST_CASE("ops: valid corpus programs infer cleanly and match their annotations", "[ops][corpus]") {
  std::vector<CorpusOutcome> results = run_corpus("valid");
  CHECK(results.size() >= 200);
  for (const CorpusOutcome& r : results) {
    INFO(r.file << "\n" << r.messages);
    CHECK(r.clean);
  }
}

// Lists what the registry says about the invalid corpus programs (run explicitly).
TEST_CASE("ops: invalid corpus programs (report)", "[.ops-report]") {
  for (const CorpusOutcome& r : run_corpus("invalid"))
    if (!r.clean) WARN(r.file << "\n" << r.messages);
}

// ------------------------------------------------------------------------------ goldens

namespace {
struct Expectation {
  uint32_t line;
  std::string code;
  std::string regex;
  bool matched = false;
};

// `# expect-error RXnnnn: re` (this line) and `# expect-warning@+1 RXnnnn: re` (next line).
std::vector<Expectation> expectations(const std::string& text) {
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string line;
  static const std::regex marker(R"(# expect-(error|warning)(@\+1)? (RX\d{4}): (.*)$)");
  for (uint32_t n = 0; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, marker)) continue;
    out.push_back({m[2].matched ? n + 1 : n, m[3].str(), m[4].str()});
  }
  return out;
}

uint32_t line_of(const std::string& text, uint32_t offset) {
  uint32_t line = 0;
  for (uint32_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

// `y = R.op(...)  # sinfo: <StructInfo>`: line number (0-based) -> the expected printed text (the
// syntax of test/cases/infer).
std::map<uint32_t, std::string> sinfo_comments(const std::string& text) {
  std::map<uint32_t, std::string> out;
  std::istringstream in(text);
  std::string line;
  const std::string marker = "# sinfo: ";
  for (uint32_t n = 0; std::getline(in, line); ++n) {
    size_t at = line.find(marker);
    if (at == std::string::npos) continue;
    std::string expected = line.substr(at + marker.size());
    while (!expected.empty() && (expected.back() == ' ' || expected.back() == '\r'))
      expected.pop_back();
    out[n] = expected;
  }
  return out;
}
}  // namespace

TEST_CASE("ops: goldens in test/cases/ops report exactly the expected diagnostics", "[ops]") {
  fs::path dir = fs::path(RAXC_SOURCE_DIR) / "test" / "cases" / "ops";
  REQUIRE(fs::is_directory(dir));
  size_t files = 0, sinfo_checked = 0;
  std::set<std::string> codes_seen;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".rx") continue;
    ++files;
    std::string text = read_text(entry.path());
    INFO(entry.path().filename().string());
    Walked w(text);
    INFO(w.messages());
    REQUIRE_FALSE(w.file.has_errors());
    std::vector<Expectation> want = expectations(text);
    for (const Diagnostic& d : w.sink.diagnostics()) {
      uint32_t line = line_of(text, d.span.begin);
      bool found = false;
      for (Expectation& e : want) {
        if (e.matched || e.line != line || e.code != code(d.id)) continue;
        if (!std::regex_search(d.message, std::regex(e.regex))) continue;
        e.matched = found = true;
        break;
      }
      INFO("line " << line + 1 << ": " << code(d.id) << " " << d.message);
      CHECK(found);
      codes_seen.insert(code(d.id));
    }
    for (const Expectation& e : want) {
      INFO("expected on line " << e.line + 1 << ": " << e.code << " " << e.regex);
      CHECK(e.matched);
    }
    // `# sinfo:` comments name the StructInfo the registry infers for that line's op call.
    for (const auto& [line, expected] : sinfo_comments(text)) {
      INFO("sinfo comment on line " << line + 1);
      std::string got = "<no operator call bound on this line>";
      for (const auto& [offset, s] : w.bound_at)
        if (line_of(text, offset) == line) got = s;
      CHECK(got == expected);
      ++sinfo_checked;
    }
  }
  CHECK(files >= 5);
  CHECK(sinfo_checked >= 20);
  // Every code of the ops ranges has a golden.
  for (const char* c :
       {"RX3100", "RX3101", "RX3102", "RX3103", "RX3104", "RX3105", "RX3106", "RX3107", "RX3108",
        "RX3109", "RX3110", "RX3111", "RX3112", "RX3113", "RX3114", "RX3115", "RX3116", "RX3117",
        "RX3118", "RX3120", "RX3122", "RX3123", "RX3124", "RX3125", "RX4100", "RX4101", "RX4102",
        "RX4103", "RX4104", "RX4105", "RX4106", "RX4107", "RX4108", "RX4109"}) {
    INFO(c);
    CHECK(codes_seen.count(c) == 1);
  }
}

// ------------------------------------------------------------ operators.md §5 examples

TEST_CASE("ops: worked symbolic examples of operators.md section 5", "[ops]") {
  struct Case {
    std::string params, expr, expected;
    Codes codes;
  };
  const std::string f32 = "\"float32\"";
  const std::vector<Case> cases = {
      // 1, 2: broadcasting
      {"x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((4,), \"float32\")",
       "R.add(x, y)",
       "R.Tensor((n, 4), dtype=\"float32\")",
       {}},
      {"p: R.Tensor((\"n\", 1, \"m\"), \"float16\"), q: R.Tensor((\"k\", 1), \"float16\")",
       "R.multiply(p, q)",
       "R.Tensor((n, k, m), dtype=\"float16\")",
       {}},
      {"x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((\"m\", 4), \"float32\")",
       "R.add(x, y)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX4101"}},
      // 3: shape variables
      {"t: R.Shape([\"n\", 4]), u: R.Tensor(t, \"float32\")",
       "R.add(u, u)",
       "R.Tensor((n, 4), dtype=\"float32\")",
       {}},
      {"s: R.Shape(ndim=2), x: R.Tensor(s, \"float32\"), t: R.Shape([\"n\", 4]), u: R.Tensor(t, "
       "\"float32\")",
       "R.add(x, u)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {}},
      // 4: matmul
      {"a: R.Tensor((\"b\", \"n\", \"k\"), \"float32\"), w: R.Tensor((\"k\", \"m\"), \"float32\")",
       "R.matmul(a, w)",
       "R.Tensor((b, n, m), dtype=\"float32\")",
       {}},
      {"a: R.Tensor((\"k\",), \"float32\"), w: R.Tensor((\"b\", \"k\", \"m\"), \"float32\")",
       "R.matmul(a, w)",
       "R.Tensor((b, m), dtype=\"float32\")",
       {}},
      // 5: reshape
      {"x: R.Tensor((\"n\", 12), \"float32\")",
       "R.reshape(x, (n, 3, -1))",
       "R.Tensor((n, 3, 4), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((\"n\", 12), \"float32\")",
       "R.reshape(x, (-1,))",
       "R.Tensor((n * 12,), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((\"n\", 12), \"float32\")",
       "R.reshape(x, (0, -1))",
       "R.Tensor((n, 12), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 6), \"float32\")",
       "R.reshape(x, (5, 7))",
       "R.Tensor((5, 7), dtype=\"float32\")",
       {"RX3115"}},
      {"x: R.Tensor(ndim=2, dtype=\"float32\")",
       "R.reshape(x, (3, -1))",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3116"}},
      // 6: concat
      {"a: R.Tensor((\"n\", 4), \"float32\"), c: R.Tensor((\"m\", 4), \"float32\")",
       "R.concat((a, c), axis=0)",
       "R.Tensor((n + m, 4), dtype=\"float32\")",
       {}},
      {"a: R.Tensor((\"n\", 4), \"float32\")",
       "R.concat((a, a), axis=0)",
       "R.Tensor((n * 2, 4), dtype=\"float32\")",
       {}},
      {"a: R.Tensor((\"n\", 4), \"float32\")",
       "R.concat((a, a), axis=2)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3110"}},
      // 7: reductions
      {"x: R.Tensor((\"b\", \"n\", 4), \"float32\")",
       "R.mean(x, axis=[-1, 0])",
       "R.Tensor((n,), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((\"b\", \"n\", 4), \"float32\")",
       "R.max(x, keepdims=True)",
       "R.Tensor((1, 1, 1), dtype=\"float32\")",
       {}},
      {"x: R.Tensor(dtype=\"float32\")", "R.sum(x)", "R.Tensor((), dtype=\"float32\")", {}},
      {"x: R.Tensor(ndim=3, dtype=\"float32\")",
       "R.sum(x, axis=[1])",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {}},
      // 8: split
      {"x: R.Tensor((\"a\", \"b\"), \"float32\")",
       "R.split(x, 1, axis=1)",
       "R.Tensor((a, b), dtype=\"float32\")",
       {}},
      // 9: conv2d with symbolic spatial size and a symbolic kernel
      {"x: R.Tensor((\"n\", 3, \"h\", \"w\"), \"float32\"), k: R.Tensor((\"ko\", \"ki\", \"kh\", "
       "\"kw\"), \"float32\")",
       "R.nn.conv2d(x, k)",
       "R.Tensor((n, ko, h + 1 - kh, w + 1 - kw), dtype=\"float32\")",
       {"RX4102"}},
      // 10: take
      {"emb: R.Tensor((\"v\", \"d\"), \"float16\"), ids: R.Tensor((\"b\", \"s\"), \"int64\")",
       "R.take(emb, ids, axis=0)",
       "R.Tensor((b, s, d), dtype=\"float16\")",
       {}},
      {"emb: R.Tensor((\"v\", \"d\"), \"float16\")",
       "R.take(emb, R.prim_value(T.int64(3)), axis=0)",
       "R.Tensor((d,), dtype=\"float16\")",
       {}},
      {"emb: R.Tensor((\"v\", \"d\"), \"float16\"), ids: R.Tensor((\"b\", \"s\"), \"float32\")",
       "R.take(emb, ids, axis=0)",
       "R.Tensor((b, s, d), dtype=\"float16\")",
       {"RX3118"}},
      // 11: strided_slice, permute_dims
      {"x: R.Tensor((\"m\", \"n\"), \"float32\")",
       "R.strided_slice(x, axes=[0], begin=[1], end=[3], assume_inbound=True)",
       "R.Tensor((2, n), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((\"m\", \"n\"), \"float32\")",
       "R.permute_dims(x)",
       "R.Tensor((n, m), dtype=\"float32\")",
       {}},
      // 12: Prim operands, data-dependent ops
      {"x: R.Tensor((\"n\", 4), \"float32\"), f: R.Prim(\"float32\")",
       "R.less(x, f)",
       "R.Tensor((n, 4), dtype=\"bool\")",
       {}},
      {"x: R.Tensor((\"n\", 4), \"float32\"), i: R.Prim(\"int64\")",
       "R.multiply(x, i)",
       "R.Tensor((n, 4), dtype=\"float32\")",
       {"RX3108"}},
      {"x: R.Tensor((\"n\", 4), \"float32\")",
       "R.unique(x, return_counts=True)",
       "R.Tuple(R.Tensor(dtype=\"float32\", ndim=1), R.Tensor(dtype=\"int64\", ndim=1))",
       {}},
      {"x: R.Tensor((\"n\", 4), \"float32\")",
       "R.nonzero(x)",
       "R.Tensor(dtype=\"int64\", ndim=2)",
       {}},
  };
  for (const Case& c : cases) {
    Codes codes;
    std::string messages;
    INFO(c.params << " | " << c.expr);
    std::string got = infer_expr(c.params, c.expr, &codes, &messages);
    INFO(messages);
    CHECK(got == c.expected);
    CHECK(codes == c.codes);
  }
  (void)f32;
}

// Lists operator calls of the valid corpus whose inferred StructInfo has no shape (run
// explicitly; useful to spot rules that give up too early).
TEST_CASE("ops: imprecise results on the valid corpus (report)", "[.ops-imprecise]") {
  fs::path root = fs::path(RAXC_SOURCE_DIR) / "test" / "conformance" / "tvm-v0.25.0";
  nlohmann::json manifest = nlohmann::json::parse(read_text(root / "manifest.json"));
  for (const auto& p : manifest["programs"]) {
    if (p["expect"] != "valid") continue;
    std::string file = p["file"];
    Walked w(read_text(root / file));
    for (auto& [name, s] : w.bound)
      if (s.find("ndim=") != std::string::npos || s == "R.Object" ||
          (s.find("R.Tensor(dtype") != std::string::npos))
        WARN(file << ": " << name << " = " << s);
  }
}

// ---------------------------------------------------------------------------- robustness

TEST_CASE("ops: every operator survives odd arguments without crashing", "[ops]") {
  ir::Arena arena;
  analysis::arith::Analyzer analyzer(arena);
  auto* n = arena.make<ir::PrimVar>("n", ir::DataType::Int(64));
  auto* two = arena.make<ir::IntImm>(ir::DataType::Int(64), 2);
  auto* zero = arena.make<ir::IntImm>(ir::DataType::Int(64), 0);
  auto shape = [&](std::vector<const ir::PrimExpr*> d) { return arena.make<ir::ShapeExpr>(d); };
  auto f32 = ir::DataType::Float(32);
  std::vector<const ir::StructInfo*> kinds = {
      arena.make<ir::TensorSInfo>(nullptr, f32, nullptr, -1),
      arena.make<ir::TensorSInfo>(shape({}), f32, nullptr, 0),
      arena.make<ir::TensorSInfo>(shape({n}), ir::DataType::Int(64), nullptr, 1),
      arena.make<ir::TensorSInfo>(shape({two, n, two, two}), f32, nullptr, 4),
      arena.make<ir::TensorSInfo>(shape({zero, two, zero}), ir::DataType::Bool(), nullptr, 3),
      arena.make<ir::ObjectSInfo>(),
      arena.make<ir::ShapeSInfo>(std::vector<const ir::PrimExpr*>{two, n}, 2),
      arena.make<ir::ShapeSInfo>(std::nullopt, -1),
      arena.make<ir::PrimSInfo>(ir::DataType::Int(64), two),
      arena.make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{}),
  };
  kinds.push_back(
      arena.make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{kinds[3], kinds[0]}));
  std::vector<const ir::Expr*> exprs;
  for (size_t i = 0; i < kinds.size(); ++i)
    exprs.push_back(arena.make<ir::Var>(false, "v" + std::to_string(i), kinds[i]));
  size_t calls = 0;
  for (const ops::OpDef& def : ops::all_ops()) {
    INFO(def.name);
    auto* op = arena.make<ir::Op>(std::string(def.name));
    for (size_t arity = 0; arity <= def.args.size() + 1; ++arity) {
      for (size_t k = 0; k < kinds.size(); ++k) {
        std::vector<const ir::Expr*> args;
        std::vector<const ir::StructInfo*> sinfos;
        for (size_t a = 0; a < arity; ++a) {
          size_t pick = (k + a * 3) % kinds.size();
          args.push_back(exprs[pick]);
          sinfos.push_back(kinds[pick]);
        }
        for (int variant = 0; variant < 3; ++variant) {
          ir::Attrs attrs;
          if (variant > 0)
            for (const ops::ParamSpec& p : def.attrs) {
              int64_t i = variant == 1 ? 7 : -1;
              ir::AttrValue v;
              switch (p.kind) {
                case ops::ArgKind::Int: v = ir::AttrValue(i); break;
                case ops::ArgKind::IntList:
                  v = ir::AttrValue(
                      ir::AttrValue::List{ir::AttrValue(i), ir::AttrValue(int64_t(0))});
                  break;
                case ops::ArgKind::Bool: v = ir::AttrValue(variant == 1); break;
                case ops::ArgKind::Float: v = ir::AttrValue(0.5); break;
                case ops::ArgKind::String:
                  v = ir::AttrValue(std::string(variant == 1 ? "bogus" : "NHWC"));
                  break;
                case ops::ArgKind::DType: v = ir::AttrValue(std::string("float16")); break;
                default: v = ir::AttrValue(i); break;
              }
              attrs.entries.emplace_back(std::string(p.name), v);
            }
          ir::Call call(op, args, {}, attrs);
          DiagnosticSink sink;
          ops::InferContext ctx{call, sinfos, analyzer, sink};
          CHECK(ops::infer_call(*op, ctx) != nullptr);
          ++calls;
        }
      }
    }
  }
  CHECK(calls > 1000);
}

TEST_CASE("ops: more families (stack, where, topk, norms, pad, transpose conv, creation)",
          "[ops]") {
  struct Case {
    std::string params, expr, expected;
    Codes codes;
  };
  const std::vector<Case> cases = {
      {"a: R.Tensor((2, 3), \"float32\")",
       "R.stack((a, a), axis=1)",
       "R.Tensor((2, 2, 3), dtype=\"float32\")",
       {}},
      {"c: R.Tensor((2, 1), \"bool\"), a: R.Tensor((3,), \"float32\")",
       "R.where(c, a, a)",
       "R.Tensor((2, 3), dtype=\"float32\")",
       {}},
      {"a: R.Tensor((2, 8), \"float32\")",
       "R.topk(a, k=3)",
       "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"int32\"))",
       {}},
      {"a: R.Tensor((2, 8), \"float32\")",
       "R.topk(a, k=3, ret_type=\"values\")",
       "R.Tensor((2, 3), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 4, 5), \"float32\"), g: R.Tensor((4, 5), \"float32\"), b: R.Tensor((4, 5), "
       "\"float32\")",
       "R.nn.layer_norm(x, g, b, axes=[-2, -1])",
       "R.Tensor((2, 4, 5), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 4, 5), \"float32\"), g: R.Tensor((4, 6), \"float32\"), b: R.Tensor((4, 5), "
       "\"float32\")",
       "R.nn.layer_norm(x, g, b, axes=[-2, -1])",
       "R.Tensor((2, 4, 5), dtype=\"float32\")",
       {"RX3114"}},
      {"x: R.Tensor((2, 3, 8, 8), \"float32\"), g: R.Tensor((3,), \"float32\")",
       "R.nn.batch_norm(x, g, g, g, g, axis=1)",
       "R.Tuple(R.Tensor((2, 3, 8, 8), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
       "R.Tensor((3,), dtype=\"float32\"))",
       {}},
      {"x: R.Tensor((2, 3), \"float32\")",
       "R.nn.pad(x, pad_width=[1, 1, 0, 2])",
       "R.Tensor((4, 5), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 3, 8, 8), \"float32\"), w: R.Tensor((3, 4, 3, 3), \"float32\")",
       "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1])",
       "R.Tensor((2, 4, 15, 15), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 3), \"float32\"), v: R.Tensor((), \"float16\")",
       "R.full((4, 5), v, dtype=\"float32\")",
       "R.Tensor((4, 5), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 3), \"float32\"), v: R.Tensor((2,), \"float16\")",
       "R.full_like(x, v)",
       "R.Tensor((2, 3), dtype=\"float32\")",
       {"RX3113"}},
      {"", "R.arange(1, 10, 2)", "R.Tensor((5,), dtype=\"int64\")", {}},
      {"", "R.arange(5, 0, -1)", "R.Tensor((5,), dtype=\"int64\")", {"RX4106"}},
      {"x: R.Tensor((2, 3), \"float32\")", "R.cumsum(x)", "R.Tensor((6,), dtype=\"float32\")", {}},
      {"x: R.Tensor((\"n\", 3), \"float32\")", "R.shape_of(x)", "R.Shape([n, 3])", {}},
      {"x: R.Tensor((2, 3), \"float32\")",
       "R.einsum((x, x), \"ij,kj->ik\")",
       "R.Tensor((2, 2), dtype=\"float32\")",
       {}},
      {"x: R.Tensor((2, 3), \"float32\")",
       "R.astype(x, \"float16\")",
       "R.Tensor((2, 3), dtype=\"float16\")",
       {}},
      {"x: R.Tensor((1, 3, 4), \"float32\")",
       "R.expand_dims(x, axis=[-1, 1, -6])",
       "R.Tensor((1, 1, 1, 3, 4, 1), dtype=\"float32\")",
       {}},
  };
  for (const Case& c : cases) {
    Codes codes;
    std::string messages;
    INFO(c.params << " | " << c.expr);
    std::string got = infer_expr(c.params, c.expr, &codes, &messages);
    INFO(messages);
    CHECK(got == c.expected);
    CHECK(codes == c.codes);
  }
}

// Operators of operators.md §3 added after the audit (index_tensor, index_put, slice_scatter,
// reverse_sequence, vision.roi_pool, inspect.tensor_*, nn.relu6) and the flagged TVM
// discrepancies of arange (RX4106) and 0-d tensor + PrimValue (RX4107), with near misses.
TEST_CASE("ops: operators added from section 3 and flagged TVM discrepancies", "[ops]") {
  struct Case {
    std::string params, expr, expected;
    Codes codes;
  };
  const std::string x = "x: R.Tensor((5, 6, 7), \"float32\"), i: R.Tensor((3,), \"int64\")";
  const std::vector<Case> cases = {
      // index_tensor: broadcast index shapes + the remaining data dims (PyTorch x[idx]).
      {x, "R.index_tensor(x, (i,))", "R.Tensor((3, 6, 7), dtype=\"float32\")", {}},
      {x + ", j: R.Tensor((2, 1), \"int64\")",
       "R.index_tensor(x, (j, i))",
       "R.Tensor((2, 3, 7), dtype=\"float32\")",
       {}},
      {x, "R.index_tensor(x, (i, i, i))", "R.Tensor((3,), dtype=\"float32\")", {}},
      {"y: R.Tensor((\"n\", \"m\"), \"float32\"), p: R.Tensor((\"k\", 2), \"int32\")",
       "R.index_tensor(y, (p,))",
       "R.Tensor((k, 2, m), dtype=\"float32\")",
       {}},
      {x + ", q: R.Tensor(dtype=\"int64\", ndim=2)",
       "R.index_tensor(x, (q,))",
       "R.Tensor(dtype=\"float32\", ndim=4)",
       {}},
      {x + ", q: R.Tensor(dtype=\"int64\")",
       "R.index_tensor(x, (q,))",
       "R.Tensor(dtype=\"float32\")",
       {}},
      {x + ", g: R.Tensor((3,), \"float32\")",
       "R.index_tensor(x, (g,))",
       "R.Tensor((3, 6, 7), dtype=\"float32\")",
       {"RX3118"}},
      {x + ", b: R.Tensor((3,), \"bool\")",
       "R.index_tensor(x, (b,))",
       "R.Tensor((3, 6, 7), dtype=\"float32\")",
       {"RX3118"}},
      {x, "R.index_tensor(x, (i, i, i, i))", "R.Tensor(dtype=\"float32\")", {"RX3116"}},
      {x + ", k: R.Tensor((4,), \"int64\")",
       "R.index_tensor(x, (i, k))",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3109"}},
      {x + ", k: R.Tensor((\"u\",), \"int64\")",
       "R.index_tensor(x, (i, k))",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX4101"}},
      {x, "R.index_tensor(x, i)", "R.Tensor(dtype=\"float32\")", {"RX3106"}},
      {x, "R.index_tensor(x)", "R.Object", {"RX3100"}},
      // index_put: S(data).
      {x + ", v: R.Tensor((7,), \"float32\")",
       "R.index_put(x, (i,), v, accumulate=True)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      {x + ", v: R.Tensor((7,), \"float16\")",
       "R.index_put(x, (i,), v)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3108"}},
      {x + ", v: R.Tensor((7,), \"float32\")",
       "R.index_put(x, (i,), v, accumulate=1.5)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3103"}},
      // slice_scatter: src is the slice start:end:step on axis.
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 4, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 4, 100, 1, axis=-2)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 6, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3114"}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 4, 2)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3114"}},
      {x + ", s: R.Tensor((5, 2), \"float32\")",
       "R.slice_scatter(x, s, 0, 4, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3122"}},
      {x + ", s: R.Tensor((5, 2, 7), \"int32\")",
       "R.slice_scatter(x, s, 0, 4, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3108"}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 4, 2, axis=3)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3110"}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 4, 0, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3116"}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, i, 4, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3107"}},
      {x + ", s: R.Tensor((5, 2, 7), \"float32\")",
       "R.slice_scatter(x, s, 0, 4)",
       "R.Object",
       {"RX3100"}},
      // symbolic slice bounds: no length check, no error.
      {x + ", s: R.Tensor((5, 2, 7), \"float32\"), b: R.Prim(\"int64\")",
       "R.slice_scatter(x, s, b, 4, 2, axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      // reverse_sequence: S(data).
      {x + ", l: R.Tensor((6,), \"int32\")",
       "R.reverse_sequence(x, l, seq_axis=0, batch_axis=1)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      {x + ", l: R.Tensor((5,), \"int64\")",
       "R.reverse_sequence(x, l)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {}},
      {x + ", l: R.Tensor((6,), \"int32\")",
       "R.reverse_sequence(x, l)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3114"}},
      {x + ", l: R.Tensor((5,), \"float32\")",
       "R.reverse_sequence(x, l)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3118"}},
      {x + ", l: R.Tensor((5, 1), \"int32\")",
       "R.reverse_sequence(x, l)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3113"}},
      {x + ", l: R.Tensor((5,), \"int32\")",
       "R.reverse_sequence(x, l, seq_axis=0, batch_axis=-3)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3116"}},
      {x + ", l: R.Tensor((5,), \"int32\")",
       "R.reverse_sequence(x, l, seq_axis=3)",
       "R.Tensor((5, 6, 7), dtype=\"float32\")",
       {"RX3110"}},
      // vision.roi_pool: (num_rois, C, ph, pw), or NHWC.
      {"d: R.Tensor((1, 4, 16, 16), \"float32\"), r: R.Tensor((3, 5), \"float32\")",
       "R.vision.roi_pool(d, r, pooled_size=(2, 3), spatial_scale=0.25)",
       "R.Tensor((3, 4, 2, 3), dtype=\"float32\")",
       {}},
      {"d: R.Tensor((1, 16, 16, 4), \"float32\"), r: R.Tensor((3, 5), \"float32\")",
       "R.vision.roi_pool(d, r, pooled_size=[2, 2], spatial_scale=1.0, layout=\"NHWC\")",
       "R.Tensor((3, 2, 2, 4), dtype=\"float32\")",
       {}},
      {"d: R.Tensor((1, 4, 16), \"float32\"), r: R.Tensor((3, 5), \"float32\")",
       "R.vision.roi_pool(d, r, pooled_size=(2, 2), spatial_scale=1.0)",
       "R.Tensor(dtype=\"float32\", ndim=4)",
       {"RX3113"}},
      {"d: R.Tensor((1, 4, 16, 16), \"float32\"), r: R.Tensor((3, 5), \"float32\")",
       "R.vision.roi_pool(d, r, pooled_size=(2, 2))",
       "R.Object",
       {"RX3125"}},
      {"d: R.Tensor((1, 4, 16, 16), \"float32\"), r: R.Tensor((3, 5), \"float32\")",
       "R.vision.roi_pool(d, r, pooled_size=(2, 2), spatial_scale=\"x\")",
       "R.Tensor((3, 4, 2, 2), dtype=\"float32\")",
       {"RX3103"}},
      // inspect.tensor_*: the DLPack header field dtypes.
      {x, "R.inspect.tensor_ndim(x)", "R.Prim(\"int32\")", {}},
      {x, "R.inspect.tensor_dtype_code(x)", "R.Prim(\"uint8\")", {}},
      {x, "R.inspect.tensor_dtype_bits(x)", "R.Prim(\"uint8\")", {}},
      {x, "R.inspect.tensor_dtype_lanes(x)", "R.Prim(\"uint16\")", {}},
      {x, "R.inspect.tensor_byte_offset(x)", "R.Prim(\"uint64\")", {}},
      {x, "R.inspect.tensor_elem_offset(x)", "R.Prim(\"uint64\")", {}},
      {x, "R.inspect.tensor_shape_i(x, R.prim_value(2))", "R.Prim(\"int64\")", {}},
      {x, "R.inspect.tensor_stride_i(x, R.prim_value(0))", "R.Prim(\"int64\")", {}},
      {x + ", a: R.Prim(\"int64\")", "R.inspect.tensor_shape_i(x, a)", "R.Prim(\"int64\")", {}},
      {x, "R.inspect.tensor_shape_i(x, R.prim_value(3))", "R.Prim(\"int64\")", {"RX3110"}},
      {x, "R.inspect.tensor_stride_i(x, R.prim_value(-1))", "R.Prim(\"int64\")", {"RX3116"}},
      {x, "R.inspect.tensor_shape_i(x, i)", "R.Prim(\"int64\")", {"RX3107"}},
      {"o: R.Object", "R.inspect.tensor_ndim(o)", "R.Prim(\"int32\")", {"RX3104"}},
      {x, "R.inspect.tensor_ndim(x, x)", "R.Object", {"RX3100"}},
      // nn.relu6 = clip(x, 0, 6): S(x), any dtype, never an unknown operator.
      {x, "R.nn.relu6(x)", "R.Tensor((5, 6, 7), dtype=\"float32\")", {}},
      {x, "R.nn.relu6(i)", "R.Tensor((3,), dtype=\"int64\")", {}},
      {"s: R.Shape([2])", "R.nn.relu6(s)", "R.Tensor", {"RX3104"}},
      // arange (§3.3): exact constant lengths, the TVM discrepancy flagged.
      {"", "R.arange(5, 0, -1)", "R.Tensor((5,), dtype=\"int64\")", {"RX4106"}},
      {"", "R.arange(5, 0, 1)", "R.Tensor((0,), dtype=\"int64\")", {"RX4106"}},
      {"", "R.arange(0, 10, -3)", "R.Tensor((0,), dtype=\"int64\")", {"RX4106"}},
      // TVM's formula happens to agree here: floordiv(-10 - 3 - 1, -3) = 4.
      {"", "R.arange(10, 0, -3)", "R.Tensor((4,), dtype=\"int64\")", {}},
      {"", "R.arange(1, 10, 2)", "R.Tensor((5,), dtype=\"int64\")", {}},
      {"", "R.arange(-3, 4, 3)", "R.Tensor((3,), dtype=\"int64\")", {}},
      {"", "R.arange(7)", "R.Tensor((7,), dtype=\"int64\")", {}},
      {"", "R.arange(0.0, 1.0, 0.25)", "R.Tensor((4,), dtype=\"float32\")", {}},
      {"", "R.arange(1.0, 0.0, -0.3)", "R.Tensor((4,), dtype=\"float32\")", {}},
      {"", "R.arange(1.0, 0.0, 0.5)", "R.Tensor((0,), dtype=\"float32\")", {"RX4106"}},
      {"", "R.arange(0, 4, 0)", "R.Tensor(dtype=\"int64\", ndim=1)", {"RX3116"}},
      // Symbolic operands keep TVM's formula (the fix applies to constants only).
      {"x: R.Tensor((\"n\",), \"float32\")",
       "R.arange(0, n, 2)",
       "R.Tensor(((n + 1) // 2,), dtype=\"int64\")",
       {}},
      // 0-d tensor with a PrimValue (§2.7): (1,) as in TVM, flagged.
      {"s: R.Tensor((), \"float32\"), f: R.Prim(\"float32\")",
       "R.add(s, f)",
       "R.Tensor((1,), dtype=\"float32\")",
       {"RX4107"}},
      {"s: R.Tensor((), \"float32\"), f: R.Prim(\"float32\")",
       "R.less(f, s)",
       "R.Tensor((1,), dtype=\"bool\")",
       {"RX4107"}},
      {"s: R.Tensor((2,), \"float32\"), f: R.Prim(\"float32\")",
       "R.add(s, f)",
       "R.Tensor((2,), dtype=\"float32\")",
       {}},
      {"s: R.Tensor((), \"float32\")", "R.add(s, s)", "R.Tensor((), dtype=\"float32\")", {}},
      {"f: R.Prim(\"float32\")", "R.add(f, f)", "R.Prim(\"float32\")", {}},
      // take (§3.6): an unknown index dtype only warns (RX4108).
      {"x: R.Tensor((4, 5), \"float32\"), d: R.Tensor((3,))",
       "R.take(x, d, axis=0)",
       "R.Tensor((3, 5), dtype=\"float32\")",
       {"RX4108"}},
      {"x: R.Tensor((4, 5), \"float32\"), d: R.Tensor((3,), \"int32\")",
       "R.take(x, d, axis=0)",
       "R.Tensor((3, 5), dtype=\"float32\")",
       {}},
      // dynamic_strided_slice (§3.6): 1-D int64 vectors of literal length = rank of x.
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor((2,), \"int64\")",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {}},
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor((2,))",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX4108", "RX4108", "RX4108"}},
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor((2,), \"int32\")",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3118", "RX3118", "RX3118"}},
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor((3,), \"int64\")",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3116", "RX3116", "RX3116"}},
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor(dtype=\"int64\", ndim=1)",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3118", "RX3118", "RX3118"}},
      {"x: R.Tensor((4, 5), \"float32\"), b: R.Tensor((2, 1), \"int64\")",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\", ndim=2)",
       {"RX3113", "RX3113", "RX3113"}},
      {"x: R.Tensor(dtype=\"float32\"), b: R.Tensor((2,), \"int64\")",
       "R.dynamic_strided_slice(x, b, b, b)",
       "R.Tensor(dtype=\"float32\")",
       {"RX4109"}},
      // nn.attention and nn.attention_bias (§3.10, the bias form is its own registered op).
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\")",
       "R.nn.attention(q, k, v)",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 3, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 3, 32), \"float16\")",
       "R.nn.attention(q, k, v)",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {"RX3116", "RX3116"}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\")",
       "R.nn.attention(q, k, v, causal_mask=\"Middle\")",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {"RX3116"}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\"), b: R.Tensor((1, 8, 10, 12), \"float16\")",
       "R.nn.attention_bias(q, k, v, b)",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\"), b: R.Tensor((2, 1, 1, 12), \"float16\")",
       "R.nn.attention_bias(q, k, v, b, scale=0.5, causal_mask=\"TopLeft\")",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\"), b: R.Tensor((1, 8, 10, 11), \"float16\")",
       "R.nn.attention_bias(q, k, v, b)",
       "R.Tensor((2, 10, 8, 32), dtype=\"float16\")",
       {"RX3114"}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\"), b: R.Tensor((8, 10, 12), \"float16\")",
       "R.nn.attention(q, k, v, b)",
       "R.Tensor(dtype=\"float16\", ndim=4)",
       {"RX3113"}},
      {"q: R.Tensor((2, 10, 8, 16), \"float16\"), k: R.Tensor((2, 12, 4, 16), \"float16\"), v: "
       "R.Tensor((2, 12, 4, 32), \"float16\")",
       "R.nn.attention_bias(q, k, v)",
       "R.Object",
       {"RX3100"}},
  };
  for (const Case& c : cases) {
    Codes codes;
    std::string messages;
    INFO(c.params << " | " << c.expr);
    std::string got = infer_expr(c.params, c.expr, &codes, &messages);
    INFO(messages);
    if (c.expected == "R.Tensor")  // only the kind matters
      CHECK(got.rfind("R.Tensor", 0) == 0);
    else
      CHECK(got == c.expected);
    CHECK(codes == c.codes);
  }
  // Purity and the registry entries themselves.
  for (const char* name :
       {"relax.index_tensor", "relax.index_put", "relax.slice_scatter", "relax.reverse_sequence",
        "relax.vision.roi_pool", "relax.inspect.tensor_ndim", "relax.inspect.tensor_shape_i",
        "relax.inspect.tensor_stride_i", "relax.inspect.tensor_dtype_code",
        "relax.inspect.tensor_dtype_bits", "relax.inspect.tensor_dtype_lanes",
        "relax.inspect.tensor_byte_offset", "relax.inspect.tensor_elem_offset", "relax.nn.relu6",
        "relax.nn.attention_bias"}) {
    INFO(name);
    const ops::OpDef* def = ops::find_op(name);
    REQUIRE(def != nullptr);
    CHECK(def->purity == ops::Purity::Pure);
  }
  const ops::OpDef* put = ops::find_op("relax.index_put");
  REQUIRE(put->attrs.size() == 1);
  CHECK(put->attrs[0].name == "accumulate");
  CHECK(put->attrs[0].default_text == "False");
  const ops::OpDef* rev = ops::find_op("relax.reverse_sequence");
  REQUIRE(rev->attrs.size() == 2);
  CHECK(rev->attrs[0].default_text == "1");
  CHECK(rev->attrs[1].default_text == "0");
}

// Every operator named in operators.md section 3 (listed by a script over the section's text
// forms, table rows and headings: 216 names, the inspect.tensor_* family as the spec lists it), so
// no documented operator draws a false RX4100 "unknown operator" warning.
TEST_CASE("ops: every operator of operators.md section 3 is registered", "[ops]") {
  static const char* const section3[] = {"abs",
                                         "acos",
                                         "acosh",
                                         "add",
                                         "arange",
                                         "argmax",
                                         "argmin",
                                         "argsort",
                                         "asin",
                                         "asinh",
                                         "assert_op",
                                         "astype",
                                         "atan",
                                         "atan2",
                                         "atanh",
                                         "bitwise_and",
                                         "bitwise_not",
                                         "bitwise_or",
                                         "bitwise_xor",
                                         "broadcast_to",
                                         "bucketize",
                                         "builtin.alloc_tensor",
                                         "builtin.stop_lift_params",
                                         "call_builtin_with_ctx",
                                         "call_dps_packed",
                                         "call_inplace_packed",
                                         "call_pure_packed",
                                         "call_tir",
                                         "call_tir_inplace",
                                         "call_tir_with_grad",
                                         "ccl.allgather",
                                         "ccl.allreduce",
                                         "ccl.broadcast_from_worker0",
                                         "ccl.scatter_from_worker0",
                                         "ceil",
                                         "clip",
                                         "collapse_sum_like",
                                         "collapse_sum_to",
                                         "concat",
                                         "cos",
                                         "cosh",
                                         "cumprod",
                                         "cumsum",
                                         "dequantize",
                                         "device",
                                         "divide",
                                         "dynamic_strided_slice",
                                         "einsum",
                                         "equal",
                                         "erf",
                                         "ewise_fma",
                                         "exp",
                                         "expand_dims",
                                         "eye",
                                         "eye_like",
                                         "flatten",
                                         "flip",
                                         "floor",
                                         "floor_divide",
                                         "floor_mod",
                                         "full",
                                         "full_like",
                                         "gather_elements",
                                         "gather_nd",
                                         "grad.end_checkpoint",
                                         "grad.no_grad",
                                         "grad.start_checkpoint",
                                         "greater",
                                         "greater_equal",
                                         "hamming_window",
                                         "hint_on_device",
                                         "image.affine_grid",
                                         "image.resize2d",
                                         "image.resize3d",
                                         "index_put",
                                         "index_tensor",
                                         "inspect.tensor_dtype_code",
                                         "inspect.tensor_ndim",
                                         "inspect.tensor_shape_i",
                                         "inspect.tensor_stride_i",
                                         "invoke_closure",
                                         "invoke_pure_closure",
                                         "isfinite",
                                         "isinf",
                                         "isnan",
                                         "layout_transform",
                                         "left_shift",
                                         "less",
                                         "less_equal",
                                         "linear",
                                         "log",
                                         "log_add_exp",
                                         "logical_and",
                                         "logical_not",
                                         "logical_or",
                                         "logical_xor",
                                         "make_closure",
                                         "matmul",
                                         "max",
                                         "maximum",
                                         "mean",
                                         "median",
                                         "memory.alloc_storage",
                                         "memory.alloc_tensor",
                                         "memory.kill_storage",
                                         "memory.kill_tensor",
                                         "memory.view",
                                         "meshgrid",
                                         "min",
                                         "minimum",
                                         "mod",
                                         "multiply",
                                         "negative",
                                         "nn.adaptive_avg_pool1d",
                                         "nn.adaptive_avg_pool2d",
                                         "nn.adaptive_avg_pool3d",
                                         "nn.attention",
                                         "nn.attention_bias",
                                         "nn.avg_pool1d",
                                         "nn.avg_pool2d",
                                         "nn.avg_pool3d",
                                         "nn.batch_flatten",
                                         "nn.batch_norm",
                                         "nn.conv1d",
                                         "nn.conv1d_transpose",
                                         "nn.conv2d",
                                         "nn.conv2d_transpose",
                                         "nn.conv3d",
                                         "nn.conv3d_transpose",
                                         "nn.cross_entropy_with_logits",
                                         "nn.dropout",
                                         "nn.gelu",
                                         "nn.gelu_tanh",
                                         "nn.group_norm",
                                         "nn.instance_norm",
                                         "nn.layer_norm",
                                         "nn.leakyrelu",
                                         "nn.log_softmax",
                                         "nn.max_pool1d",
                                         "nn.max_pool2d",
                                         "nn.max_pool3d",
                                         "nn.nll_loss",
                                         "nn.pad",
                                         "nn.pixel_shuffle",
                                         "nn.prelu",
                                         "nn.relu",
                                         "nn.relu6",
                                         "nn.rms_norm",
                                         "nn.selu",
                                         "nn.silu",
                                         "nn.softmax",
                                         "nn.softplus",
                                         "nonzero",
                                         "not_equal",
                                         "null_value",
                                         "one_hot",
                                         "ones",
                                         "ones_like",
                                         "outer",
                                         "permute_dims",
                                         "power",
                                         "print",
                                         "prod",
                                         "quantize",
                                         "repeat",
                                         "reshape",
                                         "reverse_sequence",
                                         "right_shift",
                                         "round",
                                         "rsqrt",
                                         "scatter_elements",
                                         "scatter_nd",
                                         "shape_of",
                                         "shape_to_tensor",
                                         "sigmoid",
                                         "sign",
                                         "sin",
                                         "sinh",
                                         "size",
                                         "slice_scatter",
                                         "sort",
                                         "split",
                                         "sqrt",
                                         "square",
                                         "squeeze",
                                         "stack",
                                         "std",
                                         "strided_slice",
                                         "subtract",
                                         "sum",
                                         "take",
                                         "tan",
                                         "tanh",
                                         "tensor_to_shape",
                                         "tile",
                                         "to_vdevice",
                                         "topk",
                                         "tril",
                                         "triu",
                                         "trunc",
                                         "unique",
                                         "variance",
                                         "vision.all_class_non_max_suppression",
                                         "vision.get_valid_counts",
                                         "vision.multibox_transform_loc",
                                         "vision.non_max_suppression",
                                         "vision.roi_align",
                                         "vision.roi_pool",
                                         "vm.alloc_storage",
                                         "vm.alloc_tensor",
                                         "vm.call_tir_dyn",
                                         "vm.kill_object",
                                         "where",
                                         "wrap_param",
                                         "zeros",
                                         "zeros_like"};
  size_t n = 0;
  for (const char* name : section3) {
    INFO(name);
    CHECK(ops::find_op(std::string("relax.") + name) != nullptr);
    ++n;
  }
  CHECK(n == 216);
  CHECK(ops::all_ops().size() >= n);
}
