/* raxc_runtime.h — the C ABI between code raxc generates and the runtime library.
 *
 * Generated kernels (compiled TIR PrimFuncs) and, later, the entry points of a library written
 * by `raxc build` call only what is declared here; the runtime that implements it has no LLVM in
 * it. Tensors cross the boundary as DLPack `DLTensor`s, so a C program, numpy or PyTorch can hand
 * their own memory in.
 *
 * Calling convention of a compiled PrimFunc (the "packed" entry, as TVM's MakePackedAPI):
 *
 *   int32_t f(const RaxcArg* args, const int32_t* kinds, int32_t num_args, RaxcArg* ret);
 *
 * One RaxcArg per PrimFunc parameter, in order: a buffer parameter takes a DLTensor*, a scalar
 * parameter its value; a PrimFunc that returns a value (`-> T.int32`) writes it to *ret. The entry
 * checks the count, each kind, and every tensor's ndim, dtype, shape (binding the symbolic
 * variables it declares) and strides before it runs the body. It returns 0 on success; on failure
 * it has recorded the error with raxc_fail() and returns that error's non-zero status. Errors are
 * values, never exceptions or aborts: nothing unwinds through generated frames.
 */
#ifndef RAXC_RUNTIME_H_
#define RAXC_RUNTIME_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef union RaxcArg {
  DLTensor* tensor;
  int64_t i64; /* integers and bools of every width, sign-extended */
  double f64;  /* floats of every width */
  void* handle;
} RaxcArg;

enum RaxcArgKind { RAXC_ARG_TENSOR = 0, RAXC_ARG_INT = 1, RAXC_ARG_FLOAT = 2, RAXC_ARG_HANDLE = 3 };

typedef int32_t (*RaxcPackedFunc)(const RaxcArg* args, const int32_t* kinds, int32_t num_args,
                                  RaxcArg* ret);

/* Packed functions from plugins (`raxc run --load plugin.so`). A plugin is a shared library that
 * exports
 *
 *   int32_t raxc_plugin_register(RaxcRegisterFunc register_function, void* context);
 *
 * which calls register_function(context, "name", function) once per function it provides and
 * returns 0. Such a function receives its arguments as a kernel does (tensors as DLTensor*,
 * integers and bools as i64, floats as f64) and reports its result through *ret and *ret_kind:
 * RAXC_ARG_INT or RAXC_ARG_FLOAT for a scalar, RAXC_RET_NONE (the default) for none. Tensors
 * come back through destination arguments (R.call_dps_packed allocates the outputs and passes
 * them after the inputs). A failure returns non-zero after raxc_plugin_fail(message). */
#define RAXC_RET_NONE (-1)
typedef int32_t (*RaxcPluginFunc)(const RaxcArg* args, const int32_t* kinds, int32_t num_args,
                                  RaxcArg* ret, int32_t* ret_kind);
typedef void (*RaxcRegisterFunc)(void* context, const char* name, RaxcPluginFunc function);
typedef int32_t (*RaxcPluginRegister)(RaxcRegisterFunc register_function, void* context);
/* Registers `function` under `name` for every packed call of this process (R.call_packed,
 * R.ExternFunc, ... in `raxc run` and in the libraries `raxc build` writes), as a plugin's
 * register_function does. Returns 0; 1 for a NULL name or function. */
int32_t raxc_register_function(const char* name, RaxcPluginFunc function);
/* Records the message of a failing plugin function (RX5032 at the call); returns 1. */
int32_t raxc_plugin_fail(const char* message);

/* Where an error happened, emitted by the code generator as a constant next to the check.
 * `code` is a diagnostic code ("RX5003"); its message template takes the `num_static` strings
 * of `args` first, then the int64 values given to raxc_fail (at most 3), printed in decimal.
 * begin/end are byte offsets into the .rx source the module was compiled from. */
typedef struct RaxcErrorSite {
  const char* code;
  uint32_t begin;
  uint32_t end;
  int32_t num_static;
  int32_t num_values;
  const char* const* args;
} RaxcErrorSite;

/* Records an error for the current thread and returns the status a failing entry returns (1). */
int32_t raxc_fail(const RaxcErrorSite* site, int64_t v0, int64_t v1, int64_t v2);

/* Scratch memory for T.alloc_buffer that does not fit the stack: 64-byte aligned; NULL after
 * recording RX5005 when the allocation fails (the caller returns 1). */
void* raxc_workspace_alloc(int64_t nbytes, const RaxcErrorSite* site);
void raxc_workspace_free(void* ptr);

/* Parallel loops (T.parallel): `body` runs over disjoint chunks [b, e) of [begin, end) on the
 * runtime's thread pool, the calling thread taking a share. The first non-zero status of a
 * chunk is returned, with that chunk's error moved to the calling thread. A call from inside a
 * parallel body runs serially (no nested pools). */
typedef int32_t (*RaxcParallelBody)(int64_t begin, int64_t end, void* closure);
int32_t raxc_parallel_for(int64_t begin, int64_t end, RaxcParallelBody body, void* closure);
/* Threads used by raxc_parallel_for (and the matmul kernel), the caller included; 0 = the
 * default: RAXC_NUM_THREADS when set to a positive number, else the CPUs this process may use. */
void raxc_set_num_threads(int32_t n);
int32_t raxc_num_threads(void);

/* The last error recorded on this thread, as text "RX5003: message" (for C callers). */
const char* raxc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* RAXC_RUNTIME_H_ */
