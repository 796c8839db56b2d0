// Explicit memory of TVM's memory-planned and VM-lowered programs (private to backend/exec):
// storage blocks, tensors placed inside them, and views. A storage is a byte buffer; a tensor
// allocated in it at an offset, or a view of another tensor, is a DLTensor over those same
// bytes (writes through one are seen through the others), keeping the buffer alive for as long
// as it lives, as TVM's Storage and Tensor::CreateView do. Sizes, offsets and dtypes are
// checked before any pointer is made: a request that does not fit is a located RX505x error.
//
// memory.cpp implements the operators (R.memory.*, R.vm.*, R.call_builtin_with_ctx) and these
// helpers; vm_builtins.cpp registers the `vm.builtin.*` packed functions built on them.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/exec/interpreter.h"

namespace raxc::backend {

// A storage block (R.Object at the Relax level). It is a runtime::Callable only because that is
// the value kind for opaque objects the executor defines; calling one is RX5027.
struct Storage : runtime::Callable {
  runtime::TensorPtr bytes;  // a 1-d uint8 tensor holding the block
  int64_t size() const { return bytes->numel(); }
  std::string describe() const override {
    return "a storage of " + std::to_string(size()) + " bytes";
  }
};

// The storage a value holds, or null.
const Storage* as_storage(const runtime::Value& v);

// A dtype the runtime can store elements of (bool, int8–64, uint8–64, float16/32/64,
// bfloat16), from its name; RX5052 at `at` otherwise.
DLDataType storable_dtype(const std::string& name, Span at);
// The name of a DLPack dtype as TVM writes it ("void" and "handle" for the opaque ones).
std::string dtype_text(DLDataType dtype);

// A new storage of `bytes` bytes (zero-filled); RX5050 when it cannot be had.
runtime::Value allocate_storage(int64_t bytes, Span at);
// The number of bytes `dims` × `element_bytes` denote; RX5050 when negative or past int64.
int64_t storage_bytes(const std::vector<int64_t>& dims, int64_t element_bytes, Span at);

// A tensor of `shape` × `dtype` over the bytes of `storage` from `offset`; RX5051 when it does
// not lie inside them or the offset leaves its elements misaligned.
runtime::TensorPtr tensor_in_storage(const Storage& storage, int64_t offset,
                                     const std::vector<int64_t>& shape, DLDataType dtype, Span at);
// A view of `source` with `shape` × `dtype` from `byte_offset` (runtime.TVMTensorCreateView,
// R.memory.view, vm.builtin.reshape); RX5051 when it does not lie inside the source's bytes.
runtime::TensorPtr view_of(const runtime::TensorPtr& source, int64_t byte_offset,
                           const std::vector<int64_t>& shape, DLDataType dtype, Span at);

// Calls `callee` (a PrimFunc of the module, another global, or a packed function, by value or
// by name) with `args` followed by the dimensions of the shape `last`, as R.vm.call_tir_dyn and
// vm.builtin.call_tir_dyn do.
runtime::Value call_tir_dyn(Interpreter& in, const runtime::Value& callee,
                            std::vector<runtime::Value> args, const runtime::Value& last, Span at);

// The operators of this file, by name ("relax.memory.alloc_storage", ...), for builtins.cpp's
// table.
using MemoryOpHandler = runtime::Value (*)(Interpreter&, const ir::Call*, Frame&);
const std::unordered_map<std::string_view, MemoryOpHandler>& memory_ops();

// The `vm.builtin.*` packed functions (and runtime.TVMTensorCreateView), for the registry.
void register_vm_builtins(std::unordered_map<std::string, PackedFunction>& functions);

}  // namespace raxc::backend
