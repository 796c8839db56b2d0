// The matmul kernels (backend/runtime/matmul.cpp) on two threads: one product split into a part
// per thread (its rows when A has at least as many rows as B has columns, else its columns), each
// packing its own B, checked against a float64 product on shapes that reach every edge of that
// split; R.linear's transposed weight and a convolution on two threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/tensor.h"
#include "test/unit/random_tensor.h"

using namespace raxc;
using test::random_tensor;

namespace {

const DLDataType kF32{kDLFloat, 32, 1};

// Elements of c (batch × m × n) off the float64 product by more than float32 rounding allows;
// b is k × n, or n × k when `transposed` (R.linear's weight).
int wrong_elements(const runtime::Tensor& a, const runtime::Tensor& b, const runtime::Tensor& c,
                   int64_t batch, int64_t m, int64_t n, int64_t k, bool transposed) {
  int bad = 0;
  for (int64_t q = 0; q < batch; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p) {
          float x = a.data_as<float>()[(q * m + i) * k + p];
          float y =
              transposed ? b.data_as<float>()[j * k + p] : b.data_as<float>()[(q * k + p) * n + j];
          want += double(x) * y;
        }
        double got = c.data_as<float>()[(q * m + i) * n + j];
        if (!(std::fabs(got - want) <= 1e-4 * (1 + std::sqrt(double(k))))) ++bad;
      }
  return bad;
}

}  // namespace

TEST_CASE("matmul on 2 threads: every edge of the parts against a float64 product", "[backend]") {
  // Each shape is above the kernel's threshold for threads (8M multiply-adds in all). Split by
  // rows: A's 12-row panels odd in number with a last partial one, a B of one and a quarter
  // panels, and a single panel of A (one part is empty). Split by columns: two blocks of B
  // (N > 1024) with a last partial panel, A of 7 rows (more than the unpacked path takes), and a
  // single panel of B (one part is empty). Depth: several blocks of the reduction with an uneven
  // last one. A batch of 3 products on 2 threads: each product split in turn; of 4, a run of
  // two per thread; of 9, one product per unit. Few rows: split over the reduction (an odd
  // depth, its parts on multiples of 4 rows of B), or by columns when it is shallow.
  struct Shape {
    int64_t batch, m, n, k;
  };
  std::vector<Shape> shapes = {{1, 131, 1057, 517}, {1, 7, 1500, 1000}, {1, 250, 96, 700},
                               {1, 601, 40, 400},   {1, 12, 2100, 333}, {3, 150, 140, 130},
                               {1, 10, 8, 120000},  {1, 20, 30, 16000}, {4, 100, 100, 300},
                               {9, 64, 120, 130},   {1, 1, 4100, 2047}, {1, 3, 3000, 1001},
                               {1, 2, 70000, 64}};
  std::mt19937 rng(11);
  auto matmul = runtime::find_packed("raxc.matmul_f32");
  REQUIRE(matmul);
  raxc_set_num_threads(2);
  for (const Shape& s : shapes) {
    CAPTURE(s.batch, s.m, s.n, s.k);
    auto a = random_tensor({s.batch, s.m, s.k}, rng), b = random_tensor({s.batch, s.k, s.n}, rng);
    for (int round = 0; round < 3; ++round) {
      auto c = runtime::Tensor::empty({s.batch, s.m, s.n}, kF32);
      REQUIRE(c);
      (*matmul)({runtime::Value(a), runtime::Value(b), runtime::Value(c)});
      CHECK(wrong_elements(*a, *b, *c, s.batch, s.m, s.n, s.k, false) == 0);
    }
  }
  raxc_set_num_threads(0);
}

TEST_CASE("linear and conv2d on 2 threads: B packed from a transposed weight; a direct convolution",
          "[backend]") {
  std::mt19937 rng(12);
  raxc_set_num_threads(2);
  SECTION("linear: the weight's rows are B's columns") {
    auto linear = runtime::find_packed("raxc.linear_f32");
    REQUIRE(linear);
    int64_t m = 129, n = 300, k = 260;
    auto x = random_tensor({m, k}, rng), w = random_tensor({n, k}, rng);
    auto c = runtime::Tensor::empty({m, n}, kF32);
    (*linear)({runtime::Value(x), runtime::Value(w), runtime::Value(c)});
    CHECK(wrong_elements(*x, *w, *c, 1, m, n, k, true) == 0);
  }
  SECTION("conv2d 3×3, padding 1 (conv2d.cpp; every path in conv2d_test)") {
    auto conv = runtime::find_packed("raxc.conv2d_nchw_f32");
    REQUIRE(conv);
    int64_t ch = 32, hw = 40, outs = 70;
    auto x = random_tensor({1, ch, hw, hw}, rng), w = random_tensor({outs, ch, 3, 3}, rng);
    auto out = runtime::Tensor::empty({1, outs, hw, hw}, kF32);
    // Stride, padding and dilation, all 1 (one list: GCC 12 warns falsely on push_back here).
    const runtime::Value one(runtime::Prim{{kDLInt, 64, 1}, 1, 0});
    std::vector<runtime::Value> args{
        runtime::Value(x),  runtime::Value(w), one, one, one, one, one, one, one, one, one,
        runtime::Value(out)};
    (*conv)(args);
    int bad = 0;
    const float* xp = x->data_as<float>();
    for (int64_t o = 0; o < outs; ++o)
      for (int64_t y = 0; y < hw; ++y)
        for (int64_t z = 0; z < hw; ++z) {
          double want = 0;
          for (int64_t c = 0; c < ch; ++c)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                int64_t iy = y + i - 1, iz = z + j - 1;
                if (iy < 0 || iy >= hw || iz < 0 || iz >= hw) continue;
                want += double(xp[(c * hw + iy) * hw + iz]) *
                        w->data_as<float>()[((o * ch + c) * 3 + i) * 3 + j];
              }
          if (!(std::fabs(out->data_as<float>()[(o * hw + y) * hw + z] - want) <= 1e-3)) ++bad;
        }
    CHECK(bad == 0);
  }
  raxc_set_num_threads(0);
}
