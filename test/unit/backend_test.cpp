// The backend below the command line: runtime tensors and half-precision conversions, the
// thread pool (chunks, errors moved to the caller, nesting), compiled kernels called directly
// with DLTensors (entry checks and their error sites), and the executor on analysed modules.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "analysis/engine.h"
#include "backend/exec/checks.h"
#include "backend/exec/executor.h"
#include "backend/exec/kernels.h"
#include "backend/runtime/error.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/tensor.h"
#include "frontend/frontend.h"
#include "test/unit/random_tensor.h"

using namespace raxc;

namespace {

const char* kAddOne = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(var_x: T.handle, var_y: T.handle):
        n = T.int64()
        x = T.match_buffer(var_x, (n,))
        y = T.match_buffer(var_y, (n,))
        for i in T.parallel(n):
            with T.block("y"):
                v = T.axis.spatial(n, i)
                y[v] = x[v] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((n,), dtype="float32"))
        return y
)";

runtime::TensorPtr vector_of(std::vector<float> values) {
  auto t =
      runtime::Tensor::empty({static_cast<int64_t>(values.size())}, DLDataType{kDLFloat, 32, 1});
  for (size_t i = 0; i < values.size(); ++i) t->set_f64(static_cast<int64_t>(i), values[i]);
  return t;
}

// Compiles the module `source` and calls its PrimFunc `name` with `tensors` as arguments (they
// must outlive the call); the kernel's status (0: ran).
int call_kernel(const std::string& source, const char* name,
                const std::vector<runtime::TensorPtr>& tensors) {
  frontend::ParsedFile file = frontend::parse_file(source);
  REQUIRE_FALSE(file.has_errors());
  DiagnosticSink sink;
  auto kernels = backend::KernelLibrary::compile(*file.module, {}, sink, nullptr);
  REQUIRE(kernels);
  RaxcPackedFunc kernel = kernels->find(name);
  REQUIRE(kernel);
  std::vector<RaxcArg> args(tensors.size());
  std::vector<int32_t> kinds(tensors.size(), RAXC_ARG_TENSOR);
  for (size_t i = 0; i < tensors.size(); ++i) args[i].tensor = tensors[i]->dl();
  RaxcArg ret{};
  return kernel(args.data(), kinds.data(), static_cast<int32_t>(args.size()), &ret);
}

// The LLVM IR of `source`'s kernels, optimised or as emitted.
std::string kernel_ir(const std::string& source, bool optimize) {
  frontend::ParsedFile file = frontend::parse_file(source);
  REQUIRE_FALSE(file.has_errors());
  DiagnosticSink sink;
  auto ir = backend::KernelLibrary::llvm_ir(*file.module, {}, optimize, sink);
  REQUIRE(ir);
  return *ir;
}

}  // namespace

TEST_CASE("runtime tensors: sizes, overflow, element access", "[backend]") {
  DLDataType f32{kDLFloat, 32, 1};
  CHECK(runtime::Tensor::byte_size({2, 3}, f32) == 24);
  CHECK(runtime::Tensor::byte_size({0, 5}, f32) == 0);
  CHECK_FALSE(runtime::Tensor::byte_size({-1}, f32).has_value());
  CHECK_FALSE(runtime::Tensor::byte_size({int64_t(1) << 40, int64_t(1) << 40}, f32).has_value());
  CHECK(runtime::Tensor::empty({int64_t(1) << 40, int64_t(1) << 40}, f32) == nullptr);
  auto t = runtime::Tensor::empty({2, 2}, f32);
  REQUIRE(t);
  CHECK(reinterpret_cast<uintptr_t>(t->data()) % runtime::kAllocAlignment == 0);
  t->set_f64(3, 2.5);
  CHECK(t->get_f64(3) == 2.5);
  CHECK(t->get_f64(0) == 0.0);  // zero-filled
  CHECK(runtime::dtype_name(DLDataType{kDLUInt, 1, 1}) == "bool");
  CHECK(runtime::parse_dtype("bfloat16")->code == kDLBfloat);
  CHECK_FALSE(runtime::parse_dtype("float7").has_value());
}

TEST_CASE("runtime tensors: a reused large block is zero-filled again", "[backend]") {
  // Blocks of 256 KiB and up are cached when freed and handed out again (tensor.cpp): the next
  // tensor of that size must still start zeroed and aligned, also past 2 MiB (huge pages).
  DLDataType f32{kDLFloat, 32, 1};
  for (int64_t n : {int64_t(300) * 1024, int64_t(3) << 20}) {
    void* first = nullptr;
    {
      auto t = runtime::Tensor::empty({n}, f32);
      REQUIRE(t);
      first = t->data();
      for (int64_t i = 0; i < n; i += 4099) t->set_f64(i, 7.0);
      t->set_f64(n - 1, 7.0);
    }
    auto again = runtime::Tensor::empty({n}, f32);
    REQUIRE(again);
    CHECK(again->data() == first);  // the freed block, not fresh pages
    CHECK(reinterpret_cast<uintptr_t>(again->data()) % runtime::kAllocAlignment == 0);
    bool zero = true;
    for (int64_t i = 0; i < n; ++i) zero = zero && again->get_f64(i) == 0.0;
    CHECK(zero);
  }
}

TEST_CASE("runtime pool: cached blocks stay within the bound; workspaces are pooled", "[backend]") {
  DLDataType f32{kDLFloat, 32, 1};
  auto within_high_water = [] {
    runtime::PoolUsage u = runtime::pool_usage();
    return u.in_use + u.cached <= u.bound && u.bound <= 2 * u.high_water + (size_t(12) << 20);
  };
  // Three blocks of one size freed, then blocks of other sizes: caching the freed ones beside
  // the new ones would pass the most ever in use at once.
  const int64_t mib = int64_t(1) << 18;  // float32 elements in 1 MiB
  {
    auto a = runtime::Tensor::empty({3 * mib}, f32), b = runtime::Tensor::empty({3 * mib}, f32);
    auto c = runtime::Tensor::empty({3 * mib}, f32);
    REQUIRE((a && b && c));
  }
  CHECK(within_high_water());
  for (int64_t size : {5, 7, 11}) {
    auto t = runtime::Tensor::empty({size * mib}, f32, runtime::Tensor::Fill::Undefined);
    REQUIRE(t);
    CHECK(within_high_water());
  }
  // A kernel's workspace of 3 MiB comes from the pool (and goes back to it).
  size_t before = runtime::pool_usage().in_use;
  void* w = raxc_workspace_alloc(int64_t(3) << 20, nullptr);
  REQUIRE(w);
  CHECK(reinterpret_cast<uintptr_t>(w) % runtime::kAllocAlignment == 0);
  std::memset(w, 1, size_t(3) << 20);
  CHECK(runtime::pool_usage().in_use >= before + (size_t(3) << 20));
  raxc_workspace_free(w);
  CHECK(runtime::pool_usage().in_use == before);
}

namespace {

// After two warm-up calls, five more take no block from the system, and the pool stays within
// its bound.
void check_warm_calls_map_nothing(const std::function<void()>& call) {
  call();
  call();
  size_t warm = runtime::pool_usage().mapped;
  for (int i = 0; i < 5; ++i) call();
  CHECK(runtime::pool_usage().mapped == warm);
  runtime::PoolUsage u = runtime::pool_usage();
  CHECK(u.in_use + u.cached <= u.bound);
}

}  // namespace

TEST_CASE("runtime pool: a repeated call takes no fresh blocks", "[backend]") {
  // One "call" of a network: intermediates of a few sizes, alive in an order that does not
  // free a size before the next request of it (as the transformer block's are) and a kernel's
  // workspace. Matching blocks by exact size under the high-water mark alone gave blocks back
  // and mapped fresh ones (fresh pages: 10-20 us each) on every call.
  DLDataType f32{kDLFloat, 32, 1};
  const int64_t kib = 256;  // float32 elements in 1 KiB
  auto call = [&] {
    auto x = runtime::Tensor::empty({768 * kib}, f32, runtime::Tensor::Fill::Undefined);
    auto y = runtime::Tensor::empty({768 * kib}, f32, runtime::Tensor::Fill::Undefined);
    x.reset();
    auto z = runtime::Tensor::empty({1536 * kib}, f32, runtime::Tensor::Fill::Undefined);
    y.reset();
    void* w = raxc_workspace_alloc(int64_t(768) << 10, nullptr);
    auto v = runtime::Tensor::empty({384 * kib}, f32, runtime::Tensor::Fill::Undefined);
    z.reset();
    auto u = runtime::Tensor::empty({2048 * kib}, f32, runtime::Tensor::Fill::Undefined);
    raxc_workspace_free(w);
    REQUIRE((w && v && u));
  };
  check_warm_calls_map_nothing(call);
}

TEST_CASE("runtime pool: a large free block holds smaller tensors and is whole again after",
          "[backend]") {
  // The smallest cached block that holds a request serves it, split when 256 KiB or more is
  // left; freed pieces merge with free neighbours, in whatever order they are freed.
  DLDataType f32{kDLFloat, 32, 1};
  const int64_t mib = int64_t(1) << 18;  // float32 elements in 1 MiB
  runtime::release_cached_blocks();
  auto inside = [](const runtime::TensorPtr& t, uintptr_t begin, size_t bytes) {
    auto at = reinterpret_cast<uintptr_t>(t->data());
    return at >= begin && at + size_t(t->nbytes()) <= begin + bytes;
  };
  uintptr_t big = 0;
  {
    auto t = runtime::Tensor::empty({24 * mib}, f32, runtime::Tensor::Fill::Undefined);
    REQUIRE(t);
    big = reinterpret_cast<uintptr_t>(t->data());
  }
  size_t mapped = runtime::pool_usage().mapped;
  for (int order = 0; order < 3; ++order) {
    std::vector<runtime::TensorPtr> parts;
    for (int64_t size : {6, 6, 3, 5}) parts.push_back(runtime::Tensor::empty({size * mib}, f32));
    for (const auto& t : parts) {
      REQUIRE(t);
      CHECK(inside(t, big, size_t(24) << 20));
      bool zero = true;
      for (int64_t i = 0; i < t->numel(); i += 1021) zero = zero && t->get_f64(i) == 0.0;
      CHECK(zero);  // zero-filled, though the block held other data
      t->set_f64(0, 5.0);
    }
    // Freed middle first, last first, in order: each time the 24 MiB come back whole.
    std::vector<size_t> free_order = order == 0   ? std::vector<size_t>{1, 3, 0, 2}
                                     : order == 1 ? std::vector<size_t>{3, 2, 1, 0}
                                                  : std::vector<size_t>{0, 1, 2, 3};
    for (size_t i : free_order) parts[i].reset();
    auto whole = runtime::Tensor::empty({24 * mib}, f32, runtime::Tensor::Fill::Undefined);
    REQUIRE(whole);
    CHECK(reinterpret_cast<uintptr_t>(whole->data()) == big);
  }
  CHECK(runtime::pool_usage().mapped == mapped);
  runtime::PoolUsage u = runtime::pool_usage();
  CHECK(u.in_use + u.cached <= u.bound);
}

TEST_CASE("runtime pool: a large early result and smaller later tensors map nothing again",
          "[backend]") {
  // ResNet-18's call at batch 8: its first result (26 MB) is freed early, then tensors of a
  // quarter of it come and go. Taking only blocks of up to twice the size, the pool gave the
  // large block back to make room for them and mapped it again on every call.
  DLDataType f32{kDLFloat, 32, 1};
  const int64_t mib = int64_t(1) << 18;
  auto call = [&] {
    auto input = runtime::Tensor::empty({5 * mib}, f32, runtime::Tensor::Fill::Undefined);
    auto first = runtime::Tensor::empty({26 * mib}, f32, runtime::Tensor::Fill::Undefined);
    auto pooled = runtime::Tensor::empty({6 * mib}, f32, runtime::Tensor::Fill::Undefined);
    first.reset();
    runtime::TensorPtr a = pooled, b;
    for (int layer = 0; layer < 6; ++layer) {  // each layer's result from the one before
      b = runtime::Tensor::empty({(layer < 3 ? 6 : 3) * mib}, f32,
                                 runtime::Tensor::Fill::Undefined);
      REQUIRE(b);
      a = std::move(b);
    }
    pooled.reset();
  };
  check_warm_calls_map_nothing(call);
}

TEST_CASE("matmul kernels: random shapes against a float64 product", "[backend]") {
  // raxc.matmul_f32 and raxc.linear_f32 (runtime/matmul.cpp) over seeded random shapes: every
  // tiling edge, the unpacked few-row path, A and B read in place or packed, 1 and 2 threads.
  // The portable micro-kernel is the same code path under RAXC_MATMUL_GENERIC (ops suite).
  std::mt19937 rng(7);
  DLDataType f32{kDLFloat, 32, 1};
  auto matmul = runtime::find_packed("raxc.matmul_f32");
  auto linear = runtime::find_packed("raxc.linear_f32");
  REQUIRE(matmul);
  REQUIRE(linear);
  int bad = 0;
  for (int it = 0; it < 120; ++it) {
    raxc_set_num_threads(1 + it % 2);
    bool big = it % 10 == 0, lin = it % 3 == 0;
    int64_t m = rng() % (big ? 300 : 40), n = rng() % (big ? 1100 : 70);
    int64_t k = rng() % (big ? 300 : 280);
    if (it % 7 == 0) m = 1 + rng() % 4;
    auto a = runtime::Tensor::empty({m, k}, f32);
    auto b = lin ? runtime::Tensor::empty({n, k}, f32) : runtime::Tensor::empty({k, n}, f32);
    auto c = runtime::Tensor::empty({m, n}, f32);
    std::uniform_real_distribution<float> draw(-1, 1);
    for (int64_t i = 0; i < a->numel(); ++i) a->data_as<float>()[i] = draw(rng);
    for (int64_t i = 0; i < b->numel(); ++i) b->data_as<float>()[i] = draw(rng);
    (lin ? *linear : *matmul)({runtime::Value(a), runtime::Value(b), runtime::Value(c)});
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += double(a->data_as<float>()[i * k + p]) *
                  (lin ? b->data_as<float>()[j * k + p] : b->data_as<float>()[p * n + j]);
        if (std::fabs(c->data_as<float>()[i * n + j] - want) > 1e-4 * (1 + std::sqrt(double(k))))
          ++bad;
      }
  }
  raxc_set_num_threads(0);
  CHECK(bad == 0);
}

namespace {

// Runs raxc.matmul_f32 on random (m × k)·(k × n) operands and counts the elements of the
// result further than `tolerance` from the product summed in float64.
int wrong_product_elements(int64_t m, int64_t n, int64_t k, std::mt19937& rng, double tolerance) {
  auto matmul = runtime::find_packed("raxc.matmul_f32");
  REQUIRE(matmul);
  auto a = test::random_tensor({m, k}, rng), b = test::random_tensor({k, n}, rng);
  auto c = runtime::Tensor::empty({m, n}, DLDataType{kDLFloat, 32, 1});
  REQUIRE(c);
  (*matmul)({runtime::Value(a), runtime::Value(b), runtime::Value(c)});
  int bad = 0;
  std::vector<double> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(want.begin(), want.end(), 0.0);
    for (int64_t p = 0; p < k; ++p) {
      double x = a->data_as<float>()[i * k + p];
      const float* row = b->data_as<float>() + p * n;
      for (int64_t j = 0; j < n; ++j) want[size_t(j)] += x * row[j];
    }
    for (int64_t j = 0; j < n; ++j)
      bad += !(std::fabs(c->data_as<float>()[i * n + j] - want[size_t(j)]) <= tolerance);
  }
  return bad;
}

}  // namespace

TEST_CASE("matmul: up to 256 rows of A packed once for all of B's blocks of columns", "[backend]") {
  // One thread, more columns than a block of B (1024) and two blocks of the reduction: 256 rows
  // (22 panels, 264 rows packed) take the path that packs all of A per block of the reduction,
  // 257 the one that packs it per block of B.
  std::mt19937 rng(8);
  raxc_set_num_threads(1);
  for (int64_t m : {13, 256, 257}) {
    CAPTURE(m);
    CHECK(wrong_product_elements(m, 1100, 600, rng, 1e-3) == 0);
  }
  raxc_set_num_threads(0);
}

TEST_CASE("matmul: a few rows over many columns (GEMV), in blocks of 4096 or 2048 columns",
          "[backend]") {
  // The unpacked path of up to 4 rows: 1 and 2 rows in blocks of 4096 columns, 3 and 4 in
  // blocks of 2048; 5000 columns end in a partial vector; 37 rows of B, one step of a single
  // row after nine of four; on 2 threads the columns are split into units.
  std::mt19937 rng(9);
  for (int threads : {1, 2})
    for (int64_t m : {1, 2, 3, 4}) {
      raxc_set_num_threads(threads);
      CAPTURE(threads, m);
      CHECK(wrong_product_elements(m, 5000, 37, rng, 1e-4) == 0);
    }
  raxc_set_num_threads(0);
}

TEST_CASE("runtime: float16 and bfloat16 conversions round to nearest even", "[backend]") {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 5.9604645e-08f})
    CHECK(runtime::half_to_float(runtime::float_to_half(f)) == f);
  CHECK(std::isinf(runtime::half_to_float(runtime::float_to_half(1e6f))));
  CHECK(std::isnan(runtime::half_to_float(runtime::float_to_half(std::nanf("")))));
  CHECK(runtime::bfloat_to_float(runtime::float_to_bfloat(1.0f)) == 1.0f);
  // 1 + 2^-8 is halfway between two bfloat16 values: it rounds to the even one, 1.0.
  CHECK(runtime::bfloat_to_float(runtime::float_to_bfloat(1.00390625f)) == 1.0f);
}

TEST_CASE("thread pool: every index once, errors reach the caller", "[backend]") {
  raxc_set_num_threads(2);
  static std::atomic<int64_t> sum;
  sum = 0;
  auto add = [](int64_t b, int64_t e, void*) -> int32_t {
    for (int64_t i = b; i < e; ++i) sum += i;
    return 0;
  };
  REQUIRE(raxc_parallel_for(0, 1000, add, nullptr) == 0);
  CHECK(sum == 999 * 1000 / 2);

  SECTION("RX5009 raised in a worker's chunk is the caller's error") {
    static const char* const args[] = {"boom"};
    static const RaxcErrorSite site{"RX5009", 3, 7, 1, 0, args};
    auto fail_high = [](int64_t b, int64_t e, void*) -> int32_t {
      return e > 900 && b <= 900 ? raxc_fail(&site, 0, 0, 0) : 0;
    };
    CHECK(raxc_parallel_for(0, 1000, fail_high, nullptr) == 1);
    auto e = runtime::take_last_error();
    REQUIRE(e);
    CHECK(e->code == "RX5009");
    CHECK(e->args == std::vector<std::string>{"boom"});
  }
  SECTION("near miss for RX5009: nothing fails, nothing is recorded") {
    CHECK(raxc_parallel_for(0, 10, add, nullptr) == 0);
    CHECK_FALSE(runtime::take_last_error().has_value());
  }
  SECTION("a parallel loop inside a parallel body runs serially") {
    sum = 0;
    auto outer = [](int64_t b, int64_t e, void*) -> int32_t {
      auto inner = [](int64_t ib, int64_t ie, void*) -> int32_t {
        for (int64_t i = ib; i < ie; ++i) sum += 1;
        return 0;
      };
      for (int64_t i = b; i < e; ++i)
        if (raxc_parallel_for(0, 10, inner, nullptr) != 0) return 1;
      return 0;
    };
    CHECK(raxc_parallel_for(0, 8, outer, nullptr) == 0);
    CHECK(sum == 80);
  }
}

// A module of `count` PrimFuncs k0, k1, ...: k<i> adds i to each element, or, when i is in
// `refused`, makes i calls of T.ldexp (which the code generator refuses): the later refused
// kernels are the larger ones, so they land in different compile groups first.
std::string many_kernels(int count, std::vector<int> refused) {
  std::string text = "@I.ir_module\nclass Module:\n";
  for (int i = 0; i < count; ++i) {
    bool refuse = std::find(refused.begin(), refused.end(), i) != refused.end();
    text += "    @T.prim_func\n    def k" + std::to_string(i) +
            "(a: T.Buffer((4,), \"float32\"), o: T.Buffer((4,), \"float32\")):\n"
            "        for j in range(4):\n";
    if (!refuse) text += "            o[j] = a[j] + T.float32(" + std::to_string(i) + ")\n";
    for (int k = 0; refuse && k < i; ++k)
      text += "            o[j] = T.ldexp(a[j], T.float32(2))\n";
  }
  return text;
}

TEST_CASE("kernels: compiled in groups on several threads, each found, refusals in order",
          "[backend]") {
  // Every kernel of a module compiled on the threads works and is its own.
  for (int i : {0, 5, 11}) {
    auto a = vector_of({1, 2, 3, 4}), o = vector_of({0, 0, 0, 0});
    REQUIRE(call_kernel(many_kernels(12, {}), ("k" + std::to_string(i)).c_str(), {a, o}) == 0);
    CHECK(o->get_f64(3) == 4.0 + i);
  }
  // Refusals from kernels that land in different groups come in the module's order.
  frontend::ParsedFile file = frontend::parse_file(many_kernels(12, {1, 6, 10}));
  REQUIRE_FALSE(file.has_errors());
  DiagnosticSink sink;
  CHECK_FALSE(backend::KernelLibrary::compile(*file.module, {}, sink, nullptr));
  const std::vector<Diagnostic>& diags = sink.diagnostics();
  REQUIRE(diags.size() == 1 + 6 + 10);  // one per call of T.ldexp
  CHECK(diags.front().message.find("'k1'") != std::string::npos);
  CHECK(diags.back().message.find("'k10'") != std::string::npos);
  bool in_order = true;
  for (size_t i = 1; i < diags.size(); ++i)
    in_order = in_order && diags[i - 1].span.begin < diags[i].span.begin;
  CHECK(in_order);
}

TEST_CASE("kernels: a compiled PrimFunc checks its arguments", "[backend]") {
  frontend::ParsedFile file = frontend::parse_file(kAddOne);
  REQUIRE_FALSE(file.has_errors());
  DiagnosticSink sink;
  auto kernels = backend::KernelLibrary::compile(*file.module, {}, sink, nullptr);
  REQUIRE(kernels);
  RaxcPackedFunc add_one = kernels->find("add_one");
  REQUIRE(add_one);
  CHECK(kernels->find("main") == nullptr);  // Relax functions are not kernels

  auto x = vector_of({1, 2, 3});
  auto y = runtime::Tensor::empty({3}, DLDataType{kDLFloat, 32, 1});
  RaxcArg args[2];
  int32_t kinds[2] = {RAXC_ARG_TENSOR, RAXC_ARG_TENSOR};
  args[0].tensor = x->dl();
  args[1].tensor = y->dl();
  RaxcArg ret{};
  SECTION("near miss for RX5006: matching shapes run") {
    REQUIRE(add_one(args, kinds, 2, &ret) == 0);
    CHECK(y->get_f64(2) == 4.0);
  }
  SECTION("RX5006: the output's dimension disagrees with n bound by the input") {
    auto short_y = runtime::Tensor::empty({2}, DLDataType{kDLFloat, 32, 1});
    args[1].tensor = short_y->dl();
    REQUIRE(add_one(args, kinds, 2, &ret) == 1);
    auto e = runtime::take_last_error();
    REQUIRE(e);
    CHECK(e->code == "RX5006");
    CHECK(e->args == std::vector<std::string>{"y", "add_one", "0", "2", "3"});
  }
  SECTION("RX5002 and RX5003: wrong count and kind") {
    CHECK(add_one(args, kinds, 1, &ret) == 1);
    CHECK(runtime::take_last_error()->code == "RX5002");
    kinds[1] = RAXC_ARG_INT;
    CHECK(add_one(args, kinds, 2, &ret) == 1);
    CHECK(runtime::take_last_error()->code == "RX5003");
  }
  SECTION("RX5005: dtype") {
    auto ints = runtime::Tensor::empty({3}, DLDataType{kDLInt, 32, 1});
    args[0].tensor = ints->dl();
    CHECK(add_one(args, kinds, 2, &ret) == 1);
    CHECK(runtime::take_last_error()->code == "RX5005");
  }
}

// A module's text analysed and its kernels compiled: what an Executor runs.
struct Compiled {
  analysis::Engine engine;
  const ir::IRModule* module = nullptr;
  std::unique_ptr<backend::KernelLibrary> kernels;
  backend::Program program;

  explicit Compiled(const std::string& text) {
    engine.open("m.rx", text);
    REQUIRE(engine.diagnostics("m.rx").empty());
    module = &engine.document("m.rx")->module();
    DiagnosticSink sink;
    kernels = backend::KernelLibrary::compile(*module, {}, sink, nullptr);
    REQUIRE(kernels);
    program = {module,
               [this](const ir::GlobalDef& g) { return engine.normalized("m.rx", g.gvar->name); },
               {}};
  }
};

TEST_CASE("executor: runs an analysed function, checks its parameters", "[backend]") {
  Compiled compiled(kAddOne);
  const ir::IRModule& module = *compiled.module;
  backend::Executor executor(compiled.program, *compiled.kernels);
  Diagnostic error;
  auto result = executor.call(*module.find("main"), {vector_of({1, 2})}, &error);
  REQUIRE(result);
  REQUIRE(result->tensor());
  CHECK((*result->tensor())->get_f64(1) == 3.0);

  auto matrix = runtime::Tensor::empty({2, 2}, DLDataType{kDLFloat, 32, 1});
  CHECK_FALSE(executor.call(*module.find("main"), {matrix}, &error));
  CHECK(error.id == DiagId::RX5020);
  CHECK(error.message.find("argument 'x' of 'main'") != std::string::npos);
}

// kAddOne with main's call replaced by `call` (y from x).
std::string add_one_calling(const std::string& call) {
  std::string text = kAddOne;
  std::string old = "R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))";
  size_t at = text.find(old);
  REQUIRE(at != std::string::npos);
  return text.replace(at, old.size(), call);
}

TEST_CASE("executor: arguments sealed when fixed and the module writes into none", "[backend]") {
  auto sealed_after_call = [](const std::string& text, bool fixed) {
    Compiled compiled(text);
    backend::Executor executor(compiled.program, *compiled.kernels, {.arguments_fixed = fixed});
    CHECK(executor.seals_arguments() ==
          (fixed && !backend::writes_given_tensors(compiled.program)));
    auto x = vector_of({1, 2});
    Diagnostic error;
    CHECK(executor.call(*compiled.module->find("main"), {x}, &error));
    return x->sealed();
  };
  // call_tir writes only the output it allocates.
  CHECK(sealed_after_call(kAddOne, true));
  CHECK_FALSE(sealed_after_call(kAddOne, false));
  // Each of these may write into x: in place, a PrimFunc called directly on (x, x), a packed
  // function (pure by assertion or not).
  CHECK_FALSE(sealed_after_call(
      add_one_calling("R.call_tir_inplace(cls.add_one, (x, x), inplace_indices=[0], "
                      "out_sinfo=R.Tensor((n,), dtype=\"float32\"))"),
      true));
  std::string direct = add_one_calling("x\n        cls.add_one(x, x)");
  direct.replace(direct.find("@R.function"), 11, "@R.function(pure=False)");
  CHECK_FALSE(sealed_after_call(direct, true));
  CHECK_FALSE(sealed_after_call(add_one_calling("R.call_pure_packed(\"vm.builtin.copy\", x, "
                                                "sinfo_args=R.Tensor((n,), dtype=\"float32\"))"),
                                true));
}

TEST_CASE("executor: RX5028 for a symbolic variable without a value", "[backend]") {
  // The checker rejects every text where this can happen (RX1302 / RX2018 pre-empt it), so the
  // executor's own check is exercised on hand-built IR.
  ir::PrimVar n("n", ir::DataType::Int(64), Span{4, 5});
  ir::IntImm two(ir::DataType::Int(64), 2);
  ir::PrimBinary twice(ir::PrimKind::Mul, ir::DataType::Int(64), &n, &two);
  backend::Frame frame;
  SECTION("RX5028: 'n' is not bound") {
    try {
      backend::eval_dim(&twice, frame);
      FAIL("no error");
    } catch (const backend::ExecError& e) {
      CHECK(e.diagnostic.id == DiagId::RX5028);
      CHECK(e.diagnostic.span == Span{4, 5});
    }
  }
  SECTION("RX5028 near miss: once bound, the expression evaluates") {
    frame.dims[&n] = 21;
    CHECK(backend::eval_dim(&twice, frame) == 42);
  }
}

namespace {

// One float32 math function applied elementwise: long enough for the vectorized loop body (8 or
// 16 lanes, interleaved) to run, not only its scalar remainder.
std::string unary_kernel(const std::string& fn) {
  return R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(var_x: T.handle, var_y: T.handle):
        n = T.int64()
        x = T.match_buffer(var_x, (n,))
        y = T.match_buffer(var_y, (n,))
        for i in range(n):
            with T.block("y"):
                v = T.axis.spatial(n, i)
                y[v] = T.)" +
         fn + R"((x[v])
)";
}

// Distance in units in the last place between two floats of the same sign (or both zero).
int64_t ulps(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  if (std::signbit(a) != std::signbit(b)) return INT64_MAX;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::abs(int64_t(ia) - int64_t(ib));
}

// Runs T.fn over `inputs` and returns the largest distance from `reference` (double precision,
// rounded once) and the input where it occurs.
std::pair<int64_t, float> worst_ulps(const std::string& fn, const std::vector<float>& inputs,
                                     double (*reference)(double)) {
  auto x = vector_of(inputs);
  auto n = static_cast<int64_t>(inputs.size());
  auto y = runtime::Tensor::empty({n}, DLDataType{kDLFloat, 32, 1});
  REQUIRE(call_kernel(unary_kernel(fn), "f", {x, y}) == 0);
  std::pair<int64_t, float> worst{0, 0.0f};
  for (int64_t i = 0; i < n; ++i) {
    float want = static_cast<float>(reference(inputs[i]));
    int64_t d = ulps(static_cast<float>(y->get_f64(i)), want);
    if (d > worst.first) worst = {d, inputs[i]};
  }
  return worst;
}

std::vector<float> sweep(float lo, float hi, int count) {
  std::vector<float> v;
  for (int i = 0; i < count; ++i) v.push_back(lo + (hi - lo) * float(i) / float(count - 1));
  return v;
}

}  // namespace

TEST_CASE("vector math: float32 exp within 2 ulp over its whole range", "[backend]") {
  std::vector<float> inputs = sweep(-110.0f, 95.0f, 200003);
  for (float special : {0.0f, -0.0f, 1e-30f, -1e-30f, 88.72283f, 88.72284f, -87.33654f, -103.2789f,
                        -103.97208f, -104.5f, INFINITY, -INFINITY, NAN})
    inputs.push_back(special);
  auto [worst, at] = worst_ulps("exp", inputs, [](double x) { return std::exp(x); });
  INFO("worst at x = " << at);
  CHECK(worst <= 2);
}

TEST_CASE("vector math: float32 erf within 6 ulp", "[backend]") {
  std::vector<float> inputs = sweep(-6.0f, 6.0f, 200003);
  for (float special :
       {0.0f, -0.0f, 1e-30f, -1e-20f, 1e-4f, 3.9999f, 4.0f, 4.0001f, INFINITY, -INFINITY, NAN})
    inputs.push_back(special);
  auto [worst, at] = worst_ulps("erf", inputs, [](double x) { return std::erf(x); });
  INFO("worst at x = " << at);
  CHECK(worst <= 6);
}

TEST_CASE("vector math: libm functions through SLEEF's vector versions stay accurate",
          "[backend]") {
  // SLEEF's _u10 versions promise 1 ulp, glibc's scalar ones (the loop's remainder) about as
  // much; 3 leaves room for the float32 reference's own rounding near tiny results.
  struct Case {
    const char* fn;
    float lo, hi;
    double (*reference)(double);
  };
  const Case cases[] = {
      {"tanh", -12.0f, 12.0f, [](double x) { return std::tanh(x); }},
      {"log", 1e-6f, 1e6f, [](double x) { return std::log(x); }},
      {"sin", -100.0f, 100.0f, [](double x) { return std::sin(x); }},
      {"cos", -100.0f, 100.0f, [](double x) { return std::cos(x); }},
      {"exp2", -140.0f, 130.0f, [](double x) { return std::exp2(x); }},
      {"log2", 1e-6f, 1e6f, [](double x) { return std::log2(x); }},
      {"atan", -50.0f, 50.0f, [](double x) { return std::atan(x); }},
  };
  for (const Case& c : cases) {
    std::vector<float> inputs = sweep(c.lo, c.hi, 20011);
    inputs.push_back(NAN);
    auto [worst, at] = worst_ulps(c.fn, inputs, c.reference);
    INFO(c.fn << ": worst at x = " << at);
    CHECK(worst <= 3);
  }
}

namespace {

// Two loop nests over the same rows; the second reads row `reversed ? n-1-i : i` of what the
// first wrote. Run row by row under one loop, the reversed read would see rows not written yet.
std::string two_nests(bool reversed) {
  std::string row = reversed ? "T.int64(299) - v_i" : "v_i";
  return R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(300), T.int64(200)), "float32"), C: T.Buffer((T.int64(300), T.int64(200)), "float32")):
        B = T.alloc_buffer((T.int64(300), T.int64(200)))
        for i, j in T.grid(T.int64(300), T.int64(200)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)
        for i, j in T.grid(T.int64(300), T.int64(200)):
            with T.block("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = B[)" +
         row + R"(, v_j] * T.float32(2.0)
)";
}

}  // namespace

TEST_CASE("row loops: nests share an outer loop only when each touches its own row", "[backend]") {
  for (bool reversed : {false, true}) {
    DLDataType f32{kDLFloat, 32, 1};
    auto a = runtime::Tensor::empty({300, 200}, f32);
    auto c = runtime::Tensor::empty({300, 200}, f32);
    for (int64_t k = 0; k < 300 * 200; ++k) a->set_f64(k, double(k % 1000));
    REQUIRE(call_kernel(two_nests(reversed), "f", {a, c}) == 0);
    int64_t wrong = 0;
    for (int64_t i = 0; i < 300; ++i)
      for (int64_t j = 0; j < 200; ++j) {
        int64_t src = (reversed ? 299 - i : i) * 200 + j;
        wrong += c->get_f64(i * 200 + j) != (double(src % 1000) + 1.0) * 2.0;
      }
    INFO("reversed: " << reversed);
    CHECK(wrong == 0);
  }
}

// two_nests(false) with `rows` symbolic (n) or 300, and, when `read_after`, a third loop that
// reads B's last row after the row loop (so B must keep every row).
std::string folding_case(bool symbolic, bool read_after) {
  std::string rows = symbolic ? "n" : "T.int64(300)";
  std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(a: T.handle, c: T.handle, d: T.Buffer((T.int64(200),), "float32")):
        n = T.int64()
        A = T.match_buffer(a, ()" +
                     rows + R"(, T.int64(200)))
        C = T.match_buffer(c, ()" +
                     rows + R"(, T.int64(200)))
        B = T.alloc_buffer(()" +
                     rows + R"(, T.int64(200)))
        for i, j in T.grid()" +
                     rows + R"(, T.int64(200)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)
        for i, j in T.grid()" +
                     rows + R"(, T.int64(200)):
            with T.block("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = B[v_i, v_j] * T.float32(2.0)
)";
  if (read_after)
    text += R"(        for j in range(T.int64(200)):
            with T.block("D"):
                v_j = T.axis.spatial(T.int64(200), j)
                d[v_j] = B[T.int64(299), v_j]
)";
  return text;
}

TEST_CASE("row loops: a buffer only one row loop uses is folded to one row", "[backend]") {
  DLDataType f32{kDLFloat, 32, 1};
  for (bool symbolic : {false, true})
    for (bool read_after : {false, true}) {
      INFO("symbolic rows: " << symbolic << ", B read after the row loop: " << read_after);
      std::string source = folding_case(symbolic, read_after);
      // Folded, B is one element on the stack (both loop levels merge: its rows have a fixed
      // length), which LLVM then keeps in a register; else the whole of B comes from the
      // runtime.
      bool folded = !read_after;
      CHECK((kernel_ir(source, false).find("alloca float, i64 1,") != std::string::npos) == folded);
      CHECK((kernel_ir(source, true).find("raxc_workspace_alloc") != std::string::npos) == !folded);
      // Either way the values are right, on the thread pool (60,000 iterations) too.
      auto a = runtime::Tensor::empty({300, 200}, f32), c = runtime::Tensor::empty({300, 200}, f32);
      auto d = runtime::Tensor::empty({200}, f32);
      for (int64_t k = 0; k < 300 * 200; ++k) a->set_f64(k, double(k % 1000));
      REQUIRE(call_kernel(source, "f", {a, c, d}) == 0);
      int64_t wrong = 0;
      for (int64_t k = 0; k < 300 * 200; ++k) wrong += c->get_f64(k) != (double(k % 1000) + 1) * 2;
      for (int64_t j = 0; read_after && j < 200; ++j)
        wrong += d->get_f64(j) != double((299 * 200 + j) % 1000) + 1;
      CHECK(wrong == 0);
    }
}

// Two nests over (4, 6, 50), the second reading B[i, j', k'] of what the first wrote, with j' = 5 -
// j when `reversed_axis` is 1 and k' = 49 - k when it is 2 (else j' = j, k' = k): row-local in
// the axes before the reversed one, not in it. B is allocated, so it is folded as deep as the
// loops merge.
std::string three_level_nests(int reversed_axis) {
  std::string j = reversed_axis == 1 ? "T.int64(5) - v_j" : "v_j";
  std::string k = reversed_axis == 2 ? "T.int64(49) - v_k" : "v_k";
  return R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(4), T.int64(6), T.int64(50)), "float32"), C: T.Buffer((T.int64(4), T.int64(6), T.int64(50)), "float32")):
        B = T.alloc_buffer((T.int64(4), T.int64(6), T.int64(50)))
        for i, j, k in T.grid(T.int64(4), T.int64(6), T.int64(50)):
            with T.block("B"):
                v_i, v_j, v_k = T.axis.remap("SSS", [i, j, k])
                B[v_i, v_j, v_k] = A[v_i, v_j, v_k] + T.float32(1.0)
        for i, j, k in T.grid(T.int64(4), T.int64(6), T.int64(50)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSS", [i, j, k])
                C[v_i, v_j, v_k] = B[v_i, )" +
         j + ", " + k + R"(] * T.float32(2.0)
)";
}

TEST_CASE("row loops: levels below merge while each nest touches its own row there too",
          "[backend]") {
  DLDataType f32{kDLFloat, 32, 1};
  // The levels merged, seen in what is left of B: one element (all three), a row of k (i and
  // j) or a 6 × 50 slice (i alone).
  const std::pair<int, const char*> kCases[] = {
      {0, "alloca float, i64 1,"}, {2, "alloca float, i64 50,"}, {1, "alloca float, i64 300,"}};
  for (auto [reversed_axis, folded] : kCases) {
    INFO("reversed axis: " << reversed_axis);
    std::string source = three_level_nests(reversed_axis);
    CHECK(kernel_ir(source, false).find(folded) != std::string::npos);
    auto a = runtime::Tensor::empty({4, 6, 50}, f32), c = runtime::Tensor::empty({4, 6, 50}, f32);
    for (int64_t e = 0; e < 1200; ++e) a->set_f64(e, double(e));
    REQUIRE(call_kernel(source, "f", {a, c}) == 0);
    int64_t wrong = 0;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 6; ++j)
        for (int64_t k = 0; k < 50; ++k) {
          int64_t jj = reversed_axis == 1 ? 5 - j : j, kk = reversed_axis == 2 ? 49 - k : k;
          wrong += c->get_f64((i * 6 + j) * 50 + k) != (double((i * 6 + jj) * 50 + kk) + 1.0) * 2.0;
        }
    CHECK(wrong == 0);
  }
}

namespace {

// B (m × n) = Aᵀ (A: n × m), both extents symbolic, of `dtype`; `noalias`: the function says
// its buffers are distinct (without, A and B may be one tensor and the copy stays as written).
std::string transpose_2d(const char* dtype, bool noalias) {
  return std::string(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(a: T.handle, b: T.handle):
)") + (noalias ? "        T.func_attr({\"tir.noalias\": True})\n" : "") +
         R"(        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), ")" +
         dtype + R"(")
        B = T.match_buffer(b, (m, n), ")" +
         dtype + R"(")
        for i, j in T.grid(m, n):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi]
)";
}

// R.permute_dims(R.reshape(x, (2, t, 3, 20)), (0, 2, 3, 1)) as fusion leaves it: the load's
// last index is h · 20 + d.
const char* kKeyTranspose = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(a: T.handle, b: T.handle):
        T.func_attr({"tir.noalias": True})
        t = T.int64()
        A = T.match_buffer(a, (T.int64(2), t, T.int64(60)))
        B = T.match_buffer(b, (T.int64(2), T.int64(3), T.int64(20), t))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(3), T.int64(20), t):
            with T.block("T_transpose"):
                v0, v1, v2, v3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                B[v0, v1, v2, v3] = A[v0, v3, v1 * T.int64(20) + v2]
)";

}  // namespace

TEST_CASE("transposes: a copy across the last axis goes by tiles of 16, edges as written",
          "[backend]") {
  for (bool noalias : {true, false}) {
    for (const char* dtype : {"float32", "int32"}) {
      std::string source = transpose_2d(dtype, noalias);
      INFO(dtype << ", tir.noalias: " << noalias);
      std::string ir = kernel_ir(source, false);
      CHECK((ir.find("shufflevector") != std::string::npos) == noalias);
      // Its extents symbolic, the copy takes the thread pool, or not, when it runs.
      CHECK(ir.find("label %work.parallel") != std::string::npos);
      DLDataType t =
          std::string(dtype) == "int32" ? DLDataType{kDLInt, 32, 1} : DLDataType{kDLFloat, 32, 1};
      // Whole tiles only, edges of one row or column, tiles with both edges, and enough work for
      // the thread pool (1000 × 999).
      for (auto [n, m] : std::vector<std::pair<int64_t, int64_t>>{
               {16, 32}, {37, 45}, {17, 1}, {1, 17}, {5, 3}, {0, 20}, {1000, 999}}) {
        auto a = runtime::Tensor::empty({n, m}, t), b = runtime::Tensor::empty({m, n}, t);
        for (int64_t e = 0; e < n * m; ++e) a->set_f64(e, double(e % 100003));
        REQUIRE(call_kernel(source, "f", {a, b}) == 0);
        int64_t wrong = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            wrong += b->get_f64(i * n + j) != double((j * m + i) % 100003);
        INFO(n << " × " << m);
        CHECK(wrong == 0);
      }
    }
  }
}

TEST_CASE("transposes: the attention's key, an index h · 20 + d, by tiles", "[backend]") {
  CHECK(kernel_ir(kKeyTranspose, false).find("shufflevector") != std::string::npos);
  DLDataType f32{kDLFloat, 32, 1};
  for (int64_t steps : {int64_t(16), int64_t(37)}) {
    auto a = runtime::Tensor::empty({2, steps, 60}, f32);
    auto b = runtime::Tensor::empty({2, 3, 20, steps}, f32);
    for (int64_t e = 0; e < 2 * steps * 60; ++e) a->set_f64(e, double(e));
    REQUIRE(call_kernel(kKeyTranspose, "f", {a, b}) == 0);
    int64_t wrong = 0;
    for (int64_t x = 0; x < 2; ++x)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t d = 0; d < 20; ++d)
          for (int64_t s = 0; s < steps; ++s)
            wrong += b->get_f64(((x * 3 + h) * 20 + d) * steps + s) !=
                     double((x * steps + s) * 60 + h * 20 + d);
    INFO(steps << " steps");
    CHECK(wrong == 0);
  }
}

namespace {

// One element-wise loop over n · 200 and a row loop of two nests over (1, n, 200), n symbolic:
// their work is known only when they run, and the row loop's pool takes its second level (its
// first has one iteration).
const char* kSymbolicRows = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(a: T.handle, c: T.handle, d: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (T.int64(1), n, T.int64(200)))
        C = T.match_buffer(c, (T.int64(1), n, T.int64(200)))
        D = T.match_buffer(d, (n * T.int64(200),))
        B = T.alloc_buffer((T.int64(1), n, T.int64(200)))
        for i in range(n * T.int64(200)):
            with T.block("D"):
                v_i = T.axis.spatial(n * T.int64(200), i)
                D[v_i] = A[T.int64(0), v_i // T.int64(200), v_i % T.int64(200)] * T.float32(3.0)
        for b, i, j in T.grid(T.int64(1), n, T.int64(200)):
            with T.block("B"):
                v_b, v_i, v_j = T.axis.remap("SSS", [b, i, j])
                B[v_b, v_i, v_j] = A[v_b, v_i, v_j] + T.float32(1.0)
        for b, i, j in T.grid(T.int64(1), n, T.int64(200)):
            with T.block("C"):
                v_b, v_i, v_j = T.axis.remap("SSS", [b, i, j])
                C[v_b, v_i, v_j] = B[v_b, v_i, v_j] * T.float32(2.0)
)";

}  // namespace

TEST_CASE("parallel loops: over a symbolic extent, the thread pool is chosen when they run",
          "[backend]") {
  // Both loops are emitted twice, behind a branch on their work (n · 200 against 32 Ki): the
  // pool above it, one thread below; the values are the same either way.
  std::string ir = kernel_ir(kSymbolicRows, false);
  size_t branches = 0;  // conditional branches to the blocks that run on the pool
  for (size_t at = ir.find("label %work.parallel"); at != std::string::npos;
       at = ir.find("label %work.parallel", at + 1))
    ++branches;
  CHECK(branches == 2);
  DLDataType f32{kDLFloat, 32, 1};
  raxc_set_num_threads(2);
  for (int64_t n : {int64_t(10), int64_t(1000)}) {
    INFO(n << " rows: " << n * 200 << " iterations");
    auto a = runtime::Tensor::empty({1, n, 200}, f32), c = runtime::Tensor::empty({1, n, 200}, f32),
         d = runtime::Tensor::empty({n * 200}, f32);
    for (int64_t e = 0; e < n * 200; ++e) a->set_f64(e, double(e % 1000));
    REQUIRE(call_kernel(kSymbolicRows, "f", {a, c, d}) == 0);
    int64_t wrong = 0;
    for (int64_t e = 0; e < n * 200; ++e)
      wrong += c->get_f64(e) != (double(e % 1000) + 1) * 2 || d->get_f64(e) != double(e % 1000) * 3;
    CHECK(wrong == 0);
  }
  raxc_set_num_threads(0);
}

TEST_CASE("parallel loops: a triangular nest is not measured before it runs", "[backend]") {
  // The inner extent is the outer loop's variable: the nest's work cannot be computed before the
  // loop, so it runs on one thread, correctly.
  const char* kTriangle = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, n))
        B = T.match_buffer(b, (n, n))
        for i in range(n):
            for j in range(i):
                with T.block("B"):
                    v_i, v_j = T.axis.remap("SS", [i, j])
                    B[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)
)";
  CHECK(kernel_ir(kTriangle, false).find("label %work.parallel") == std::string::npos);
  DLDataType f32{kDLFloat, 32, 1};
  auto a = runtime::Tensor::empty({300, 300}, f32), b = runtime::Tensor::empty({300, 300}, f32);
  for (int64_t e = 0; e < 300 * 300; ++e) a->set_f64(e, double(e % 1000));
  REQUIRE(call_kernel(kTriangle, "f", {a, b}) == 0);
  int64_t wrong = 0;
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 300; ++j)
      wrong += b->get_f64(i * 300 + j) != (j < i ? double((i * 300 + j) % 1000) + 1 : 0.0);
  CHECK(wrong == 0);
}

TEST_CASE("alias scopes: parameters without tir.noalias may be one tensor", "[backend]") {
  // x[i + 1] = x[i] + 1 when both parameters are the same tensor: each element depends on the
  // one just written, so no load may move ahead of the previous store.
  const char* kShift = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def shift(A: T.Buffer((T.int64(1000),), "float32"), B: T.Buffer((T.int64(1000),), "float32")):
        for i in range(T.int64(999)):
            with T.block("B"):
                v = T.axis.spatial(T.int64(999), i)
                B[v + T.int64(1)] = A[v] + T.float32(1.0)
)";
  auto x = runtime::Tensor::empty({1000}, DLDataType{kDLFloat, 32, 1});
  REQUIRE(call_kernel(kShift, "shift", {x, x}) == 0);
  int64_t wrong = 0;
  for (int64_t i = 0; i < 1000; ++i) wrong += x->get_f64(i) != double(i);
  CHECK(wrong == 0);
}

TEST_CASE("division: a quotient rounded to an integer is the exact one", "[backend]") {
  // floor(i·d / d) is i for every i; by the reciprocal (i·d · (1/d)) it is i - 1 for some.
  const char* kFloorDiv = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(4096),), "float32"), D: T.Buffer((T.int64(1),), "float32"), B: T.Buffer((T.int64(4096),), "float32"), C: T.Buffer((T.int64(4096),), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(T.int64(4096)):
            with T.block("B"):
                v = T.axis.spatial(T.int64(4096), i)
                B[v] = T.floor(A[v] / D[0])
                C[v] = A[v] / D[0]
)";
  DLDataType f32{kDLFloat, 32, 1};
  for (float d : {49.0f, 3.0f, 0.1f, 7.7f}) {
    auto a = runtime::Tensor::empty({4096}, f32);
    auto b = runtime::Tensor::empty({4096}, f32);
    auto c = runtime::Tensor::empty({4096}, f32);
    for (int64_t i = 0; i < 4096; ++i) a->set_f64(i, double(float(i) * d));
    REQUIRE(call_kernel(kFloorDiv, "f", {a, vector_of({d}), b, c}) == 0);
    int64_t wrong = 0, inexact = 0;
    for (int64_t i = 0; i < 4096; ++i) {
      float exact = std::floor(float(i) * d / d);
      wrong += b->get_f64(i) != exact;
      // The plain quotient may be the reciprocal's: within an ulp of the exact one.
      inexact += ulps(float(c->get_f64(i)), float(i) * d / d) > 1;
    }
    INFO("divisor " << d);
    CHECK(wrong == 0);
    CHECK(inexact == 0);
  }
}

TEST_CASE("reductions: T.init runs before the loops only when they run", "[backend]") {
  // The init is emitted before the reduction loop (decompose_reduction); an empty reduction
  // never runs it, as TVM's T.init() on the first iteration never runs: B keeps what it held.
  const char* kRowSum = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def row_sum(var_a: T.handle, b: T.Buffer((T.int64(4),), "float32")):
        n = T.int64()
        a = T.match_buffer(var_a, (T.int64(4), n))
        for i, k in T.grid(T.int64(4), n):
            with T.block("b"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    b[vi] = T.float32(0.0)
                b[vi] = b[vi] + a[vi, vk]
)";
  DLDataType f32{kDLFloat, 32, 1};
  for (int64_t n : {0, 3, 100}) {
    auto a = runtime::Tensor::empty({4, n}, f32);
    for (int64_t e = 0; e < 4 * n; ++e) a->set_f64(e, 1.0);
    auto b = vector_of({7, 7, 7, 7});
    REQUIRE(call_kernel(kRowSum, "row_sum", {a, b}) == 0);
    INFO("n = " << n);
    for (int64_t i = 0; i < 4; ++i) CHECK(b->get_f64(i) == (n == 0 ? 7.0 : double(n)));
  }
}

TEST_CASE("reductions: a triangular reduction keeps T.init inside its loops", "[backend]") {
  // The inner extent depends on the outer reduction variable: the init is not hoisted (its
  // guard would need k1), the kernel compiles, and TVM's semantics hold: T.init runs when every
  // reduction variable is at its start, (k1, k2) = (0, 0), which never happens here as k2's
  // range is empty for k1 = 0, so b keeps its 7 and gains 0 + (0 + 1) + (0 + 1 + 2).
  const char* kTriangle = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def triangle(a: T.Buffer((T.int64(2), T.int64(4)), "float32"), b: T.Buffer((T.int64(2),), "float32")):
        for i, k1 in T.grid(T.int64(2), T.int64(4)):
            for k2 in range(k1):
                with T.block("b"):
                    vi, vk1, vk2 = T.axis.remap("SRR", [i, k1, k2])
                    with T.init():
                        b[vi] = T.float32(0.0)
                    b[vi] = b[vi] + a[vi, vk2]
)";
  DLDataType f32{kDLFloat, 32, 1};
  auto a = runtime::Tensor::empty({2, 4}, f32);
  for (int64_t e = 0; e < 8; ++e) a->set_f64(e, double(e % 4));
  auto b = vector_of({7, 7});
  REQUIRE(call_kernel(kTriangle, "triangle", {a, b}) == 0);
  CHECK(b->get_f64(0) == 11.0);
  CHECK(b->get_f64(1) == 11.0);
}

TEST_CASE("kernels: a T.call_extern of a function the process lacks is refused at its PrimFunc",
          "[backend]") {
  // The kernels are one shared object loaded with RTLD_NOW: a symbol nobody defines would make
  // the whole object fail to load, so it is found before linking and charged to its caller.
  auto source = [](const char* callee) {
    return std::string(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fine(a: T.Buffer((2,), "float32")):
        a[0] = T.float32(1.0)

    @T.prim_func(private=True)
    def calls(a: T.Buffer((2,), "float32")):
        a[0] = T.call_extern("float32", ")") +
           callee + R"(", a[1])
)";
  };
  frontend::ParsedFile file = frontend::parse_file(source("raxc_no_such_function"));
  REQUIRE_FALSE(file.has_errors());
  DiagnosticSink sink;
  CHECK_FALSE(backend::KernelLibrary::compile(*file.module, {}, sink, nullptr));
  REQUIRE(sink.diagnostics().size() == 1);
  CHECK(sink.diagnostics()[0].message.find("'calls'") != std::string::npos);
  CHECK(sink.diagnostics()[0].message.find("raxc_no_such_function") != std::string::npos);
  // Near miss: a C library function the process has (libm's expf).
  frontend::ParsedFile ok = frontend::parse_file(source("expf"));
  DiagnosticSink none;
  auto kernels = backend::KernelLibrary::compile(*ok.module, {}, none, nullptr);
  REQUIRE(kernels);
  CHECK(kernels->find("calls") != nullptr);
}
