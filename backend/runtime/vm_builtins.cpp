// The `vm.builtin.*` packed functions of TVM's Relax VM (src/runtime/vm/builtin.cc) that
// VM-lowered programs call through R.call_packed / R.call_builtin_with_ctx, with TVM's
// arguments and meaning, plus runtime.TVMTensorCreateView (what R.memory.view lowers to): in
// the runtime's packed-function registry, so `raxc run` and built libraries share them.
// The VM context TVM passes to some of them is not an argument here (R.call_builtin_with_ctx
// drops it). A call with arguments of the wrong kind, or a check that fails, is RX5032 with the
// message TVM would raise (its error-context string first); sizes and offsets that do not fit
// are RX5050-RX5052 (memory.cpp).
//
//   shapes and checks   check_tensor_info(x, ndim[, dtype], ctx), check_shape_info(x, ndim, ctx),
//                       check_prim_value_info(x, dtype, ctx), check_tuple_info(x, n, ctx),
//                       check_func_info(x, ctx), alloc_shape_heap(n), match_shape(x, heap, n,
//                       (code, reg)×n, ctx), make_shape(heap, n, (code, reg)×n),
//                       match_prim_value(v, heap, code, reg, ctx), make_prim_value(heap, code,
//                       reg), shape_of(x), tensor_to_shape(x)
//   memory              alloc_storage(size, device, dtype, scope), alloc_tensor(storage, offset,
//                       shape, dtype[, scope]), reshape(x, shape), ensure_zero_offset(x),
//                       to_device(x, type, id[, scope]), runtime.TVMTensorCreateView(x, shape,
//                       dtype, offset)
//   values              copy(x), null_value(), make_tuple(...), tuple_getitem(t, i),
//                       read_if_cond(c)
// call_tir_dyn and invoke_closure call back into the program: the executor has them
// (backend/exec/memory.cpp).
#include <cstring>

#include "backend/runtime/packed.h"
#include "backend/runtime/storage.h"
#include "backend/runtime/value_handle.h"

namespace raxc::runtime {

namespace {

// TVM's MatchShapeCode and MakeShapeCode (include/tvm/runtime/vm/builtin.h).
enum MatchCode : int64_t {
  kAssertEqualToImm = 0,
  kStoreToHeap = 1,
  kNoOp = 2,
  kAssertEqualToLoad = 3
};
enum MakeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

// The calls of one packed function: argument readers that fail with its name.
class Args {
 public:
  Args(const char* name, const std::vector<Value>& args) : name_(name), args_(args) {}

  // RX5032 "packed function failed: {message}".
  [[noreturn]] void fail(const std::string& message) const {
    throw_error("RX5032", {std::string(name_) + ": " + message});
  }
  void count(size_t low, size_t high) const {
    if (args_.size() < low || args_.size() > high)
      fail("takes " +
           (low == high ? std::to_string(low)
                        : std::to_string(low) + " to " + std::to_string(high)) +
           " argument(s), " + std::to_string(args_.size()) + " given");
  }
  size_t size() const { return args_.size(); }
  const Value& operator[](size_t i) const { return args_[i]; }

  [[noreturn]] void wrong(size_t i, const char* expected) const {
    fail("argument " + std::to_string(i) + " must be " + expected + ", not " + describe(args_[i]));
  }
  int64_t integer(size_t i) const {
    const auto* p = args_[i].get_if<runtime::Prim>();
    if (!p || p->is_float()) wrong(i, "an integer");
    return p->i;
  }
  const runtime::TensorPtr& tensor(size_t i) const {
    const runtime::TensorPtr* t = args_[i].tensor();
    if (!t) wrong(i, "a tensor");
    return *t;
  }
  const std::vector<int64_t>& shape(size_t i) const {
    const auto* s = args_[i].get_if<runtime::Shape>();
    if (!s) wrong(i, "a shape");
    return s->dims;
  }
  // A dtype, or nullopt for null (TVM's Optional<DLDataType>).
  std::optional<DLDataType> dtype(size_t i) const {
    if (args_[i].is<runtime::Null>()) return std::nullopt;
    if (const auto* d = args_[i].get_if<runtime::DType>()) return d->dtype;
    if (const auto* s = args_[i].get_if<runtime::String>()) {
      if (auto d = runtime::parse_dtype(s->value)) return *d;
    }
    wrong(i, "a dtype");
  }
  // The error-context string TVM prefixes its messages with (may be null).
  std::string context(size_t i) const {
    if (i >= args_.size()) return {};
    if (const auto* s = args_[i].get_if<runtime::String>()) return s->value + " ";
    return {};
  }
  // Register `reg` of the shape heap (an int64 tensor, or null when the program needs none).
  int64_t& heap(size_t heap_index, int64_t reg) const {
    const runtime::TensorPtr* t = args_[heap_index].tensor();
    if (!t)
      fail("the shape heap is " + describe(args_[heap_index]) + ", but register " +
           std::to_string(reg) + " is used");
    const runtime::Tensor& h = **t;
    if (!runtime::same_dtype(h.dtype(), DLDataType{kDLInt, 64, 1}) || h.ndim() != 1)
      fail("the shape heap must be a 1-d int64 tensor, not " + describe(args_[heap_index]));
    if (reg < 0 || reg >= h.numel())
      fail("register " + std::to_string(reg) + " is outside the shape heap of " +
           std::to_string(h.numel()) + " registers");
    return h.data_as<int64_t>()[reg];
  }

 private:
  const char* name_;
  const std::vector<Value>& args_;
};

// vm.builtin.copy(x): x itself. TVM's VM emits it to copy a register (a binding `y = x`), which
// copies the reference, not the data (src/runtime/vm/builtin.cc returns its argument): y and x
// are the same tensor afterwards.
Value copy(const std::vector<Value>& v) {
  Args a("vm.builtin.copy", v);
  a.count(1, 1);
  return v[0];
}

// ----------------------------------------------------------------------------- checks

Value check_tensor_info(const std::vector<Value>& v) {
  Args a("vm.builtin.check_tensor_info", v);
  a.count(3, 4);
  int64_t ndim = a.integer(1);
  std::optional<DLDataType> dtype = a.size() == 4 ? a.dtype(2) : std::nullopt;
  std::string ctx = a.context(a.size() - 1);
  const runtime::TensorPtr* t = v[0].tensor();
  if (!t) a.fail(ctx + "expect a Tensor but get " + describe(v[0]));
  if (ndim != -1 && (*t)->ndim() != ndim)
    a.fail(ctx + "expect Tensor with ndim " + std::to_string(ndim) + " but get " +
           std::to_string((*t)->ndim()));
  if (dtype && !runtime::same_dtype(*dtype, (*t)->dtype()))
    a.fail(ctx + "expect Tensor with dtype " + dtype_text(*dtype) + " but get " +
           dtype_text((*t)->dtype()));
  return runtime::Null{};
}

Value check_shape_info(const std::vector<Value>& v) {
  Args a("vm.builtin.check_shape_info", v);
  a.count(3, 3);
  int64_t ndim = a.integer(1);
  std::string ctx = a.context(2);
  const auto* s = v[0].get_if<runtime::Shape>();
  if (!s) a.fail(ctx + "expect a Shape but get " + describe(v[0]));
  if (ndim != -1 && static_cast<int64_t>(s->dims.size()) != ndim)
    a.fail(ctx + "expect Shape with ndim " + std::to_string(ndim) + " but get " +
           std::to_string(s->dims.size()));
  return runtime::Null{};
}

// The value must be a scalar convertible to `dtype`: an integer for int/uint/bool, any number
// for float; void (opaque, 0 bits) means any scalar.
Value check_prim_value_info(const std::vector<Value>& v) {
  Args a("vm.builtin.check_prim_value_info", v);
  a.count(3, 3);
  std::optional<DLDataType> dtype = a.dtype(1);
  std::string ctx = a.context(2);
  const auto* p = v[0].get_if<runtime::Prim>();
  std::string want = dtype ? dtype_text(*dtype) : "void";
  if (!p) a.fail(ctx + "expected dtype " + want + ", but received " + describe(v[0]));
  if (dtype && (dtype->code == kDLInt || dtype->code == kDLUInt) && p->is_float())
    a.fail(ctx + "expected dtype " + want + ", but received " + describe(v[0]));
  return runtime::Null{};
}

Value check_tuple_info(const std::vector<Value>& v) {
  Args a("vm.builtin.check_tuple_info", v);
  a.count(3, 3);
  int64_t size = a.integer(1);
  std::string ctx = a.context(2);
  const auto* t = v[0].get_if<runtime::Tuple>();
  if (!t) a.fail(ctx + "expect a Tuple but get " + describe(v[0]));
  if (static_cast<int64_t>(t->fields.size()) != size)
    a.fail(ctx + "expect a Tuple with " + std::to_string(size) +
           " elements, but get a Tuple with " + std::to_string(t->fields.size()) + " elements");
  return runtime::Null{};
}

Value check_func_info(const std::vector<Value>& v) {
  Args a("vm.builtin.check_func_info", v);
  a.count(2, 2);
  if (!v[0].is<runtime::CallablePtr>() || as_storage(v[0]))
    a.fail(a.context(1) + "expect a Function but get " + describe(v[0]));
  return runtime::Null{};
}

// ------------------------------------------------------------------- the shape heap

Value alloc_shape_heap(const std::vector<Value>& v) {
  Args a("vm.builtin.alloc_shape_heap", v);
  a.count(1, 1);
  int64_t size = a.integer(0);
  if (size < 0) a.fail("a heap of " + std::to_string(size) + " registers");
  TensorPtr heap = Tensor::empty({size}, DLDataType{kDLInt, 64, 1});
  if (!heap) throw_error("RX5026", {dims_list({size}), "int64"});
  return heap;
}

Value match_shape(const std::vector<Value>& v) {
  Args a("vm.builtin.match_shape", v);
  if (v.size() < 3) a.count(3, 3);
  std::vector<int64_t> input;
  if (const runtime::TensorPtr* t = v[0].tensor())
    input = (*t)->shape();
  else
    input = a.shape(0);
  int64_t size = a.integer(2);
  // A count past the arguments is refused before 2 * size can overflow.
  if (size < 0 || size > static_cast<int64_t>(v.size()) ||
      v.size() != static_cast<size_t>(3 + 2 * size + 1))
    a.fail(std::to_string(v.size()) + " arguments do not hold the (code, register) pairs of " +
           std::to_string(size) + " dimension(s) and an error context");
  std::string ctx = a.context(v.size() - 1);
  if (static_cast<int64_t>(input.size()) != size) a.fail(ctx + "match_cast shape size mismatch");
  for (int64_t i = 0; i < size; ++i) {
    int64_t code = a.integer(3 + 2 * i), reg = a.integer(4 + 2 * i);
    std::string dim = "shape[" + std::to_string(i) + "]";
    if (code == kAssertEqualToImm) {
      if (input[i] != reg)
        a.fail(ctx + "match_cast error, " + dim + " mismatch to specified constant");
    } else if (code == kStoreToHeap) {
      a.heap(1, reg) = input[i];
    } else if (code == kAssertEqualToLoad) {
      if (input[i] != a.heap(1, reg))
        a.fail(ctx + "match_cast error, " + dim + " mismatch to a previous populated value");
    } else if (code != kNoOp) {
      a.fail("unknown match shape code " + std::to_string(code));
    }
  }
  return runtime::Null{};
}

Value make_shape(const std::vector<Value>& v) {
  Args a("vm.builtin.make_shape", v);
  if (v.size() < 2) a.count(2, 2);
  int64_t size = a.integer(1);
  if (size < 0 || size > static_cast<int64_t>(v.size()) ||
      v.size() != static_cast<size_t>(2 + 2 * size))
    a.fail(std::to_string(v.size()) + " arguments do not hold the (code, register) pairs of " +
           std::to_string(size) + " dimension(s)");
  runtime::Shape out;
  for (int64_t i = 0; i < size; ++i) {
    int64_t code = a.integer(2 + 2 * i), reg = a.integer(3 + 2 * i);
    if (code == kUseImm)
      out.dims.push_back(reg);
    else if (code == kLoadShape)
      out.dims.push_back(a.heap(0, reg));
    else
      a.fail("invalid shape code " + std::to_string(code));
  }
  return out;
}

Value match_prim_value(const std::vector<Value>& v) {
  Args a("vm.builtin.match_prim_value", v);
  a.count(4, 5);
  int64_t value = a.integer(0), code = a.integer(2), reg = a.integer(3);
  std::string ctx = a.context(4);
  if (code == kAssertEqualToImm) {
    if (value != reg) a.fail(ctx + "match_cast error, PrimExpr mismatch to specified constant");
  } else if (code == kStoreToHeap) {
    a.heap(1, reg) = value;
  } else if (code == kAssertEqualToLoad) {
    if (value != a.heap(1, reg))
      a.fail(ctx + "match_cast error, PrimExpr mismatch to a previous populated value");
  } else if (code != kNoOp) {
    a.fail("unknown match shape code " + std::to_string(code));
  }
  return runtime::Null{};
}

Value make_prim_value(const std::vector<Value>& v) {
  Args a("vm.builtin.make_prim_value", v);
  a.count(3, 3);
  int64_t code = a.integer(1), reg = a.integer(2);
  if (code == kUseImm) return runtime::Prim{DLDataType{kDLInt, 64, 1}, reg, 0};
  if (code == kLoadShape) return runtime::Prim{DLDataType{kDLInt, 64, 1}, a.heap(0, reg), 0};
  a.fail("invalid shape code " + std::to_string(code));
}

Value shape_of(const std::vector<Value>& v) {
  Args a("vm.builtin.shape_of", v);
  a.count(1, 1);
  return runtime::Shape{a.tensor(0)->shape()};
}

Value tensor_to_shape(const std::vector<Value>& v) {
  Args a("vm.builtin.tensor_to_shape", v);
  a.count(1, 1);
  const runtime::TensorPtr& t = a.tensor(0);
  if (t->ndim() != 1 || t->dtype().code != kDLInt || t->dtype().bits < 16)
    a.fail("expects a 1-d int16, int32 or int64 tensor, not " + describe(v[0]));
  runtime::Shape s;
  for (int64_t i = 0; i < t->numel(); ++i) s.dims.push_back(t->get_i64(i));
  return s;
}

// ---------------------------------------------------------------------------- memory

Value alloc_storage(const std::vector<Value>& v) {
  Args a("vm.builtin.alloc_storage", v);
  a.count(3, 4);
  const std::vector<int64_t>& size = a.shape(0);
  a.integer(1);  // the device index: every device of a CPU run is host memory
  std::optional<DLDataType> hint = a.dtype(2);
  int64_t element = hint ? runtime::dtype_bytes(storable_dtype(dtype_text(*hint))) : 1;
  return allocate_storage(storage_bytes(size, element));
}

Value alloc_tensor(const std::vector<Value>& v) {
  Args a("vm.builtin.alloc_tensor", v);
  a.count(4, 5);
  const Storage* storage = as_storage(v[0]);
  if (!storage) a.wrong(0, "a storage");
  int64_t offset = a.integer(1);
  const std::vector<int64_t>& shape = a.shape(2);
  std::optional<DLDataType> dtype = a.dtype(3);
  if (!dtype) a.wrong(3, "a dtype");
  return tensor_in_storage(*storage, offset, shape, storable_dtype(dtype_text(*dtype)));
}

// A view with the same dtype and a new shape (TVM: Tensor::CreateView, which lets the view be
// smaller than the tensor).
Value reshape(const std::vector<Value>& v) {
  Args a("vm.builtin.reshape", v);
  a.count(2, 2);
  const runtime::TensorPtr& t = a.tensor(0);
  return view_of(t, 0, a.shape(1), t->dtype());
}

Value create_view(const std::vector<Value>& v) {
  Args a("runtime.TVMTensorCreateView", v);
  a.count(3, 4);
  const runtime::TensorPtr& t = a.tensor(0);
  std::optional<DLDataType> dtype = a.dtype(2);
  DLDataType d = dtype ? storable_dtype(dtype_text(*dtype)) : t->dtype();
  int64_t offset = a.size() == 4 ? a.integer(3) : 0;
  return view_of(t, offset, a.shape(1), d);
}

// Views here never carry a byte_offset (memory.cpp moves the pointer instead), so every tensor
// already has the zero offset TVM's kernels want.
Value ensure_zero_offset(const std::vector<Value>& v) {
  Args a("vm.builtin.ensure_zero_offset", v);
  a.count(1, 1);
  return a.tensor(0);
}

// Every device of a CPU run is host memory; the copy keeps the result from aliasing its
// source, as a transfer to another device would.
Value to_device(const std::vector<Value>& v) {
  Args a("vm.builtin.to_device", v);
  a.count(3, 4);
  const runtime::TensorPtr& t = a.tensor(0);
  a.integer(1);
  a.integer(2);
  runtime::TensorPtr out = runtime::Tensor::empty(t->shape(), t->dtype());
  if (!out) throw_error("RX5026", {dims_list(t->shape()), runtime::dtype_name(t->dtype())});
  std::memcpy(out->data(), t->data(), static_cast<size_t>(t->nbytes()));
  return out;
}

// -------------------------------------------------------------------- values and calls

Value null_value(const std::vector<Value>& v) {
  Args("vm.builtin.null_value", v).count(0, 0);
  return runtime::Null{};
}

Value make_tuple(const std::vector<Value>& v) { return runtime::Tuple{v}; }

Value tuple_getitem(const std::vector<Value>& v) {
  Args a("vm.builtin.tuple_getitem", v);
  a.count(2, 2);
  const auto* t = v[0].get_if<runtime::Tuple>();
  if (!t) a.wrong(0, "a tuple");
  int64_t i = a.integer(1);
  if (i < 0 || i >= static_cast<int64_t>(t->fields.size()))
    a.fail("index " + std::to_string(i) + " is out of range for a tuple of " +
           std::to_string(t->fields.size()));
  return t->fields[static_cast<size_t>(i)];
}

// The value of an If's condition: a bool or integer scalar, or the first element of an
// integer/bool tensor (TVM reads element 0 whatever the shape).
Value read_if_cond(const std::vector<Value>& v) {
  Args a("vm.builtin.read_if_cond", v);
  a.count(1, 1);
  bool result = false;
  if (const auto* p = v[0].get_if<runtime::Prim>()) {
    if (p->is_float()) a.wrong(0, "a bool or integer");
    result = p->i != 0;
  } else {
    const runtime::TensorPtr& t = a.tensor(0);
    if (t->dtype().code == kDLFloat || t->dtype().code == kDLBfloat || t->numel() == 0)
      a.fail("expects a non-empty bool or integer tensor, not " + describe(v[0]));
    result = t->get_i64(0) != 0;
  }
  return runtime::Prim{DLDataType{kDLUInt, 1, 1}, result ? 1 : 0, 0};
}

}  // namespace

std::vector<std::pair<const char*, PackedFunction>> vm_builtins() {
  return {
      {"vm.builtin.copy", copy},
      {"vm.builtin.check_tensor_info", check_tensor_info},
      {"vm.builtin.check_shape_info", check_shape_info},
      {"vm.builtin.check_prim_value_info", check_prim_value_info},
      {"vm.builtin.check_tuple_info", check_tuple_info},
      {"vm.builtin.check_func_info", check_func_info},
      {"vm.builtin.alloc_shape_heap", alloc_shape_heap},
      {"vm.builtin.match_shape", match_shape},
      {"vm.builtin.make_shape", make_shape},
      {"vm.builtin.match_prim_value", match_prim_value},
      {"vm.builtin.make_prim_value", make_prim_value},
      {"vm.builtin.shape_of", shape_of},
      {"vm.builtin.tensor_to_shape", tensor_to_shape},
      {"vm.builtin.alloc_storage", alloc_storage},
      {"vm.builtin.alloc_tensor", alloc_tensor},
      {"vm.builtin.reshape", reshape},
      {"vm.builtin.ensure_zero_offset", ensure_zero_offset},
      {"vm.builtin.to_device", to_device},
      {"runtime.TVMTensorCreateView", create_view},
      {"vm.builtin.null_value", null_value},
      {"vm.builtin.make_tuple", make_tuple},
      {"vm.builtin.tuple_getitem", tuple_getitem},
      {"vm.builtin.read_if_cond", read_if_cond},
  };
}

}  // namespace raxc::runtime
