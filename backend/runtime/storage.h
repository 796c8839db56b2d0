// Explicit memory of TVM's memory-planned and VM-lowered programs: storage blocks, tensors
// placed inside them, and views. A storage is a byte buffer; a tensor allocated in it at an
// offset, or a view of another tensor, is a DLTensor over those same bytes (writes through one
// are seen through the others), keeping the buffer alive for as long as it lives, as TVM's
// Storage and Tensor::CreateView do. Sizes, offsets and dtypes are checked before any pointer
// is made: a request that does not fit throws RuntimeError RX5050-RX5052, which the caller
// locates (`raxc run`'s executor at the call, a built library at its error site).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/value.h"

namespace raxc::runtime {

// A storage block (R.Object at the Relax level). It is a Callable only because that is the
// value kind for opaque objects; calling one is RX5027.
struct Storage : Callable {
  TensorPtr bytes;  // a 1-d uint8 tensor holding the block
  int64_t size() const { return bytes->numel(); }
  std::string describe() const override {
    return "a storage of " + std::to_string(size()) + " bytes";
  }
};

// The storage a value holds, or null.
const Storage* as_storage(const Value& v);

// Throws RuntimeError `code` with the arguments of its message template, in order.
[[noreturn]] void throw_error(const char* code, std::vector<std::string> args);

// A dtype the runtime can store elements of (bool, int8–64, uint8–64, float16/32/64,
// bfloat16), from its name; RX5052 otherwise.
DLDataType storable_dtype(const std::string& name);
// The name of a DLPack dtype as TVM writes it ("void" and "handle" for the opaque ones).
std::string dtype_text(DLDataType dtype);
// A DLPack device as TVM writes it: "cpu(0)", "cuda(1)", "ext_dev(0)" ("device_type_N(i)" for
// an unknown type).
std::string device_name(int64_t type, int64_t index);
// "(2, 3)", "(4,)": dims as a Python tuple.
std::string dims_list(const std::vector<int64_t>& dims);

// A new storage of `bytes` bytes (zero-filled); RX5050 when it cannot be had.
Value allocate_storage(int64_t bytes);
// The number of bytes `dims` × `element_bytes` denote; RX5050 when negative or past int64.
int64_t storage_bytes(const std::vector<int64_t>& dims, int64_t element_bytes);

// A tensor of `shape` × `dtype` over the bytes of `storage` from `offset`; RX5051 when it does
// not lie inside them or the offset leaves its elements misaligned.
TensorPtr tensor_in_storage(const Storage& storage, int64_t offset,
                            const std::vector<int64_t>& shape, DLDataType dtype);
// A view of `source` with `shape` × `dtype` from `byte_offset` (runtime.TVMTensorCreateView,
// R.memory.view, vm.builtin.reshape); RX5051 when it does not lie inside the source's bytes.
TensorPtr view_of(const TensorPtr& source, int64_t byte_offset, const std::vector<int64_t>& shape,
                  DLDataType dtype);

}  // namespace raxc::runtime
