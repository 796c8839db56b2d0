// The machine's limits for test/bench/perf, measured in the same run as the workloads: fp32
// FMA throughput (12 independent chains per thread, the widest vectors the compiler targets
// with -march=native: zmm on AVX-512, ymm on AVX2) and a STREAM-style triad a[i] = b[i] + s*c[i]
// over 3 × 64 MiB of floats (12 bytes per element), on THREADS threads.
//   limits THREADS  ->  "peak_gflops triad_gbs"
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#else
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#endif

enum { CHAINS = 12, ITERS = 2000000 };  // ~20 ms per try: short tries catch quiet moments
static const long kTriad = 16L << 20;   // floats per array
static float *ta, *tb, *tc;
static int threads;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Twelve independent chains in named variables (an array would be kept in memory across the
// barrier, adding a store and a load to every FMA's latency).
static void* fma_chains(void* out) {
  vec m = SET1(0.9999999f), a = SET1(1e-7f);
  vec x0 = SET1(0), x1 = SET1(1), x2 = SET1(2), x3 = SET1(3), x4 = SET1(4), x5 = SET1(5);
  vec x6 = SET1(6), x7 = SET1(7), x8 = SET1(8), x9 = SET1(9), x10 = SET1(10), x11 = SET1(11);
  for (long i = 0; i < ITERS; ++i) {
    x0 = FMA(x0, m, a), x1 = FMA(x1, m, a), x2 = FMA(x2, m, a), x3 = FMA(x3, m, a);
    x4 = FMA(x4, m, a), x5 = FMA(x5, m, a), x6 = FMA(x6, m, a), x7 = FMA(x7, m, a);
    x8 = FMA(x8, m, a), x9 = FMA(x9, m, a), x10 = FMA(x10, m, a), x11 = FMA(x11, m, a);
    __asm__ volatile(""
                     : "+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3), "+v"(x4), "+v"(x5), "+v"(x6),
                       "+v"(x7), "+v"(x8), "+v"(x9), "+v"(x10), "+v"(x11));
  }
  vec s = ADD(ADD(ADD(x0, x1), ADD(x2, x3)), ADD(ADD(x4, x5), ADD(x6, x7)));
  s = ADD(s, ADD(ADD(x8, x9), ADD(x10, x11)));
  memcpy(out, &s, sizeof(float));
  return NULL;
}

static void* triad(void* arg) {
  long t = (long)arg, b = kTriad * t / threads, e = kTriad * (t + 1) / threads;
  for (long i = b; i < e; ++i) ta[i] = tb[i] + 3.f * tc[i];
  return NULL;
}

static double run(void* (*fn)(void*), int per_thread_arg) {
  pthread_t th[64];
  float sink[64];
  double start = now();
  for (long t = 0; t < threads; ++t)
    pthread_create(&th[t], NULL, fn, per_thread_arg ? (void*)t : (void*)&sink[t]);
  for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
  return now() - start;
}

int main(int argc, char** argv) {
  threads = argc > 1 ? atoi(argv[1]) : 1;
  if (threads < 1 || threads > 64) return 2;
  double best_fma = 1e30, best_triad = 1e30;
  for (int r = 0; r < 30; ++r) {
    double s = run(fma_chains, 0);
    if (s < best_fma) best_fma = s;
  }
  ta = aligned_alloc(64, kTriad * 4);
  tb = aligned_alloc(64, kTriad * 4);
  tc = aligned_alloc(64, kTriad * 4);
  for (long i = 0; i < kTriad; ++i) ta[i] = 0.f, tb[i] = 1.f, tc[i] = 2.f;
  for (int r = 0; r < 15; ++r) {
    double s = run(triad, 1);
    if (s < best_triad) best_triad = s;
  }
  double flops = 2.0 * CHAINS * LANES * (double)ITERS * threads;
  printf("%.2f %.2f\n", flops / best_fma * 1e-9, 12.0 * kTriad / best_triad * 1e-9);
  return 0;
}
