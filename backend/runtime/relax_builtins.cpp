// The language's builtins as the Relax code of a `raxc build` library calls them
// (raxc_relax_abi.h): packed calls through the registry of packed.h; callable values (closures,
// PrimFuncs and packed functions as values) and the vm.builtin.* functions that call them;
// R.print and R.assert_op; the small value operators (R.null_value, dtype values,
// R.builtin.alloc_tensor, R.shape_to_tensor, R.tensor_to_shape); and R.inspect.*. `raxc run`'s
// executor shares the registry and implements the rest in backend/exec; run_goldens.py holds
// the two to the same results.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/format.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_relax_abi.h"
#include "backend/runtime/storage.h"
#include "backend/runtime/value_handle.h"

namespace raxc::runtime {
namespace {

std::vector<Value> values_of(RaxcValue* const* args, int32_t n) {
  std::vector<Value> values;
  values.reserve(n > 0 ? static_cast<size_t>(n) : 0);
  for (int32_t i = 0; i < n; ++i) values.push_back(args[i] ? args[i]->value : Value{Null{}});
  return values;
}

// Runs `fn`, recording what it throws at the site's location; null then.
template <class Fn>
RaxcValue* guarded(const RaxcErrorSite* site, Fn&& fn) {
  try {
    return box(fn());
  } catch (RuntimeError& e) {
    e.begin = site->begin;
    e.end = site->end;
    set_last_error(std::move(e));
  } catch (const std::bad_alloc&) {
    RuntimeError e;
    e.code = "RX5032";  // "packed function failed: {message}"
    e.begin = site->begin;
    e.end = site->end;
    e.args.push_back("out of memory");
    set_last_error(std::move(e));
  }
  return nullptr;
}

// A Relax function of a built library with the values it closes over (raxc_rt_closure).
struct CompiledClosure : Callable {
  RaxcRelaxFunc function = nullptr;
  std::vector<RaxcValue*> captured;  // owned references
  std::string name;
  bool pass_self = false;
  ~CompiledClosure() override {
    for (RaxcValue* h : captured) raxc_value_release(h);
  }
  std::string describe() const override { return "closure '" + name + "'"; }
};

// A compiled PrimFunc as a value (raxc_rt_kernel_ref).
struct KernelRef : Callable {
  RaxcPackedFunc kernel = nullptr;
  std::string name;
  int32_t ret_code = -1, ret_bits = 0;
  std::string describe() const override { return "function '" + name + "'"; }
};

Value call_packed(const std::string& name, std::vector<Value> args) {
  std::shared_ptr<const PackedFunction> fn = find_packed(name);
  if (!fn) {
    RuntimeError e;
    e.code = "RX5022";  // "packed function '{function}' is not registered"
    e.args.push_back(name);
    throw e;
  }
  return (*fn)(args);
}

}  // namespace
}  // namespace raxc::runtime

using namespace raxc::runtime;

extern "C" RaxcValue* raxc_rt_call_packed(const char* name, RaxcValue* const* args,
                                          int32_t num_args, const RaxcErrorSite* site) {
  return guarded(site, [&] { return call_packed(name, values_of(args, num_args)); });
}

extern "C" RaxcValue* raxc_rt_packed_ref(const char* name) {
  auto ref = std::make_shared<PackedRef>();
  ref->symbol = name;
  return box(CallablePtr(std::move(ref)));
}

extern "C" RaxcValue* raxc_rt_closure(RaxcRelaxFunc function, RaxcValue* const* captured,
                                      int32_t num_captured, const char* name, int32_t pass_self) {
  auto closure = std::make_shared<CompiledClosure>();
  closure->function = function;
  closure->name = name;
  closure->pass_self = pass_self != 0;
  for (int32_t i = 0; i < num_captured; ++i) {
    raxc_value_retain(captured[i]);
    closure->captured.push_back(captured[i]);
  }
  return box(CallablePtr(std::move(closure)));
}

extern "C" RaxcValue* raxc_rt_kernel_ref(RaxcPackedFunc kernel, const char* name, int32_t ret_code,
                                         int32_t ret_bits) {
  auto ref = std::make_shared<KernelRef>();
  ref->kernel = kernel;
  ref->name = name;
  ref->ret_code = ret_code;
  ref->ret_bits = ret_bits;
  return box(CallablePtr(std::move(ref)));
}

namespace {

RaxcValue* call_kernel(const KernelRef& k, RaxcValue* const* args, int32_t num_args,
                       const RaxcErrorSite* site) {
  std::vector<RaxcArg> packed(static_cast<size_t>(num_args));
  std::vector<int32_t> kinds(static_cast<size_t>(num_args));
  for (int32_t i = 0; i < num_args; ++i) {
    if (!pack_argument(args[i]->value, packed[i], kinds[i])) {
      RuntimeError e;
      e.code = "RX5003";  // "argument {index} of '{callee}' must be {expected}"
      e.begin = site->begin;
      e.end = site->end;
      e.args = {std::to_string(i), k.name, "a tensor or a scalar, not " + describe(args[i])};
      set_last_error(std::move(e));
      return nullptr;
    }
  }
  RaxcArg ret{};
  // The kernel recorded its error (located at its own site) when it fails.
  if (k.kernel(packed.data(), kinds.data(), num_args, &ret) != 0) return nullptr;
  if (k.ret_code < 0) return box(Tuple{});
  DLDataType t{static_cast<uint8_t>(k.ret_code), static_cast<uint8_t>(k.ret_bits), 1};
  if (k.ret_code == kDLFloat || k.ret_code == kDLBfloat) return box(Prim{t, 0, ret.f64});
  return box(Prim{t, ret.i64, 0});
}

}  // namespace

extern "C" RaxcValue* raxc_rt_call_value(const RaxcValue* callee, RaxcValue* const* args,
                                         int32_t num_args, const RaxcErrorSite* site) {
  const auto* c = callee ? callee->value.get_if<CallablePtr>() : nullptr;
  if (const auto* ref = c ? dynamic_cast<const PackedRef*>(c->get()) : nullptr)
    return raxc_rt_call_packed(ref->symbol.c_str(), args, num_args, site);
  if (const auto* k = c ? dynamic_cast<const KernelRef*>(c->get()) : nullptr)
    return call_kernel(*k, args, num_args, site);
  if (const auto* closure = c ? dynamic_cast<const CompiledClosure*>(c->get()) : nullptr) {
    std::vector<RaxcValue*> all;
    if (closure->pass_self) all.push_back(const_cast<RaxcValue*>(callee));
    all.insert(all.end(), closure->captured.begin(), closure->captured.end());
    all.insert(all.end(), args, args + num_args);
    RaxcValue* result = nullptr;
    // The callee recorded its error (located at its own site) when it fails.
    if (closure->function(all.data(), static_cast<int32_t>(all.size()), &result) != 0)
      return nullptr;
    return result;
  }
  fail(site, {describe(callee)});
  return nullptr;
}

extern "C" RaxcValue* raxc_rt_inplace_result(const RaxcValue* returned, RaxcValue* const* args,
                                             int32_t num_args, const int64_t* indices,
                                             int32_t num_indices, const char* name,
                                             const RaxcErrorSite* site) {
  // Something returned: that is the result. Nothing (the plugin ABI's none, or null): the
  // arguments the indices name, mutated in place, as TVM defines.
  const auto* unit = returned->value.get_if<Tuple>();
  if ((!returned->value.is<Null>() && (!unit || !unit->fields.empty())) || num_indices == 0) {
    raxc_value_retain(const_cast<RaxcValue*>(returned));
    return const_cast<RaxcValue*>(returned);
  }
  std::vector<Value> outs;
  for (int32_t i = 0; i < num_indices; ++i) {
    if (indices[i] < 0 || indices[i] >= num_args) {
      fail(site,
           {"'" + std::string(name) + "' returned nothing, so output " + std::to_string(i) +
            " (inplace_indices " + std::to_string(indices[i]) + ": a new tensor) has no value"});
      return nullptr;
    }
    outs.push_back(args[indices[i]]->value);
  }
  if (outs.size() == 1) return box(outs[0]);
  return box(Tuple{std::move(outs)});
}

extern "C" RaxcValue* raxc_rt_print(const char* format, RaxcValue* const* values,
                                    int32_t num_values) {
  std::string text = format_message(format, values_of(values, num_values)) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  return box(Tuple{});
}

extern "C" RaxcValue* raxc_rt_assert(const RaxcValue* condition, const char* format,
                                     RaxcValue* const* values, int32_t num_values,
                                     const RaxcErrorSite* failed, const RaxcErrorSite* not_bool) {
  int32_t truth = raxc_rt_cond(condition, not_bool);
  if (truth < 0) return nullptr;
  if (truth) return box(Tuple{});
  std::vector<Value> rest = values_of(values, num_values);
  std::string chosen = format ? format : "";
  if (!format && !rest.empty() && rest[0].is<String>()) {
    chosen = rest[0].get_if<String>()->value;
    rest.erase(rest.begin());
  }
  fail(failed, {format_message(chosen, rest)});
  return nullptr;
}

extern "C" RaxcValue* raxc_rt_empty(const RaxcValue* shape, const RaxcValue* dtype,
                                    const RaxcErrorSite* site) {
  const auto* s = shape ? shape->value.get_if<Shape>() : nullptr;
  std::optional<DLDataType> d;
  if (const auto* given = dtype ? dtype->value.get_if<DType>() : nullptr) d = given->dtype;
  if (const auto* name = dtype ? dtype->value.get_if<String>() : nullptr)
    d = parse_dtype(name->value);
  TensorPtr t = s && d ? Tensor::empty(s->dims, *d) : nullptr;
  if (!t) {
    fail(site, {describe(shape), d ? dtype_name(*d) : describe(dtype)});
    return nullptr;
  }
  return box(std::move(t));
}

extern "C" RaxcValue* raxc_rt_null(void) { return box(Null{}); }

extern "C" RaxcValue* raxc_rt_dtype(int32_t code, int32_t bits, int32_t lanes) {
  return box(DType{DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                              static_cast<uint16_t>(lanes)}});
}

extern "C" RaxcValue* raxc_rt_shape_to_tensor(const RaxcValue* shape, const RaxcErrorSite* site) {
  const auto* s = shape ? shape->value.get_if<Shape>() : nullptr;
  if (!s) {
    fail(site, {"it is " + describe(shape)});
    return nullptr;
  }
  TensorPtr t = Tensor::empty({static_cast<int64_t>(s->dims.size())}, DLDataType{kDLInt, 64, 1});
  if (!t) {
    fail(site, {"out of memory"});
    return nullptr;
  }
  for (size_t i = 0; i < s->dims.size(); ++i) t->set_i64(static_cast<int64_t>(i), s->dims[i]);
  return box(t);
}

extern "C" RaxcValue* raxc_rt_tensor_to_shape(const RaxcValue* tensor, const RaxcErrorSite* site) {
  const TensorPtr* t = tensor ? tensor->value.tensor() : nullptr;
  if (!t || (*t)->ndim() != 1 || (*t)->dtype().code == kDLFloat) {
    fail(site, {"it is " + describe(tensor)});
    return nullptr;
  }
  Shape s;
  for (int64_t i = 0; i < (*t)->numel(); ++i) s.dims.push_back((*t)->get_i64(i));
  return box(std::move(s));
}

namespace raxc::runtime {
namespace {

// Calls a callable value of a built library with evaluated arguments, as a packed function:
// the callee's error is rethrown for the caller to locate.
Value call_callable(const Value& callee, const std::vector<Value>& args) {
  std::vector<RaxcValue*> handles;
  RaxcValue* function = box(callee);
  for (const Value& a : args) handles.push_back(box(a));
  static const char* const kNoStatics[] = {"this value"};
  RaxcErrorSite site{"RX5027", 0, 0, 1, 0, kNoStatics};
  RaxcValue* result =
      raxc_rt_call_value(function, handles.data(), static_cast<int32_t>(handles.size()), &site);
  raxc_value_release(function);
  for (RaxcValue* h : handles) raxc_value_release(h);
  if (!result) {
    std::optional<RuntimeError> e = take_last_error();
    if (e) throw *e;
    throw_error("RX5032", {"the callee failed"});
  }
  Value v = result->value;
  raxc_value_release(result);
  return v;
}

// vm.builtin.invoke_closure(f, args...): f(args...).
Value invoke_closure(const std::vector<Value>& v) {
  if (v.empty()) throw_error("RX5032", {"vm.builtin.invoke_closure: takes at least 1 argument"});
  return call_callable(v[0], std::vector<Value>(v.begin() + 1, v.end()));
}

// vm.builtin.call_tir_dyn(f, args..., shape): f(args..., the shape's values as int64 scalars).
Value call_tir_dyn(const std::vector<Value>& v) {
  const auto* shape = v.size() >= 2 ? v.back().get_if<Shape>() : nullptr;
  if (!shape)
    throw_error("RX5032", {"vm.builtin.call_tir_dyn: takes a callee, its arguments and a shape"});
  std::vector<Value> args(v.begin() + 1, v.end() - 1);
  for (int64_t d : shape->dims) args.push_back(Prim{DLDataType{kDLInt, 64, 1}, d, 0});
  return call_callable(v[0], args);
}

}  // namespace

std::vector<std::pair<const char*, PackedFunction>> callable_builtins() {
  return {{"vm.builtin.invoke_closure", invoke_closure}, {"vm.builtin.call_tir_dyn", call_tir_dyn}};
}

}  // namespace raxc::runtime

namespace raxc::runtime {
namespace {

// R.inspect.*: a field of a tensor's DLTensor header, as the R.Prim of the operator's dtype.
// Tensors here are compact (row-major strides) and start at their data pointer (views move the
// pointer), so the offsets are 0.
const Tensor& inspected(const std::vector<Value>& v, const char* op, size_t count) {
  const TensorPtr* t = v.empty() ? nullptr : v[0].tensor();
  if (!t || v.size() != count)
    throw_error("RX5032",
                {std::string(op) + ": takes a tensor" + (count == 2 ? " and an axis" : "")});
  return **t;
}

int64_t inspected_axis(const std::vector<Value>& v, const Tensor& t, const char* op) {
  const auto* p = v[1].get_if<Prim>();
  if (!p || p->is_float() || p->i < 0 || p->i >= t.ndim())
    throw_error("RX5032", {std::string(op) + ": axis " + describe(v[1]) + " is not an axis of a " +
                           std::to_string(t.ndim()) + "-d tensor"});
  return p->i;
}

Value prim_of(int64_t value, uint8_t code, uint8_t bits) {
  return Prim{DLDataType{code, bits, 1}, value, 0};
}

}  // namespace

std::vector<std::pair<const char*, PackedFunction>> inspect_builtins() {
  return {
      {"relax.inspect.tensor_dtype_code",
       [](const std::vector<Value>& v) {
         return prim_of(inspected(v, "R.inspect.tensor_dtype_code", 1).dtype().code, kDLUInt, 8);
       }},
      {"relax.inspect.tensor_dtype_bits",
       [](const std::vector<Value>& v) {
         return prim_of(inspected(v, "R.inspect.tensor_dtype_bits", 1).dtype().bits, kDLUInt, 8);
       }},
      {"relax.inspect.tensor_dtype_lanes",
       [](const std::vector<Value>& v) {
         return prim_of(inspected(v, "R.inspect.tensor_dtype_lanes", 1).dtype().lanes, kDLUInt, 16);
       }},
      {"relax.inspect.tensor_ndim",
       [](const std::vector<Value>& v) {
         return prim_of(inspected(v, "R.inspect.tensor_ndim", 1).ndim(), kDLInt, 32);
       }},
      {"relax.inspect.tensor_byte_offset",
       [](const std::vector<Value>& v) {
         inspected(v, "R.inspect.tensor_byte_offset", 1);
         return prim_of(0, kDLUInt, 64);
       }},
      {"relax.inspect.tensor_elem_offset",
       [](const std::vector<Value>& v) {
         inspected(v, "R.inspect.tensor_elem_offset", 1);
         return prim_of(0, kDLUInt, 64);
       }},
      {"relax.inspect.tensor_shape_i",
       [](const std::vector<Value>& v) {
         const Tensor& t = inspected(v, "R.inspect.tensor_shape_i", 2);
         return prim_of(t.shape()[inspected_axis(v, t, "R.inspect.tensor_shape_i")], kDLInt, 64);
       }},
      {"relax.inspect.tensor_stride_i",
       [](const std::vector<Value>& v) {
         const Tensor& t = inspected(v, "R.inspect.tensor_stride_i", 2);
         int64_t stride = 1;
         for (int64_t k = t.ndim() - 1; k > inspected_axis(v, t, "R.inspect.tensor_stride_i"); --k)
           stride *= t.shape()[k];
         return prim_of(stride, kDLInt, 64);
       }},
  };
}

}  // namespace raxc::runtime
