/* raxc_relax_abi.h — the runtime helpers the Relax functions of a library written by
 * `raxc build` call (backend/codegen/relax_*.cpp emits the calls). Values are the refcounted
 * handles of raxc_value.h; errors are recorded as in raxc_runtime.h (an error site with the
 * diagnostic code and the .rx span) and reported by status, never by unwinding. A helper that
 * returns a RaxcValue* returns a new reference, NULL after recording the error.
 */
#ifndef RAXC_RELAX_ABI_H_
#define RAXC_RELAX_ABI_H_

#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/raxc_value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The source a library was built from, to turn error byte offsets into FILE:LINE:COL and
 * fill the diagnostic templates of the codes generated code can raise. */
typedef struct RaxcModuleInfo {
  const char* file;
  const uint32_t* line_starts; /* byte offset of each line's first byte */
  int32_t num_lines;
  int32_t num_templates;
  const char* const* templates; /* pairs: code, template with {0}, {1}, ... */
} RaxcModuleInfo;

RaxcValue* raxc_rt_alloc(const int64_t* shape, int32_t ndim, int32_t code, int32_t bits,
                         const RaxcErrorSite* site);
RaxcValue* raxc_rt_const(const void* data, int64_t nbytes, const int64_t* shape, int32_t ndim,
                         int32_t code, int32_t bits, const RaxcErrorSite* site);
RaxcValue* raxc_rt_tuple(RaxcValue* const* fields, int32_t num_fields);
RaxcValue* raxc_rt_get(const RaxcValue* tuple, int64_t index, const RaxcErrorSite* site);
RaxcValue* raxc_rt_prim_int(int64_t value, int32_t code, int32_t bits);
RaxcValue* raxc_rt_prim_float(double value, int32_t code, int32_t bits);
RaxcValue* raxc_rt_shape(const int64_t* dims, int32_t ndim);
RaxcValue* raxc_rt_shape_of(const RaxcValue* tensor, const RaxcErrorSite* site);
/* A tensor or prim as a kernel argument; 1 after recording RX5003 (site args: index, callee). */
int32_t raxc_rt_pack(const RaxcValue* value, RaxcArg* arg, int32_t* kind,
                     const RaxcErrorSite* site);
/* The truth of an If condition: 0 or 1; -1 after recording RX5025. */
int32_t raxc_rt_cond(const RaxcValue* value, const RaxcErrorSite* site);
/* Checks `value` against an encoded StructInfo (see relax_sinfo in backend/codegen), binding
 * symbolic variables into `slots` (phase 0) or comparing computed ones (phase 1); 1 after
 * recording RX5020 (site args: what, StructInfo text; the reason is appended). */
int32_t raxc_rt_check(const RaxcValue* value, const int64_t* desc, int64_t* slots, uint8_t* bound,
                      const char* const* names, int32_t phase, const RaxcErrorSite* site);
/* Packed calls (the registry of raxc_runtime.h: plugins, raxc_register_function). Each returns
 * the function's result (the empty tuple for none), NULL after recording the error at `site`'s
 * location: RX5022 (site arg: the name) for an unknown name, else the function's own (RX5032). */
RaxcValue* raxc_rt_call_packed(const char* name, RaxcValue* const* args, int32_t num_args,
                               const RaxcErrorSite* site);
/* The internal form of every Relax function of a library (and of the entries): borrowed
 * arguments in, a new reference in *result, 0 on success. */
typedef int32_t (*RaxcRelaxFunc)(RaxcValue* const* args, int32_t num_args, RaxcValue** result);
/* A closure over `function`: calling it with args... calls function(captured..., args...), or
 * function(closure, captured..., args...) when `pass_self` (a local function that recurs sees
 * itself as its first argument). The closure takes its own references to `captured`. */
RaxcValue* raxc_rt_closure(RaxcRelaxFunc function, RaxcValue* const* captured, int32_t num_captured,
                           const char* name, int32_t pass_self);
/* A PrimFunc as a value: calling it packs the arguments (tensors and scalars, RX5003 at the
 * call otherwise) and runs the kernel; its result is an R.Prim of {ret_code, ret_bits}, or the
 * empty tuple when ret_code is negative. */
RaxcValue* raxc_rt_kernel_ref(RaxcPackedFunc kernel, const char* name, int32_t ret_code,
                              int32_t ret_bits);
/* R.ExternFunc("name") as a value. */
RaxcValue* raxc_rt_packed_ref(const char* name);
/* Calls a callable value; NULL after recording RX5027 at `site` (site args: the callee's text;
 * the value is appended) when it is not callable, or the callee's error. */
RaxcValue* raxc_rt_call_value(const RaxcValue* callee, RaxcValue* const* args, int32_t num_args,
                              const RaxcErrorSite* site);
/* R.call_inplace_packed's result: what `name` returned or, when it returned nothing, the
 * arguments `indices` names (one, or a tuple); NULL after recording RX5032 at `site` when an
 * index asks for a new tensor the function did not make. */
RaxcValue* raxc_rt_inplace_result(const RaxcValue* returned, RaxcValue* const* args,
                                  int32_t num_args, const int64_t* indices, int32_t num_indices,
                                  const char* name, const RaxcErrorSite* site);
/* R.print: writes the values, formatted by `format` as Python's str.format does (values
 * separated by spaces when it is empty), and a newline to stdout; returns the empty tuple. */
RaxcValue* raxc_rt_print(const char* format, RaxcValue* const* values, int32_t num_values);
/* R.assert_op: the empty tuple when `condition` (a bool scalar) holds; else NULL after
 * recording RX5023 at `failed` with the message: the values formatted by `format`, or by a
 * leading string value when `format` is NULL. A condition that is not a bool scalar is RX5025
 * at `not_bool`. */
RaxcValue* raxc_rt_assert(const RaxcValue* condition, const char* format, RaxcValue* const* values,
                          int32_t num_values, const RaxcErrorSite* failed,
                          const RaxcErrorSite* not_bool);
/* R.builtin.alloc_tensor: a zero-filled tensor of a shape value and a dtype value (or its name
 * as a string); NULL after recording RX5026 at `site` (the shape and dtype are appended). */
RaxcValue* raxc_rt_empty(const RaxcValue* shape, const RaxcValue* dtype, const RaxcErrorSite* site);
/* R.null_value(), a dtype value (R.dtype("float32")). */
RaxcValue* raxc_rt_null(void);
RaxcValue* raxc_rt_dtype(int32_t code, int32_t bits, int32_t lanes);
/* R.shape_to_tensor / R.tensor_to_shape; NULL after recording RX5020 at `site` (site args: what,
 * the expected kind; the reason is appended). */
RaxcValue* raxc_rt_shape_to_tensor(const RaxcValue* shape, const RaxcErrorSite* site);
RaxcValue* raxc_rt_tensor_to_shape(const RaxcValue* tensor, const RaxcErrorSite* site);
/* Call depth: enter returns 1 after recording RX5024 when the limit is reached. */
int32_t raxc_rt_enter(const RaxcErrorSite* site);
void raxc_rt_leave(void);
/* Withdraws the seal (raxc_value_seal) of every tensor among `args`: an entry of a library whose
 * functions may write into tensors they are given calls it first. */
void raxc_rt_unseal_arguments(RaxcValue* const* args, int32_t num_args);
/* Renders this thread's error with the module's source location (a public entry's failure). */
void raxc_rt_locate(const RaxcModuleInfo* info);

#ifdef __cplusplus
}
#endif

#endif /* RAXC_RELAX_ABI_H_ */
