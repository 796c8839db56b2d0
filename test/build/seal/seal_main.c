/* raxc_value_seal through a built library (test/build/build_test.sh): calls ENTRY (a 3×3
 * convolution, conv.rx) twice on the same input and weights, the weights sealed when argv[1] is
 * "seal", and between the calls adds 1 to every weight through raxc_value_dltensor's pointer,
 * breaking the promise on purpose. Prints "same" when the second call gave the first call's
 * result (the packing kept beside sealed weights served it) and "changed" when it read the new
 * weights, then the first result's sum; and checks raxc_value_seal's results on a tensor, a
 * tuple and a scalar. Built with -DENTRY=the entry's symbol. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "libsealconv.h"

static RaxcValue* tensor(const int64_t* shape, int ndim, float first) {
  DLDataType f32 = {kDLFloat, 32, 1};
  RaxcValue* v = raxc_value_tensor_empty(shape, ndim, f32);
  const DLTensor* t = raxc_value_dltensor(v);
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  float* data = (float*)t->data;
  for (int64_t i = 0; i < n; ++i) data[i] = first + (float)((i * 37) % 101) / 101.0f - 0.5f;
  return v;
}

static RaxcValue* call(RaxcValue* x, RaxcValue* w) {
  RaxcValue* args[2] = {x, w};
  RaxcValue* out = NULL;
  if (ENTRY(args, 2, &out) != 0) {
    printf("error: %s\n", raxc_last_error());
    return NULL;
  }
  return out;
}

int main(int argc, char** argv) {
  int64_t xs[4] = {1, 16, 8, 8}, ws[4] = {64, 16, 3, 3};
  RaxcValue* x = tensor(xs, 4, 0.0f);
  RaxcValue* w = tensor(ws, 4, 0.0f);
  if (argc > 1 && strcmp(argv[1], "seal") == 0 && raxc_value_seal(w) != 0) {
    printf("error: raxc_value_seal refused a tensor\n");
    return 1;
  }
  RaxcValue* first = call(x, w);
  if (!first) return 1;
  const DLTensor* wt = raxc_value_dltensor(w);
  for (int64_t i = 0; i < 64 * 16 * 9; ++i) ((float*)wt->data)[i] += 1.0f;
  RaxcValue* second = call(x, w);
  if (!second) return 1;
  const DLTensor* a = raxc_value_dltensor(first);
  const DLTensor* b = raxc_value_dltensor(second);
  size_t bytes = 64 * 8 * 8 * sizeof(float);
  double sum = 0;
  for (int64_t i = 0; i < 64 * 8 * 8; ++i) sum += ((const float*)a->data)[i];
  printf("%s %.6e\n", memcmp(a->data, b->data, bytes) == 0 ? "same" : "changed", sum);

  RaxcValue* fields[2] = {x, w};
  RaxcValue* tuple = raxc_value_tuple(fields, 2);
  RaxcValue* scalar = raxc_value_prim_int(3, (DLDataType){kDLInt, 64, 1});
  printf("seal: tuple %d, scalar %d, null %d\n", raxc_value_seal(tuple), raxc_value_seal(scalar),
         raxc_value_seal(NULL));
  raxc_value_release(tuple);
  raxc_value_release(scalar);
  raxc_value_release(first);
  raxc_value_release(second);
  raxc_value_release(x);
  raxc_value_release(w);
  return isfinite(sum) ? 0 : 1;
}
