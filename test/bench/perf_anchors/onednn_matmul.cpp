// Anchor of test/bench/perf: C = A · B (row-major float32, batched when BATCH > 1) through one
// oneDNN matmul primitive, created once outside the timing. Debian's oneDNN runs on OpenMP:
// its thread count is OMP_NUM_THREADS, which the harness sets.
//   onednn_matmul BATCH M N K REPS  ->  "config: ...", then "min_ms median_ms"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s BATCH M N K REPS\n", argv[0]);
    return 2;
  }
  using dnnl::memory;
  long batch = std::atol(argv[1]), m = std::atol(argv[2]), n = std::atol(argv[3]),
       k = std::atol(argv[4]);
  int reps = std::atoi(argv[5]);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  memory::dims ad = {batch, m, k}, bd = {batch, k, n}, cd = {batch, m, n};
  memory::desc a_md(ad, memory::data_type::f32, memory::format_tag::abc);
  memory::desc b_md(bd, memory::data_type::f32, memory::format_tag::abc);
  memory::desc c_md(cd, memory::data_type::f32, memory::format_tag::abc);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  dnnl::matmul mm(pd);
  memory a(a_md, eng), b(b_md, eng), c(c_md, eng);
  float* ap = static_cast<float*>(a.get_data_handle());
  float* bp = static_cast<float*>(b.get_data_handle());
  for (long i = 0; i < batch * m * k; ++i) ap[i] = float(i % 17) * 0.01f - 0.08f;
  for (long i = 0; i < batch * k * n; ++i) bp[i] = float(i % 13) * 0.01f - 0.06f;
  std::vector<double> times;
  for (int r = -2; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    mm.execute(s, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    s.wait();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r >= 0) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const dnnl_version_t* v = dnnl_version();
  std::printf("config: oneDNN %d.%d.%d, cpu runtime %s, isa %d, impl %s\n", v->major, v->minor,
              v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other",
              int(dnnl_get_effective_cpu_isa()), pd.impl_info_str());
  std::printf("%.6f %.6f\n", times.front(), times[times.size() / 2]);
  return 0;
}
