// Relax lowering (text-format.md §3–§5, §10): lower_file on small sources, checked on the IR.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/lower/lower.h"

namespace raxc::lower {
namespace {

using ir::DataType;

struct Lowered {
  std::string text;
  TSParser* parser = ts_parser_new();
  TSTree* tree = nullptr;
  std::unique_ptr<cst::Cst> cst;
  DiagnosticSink diags;
  std::unique_ptr<ir::IRModule> module;

  explicit Lowered(std::string source) : text(std::move(source)) {
    ts_parser_set_language(parser, tree_sitter_relax());
    tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
    cst = std::make_unique<cst::Cst>(text);
    module = lower_file(*cst, ts_tree_root_node(tree), diags);
  }
  ~Lowered() {
    ts_tree_delete(tree);
    ts_parser_delete(parser);
  }
  bool has(const char* code) const {
    for (const Diagnostic& d : diags.diagnostics())
      if (std::strcmp(raxc::code(d.id), code) == 0) return true;
    return false;
  }
  std::string codes() const {
    std::string all;
    for (const Diagnostic& d : diags.diagnostics())
      all += std::string(raxc::code(d.id)) + " " + d.message + "\n";
    return all;
  }
  const ir::Function* fn(std::string_view name) const {
    const ir::GlobalDef* g = module->find(name);
    return g ? g->function() : nullptr;
  }
  std::string_view source(Span s) const {
    return std::string_view(text).substr(s.begin, s.end - s.begin);
  }
};

const ir::Binding* binding(const ir::SeqExpr* seq, size_t block, size_t index) {
  REQUIRE(seq->blocks.size() > block);
  REQUIRE(seq->blocks[block]->bindings.size() > index);
  return seq->blocks[block]->bindings[index];
}

TEST_CASE("lone function: params, symbolic variables, return", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n", 4), "float32"):
    n = T.int64()
    z: R.Tensor((n, 4), "float32") = R.add(x, x)
    return z
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  REQUIRE(l.module->top_level == ir::TopLevel::Function);
  const ir::Function* f = l.fn("f");
  REQUIRE(f);
  REQUIRE(f->params.size() == 2);
  auto* tx = ir::cast<ir::TensorSInfo>(f->params[0]->annotation);
  auto* ty = ir::cast<ir::TensorSInfo>(f->params[1]->annotation);
  auto* sx = ir::cast<ir::ShapeExpr>(tx->shape);
  auto* sy = ir::cast<ir::ShapeExpr>(ty->shape);
  CHECK(tx->ndim == 2);
  CHECK(tx->dtype == DataType::Float(32));
  // One variable for the whole function, shared by every use.
  CHECK(sx->values[0] == sy->values[0]);
  CHECK(ir::cast<ir::PrimVar>(sx->values[0])->dtype == DataType::Int(64));
  const ir::Binding* b = binding(f->body, 0, 0);
  auto* tz = ir::cast<ir::TensorSInfo>(b->var->annotation);
  CHECK(ir::cast<ir::ShapeExpr>(tz->shape)->values[0] == sx->values[0]);
  auto* call = ir::cast<ir::Call>(b->value);
  CHECK(ir::cast<ir::Op>(call->op)->name == "relax.add");
  CHECK(l.source(call->span) == "R.add(x, x)");
  CHECK(f->body->body == b->var);
  CHECK(l.source(f->name_span) == "f");
}

TEST_CASE("dataflow outputs are Vars, the rest DataflowVars", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        a = R.multiply(x, x)
        b = R.add(a, x)
        R.output(b)
    c = R.add(b, b)
    return c
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  REQUIRE(f->body->blocks.size() == 2);
  CHECK(f->body->blocks[0]->is_dataflow);
  CHECK_FALSE(f->body->blocks[1]->is_dataflow);
  CHECK(binding(f->body, 0, 0)->var->is_dataflow());
  CHECK_FALSE(binding(f->body, 0, 1)->var->is_dataflow());
}

TEST_CASE("return inside a dataflow block outputs what it mentions", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.multiply(x, x)
        b = R.add(a, x)
        return b
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  CHECK(binding(f->body, 0, 0)->var->is_dataflow());
  CHECK_FALSE(binding(f->body, 0, 1)->var->is_dataflow());
}

TEST_CASE("python literals bind int32/float32/bool constants", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor((4,), "float32")):
    c = 1
    d = -2.5
    e = True
    h = R.const([[1, 2], [3, 4]], "int16")
    k = R.const([1.0, -2.0], "float16")
    p = R.prim_value(3)
    return (c, d, e, h, k, p)
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  auto* c = ir::cast<ir::Constant>(binding(f->body, 0, 0)->value);
  CHECK(c->dtype == DataType::Int(32));
  CHECK(c->shape.empty());
  CHECK(c->data == std::vector<uint8_t>{1, 0, 0, 0});
  auto* d = ir::cast<ir::Constant>(binding(f->body, 0, 1)->value);
  CHECK(d->dtype == DataType::Float(32));
  float dv;
  std::memcpy(&dv, d->data.data(), 4);
  CHECK(dv == -2.5f);
  CHECK(ir::cast<ir::Constant>(binding(f->body, 0, 2)->value)->dtype == DataType::Bool());
  auto* h = ir::cast<ir::Constant>(binding(f->body, 0, 3)->value);
  CHECK(h->shape == std::vector<int64_t>{2, 2});
  CHECK(h->data == std::vector<uint8_t>{1, 0, 2, 0, 3, 0, 4, 0});
  auto* k = ir::cast<ir::Constant>(binding(f->body, 0, 4)->value);
  CHECK(k->data == std::vector<uint8_t>{0x00, 0x3C, 0x00, 0xC0});  // 1.0, -2.0 in IEEE half
  auto* p = ir::cast<ir::PrimValue>(binding(f->body, 0, 5)->value);
  CHECK(p->value->dtype == DataType::Int(64));
}

TEST_CASE("non-emitting assignments", "[lower_relax]") {
  Lowered l(R"(@I.ir_module
class Module:
    @R.function
    def g(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return x

    @R.function(pure=False)
    def f(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        k = n * 2
        s = "my_func"
        a = cls.g(x)
        b = R.call_packed(s, a, R.prim_value(k), sinfo_args=R.Tensor((n,), "float32"))
        return b
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  REQUIRE(f->body->blocks.size() == 1);
  REQUIRE(f->body->blocks[0]->bindings.size() == 2);
  auto* a = ir::cast<ir::Call>(binding(f->body, 0, 0)->value);
  CHECK(ir::cast<ir::GlobalVar>(a->op)->name == "g");
  auto* b = ir::cast<ir::Call>(binding(f->body, 0, 1)->value);
  CHECK(ir::cast<ir::ExternFunc>(b->op)->global_symbol == "my_func");
  REQUIRE(b->args.size() == 2);
  CHECK(ir::cast<ir::PrimValue>(b->args[1])->value->kind == ir::PrimKind::Mul);
  REQUIRE(b->sinfo_args.size() == 1);
}

TEST_CASE("if/else is one binding with renamed branch results", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    if c:
        t = R.add(x, x)
        r: R.Tensor((4,), "float32") = R.multiply(t, t)
    else:
        r: R.Tensor((4,), "float32") = x
    return r
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  const ir::Binding* b = binding(f->body, 0, 0);
  CHECK(b->var->name == "r");
  auto* branch = ir::cast<ir::If>(b->value);
  CHECK(ir::cast<ir::Var>(branch->true_branch->body)->name == "r_then");
  CHECK(branch->true_branch->blocks[0]->bindings.size() == 2);
  CHECK(branch->false_branch->blocks.empty());  // a leaf result becomes the body
  CHECK(branch->false_branch->body == f->params[1]);
  CHECK(f->body->body == b->var);
}

TEST_CASE("match_cast binds a declared variable", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n,), "float32"))
    z: R.Tensor((n,), "float32") = R.add(y, y)
    return z
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  const ir::Binding* y = binding(f->body, 0, 0);
  REQUIRE(y->is_match_cast());
  auto* target = ir::cast<ir::TensorSInfo>(y->match_cast);
  auto* z = ir::cast<ir::TensorSInfo>(binding(f->body, 0, 1)->var->annotation);
  CHECK(ir::cast<ir::ShapeExpr>(target->shape)->values[0] ==
        ir::cast<ir::ShapeExpr>(z->shape)->values[0]);
}

TEST_CASE("call_tir argument wrapping and out_sinfo forms", "[lower_relax]") {
  Lowered l(R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        B[0] = A[0]

    @R.function
    def f(x: R.Tensor((4,), "float32")):
        cls = Module
        a = R.call_tir(cls.k, x, R.Tensor((4,), "float32"))
        b = R.call_tir(cls.k, (x,), out_sinfo=[R.Tensor((4,), "float32")])
        c = R.call_tir(cls.k, (x,), out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")], tir_vars=[4])
        d = R.call_dps_packed("ext", (x,), out_sinfo=R.Tensor((4,), "float32"))
        return (a, b, c, d)
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  auto* a = ir::cast<ir::Call>(binding(f->body, 0, 0)->value);
  CHECK(ir::cast<ir::Op>(a->op)->name == "relax.call_tir");
  CHECK(ir::cast<ir::GlobalVar>(a->args[0])->name == "k");
  CHECK(ir::cast<ir::Tuple>(a->args[1])->fields.size() == 1);
  CHECK(ir::isa<ir::TensorSInfo>(a->sinfo_args[0]));
  auto* b = ir::cast<ir::Call>(binding(f->body, 0, 1)->value);
  CHECK(ir::isa<ir::TensorSInfo>(b->sinfo_args[0]));  // a one-element list is not a tuple
  auto* c = ir::cast<ir::Call>(binding(f->body, 0, 2)->value);
  CHECK(ir::cast<ir::TupleSInfo>(c->sinfo_args[0])->fields.size() == 2);
  REQUIRE(c->args.size() == 3);
  CHECK(ir::isa<ir::ShapeExpr>(c->args[2]));
  auto* d = ir::cast<ir::Call>(binding(f->body, 0, 3)->value);
  CHECK(ir::cast<ir::ExternFunc>(d->args[0])->global_symbol == "ext");
}

TEST_CASE("operator attributes, print and assert", "[lower_relax]") {
  Lowered l(R"(@R.function(pure=False)
def f(x: R.Tensor((4, 4), "float32"), c: R.Tensor((), "bool")):
    a = R.sum(x, axis=[1], keepdims=False)
    b = R.layout_transform(x, index_map=lambda i, j: (j, i), pad_value=None)
    R.print(x, format="x={}")
    R.assert_op(c, x, format="bad {}")
    return (a, b)
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  auto* a = ir::cast<ir::Call>(binding(f->body, 0, 0)->value);
  const ir::AttrValue* axis = a->attrs.find("axis");
  REQUIRE(axis);
  REQUIRE(axis->get_if<ir::AttrValue::List>());
  CHECK(*(*axis->get_if<ir::AttrValue::List>())[0].get_if<int64_t>() == 1);
  CHECK(*a->attrs.find("keepdims")->get_if<bool>() == false);
  auto* b = ir::cast<ir::Call>(binding(f->body, 0, 1)->value);
  auto* map = *b->attrs.find("index_map")->get_if<const ir::IndexMap*>();
  CHECK(map->params.size() == 2);
  CHECK(map->results[0] == map->params[1]);
  CHECK(b->attrs.find("pad_value")->is_none());
  const ir::Binding* p = binding(f->body, 0, 2);
  CHECK(p->var->name == "_");
  auto* print = ir::cast<ir::Call>(p->value);
  CHECK(ir::cast<ir::StringImm>(print->args[0])->value == "x={}");
  auto* check = ir::cast<ir::Call>(binding(f->body, 0, 3)->value);
  CHECK(ir::cast<ir::StringImm>(check->args[1])->value == "bad {}");
  CHECK(check->args.size() == 3);
}

TEST_CASE("module: externs, vdevices, attributes, declaration order", "[lower_relax]") {
  Lowered l(R"(@I.ir_module(check_well_formed=False)
class Mod:
    I.module_attrs({"a": 1})
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice({"kind": "cuda"}, 0, "global"), I.vdevice("cuda", 1)]})
    ext = R.ExternFunc("sym", R.Callable((R.Tensor,), R.Tensor, True))

    @R.function
    def main(x: R.Tensor((4,), "float32", "cuda:1")) -> R.Tensor((4,), "float32"):
        R.func_attr({"num_input": 1})
        y = Mod.later(x)
        return y

    @R.function(private=True)
    def later(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::IRModule& m = *l.module;
  CHECK(m.name == "Mod");
  CHECK_FALSE(m.check_well_formed);
  CHECK(m.attrs.find("a"));
  REQUIRE(m.vdevices.size() == 3);
  CHECK(m.vdevices[1]->target_kind == "cuda");
  REQUIRE(m.globals.size() == 3);
  CHECK(m.globals[0].extern_func()->global_symbol == "sym");
  const ir::Function* main = l.fn("main");
  CHECK(ir::cast<ir::TensorSInfo>(main->params[0]->annotation)->vdevice == m.vdevices[2]);
  CHECK(main->attrs.find("num_input"));
  CHECK(l.fn("later")->is_private);
  // Each definition owns its arena.
  CHECK(m.globals[1].arena != m.globals[2].arena);
}

TEST_CASE("tuples: folding, unpacking, indexing", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor((4,), "float32")):
    a = (x, x)[1]
    t = x, x
    p, q = t
    r = t[0]
    return p
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  CHECK(binding(f->body, 0, 0)->value == f->params[0]);
  CHECK(ir::isa<ir::Tuple>(binding(f->body, 0, 1)->value));
  auto* p = ir::cast<ir::TupleGetItem>(binding(f->body, 0, 2)->value);
  CHECK(p->index == 0);
  CHECK(ir::cast<ir::TupleGetItem>(binding(f->body, 0, 3)->value)->index == 1);
  CHECK(ir::isa<ir::TupleGetItem>(binding(f->body, 0, 4)->value));
}

TEST_CASE("recursive local function is visible in its own body", "[lower_relax]") {
  Lowered l(R"(@R.function
def f(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
    @R.function
    def g(y: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        z = g(y)
        return z

    w = g(x)
    return w
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  const ir::Function* f = l.fn("f");
  const ir::Binding* gb = binding(f->body, 0, 0);
  auto* g = ir::cast<ir::Function>(gb->value);
  CHECK(g->is_private);
  auto* inner = ir::cast<ir::Call>(g->body->blocks[0]->bindings[0]->value);
  CHECK(inner->op == gb->var);  // the same variable as the binding
  CHECK(ir::isa<ir::FuncSInfo>(gb->var->annotation));
}

TEST_CASE("parse-time errors keep lowering the rest", "[lower_relax]") {
  Lowered l(R"(@I.ir_module
class Module:
    @R.function
    def bad(x: R.Tensor((4,), "float32")):
        y = R.add(x, x)

    @R.function
    def good(x: R.Tensor((4,), "float32")):
        return x
)");
  CHECK(l.has("RX1127"));
  CHECK(l.fn("good"));
}

TEST_CASE("imports rebind prefixes", "[lower_relax]") {
  Lowered l(R"(from tvm.script import relax as rx
@rx.function
def f(x: rx.Tensor((4,), "float32")):
    y = rx.nn.relu(x)
    return y
)");
  INFO(l.codes());
  REQUIRE(l.diags.diagnostics().empty());
  auto* call = ir::cast<ir::Call>(binding(l.fn("f")->body, 0, 0)->value);
  CHECK(ir::cast<ir::Op>(call->op)->name == "relax.nn.relu");
}

}  // namespace
}  // namespace raxc::lower
