/* raxc_value.h — Relax values across the C ABI: what a C program hands to, and gets back from,
 * a library written by `raxc build`, and the helpers the Relax code of such a library calls.
 *
 * A value (tensor, tuple, shape, prim scalar, string, null) is an opaque, reference-counted
 * RaxcValue*. Every function that returns a RaxcValue* returns a new reference the caller owns
 * and gives back with raxc_value_release(); NULL means failure, with the reason in
 * raxc_last_error() (raxc_runtime.h). Nothing here aborts or throws.
 *
 * An entry point of a built library (see the header `raxc build` writes next to it) is
 *
 *   int32_t PREFIX_NAME(RaxcValue* const* args, int32_t num_args, RaxcValue** result);
 *
 * It borrows `args` (the caller still owns and releases them), checks each against the
 * parameter's StructInfo, runs, and stores a new reference in *result. It returns 0 on success;
 * on failure non-zero, *result is NULL and raxc_last_error() reads "RXnnnn: FILE:LINE:COL:
 * message" with the location in the .rx source the library was built from.
 */
#ifndef RAXC_VALUE_H_
#define RAXC_VALUE_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RaxcValue RaxcValue;

/* What raxc_value_kind() returns. */
enum RaxcValueKind {
  RAXC_VALUE_NULL = 0,
  RAXC_VALUE_TENSOR = 1,
  RAXC_VALUE_TUPLE = 2,
  RAXC_VALUE_SHAPE = 3,
  RAXC_VALUE_PRIM = 4,
  RAXC_VALUE_STRING = 5,
  RAXC_VALUE_DTYPE = 6,
  RAXC_VALUE_CALLABLE = 7
};

/* ---- making values (a C program wraps its inputs) ---- */
/* A tensor holding a copy of `tensor`'s elements (any strides and byte_offset; CPU memory). */
RaxcValue* raxc_value_from_dltensor(const DLTensor* tensor);
/* A zero-filled tensor of `shape` and `dtype`. */
RaxcValue* raxc_value_tensor_empty(const int64_t* shape, int32_t ndim, DLDataType dtype);
/* An R.Prim scalar: integers and bools in `value` (dtype {kDLInt,64,1} for "int64",
 * {kDLUInt,1,1} for "bool"), floats through raxc_value_prim_float. */
RaxcValue* raxc_value_prim_int(int64_t value, DLDataType dtype);
RaxcValue* raxc_value_prim_float(double value, DLDataType dtype);
/* An R.Shape value. */
RaxcValue* raxc_value_shape(const int64_t* dims, int32_t ndim);
/* A tuple of `fields` (borrowed: the tuple takes its own references). */
RaxcValue* raxc_value_tuple(RaxcValue* const* fields, int32_t num_fields);
RaxcValue* raxc_value_string(const char* text);
RaxcValue* raxc_value_null(void);

/* ---- inspecting values (a C program reads results) ---- */
int32_t raxc_value_kind(const RaxcValue* value); /* enum RaxcValueKind; -1 for NULL */
/* The tensor's DLTensor (compact row-major, strides NULL), valid while `value` lives; NULL if
 * the value is not a tensor. */
const DLTensor* raxc_value_dltensor(const RaxcValue* value);
int32_t raxc_value_tuple_size(const RaxcValue* value); /* -1 if not a tuple */
/* Field `index` as a new reference; NULL if not a tuple or out of range. */
RaxcValue* raxc_value_tuple_get(const RaxcValue* value, int32_t index);
DLDataType raxc_value_prim_dtype(const RaxcValue* value);
int64_t raxc_value_prim_i64(const RaxcValue* value); /* floats truncate */
double raxc_value_prim_f64(const RaxcValue* value);
int32_t raxc_value_shape_ndim(const RaxcValue* value); /* -1 if not a shape */
const int64_t* raxc_value_shape_dims(const RaxcValue* value);
const char* raxc_value_string_get(const RaxcValue* value); /* NULL if not a string */
/* A dtype value's dtype (R.dtype("float16")); {kDLOpaqueHandle, 0, 0} if not a dtype. */
DLDataType raxc_value_dtype_get(const RaxcValue* value);

/* Promises that the elements of the tensor `value` (of every tensor in it, for a tuple) will not
 * change again while it lives: not through raxc_value_dltensor()'s pointer, nor by anything
 * else. The functions of a built library may then keep data derived from them beside them, as
 * a convolution keeps its weights packed (packed on the first call, not on every one). The
 * promise is withdrawn, and what was kept dropped, when the tensor is passed to a library whose
 * functions may write into tensors they are given (R.call_tir_inplace, R.call_inplace_packed,
 * R.call_packed, R.call_pure_packed, a PrimFunc called directly). 0, or -1 if `value` is
 * neither a tensor nor a tuple (nothing is changed then). */
int32_t raxc_value_seal(RaxcValue* value);

void raxc_value_retain(RaxcValue* value);
void raxc_value_release(RaxcValue* value); /* NULL is ignored */

/* ---- packed functions (R.call_packed, R.ExternFunc, ... in a built library) ---- */
/* Loads a plugin (a shared library exporting raxc_plugin_register, as `raxc run --load` takes)
 * and registers its functions. 0, or non-zero with the reason in raxc_last_error() (RX5033). */
int32_t raxc_load_plugin(const char* path);

/* The last error recorded on this thread (also declared in raxc_runtime.h). */
const char* raxc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* RAXC_VALUE_H_ */
