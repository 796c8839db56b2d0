// The operators Relax itself defines (not the tensor operators, which legalize to TIR): the
// call_tir family into compiled kernels, packed calls, shapes, printing and assertions,
// closures, devices and explicit allocation. One handler per operator, found by name; the
// operators of storage and of the VM (R.memory.*, R.vm.*) are memory.cpp's.
#include <cstring>
#include <iostream>
#include <sstream>

#include "backend/exec/checks.h"
#include "backend/exec/interpreter.h"
#include "backend/exec/memory.h"
#include "backend/legalize/legalize.h"
#include "backend/runtime/format.h"

namespace raxc::backend {

using runtime::Value;

namespace {

using OpHandler = Value (*)(Interpreter&, const ir::Call*, Frame&);

std::vector<Value> eval_args(Interpreter& in, const ir::Call* c, Frame& frame, size_t first = 0) {
  std::vector<Value> out;
  for (size_t i = first; i < c->args.size(); ++i) out.push_back(in.eval(c->args[i], frame));
  return out;
}

// The fields of a tuple value, or the value itself.
std::vector<Value> flatten(Value v) {
  if (auto* t = std::get_if<runtime::Tuple>(&v.v)) return std::move(t->fields);
  return {std::move(v)};
}

const ir::GlobalDef& callee_prim_func(Interpreter& in, const ir::Call* c) {
  const auto* gv = c->args.empty() ? nullptr : ir::dyn_cast<ir::GlobalVar>(c->args[0]);
  const ir::GlobalDef* g = gv ? in.program.module->find(gv->name) : nullptr;
  if (!g || !g->prim_func())
    raise(diag::UnsupportedOnCpu{.what = "a call_tir whose callee is not a PrimFunc of the module"},
          c->span);
  return *g;
}

// The tensors an out_sinfo describes, allocated (symbolic dimensions from the frame).
std::vector<runtime::TensorPtr> allocate_outputs(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->sinfo_args.empty())
    raise(diag::UnsupportedOnCpu{.what = "a call without out_sinfo"}, c->span);
  std::vector<const ir::StructInfo*> outs;
  if (const auto* t = ir::dyn_cast<ir::TupleSInfo>(c->sinfo_args[0]))
    outs = t->fields;
  else
    outs.push_back(c->sinfo_args[0]);
  std::vector<runtime::TensorPtr> tensors;
  for (const ir::StructInfo* s : outs) {
    const auto* ts = ir::dyn_cast<ir::TensorSInfo>(s);
    const auto* shape = ts ? ir::dyn_cast<ir::ShapeExpr>(ts->shape) : nullptr;
    if (!shape || ts->dtype.is_void())
      raise(
          diag::UnsupportedOnCpu{
              .what = "an output whose shape or dtype is not known (out_sinfo must give both)"},
          s->span);
    std::vector<int64_t> dims;
    for (const ir::PrimExpr* d : shape->values) dims.push_back(eval_dim(d, frame));
    // The callee writes its outputs whole (destination-passing style): not cleared first.
    tensors.push_back(in.allocate(dims, ts->dtype, s->span, runtime::Tensor::Fill::Undefined));
  }
  return tensors;
}

Value outputs_value(const ir::Call* c, std::vector<Value> outs) {
  if (ir::isa<ir::TupleSInfo>(c->sinfo_args[0])) return runtime::Tuple{std::move(outs)};
  return std::move(outs[0]);
}

// R.call_tir(f, (inputs...), out_sinfo, tir_vars): f(inputs..., outputs..., tir_vars...).
Value call_tir(Interpreter& in, const ir::Call* c, Frame& frame) {
  const ir::GlobalDef& g = callee_prim_func(in, c);
  std::vector<Value> args =
      c->args.size() > 1 ? flatten(in.eval(c->args[1], frame)) : std::vector<Value>{};
  std::vector<runtime::TensorPtr> outputs = allocate_outputs(in, c, frame);
  for (const runtime::TensorPtr& t : outputs) args.push_back(t);
  if (c->args.size() > 2) {
    Value tir_vars = in.eval(c->args[2], frame);
    if (const auto* s = tir_vars.get_if<runtime::Shape>())
      for (int64_t d : s->dims) args.push_back(runtime::Prim{DLDataType{kDLInt, 64, 1}, d, 0});
  }
  in.call_prim_func(g, *g.prim_func(), args, c->span);
  std::vector<Value> outs(outputs.begin(), outputs.end());
  return outputs_value(c, std::move(outs));
}

// The `inplace_indices` attribute of R.call_tir_inplace / R.call_inplace_packed: one index or
// a list of them.
std::vector<int64_t> inplace_indices(const ir::Call* c) {
  std::vector<int64_t> indices;
  const ir::AttrValue* a = c->attrs.find("inplace_indices");
  if (!a) return indices;
  if (const auto* list = a->get_if<ir::AttrValue::List>()) {
    for (const ir::AttrValue& v : *list)
      if (const auto* i = v.get_if<int64_t>()) indices.push_back(*i);
  } else if (const auto* i = a->get_if<int64_t>()) {
    indices.push_back(*i);
  }
  return indices;
}

// R.call_tir_inplace(f, (inputs...), out_sinfo, inplace_indices=[...]): output i is input
// inplace_indices[i] (written in place) or, for -1, a new tensor passed after the inputs.
Value call_tir_inplace(Interpreter& in, const ir::Call* c, Frame& frame) {
  const ir::GlobalDef& g = callee_prim_func(in, c);
  std::vector<Value> inputs = flatten(in.eval(c->args[1], frame));
  std::vector<int64_t> indices = inplace_indices(c);
  std::vector<runtime::TensorPtr> fresh = allocate_outputs(in, c, frame);
  std::vector<Value> args = inputs, outs;
  for (size_t i = 0; i < fresh.size(); ++i) {
    int64_t index = i < indices.size() ? indices[i] : -1;
    if (index >= 0 && index < static_cast<int64_t>(inputs.size())) {
      outs.push_back(inputs[index]);
    } else {
      args.push_back(fresh[i]);
      outs.push_back(fresh[i]);
    }
  }
  if (c->args.size() > 2) {
    Value tir_vars = in.eval(c->args[2], frame);
    if (const auto* s = tir_vars.get_if<runtime::Shape>())
      for (int64_t d : s->dims) args.push_back(runtime::Prim{DLDataType{kDLInt, 64, 1}, d, 0});
  }
  in.call_prim_func(g, *g.prim_func(), args, c->span);
  return outputs_value(c, std::move(outs));
}

// The callee of a packed call: a name (R.ExternFunc, a string, a value holding one), or another
// callable value (a closure, a function), which is called as such.
struct PackedCallee {
  std::string symbol;
  Value value;  // when not a name
};

PackedCallee packed_callee(Interpreter& in, const ir::Expr* e, Frame& frame) {
  if (const auto* ef = ir::dyn_cast<ir::ExternFunc>(e)) return {ef->global_symbol, {}};
  if (const auto* s = ir::dyn_cast<ir::StringImm>(e)) return {s->value, {}};
  Value v = in.eval(e, frame);
  if (const auto* c = v.get_if<runtime::CallablePtr>())
    if (const auto* p = dynamic_cast<const PackedRef*>(c->get())) return {p->symbol, {}};
  return {"", std::move(v)};
}

Value call_packed_callee(Interpreter& in, const PackedCallee& callee, std::vector<Value> args,
                         Span at) {
  if (callee.symbol.empty()) return in.call_value(callee.value, std::move(args), at);
  return in.call_packed(callee.symbol, args, at);
}

// R.call_pure_packed(f, args...) / R.call_packed(f, args...): f(args...).
Value call_packed_op(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->args.empty())
    raise(diag::UnsupportedOnCpu{.what = "a packed call without a callee"}, c->span);
  PackedCallee callee = packed_callee(in, c->args[0], frame);
  return call_packed_callee(in, callee, eval_args(in, c, frame, 1), c->span);
}

// R.call_inplace_packed(f, args..., inplace_indices=[...]): f(args...), which mutates the
// arguments the indices name. Output i is what f returns or, when f returns nothing (the plugin
// ABI returns tensors only through its arguments), the argument inplace_indices[i] itself:
// the same tensor, aliased, as TVM defines. An index of -1 asks f for a new tensor, which a
// function that returns nothing did not make (RX5032).
Value call_inplace_packed(Interpreter& in, const ir::Call* c, Frame& frame) {
  if (c->args.empty())
    raise(diag::UnsupportedOnCpu{.what = "a packed call without a callee"}, c->span);
  PackedCallee callee = packed_callee(in, c->args[0], frame);
  const std::string symbol = callee.symbol.empty() ? "the callee" : callee.symbol;
  std::vector<Value> args = eval_args(in, c, frame, 1);
  Value result = call_packed_callee(in, callee, args, c->span);
  // Nothing: the plugin ABI's RAXC_RET_NONE (the unit value) or a built-in's null.
  const auto* unit = result.get_if<runtime::Tuple>();
  if (!result.is<runtime::Null>() && (!unit || !unit->fields.empty())) return result;
  std::vector<int64_t> indices = inplace_indices(c);
  if (indices.empty()) return result;
  std::vector<Value> outs;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= static_cast<int64_t>(args.size()))
      raise(diag::PackedFunctionFailed{.message = "'" + symbol + "' returned nothing, so output " +
                                                  std::to_string(i) + " (inplace_indices " +
                                                  std::to_string(indices[i]) +
                                                  ": a new tensor) has no value"},
            c->span);
    outs.push_back(args[static_cast<size_t>(indices[i])]);
  }
  if (outs.size() == 1) return outs[0];
  return runtime::Tuple{std::move(outs)};
}

// R.call_dps_packed(f, (inputs...), out_sinfo): f(inputs..., outputs...).
Value call_dps_packed(Interpreter& in, const ir::Call* c, Frame& frame) {
  PackedCallee callee = packed_callee(in, c->args[0], frame);
  if (!callee.symbol.empty() && !find_packed(callee.symbol))
    raise(diag::UnknownPackedFunction{.function = callee.symbol}, c->span);
  std::vector<Value> args =
      c->args.size() > 1 ? flatten(in.eval(c->args[1], frame)) : std::vector<Value>{};
  std::vector<runtime::TensorPtr> outputs = allocate_outputs(in, c, frame);
  for (const runtime::TensorPtr& t : outputs) args.push_back(t);
  call_packed_callee(in, callee, args, c->span);
  return outputs_value(c, std::vector<Value>(outputs.begin(), outputs.end()));
}

const runtime::TensorPtr& tensor_arg(const Value& v, const char* op, Span at) {
  const runtime::TensorPtr* t = v.tensor();
  if (!t)
    raise(diag::ValueDoesNotMatchAnnotation{.value = std::string("the argument of ") + op,
                                            .annotation = "a tensor",
                                            .reason = "it is " + describe_value(v)},
          at);
  return *t;
}

Value shape_of(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value v = in.eval(c->args.at(0), frame);
  return runtime::Shape{tensor_arg(v, "R.shape_of", c->span)->shape()};
}

Value tensor_to_shape(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value v = in.eval(c->args.at(0), frame);
  const runtime::TensorPtr& t = tensor_arg(v, "R.tensor_to_shape", c->span);
  if (t->ndim() != 1 || t->dtype().code == kDLFloat)
    raise(diag::ValueDoesNotMatchAnnotation{.value = "the argument of R.tensor_to_shape",
                                            .annotation = "a 1-d integer tensor",
                                            .reason = "it is " + describe_value(v)},
          c->span);
  runtime::Shape s;
  for (int64_t i = 0; i < t->numel(); ++i) s.dims.push_back(t->get_i64(i));
  return s;
}

Value shape_to_tensor(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value v = in.eval(c->args.at(0), frame);
  const auto* s = v.get_if<runtime::Shape>();
  if (!s)
    raise(diag::ValueDoesNotMatchAnnotation{.value = "the argument of R.shape_to_tensor",
                                            .annotation = "a shape",
                                            .reason = "it is " + describe_value(v)},
          c->span);
  runtime::TensorPtr t =
      in.allocate({static_cast<int64_t>(s->dims.size())}, ir::DataType::Int(64), c->span);
  for (size_t i = 0; i < s->dims.size(); ++i) t->set_i64(static_cast<int64_t>(i), s->dims[i]);
  return t;
}

std::string format_attr(const ir::Call* c) {
  if (const ir::AttrValue* a = c->attrs.find("format"))
    if (const auto* s = a->get_if<std::string>()) return *s;
  return {};
}

Value print(Interpreter& in, const ir::Call* c, Frame& frame) {
  std::vector<Value> values = eval_args(in, c, frame);
  std::string format = format_attr(c);
  // The printed form keeps a leading format string argument, as TVM's printer emits it.
  if (format.empty() && !values.empty() && values[0].is<runtime::String>() &&
      ir::isa<ir::StringImm>(c->args[0])) {
    format = values[0].get_if<runtime::String>()->value;
    values.erase(values.begin());
  }
  in.out() << runtime::format_message(format, values) << "\n";
  return runtime::Tuple{};  // R.Tuple(): Relax's unit value
}

Value assert_op(Interpreter& in, const ir::Call* c, Frame& frame) {
  std::vector<Value> values = eval_args(in, c, frame);
  if (values.empty())
    raise(diag::UnsupportedOnCpu{.what = "R.assert_op without a condition"}, c->span);
  if (in.condition(values[0], c->args[0]->span)) return runtime::Tuple{};
  std::vector<Value> rest(values.begin() + 1, values.end());
  std::string format = format_attr(c);
  if (format.empty() && !rest.empty() && rest[0].is<runtime::String>()) {
    format = rest[0].get_if<runtime::String>()->value;
    rest.erase(rest.begin());
  }
  raise(diag::AssertOpFailed{.message = runtime::format_message(format, rest)}, c->span);
}

Value null_value(Interpreter&, const ir::Call*, Frame&) { return runtime::Null{}; }

// R.device(dev_type, index): the device as TVM writes it ("cpu(0)", "cuda(1)"); on one CPU it
// only names where a value would live (R.hint_on_device).
Value device(Interpreter& in, const ir::Call* c, Frame& frame) {
  std::vector<Value> v = eval_args(in, c, frame);
  const auto* type = v.empty() ? nullptr : v[0].get_if<runtime::Prim>();
  const auto* index = v.size() > 1 ? v[1].get_if<runtime::Prim>() : nullptr;
  if (!type || type->is_float() || (index && index->is_float()))
    raise(diag::UnsupportedOnCpu{.what = "R.device with these arguments"}, c->span);
  return runtime::String{runtime::device_name(type->i, index ? index->i : 0)};
}

Value hint_on_device(Interpreter& in, const ir::Call* c, Frame& frame) {
  return in.eval(c->args.at(0), frame);
}

// R.builtin.stop_lift_params(x): x. It only fences LiftTransformParams, which replaces it by its
// argument; at run time it is the identity.
Value stop_lift_params(Interpreter& in, const ir::Call* c, Frame& frame) {
  return in.eval(c->args.at(0), frame);
}

// Every vdevice of a CPU run is host memory; moving to another one is a copy (the value no
// longer aliases its source, as on a real second device).
Value to_vdevice(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value v = in.eval(c->args.at(0), frame);
  const runtime::TensorPtr& t = tensor_arg(v, "R.to_vdevice", c->span);
  runtime::TensorPtr out = runtime::Tensor::empty(t->shape(), t->dtype());
  if (!out)
    raise(diag::TensorAllocationFailed{.shape = "of the source",
                                       .dtype = runtime::dtype_name(t->dtype())},
          c->span);
  std::memcpy(out->data(), t->data(), static_cast<size_t>(t->nbytes()));
  return out;
}

Value make_closure(Interpreter& in, const ir::Call* c, Frame& frame) {
  const auto* gv = ir::dyn_cast<ir::GlobalVar>(c->args.at(0));
  const ir::GlobalDef* g = gv ? in.program.module->find(gv->name) : nullptr;
  if (!g)
    raise(diag::UnsupportedOnCpu{.what = "R.make_closure of something other than a global"},
          c->span);
  auto closure = std::make_shared<Closure>();
  closure->global = g;
  closure->name = g->gvar->name;
  closure->bound = c->args.size() > 1 ? flatten(in.eval(c->args[1], frame)) : std::vector<Value>{};
  return runtime::CallablePtr(closure);
}

Value invoke_closure(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value callee = in.eval(c->args.at(0), frame);
  std::vector<Value> args =
      c->args.size() > 1 ? flatten(in.eval(c->args[1], frame)) : std::vector<Value>{};
  return in.call_value(callee, std::move(args), c->span);
}

// R.builtin.alloc_tensor(shape, dtype, runtime_device_index): a new (zeroed) tensor. The dtype
// is an argument in some printed forms and an attribute (`dtype="float32"`) in others.
Value alloc_tensor(Interpreter& in, const ir::Call* c, Frame& frame) {
  Value shape = in.eval(c->args.at(0), frame);
  std::optional<DLDataType> dtype;
  if (c->args.size() > 1) {
    Value given = in.eval(c->args[1], frame);
    if (const auto* d = given.get_if<runtime::DType>()) dtype = d->dtype;
  }
  if (const ir::AttrValue* a = c->attrs.find("dtype")) {
    if (const auto* s = a->get_if<std::string>()) dtype = runtime::parse_dtype(*s);
    if (const auto* d = a->get_if<ir::DataType>()) dtype = to_dl(*d);
  }
  const auto* s = shape.get_if<runtime::Shape>();
  if (!s || !dtype)
    raise(diag::UnsupportedOnCpu{.what = "R.builtin.alloc_tensor with these arguments"}, c->span);
  runtime::TensorPtr t = runtime::Tensor::empty(s->dims, *dtype);
  if (!t)
    raise(diag::TensorAllocationFailed{.shape = describe_value(shape),
                                       .dtype = runtime::dtype_name(*dtype)},
          c->span);
  return t;
}

const std::unordered_map<std::string_view, OpHandler>& op_table() {
  static const std::unordered_map<std::string_view, OpHandler> table = {
      {"relax.call_tir", call_tir},
      {"relax.call_tir_with_grad", call_tir},
      {"relax.call_tir_inplace", call_tir_inplace},
      {"relax.call_dps_packed", call_dps_packed},
      {"relax.call_packed", call_packed_op},
      {"relax.call_pure_packed", call_packed_op},
      {"relax.call_inplace_packed", call_inplace_packed},
      {"relax.shape_of", shape_of},
      {"relax.tensor_to_shape", tensor_to_shape},
      {"relax.shape_to_tensor", shape_to_tensor},
      {"relax.print", print},
      {"relax.assert_op", assert_op},
      {"relax.null_value", null_value},
      {"relax.device", device},
      {"relax.hint_on_device", hint_on_device},
      {"relax.to_vdevice", to_vdevice},
      {"relax.make_closure", make_closure},
      {"relax.invoke_closure", invoke_closure},
      {"relax.invoke_pure_closure", invoke_closure},
      {"relax.builtin.alloc_tensor", alloc_tensor},
      {"relax.builtin.stop_lift_params", stop_lift_params},
  };
  return table;
}

}  // namespace

Value Interpreter::call_op(const std::string& op, const ir::Call* c, Frame& frame) {
  OpHandler handler = nullptr;
  if (auto it = op_table().find(op); it != op_table().end())
    handler = it->second;
  else if (auto m = memory_ops().find(op); m != memory_ops().end())
    handler = m->second;
  if (handler) {
    try {
      return handler(*this, c, frame);
    } catch (const std::out_of_range&) {  // args.at(): fewer arguments than the operator takes
      raise(diag::UnsupportedOnCpu{.what = "this form of '" + op + "'"}, c->span);
    }
  }
  // R.inspect.*: the runtime's functions of the same names (a tensor header's fields).
  if (op.starts_with("relax.inspect.")) return call_packed(op, eval_args(*this, c, frame), c->span);
  std::string name = op.starts_with("relax.") ? "R." + op.substr(6) : op;
  // Legalization (backend/legalize) rewrote every call it could; this one was left.
  if (has_legalization(op)) {
    auto why = program.why_not_lowered.find(c->span.begin);
    raise(diag::UnsupportedOnCpu{.what = "this call of '" + name + "' (" +
                                         (why != program.why_not_lowered.end()
                                              ? why->second
                                              : "its legalization to TIR needs the shapes and "
                                                "dtypes of its arguments and result known "
                                                "statically") +
                                         ")"},
          c->op->span);
  }
  raise(diag::UnsupportedOnCpu{.what = "the operator '" + name +
                                       "' (it has no legalization to TIR yet)"},
        c->op->span);
}

std::ostream& Interpreter::out() { return options.out ? *options.out : std::cout; }

}  // namespace raxc::backend
