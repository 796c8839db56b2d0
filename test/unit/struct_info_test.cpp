// StructInfo relations (seed spec "Structural Information"): check_compatibility, equality, LUB,
// erase_to_well_defined, get_shape_var_mapping, substitute. StructInfos come from parameter
// annotations of a parsed function, so that equal names are the same shape variable.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/struct_info/relations.h"
#include "frontend/frontend.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

using namespace raxc;
using analysis::Compat;

namespace {

// Parses `def f(p0: S0, p1: S1, ...)` in a module that declares two vdevices.
struct Sig {
  frontend::ParsedFile file;
  const ir::Function* fn = nullptr;

  explicit Sig(const std::vector<std::string>& annotations) {
    std::string params;
    for (size_t i = 0; i < annotations.size(); ++i) {
      if (i != 0) params += ", ";
      params += "p" + std::to_string(i) + ": " + annotations[i];
    }
    std::string text =
        "@I.ir_module\n"
        "class Module:\n"
        "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\"), I.vdevice(\"cuda\")]})\n"
        "\n"
        "    @R.function\n"
        "    def f(" +
        params +
        "):\n"
        "        return p0\n";
    file = frontend::parse_file(text);
    INFO(text);
    std::string messages;
    for (const Diagnostic& d : file.diagnostics) messages += d.message + "\n";
    INFO(messages);
    REQUIRE(file.diagnostics.empty());
    const ir::GlobalDef* def = file.module->find("f");
    REQUIRE(def != nullptr);
    fn = def->function();
    REQUIRE(fn != nullptr);
    REQUIRE(fn->params.size() == annotations.size());
  }
  const ir::StructInfo* operator[](size_t i) const { return fn->params[i]->annotation; }
  // The shape variable named `name` as used in the annotations (Callable returns included).
  const ir::PrimVar* var(const std::string& name) const {
    for (const ir::PrimVar* v : ir::mentioned_shape_vars(fn))
      if (v->name == name) return v;
    FAIL("no shape variable " << name);
    return nullptr;
  }
};

const char* name(Compat c) {
  switch (c) {
    case Compat::Compatible: return "Compatible";
    case Compat::Possibly: return "Possibly";
    case Compat::Incompatible: return "Incompatible";
  }
  return "?";
}

struct CompatCase {
  const char* base;
  const char* derived;
  Compat expected;
  const char* detail;  // a substring of the detail ("" when compatible)
};

}  // namespace

TEST_CASE("struct_info: check_compatibility follows the spec's rules", "[struct_info]") {
  const CompatCase cases[] = {
      // 1. Object accepts everything; Object where something specific is expected: possibly.
      {"R.Object", "R.Tensor((2, 3), \"float32\")", Compat::Compatible, ""},
      {"R.Object", "R.Object", Compat::Compatible, ""},
      {"R.Tensor((2, 3), \"float32\")", "R.Object", Compat::Incompatible, "Object vs Tensor"},
      // 2. Different kinds.
      {"R.Tensor((2, 3), \"float32\")", "R.Shape([2, 3])", Compat::Incompatible, "Shape vs Tensor"},
      {"R.Prim(\"int64\")", "R.Tuple(R.Prim(\"int64\"))", Compat::Incompatible, "Tuple vs Prim"},
      // 3. Tuples.
      {"R.Tuple(R.Prim(\"int64\"), R.Object)", "R.Tuple(R.Prim(\"int64\"), R.Shape([1]))",
       Compat::Compatible, ""},
      {"R.Tuple(R.Prim(\"int64\"))", "R.Tuple(R.Prim(\"int64\"), R.Prim(\"int64\"))",
       Compat::Incompatible, "tuple size 2 vs 1"},
      {"R.Tuple(R.Tensor((\"n\",), \"float32\"), R.Prim(\"int64\"))",
       "R.Tuple(R.Tensor((\"m\",), \"float32\"), R.Prim(\"int64\"))", Compat::Possibly,
       "field 0: dimension 0: 'm' vs 'n'"},
      {"R.Tuple(R.Tensor((\"n\",), \"float32\"), R.Prim(\"int64\"))",
       "R.Tuple(R.Tensor((\"m\",), \"float32\"), R.Prim(\"int32\"))", Compat::Incompatible,
       "field 1: dtype 'int32' vs 'int64'"},
      // 4. Shapes.
      {"R.Shape(ndim=-1)", "R.Shape([1, 2])", Compat::Compatible, ""},
      {"R.Shape(ndim=2)", "R.Shape([1, 2, 3])", Compat::Incompatible, "ndim 3 vs 2"},
      {"R.Shape(ndim=2)", "R.Shape([1, 2])", Compat::Compatible, ""},
      {"R.Shape([1, 2])", "R.Shape(ndim=2)", Compat::Possibly, "values unknown"},
      {"R.Shape([1, 2])", "R.Shape(ndim=-1)", Compat::Possibly, "ndim unknown vs 2"},
      {"R.Shape([\"n\", 2])", "R.Shape([\"n\", 3])", Compat::Incompatible,
       "dimension 1: '3' vs '2'"},
      {"R.Shape([\"n\", 2])", "R.Shape([\"m\", 2])", Compat::Possibly, "dimension 0"},
      {"R.Shape([\"n\", 2])", "R.Shape([\"n\", 2])", Compat::Compatible, ""},
      // 5. Prims.
      {"R.Prim(\"int64\")", "R.Prim(\"int32\")", Compat::Incompatible, "dtype 'int32' vs 'int64'"},
      {"R.Prim(\"int64\")", "R.Prim(value=\"n\")", Compat::Compatible, ""},
      {"R.Prim(value=\"n\")", "R.Prim(\"int64\")", Compat::Possibly, "value unknown vs 'n'"},
      {"R.Prim(value=\"n\")", "R.Prim(value=\"m\")", Compat::Possibly, "value 'm' vs 'n'"},
      {"R.Prim(value=\"n\")", "R.Prim(value=\"n\")", Compat::Compatible, ""},
      // 6. Tensors.
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor((2, 3), \"int32\")", Compat::Incompatible,
       "dtype 'int32' vs 'float32'"},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor((2, 3, 1), \"float32\")", Compat::Incompatible,
       "ndim 3 vs 2"},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor((2, 4), \"float32\")", Compat::Incompatible,
       "dimension 1: '4' vs '3'"},
      {"R.Tensor((\"n\", 3), \"float32\")", "R.Tensor((\"n\", 3), \"float32\")", Compat::Compatible,
       ""},
      {"R.Tensor((\"n\", 3), \"float32\")", "R.Tensor((\"m\", 3), \"float32\")", Compat::Possibly,
       "dimension 0: 'm' vs 'n'"},
      {"R.Tensor((\"n\",), \"float32\")", "R.Tensor((\"n + 1\",), \"float32\")",
       Compat::Incompatible, "dimension 0: 'n + 1' vs 'n'"},
      {"R.Tensor((\"n\", \"n * 2\"), \"float32\")", "R.Tensor((\"n\", \"n + n\"), \"float32\")",
       Compat::Compatible, ""},
      {"R.Tensor(ndim=2, dtype=\"float32\")", "R.Tensor((2, 3), \"float32\")", Compat::Compatible,
       ""},
      {"R.Tensor(dtype=\"float32\")", "R.Tensor((2, 3), \"float32\")", Compat::Compatible, ""},
      {"R.Tensor((2, 3))", "R.Tensor((2, 3), \"float32\")", Compat::Compatible, ""},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor(ndim=2, dtype=\"float32\")", Compat::Possibly,
       "shape unknown vs '(2, 3)'"},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor(dtype=\"float32\")", Compat::Possibly,
       "ndim unknown vs 2"},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor((2, 3))", Compat::Possibly,
       "dtype unknown vs 'float32'"},
      {"R.Tensor(ndim=3, dtype=\"float32\")", "R.Tensor(ndim=2, dtype=\"float32\")",
       Compat::Incompatible, "ndim 2 vs 3"},
      {"R.Tensor((2, 3), \"float32\")", "R.Tensor((\"n\", 4))", Compat::Incompatible,
       "dimension 1"},
      // vdevices.
      {"R.Tensor((2,), \"float32\", \"cuda:0\")", "R.Tensor((2,), \"float32\", \"llvm:0\")",
       Compat::Incompatible, "vdevice 'llvm:0' vs 'cuda:0'"},
      {"R.Tensor((2,), \"float32\", \"cuda:0\")", "R.Tensor((2,), \"float32\")", Compat::Possibly,
       "vdevice unknown vs 'cuda:0'"},
      {"R.Tensor((2,), \"float32\")", "R.Tensor((2,), \"float32\", \"cuda:0\")", Compat::Compatible,
       ""},
      {"R.Tensor((2,), \"float32\", \"cuda:0\")", "R.Tensor((2,), \"float32\", \"cuda:0\")",
       Compat::Compatible, ""},
      // 7. Functions: parameters contravariant, return covariant, purity, opaque.
      {"R.Callable([R.Tensor((2,), \"float32\")], R.Object)",
       "R.Callable([R.Object], R.Tensor((2,), \"float32\"))", Compat::Compatible, ""},
      {"R.Callable([R.Object], R.Object)", "R.Callable([R.Tensor((2,), \"float32\")], R.Object)",
       Compat::Incompatible, "parameter 0: Object vs Tensor"},
      {"R.Callable([R.Tensor((2,), \"float32\")], R.Tensor((2,), \"float32\"))",
       "R.Callable([R.Tensor((2,), \"float32\")], R.Tensor((3,), \"float32\"))",
       Compat::Incompatible, "return: dimension 0: '3' vs '2'"},
      {"R.Callable([R.Object], R.Object)", "R.Callable([R.Object, R.Object], R.Object)",
       Compat::Incompatible, "parameter count 2 vs 1"},
      {"R.Callable([R.Object], R.Object, True)", "R.Callable([R.Object], R.Object, False)",
       Compat::Incompatible, "impure"},
      {"R.Callable([R.Object], R.Object, False)", "R.Callable([R.Object], R.Object, True)",
       Compat::Compatible, ""},
      {"R.Callable([R.Object], R.Object)", "R.Callable()", Compat::Incompatible, "opaque"},
      {"R.Callable()", "R.Callable()", Compat::Compatible, ""},
  };
  for (const CompatCase& c : cases) {
    Sig sig({c.base, c.derived});
    ir::Arena arena;
    analysis::arith::Analyzer az(arena);
    analysis::CompatResult r = analysis::check_compatibility(az, sig[0], sig[1]);
    INFO("base " << c.base << "  derived " << c.derived << "  -> " << name(r.result) << " ("
                 << r.detail << ")");
    CHECK(name(r.result) == std::string(name(c.expected)));
    CHECK(r.detail.find(c.detail) != std::string::npos);
    if (c.expected == Compat::Compatible) CHECK(r.detail.empty());
  }
}

TEST_CASE("struct_info: callable shape variables are matched before comparing", "[struct_info]") {
  // Each callable's own shape variables are renamed to the other's: `n -> m` makes the
  // parameters and the returns line up.
  Sig sig({"R.Callable([R.Tensor((\"m\",), \"float32\")], R.Tensor((\"m\",), \"float32\"))",
           "R.Callable([R.Tensor((\"n\",), \"float32\")], R.Tensor((\"n\",), \"float32\"))",
           "R.Callable([R.Tensor((\"k\",), \"float32\")], R.Tensor((\"k + 1\",), \"float32\"))"});
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  CHECK(analysis::check_compatibility(az, sig[0], sig[1]).result == Compat::Compatible);
  auto r = analysis::check_compatibility(az, sig[0], sig[2]);
  CHECK(r.result == Compat::Incompatible);
  CHECK(r.detail == "return: dimension 0: 'm + 1' vs 'm'");
}

TEST_CASE("struct_info: tensors whose shape is a Var", "[struct_info]") {
  Sig sig({"R.Shape(ndim=2)", "R.Tensor(\"float32\", ndim=2)"});
  // Build tensors over the shape parameter p0 by hand.
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  const ir::Var* s = sig.fn->params[0];
  auto* t1 = arena.make<ir::TensorSInfo>(s, ir::DataType::Float(32), nullptr, 2);
  auto* t2 = arena.make<ir::TensorSInfo>(s, ir::DataType::Float(32), nullptr, 2);
  auto* other = arena.make<ir::Var>(false, "s2", arena.make<ir::ShapeSInfo>(std::nullopt, 2));
  auto* t3 = arena.make<ir::TensorSInfo>(other, ir::DataType::Float(32), nullptr, 2);
  CHECK(analysis::check_compatibility(az, t1, t2).result == Compat::Compatible);
  CHECK(analysis::struct_info_equal(az, t1, t2));
  auto r = analysis::check_compatibility(az, t1, t3);
  CHECK(r.result == Compat::Possibly);
  CHECK(r.detail == "shape 's2' vs 'p0' not provably equal");
  CHECK_FALSE(analysis::struct_info_equal(az, t1, t3));
  CHECK_FALSE(analysis::tensor_dims(*t1).has_value());
  // LUB: same Var keeps the shape; different Vars drop it but keep the rank.
  CHECK(analysis::unify(az, t1, t2) == t1);
  CHECK(printer::print_struct_info(analysis::unify(az, t1, t3)) ==
        "R.Tensor(dtype=\"float32\", ndim=2)");
  // Erasure: the shape Var out of scope drops the shape.
  analysis::Scope scope;
  CHECK(printer::print_struct_info(analysis::erase_to_well_defined(az, t1, scope)) ==
        "R.Tensor(dtype=\"float32\", ndim=2)");
  scope.has_var = [&](const ir::Var* v) { return v == s; };
  CHECK(analysis::erase_to_well_defined(az, t1, scope) == t1);
}

TEST_CASE("struct_info: struct_info_equal", "[struct_info]") {
  Sig sig({"R.Tensor((\"n\", 4), \"float32\")", "R.Tensor((\"n\", 2 * 2), \"float32\")",
           "R.Tensor((\"n\", 4), \"float16\")", "R.Tensor((\"m\", 4), \"float32\")",
           "R.Tuple(R.Prim(\"int64\"), R.Shape(ndim=2))",
           "R.Tuple(R.Prim(\"int64\"), R.Shape(ndim=2))", "R.Tuple(R.Prim(\"int64\"))",
           "R.Callable([R.Object], R.Object, True)", "R.Callable([R.Object], R.Object, False)",
           "R.Object"});
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  CHECK(analysis::struct_info_equal(az, sig[0], sig[1]));
  CHECK_FALSE(analysis::struct_info_equal(az, sig[0], sig[2]));
  CHECK_FALSE(analysis::struct_info_equal(az, sig[0], sig[3]));
  CHECK(analysis::struct_info_equal(az, sig[4], sig[5]));
  CHECK_FALSE(analysis::struct_info_equal(az, sig[4], sig[6]));
  CHECK_FALSE(analysis::struct_info_equal(az, sig[7], sig[8]));
  CHECK(analysis::struct_info_equal(az, sig[7], sig[7]));
  CHECK_FALSE(analysis::struct_info_equal(az, sig[9], sig[0]));
}

struct UnifyCase {
  const char* a;
  const char* b;
  const char* expected;
};

TEST_CASE("struct_info: unify is the least upper bound", "[struct_info]") {
  const UnifyCase cases[] = {
      {"R.Object", "R.Tensor((2,), \"float32\")", "R.Object"},
      {"R.Tensor((2,), \"float32\")", "R.Object", "R.Object"},
      {"R.Tensor((2,), \"float32\")", "R.Shape([2])", "R.Object"},
      {"R.Prim(\"int64\")", "R.Prim(\"int32\")", "R.Object"},
      {"R.Prim(value=\"n\")", "R.Prim(value=\"n\")", "R.Prim(value=n)"},
      {"R.Prim(value=\"n\")", "R.Prim(value=\"m\")", "R.Prim(\"int64\")"},
      {"R.Prim(value=\"n\")", "R.Prim(\"int64\")", "R.Prim(\"int64\")"},
      {"R.Shape([\"n\", 2])", "R.Shape([\"n\", 2])", "R.Shape([n, 2])"},
      {"R.Shape([\"n\", 2])", "R.Shape([\"m\", 2])", "R.Shape(ndim=2)"},
      {"R.Shape([\"n\", 2])", "R.Shape(ndim=2)", "R.Shape(ndim=2)"},
      {"R.Shape(ndim=2)", "R.Shape([\"n\", 2])", "R.Shape(ndim=2)"},
      {"R.Shape([1])", "R.Shape([1, 2])", "R.Shape(ndim=-1)"},
      {"R.Shape(ndim=-1)", "R.Shape([1, 2])", "R.Shape(ndim=-1)"},
      {"R.Tensor((\"n\", 4), \"float32\")", "R.Tensor((\"n\", 4), \"float32\")",
       "R.Tensor((n, 4), dtype=\"float32\")"},
      {"R.Tensor((\"n\", 4), \"float32\")", "R.Tensor((\"m\", 4), \"float32\")",
       "R.Tensor(dtype=\"float32\", ndim=2)"},
      {"R.Tensor((\"n\", 4), \"float32\")", "R.Tensor((\"n\", 4), \"int32\")", "R.Tensor((n, 4))"},
      {"R.Tensor((\"n\", 4), \"float32\")", "R.Tensor((\"n\",), \"float32\")",
       "R.Tensor(dtype=\"float32\")"},
      {"R.Tensor((2,), \"float32\", \"cuda:0\")", "R.Tensor((2,), \"float32\", \"cuda:0\")",
       "R.Tensor((2,), dtype=\"float32\", vdevice=\"cuda:0:global\")"},
      {"R.Tensor((2,), \"float32\", \"cuda:0\")", "R.Tensor((2,), \"float32\", \"llvm:0\")",
       "R.Tensor((2,), dtype=\"float32\")"},
      {"R.Tuple(R.Prim(\"int64\"), R.Tensor((2,), \"float32\"))",
       "R.Tuple(R.Prim(\"int64\"), R.Tensor((3,), \"float32\"))",
       "R.Tuple(R.Prim(\"int64\"), R.Tensor(dtype=\"float32\", ndim=1))"},
      {"R.Tuple(R.Prim(\"int64\"))", "R.Tuple(R.Prim(\"int64\"), R.Object)", "R.Object"},
      {"R.Callable([R.Object], R.Tensor((2,), \"float32\"), True)",
       "R.Callable([R.Object], R.Tensor((3,), \"float32\"), False)",
       "R.Callable((R.Object,), R.Tensor(dtype=\"float32\", ndim=1), False)"},
      {"R.Callable([R.Object], R.Object)", "R.Callable([R.Prim(\"int64\")], R.Object)", "R.Object"},
      {"R.Callable([R.Object], R.Object)", "R.Callable()", "R.Object"},
  };
  for (const UnifyCase& c : cases) {
    Sig sig({c.a, c.b});
    ir::Arena arena;
    analysis::arith::Analyzer az(arena);
    const ir::StructInfo* u = analysis::unify(az, sig[0], sig[1]);
    INFO(c.a << " | " << c.b);
    CHECK(printer::print_struct_info(u) == c.expected);
    // The LUB is a supertype of both.
    CHECK(analysis::check_compatibility(az, u, sig[0]).result == Compat::Compatible);
    CHECK(analysis::check_compatibility(az, u, sig[1]).result == Compat::Compatible);
  }
}

TEST_CASE("struct_info: erase_to_well_defined drops out-of-scope shape variables",
          "[struct_info]") {
  Sig sig({"R.Tensor((\"n\", 4), \"float32\")", "R.Shape([\"n\", \"m\"])", "R.Prim(value=\"n\")",
           "R.Tuple(R.Tensor((\"m\",), \"float32\"), R.Tensor((4,), \"float32\"))",
           "R.Callable([R.Tensor((\"k\",), \"float32\")], R.Tensor((\"k\", \"n\"), \"float32\"))",
           "R.Object"});
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  const ir::PrimVar* n = sig.var("n");
  analysis::Scope only_n;
  only_n.has_shape_var = [n](const ir::PrimVar* v) { return v == n; };
  auto erased = [&](size_t i) {
    return printer::print_struct_info(analysis::erase_to_well_defined(az, sig[i], only_n));
  };
  CHECK(analysis::erase_to_well_defined(az, sig[0], only_n) == sig[0]);
  CHECK(erased(1) == "R.Shape(ndim=2)");
  CHECK(analysis::erase_to_well_defined(az, sig[2], only_n) == sig[2]);
  CHECK(erased(3) ==
        "R.Tuple(R.Tensor(dtype=\"float32\", ndim=1), R.Tensor((4,), dtype=\"float32\"))");
  // `k` is bound by the callable's own parameter; `n` is in scope.
  CHECK(analysis::erase_to_well_defined(az, sig[4], only_n) == sig[4]);
  CHECK(analysis::erase_to_well_defined(az, sig[5], only_n) == sig[5]);
  analysis::Scope empty;
  CHECK(printer::print_struct_info(analysis::erase_to_well_defined(az, sig[0], empty)) ==
        "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK(printer::print_struct_info(analysis::erase_to_well_defined(az, sig[2], empty)) ==
        "R.Prim(\"int64\")");
  CHECK(printer::print_struct_info(analysis::erase_to_well_defined(az, sig[4], empty)) ==
        "R.Callable((R.Tensor((k,), dtype=\"float32\"),), R.Tensor(dtype=\"float32\", ndim=2), "
        "True)");
}

TEST_CASE("struct_info: get_shape_var_mapping and substitute", "[struct_info]") {
  Sig sig(
      {"R.Tuple(R.Tensor((\"n\", \"n * 2\"), \"float32\"), R.Shape([\"m\"]), "
       "R.Prim(value=\"k\"))",
       "R.Tuple(R.Tensor((3, 6), \"float32\"), R.Shape([\"a + 1\"]), R.Prim(value=7))",
       "R.Shape([\"a\"])", "R.Tensor((\"n\", \"m * n\", \"k\"), \"float32\")",
       "R.Tensor((1, 2), \"float32\")", "R.Tensor(ndim=2, dtype=\"float32\")"});
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  analysis::arith::VarMap mapping;
  REQUIRE(analysis::get_shape_var_mapping(sig[0], sig[1], mapping));
  CHECK(mapping.size() == 3);
  CHECK(az.as_int(mapping.at(sig.var("n"))) == 3);
  CHECK(az.as_int(mapping.at(sig.var("k"))) == 7);
  CHECK(mapping.count(sig.var("m")) == 1);
  const ir::StructInfo* s = analysis::substitute(az, sig[3], mapping);
  CHECK(printer::print_struct_info(s) == "R.Tensor((3, a * 3 + 3, 7), dtype=\"float32\")");
  CHECK(analysis::substitute(az, sig[4], mapping) == sig[4]);
  // Structure mismatch: ranks differ; unknown shapes are simply not mapped.
  analysis::arith::VarMap other;
  CHECK_FALSE(analysis::get_shape_var_mapping(sig[3], sig[4], other));
  CHECK(analysis::get_shape_var_mapping(sig[3], sig[5], other));
  CHECK(other.empty());
  CHECK_FALSE(analysis::get_shape_var_mapping(sig[0], sig[3], other));
}
