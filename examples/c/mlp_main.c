/* A C program that links a library `raxc build` wrote from examples/mlp_tir.rx:
 *
 *   raxc build examples/mlp_tir.rx -o build/libmlp.so      (writes build/libmlp.h too)
 *   cc examples/c/mlp_main.c -Ibuild -Lbuild -lmlp -Wl,-rpath,'$ORIGIN' -o build/mlp_main
 *   build/mlp_main            prints softmax(relu(x @ w1 + b1) @ w2) for fixed inputs
 *   build/mlp_main DIR        also writes the inputs as DIR/x.npy, w1.npy, b1.npy, w2.npy
 *   build/mlp_main --bad      calls with a wrong shape and prints the library's error
 *
 * The inputs are made from a formula so that `raxc run` can be given the same ones (the .npy
 * files) and the results compared (test/build/build_test.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmlp.h"

static const DLDataType kFloat32 = {kDLFloat, 32, 1};

/* A deterministic value in [-0.5, 0.5) for element i of input `seed`. */
static float input_value(int seed, long i) {
  return (float)((i * 37 + seed * 11) % 101) / 101.0f - 0.5f;
}

static void write_npy(const char* dir, const char* name, const float* data, const int64_t* shape,
                      int ndim, long count) {
  char path[4096], header[128], dims[64] = "";
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  for (int k = 0; k < ndim; ++k)
    snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%ld,%s", (long)shape[k],
             k + 1 < ndim ? " " : "");
  int n = snprintf(header, sizeof header,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", dims);
  int total = 10 + n + 1, pad = (64 - total % 64) % 64; /* the header ends with '\n' at 64 */
  FILE* f = fopen(path, "wb");
  if (!f) {
    perror(path);
    exit(2);
  }
  unsigned short len = (unsigned short)(n + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(len & 0xff, f);
  fputc(len >> 8, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i) fputc(' ', f);
  fputc('\n', f);
  fwrite(data, sizeof(float), (size_t)count, f);
  fclose(f);
}

/* A float32 tensor of `shape` filled from input_value(seed, ...), as a value handle. */
static RaxcValue* make_input(const char* dir, const char* name, int seed, int64_t* shape,
                             int ndim) {
  long count = 1;
  for (int k = 0; k < ndim; ++k) count *= (long)shape[k];
  float* data = malloc(sizeof(float) * (size_t)count);
  for (long i = 0; i < count; ++i) data[i] = input_value(seed, i);
  if (dir) write_npy(dir, name, data, shape, ndim, count);
  DLTensor t = {data, {kDLCPU, 0}, ndim, kFloat32, shape, NULL, 0};
  RaxcValue* v = raxc_value_from_dltensor(&t); /* copies the elements */
  free(data);
  return v;
}

int main(int argc, char** argv) {
  int bad = argc > 1 && strcmp(argv[1], "--bad") == 0;
  const char* dir = argc > 1 && !bad ? argv[1] : NULL;
  int64_t x_shape[] = {2, bad ? 783 : 784}, w1_shape[] = {784, 128}, b1_shape[] = {128},
          w2_shape[] = {128, 10};
  RaxcValue* args[4] = {make_input(dir, "x", 1, x_shape, 2), make_input(dir, "w1", 2, w1_shape, 2),
                        make_input(dir, "b1", 3, b1_shape, 1),
                        make_input(dir, "w2", 4, w2_shape, 2)};
  RaxcValue* result = NULL;
  int status = mlp_main(args, 4, &result);
  for (int i = 0; i < 4; ++i) raxc_value_release(args[i]);
  if (status != 0) {
    printf("error: %s\n", raxc_last_error());
    return 1;
  }
  const DLTensor* out = raxc_value_dltensor(result);
  const float* p = (const float*)out->data;
  printf("[");
  for (int64_t i = 0; i < out->shape[0]; ++i) {
    printf("%s[", i ? ", " : "");
    for (int64_t j = 0; j < out->shape[1]; ++j)
      printf("%s%.9g", j ? ", " : "", (double)p[i * out->shape[1] + j]);
    printf("]");
  }
  printf("]\n");
  raxc_value_release(result);
  return 0;
}
