// The IR walk library (frontend/ir/visitor.h, frontend/ir/walks.h): each named walk on IR lowered
// from a small .rx text, with a near miss next to each hit (a shape variable only in a Callable's
// return, a nested function's free variable that its enclosing function binds, a global passed
// as a value rather than called, ...), and the Visitor's options and hooks over Relax and TIR.
#include "frontend/ir/walks.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "frontend/ir/visitor.h"

using namespace raxc;

namespace {

// One module lowered without diagnostics.
struct Lowered {
  frontend::ParsedFile file;

  explicit Lowered(std::string_view text) : file(frontend::parse_file(text)) {
    std::string messages;
    for (const Diagnostic& d : file.diagnostics) messages += d.message + "\n";
    INFO(text);
    INFO(messages);
    REQUIRE(file.diagnostics.empty());
  }
  const ir::Function* function(std::string_view name) const {
    const ir::GlobalDef* def = file.module->find(name);
    REQUIRE(def != nullptr);
    REQUIRE(def->function() != nullptr);
    return def->function();
  }
  const ir::PrimFunc* prim_func(std::string_view name) const {
    const ir::GlobalDef* def = file.module->find(name);
    REQUIRE(def != nullptr);
    REQUIRE(def->prim_func() != nullptr);
    return def->prim_func();
  }
};

// The local function bound to `name` in `f`'s body.
const ir::Function* local_function(const ir::Function* f, const std::string& name) {
  for (const ir::DefinedVar& d : ir::defined_vars(f))
    if (d.binding != nullptr && d.var->name == name)
      if (const auto* local = ir::dyn_cast<ir::Function>(d.binding->value)) return local;
  FAIL("no local function " << name);
  return nullptr;
}

template <class Node>
std::vector<std::string> names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name);
  return out;
}

std::vector<std::string> names(const std::vector<ir::DefinedVar>& defined) {
  std::vector<std::string> out;
  for (const ir::DefinedVar& d : defined) out.push_back(d.var->name);
  return out;
}

using Names = std::vector<std::string>;

const char* const kSignatures = R"(
@R.function
def f(x: R.Tensor(("n", "m * 2"), dtype="float32"), p: R.Prim(value="k"), s: R.Shape(["a", "n + 1"]), g: R.Callable((R.Tensor(("c",), dtype="float32"),), R.Tensor(("c", "r"), dtype="float32")), t: R.Tuple(R.Tensor(("m",), dtype="float32"), R.Callable((R.Tensor(("d",), dtype="float32"),), R.Tensor(("d",), dtype="float32")))) -> R.Tensor(("n + k",), dtype="float32"):
    n = T.int64()
    q = T.int64()
    y = R.match_cast(x, R.Tensor((n, q), dtype="float32"))
    return x
)";

// The variables a closure captures, the variables a scope defines.
const char* const kClosures = R"(
@R.function
def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
    n = T.int64()
    y = R.add(x, x)

    @R.function
    def inner(z: R.Tensor(("k",), dtype="float32")) -> R.Tensor(("k",), dtype="float32"):
        k = T.int64()
        w = R.add(z, y)
        v = R.call_pure_packed("f", w, R.prim_value(n * 2), sinfo_args=R.Tensor((k,), dtype="float32"))
        return v

    @R.function
    def loop(i: R.Tensor(("j",), dtype="float32")) -> R.Tensor(("j",), dtype="float32"):
        j = T.int64()
        u = loop(i)
        return u

    r = inner(x)
    return r
)";

const char* const kGlobals = R"(
@I.ir_module
class Module:
    @T.prim_func
    def kernel(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
        T.evaluate(0)

    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def deep(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def other(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.kernel, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        z = cls.helper(y)
        f = cls.other

        @R.function
        def inner(q: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            w = cls.deep(q)
            return w

        h = cls.helper(z)
        return h
)";

const char* const kKernel = R"(
@T.prim_func(private=True)
def exp_norm(var_x: T.handle, var_y: T.handle):
    rows, cols = T.int64(), T.int64()
    x = T.match_buffer(var_x, (rows, cols))
    y = T.match_buffer(var_y, (rows, cols))
    for i, j in T.grid(rows, cols):
        with T.block("exp"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(x[v_i, v_j])
            T.writes(y[v_i, v_j])
            y[v_i, v_j] = T.exp(x[v_i, v_j])
)";

}  // namespace

TEST_CASE("walks: prim_vars lists each variable of a PrimExpr once", "[walks]") {
  Lowered m(kSignatures);
  const ir::Function* f = m.function("f");
  const auto* ret = ir::cast<ir::TensorSInfo>(f->ret_struct_info);
  const ir::PrimExpr* sum = ir::cast<ir::ShapeExpr>(ret->shape)->values[0];  // n + k
  CHECK(names(ir::prim_vars(sum)) == Names{"n", "k"});
  SECTION("collect_prim_vars appends only what is not there yet") {
    const auto* x = ir::cast<ir::TensorSInfo>(f->params[0]->annotation);
    std::vector<const ir::PrimVar*> out =
        ir::prim_vars(ir::cast<ir::ShapeExpr>(x->shape)->values[0]);
    ir::collect_prim_vars(sum, out);
    CHECK(names(out) == Names{"n", "k"});
  }
  SECTION("near miss: a literal dimension has no variables") {
    const auto* k = ir::cast<ir::PrimSInfo>(f->params[1]->annotation);
    CHECK(names(ir::prim_vars(k->value)) == Names{"k"});
    CHECK(ir::prim_vars(nullptr).empty());
    Lowered literal("@R.function\ndef g(x: R.Tensor((4,), dtype=\"float32\")):\n    return x\n");
    const auto* t = ir::cast<ir::TensorSInfo>(literal.function("g")->params[0]->annotation);
    CHECK(ir::prim_vars(ir::cast<ir::ShapeExpr>(t->shape)->values[0]).empty());
  }
}

TEST_CASE("walks: shape_vars of a StructInfo, binding positions", "[walks]") {
  Lowered m(kSignatures);
  const ir::Function* f = m.function("f");
  auto param = [&](size_t i) { return f->params[i]->annotation; };
  using ir::ShapeVarPositions;

  SECTION("Any: every variable of every dimension and value") {
    CHECK(names(ir::shape_vars(param(0))) == Names{"n", "m"});
    CHECK(names(ir::shape_vars(param(1))) == Names{"k"});
    CHECK(names(ir::shape_vars(param(2))) == Names{"a", "n"});
    CHECK(names(ir::shape_vars(param(4))) == Names{"m", "d"});  // a Callable's parameters too
  }
  SECTION("Lone: only a variable standing alone; nothing inside a Callable") {
    CHECK(names(ir::shape_vars(param(0), ShapeVarPositions::Lone)) == Names{"n"});
    CHECK(names(ir::shape_vars(param(1), ShapeVarPositions::Lone)) == Names{"k"});
    CHECK(names(ir::shape_vars(param(2), ShapeVarPositions::Lone)) == Names{"a"});
    CHECK(names(ir::shape_vars(param(3), ShapeVarPositions::Lone)).empty());
    CHECK(names(ir::shape_vars(param(4), ShapeVarPositions::Lone)) == Names{"m"});
  }
  SECTION("near miss: a variable only in a Callable's return is not in a binding position") {
    // R.Callable((R.Tensor(("c",)),), R.Tensor(("c", "r"))): `r` appears in the return only.
    CHECK(names(ir::shape_vars(param(3))) == Names{"c"});
    CHECK(names(ir::mentioned_shape_vars(f)) == Names{"n", "m", "k", "a", "c", "r", "d", "q"});
  }
  SECTION("near miss: the function's own return annotation is not a parameter's") {
    std::vector<const ir::PrimVar*> bound;
    for (const ir::Var* p : f->params) ir::collect_shape_vars(p->annotation, bound);
    CHECK(names(bound) == Names{"n", "m", "k", "a", "c", "d"});
    // `n + k` in the return uses n and k: it binds nothing new.
    CHECK(ir::shape_vars(f->ret_struct_info, ShapeVarPositions::Lone).empty());
  }
  SECTION("match_cast targets bind their lone variables") {
    const ir::Binding* cast = f->body->blocks[0]->bindings[0];
    REQUIRE(cast->is_match_cast());
    CHECK(names(ir::shape_vars(cast->match_cast, ShapeVarPositions::Lone)) == Names{"n", "q"});
  }
}

TEST_CASE("walks: free_vars of an expression", "[walks]") {
  Lowered m(kClosures);
  const ir::Function* main = m.function("main");
  const ir::Function* inner = local_function(main, "inner");

  SECTION("a nested function captures what its enclosing function binds") {
    ir::FreeVars free = ir::free_vars(inner);
    CHECK(names(free.vars) == Names{"y"});
    CHECK(names(free.shape_vars) == Names{"n"});  // R.prim_value(n * 2)
  }
  SECTION("near miss: the nested function's free variables are bound in the enclosing one") {
    ir::FreeVars free = ir::free_vars(main);
    CHECK(free.vars.empty());
    CHECK(free.shape_vars.empty());
  }
  SECTION("a local function's own variable is free in it (it is bound around it)") {
    ir::FreeVars free = ir::free_vars(local_function(main, "loop"));
    CHECK(names(free.vars) == Names{"loop"});
    CHECK(free.shape_vars.empty());  // j: its own signature binds it
  }
  SECTION("a binding's value: what it uses") {
    const ir::Binding* w = inner->body->blocks[0]->bindings[0];
    CHECK(names(ir::free_vars(w->value).vars) == Names{"z", "y"});
  }
}

TEST_CASE("walks: defined_vars of a scope", "[walks]") {
  Lowered m(kClosures);
  const ir::Function* main = m.function("main");
  std::vector<ir::DefinedVar> defined = ir::defined_vars(main);
  // A local function's parameters and bindings come before the variable it is bound to.
  CHECK(names(defined) == Names{"x", "y", "z", "w", "v", "inner", "i", "u", "loop", "r"});
  REQUIRE(defined.size() == 10);
  CHECK(defined[0].function == main);
  CHECK(defined[0].binding == nullptr);
  CHECK(defined[1].binding != nullptr);
  CHECK(defined[1].function == nullptr);
  CHECK(defined[2].function == local_function(main, "inner"));
  SECTION("near miss: a nested scope does not define what it uses from outside") {
    CHECK(names(ir::defined_vars(local_function(main, "inner"))) == Names{"z", "w", "v"});
  }
}

TEST_CASE("walks: globals a function names and calls", "[walks]") {
  Lowered m(kGlobals);
  const ir::Function* main = m.function("main");
  CHECK(ir::global_names_in(main) == Names{"kernel", "helper", "other", "deep"});
  CHECK(ir::called_globals(main) == Names{"helper", "deep"});
  SECTION("near miss: a global passed to call_tir or bound as a value is named, not called") {
    Names called = ir::called_globals(main);
    CHECK(std::find(called.begin(), called.end(), "kernel") == called.end());
    CHECK(std::find(called.begin(), called.end(), "other") == called.end());
    CHECK(ir::called_globals(m.function("helper")).empty());
    CHECK(ir::global_names_in(m.function("helper")).empty());
  }
}

TEST_CASE("walks: the Visitor's options and hooks", "[walks]") {
  struct Counter : ir::Visitor {
    using Visitor::Visitor;
    int exprs = 0, sinfos = 0, prims = 0, functions = 0, bindings = 0, after = 0, stmts = 0,
        buffers = 0;
    bool skip_functions = false;
    void on_expr(const ir::Expr* e) override {
      ++exprs;
      if (skip_functions && ir::isa<ir::Function>(e) && exprs > 1) skip_children();
    }
    void on_struct_info(const ir::StructInfo*) override { ++sinfos; }
    void on_prim_expr(const ir::PrimExpr*) override { ++prims; }
    void on_function(const ir::Function&) override { ++functions; }
    void on_binding(const ir::Binding&) override { ++bindings; }
    void after_binding(const ir::Binding&) override { ++after; }
    void on_stmt(const ir::Stmt*) override { ++stmts; }
    void on_buffer(const ir::Buffer&) override { ++buffers; }
  };
  Lowered m(kClosures);
  const ir::Function* main = m.function("main");

  SECTION("by default: Relax code only, nested functions included") {
    Counter c;
    c.visit(main);
    CHECK(c.functions == 3);
    CHECK(c.bindings == 7);
    CHECK(c.after == 7);
    CHECK(c.sinfos == 0);
    CHECK(c.prims == 0);
  }
  SECTION("annotations and PrimExprs when asked") {
    Counter c(ir::WalkOptions{.annotations = true, .prim_exprs = true});
    c.visit(main);
    CHECK(c.sinfos > 0);
    CHECK(c.prims > 0);
  }
  SECTION("skip_children leaves a node's children unwalked") {
    Counter c;
    c.skip_functions = true;
    c.visit(main);
    CHECK(c.functions == 1);
    CHECK(c.bindings == 4);  // main's own: y, inner, loop, r
  }
  SECTION("TIR: statements always, buffers where declared, PrimExprs when asked") {
    Lowered k(kKernel);
    const ir::PrimFunc* f = k.prim_func("exp_norm");
    Counter plain;
    plain.visit(*f);
    CHECK(plain.stmts > 0);
    CHECK(plain.buffers == 2);  // the two match_buffers
    CHECK(plain.prims == 0);
    struct Vars : ir::Visitor {
      Vars() : Visitor(ir::WalkOptions{.prim_exprs = true}) {}
      std::vector<const ir::PrimVar*> vars;
      void on_prim_expr(const ir::PrimExpr* e) override {
        if (const auto* v = ir::dyn_cast<ir::PrimVar>(e))
          if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
      }
    } vars;
    vars.visit(*f);
    Names seen = names(vars.vars);
    for (const char* name : {"rows", "cols", "i", "j", "v_i", "v_j"})
      CHECK(std::find(seen.begin(), seen.end(), name) != seen.end());
  }
}

TEST_CASE("walks: the variables and buffers TIR statements refer to", "[walks]") {
  Lowered k(kKernel);
  const ir::PrimFunc* f = k.prim_func("exp_norm");
  ir::TirReferences refs = ir::tir_references({f->body});
  std::vector<std::string> buffers, vars;
  for (const ir::Buffer* b : refs.buffers) buffers.push_back(b->name);
  for (const ir::PrimVar* v : refs.vars) vars.push_back(v->name);
  std::sort(buffers.begin(), buffers.end());
  std::sort(vars.begin(), vars.end());
  CHECK(buffers == Names{"x", "y"});  // loaded and stored
  // The loop extents' and the block's variables; not the shape variables the loads do not name.
  CHECK(std::find(vars.begin(), vars.end(), "v_i") != vars.end());
  CHECK(std::find(vars.begin(), vars.end(), "rows") != vars.end());
  CHECK(ir::tir_references({}).buffers.empty());
}
