// The fused epilogues of the matmul kernels (backend/runtime/matmul.cpp): "raxc.matmul_bias_f32",
// "raxc.matmul_scale_bias_gelu_residual_f32" and the like apply a scale, a bias per column, GELU
// or ReLU and a residual to each tile of the product once its reduction is complete. Checked
// against a float64 product with the epilogue applied in float64 (std::erf), on shapes that reach
// each path that writes C: the packed blocks (a reduction of several 256-deep blocks, so an
// epilogue applied before the last one is caught, and partial edge tiles), the unpacked path of at
// most 4 rows, an empty reduction, a batch with its own B per element (the residual offset per
// element), the 2-thread steps, and R.linear's transposed weight; and the packing of B row by
// row at its edges (widths not a multiple of the 32-column panel).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/tensor.h"
#include "test/unit/random_tensor.h"

using namespace raxc;
using test::random_tensor;

namespace {

const DLDataType kF32{kDLFloat, 32, 1};

struct Form {
  bool scale;
  bool bias;
  const char* act;  // "", "gelu", "relu"
  bool residual;
  std::string symbol(const char* base) const {
    std::string s = std::string("raxc.") + base + (scale ? "_scale" : "") + (bias ? "_bias" : "");
    if (*act) s += std::string("_") + act;
    return s + (residual ? "_residual" : "") + "_f32";
  }
};

struct Shape {
  int64_t batch, m, n, k;
  bool shared_b;  // B (k, n) shared by every batch element
};

// Elements of the fused call's result off the float64 reference by more than float32 rounding
// and the erf approximation (6 ulp) allow.
int wrong_elements(const Form& f, const Shape& s, bool linear, int threads, std::mt19937& rng,
                   std::string symbol = "") {
  auto a = random_tensor({s.batch, s.m, s.k}, rng);
  auto b = linear       ? random_tensor({s.n, s.k}, rng)
           : s.shared_b ? random_tensor({s.k, s.n}, rng)
                        : random_tensor({s.batch, s.k, s.n}, rng);
  auto scale = random_tensor({}, rng, 2);
  auto bias = random_tensor({s.n}, rng, 4);
  auto residual = random_tensor({s.batch, s.m, s.n}, rng);
  auto out = runtime::Tensor::empty({s.batch, s.m, s.n}, kF32);
  REQUIRE(out);
  std::vector<runtime::Value> args{runtime::Value(a), runtime::Value(b)};
  if (f.scale) args.emplace_back(scale);
  if (f.bias) args.emplace_back(bias);
  if (f.residual) args.emplace_back(residual);
  args.emplace_back(out);
  auto fn = runtime::find_packed(symbol.empty() ? f.symbol(linear ? "linear" : "matmul") : symbol);
  REQUIRE(fn);
  raxc_set_num_threads(threads);
  (*fn)(args);
  raxc_set_num_threads(0);
  const float *ap = a->data_as<float>(), *bp = b->data_as<float>();
  int bad = 0;
  for (int64_t q = 0; q < s.batch; ++q)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double x = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          double y = linear       ? bp[j * s.k + p]
                     : s.shared_b ? bp[p * s.n + j]
                                  : bp[(q * s.k + p) * s.n + j];
          x += double(ap[(q * s.m + i) * s.k + p]) * y;
        }
        int64_t at = (q * s.m + i) * s.n + j;
        if (f.scale) x *= scale->data_as<float>()[0];
        if (f.bias) x += bias->data_as<float>()[j];
        if (std::string(f.act) == "gelu") x = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
        if (std::string(f.act) == "relu") x = std::max(x, 0.0);
        if (f.residual) x += residual->data_as<float>()[at];
        double got = out->data_as<float>()[at];
        if (!(std::fabs(got - x) <= 1e-4 * (1 + std::sqrt(double(s.k))) + 1e-5 * std::fabs(x)))
          ++bad;
      }
  return bad;
}

const std::vector<Form> kForms = {{false, true, "", false},     {false, true, "gelu", false},
                                  {false, true, "relu", false}, {false, true, "", true},
                                  {false, true, "gelu", true},  {false, false, "gelu", false},
                                  {false, false, "", true},     {false, false, "relu", true},
                                  {true, false, "", false},     {true, true, "gelu", true}};

}  // namespace

TEST_CASE("matmul epilogues on one thread: every path that writes C", "[backend]") {
  // 131 × 1057 × 600: three 200-deep blocks of the reduction (an epilogue applied before the
  // last would be summed over; a scale alone is applied by the last block's tiles as they
  // store), a partial 12-row panel and a partial 32-column panel; 3 rows:
  // the unpacked path; k = 0: C is zeros, then the epilogue; a batch of 2 with its own B.
  std::vector<Shape> shapes = {{1, 131, 1057, 600, true},
                               {1, 3, 70, 40, true},
                               {1, 13, 33, 0, true},
                               {2, 25, 47, 300, false},
                               {3, 10, 40, 20, true}};
  std::mt19937 rng(21);
  for (const Form& f : kForms)
    for (const Shape& s : shapes) {
      CAPTURE(f.symbol("matmul"), s.batch, s.m, s.n, s.k);
      CHECK(wrong_elements(f, s, false, 1, rng) == 0);
    }
}

TEST_CASE("matmul epilogues on 2 threads: each part's tiles apply it", "[backend]") {
  // Above the threads' threshold: one product split into a part of B's columns per thread (two
  // blocks of columns, three of the reduction), or of A's rows (the bias and residual indexed by
  // the part's rows and columns, not its own); 4 rows: the unpacked path split over the
  // reduction (the epilogue once the parts are added up), 2 rows of a shallow product: its column
  // groups. The bias and the residual without an activation are folded into the first block's
  // tiles, a scale alone into the last block's.
  std::vector<Shape> shapes = {{1, 131, 1100, 517, true},
                               {1, 600, 130, 517, true},
                               {1, 4, 2100, 1000, true},
                               {1, 2, 70000, 64, true}};
  std::mt19937 rng(22);
  for (const Form& f :
       {kForms[0], kForms[1], kForms[3], kForms[4], kForms[6], kForms[8], kForms[9]})
    for (const Shape& s : shapes) {
      CAPTURE(f.symbol("matmul"), s.m, s.n, s.k);
      CHECK(wrong_elements(f, s, false, 2, rng) == 0);
    }
}

TEST_CASE("linear epilogues: the transposed weight, its own bias and a fused GELU", "[backend]") {
  std::mt19937 rng(23);
  for (const Form& f : {Form{false, true, "", false}, Form{false, true, "gelu", true},
                        Form{false, false, "relu", false}})
    for (int threads : {1, 2}) {
      CAPTURE(f.symbol("linear"), threads);
      CHECK(wrong_elements(f, {1, 129, 300, 260, true}, true, threads, rng) == 0);
    }
  // The unfused name with its optional bias is the bias form.
  CHECK(wrong_elements({false, true, "", false}, {1, 20, 50, 30, true}, true, 1, rng,
                       "raxc.linear_f32") == 0);
}

TEST_CASE("matmul epilogues refuse a bias or residual of the wrong shape", "[backend]") {
  std::mt19937 rng(24);
  auto a = random_tensor({4, 8}, rng), b = random_tensor({8, 6}, rng);
  auto out = runtime::Tensor::empty({4, 6}, kF32);
  auto bias_rows = random_tensor({4}, rng);  // one per row: the wrong axis
  auto fn = runtime::find_packed("raxc.matmul_bias_f32");
  REQUIRE(fn);
  CHECK_THROWS_AS(
      (*fn)({runtime::Value(a), runtime::Value(b), runtime::Value(bias_rows), runtime::Value(out)}),
      runtime::RuntimeError);
  auto residual = random_tensor({6, 4}, rng);
  auto res_fn = runtime::find_packed("raxc.matmul_residual_f32");
  REQUIRE(res_fn);
  CHECK_THROWS_AS((*res_fn)({runtime::Value(a), runtime::Value(b), runtime::Value(residual),
                             runtime::Value(out)}),
                  runtime::RuntimeError);
  // Too few arguments for the form.
  CHECK_THROWS_AS((*fn)({runtime::Value(a), runtime::Value(b), runtime::Value(out)}),
                  runtime::RuntimeError);
}

TEST_CASE("matmul epilogue: ReLU keeps a NaN, as the generated max does", "[backend]") {
  // A NaN in A makes its row of C NaN; the fused ReLU (whole tiles and an edge) must leave it
  // NaN, not 0. (The portable kernel's std::max keeps it; this runs the kernel the CPU gets.)
  std::mt19937 rng(25);
  auto fn = runtime::find_packed("raxc.matmul_relu_f32");
  REQUIRE(fn);
  auto a = random_tensor({13, 40}, rng), b = random_tensor({40, 70}, rng);
  a->data_as<float>()[5 * 40 + 3] = std::numeric_limits<float>::quiet_NaN();
  auto out = runtime::Tensor::empty({13, 70}, kF32);
  (*fn)({runtime::Value(a), runtime::Value(b), runtime::Value(out)});
  int nan = 0, negative = 0;
  for (int64_t i = 0; i < out->numel(); ++i) {
    float v = out->data_as<float>()[i];
    nan += std::isnan(v);
    negative += v < 0;
  }
  CHECK(nan == 70);  // row 5, every column
  CHECK(negative == 0);
}

TEST_CASE("matmul views: a view that leaves its tensor or repeats its rows is refused",
          "[backend]") {
  // "raxc.matmul_view_f32"(a, b, a_shape, a_map, b_shape, b_map, out_shape, out_map, out): the
  // views backend/fuse/views.cpp writes are checked again where they are read, so that a
  // hand-written call cannot make the kernels read outside a tensor
  // (test/cases/run/attention_views.rx checks the results of the views the pass writes).
  std::mt19937 rng(26);
  auto fn = runtime::find_packed("raxc.matmul_view_f32");
  REQUIRE(fn);
  auto a = random_tensor({4, 8}, rng), b = random_tensor({8, 6}, rng);
  auto out = runtime::Tensor::empty({4, 6}, kF32);
  auto shape = [](std::vector<int64_t> dims) { return runtime::Value(runtime::Shape{dims}); };
  auto call = [&](runtime::Value a_shape, runtime::Value a_map) {
    (*fn)({runtime::Value(a), runtime::Value(b), a_shape, a_map, shape({}), shape({}), shape({}),
           shape({}), runtime::Value(out)});
  };
  // The identity view (offsets 0, C = I) is the product itself.
  CHECK_NOTHROW(call(shape({4, 8}), shape({0, 0, 1, 0, 0, 1})));
  // Offset by one row: its last row would be a's fifth.
  CHECK_THROWS_AS(call(shape({4, 8}), shape({1, 0, 1, 0, 0, 1})), runtime::RuntimeError);
  // A map of the wrong length.
  CHECK_THROWS_AS(call(shape({4, 8}), shape({0, 0, 1, 0, 0})), runtime::RuntimeError);
  // Every row the first (a row stride of 0, which the kernels would take for a packed panel).
  CHECK_THROWS_AS(call(shape({4, 8}), shape({0, 0, 0, 0, 0, 1})), runtime::RuntimeError);
  // A transposed A (its rows read across).
  auto square = random_tensor({8, 4}, rng);
  CHECK_THROWS_AS(
      (*fn)({runtime::Value(square), runtime::Value(b), shape({4, 8}), shape({0, 0, 0, 1, 1, 0}),
             shape({}), shape({}), shape({}), shape({}), runtime::Value(out)}),
      runtime::RuntimeError);
  // The result through a view: one that leaves the output, and one beside a residual (which is
  // read at the result's own indices).
  auto written = [&](const char* symbol, std::vector<runtime::Value> extra,
                     std::vector<int64_t> map) {
    auto f = runtime::find_packed(symbol);
    REQUIRE(f);
    std::vector<runtime::Value> args{runtime::Value(a), runtime::Value(b)};
    args.insert(args.end(), extra.begin(), extra.end());
    for (int i = 0; i < 4; ++i) args.push_back(shape({}));
    args.push_back(shape({4, 6}));
    args.push_back(shape(std::move(map)));
    args.emplace_back(out);
    (*f)(args);
  };
  CHECK_NOTHROW(written("raxc.matmul_view_f32", {}, {0, 0, 1, 0, 0, 1}));
  CHECK_THROWS_AS(written("raxc.matmul_view_f32", {}, {0, 1, 1, 0, 0, 1}), runtime::RuntimeError);
  auto residual = random_tensor({4, 6}, rng);
  CHECK_THROWS_AS(
      written("raxc.matmul_view_residual_f32", {runtime::Value(residual)}, {0, 0, 1, 0, 0, 1}),
      runtime::RuntimeError);
  // Not a shape where a view is expected.
  CHECK_THROWS_AS((*fn)({runtime::Value(a), runtime::Value(b), runtime::Value(a), shape({}),
                         shape({}), shape({}), shape({}), shape({}), runtime::Value(out)}),
                  runtime::RuntimeError);
}
