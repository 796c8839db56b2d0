// PrimExpr lowering and Python literal decoding (text-format.md §2, §4.6, §6.4–6.6, §10.21).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/lower/context.h"
#include "frontend/lower/literals.h"
#include "frontend/lower/prim.h"

namespace raxc::lower {
namespace {

using ir::DataType;
using ir::PrimKind;

// Parses `x = <expr>` and exposes the expression node plus a lowering context.
struct Fixture : PrimNames {
  std::string text;
  TSParser* parser = ts_parser_new();
  TSTree* tree = nullptr;
  std::unique_ptr<cst::Cst> cst;
  ir::IRModule module;
  DiagnosticSink diags;
  ir::Arena arena;
  std::unique_ptr<LowerContext> ctx;
  std::map<std::string, const ir::PrimVar*, std::less<>> vars;
  std::map<std::string, ir::Buffer*, std::less<>> buffers;

  explicit Fixture(std::string source) : text(std::move(source)) {
    ts_parser_set_language(parser, tree_sitter_relax());
    tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
    cst = std::make_unique<cst::Cst>(text);
    ctx = std::make_unique<LowerContext>(LowerContext{*cst, diags, module, Namespaces(), &arena});
    add_var("n", DataType::Int(64));
    add_var("m64", DataType::Int(64));
    add_var("i", DataType::Int(32));
    add_var("j", DataType::Int(32));
    add_var("f", DataType::Float(16));
    add_var("g", DataType::Float(32));
    add_var("c", DataType::Bool());
    add_buffer("A", DataType::Float(32), 2);
    add_buffer("S", DataType::Float(32), 0);
  }
  ~Fixture() override {
    ts_tree_delete(tree);
    ts_parser_delete(parser);
  }
  void add_var(const std::string& name, DataType dt) {
    vars[name] = arena.make<ir::PrimVar>(name, dt);
  }
  void add_buffer(const std::string& name, DataType dt, int ndim) {
    auto* b = arena.make<ir::Buffer>();
    b->name = name;
    b->dtype = dt;
    for (int d = 0; d < ndim; ++d) b->shape.push_back(arena.make<ir::IntImm>(DataType::Int(32), 4));
    buffers[name] = b;
  }
  const ir::PrimVar* find_var(std::string_view name) const override {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second;
  }
  const ir::Buffer* find_buffer(std::string_view name) const override {
    auto it = buffers.find(name);
    return it == buffers.end() ? nullptr : it->second;
  }
  // The right-hand side of the first statement.
  TSNode rhs() const {
    TSNode root = ts_tree_root_node(tree);
    TSNode stmt = cst->named_children(root).at(0);
    return cst->field(stmt, cst::Field::right);
  }
  const ir::PrimExpr* lower(IntMode mode = IntMode::Int32) {
    return lower_prim_expr(*ctx, rhs(), *this, mode);
  }
  std::string codes() const {
    std::string out;
    for (const Diagnostic& d : diags.diagnostics()) out += std::string(code(d.id)) + " ";
    return out;
  }
};

const ir::PrimExpr* lower(Fixture& fx, IntMode mode = IntMode::Int32) { return fx.lower(mode); }

template <class T>
const T* as(const ir::PrimExpr* e) {
  REQUIRE(e != nullptr);
  const T* t = ir::dyn_cast<T>(e);
  REQUIRE(t != nullptr);
  return t;
}

const ir::PrimBinary* binary(const ir::PrimExpr* e, PrimKind kind) {
  const auto* b = as<ir::PrimBinary>(e);
  CHECK(b->kind == kind);
  return b;
}

int64_t int_value(const ir::PrimExpr* e, DataType dt) {
  const auto* imm = as<ir::IntImm>(e);
  CHECK(imm->dtype == dt);
  return imm->value;
}

const DataType i32 = DataType::Int(32), i64 = DataType::Int(64), f16 = DataType::Float(16),
               f32 = DataType::Float(32);

// ------------------------------------------------------------------ literals

std::string decode(const std::string& literal) {
  Fixture fx("x = " + literal + "\n");
  std::string error;
  auto s = decode_string(*fx.cst, fx.rhs(), &error);
  return s ? *s : "<error: " + error + ">";
}

TEST_CASE("string literals decode escapes, prefixes and concatenation", "[lower][literals]") {
  CHECK(decode(R"("abc")") == "abc");
  CHECK(decode(R"('single')") == "single");
  CHECK(decode(R"("a\"b\'c\\d")") == "a\"b'c\\d");
  CHECK(decode(R"("tab\there\nnl\r")") == "tab\there\nnl\r");
  // \xHH are bytes: the printer escapes each byte of a UTF-8 sequence.
  CHECK(decode(R"("\xc3\xa9t\xc3\xa9")") == "\xc3\xa9t\xc3\xa9");
  CHECK(decode(R"("\u00e9")") == "\xc3\xa9");
  CHECK(decode(R"("\101")") == "A");
  CHECK(decode("\"\"\"multi\nline \\\"q\\\"\"\"\"") == "multi\nline \"q\"");
  CHECK(decode(R"(r"raw\n")") == "raw\\n");
  CHECK(decode(R"(b"bytes\x41")") == "bytesA");
  CHECK(decode(R"("con" "cat" 'ed')") == "concated");
  CHECK(decode(R"("")") == "");
  CHECK(decode(R"("unknown \q kept")") == "unknown \\q kept");
  CHECK(decode(R"("\x4")").rfind("<error", 0) == 0);
}

TEST_CASE("integer literals: bases, separators, overflow", "[lower][literals]") {
  auto v = [](std::string_view t) { return parse_int_literal(t); };
  CHECK(v("0")->magnitude == 0);
  CHECK(v("128")->magnitude == 128);
  CHECK(v("0x1F")->magnitude == 31);
  CHECK(v("0XfF")->magnitude == 255);
  CHECK(v("0o17")->magnitude == 15);
  CHECK(v("0b1010")->magnitude == 10);
  CHECK(v("1_000_000")->magnitude == 1000000);
  CHECK(v("0x_ff")->magnitude == 255);
  CHECK(v("000")->magnitude == 0);
  CHECK(v("18446744073709551615")->magnitude == UINT64_MAX);
  CHECK_FALSE(v("18446744073709551615")->overflow);
  CHECK(v("18446744073709551616")->overflow);
  CHECK(v("99999999999999999999999")->overflow);
  CHECK_FALSE(v("0123"));
  CHECK_FALSE(v("1__0"));
  CHECK_FALSE(v("10_"));
  CHECK_FALSE(v("0x"));
  CHECK_FALSE(v("0b102"));
}

TEST_CASE("float literals: exponent, leading/trailing dot, huge fixed point", "[lower][literals]") {
  auto v = [](std::string_view t) { return parse_float_literal(t); };
  CHECK(*v("1.0") == 1.0);
  CHECK(*v("0.5") == 0.5);
  CHECK(*v("1e-05") == 1e-05);
  CHECK(*v("2.5e+38") == 2.5e+38);
  CHECK(*v(".5") == 0.5);
  CHECK(*v("3.") == 3.0);
  CHECK(*v("1_000.5") == 1000.5);
  CHECK(*v("1.0000000000000001e-05") == 1.0000000000000001e-05);
  CHECK(*v("340282346638528859811704183484516925440.0") == double(3.4028234663852886e+38));
  CHECK(float(*v("340282346638528859811704183484516925440.0")) ==
        std::numeric_limits<float>::max());
  CHECK(std::isinf(*v("1e999")));
  CHECK_FALSE(v("inf"));
  CHECK_FALSE(v("nan"));
  CHECK_FALSE(v("0x1p3"));
  CHECK_FALSE(v("1e"));
}

// ------------------------------------------------------------------ §10.21 dtype rules

TEST_CASE("int literals adopt the other operand's dtype", "[lower][prim]") {
  Fixture a("x = i + 1\n");
  auto* add = binary(lower(a), PrimKind::Add);
  CHECK(add->dtype == i32);
  CHECK(int_value(add->b, i32) == 1);

  Fixture b("x = n + 1\n");
  add = binary(lower(b), PrimKind::Add);
  CHECK(add->dtype == i64);
  CHECK(int_value(add->b, i64) == 1);

  Fixture c("x = 2 * n\n");
  auto* mul = binary(lower(c), PrimKind::Mul);
  CHECK(int_value(mul->a, i64) == 2);

  Fixture d("x = f + 1\n");  // int literal with a float16 operand → float16 FloatImm
  add = binary(lower(d), PrimKind::Add);
  CHECK(add->dtype == f16);
  CHECK(as<ir::FloatImm>(add->b)->dtype == f16);
}

TEST_CASE("float literals adopt a float operand, else float32", "[lower][prim]") {
  Fixture a("x = f * 0.5\n");
  auto* mul = binary(lower(a), PrimKind::Mul);
  CHECK(mul->dtype == f16);
  CHECK(as<ir::FloatImm>(mul->b)->dtype == f16);

  Fixture b("x = i + 0.5\n");  // int32 with a float literal: float32, the int side is cast
  auto* add = binary(lower(b), PrimKind::Add);
  CHECK(add->dtype == f32);
  CHECK(as<ir::PrimCast>(add->a)->dtype == f32);
  CHECK(as<ir::FloatImm>(add->b)->dtype == f32);

  Fixture c("x = 0.25\n");
  CHECK(as<ir::FloatImm>(lower(c))->dtype == f32);
}

TEST_CASE("mixed integer widths widen; int and float cast the int", "[lower][prim]") {
  Fixture a("x = n * i\n");
  auto* mul = binary(lower(a), PrimKind::Mul);
  CHECK(mul->dtype == i64);
  CHECK(as<ir::PrimCast>(mul->b)->dtype == i64);

  Fixture b("x = g + f\n");
  auto* add = binary(lower(b), PrimKind::Add);
  CHECK(add->dtype == f32);
  CHECK(as<ir::PrimCast>(add->b)->dtype == f32);
}

TEST_CASE("bare integers: int32 in TIR, int64 in Relax; literal subexpressions fold",
          "[lower][prim]") {
  Fixture a("x = 4\n");
  CHECK(int_value(lower(a, IntMode::Int32), i32) == 4);
  Fixture b("x = 4\n");
  CHECK(int_value(lower(b, IntMode::Int64), i64) == 4);
  Fixture c("x = 3000000000\n");  // beyond int32: int64 as TVM's convert does
  CHECK(int_value(lower(c), i64) == 3000000000);
  Fixture d("x = (2 * 3 + 1) // 2 - -5 % 3\n");  // Python: 3 - 1 = 2
  CHECK(int_value(lower(d), i32) == 2);
  Fixture e("x = -5\n");
  CHECK(int_value(lower(e), i32) == -5);
  Fixture f("x = (2 + 1) * n\n");
  auto* mul = binary(lower(f), PrimKind::Mul);
  CHECK(int_value(mul->a, i64) == 3);
  Fixture g("x = 7 / 2\n");
  CHECK(as<ir::FloatImm>(lower(g))->value == 3.5);
}

TEST_CASE("operators map to PrimExpr nodes", "[lower][prim]") {
  struct Case {
    const char* src;
    PrimKind kind;
  };
  for (Case k :
       {Case{"n - 1", PrimKind::Sub}, Case{"n // 2", PrimKind::FloorDiv},
        Case{"n % 2", PrimKind::FloorMod}, Case{"n / 2", PrimKind::Div},
        Case{"n < 2", PrimKind::LT}, Case{"n <= 2", PrimKind::LE}, Case{"n > 2", PrimKind::GT},
        Case{"n >= 2", PrimKind::GE}, Case{"n == 2", PrimKind::EQ}, Case{"n != 2", PrimKind::NE},
        Case{"n < 2 and i > 1", PrimKind::And}, Case{"c or n < 1", PrimKind::Or},
        Case{"T.min(n, 1)", PrimKind::Min}, Case{"T.max(1, n)", PrimKind::Max},
        Case{"T.floordiv(n, 2)", PrimKind::FloorDiv}, Case{"T.floormod(n, 2)", PrimKind::FloorMod},
        Case{"T.truncdiv(n, 2)", PrimKind::Div}, Case{"T.truncmod(n, 2)", PrimKind::Mod},
        Case{"T.Div(n, 2)", PrimKind::Div}}) {
    INFO(k.src);
    Fixture fx(std::string("x = ") + k.src + "\n");
    const ir::PrimExpr* e = lower(fx);
    REQUIRE(e != nullptr);
    CHECK(e->kind == k.kind);
  }
  Fixture cmp("x = n < 2\n");
  CHECK(lower(cmp)->dtype == DataType::Bool());
  Fixture neg("x = -n\n");  // TVM's __neg__: multiply by -1 of the operand's dtype
  auto* mul = binary(lower(neg), PrimKind::Mul);
  CHECK(int_value(mul->b, i64) == -1);
  Fixture no("x = not c\n");
  CHECK(lower(no)->kind == PrimKind::Not);
  Fixture shl("x = i << 2\n");
  CHECK(as<ir::PrimCall>(lower(shl))->op == "tir.shift_left");
  Fixture ceil("x = T.ceildiv(n, 4)\n");
  auto* fd = binary(lower(ceil), PrimKind::FloorDiv);
  auto* sum = binary(fd->a, PrimKind::Add);
  CHECK(int_value(sum->b, i64) == 3);
}

TEST_CASE("typed literals and casts", "[lower][prim]") {
  Fixture a("x = T.int64(5)\n");
  CHECK(int_value(lower(a), i64) == 5);
  Fixture b("x = T.float32(-340282346638528859811704183484516925440.0)\n");
  CHECK(float(as<ir::FloatImm>(lower(b))->value) == std::numeric_limits<float>::lowest());
  Fixture c("x = T.float32(\"inf\")\n");
  CHECK(std::isinf(as<ir::FloatImm>(lower(c))->value));
  Fixture d("x = T.float16(\"-inf\")\n");
  auto* ninf = as<ir::FloatImm>(lower(d));
  CHECK((std::isinf(ninf->value) && ninf->value < 0));
  CHECK(ninf->dtype == f16);
  Fixture e("x = T.float32(\"nan\")\n");
  CHECK(std::isnan(as<ir::FloatImm>(lower(e))->value));
  Fixture f("x = T.bool(True)\n");
  CHECK(int_value(lower(f), DataType::Bool()) == 1);
  Fixture g("x = T.int32(n)\n");
  CHECK(as<ir::PrimCast>(lower(g))->dtype == i32);
  Fixture h("x = T.Cast(\"float32\", i)\n");
  CHECK(as<ir::PrimCast>(lower(h))->dtype == f32);
  Fixture k("x = T.cast(i, \"float16\")\n");
  CHECK(as<ir::PrimCast>(lower(k))->dtype == f16);
  Fixture l("x = T.float32(0)\n");
  CHECK(as<ir::FloatImm>(lower(l))->dtype == f32);
  Fixture m("x = T.int64(-1)\n");
  CHECK(int_value(lower(m), i64) == -1);
  Fixture u("x = T.uint8(255)\n");
  CHECK(int_value(lower(u), DataType::UInt(8)) == 255);
}

TEST_CASE("intrinsics and buffer loads", "[lower][prim]") {
  Fixture a("x = T.exp(f)\n");
  auto* call = as<ir::PrimCall>(lower(a));
  CHECK(call->op == "tir.exp");
  CHECK(call->dtype == f16);
  Fixture b("x = T.isnan(g)\n");
  CHECK(lower(b)->dtype == DataType::Bool());
  Fixture c("x = T.pow(g, 2)\n");
  call = as<ir::PrimCall>(lower(c));
  CHECK(call->op == "tir.pow");
  CHECK(as<ir::FloatImm>(call->args[1])->dtype == f32);
  Fixture d("x = T.if_then_else(i < 3, f, 0)\n");
  call = as<ir::PrimCall>(lower(d));
  CHECK(call->op == "tir.if_then_else");
  CHECK(call->dtype == f16);
  Fixture e("x = T.Select(c, n, 0)\n");
  CHECK(as<ir::PrimSelect>(lower(e))->dtype == i64);
  Fixture f("x = T.abs(g)\n");
  CHECK(as<ir::PrimCall>(lower(f))->op == "tir.fabs");
  Fixture g("x = T.abs(n)\n");
  CHECK(lower(g)->kind == PrimKind::Select);
  Fixture h("x = T.max_value(\"float32\")\n");
  CHECK(float(as<ir::FloatImm>(lower(h))->value) == std::numeric_limits<float>::max());
  Fixture h2("x = T.min_value(\"int8\")\n");
  CHECK(int_value(lower(h2), DataType::Int(8)) == -128);
  Fixture inf("x = T.infinity(\"float16\")\n");
  CHECK(std::isinf(as<ir::FloatImm>(lower(inf))->value));
  Fixture k("x = T.call_extern(\"float32\", \"fn\", g, 1)\n");
  call = as<ir::PrimCall>(lower(k));
  CHECK(call->op == "tir.call_extern");
  CHECK(as<ir::PrimStringImm>(call->args[0])->value == "fn");
  CHECK(call->dtype == f32);
  Fixture r("x = T.reinterpret(\"int32\", g)\n");
  CHECK(as<ir::PrimCall>(lower(r))->op == "tir.reinterpret");
  Fixture l("x = A[i, n] + 1\n");
  auto* add = binary(lower(l), PrimKind::Add);
  CHECK(as<ir::BufferLoad>(add->a)->indices.size() == 2);
  CHECK(as<ir::FloatImm>(add->b)->dtype == f32);
  Fixture s("x = S[()]\n");
  CHECK(as<ir::BufferLoad>(lower(s))->indices.empty());
  Fixture likely("x = T.likely(i < 4)\n");
  CHECK(as<ir::PrimCall>(lower(likely))->op == "tir.likely");
  Fixture let("x = T.Let(q + 1, where={q: T.int64(2)})\n");
  auto* le = as<ir::PrimLet>(lower(let));
  CHECK(le->var->name == "q");
  CHECK(le->dtype == i64);
}

TEST_CASE("errors are coded diagnostics naming the culprit", "[lower][prim]") {
  struct Case {
    const char* src;
    const char* code;
    const char* fragment;
  };
  for (Case k :
       {Case{"undefined_dim + 1", "RX1302", "'undefined_dim'"}, Case{"n ** 2", "RX1307", "'**'"},
        Case{"i < j < n", "RX1308", "comparison chains"},
        Case{"T.int32(3000000000)", "RX1310", "int32"}, Case{"T.uint8(-1)", "RX1310", "uint8"},
        Case{"T.no_such_op(1)", "RX1304", "T.no_such_op"},
        Case{"T.Cast(\"float33\", i)", "RX1306", "float33"}, Case{"T.max(n)", "RX1305", "T.max"},
        Case{"T.float32(\"fast\")", "RX1315", "'fast'"},
        Case{"4 // 0", "RX1316", "division by zero"}, Case{"A + 1", "RX1312", "'A'"},
        Case{"A[i]", "RX1313", "'A' has 2 dimensions"}, Case{"n[0]", "RX1314", "'n'"},
        Case{"A[0:2, 1]", "RX1317", "slices"}, Case{"T.int64()", "RX1318", "declares"},
        Case{"(1, 2)", "RX1303", "a tuple"}, Case{"c and n", "RX1339", "int64"},
        Case{"\"s\" + n", "RX1309", "string"}}) {
    INFO(k.src);
    Fixture fx(std::string("x = ") + k.src + "\n");
    CHECK(lower(fx) == nullptr);
    REQUIRE(fx.diags.diagnostics().size() >= 1);
    CHECK(std::string(code(fx.diags.diagnostics()[0].id)) == k.code);
    CHECK(fx.diags.diagnostics()[0].message.find(k.fragment) != std::string::npos);
  }
}

TEST_CASE("names shadow the T prefix and diagnostics point at the name", "[lower][prim]") {
  Fixture fx("x = n + undefined_dim\n");
  CHECK(lower(fx) == nullptr);
  REQUIRE(fx.diags.diagnostics().size() == 1);
  Span sp = fx.diags.diagnostics()[0].span;
  CHECK(fx.text.substr(sp.begin, sp.end - sp.begin) == "undefined_dim");
}

TEST_CASE("lower_prim_string parses quoted signature dims with spans inside the string",
          "[lower][prim]") {
  Fixture fx("x = \"n * 2 + m64\"\n");
  const ir::PrimExpr* e = lower_prim_string(*fx.ctx, fx.rhs(), fx);
  auto* add = binary(e, PrimKind::Add);
  auto* mul = binary(add->a, PrimKind::Mul);
  CHECK(int_value(mul->b, i64) == 2);
  CHECK(fx.text.substr(mul->span.begin, mul->span.end - mul->span.begin) == "n * 2");
  // Variable references are the variables themselves (identity = address): the sum's span.
  CHECK(fx.text.substr(add->span.begin, add->span.end - add->span.begin) == "n * 2 + m64");

  Fixture lit("x = \"4\"\n");
  CHECK(int_value(lower_prim_string(*lit.ctx, lit.rhs(), lit), i64) == 4);

  Fixture bad("x = \"n +\"\n");
  CHECK(lower_prim_string(*bad.ctx, bad.rhs(), bad) == nullptr);
  CHECK(bad.codes() == "RX1311 ");

  Fixture undef("x = \"T.max(q, 1)\"\n");
  CHECK(lower_prim_string(*undef.ctx, undef.rhs(), undef) == nullptr);
  REQUIRE(undef.diags.diagnostics().size() == 1);
  Span sp = undef.diags.diagnostics()[0].span;
  CHECK(undef.text.substr(sp.begin, sp.end - sp.begin) == "q");
}

}  // namespace
}  // namespace raxc::lower
