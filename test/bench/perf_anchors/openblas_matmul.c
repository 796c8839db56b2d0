// Anchor of test/bench/perf: C[b] = A[b] · B[b] (row-major float32) through OpenBLAS's
// cblas_sgemm, one call per batch element (OpenBLAS 0.3.21 has no batched sgemm), on a given
// number of OpenBLAS threads. Operands and result are allocated and touched once, outside the
// timing, as a BLAS user would keep them.
//   openblas_matmul BATCH M N K THREADS REPS  ->  "config: ...", then "min_ms median_ms"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s BATCH M N K THREADS REPS\n", argv[0]);
    return 2;
  }
  long batch = atol(argv[1]), m = atol(argv[2]), n = atol(argv[3]), k = atol(argv[4]);
  int threads = atoi(argv[5]), reps = atoi(argv[6]);
  openblas_set_num_threads(threads);
  float* a = aligned_alloc(64, sizeof(float) * (batch * m * k + 16));
  float* b = aligned_alloc(64, sizeof(float) * (batch * k * n + 16));
  float* c = aligned_alloc(64, sizeof(float) * (batch * m * n + 16));
  for (long i = 0; i < batch * m * k; ++i) a[i] = (float)(i % 17) * 0.01f - 0.08f;
  for (long i = 0; i < batch * k * n; ++i) b[i] = (float)(i % 13) * 0.01f - 0.06f;
  for (long i = 0; i < batch * m * n; ++i) c[i] = 0.f;
  double* times = malloc(sizeof(double) * reps);
  for (int r = -2; r < reps; ++r) {  // two warm-up calls
    double start = now_ms();
    for (long q = 0; q < batch; ++q)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, a + q * m * k, k,
                  b + q * k * n, n, 0.f, c + q * m * n, n);
    if (r >= 0) times[r] = now_ms() - start;
  }
  qsort(times, reps, sizeof(double), by_value);
  printf("config: %s, core %s\n", openblas_get_config(), openblas_get_corename());
  printf("%.6f %.6f\n", times[0], times[reps / 2]);
  return 0;
}
