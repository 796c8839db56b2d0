// Storage blocks, tensors inside them and views (see storage.h).
//
// Sizes follow TVM's lowering (src/relax/backend/vm/lower_runtime_builtin.cc and
// src/runtime/memory/memory_manager.cc). A tensor at `offset` needs offset + its bytes within the
// storage, which TVM only asserts; here that, a negative offset and an offset that leaves the
// elements misaligned (the kernels load them with their natural alignment) are RX5051.
#include "backend/runtime/storage.h"

#include <limits>

namespace raxc::runtime {
namespace {

constexpr const char* kStorableDtypes =
    "the runtime stores elements of bool, int8-int64, uint8-uint64, float16, float32, float64 "
    "and bfloat16 only";

}  // namespace

void throw_error(const char* code, std::vector<std::string> args) {
  RuntimeError e;
  e.code = code;
  e.args = std::move(args);
  throw e;
}

std::string device_name(int64_t type, int64_t index) {
  static const std::pair<int64_t, const char*> names[] = {
      {1, "cpu"},           {2, "cuda"},    {3, "cuda_host"}, {4, "opencl"},     {7, "vulkan"},
      {8, "metal"},         {9, "vpi"},     {10, "rocm"},     {11, "rocm_host"}, {12, "ext_dev"},
      {13, "cuda_managed"}, {14, "oneapi"}, {15, "webgpu"},   {16, "hexagon"}};
  for (const auto& [code, name] : names)
    if (code == type) return std::string(name) + "(" + std::to_string(index) + ")";
  return "device_type_" + std::to_string(type) + "(" + std::to_string(index) + ")";
}

std::string dims_list(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

const Storage* as_storage(const Value& v) {
  const auto* c = v.get_if<CallablePtr>();
  return c ? dynamic_cast<const Storage*>(c->get()) : nullptr;
}

std::string dtype_text(DLDataType dtype) {
  if (dtype.code == kDLOpaqueHandle) return dtype.bits == 0 ? "void" : "handle";
  return dtype_name(dtype);
}

DLDataType storable_dtype(const std::string& name) {
  std::optional<DLDataType> d = parse_dtype(name);
  if (!d) throw_error("RX5052", {name, kStorableDtypes});
  return *d;
}

int64_t storage_bytes(const std::vector<int64_t>& dims, int64_t element_bytes) {
  int64_t n = element_bytes;
  for (int64_t d : dims) {
    if (d < 0) throw_error("RX5050", {"size " + dims_list(dims), "a dimension is negative"});
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw_error("RX5050", {"size " + dims_list(dims), "its size in bytes overflows int64"});
    n *= d;
  }
  return n;
}

Value allocate_storage(int64_t bytes) {
  if (bytes > allocation_limit())
    throw_error("RX5050", {std::to_string(bytes) + " bytes",
                           "more than this machine's memory (" +
                               std::to_string(allocation_limit()) + " bytes)"});
  auto storage = std::make_shared<Storage>();
  storage->bytes = Tensor::empty({bytes}, DLDataType{kDLUInt, 8, 1});
  if (!storage->bytes) throw_error("RX5050", {std::to_string(bytes) + " bytes", "out of memory"});
  return CallablePtr(storage);
}

namespace {

// Checks that [offset, offset + bytes of shape × dtype) lies in [0, extent) and that `base` +
// offset is aligned for the elements; returns the tensor's byte count.
int64_t placed_bytes(const char* base, int64_t extent, const std::string& where, int64_t offset,
                     const std::vector<int64_t>& shape, DLDataType dtype) {
  // RX5051: a tensor of {size} at byte offset {offset} does not fit in {storage}: {reason}
  auto does_not_fit = [&](const std::string& size, const std::string& reason) {
    throw_error("RX5051", {size, std::to_string(offset), where, reason});
  };
  std::optional<int64_t> bytes = Tensor::byte_size(shape, dtype);
  std::string shape_text = dims_list(shape);
  if (!bytes) {
    bool negative = false;
    for (int64_t d : shape) negative |= d < 0;
    does_not_fit("shape " + shape_text,
                 negative ? "a dimension is negative" : "its size in bytes overflows int64");
  }
  std::string size = std::to_string(*bytes) + " bytes";
  if (offset < 0) does_not_fit(size, "the offset is negative");
  if (offset > extent || *bytes > extent - offset)
    does_not_fit(size, "a " + dtype_name(dtype) + " tensor of shape " + shape_text +
                           (*bytes > std::numeric_limits<int64_t>::max() - offset
                                ? std::string(" would end past byte 2^63")
                                : " would end at byte " + std::to_string(offset + *bytes)));
  int64_t element = dtype_bytes(dtype);
  if (reinterpret_cast<uintptr_t>(base + offset) % static_cast<uintptr_t>(element) != 0)
    does_not_fit(size, "its " + std::to_string(element) + "-byte " + dtype_name(dtype) +
                           " elements would be misaligned (the address must be a multiple of " +
                           std::to_string(element) + ")");
  return *bytes;
}

}  // namespace

TensorPtr tensor_in_storage(const Storage& storage, int64_t offset,
                            const std::vector<int64_t>& shape, DLDataType dtype) {
  char* base = static_cast<char*>(storage.bytes->data());
  placed_bytes(base, storage.size(), storage.describe(), offset, shape, dtype);
  return Tensor::view(storage.bytes, base + offset, shape, dtype);
}

TensorPtr view_of(const TensorPtr& source, int64_t byte_offset, const std::vector<int64_t>& shape,
                  DLDataType dtype) {
  char* base = static_cast<char*>(source->data());
  placed_bytes(base, source->nbytes(),
               "the " + std::to_string(source->nbytes()) + " bytes of the viewed " +
                   dtype_name(source->dtype()) + " tensor of shape " + dims_list(source->shape()),
               byte_offset, shape, dtype);
  // The view shares the source's owner (a view of a view keeps the first buffer alive).
  return Tensor::view(source, base + byte_offset, shape, dtype);
}

}  // namespace raxc::runtime
