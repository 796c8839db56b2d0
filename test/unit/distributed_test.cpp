// Distributed Relax: placement and mesh-reference texts (TVM's Placement::FromText and its
// printing), DTensor annotations as lowered and printed, and the relations that keep a DTensor
// apart from a Tensor.
#include "frontend/ir/distributed.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/struct_info/relations.h"
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"

using namespace raxc;

namespace {

// The parameters of `def f(p0: S0, ...)` in a module declaring a 2x2 and a 1-d mesh.
struct Params {
  frontend::ParsedFile file;
  const ir::Function* fn = nullptr;

  explicit Params(const std::vector<std::string>& annotations) {
    std::string params;
    for (size_t i = 0; i < annotations.size(); ++i)
      params += (i ? ", p" : "p") + std::to_string(i) + ": " + annotations[i];
    std::string text =
        "@I.ir_module\n"
        "class Module:\n"
        "    I.module_global_infos({\"mesh\": [R.device_mesh((2, 2), I.Range(0, 4)), "
        "R.device_mesh((2,), [4, 5])]})\n"
        "\n"
        "    @R.function\n"
        "    def f(" +
        params + "):\n        return p0\n";
    file = frontend::parse_file(text);
    INFO(text);
    for (const Diagnostic& d : file.diagnostics) INFO(d.message);
    REQUIRE(file.diagnostics.empty());
    fn = file.module->find("f")->function();
    REQUIRE(fn != nullptr);
  }
  const ir::StructInfo* operator[](size_t i) const { return fn->params[i]->annotation; }
};

}  // namespace

TEST_CASE("distributed: placement text as TVM reads and prints it", "[distributed]") {
  using ir::kReplica;
  CHECK(ir::parse_placement("S[1], R") == ir::Placement{1, kReplica});
  CHECK(ir::parse_placement("S[1]R") == ir::Placement{1, kReplica});
  CHECK(ir::parse_placement("R,R") == ir::Placement{kReplica, kReplica});
  CHECK(ir::parse_placement("S[0] S[12]") == ir::Placement{0, 12});
  CHECK(ir::parse_placement("") == ir::Placement{});
  for (const char* malformed : {"S1", "S[", "S[]", "S[-1]", "S[1", "X", "R;S[0]", "S[1]]"}) {
    INFO(malformed);
    CHECK_FALSE(ir::parse_placement(malformed).has_value());
  }
  CHECK(ir::placement_text({1, kReplica}) == "S[1], R");
  CHECK(ir::placement_text({kReplica}) == "R");
}

TEST_CASE("distributed: device mesh references", "[distributed]") {
  CHECK(ir::parse_mesh_reference("mesh[0]") == std::pair<std::string, int64_t>{"mesh", 0});
  CHECK(ir::parse_mesh_reference("m[12]") == std::pair<std::string, int64_t>{"m", 12});
  for (const char* malformed :
       {"mesh", "mesh0", "[0]", "mesh[]", "mesh[0", "mesh[a]", "mesh[0]x"}) {
    INFO(malformed);
    CHECK_FALSE(ir::parse_mesh_reference(malformed).has_value());
  }
}

TEST_CASE("distributed: DTensor annotations lower with their mesh and placement", "[distributed]") {
  Params p({"R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[1]R\")",
            "R.DTensor(dtype=\"float16\", device_mesh=\"mesh[1]\", placement=\"R\", ndim=3)",
            "R.DTensor((4,), \"int32\", R.device_mesh((2,), I.Range(0, 2)), \"S[0]\")"});
  const ir::TensorSInfo* a = ir::as_dtensor(p[0]);
  REQUIRE(a != nullptr);
  CHECK(a->ndim == 2);
  CHECK(a->dist->mesh->global_info_key == "mesh");
  CHECK(a->dist->mesh->index == 0);
  CHECK(a->dist->mesh->shape == std::vector<int64_t>{2, 2});
  CHECK(a->dist->placement == ir::Placement{1, ir::kReplica});
  const ir::TensorSInfo* b = ir::as_dtensor(p[1]);
  REQUIRE(b != nullptr);
  CHECK(b->shape == nullptr);
  CHECK(b->ndim == 3);
  CHECK(b->dist->mesh->device_ids == std::vector<int64_t>{4, 5});
  const ir::TensorSInfo* c = ir::as_dtensor(p[2]);
  REQUIRE(c != nullptr);
  CHECK(c->dist->mesh->global_info_key.empty());
  CHECK(c->dist->mesh->device_range == std::pair<int64_t, int64_t>{0, 2});
}

TEST_CASE("distributed: a DTensor is its own kind for every relation", "[distributed]") {
  Params p({"R.DTensor((8,), \"float32\", \"mesh[1]\", \"S[0]\")",
            "R.DTensor((8,), \"float32\", \"mesh[1]\", \"S[0]\")",
            "R.DTensor((8,), \"float32\", \"mesh[1]\", \"R\")", "R.Tensor((8,), \"float32\")",
            "R.DTensor((8,), \"float32\", \"mesh[0]\", \"S[0], R\")"});
  ir::Arena arena;
  analysis::arith::Analyzer az(arena);
  using analysis::Compat;
  CHECK(analysis::check_compatibility(az, p[0], p[1]).result == Compat::Compatible);
  CHECK(analysis::struct_info_equal(az, p[0], p[1]));
  auto placement = analysis::check_compatibility(az, p[0], p[2]);
  CHECK(placement.result == Compat::Incompatible);
  CHECK(placement.detail == "placement 'R' vs 'S[0]'");
  CHECK(analysis::check_compatibility(az, p[3], p[0]).detail == "DTensor vs Tensor");
  CHECK(analysis::check_compatibility(az, p[0], p[3]).detail == "Tensor vs DTensor");
  CHECK(analysis::check_compatibility(az, p[0], p[4]).result == Compat::Incompatible);
  CHECK_FALSE(analysis::struct_info_equal(az, p[0], p[3]));
  // Nothing tensor-like is common to a DTensor and a Tensor.
  CHECK(analysis::unify(az, p[0], p[3])->kind == ir::SInfoKind::Object);
  CHECK(ir::as_dtensor(analysis::unify(az, p[0], p[1])) != nullptr);
}

// TVM's printer output (test_distributed_tvmscript_printer.py, test_module and test_func; the
// PrimFunc's attribute and literal left out, their spelling is not this test's) prints back
// unchanged: the meshes of the global infos with I.Range, a declared mesh by its name, an inline
// one with T.Range, and a call_tir of DTensors as R.dist.call_tir.
TEST_CASE("distributed: TVM's printed programs print back unchanged", "[distributed]") {
  const std::string module_text = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"device_num": 10})
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4)), R.device_mesh((1,), I.Range(4, 5))]})
    @T.prim_func
    def tir_func(x: T.Buffer((T.int64(128), T.int64(128)), "float32"), y: T.Buffer((T.int64(128), T.int64(128)), "float32")):
        # with T.block("root"):
        for i, j in T.grid(T.int64(128), T.int64(128)):
            with T.block(""):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(y[vi, vj])
                y[vi, vj] = x[vi, vj]

    @R.function
    def foo(x: R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R")) -> R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R"):
        cls = Module
        gv0 = R.dist.call_tir(cls.tir_func, (x,), out_sinfo=R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R"))
        return gv0
)";
  const std::string function_text = R"(# from tvm.script import tir as T
# from tvm.script import relax as R

@R.function
def foo(x: R.DTensor((128, 128), "float32", R.device_mesh((2, 2), T.Range(0, 4)), "S[0], R")) -> R.DTensor((128, 128), "float32", R.device_mesh((2, 2), T.Range(0, 4)), "S[0], R"):
    return x
)";
  for (const std::string& text : {module_text, function_text}) {
    frontend::ParsedFile file = frontend::parse_file(text);
    for (const Diagnostic& d : file.diagnostics) INFO(d.message);
    REQUIRE(file.diagnostics.empty());
    std::string printed = printer::print_module(*file.module);
    // The printer leaves out the source's comment lines unless given them; compare the code.
    auto code = [](const std::string& s) {
      std::string out, line;
      for (char c : s + "\n") {
        if (c != '\n') {
          line += c;
          continue;
        }
        if (line.find_first_not_of(' ') != std::string::npos &&
            line[line.find_first_not_of(' ')] != '#')
          out += line + "\n";
        line.clear();
      }
      return out;
    };
    CHECK(code(printed) == code(text));
  }
}
