// Storage blocks, tensors inside them and views (see memory.h), and the operators that make and
// drop them: R.memory.alloc_storage / alloc_tensor / kill_storage / kill_tensor / view,
// R.vm.alloc_storage / alloc_tensor / kill_object / call_tir_dyn, and R.call_builtin_with_ctx.
//
// Sizes follow TVM's lowering (src/relax/backend/vm/lower_runtime_builtin.cc and
// src/runtime/memory/memory_manager.cc): R.memory.alloc_storage's size is a byte count (the pass
// that lowers it to R.vm.alloc_storage replaces its dtype by uint8), while R.vm.alloc_storage
// allocates size × its dtype's bytes. A tensor at `offset` needs offset + its bytes within the
// storage, which TVM only asserts; here that, a negative offset and an offset that leaves the
// elements misaligned (the kernels load them with their natural alignment) are RX5051.
#include "backend/exec/memory.h"

#include "backend/exec/checks.h"

namespace raxc::backend {

using runtime::Value;

namespace {

// The operands of an operator with a Python-style signature: each is a positional argument or
// a keyword attribute (`R.memory.alloc_tensor(storage, offset=0, shape=..., dtype="float32")`
// and the all-positional form TVM prints both occur), evaluated on demand.
class Operands {
 public:
  Operands(Interpreter& in, const ir::Call* c, Frame& frame, std::string_view op,
           std::vector<std::string_view> names)
      : in_(in), c_(c), frame_(frame), op_(op), names_(std::move(names)) {}

  const ir::AttrValue* attr(size_t i) const {
    const ir::AttrValue* a = c_->attrs.find(names_[i]);
    return a && !a->is_none() ? a : nullptr;
  }
  bool present(size_t i) const { return i < c_->args.size() || attr(i); }
  // Where an operand is written: a literal's own text, the call for a variable (whose span is
  // where it was bound).
  Span span(size_t i) const {
    if (i < c_->args.size()) return ir::isa<ir::Var>(c_->args[i]) ? c_->span : c_->args[i]->span;
    if (const ir::AttrValue* a = attr(i); a && !a->span.empty()) return a->span;
    return c_->span;
  }

  Value value(size_t i) {
    if (i < c_->args.size()) return in_.eval(c_->args[i], frame_);
    const ir::AttrValue* a = attr(i);
    if (!a) missing(i);
    if (const auto* e = a->get_if<const ir::Expr*>()) return in_.eval(*e, frame_);
    if (const auto* p = a->get_if<const ir::PrimExpr*>()) return prim(*p);
    if (const auto* n = a->get_if<int64_t>())
      return runtime::Prim{DLDataType{kDLInt, 64, 1}, *n, 0};
    if (const auto* b = a->get_if<bool>()) return runtime::Prim{DLDataType{kDLUInt, 1, 1}, *b, 0};
    if (const auto* f = a->get_if<double>())
      return runtime::Prim{DLDataType{kDLFloat, 64, 1}, 0, *f};
    if (const auto* s = a->get_if<std::string>()) return runtime::String{*s};
    if (const auto* d = a->get_if<ir::DataType>()) return runtime::DType{to_dl(*d)};
    if (const auto* list = a->get_if<ir::AttrValue::List>()) {  // shape=[m, n]
      runtime::Shape shape;
      for (const ir::AttrValue& v : *list) {
        if (const auto* n = v.get_if<int64_t>())
          shape.dims.push_back(*n);
        else if (const auto* p = v.get_if<const ir::PrimExpr*>())
          shape.dims.push_back(eval_dim(*p, frame_));
        else
          unsupported(i);
      }
      return shape;
    }
    unsupported(i);
  }

  std::vector<int64_t> shape(size_t i) {
    Value v = value(i);
    const auto* s = v.get_if<runtime::Shape>();
    if (!s) mismatch(i, "a shape", v);
    return s->dims;
  }

  int64_t integer(size_t i) {
    Value v = value(i);
    const auto* p = v.get_if<runtime::Prim>();
    if (!p || p->is_float()) mismatch(i, "an integer", v);
    return p->i;
  }

  // A dtype operand: R.dtype("float32"), a keyword string, or a DataType attribute. Its name is
  // kept as written, so an unstorable one (float8_e4m3fn, int32x4, void) is named in RX5052.
  DLDataType dtype(size_t i) {
    std::string name;
    if (i < c_->args.size()) {
      if (const auto* imm = ir::dyn_cast<ir::DataTypeImm>(c_->args[i])) name = imm->value.str();
    } else if (const ir::AttrValue* a = attr(i)) {
      if (const auto* d = a->get_if<ir::DataType>()) name = d->str();
    }
    if (name.empty()) {
      Value v = value(i);
      if (const auto* d = v.get_if<runtime::DType>())
        name = dtype_text(d->dtype);
      else if (const auto* s = v.get_if<runtime::String>())
        name = s->value.empty() ? "void" : s->value;
      else
        mismatch(i, "a dtype", v);
    }
    return located(span(i), [&] { return runtime::storable_dtype(name); });
  }

  [[noreturn]] void mismatch(size_t i, const char* expected, const Value& v) {
    raise(diag::ValueDoesNotMatchAnnotation{.value = "the '" + std::string(names_[i]) + "' of " +
                                                     std::string(op_),
                                            .annotation = expected,
                                            .reason = "it is " + describe_value(v)},
          span(i));
  }

 private:
  Value prim(const ir::PrimExpr* p) {
    Scalar s = eval_prim(p, frame_);
    runtime::Prim v;
    v.dtype = to_dl(p->dtype);
    if (p->dtype.is_float())
      v.f = s.as_f64();
    else
      v.i = s.is_float ? static_cast<int64_t>(s.f) : s.i;
    return v;
  }
  [[noreturn]] void missing(size_t i) {
    raise(diag::UnsupportedOnCpu{.what = "this form of '" + std::string(op_) + "' (without its '" +
                                         std::string(names_[i]) + "')"},
          c_->span);
  }
  [[noreturn]] void unsupported(size_t i) {
    raise(diag::UnsupportedOnCpu{.what = "this '" + std::string(names_[i]) + "' of '" +
                                         std::string(op_) + "'"},
          span(i));
  }

  Interpreter& in_;
  const ir::Call* c_;
  Frame& frame_;
  std::string_view op_;
  std::vector<std::string_view> names_;
};

// Shared, not a reference into the operand's value: an operand evaluated on the spot may be
// that storage's only owner.
std::shared_ptr<const Storage> storage_operand(Operands& ops, size_t i) {
  Value v = ops.value(i);
  const auto* c = v.get_if<runtime::CallablePtr>();
  std::shared_ptr<const Storage> s = c ? std::dynamic_pointer_cast<const Storage>(*c) : nullptr;
  if (!s) ops.mismatch(i, "a storage (from R.memory.alloc_storage or R.vm.alloc_storage)", v);
  return s;
}

// R.memory.alloc_storage(size, virtual_device_index, storage_scope, dtype): `size` bytes. Every
// device of a CPU run is host memory, so the index and scope only have to be given.
Value memory_alloc_storage(Interpreter& in, const ir::Call* c, Frame& frame) {
  Operands ops(in, c, frame, "R.memory.alloc_storage",
               {"size", "virtual_device_index", "storage_scope", "dtype"});
  std::vector<int64_t> size = ops.shape(0);
  if (ops.present(3)) ops.dtype(3);  // a hint TVM's lowering drops, but it must be a dtype
  return located(c->span,
                 [&] { return runtime::allocate_storage(runtime::storage_bytes(size, 1)); });
}

// R.vm.alloc_storage(size, runtime_device_index, dtype, storage_scope): size × dtype bytes.
Value vm_alloc_storage(Interpreter& in, const ir::Call* c, Frame& frame) {
  Operands ops(in, c, frame, "R.vm.alloc_storage",
               {"size", "runtime_device_index", "dtype", "storage_scope"});
  std::vector<int64_t> size = ops.shape(0);
  int64_t element = ops.present(2) ? runtime::dtype_bytes(ops.dtype(2)) : 1;
  return located(c->span,
                 [&] { return runtime::allocate_storage(runtime::storage_bytes(size, element)); });
}

// R.memory.alloc_tensor / R.vm.alloc_tensor(storage, offset, shape, dtype[, device]): a tensor
// over the storage's bytes from `offset`.
Value alloc_tensor_in(Interpreter& in, const ir::Call* c, Frame& frame, std::string_view op) {
  Operands ops(in, c, frame, op, {"storage", "offset", "shape", "dtype", "runtime_device_index"});
  std::shared_ptr<const Storage> storage = storage_operand(ops, 0);
  int64_t offset = ops.present(1) ? ops.integer(1) : 0;
  std::vector<int64_t> shape = ops.shape(2);
  DLDataType dtype = ops.dtype(3);
  return located(c->span,
                 [&] { return runtime::tensor_in_storage(*storage, offset, shape, dtype); });
}

Value memory_alloc_tensor(Interpreter& in, const ir::Call* c, Frame& frame) {
  return alloc_tensor_in(in, c, frame, "R.memory.alloc_tensor");
}

Value vm_alloc_tensor(Interpreter& in, const ir::Call* c, Frame& frame) {
  return alloc_tensor_in(in, c, frame, "R.vm.alloc_tensor");
}

// R.memory.kill_storage / kill_tensor / R.vm.kill_object(x): ends the variable's hold on the
// object, as the VM clears the register. The memory itself lives on while a tensor placed in it
// (or a view) still refers to it; reading the variable afterwards finds null.
Value kill(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->args.empty()) raise(diag::UnsupportedOnCpu{.what = "a kill without its object"}, c->span);
  // Evaluated like any operand: a variable read before it has a value is still an error.
  in.eval(c->args[0], frame);
  if (const auto* v = ir::dyn_cast<ir::Var>(c->args[0])) frame.vars[v] = runtime::Null{};
  return runtime::Tuple{};
}

// R.memory.view(data, shape=None, dtype=None, relative_byte_offset=None): the same bytes seen
// with another shape and/or dtype from an offset (what TVM lowers to
// runtime.TVMTensorCreateView).
Value memory_view(Interpreter& in, const ir::Call* c, Frame& frame) {
  Operands ops(in, c, frame, "R.memory.view", {"data", "shape", "dtype", "relative_byte_offset"});
  Value data = ops.value(0);
  const runtime::TensorPtr* t = data.tensor();
  if (!t) ops.mismatch(0, "a tensor", data);
  std::vector<int64_t> shape = ops.present(1) ? ops.shape(1) : (*t)->shape();
  DLDataType dtype = ops.present(2) ? ops.dtype(2) : (*t)->dtype();
  int64_t offset = ops.present(3) ? ops.integer(3) : 0;
  return located(c->span, [&] { return runtime::view_of(*t, offset, shape, dtype); });
}

// R.vm.call_tir_dyn(f, (args..., shape)): f(args..., shape's dimensions...), nothing returned.
Value vm_call_tir_dyn(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->args.size() != 2)
    raise(diag::UnsupportedOnCpu{.what = "this form of 'R.vm.call_tir_dyn'"}, c->span);
  Value callee;
  if (const auto* s = ir::dyn_cast<ir::StringImm>(c->args[0])) {
    // A name: a global of the module, else a packed function.
    if (const ir::GlobalDef* g = in.program.module->find(s->value)) {
      auto ref = std::make_shared<GlobalRef>();
      ref->global = g;
      callee = runtime::CallablePtr(ref);
    } else {
      auto ref = std::make_shared<PackedRef>();
      ref->symbol = s->value;
      callee = runtime::CallablePtr(ref);
    }
  } else {
    callee = in.eval(c->args[0], frame);
  }
  Value packed = in.eval(c->args[1], frame);
  const auto* tuple = packed.get_if<runtime::Tuple>();
  // A variable's span is where it was bound; the call is where it is used.
  Span at = ir::isa<ir::Var>(c->args[1]) ? c->span : c->args[1]->span;
  if (!tuple || tuple->fields.empty())
    raise(diag::ValueDoesNotMatchAnnotation{.value = "the arguments of R.vm.call_tir_dyn",
                                            .annotation = "a tuple ending with a shape",
                                            .reason = "it is " + describe_value(packed)},
          at);
  std::vector<Value> args(tuple->fields.begin(), tuple->fields.end() - 1);
  call_tir_dyn(in, callee, std::move(args), tuple->fields.back(), at);
  return runtime::Tuple{};
}

// R.call_builtin_with_ctx(f, (args...)): f(args...). TVM passes the VM as a leading context
// argument; the built-ins of the registry take none.
Value call_builtin_with_ctx(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->args.empty())
    raise(diag::UnsupportedOnCpu{.what = "R.call_builtin_with_ctx without a callee"}, c->span);
  std::string symbol;
  if (const auto* ef = ir::dyn_cast<ir::ExternFunc>(c->args[0]))
    symbol = ef->global_symbol;
  else if (const auto* s = ir::dyn_cast<ir::StringImm>(c->args[0]))
    symbol = s->value;
  else
    raise(diag::UnsupportedOnCpu{.what = "R.call_builtin_with_ctx of something other than a name"},
          c->args[0]->span);
  std::vector<Value> args;
  if (c->args.size() > 1) {
    Value packed = in.eval(c->args[1], frame);
    if (auto* t = std::get_if<runtime::Tuple>(&packed.v))
      args = std::move(t->fields);
    else
      args.push_back(std::move(packed));
  }
  return in.call_packed(symbol, args, c->span);
}

}  // namespace

Value call_tir_dyn(Interpreter& in, const Value& callee, std::vector<Value> args, const Value& last,
                   Span at) {
  const auto* shape = last.get_if<runtime::Shape>();
  if (!shape)
    raise(diag::ValueDoesNotMatchAnnotation{.value = "the last argument of call_tir_dyn",
                                            .annotation = "a shape (the symbolic values to pass)",
                                            .reason = "it is " + describe_value(last)},
          at);
  for (int64_t d : shape->dims) args.push_back(runtime::Prim{DLDataType{kDLInt, 64, 1}, d, 0});
  return in.call_value(callee, std::move(args), at);
}

namespace {

Value call_tir_dyn_packed(Interpreter& in, const std::vector<Value>& v, Span at) {
  if (v.size() < 2)
    raise(diag::PackedFunctionFailed{.message = "vm.builtin.call_tir_dyn: takes at least 2 "
                                                "argument(s), " +
                                                std::to_string(v.size()) + " given"},
          at);
  std::vector<Value> args(v.begin() + 1, v.end() - 1);
  return call_tir_dyn(in, v[0], std::move(args), v.back(), at);
}

Value invoke_closure(Interpreter& in, const std::vector<Value>& v, Span at) {
  if (v.empty())
    raise(diag::PackedFunctionFailed{.message = "vm.builtin.invoke_closure: takes at least 1 "
                                                "argument(s), 0 given"},
          at);
  return in.call_value(v[0], std::vector<Value>(v.begin() + 1, v.end()), at);
}

}  // namespace

void register_vm_builtins(std::unordered_map<std::string, PackedFunction>& functions) {
  functions.emplace("vm.builtin.call_tir_dyn", call_tir_dyn_packed);
  functions.emplace("vm.builtin.invoke_closure", invoke_closure);
}

const std::unordered_map<std::string_view, MemoryOpHandler>& memory_ops() {
  static const std::unordered_map<std::string_view, MemoryOpHandler> table = {
      {"relax.memory.alloc_storage", memory_alloc_storage},
      {"relax.memory.alloc_tensor", memory_alloc_tensor},
      {"relax.memory.kill_storage", kill},
      {"relax.memory.kill_tensor", kill},
      {"relax.memory.view", memory_view},
      {"relax.vm.alloc_storage", vm_alloc_storage},
      {"relax.vm.alloc_tensor", vm_alloc_tensor},
      {"relax.vm.kill_object", kill},
      {"relax.vm.call_tir_dyn", vm_call_tir_dyn},
      {"relax.call_builtin_with_ctx", call_builtin_with_ctx},
  };
  return table;
}

}  // namespace raxc::backend
