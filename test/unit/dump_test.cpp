// The AST dump: complete, deterministic, and with `var_names = false` equal for modules that
// differ only in the names of local variables.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "frontend/ir/dump.h"

namespace raxc::ir {
namespace {

const DataType i64 = DataType::Int(64), f32 = DataType::Float(32);

// def f(x: R.Tensor((n, 2), "float32")) -> ...: y = R.add(x, R.const([1.5, -2], "float32"))
IRModule make_module(const char* x_name, const char* y_name, const char* n_name) {
  IRModule m;
  Arena& a = *m.arena;
  const PrimVar* n = a.make<PrimVar>(n_name, i64);
  const StructInfo* t = a.make<TensorSInfo>(
      a.make<ShapeExpr>(std::vector<const PrimExpr*>{n, a.make<IntImm>(i64, 2)}), f32, nullptr, 2);
  const Var* x = a.make<Var>(false, x_name, t);
  const Var* y = a.make<Var>(false, y_name, nullptr);
  float values[2] = {1.5f, -2.0f};
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), values, 8);
  auto* c = a.make<Constant>(f32, std::vector<int64_t>{2}, bytes, std::nullopt);
  Attrs attrs;
  attrs.entries.push_back({"axis", AttrValue(AttrValue::List{AttrValue(int64_t(1))})});
  auto* call = a.make<Call>(a.make<Op>("relax.add"), std::vector<const Expr*>{x, c},
                            std::vector<const StructInfo*>{}, attrs);
  auto* binding = a.make<Binding>(Binding{y, call, nullptr, {}});
  auto* block = a.make<BindingBlock>();
  block->bindings.push_back(binding);
  auto* f = a.make<Function>(std::vector<const Var*>{x},
                             a.make<SeqExpr>(std::vector<const BindingBlock*>{block}, y), t, true,
                             false, Attrs{});
  m.globals.push_back({a.make<GlobalVar>("f"), f, nullptr, {}});
  return m;
}

TEST_CASE("dump: every field, no pointers", "[dump]") {
  IRModule m = make_module("x", "y", "n");
  std::string text = dump_module(m);
  CHECK(text.find("(GlobalDef f") != std::string::npos);
  CHECK(text.find("(Var x") != std::string::npos);
  CHECK(text.find("(Var int64 n)") != std::string::npos);
  CHECK(text.find("data=[1.5 -2.0]") != std::string::npos);
  CHECK(text.find("(Op relax.add)") != std::string::npos);
  CHECK(text.find("(\"axis\" [1])") != std::string::npos);
  CHECK(text.find("0x") == std::string::npos);
  CHECK(dump_module(m) == text);  // deterministic
}

TEST_CASE("dump: anonymous variables make renamed modules equal", "[dump]") {
  IRModule a = make_module("x", "y", "n");
  IRModule b = make_module("input", "out", "batch");
  DumpOptions anonymous;
  anonymous.var_names = false;
  CHECK(dump_module(a) != dump_module(b));
  CHECK(dump_module(a, anonymous) == dump_module(b, anonymous));
  CHECK(dump_module(a, anonymous).find("%0") != std::string::npos);
}

TEST_CASE("dump: distinct variables with one name are told apart", "[dump]") {
  Arena a;
  const PrimVar* n1 = a.make<PrimVar>("n", i64);
  const PrimVar* n2 = a.make<PrimVar>("n", i64);
  const PrimExpr* sum = a.make<PrimBinary>(PrimKind::Add, i64, n1, n2);
  CHECK(dump_prim_expr(sum) == "(Add int64 (Var int64 n) (Var int64 n#1))\n");
  DumpOptions spans;
  spans.spans = true;
  const PrimExpr* lit = a.make<IntImm>(i64, 3, Span{4, 5});
  CHECK(dump_prim_expr(lit, spans) == "(IntImm @4:5 int64 3)\n");
}

}  // namespace
}  // namespace raxc::ir
