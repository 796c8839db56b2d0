// The canonical printer on hand-built IR: text-format.md Appendix B, the §3.1 module and the §6.8
// kernels, plus literal spelling, names, comments and the TIR dialects.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "frontend/ir/module.h"
#include "frontend/printer/printer.h"

namespace raxc::printer {
namespace {

using namespace ir;

const DataType i32 = DataType::Int(32), i64 = DataType::Int(64), f32 = DataType::Float(32),
               f16 = DataType::Float(16);

// Small constructors over one arena.
struct Build {
  Arena& a;
  const IntImm* i(int64_t v, DataType dt = i64) { return a.make<IntImm>(dt, v); }
  const PrimVar* var(const char* name, DataType dt = i64) { return a.make<PrimVar>(name, dt); }
  const PrimExpr* bin(PrimKind k, const PrimExpr* x, const PrimExpr* y) {
    bool cmp = k >= PrimKind::EQ && k <= PrimKind::GE;
    return a.make<PrimBinary>(k, cmp ? DataType::Bool() : x->dtype, x, y);
  }
  const ShapeExpr* shape(std::vector<const PrimExpr*> dims) { return a.make<ShapeExpr>(dims); }
  const TensorSInfo* tensor(std::vector<const PrimExpr*> dims, DataType dt = f32) {
    int ndim = int(dims.size());
    return a.make<TensorSInfo>(shape(dims), dt, nullptr, ndim);
  }
  const Var* rvar(const char* name, const StructInfo* ann, bool dataflow = false) {
    return a.make<Var>(dataflow, name, ann);
  }
  const Binding* bind(const Var* v, const Expr* value) { return a.make<Binding>(Binding{v, value, nullptr, {}}); }
  const BindingBlock* block(std::vector<const Binding*> bs, bool dataflow = false) {
    auto* b = a.make<BindingBlock>();
    b->is_dataflow = dataflow;
    b->bindings = std::move(bs);
    return b;
  }
  const Call* call(const char* op, std::vector<const Expr*> args, Attrs attrs = {},
                   std::vector<const StructInfo*> sinfo_args = {}) {
    return a.make<Call>(a.make<Op>(op), std::move(args), std::move(sinfo_args), std::move(attrs));
  }
  Buffer* buffer(const char* name, std::vector<const PrimExpr*> shape, DataType dt = f32) {
    auto* b = a.make<Buffer>();
    b->name = name;
    b->dtype = dt;
    b->shape = std::move(shape);
    return b;
  }
  const BufferLoad* load(const Buffer* b, std::vector<const PrimExpr*> idx) {
    return a.make<BufferLoad>(b->dtype, b, std::move(idx));
  }
  BufferRegion point(const Buffer* b, std::vector<const PrimExpr*> idx) {
    BufferRegion r;
    r.buffer = b;
    for (const PrimExpr* e : idx) r.region.push_back({e, i(1, e->dtype), {}});
    return r;
  }
};

std::string print(const IRModule& m, PrintOptions options = {}) { return print_module(m, options); }

TEST_CASE("printer: floats and strings are spelled as TVM does", "[printer]") {
  CHECK(format_float(0.0) == "0.0");
  CHECK(format_float(-1.0) == "-1.0");
  CHECK(format_float(0.5) == "0.5");
  CHECK(format_float(1e-05) == "1.0000000000000001e-05");
  CHECK(format_float(0.1) == "0.10000000000000001");
  CHECK(format_float(-3.4028234663852886e+38) == "-340282346638528859811704183484516925440.0");
  CHECK(format_float(1.0 / 0.0) == "\"inf\"");
  CHECK(format_float(-1.0 / 0.0) == "\"-inf\"");
  CHECK(quote_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quote_string("x\ny\t\x01\xc3\xa9") == "\"x\\ny\\t\\x01\\xC3\\xA9\"");
}

// text-format.md Appendix B.
IRModule appendix_b() {
  IRModule m;
  Build b{*m.arena};
  const PrimVar* n = b.var("b");
  const Var* x = b.rvar("x", b.tensor({n, b.i(8)}));
  const Var* w = b.rvar("w", b.tensor({b.i(8), b.i(4)}));
  const Var* use_bias = b.rvar("use_bias", b.tensor({}, DataType::Bool()));
  const StructInfo* out = b.tensor({n, b.i(4)});
  const StructInfo* shape_out =
      m.arena->make<ShapeSInfo>(std::vector<const PrimExpr*>{n, b.i(4)}, 2);
  const Var* h = b.rvar("h", out);
  Attrs matmul_attrs;
  matmul_attrs.entries.push_back({"out_dtype", AttrValue(std::string("void"))});
  const BindingBlock* dataflow =
      b.block({b.bind(h, b.call("relax.matmul", {x, w}, matmul_attrs))}, true);
  float one_value = 1.0f;
  std::vector<uint8_t> one_bytes(4);
  std::memcpy(one_bytes.data(), &one_value, 4);
  const Var* one = b.rvar("one", b.tensor({}));
  const Var* r_then = b.rvar("r_then", out);
  auto* one_const = m.arena->make<Constant>(f32, std::vector<int64_t>{}, one_bytes, std::nullopt);
  const SeqExpr* then_branch = m.arena->make<SeqExpr>(
      std::vector<const BindingBlock*>{
          b.block({b.bind(one, one_const), b.bind(r_then, b.call("relax.add", {h, one}))})},
      r_then);
  const SeqExpr* else_branch = m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{}, h);
  const Var* r = b.rvar("r", out);
  const Var* s = b.rvar("s", shape_out);
  const Var* gv = b.rvar("gv", m.arena->make<TupleSInfo>(std::vector<const StructInfo*>{out, shape_out}));
  const BindingBlock* tail = b.block({
      b.bind(r, m.arena->make<If>(use_bias, then_branch, else_branch)),
      b.bind(s, b.call("relax.shape_of", {r})),
      b.bind(gv, m.arena->make<Tuple>(std::vector<const Expr*>{r, s})),
  });
  Attrs attrs;
  attrs.entries.push_back({"num_input", AttrValue(int64_t(2))});
  const Function* f = m.arena->make<Function>(
      std::vector<const Var*>{x, w, use_bias},
      m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{dataflow, tail}, gv),
      m.arena->make<TupleSInfo>(std::vector<const StructInfo*>{out, shape_out}), true, false,
      attrs);
  m.globals.push_back({m.arena->make<GlobalVar>("head"), f, nullptr, {}});
  return m;
}

TEST_CASE("printer: Appendix B reprints exactly", "[printer]") {
  IRModule m = appendix_b();
  CHECK(print(m) == R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def head(x: R.Tensor(("b", 8), dtype="float32"), w: R.Tensor((8, 4), dtype="float32"), use_bias: R.Tensor((), dtype="bool")) -> R.Tuple(R.Tensor(("b", 4), dtype="float32"), R.Shape(["b", 4])):
        b = T.int64()
        R.func_attr({"num_input": 2})
        with R.dataflow():
            h: R.Tensor((b, 4), dtype="float32") = R.matmul(x, w, out_dtype="void")
            R.output(h)
        if use_bias:
            one: R.Tensor((), dtype="float32") = R.const(1.0, "float32")
            r_then: R.Tensor((b, 4), dtype="float32") = R.add(h, one)
            r: R.Tensor((b, 4), dtype="float32") = r_then
        else:
            r: R.Tensor((b, 4), dtype="float32") = h
        s: R.Shape([b, 4]) = R.shape_of(r)
        gv: R.Tuple(R.Tensor((b, 4), dtype="float32"), R.Shape([b, 4])) = r, s
        return gv
)");
}

// text-format.md §3.1: a PrimFunc and a Relax function calling it.
IRModule section_3_1() {
  IRModule m;
  Build b{*m.arena};
  Buffer* a = b.buffer("a", {b.i(8)});
  Buffer* out = b.buffer("b", {b.i(8)});
  const PrimVar* a_handle = b.var("a", DataType::Handle());
  const PrimVar* b_handle = b.var("b", DataType::Handle());
  const PrimVar* i = b.var("i");
  const PrimVar* v_i = b.var("v_i");
  auto* inner = m.arena->make<Block>("double");
  inner->iter_vars.push_back({v_i, {b.i(0), b.i(8), {}}, IterType::DataPar, i, {}});
  inner->reads = std::vector<BufferRegion>{b.point(a, {v_i})};
  inner->writes = std::vector<BufferRegion>{b.point(out, {v_i})};
  inner->body = m.arena->make<BufferStore>(
      out, b.bin(PrimKind::Add, b.load(a, {v_i}), b.load(a, {v_i})),
      std::vector<const PrimExpr*>{v_i});
  auto* loop = m.arena->make<For>(i, b.i(0), b.i(8), ForKind::Serial, "", Attrs{}, nullptr, inner);
  auto* root = m.arena->make<Block>("root");
  root->is_root = true;
  root->body = loop;
  auto* pf = m.arena->make<PrimFunc>();
  pf->params = {{a_handle, a, {}}, {b_handle, out, {}}};
  pf->buffer_map = {{a_handle, a}, {b_handle, out}};
  pf->attrs.entries.push_back({"tir.noalias", AttrValue(true)});
  pf->is_private = true;
  pf->body = root;
  m.globals.push_back({m.arena->make<GlobalVar>("double"), pf, nullptr, {}});

  const StructInfo* t8 = b.tensor({b.i(8)});
  const Var* x = b.rvar("x", t8);
  const Var* y = b.rvar("y", nullptr, true);
  const Var* z = b.rvar("z", t8);
  const Call* call_tir = b.call(
      "relax.call_tir", {m.arena->make<GlobalVar>("double"), m.arena->make<Tuple>(std::vector<const Expr*>{x})},
      {}, {t8});
  const BindingBlock* df = b.block({b.bind(y, call_tir), b.bind(z, b.call("relax.nn.relu", {y}))}, true);
  const Function* main = m.arena->make<Function>(
      std::vector<const Var*>{x}, m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{df}, z), t8,
      true, false, Attrs{});
  m.globals.push_back({m.arena->make<GlobalVar>("main"), main, nullptr, {}});
  return m;
}

TEST_CASE("printer: §3.1 module with a PrimFunc and call_tir", "[printer]") {
  IRModule m = section_3_1();
  const std::string expected = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(a: T.Buffer((T.int64(8),), "float32"), b: T.Buffer((T.int64(8),), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        for i in range(T.int64(8)):
            with T.block("double"):
                v_i = T.axis.spatial(T.int64(8), i)
                T.reads(a[v_i])
                T.writes(b[v_i])
                b[v_i] = a[v_i] + a[v_i]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((8,), dtype="float32"))
            z: R.Tensor((8,), dtype="float32") = R.nn.relu(y)
            R.output(z)
        return z
)";
  CHECK(print(m) == expected);

  PrintOptions b_dialect;
  b_dialect.tir = PrintOptions::TirDialect::ClassicB;
  std::string b_text = print(m, b_dialect);
  CHECK(b_text.find("# from tvm.script import tirx as T") != std::string::npos);
  CHECK(b_text.find("# with T.sblock(\"root\"):") != std::string::npos);
  CHECK(b_text.find("with T.sblock(\"double\"):") != std::string::npos);
}

// §6.8 (c): symbolic shapes, handles with match_buffer, root allocations, grids and remaps.
TEST_CASE("printer: §6.8 symbolic multi-stage kernel", "[printer]") {
  IRModule m;
  Build b{*m.arena};
  m.top_level = TopLevel::PrimFunc;
  const PrimVar* rows = b.var("rows");
  const PrimVar* cols = b.var("cols");
  const PrimVar* var_x = b.var("var_x", DataType::Handle());
  const PrimVar* var_y = b.var("var_y", DataType::Handle());
  Buffer* x = b.buffer("x", {rows, cols});
  Buffer* y = b.buffer("y", {rows, cols});
  Buffer* e = b.buffer("e", {rows, cols});
  Buffer* total = b.buffer("total", {rows});
  auto stage = [&](const char* name, const char* kinds, auto make_body) {
    const PrimVar* i = b.var("i");
    const PrimVar* j = b.var("j");
    const PrimVar* v_i = b.var("v_i");
    const PrimVar* v_j = b.var("v_j");
    auto* blk = m.arena->make<Block>(name);
    blk->iter_vars.push_back({v_i, {b.i(0), rows, {}}, IterType::DataPar, i, {}});
    blk->iter_vars.push_back(
        {v_j, {b.i(0), cols, {}}, kinds[1] == 'R' ? IterType::Reduce : IterType::DataPar, j, {}});
    make_body(blk, v_i, v_j);
    auto* inner = m.arena->make<For>(j, b.i(0), cols, ForKind::Serial, "", Attrs{}, nullptr, blk);
    return m.arena->make<For>(i, b.i(0), rows, ForKind::Serial, "", Attrs{}, nullptr, inner);
  };
  const Stmt* exp_stage = stage("exp", "SS", [&](Block* blk, auto v_i, auto v_j) {
    blk->reads = std::vector<BufferRegion>{b.point(x, {v_i, v_j})};
    blk->writes = std::vector<BufferRegion>{b.point(e, {v_i, v_j})};
    blk->body = m.arena->make<BufferStore>(
        e, m.arena->make<PrimCall>(f32, "tir.exp", std::vector<const PrimExpr*>{b.load(x, {v_i, v_j})}),
        std::vector<const PrimExpr*>{v_i, v_j});
  });
  const Stmt* total_stage = stage("total", "SR", [&](Block* blk, auto v_i, auto v_j) {
    blk->reads = std::vector<BufferRegion>{b.point(e, {v_i, v_j})};
    blk->writes = std::vector<BufferRegion>{b.point(total, {v_i})};
    blk->init = m.arena->make<BufferStore>(total, m.arena->make<FloatImm>(f32, 0.0),
                                           std::vector<const PrimExpr*>{v_i});
    blk->body = m.arena->make<BufferStore>(
        total, b.bin(PrimKind::Add, b.load(total, {v_i}), b.load(e, {v_i, v_j})),
        std::vector<const PrimExpr*>{v_i});
  });
  auto* root = m.arena->make<Block>("root");
  root->is_root = true;
  root->alloc_buffers = {e, total};
  root->body = m.arena->make<SeqStmt>(std::vector<const Stmt*>{exp_stage, total_stage});
  auto* pf = m.arena->make<PrimFunc>();
  pf->params = {{var_x, nullptr, {}}, {var_y, nullptr, {}}};
  pf->buffer_map = {{var_x, x}, {var_y, y}};
  pf->attrs.entries.push_back({"tir.noalias", AttrValue(true)});
  pf->is_private = false;
  pf->body = root;
  m.globals.push_back({m.arena->make<GlobalVar>("exp_norm"), pf, nullptr, {}});
  CHECK(print(m) == R"(# from tvm.script import tir as T

@T.prim_func
def exp_norm(var_x: T.handle, var_y: T.handle):
    T.func_attr({"tir.noalias": True})
    rows, cols = T.int64(), T.int64()
    x = T.match_buffer(var_x, (rows, cols))
    y = T.match_buffer(var_y, (rows, cols))
    # with T.block("root"):
    e = T.alloc_buffer((rows, cols))
    total = T.alloc_buffer((rows,))
    for i, j in T.grid(rows, cols):
        with T.block("exp"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(x[v_i, v_j])
            T.writes(e[v_i, v_j])
            e[v_i, v_j] = T.exp(x[v_i, v_j])
    for i, j in T.grid(rows, cols):
        with T.block("total"):
            v_i, v_j = T.axis.remap("SR", [i, j])
            T.reads(e[v_i, v_j])
            T.writes(total[v_i])
            with T.init():
                total[v_i] = T.float32(0.0)
            total[v_i] = total[v_i] + e[v_i, v_j]
)");
}

TEST_CASE("printer: names are unique in scope and avoid the prefixes", "[printer]") {
  IRModule m;
  Build b{*m.arena};
  m.top_level = TopLevel::Function;
  const StructInfo* t = b.tensor({b.i(2)});
  const Var* x = b.rvar("R", t);
  const Var* y1 = b.rvar("y", t);
  const Var* y2 = b.rvar("y", t);
  const Var* anon = b.rvar("", t);
  const BindingBlock* blk = b.block({b.bind(y1, b.call("relax.add", {x, x})),
                                     b.bind(y2, b.call("relax.add", {y1, y1})),
                                     b.bind(anon, b.call("relax.add", {y2, y2}))});
  const Function* f = m.arena->make<Function>(
      std::vector<const Var*>{x}, m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{blk}, anon),
      t, true, false, Attrs{});
  m.globals.push_back({m.arena->make<GlobalVar>("f"), f, nullptr, {}});
  CHECK(print(m) == R"(# from tvm.script import relax as R

@R.function
def f(R_1: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    y: R.Tensor((2,), dtype="float32") = R.add(R_1, R_1)
    y_1: R.Tensor((2,), dtype="float32") = R.add(y, y)
    v: R.Tensor((2,), dtype="float32") = R.add(y_1, y_1)
    return v
)");
}

TEST_CASE("printer: constants, prim values, void calls and packed calls", "[printer]") {
  IRModule m;
  Build b{*m.arena};
  m.top_level = TopLevel::Function;
  const StructInfo* t = b.tensor({b.i(2)}, i32);
  int32_t data[2] = {1, -2};
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), data, 8);
  const Var* c = b.rvar("c", nullptr);
  const Var* p = b.rvar("p", nullptr);
  const Var* unit = b.rvar("_", nullptr);
  const Var* packed = b.rvar("q", nullptr);
  auto* constant = m.arena->make<Constant>(i32, std::vector<int64_t>{2}, bytes, std::nullopt);
  auto* meta = m.arena->make<Constant>(f32, std::vector<int64_t>{3}, std::vector<uint8_t>{},
                                       Constant::MetadataRef{"relax.expr.Constant", 1});
  const Var* mvar = b.rvar("m", nullptr);
  const BindingBlock* blk = b.block({
      b.bind(c, constant),
      b.bind(p, m.arena->make<PrimValue>(m.arena->make<FloatImm>(f32, 0.5))),
      b.bind(unit, b.call("relax.print", {m.arena->make<StringImm>("x={}"), c})),
      b.bind(packed, m.arena->make<Call>(m.arena->make<ExternFunc>("my.fn", nullptr),
                                         std::vector<const Expr*>{c, m.arena->make<PrimValue>(b.i(3))},
                                         std::vector<const StructInfo*>{t}, Attrs{})),
      b.bind(mvar, meta),
  });
  const Function* f = m.arena->make<Function>(
      std::vector<const Var*>{}, m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{blk}, c),
      t, false, true, Attrs{});
  m.globals.push_back({m.arena->make<GlobalVar>("f"), f, nullptr, {}});
  CHECK(print(m) == R"(# from tvm.script import tir as T
# from tvm.script import relax as R

@R.function(pure=False, private=True)
def main() -> R.Tensor((2,), dtype="int32"):
    c = R.const([1, -2], "int32")
    p = R.prim_value(T.float32(0.5))
    R.print(c, format=R.str("x={}"))
    q = R.call_packed("my.fn", c, R.prim_value(3), sinfo_args=(R.Tensor((2,), dtype="int32"),))
    m = metadata["relax.expr.Constant"][1]
    return c

# Metadata omitted. Use show_meta=True in script() method to show it.
)");
}

TEST_CASE("printer: comments are kept and generated ones dropped", "[printer]") {
  std::string source =
      "# from tvm.script import relax as R\n"
      "# a file comment\n"
      "@R.function\n"
      "def f(x: R.Tensor((2,), \"float32\")):\n"
      "    # before y\n"
      "    y = R.add(x, x)  # trailing y\n"
      "    return y\n"
      "# the end\n";
  IRModule m;
  Build b{*m.arena};
  m.top_level = TopLevel::Function;
  const StructInfo* t = b.tensor({b.i(2)});
  const Var* x = b.rvar("x", t);
  const Var* y = b.rvar("y", nullptr);
  auto* binding = m.arena->make<Binding>(Binding{y, b.call("relax.add", {x, x}), nullptr, {}});
  binding->span = {uint32_t(source.find("y = ")), uint32_t(source.find("  # trailing"))};
  const Function* f = m.arena->make<Function>(
      std::vector<const Var*>{x},
      m.arena->make<SeqExpr>(std::vector<const BindingBlock*>{b.block({binding})}, y), nullptr,
      true, false, Attrs{});
  GlobalDef g{m.arena->make<GlobalVar>("f"), f, nullptr, {}};
  g.span = {uint32_t(source.find("@R.function")), uint32_t(source.find("# the end"))};
  m.globals.push_back(g);
  std::vector<Comment> comments;
  for (size_t at = source.find('#'); at != std::string::npos; at = source.find('#', at + 1)) {
    size_t end = source.find('\n', at);
    comments.push_back({{uint32_t(at), uint32_t(end)}, source.substr(at, end - at)});
  }
  CHECK(print_module(m, {}, comments, source) == R"(# from tvm.script import relax as R

# a file comment
@R.function
def f(x: R.Tensor((2,), dtype="float32")):
    # before y
    y = R.add(x, x)  # trailing y
    return y

# the end
)");
}

TEST_CASE("printer: PrimExpr precedence and TIR literals", "[printer]") {
  IRModule m;
  Build b{*m.arena};
  m.top_level = TopLevel::PrimFunc;
  const PrimVar* n = b.var("n", i32);
  const PrimVar* k = b.var("k", i64);
  Buffer* a = b.buffer("A", {b.i(4)}, f16);
  const PrimExpr* sum = b.bin(PrimKind::Add, n, b.i(1, i32));
  const PrimExpr* prod = b.bin(PrimKind::Mul, sum, b.bin(PrimKind::Sub, n, b.i(2, i32)));
  const PrimExpr* nested_sub = b.bin(PrimKind::Sub, n, b.bin(PrimKind::Sub, n, b.i(2, i32)));
  const PrimExpr* div = b.bin(PrimKind::Div, n, b.i(3, i32));
  const PrimExpr* folded = b.bin(PrimKind::Add, b.i(1, i32), b.i(2, i32));
  const PrimExpr* cond = b.bin(PrimKind::And, b.bin(PrimKind::LT, n, b.i(4, i32)),
                               m.arena->make<PrimNot>(b.bin(PrimKind::EQ, k, b.i(0))));
  std::vector<const Stmt*> stmts{
      m.arena->make<Evaluate>(prod),
      m.arena->make<Evaluate>(nested_sub),
      m.arena->make<Evaluate>(div),
      m.arena->make<Evaluate>(folded),
      m.arena->make<Evaluate>(cond),
      m.arena->make<BufferStore>(a, m.arena->make<FloatImm>(f16, -65504.0),
                                 std::vector<const PrimExpr*>{b.i(0)}),
      m.arena->make<BufferStore>(a, m.arena->make<FloatImm>(f16, 1.0 / 0.0),
                                 std::vector<const PrimExpr*>{b.i(1)}),
  };
  auto* pf = m.arena->make<PrimFunc>();
  pf->params = {{n, nullptr, {}}, {k, nullptr, {}}, {b.var("A", DataType::Handle()), a, {}}};
  pf->buffer_map = {{pf->params[2].var, a}};
  pf->body = m.arena->make<SeqStmt>(stmts);
  m.globals.push_back({m.arena->make<GlobalVar>("f"), pf, nullptr, {}});
  CHECK(print(m) == R"(# from tvm.script import tir as T

@T.prim_func
def f(n: T.int32, k: T.int64, A: T.Buffer((T.int64(4),), "float16")):
    T.evaluate((n + 1) * (n - 2))
    T.evaluate(n - (n - 2))
    T.evaluate(T.Div(n, 3))
    T.evaluate(T.Add(1, 2))
    T.evaluate(n < 4 and not k == T.int64(0))
    A[T.int64(0)] = T.float16(-65504.0)
    A[T.int64(1)] = T.float16("inf")
)");
}

}  // namespace
}  // namespace raxc::printer
