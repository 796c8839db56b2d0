/* A raxc plugin: packed functions a Relax module calls by name, loaded with `raxc run --load`.
 *
 *   cc -shared -fPIC -o scale.so examples/plugin/scale.c
 *   build/raxc run examples/plugin/scale.rx "[1, 2, 3]" 2.5 --load ./scale.so
 *
 * The C ABI is backend/runtime/raxc_runtime.h (tensors are DLPack DLTensors, from
 * libdlpack-dev). Two functions:
 *   example.scale(x, factor, out)  out = x * factor, float32, any shape (R.call_dps_packed)
 *   example.sum(x) -> float         the sum of a float32 tensor (R.call_pure_packed)
 */
#include <stdint.h>

#include "backend/runtime/raxc_runtime.h"

static int64_t element_count(const DLTensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

static int is_compact_float32(const DLTensor* t) {
  return t->dtype.code == kDLFloat && t->dtype.bits == 32 && t->dtype.lanes == 1 &&
         t->strides == NULL;
}

static int32_t scale(const RaxcArg* args, const int32_t* kinds, int32_t n, RaxcArg* ret,
                     int32_t* ret_kind) {
  (void)ret;
  (void)ret_kind;
  if (n != 3 || kinds[0] != RAXC_ARG_TENSOR || kinds[1] != RAXC_ARG_FLOAT ||
      kinds[2] != RAXC_ARG_TENSOR)
    return raxc_plugin_fail("example.scale takes (tensor, float, out tensor)");
  const DLTensor* x = args[0].tensor;
  DLTensor* out = args[2].tensor;
  if (!is_compact_float32(x) || !is_compact_float32(out) || element_count(x) != element_count(out))
    return raxc_plugin_fail("example.scale needs float32 tensors of the same size");
  const float* in = (const float*)((const char*)x->data + x->byte_offset);
  float* result = (float*)((char*)out->data + out->byte_offset);
  for (int64_t i = 0; i < element_count(x); ++i) result[i] = in[i] * (float)args[1].f64;
  return 0;
}

static int32_t sum(const RaxcArg* args, const int32_t* kinds, int32_t n, RaxcArg* ret,
                   int32_t* ret_kind) {
  if (n != 1 || kinds[0] != RAXC_ARG_TENSOR || !is_compact_float32(args[0].tensor))
    return raxc_plugin_fail("example.sum takes one float32 tensor");
  const DLTensor* x = args[0].tensor;
  const float* in = (const float*)((const char*)x->data + x->byte_offset);
  double total = 0;
  for (int64_t i = 0; i < element_count(x); ++i) total += in[i];
  ret->f64 = total;
  *ret_kind = RAXC_ARG_FLOAT;
  return 0;
}

int32_t raxc_plugin_register(RaxcRegisterFunc register_function, void* context) {
  register_function(context, "example.scale", scale);
  register_function(context, "example.sum", sum);
  return 0;
}
