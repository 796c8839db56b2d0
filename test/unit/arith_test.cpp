// The symbolic shape prover: canonical form, compare, simplify, builders.
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "analysis/arith/analyzer.h"
#include "frontend/ir/prim_expr.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

using namespace raxc;
using analysis::arith::Analyzer;
using analysis::arith::Proof;
using ir::PrimExpr;
using ir::PrimKind;

namespace {

// Small expression builders over one arena.
struct Builder {
  ir::Arena arena;
  ir::DataType i64 = ir::DataType::Int(64);

  const ir::PrimVar* var(const char* name) { return arena.make<ir::PrimVar>(name, i64); }
  const PrimExpr* c(int64_t v) { return arena.make<ir::IntImm>(i64, v); }
  const PrimExpr* bin(PrimKind k, const PrimExpr* a, const PrimExpr* b) {
    ir::DataType dtype = k >= PrimKind::EQ && k <= PrimKind::Or ? ir::DataType::Bool() : a->dtype;
    return arena.make<ir::PrimBinary>(k, dtype, a, b);
  }
  const PrimExpr* add(const PrimExpr* a, const PrimExpr* b) { return bin(PrimKind::Add, a, b); }
  const PrimExpr* sub(const PrimExpr* a, const PrimExpr* b) { return bin(PrimKind::Sub, a, b); }
  const PrimExpr* mul(const PrimExpr* a, const PrimExpr* b) { return bin(PrimKind::Mul, a, b); }
  const PrimExpr* fdiv(const PrimExpr* a, const PrimExpr* b) {
    return bin(PrimKind::FloorDiv, a, b);
  }
  const PrimExpr* fmod(const PrimExpr* a, const PrimExpr* b) {
    return bin(PrimKind::FloorMod, a, b);
  }
  const PrimExpr* min(const PrimExpr* a, const PrimExpr* b) { return bin(PrimKind::Min, a, b); }
  const PrimExpr* max(const PrimExpr* a, const PrimExpr* b) { return bin(PrimKind::Max, a, b); }
};

// A PrimExpr as the canonical printer spells a dimension.
std::string text(const PrimExpr* e) {
  ir::PrimSInfo holder(e->dtype, e);
  std::string s = printer::print_struct_info(&holder);
  const std::string open = "(value=";
  size_t start = s.find(open);
  REQUIRE(start != std::string::npos);
  start += open.size();
  return s.substr(start, s.size() - 1 - start);
}

}  // namespace

TEST_CASE("arith: constants fold", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  CHECK(az.as_int(b.add(b.c(2), b.mul(b.c(3), b.c(4)))) == 14);
  CHECK(az.as_int(b.fdiv(b.c(-7), b.c(2))) == -4);
  CHECK(az.as_int(b.fmod(b.c(-7), b.c(2))) == 1);
  CHECK(az.as_int(b.min(b.c(3), b.c(-1))) == -1);
  CHECK(az.as_int(b.max(b.c(3), b.c(-1))) == 3);
  CHECK(az.as_int(b.bin(PrimKind::Div, b.c(-7), b.c(2))) == -3);
  CHECK(az.as_int(b.bin(PrimKind::Mod, b.c(-7), b.c(2))) == -1);
  auto* n = b.var("n");
  CHECK(az.as_int(b.sub(b.add(n, b.c(5)), n)) == 5);
  CHECK_FALSE(az.as_int(n).has_value());
  // Division by zero stays symbolic instead of crashing.
  CHECK_FALSE(az.as_int(b.fdiv(b.c(1), b.c(0))).has_value());
  CHECK_FALSE(az.as_int(b.fmod(n, b.c(0))).has_value());
}

TEST_CASE("arith: compare answers Equal / NotEqual / Unknown", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  // The and the operator spec's examples.
  CHECK(az.compare(b.c(2), b.c(3)) == Proof::NotEqual);
  CHECK(az.compare(b.c(4), b.c(4)) == Proof::Equal);
  CHECK(az.compare(n, b.add(n, b.c(1))) == Proof::NotEqual);
  CHECK(az.compare(n, m) == Proof::Unknown);
  CHECK(az.compare(b.add(n, b.c(1)), b.add(b.c(1), n)) == Proof::Equal);
  CHECK(az.compare(b.c(2), n) == Proof::Unknown);
  // Reshape products: n*12 vs n*3*4, n*12 vs m*6, 12 vs 35.
  CHECK(az.compare(b.mul(n, b.c(12)), b.mul(b.mul(n, b.c(3)), b.c(4))) == Proof::Equal);
  CHECK(az.compare(b.mul(n, b.c(12)), b.mul(m, b.c(6))) == Proof::Unknown);
  CHECK(az.compare(b.mul(b.c(2), b.c(6)), b.mul(b.c(5), b.c(7))) == Proof::NotEqual);
  CHECK(az.compare(b.mul(n, m), b.mul(m, n)) == Proof::Equal);
  // Distribution: (n + 1) * (n - 1) == n*n - 1.
  CHECK(az.compare(b.mul(b.add(n, b.c(1)), b.sub(n, b.c(1))), b.sub(b.mul(n, n), b.c(1))) ==
        Proof::Equal);
  // Shape vars are non-negative: n*2 + 1 is never 0, and never equal to n (difference n + 1).
  CHECK(az.compare(b.add(b.mul(n, b.c(2)), b.c(1)), b.c(0)) == Proof::NotEqual);
  CHECK(az.compare(b.add(b.mul(n, b.c(2)), b.c(1)), n) == Proof::NotEqual);
  CHECK(az.compare(b.add(n, m), b.c(-1)) == Proof::NotEqual);
  // n*2 vs n: equal when n == 0.
  CHECK(az.compare(b.mul(n, b.c(2)), n) == Proof::Unknown);
  CHECK(az.compare(b.sub(n, m), b.c(1)) == Proof::Unknown);
  // Null operands are never Equal.
  CHECK(az.compare(nullptr, n) == Proof::Unknown);
}

TEST_CASE("arith: floordiv and floormod rules", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  // floordiv(x*4, 2) = x*2; floordiv(n*12, n*3) = 4 (operators.md example 5).
  CHECK(az.compare(b.fdiv(b.mul(n, b.c(4)), b.c(2)), b.mul(n, b.c(2))) == Proof::Equal);
  CHECK(az.as_int(b.fdiv(b.mul(n, b.c(12)), b.mul(n, b.c(3)))) == 4);
  CHECK(az.as_int(b.fdiv(b.mul(n, b.c(12)), n)) == 12);
  CHECK(az.as_int(b.fdiv(n, n)) == 1);
  // reshape((a, b, c, d) -> (d, c, b, -1)): floordiv(a*b*c*d, d*c*b) = a.
  auto* a = b.var("a");
  auto* c = b.var("c");
  auto* d = b.var("d");
  auto* prod = b.mul(b.mul(b.mul(a, m), c), d);
  CHECK(az.compare(b.fdiv(prod, b.mul(b.mul(d, c), m)), a) == Proof::Equal);
  // Multiples of the divisor are pulled out: floordiv(n*2 + m + 3, 2) = n + floordiv(m + 3, 2).
  CHECK(az.compare(b.fdiv(b.add(b.add(b.mul(n, b.c(2)), m), b.c(3)), b.c(2)),
                   b.add(n, b.fdiv(b.add(m, b.c(3)), b.c(2)))) == Proof::Equal);
  CHECK(az.compare(b.fmod(b.add(b.mul(n, b.c(4)), b.c(6)), b.c(4)), b.c(2)) == Proof::Equal);
  CHECK(az.as_int(b.fmod(b.mul(n, b.c(6)), b.c(3))) == 0);
  CHECK(az.as_int(b.fmod(n, n)) == 0);
  CHECK(az.as_int(b.fmod(n, b.c(1))) == 0);
  // floormod(n, 4) lies in [0, 3], so it is never 4.
  CHECK(az.compare(b.fmod(n, b.c(4)), b.c(4)) == Proof::NotEqual);
  CHECK(az.compare(b.fmod(n, b.c(4)), b.c(3)) == Proof::Unknown);
  // Atoms with canonically equal operands are the same atom.
  CHECK(az.compare(b.fdiv(b.add(n, b.c(2)), b.c(3)), b.fdiv(b.add(b.c(2), n), b.c(3))) ==
        Proof::Equal);
  CHECK(az.compare(b.fdiv(n, b.c(3)), b.fdiv(n, b.c(4))) == Proof::Unknown);
}

TEST_CASE("arith: min / max / select", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  CHECK(az.compare(b.min(n, n), n) == Proof::Equal);
  CHECK(az.compare(b.min(n, m), b.min(m, n)) == Proof::Equal);
  CHECK(az.compare(b.max(n, m), b.min(m, n)) == Proof::Unknown);
  CHECK(az.compare(b.min(n, b.add(n, b.c(1))), n) == Proof::Equal);
  CHECK(az.compare(b.max(n, b.add(n, b.c(1))), b.add(n, b.c(1))) == Proof::Equal);
  CHECK(az.compare(b.max(n, b.c(0)), n) == Proof::Equal);  // n >= 0
  CHECK(az.compare(b.min(n, b.c(0)), b.c(0)) == Proof::Equal);
  CHECK(az.compare(b.min(n, b.c(3)), b.c(4)) == Proof::NotEqual);  // min(n, 3) <= 3
  auto* sel = b.arena.make<ir::PrimSelect>(b.i64, b.bin(PrimKind::LT, n, m), n, n);
  CHECK(az.compare(sel, n) == Proof::Equal);
  auto* folded = b.arena.make<ir::PrimSelect>(b.i64, b.bin(PrimKind::LT, n, b.c(0)), m, n);
  CHECK(az.compare(folded, n) == Proof::Equal);  // n < 0 is false for a shape variable
}

TEST_CASE("arith: simplify prints the canonical form", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  auto* h = b.var("h");
  auto* kh = b.var("kh");
  CHECK(text(az.simplify(b.add(b.add(n, b.c(1)), n))) == "n * 2 + 1");
  CHECK(text(az.simplify(b.add(b.add(b.c(0), n), m))) == "n + m");
  CHECK(text(az.simplify(b.add(n, n))) == "n * 2");
  CHECK(text(az.simplify(b.sub(b.add(h, b.c(1)), kh))) == "h + 1 - kh");
  CHECK(text(az.simplify(b.sub(h, b.c(1)))) == "h - 1");
  CHECK(text(az.simplify(b.mul(n, b.c(1)))) == "n");
  CHECK(text(az.simplify(b.add(b.mul(b.c(3), b.c(4)), b.c(2)))) == "14");
  // ceildiv(b, 3) = floordiv(b + 3 - 1, 3): `(b + 2) // 3` (operators.md example 8).
  auto* bv = b.var("b");
  CHECK(text(az.simplify(b.fdiv(b.sub(b.add(bv, b.c(3)), b.c(1)), b.c(3)))) == "(b + 2) // 3");
  CHECK(text(az.simplify(b.sub(bv, b.mul(b.fdiv(b.add(bv, b.c(2)), b.c(3)), b.c(2))))) ==
        "b - (b + 2) // 3 * 2");
  // conv2d: floordiv(h + 1 + 1 - 1*(3 - 1) - 1, 2) + 1 = (h - 1) // 2 + 1 (example 9).
  auto* hout = b.add(
      b.fdiv(b.sub(b.sub(b.add(b.add(h, b.c(1)), b.c(1)), b.mul(b.c(1), b.sub(b.c(3), b.c(1)))),
                   b.c(1)),
             b.c(2)),
      b.c(1));
  CHECK(text(az.simplify(hout)) == "(h - 1) // 2 + 1");
  // Stride 2, padding 1, dilation 2, symbolic kernel: (ih + 3) // 2 + 1 - kh.
  auto* ih = b.var("ih");
  auto* span = b.sub(b.sub(b.add(ih, b.c(2)), b.mul(b.c(2), b.sub(kh, b.c(1)))), b.c(1));
  CHECK(text(az.simplify(b.add(b.fdiv(span, b.c(2)), b.c(1)))) == "(ih + 3) // 2 + 1 - kh");
  // strided_slice (operators.md example 11): min(3, m) - min(1, m) stays as written; split by
  // indices: min(0, b) folds to 0 because shape variables are non-negative.
  CHECK(text(az.sub(b.min(b.c(3), m), b.min(b.c(1), m))) == "T.min(3, m) - T.min(1, m)");
  CHECK(text(az.max(az.sub(b.min(b.c(10), m), b.min(b.c(0), m)), b.c(0))) == "T.min(10, m)");
  CHECK(text(az.sub(m, b.max(b.sub(m, b.c(2)), b.c(0)))) == "m - T.max(m - 2, 0)");
  CHECK(text(az.simplify(b.sub(m, b.add(n, m)))) == "0 - n");
  CHECK(text(az.simplify(b.sub(b.c(-5), b.add(n, b.c(0))))) == "0 - n - 5");
  // Simplifying something already canonical returns the node itself.
  const PrimExpr* canonical = b.add(b.mul(n, b.c(2)), b.c(1));
  CHECK(az.simplify(canonical) == canonical);
  CHECK(az.simplify(n) == n);
}

TEST_CASE("arith: builders fold and simplify", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  CHECK(text(az.mul(az.mul(n, b.c(3)), b.c(4))) == "n * 12");
  CHECK(text(az.add(n, m)) == "n + m");
  CHECK(text(az.sub(n, n)) == "0");
  CHECK(text(az.floordiv(az.mul(n, b.c(12)), az.mul(n, b.c(3)))) == "4");
  CHECK(text(az.floormod(b.c(7), b.c(3))) == "1");
  CHECK(text(az.min(b.c(3), b.c(5))) == "3");
  CHECK(text(az.max(n, n)) == "n");
  CHECK(text(az.make_int(7)) == "7");
  CHECK(az.make_int(7)->dtype == ir::DataType::Int(64));
  CHECK(az.add(n, m)->dtype == ir::DataType::Int(64));
}

TEST_CASE("arith: prove_non_negative / prove_positive", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  CHECK(az.prove_non_negative(n));
  CHECK_FALSE(az.prove_positive(n));
  CHECK(az.prove_positive(b.add(n, b.c(1))));
  CHECK(az.prove_non_negative(b.mul(n, m)));
  CHECK_FALSE(az.prove_non_negative(b.sub(n, m)));
  CHECK_FALSE(az.prove_non_negative(b.c(-1)));
  CHECK(az.prove_non_negative(b.fdiv(n, b.c(2))));
  CHECK(az.prove_non_negative(b.fmod(b.sub(n, m), b.c(2))));
  CHECK_FALSE(az.prove_positive(nullptr));
}

TEST_CASE("arith: substitute; prim_vars of the expressions it works on", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  auto* m = b.var("m");
  const PrimExpr* e = b.add(b.mul(n, b.c(2)), m);
  analysis::arith::VarMap map{{n, b.c(3)}};
  CHECK(text(az.substitute(e, map)) == "m + 6");
  CHECK(az.substitute(e, {}) == e);
  analysis::arith::VarMap unrelated{{b.var("k"), b.c(3)}};
  CHECK(az.substitute(e, unrelated) == e);
  std::vector<const ir::PrimVar*> vars = ir::prim_vars(b.add(b.mul(m, n), b.add(n, m)));
  REQUIRE(vars.size() == 2);
  CHECK(vars[0] == m);
  CHECK(vars[1] == n);
}

TEST_CASE("arith: variables are identified by address", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n1 = b.var("n");
  auto* n2 = b.var("n");
  CHECK(az.compare(n1, n2) == Proof::Unknown);
  CHECK(az.compare(b.add(n1, b.c(1)), b.add(n1, b.c(1))) == Proof::Equal);
}

TEST_CASE("arith: never crashes on other PrimExpr kinds or overflow", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.var("n");
  ir::DataType f32 = ir::DataType::Float(32);
  auto* x = b.arena.make<ir::PrimVar>("x", f32);
  auto* one = b.arena.make<ir::FloatImm>(f32, 1.0);
  const PrimExpr* fx = b.arena.make<ir::PrimBinary>(PrimKind::Add, f32, x, one);
  const PrimExpr* fy = b.arena.make<ir::PrimBinary>(PrimKind::Add, f32, x, one);
  CHECK(az.compare(fx, fy) == Proof::Equal);  // same structure
  CHECK(az.compare(fx, x) == Proof::Unknown);
  CHECK_FALSE(az.as_int(fx).has_value());
  CHECK_FALSE(az.prove_non_negative(x));
  CHECK(az.simplify(fx) == fx);
  // Casts, calls, lets, strings, nots, buffer loads.
  const PrimExpr* cast = b.arena.make<ir::PrimCast>(ir::DataType::Int(32), n);
  CHECK(az.compare(cast, b.arena.make<ir::PrimCast>(ir::DataType::Int(32), n)) == Proof::Equal);
  CHECK(az.as_int(b.arena.make<ir::PrimCast>(ir::DataType::Int(32), b.c(5))) == 5);
  const PrimExpr* call = b.arena.make<ir::PrimCall>(
      b.i64, "tir.call_extern",
      std::vector<const PrimExpr*>{b.arena.make<ir::PrimStringImm>("f"), n});
  CHECK(az.compare(call, call) == Proof::Equal);
  CHECK(az.simplify(call) == call);
  auto* lv = b.var("t");
  const PrimExpr* let = b.arena.make<ir::PrimLet>(lv, b.c(1), b.add(lv, n));
  CHECK(az.compare(let, n) == Proof::Unknown);
  CHECK(az.simplify(let) == let);
  const PrimExpr* neg = b.arena.make<ir::PrimNot>(b.bin(PrimKind::LT, n, b.c(0)));
  CHECK(az.as_int(neg) == 1);
  ir::Buffer buffer;
  buffer.name = "A";
  const PrimExpr* load =
      b.arena.make<ir::BufferLoad>(b.i64, &buffer, std::vector<const PrimExpr*>{n});
  CHECK(az.compare(load, b.arena.make<ir::BufferLoad>(
                             b.i64, &buffer, std::vector<const PrimExpr*>{n})) == Proof::Equal);
  // Overflow: no UB, answers stay sound.
  const int64_t big = std::numeric_limits<int64_t>::max();
  const PrimExpr* huge = b.mul(b.add(n, b.c(big)), b.c(big));
  CHECK(az.compare(huge, n) != Proof::Equal);
  CHECK_FALSE(az.as_int(b.add(b.c(big), b.c(1))).has_value());
  CHECK_FALSE(az.as_int(b.fdiv(b.c(std::numeric_limits<int64_t>::min()), b.c(-1))).has_value());
  CHECK(az.simplify(b.add(b.c(big), b.c(1))) != nullptr);
  CHECK(az.simplify(nullptr) == nullptr);
}

TEST_CASE("arith: int32 dims keep their dtype", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.arena.make<ir::PrimVar>("n", ir::DataType::Int(32));
  auto* two = b.arena.make<ir::IntImm>(ir::DataType::Int(32), 2);
  const PrimExpr* e = b.arena.make<ir::PrimBinary>(PrimKind::Add, ir::DataType::Int(32), n, n);
  const PrimExpr* s = az.simplify(e);
  CHECK(s->dtype == ir::DataType::Int(32));
  CHECK(az.compare(s, b.arena.make<ir::PrimBinary>(PrimKind::Mul, ir::DataType::Int(32), n, two)) ==
        Proof::Equal);
}

TEST_CASE("arith: proofs see through constant shifts and parity", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* h = b.var("h");
  auto* n = b.var("n");
  auto* m = b.var("m");
  // (h - 1) // 2 + 1 == (h + 1) // 2, while each keeps its printed spelling.
  const PrimExpr* conv = b.add(b.fdiv(b.sub(h, b.c(1)), b.c(2)), b.c(1));
  const PrimExpr* ceil = b.fdiv(b.add(h, b.c(1)), b.c(2));
  CHECK(az.compare(conv, ceil) == Proof::Equal);
  CHECK(text(az.simplify(conv)) == "(h - 1) // 2 + 1");
  CHECK(az.compare(b.fmod(b.add(h, b.c(5)), b.c(2)), b.fmod(b.add(h, b.c(1)), b.c(2))) ==
        Proof::Equal);
  CHECK(az.compare(conv, b.fdiv(h, b.c(2))) == Proof::Unknown);
  // n * 2 and m * 2 + 1 differ in parity.
  CHECK(az.compare(b.mul(n, b.c(2)), b.add(b.mul(m, b.c(2)), b.c(1))) == Proof::NotEqual);
  CHECK(az.compare(b.mul(n, b.c(2)), b.add(b.mul(m, b.c(4)), b.c(2))) == Proof::Unknown);
  CHECK(az.as_int(b.bin(PrimKind::EQ, b.mul(n, b.c(3)), b.add(b.mul(m, b.c(3)), b.c(1)))) == 0);
}

TEST_CASE("arith: long sums stay linear", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  std::vector<const ir::PrimVar*> vars;
  const PrimExpr* sum = b.c(0);
  for (int i = 0; i < 2000; ++i) {
    vars.push_back(b.var(("v" + std::to_string(i)).c_str()));
    sum = i % 2 == 0 ? b.add(sum, vars.back()) : b.sub(sum, b.c(1));
  }
  const PrimExpr* again = b.c(-1000);
  for (int i = 1999; i >= 0; --i)
    if (i % 2 == 0) again = b.add(vars[size_t(i)], again);
  CHECK(az.compare(sum, again) == Proof::Equal);
  CHECK(az.compare(sum, b.add(again, b.c(1))) == Proof::NotEqual);
}

TEST_CASE("arith: widening casts keep the operand's range", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  auto* n = b.arena.make<ir::PrimVar>("n", ir::DataType::Int(32));
  const PrimExpr* wide = b.arena.make<ir::PrimCast>(b.i64, n);
  CHECK(az.prove_non_negative(wide));
  CHECK(az.compare(b.add(wide, b.c(1)), b.c(0)) == Proof::NotEqual);
  const PrimExpr* narrow =
      b.arena.make<ir::PrimCast>(ir::DataType::Int(8), b.arena.make<ir::PrimVar>("m", b.i64));
  CHECK_FALSE(az.prove_non_negative(narrow));
}

namespace {

// Reference semantics for the fuzz test: exact integer evaluation; nullopt when undefined
// (division by zero) or out of int64 range.
struct Eval {
  std::vector<std::pair<const ir::PrimVar*, int64_t>> env;

  std::optional<int64_t> operator()(const PrimExpr* e) const {
    if (const auto* i = ir::dyn_cast<ir::IntImm>(e)) return i->value;
    if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
      for (auto& [var, value] : env)
        if (var == v) return value;
      return std::nullopt;
    }
    if (const auto* s = ir::dyn_cast<ir::PrimSelect>(e)) {
      auto c = (*this)(s->condition);
      if (!c) return std::nullopt;
      return *c != 0 ? (*this)(s->true_value) : (*this)(s->false_value);
    }
    const auto* bin = ir::dyn_cast<ir::PrimBinary>(e);
    if (bin == nullptr) return std::nullopt;
    auto a = (*this)(bin->a), b = (*this)(bin->b);
    if (!a || !b) return std::nullopt;
    int64_t r = 0;
    switch (bin->kind) {
      case PrimKind::Add:
        if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt;
        return r;
      case PrimKind::Sub:
        if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
        return r;
      case PrimKind::Mul:
        if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
        return r;
      case PrimKind::FloorDiv:
      case PrimKind::FloorMod: {
        if (*b == 0 || (*a == std::numeric_limits<int64_t>::min() && *b == -1)) return std::nullopt;
        int64_t q = *a / *b, m = *a % *b;
        if (m != 0 && ((m < 0) != (*b < 0))) {
          --q;
          m += *b;
        }
        return bin->kind == PrimKind::FloorDiv ? q : m;
      }
      case PrimKind::Min: return std::min(*a, *b);
      case PrimKind::Max: return std::max(*a, *b);
      case PrimKind::LT: return *a < *b ? 1 : 0;
      case PrimKind::EQ: return *a == *b ? 1 : 0;
      default: return std::nullopt;
    }
  }
};

}  // namespace

TEST_CASE("arith: answers agree with evaluation (random expressions)", "[arith]") {
  Builder b;
  Analyzer az(b.arena);
  const ir::PrimVar* vars[] = {b.var("n"), b.var("m"), b.var("k")};
  std::mt19937 rng(20261122);
  auto pick = [&](int bound) { return int(rng() % unsigned(bound)); };
  std::function<const PrimExpr*(int)> gen = [&](int depth) -> const PrimExpr* {
    if (depth == 0 || pick(4) == 0) {
      if (pick(3) == 0) return b.c(pick(11) - 5);
      return vars[pick(3)];
    }
    const PrimExpr* x = gen(depth - 1);
    const PrimExpr* y = gen(depth - 1);
    switch (pick(9)) {
      case 0: return b.add(x, y);
      case 1: return b.sub(x, y);
      case 2: return b.mul(x, y);
      case 3: return b.fdiv(x, pick(2) == 0 ? y : b.c(pick(4) + 1));
      case 4: return b.fmod(x, pick(2) == 0 ? y : b.c(pick(4) + 1));
      case 5: return b.min(x, y);
      case 6: return b.max(x, y);
      case 7: return b.arena.make<ir::PrimSelect>(b.i64, b.bin(PrimKind::LT, x, y), x, y);
      default: return b.add(b.mul(x, b.c(pick(5) - 2)), y);
    }
  };
  std::vector<Eval> samples;
  for (int s = 0; s < 40; ++s) {
    Eval ev;
    for (auto* v : vars) ev.env.emplace_back(v, int64_t(pick(s < 20 ? 4 : 50)));
    samples.push_back(ev);
  }
  int equal = 0, not_equal = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const PrimExpr* e1 = gen(4);
    // Half of the pairs are related so that Equal answers happen.
    const PrimExpr* e2 =
        pick(2) == 0 ? gen(4) : b.add(b.sub(e1, vars[0]), b.mul(vars[0], b.c(pick(2) + 1)));
    Proof p = az.compare(e1, e2);
    equal += p == Proof::Equal;
    not_equal += p == Proof::NotEqual;
    const PrimExpr* s1 = az.simplify(e1);
    auto folded = az.as_int(e1);
    for (const Eval& ev : samples) {
      auto v1 = ev(e1), v2 = ev(e2), vs = ev(s1);
      if (v1 && vs) {
        INFO("simplify changed the value of an expression (iteration " << iter << ")");
        CHECK(*v1 == *vs);
      }
      if (v1 && folded) CHECK(*v1 == *folded);
      if (!v1 || !v2) continue;
      INFO("iteration " << iter);
      if (p == Proof::Equal) CHECK(*v1 == *v2);
      if (p == Proof::NotEqual) CHECK(*v1 != *v2);
    }
  }
  CHECK(equal > 100);
  CHECK(not_equal > 10);
}
