// The float32 convolution kernel (backend/runtime/conv2d.cpp) against a float64 convolution:
// each of its paths (AVX-512 and portable tiles, the 1×1 product on the matmul kernel) on
// shapes that reach every edge of the direct kernel: a last run of positions shorter than a
// tile, output channels not a multiple of a panel, padding on each side, stride 2 (the phase
// split), rows narrower than a vector, dilation, groups, batches, a reduction in several blocks,
// one thread and two.
#include "backend/runtime/conv2d.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/matmul.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/tensor.h"
#include "test/unit/random_tensor.h"

using namespace raxc;
using runtime::Conv2dPath;
using test::random_tensor;

namespace {

const DLDataType kF32{kDLFloat, 32, 1};

struct Shape {
  int64_t images, channels, height, width, outputs, kh, kw;
  int64_t sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0, dh = 1, dw = 1, groups = 1;
  int64_t oh() const { return (height + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (width + pl + pr - dw * (kw - 1) - 1) / sw + 1; }
};

runtime::Value integer(int64_t v) { return runtime::Value(runtime::Prim{{kDLInt, 64, 1}, v, 0}); }

// A fused form's operands: a bias per output channel (null: none), a residual shaped as the
// output (null: none), ReLU.
struct Fused {
  const float* bias = nullptr;
  const float* residual = nullptr;
  bool relu = false;
};

// Output elements off the float64 convolution (and its epilogue) by more than float32 rounding
// allows (an element never written stays NaN and counts).
int wrong_elements(const Shape& s, const float* x, const float* w, const float* out,
                   const Fused& epi = {}) {
  int64_t cg = s.channels / s.groups, og = s.outputs / s.groups, oh = s.oh(), ow = s.ow();
  double tolerance = 1e-4 * (1 + std::sqrt(double(cg * s.kh * s.kw)));
  int bad = 0;
  for (int64_t n = 0; n < s.images; ++n)
    for (int64_t o = 0; o < s.outputs; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double want = 0;
          int64_t g = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                int64_t iy = y * s.sh + i * s.dh - s.pt, iz = z * s.sw + j * s.dw - s.pl;
                if (iy < 0 || iy >= s.height || iz < 0 || iz >= s.width) continue;
                want += double(x[((n * s.channels + g * cg + c) * s.height + iy) * s.width + iz]) *
                        w[((o * cg + c) * s.kh + i) * s.kw + j];
              }
          int64_t at = ((n * s.outputs + o) * oh + y) * ow + z;
          if (epi.bias) want += epi.bias[o];
          if (epi.residual) want += epi.residual[at];
          if (epi.relu) want = std::max(want, 0.0);
          double got = out[at];
          if (!(std::fabs(got - want) <= tolerance)) ++bad;
        }
  return bad;
}

// Runs `s` through `path` (twice: a second call reuses the kept buffers, and the packing kept
// beside the weights when `sealed`), with the epilogue `form` (its bias shaped (K, 1, 1)), and
// counts the wrong elements of both results.
int check(const Shape& s, Conv2dPath path, std::mt19937& rng, runtime::Conv2dEpilogue form = {},
          bool sealed = false) {
  auto x = random_tensor({s.images, s.channels, s.height, s.width}, rng);
  auto w = random_tensor({s.outputs, s.channels / s.groups, s.kh, s.kw}, rng);
  if (sealed) w->seal();
  auto bias = random_tensor({s.outputs, 1, 1}, rng);
  auto residual = random_tensor({s.images, s.outputs, s.oh(), s.ow()}, rng);
  Fused fused{form.bias ? bias->data_as<float>() : nullptr,
              form.residual ? residual->data_as<float>() : nullptr, form.relu};
  int bad = 0;
  for (int round = 0; round < 2; ++round) {
    auto out = runtime::Tensor::empty({s.images, s.outputs, s.oh(), s.ow()}, kF32);
    REQUIRE(out);
    for (int64_t i = 0; i < out->numel(); ++i)
      out->data_as<float>()[i] = std::numeric_limits<float>::quiet_NaN();
    std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(w)};
    if (form.bias) args.emplace_back(bias);
    if (form.residual) args.emplace_back(residual);
    for (int64_t v : {s.sh, s.sw, s.pt, s.pl, s.pb, s.pr, s.dh, s.dw, s.groups})
      args.push_back(integer(v));
    args.emplace_back(out);
    runtime::conv2d_nchw_f32(args, path, form);
    bad +=
        wrong_elements(s, x->data_as<float>(), w->data_as<float>(), out->data_as<float>(), fused);
  }
  return bad;
}

Shape shape(int64_t images, int64_t channels, int64_t size, int64_t outputs, int64_t k,
            int64_t stride, int64_t pad) {
  Shape s{images, channels, size, size, outputs, k, k};
  s.sh = s.sw = stride;
  s.pt = s.pl = s.pb = s.pr = pad;
  return s;
}

}  // namespace

TEST_CASE("conv2d direct kernel: every edge against a float64 convolution", "[backend]") {
  std::vector<std::pair<std::string, Shape>> shapes;
  // 3×3, padding 1: 958 positions (rows of 32, 30 outputs each), the last tile 46 of 48;
  // 20 output channels, the last panel 4 of 8; 288 steps, two blocks of the reduction.
  shapes.push_back({"3x3 pad 1", shape(1, 32, 30, 20, 3, 1, 1)});
  // Stride 2: the source split into 2×2 phases; two images. A 7×7 output reads a dense source
  // (a copy per kernel column) instead.
  shapes.push_back({"3x3 stride 2", shape(2, 12, 41, 16, 3, 2, 1)});
  shapes.push_back({"3x3 stride 2, dense", shape(2, 12, 13, 16, 3, 2, 1)});
  // 1×1, no padding: the image read in place, the last tile's loads masked (196 positions).
  shapes.push_back({"1x1 in place", shape(1, 24, 14, 13, 1, 1, 0)});
  // 7×7 stride 2, padding 3, 3 channels (ResNet's first layer).
  shapes.push_back({"7x7 stride 2", shape(1, 3, 40, 8, 7, 2, 3)});
  // 7² outputs, dense: 48 positions in vectors and the 49th as dot products (the tail), panels
  // of 6 channels, the last of 3. 9² = 81: the tail beside the second tile. 8² = 64: one tile
  // of 6 × 4 vectors. 1×1 on 7², in place: the tail without a copy.
  shapes.push_back({"7x7 image, tail", shape(1, 40, 7, 33, 3, 1, 1)});
  shapes.push_back({"9x9 image, tail", shape(1, 9, 9, 7, 3, 1, 1)});
  shapes.push_back({"8x8 image", shape(1, 20, 8, 13, 3, 1, 1)});
  shapes.push_back({"1x1 on 7x7, tail in place", shape(1, 33, 7, 14, 1, 1, 0)});
  // Dense with dilation 2 along the rows: copy j holds padded columns ow + 2j.
  Shape dilated = shape(1, 5, 7, 6, 3, 1, 1);
  std::tie(dilated.dw, dilated.pl, dilated.pr) = std::tuple{2, 2, 2};
  shapes.push_back({"7x7 image, dilated", dilated});
  // Asymmetric padding, strides (1, 2), dilation (2, 1), 2 groups.
  Shape odd{1, 6, 11, 13, 10, 3, 2};
  std::tie(odd.sh, odd.sw, odd.pt, odd.pl, odd.pb, odd.pr, odd.dh, odd.dw, odd.groups) =
      std::tuple{1, 2, 0, 1, 2, 0, 2, 1, 2};
  shapes.push_back({"asymmetric, dilated, grouped", odd});
  odd.width = 40;  // output 20 wide: the padded, phase-split source
  shapes.push_back({"asymmetric, dilated, grouped, wide", odd});
  // Rows narrower than a vector (a vector's 16 positions cross up to 17 rows), stride 3.
  Shape narrow{2, 5, 23, 2, 9, 3, 1};
  std::tie(narrow.sh, narrow.pt, narrow.pb, narrow.pl, narrow.pr) = std::tuple{3, 1, 2, 0, 0};
  shapes.push_back({"narrow rows", narrow});
  // Depthwise (a group per channel), 3 images.
  Shape depthwise = shape(3, 8, 9, 8, 3, 1, 1);
  depthwise.groups = 8;
  shapes.push_back({"depthwise", depthwise});
  // 1×1 with stride 2 (ResNet's projections): only phase (0, 0) is copied; a 2×2 kernel with
  // stride 3 reads phases 0 and 1 of 3.
  shapes.push_back({"1x1 stride 2", shape(2, 10, 15, 11, 1, 2, 0)});
  shapes.push_back({"2x2 stride 3", shape(1, 6, 17, 5, 2, 3, 1)});
  // An output of one position.
  shapes.push_back({"one position", shape(1, 7, 3, 9, 3, 1, 0)});

  std::mt19937 rng(21);
  for (int threads : {1, 2}) {
    raxc_set_num_threads(threads);
    for (Conv2dPath path : {Conv2dPath::kDirectAvx512, Conv2dPath::kDirectGeneric,
                            Conv2dPath::kGemm, Conv2dPath::kAuto})
      for (const auto& [name, s] : shapes) {
        CAPTURE(name, int(path), threads);
        CHECK(check(s, path, rng) == 0);
      }
  }
  raxc_set_num_threads(0);
}

// Above the kernel's threshold for threads (8M multiply-adds per image).
std::vector<std::pair<std::string, Shape>> parallel_shapes() {
  return {{"3x3 pad 1", shape(1, 64, 32, 72, 3, 1, 1)},
          {"3x3 stride 2", shape(2, 64, 36, 60, 3, 2, 1)},
          {"1x1", shape(1, 128, 28, 100, 1, 1, 0)},
          {"7x7 image, tail", shape(1, 256, 7, 260, 3, 1, 1)},
          {"3x3 stride 2 to 7x7, dense", shape(1, 256, 14, 128, 3, 2, 1)}};
}

TEST_CASE("conv2d direct kernel on 2 threads: a band of tiles per thread, its rows copied",
          "[backend]") {
  // Each thread copies the source rows its band of tiles reads into its own buffer (the first
  // round of a shape finds another shape's data there, so rows a band misses show up).
  std::mt19937 rng(22);
  raxc_set_num_threads(2);
  for (Conv2dPath path : {Conv2dPath::kDirectAvx512, Conv2dPath::kDirectGeneric, Conv2dPath::kAuto})
    for (const auto& [name, s] : parallel_shapes()) {
      CAPTURE(name, int(path));
      CHECK(check(s, path, rng) == 0);
    }
  raxc_set_num_threads(0);
}

// The pool body of the test below: the shapes on one thread, the pool running them inline.
int32_t check_parallel_shapes(int64_t, int64_t, void* bad) {
  std::mt19937 rng(23);
  for (const auto& [name, s] : parallel_shapes())
    *static_cast<int*>(bad) += check(s, Conv2dPath::kDirectAvx512, rng);
  return 0;
}

TEST_CASE("conv2d on 4 threads inside a parallel loop: one thread takes over every band",
          "[backend]") {
  // Called from a pool body, the convolution's own loop runs inline on the one calling thread:
  // it finds its band (the first of four) done and takes the other three, copying each one's
  // rows before its tiles, as a thread does when another is descheduled.
  raxc_set_num_threads(4);
  int bad = 0;
  REQUIRE(raxc_parallel_for(0, 1, check_parallel_shapes, &bad) == 0);
  CHECK(bad == 0);
  raxc_set_num_threads(0);
}

// The channel-vectorised kernel (Conv2dPath::kChannels: 64 output channels × a run of up to
// 7 positions of a row, the taps that read padding skipped) on shapes that reach each of its
// edges. Its tile functions: 7 positions in asm, 1–6 in C++, a row split into tiles of sizes
// differing by at most one; per tap the positions inside the image all, all but the first,
// all but the last, or all but both.
std::vector<std::pair<std::string, Shape>> channel_shapes() {
  std::vector<std::pair<std::string, Shape>> shapes;
  // 13 wide: a tile of 6 (its first position in the padding for the first tap column) and one
  // of 7 (asm; its last in the padding for the last column); 37 channels, 333 steps: two blocks
  // of 19 channels, each with a last run of fewer than 16 steps to pack.
  shapes.push_back({"tiles of 6 and 7, two blocks", shape(1, 37, 13, 64, 3, 1, 1)});
  // 17 wide: tiles of 5, 6 and 6; two panels. 4 wide: one tile, both ends in the padding.
  shapes.push_back({"tiles of 5 and 6", shape(1, 16, 17, 128, 3, 1, 1)});
  shapes.push_back({"a tile of 4", shape(1, 6, 4, 64, 3, 1, 1)});
  // Stride 2: 14 outputs a row (tiles of 7 in asm reading every other pixel) and 15 (tiles of
  // 5, the last one's last position in the right padding); two images.
  shapes.push_back({"stride 2, tiles of 7", shape(1, 20, 28, 64, 3, 2, 1)});
  shapes.push_back({"stride 2, tiles of 5", shape(2, 9, 29, 64, 3, 2, 1)});
  // 1×1: the image one row of 196 positions (28 tiles of 7); with stride 2, rows of 8 (two
  // tiles of 4).
  shapes.push_back({"pointwise", shape(1, 40, 14, 64, 1, 1, 0)});
  shapes.push_back({"pointwise stride 2", shape(1, 24, 15, 64, 1, 2, 0)});
  // 7×7: one tile a row, both its ends in the padding; 2 groups of 64 outputs, 2 images.
  Shape grouped = shape(2, 24, 7, 128, 3, 1, 1);
  grouped.groups = 2;
  shapes.push_back({"7x7, grouped", grouped});
  // 2304 steps: a panel too large to keep packed, packed a block at a time.
  shapes.push_back({"blocks packed one at a time", shape(1, 256, 7, 64, 3, 1, 1)});
  // Rows dilated, padding asymmetric (none on the right): 11 × 10 outputs, tiles of 5.
  Shape dilated{1, 10, 12, 11, 64, 3, 3};
  std::tie(dilated.dh, dilated.pt, dilated.pb, dilated.pl, dilated.pr) = std::tuple{2, 2, 1, 1, 0};
  shapes.push_back({"dilated rows, asymmetric padding", dilated});
  shapes.push_back({"one position", shape(1, 5, 3, 64, 3, 1, 0)});
  // 1×1 with padding 1: every tile wider than the image, both its ends in the padding for the
  // same tap (7 positions, asm; 6, C++).
  shapes.push_back({"both ends in the padding, 7", shape(1, 8, 5, 64, 1, 1, 1)});
  shapes.push_back({"both ends in the padding, 6", shape(1, 8, 4, 64, 1, 1, 1)});
  return shapes;
}

// Above the threshold for threads: units of tiles taken from each thread's band.
std::vector<std::pair<std::string, Shape>> channel_parallel_shapes() {
  return {{"3x3 pad 1", shape(1, 64, 28, 128, 3, 1, 1)},
          {"3x3 stride 2", shape(1, 128, 14, 256, 3, 2, 1)},
          {"1x1", shape(1, 256, 14, 256, 1, 1, 0)},
          {"7x7 image", shape(1, 160, 7, 192, 3, 1, 1)}};
}

TEST_CASE("conv2d channel-vectorised kernel: every edge against a float64 convolution",
          "[backend]") {
  if (runtime::matmul_uses_generic_kernel()) return;  // the kernel is AVX-512 only
  std::mt19937 rng(24);
  for (int threads : {1, 2}) {
    raxc_set_num_threads(threads);
    for (const auto& [name, s] : channel_shapes()) {
      CAPTURE(name, threads);
      CHECK(check(s, Conv2dPath::kChannels, rng) == 0);
    }
    for (const auto& [name, s] : channel_parallel_shapes()) {
      CAPTURE(name, threads);
      CHECK(check(s, Conv2dPath::kChannels, rng) == 0);
    }
  }
  raxc_set_num_threads(0);
}

TEST_CASE("conv2d channel-vectorised kernel: sealed weights packed once, every edge", "[backend]") {
  if (runtime::matmul_uses_generic_kernel()) return;
  std::mt19937 rng(26);
  for (int threads : {1, 2}) {
    raxc_set_num_threads(threads);
    for (const auto& [name, s] : channel_shapes()) {
      CAPTURE(name, threads);
      CHECK(check(s, Conv2dPath::kChannels, rng, {}, true) == 0);
      CHECK(check(s, Conv2dPath::kChannels, rng, {true, true, true}, true) == 0);
    }
    for (const auto& [name, s] : channel_parallel_shapes()) {
      CAPTURE(name, threads);
      CHECK(check(s, Conv2dPath::kChannels, rng, {}, true) == 0);
    }
  }
  raxc_set_num_threads(0);
}

// The weights' elements changed after a first call: a sealed tensor promised they would not, so
// the second call computes with the packing kept from the first; an unsealed one is packed again
// (at batch 2 too, where a call packs once for both images).
TEST_CASE("conv2d: the packing kept beside sealed weights serves later calls, only theirs",
          "[backend]") {
  if (runtime::matmul_uses_generic_kernel()) return;
  std::mt19937 rng(27);
  for (int64_t images : {1, 2})
    for (bool sealed : {true, false}) {
      CAPTURE(images, sealed);
      Shape s = shape(images, 32, 7, 128, 3, 1, 1);
      auto x = random_tensor({s.images, s.channels, s.height, s.width}, rng);
      auto w = random_tensor({s.outputs, s.channels, s.kh, s.kw}, rng);
      auto first = random_tensor({s.outputs, s.channels, s.kh, s.kw}, rng);
      for (int64_t i = 0; i < w->numel(); ++i) first->data_as<float>()[i] = w->data_as<float>()[i];
      if (sealed) w->seal();
      for (int call = 0; call < 2; ++call) {
        auto out = runtime::Tensor::empty({s.images, s.outputs, s.oh(), s.ow()}, kF32);
        REQUIRE(out);
        std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(w)};
        for (int64_t v : {s.sh, s.sw, s.pt, s.pl, s.pb, s.pr, s.dh, s.dw, s.groups})
          args.push_back(integer(v));
        args.emplace_back(out);
        runtime::conv2d_nchw_f32(args, Conv2dPath::kChannels, {});
        const float* used = call == 1 && sealed ? first->data_as<float>() : w->data_as<float>();
        CHECK(wrong_elements(s, x->data_as<float>(), used, out->data_as<float>()) == 0);
        for (int64_t i = 0; i < w->numel(); ++i) w->data_as<float>()[i] *= -2;  // broken promise
      }
    }
}

// The pool body of the test below.
int32_t check_channel_parallel_shapes(int64_t, int64_t, void* bad) {
  std::mt19937 rng(25);
  for (const auto& [name, s] : channel_parallel_shapes())
    *static_cast<int*>(bad) += check(s, Conv2dPath::kChannels, rng);
  return 0;
}

TEST_CASE("conv2d channel-vectorised kernel inside a parallel loop: one thread takes every band",
          "[backend]") {
  if (runtime::matmul_uses_generic_kernel()) return;
  raxc_set_num_threads(4);
  int bad = 0;
  REQUIRE(raxc_parallel_for(0, 1, check_channel_parallel_shapes, &bad) == 0);
  CHECK(bad == 0);
  raxc_set_num_threads(0);
}

TEST_CASE("conv2d channel-vectorised kernel: a shape it does not take is RX5032", "[backend]") {
  if (runtime::matmul_uses_generic_kernel()) return;
  std::mt19937 rng(26);
  // 20 output channels (not a multiple of 64); 5×5 with padding 2 (two positions of a tile in
  // the padding).
  for (const Shape& s : {shape(1, 4, 9, 20, 3, 1, 1), shape(1, 4, 9, 64, 5, 1, 2)}) {
    try {
      check(s, Conv2dPath::kChannels, rng);
      FAIL("no error");
    } catch (const runtime::RuntimeError& e) {
      CHECK(e.code == "RX5032");
    }
  }
}

TEST_CASE("conv2d: operands that do not match are RX5032", "[backend]") {
  std::mt19937 rng(23);
  auto x = random_tensor({1, 4, 5, 5}, rng), w = random_tensor({3, 4, 3, 3}, rng);
  auto out = runtime::Tensor::empty({1, 3, 4, 4}, kF32);  // 3×3 on 5×5 gives 3×3
  std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(w), integer(1),
                                   integer(1),        integer(0),        integer(0),
                                   integer(0),        integer(0),        integer(1),
                                   integer(1),        integer(1),        runtime::Value(out)};
  try {
    runtime::conv2d_nchw_f32(args, Conv2dPath::kAuto);
    FAIL("no error");
  } catch (const runtime::RuntimeError& e) {
    CHECK(e.code == "RX5032");
  }
}

// Every epilogue form (bias, residual, ReLU, each optional, in that order) on every path, where
// each unit of work applies it to the outputs it completed: runs of tiles ending inside a row
// or in the columns thrown away, a panel's last channels, the 49th position computed beside the
// vectors, groups and batches, and units split over two threads.
TEST_CASE("conv2d epilogues: bias, residual and ReLU on every path", "[backend]") {
  std::vector<std::pair<std::string, Shape>> shapes = {
      {"3x3 pad 1", shape(1, 32, 30, 20, 3, 1, 1)},
      {"3x3 stride 2, two images", shape(2, 12, 41, 16, 3, 2, 1)},
      {"1x1 in place", shape(1, 24, 14, 13, 1, 1, 0)},
      {"7x7 image, tail", shape(1, 40, 7, 33, 3, 1, 1)},
      {"an empty sum", shape(1, 0, 5, 4, 3, 1, 1)},
  };
  Shape grouped = shape(2, 8, 9, 6, 3, 1, 1);
  grouped.groups = 2;
  shapes.push_back({"grouped", grouped});
  std::vector<std::pair<std::string, Shape>> channel = {
      {"channels: tiles of 6 and 7, two blocks", shape(1, 37, 13, 64, 3, 1, 1)},
      {"channels: pointwise", shape(1, 40, 14, 64, 1, 1, 0)},
      {"channels: 7x7, grouped, two images", shape(2, 24, 7, 128, 3, 1, 1)},
  };
  channel[2].second.groups = 2;
  auto check_all = [](const std::vector<std::pair<std::string, Shape>>& direct,
                      const std::vector<std::pair<std::string, Shape>>& channels,
                      runtime::Conv2dEpilogue form, std::mt19937& rng) {
    for (Conv2dPath path : {Conv2dPath::kDirectAvx512, Conv2dPath::kDirectGeneric,
                            Conv2dPath::kGemm, Conv2dPath::kAuto})
      for (const auto& [name, s] : direct) {
        CAPTURE(name, int(path), form.suffix());
        CHECK(check(s, path, rng, form) == 0);
      }
    if (runtime::matmul_uses_generic_kernel()) return;  // the channel kernel is AVX-512 only
    for (const auto& [name, s] : channels) {
      CAPTURE(name, form.suffix());
      CHECK(check(s, Conv2dPath::kChannels, rng, form) == 0);
    }
  };

  std::mt19937 rng(27);
  raxc_set_num_threads(1);
  for (int flags = 1; flags < 8; ++flags)
    check_all(shapes, channel, {(flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0}, rng);
  // Units on two threads, each finishing its own.
  raxc_set_num_threads(2);
  check_all(parallel_shapes(), channel_parallel_shapes(), {true, true, true}, rng);
  raxc_set_num_threads(0);
}

TEST_CASE("conv2d epilogue: ReLU keeps a NaN, as the generated max does", "[backend]") {
  std::mt19937 rng(28);
  Shape s = shape(1, 16, 8, 64, 3, 1, 1);
  for (Conv2dPath path :
       {Conv2dPath::kDirectAvx512, Conv2dPath::kDirectGeneric, Conv2dPath::kChannels}) {
    if (path == Conv2dPath::kChannels && runtime::matmul_uses_generic_kernel()) continue;
    auto x = random_tensor({1, 16, 8, 8}, rng), w = random_tensor({64, 16, 3, 3}, rng);
    auto residual = random_tensor({1, 64, 8, 8}, rng);
    residual->data_as<float>()[5] = std::numeric_limits<float>::quiet_NaN();
    residual->data_as<float>()[6] = -1e30f;  // ReLU gives 0
    auto out = runtime::Tensor::empty({1, 64, 8, 8}, kF32);
    std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(w),
                                     runtime::Value(residual)};
    for (int64_t v : {s.sh, s.sw, s.pt, s.pl, s.pb, s.pr, s.dh, s.dw, s.groups})
      args.push_back(integer(v));
    args.emplace_back(out);
    runtime::conv2d_nchw_f32(args, path, runtime::Conv2dEpilogue{false, true, true});
    CAPTURE(int(path));
    CHECK(std::isnan(out->data_as<float>()[5]));
    CHECK(out->data_as<float>()[6] == 0.0f);
    CHECK(out->data_as<float>()[7] >= 0.0f);
  }
}

TEST_CASE("conv2d epilogue: a bias or residual that does not fit is RX5032", "[backend]") {
  std::mt19937 rng(29);
  auto x = random_tensor({1, 4, 5, 5}, rng), w = random_tensor({3, 4, 3, 3}, rng);
  auto out = runtime::Tensor::empty({1, 3, 3, 3}, kF32);
  auto run = [&](std::vector<runtime::TensorPtr> extra, runtime::Conv2dEpilogue form) {
    std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(w)};
    for (auto& t : extra) args.emplace_back(t);
    for (int64_t v : {1, 1, 0, 0, 0, 0, 1, 1, 1}) args.push_back(integer(v));
    args.emplace_back(out);
    try {
      runtime::conv2d_nchw_f32(args, Conv2dPath::kAuto, form);
      return std::string("no error");
    } catch (const runtime::RuntimeError& e) {
      return e.code;
    }
  };
  // Near misses: a bias of one value per channel in any shape, a residual shaped as the output.
  CHECK(run({random_tensor({1, 3, 1, 1}, rng)}, {true, false, false}) == "no error");
  CHECK(run({random_tensor({3}, rng), random_tensor({1, 3, 3, 3}, rng)}, {true, true, true}) ==
        "no error");
  CHECK(run({random_tensor({4, 1, 1}, rng)}, {true, false, false}) == "RX5032");
  CHECK(run({random_tensor({1, 3, 3, 4}, rng)}, {false, true, false}) == "RX5032");
  CHECK(run({}, {true, false, false}) == "RX5032");  // the bias missing
}
