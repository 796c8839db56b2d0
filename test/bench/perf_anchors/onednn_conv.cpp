// Anchor of test/bench/perf: a float32 2-D convolution, batch 1, square image and kernel, no
// bias: dst[1, K, P, P] = conv(src[1, C, H, H], weights[K, C, R, R], stride, pad), through one
// oneDNN convolution_forward primitive (forward inference, direct algorithm) created once
// outside the timing. Its src, weights and dst layouts are format_tag::any, chosen by the
// primitive (blocked ones on AVX-512); the operands are filled in NCHW / OIHW and reordered to
// those layouts once, before the timing, as a framework keeping its tensors in oneDNN's layouts
// would. Debian's oneDNN runs on OpenMP: its thread count is OMP_NUM_THREADS, which the harness
// sets.
//   onednn_conv C H K R STRIDE PAD REPS  ->  "config: ...", then "min_ms median_ms"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <vector>

using dnnl::memory;

// The operand in the primitive's layout: `user` itself when the layouts agree, else a reorder.
static memory to_layout(memory& user, const memory::desc& want, dnnl::engine& eng,
                        dnnl::stream& s) {
  if (user.get_desc() == want) return user;
  memory m(want, eng);
  dnnl::reorder(user, m).execute(s, user, m);
  s.wait();
  return m;
}

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s C H K R STRIDE PAD REPS\n", argv[0]);
    return 2;
  }
  long c = std::atol(argv[1]), h = std::atol(argv[2]), k = std::atol(argv[3]),
       r = std::atol(argv[4]), stride = std::atol(argv[5]), pad = std::atol(argv[6]);
  int reps = std::atoi(argv[7]);
  long p = (h + 2 * pad - r) / stride + 1;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  memory::dims sd = {1, c, h, h}, wd = {k, c, r, r}, dd = {1, k, p, p};
  auto any = [](const memory::dims& d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(sd), any(wd),
      any(dd), {stride, stride}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(desc, eng);
  dnnl::convolution_forward conv(pd);

  memory user_src({sd, memory::data_type::f32, memory::format_tag::nchw}, eng);
  memory user_w({wd, memory::data_type::f32, memory::format_tag::oihw}, eng);
  float* sp = static_cast<float*>(user_src.get_data_handle());
  float* wp = static_cast<float*>(user_w.get_data_handle());
  for (long i = 0; i < c * h * h; ++i) sp[i] = float(i % 17) * 0.01f - 0.08f;
  for (long i = 0; i < k * c * r * r; ++i) wp[i] = float(i % 13) * 0.01f - 0.06f;
  memory src = to_layout(user_src, pd.src_desc(), eng, s);
  memory w = to_layout(user_w, pd.weights_desc(), eng, s);
  memory dst(pd.dst_desc(), eng);

  std::vector<double> times;
  for (int i = -2; i < reps; ++i) {  // two warm-up calls
    auto start = std::chrono::steady_clock::now();
    conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}});
    s.wait();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i >= 0) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const dnnl_version_t* v = dnnl_version();
  std::printf("config: oneDNN %d.%d.%d, cpu runtime %s, isa %d, impl %s, layouts chosen: src %s\n",
              v->major, v->minor, v->patch,
              v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other",
              int(dnnl_get_effective_cpu_isa()), pd.impl_info_str(),
              pd.src_desc() == user_src.get_desc() ? "nchw" : "blocked");
  std::printf("%.6f %.6f\n", times.front(), times[times.size() / 2]);
  return 0;
}
