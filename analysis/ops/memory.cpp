// Devices, allocation and the VM (operators.md §3.11, §3.13): the null object, device hints
// and copies to virtual devices, builtin/memory/vm allocation and lifetimes, call_tir_dyn.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* unit(InferContext& ctx) {
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{});
}

const ir::StructInfo* infer_object(InferContext& ctx) { return object(ctx); }

const ir::StructInfo* infer_tensor_identity(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, current_op(ctx).args[0].name);
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

// "kind", "kind:i", "kind:i:scope" or "vdevice:i" against the module's vdevice list.
const ir::VDevice* resolve_vdevice(InferContext& ctx, const std::string& text) {
  std::string kind = text, scope;
  int64_t index = 0;
  size_t colon = text.find(':');
  if (colon != std::string::npos) {
    kind = text.substr(0, colon);
    std::string rest = text.substr(colon + 1);
    size_t colon2 = rest.find(':');
    if (colon2 != std::string::npos) {
      scope = rest.substr(colon2 + 1);
      rest = rest.substr(0, colon2);
    }
    index = std::atoll(rest.c_str());
  }
  if (ctx.module) {
    const auto& list = ctx.module->vdevices;
    if (kind == "vdevice") return index < int64_t(list.size()) ? list[size_t(index)] : nullptr;
    int64_t seen = 0;
    for (const ir::VDevice* v : list)
      if (v->target_kind == kind && seen++ == index) return v;
    return nullptr;
  }
  auto* v = ctx.arena().make<ir::VDevice>();
  v->target_kind = kind;
  v->dev_id = index;
  if (!scope.empty()) v->mem_scope = scope;
  return v;
}

const ir::StructInfo* infer_to_vdevice(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<std::string> dst = attr_string(ctx, "dst_vdevice");
  if (!x) return unknown(ctx);
  if (!dst) return x;
  const ir::VDevice* v = resolve_vdevice(ctx, *dst);
  if (!v) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx),
            .attribute = "dst_vdevice",
            .reason = "'" + *dst + "' is not listed in the module's vdevice global_info"},
        param_span(ctx, param(ctx, "dst_vdevice")));
    return x;
  }
  return ctx.arena().make<ir::TensorSInfo>(x->shape, x->dtype, v, x->ndim);
}

const ir::StructInfo* infer_builtin_alloc_tensor(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Void());
  attr_int(ctx, "runtime_device_index");
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, nullptr);
}

const ir::StructInfo* infer_memory_alloc_tensor(InferContext& ctx) {
  std::optional<ShapeOperand> shape = shape_operand(ctx, "shape");
  DataType dt = attr_dtype(ctx, "dtype").value_or(DataType::Void());
  attr_int(ctx, "offset");
  if (!shape) return rank_only(ctx, -1, dt, nullptr);
  return tensor_of_shape(ctx, *shape, dt, nullptr);
}

// An argument of R.memory.view left out: absent, or written as TVM prints an omitted one, the
// empty tuple `R.tuple()` (or any value of that StructInfo).
bool view_argument_omitted(const InferContext& ctx, std::string_view name) {
  ParamValue p = param(ctx, name);
  if (!p.present()) return true;
  const ir::Expr* e = nullptr;
  if (p.arg_index >= 0) {
    e = ctx.call.args[size_t(p.arg_index)];
  } else if (auto* v = p.attr->get_if<const ir::Expr*>()) {
    e = *v;
  } else {
    return p.attr->is_none();
  }
  if (auto* t = ir::dyn_cast<ir::Tuple>(e); t && t->fields.empty()) return true;
  const ir::StructInfo* s = p.arg_index >= 0 ? arg_sinfo(ctx, name) : nullptr;
  auto* tuple = s ? ir::dyn_cast<ir::TupleSInfo>(s) : nullptr;
  return tuple && tuple->fields.empty();
}

// Bytes per element; unknown for void.
std::optional<int64_t> element_bytes(DataType d) {
  if (d.is_void()) return std::nullopt;
  return (int64_t(d.bits) * d.lanes + 7) / 8;
}

// What R.memory.view is given, for the bounds check: each part nullopt/null when unknown, and
// whether the shape and dtype operands were written at all (omitted = unchanged).
struct ViewRequest {
  std::optional<std::vector<const ir::PrimExpr*>> in_dims, out_dims;
  std::optional<int64_t> in_element, out_element;
  const ir::PrimExpr* offset = nullptr;  // bytes; 0 when omitted
  bool new_shape = false, new_dtype = false;
};

// A view must stay inside its input (TVM's rule, by what is known statically): its bytes plus
// its offset, or its bytes alone when the offset is unknown; with the shape unchanged, an
// element no larger than the input's; with the dtype unchanged, no more elements; with both
// unchanged, no positive offset. Reports RX3131 when one provably fails.
void check_view_bounds(InferContext& ctx, const ViewRequest& v) {
  arith::Analyzer& an = ctx.analyzer;
  auto text = [&](const ir::PrimExpr* e) { return prim_text(an.simplify(e)); };
  auto exceeds = [&](const ir::PrimExpr* a, const ir::PrimExpr* b) {
    return an.prove_positive(an.sub(a, b));
  };
  std::string reason;
  if (v.in_dims && v.out_dims && v.in_element && v.out_element) {
    const ir::PrimExpr* in_bytes = an.mul(product(ctx, *v.in_dims), an.make_int(*v.in_element));
    const ir::PrimExpr* out_bytes = an.mul(product(ctx, *v.out_dims), an.make_int(*v.out_element));
    bool at_start = v.offset && an.as_int(v.offset) == 0;
    if (v.offset && !at_start && exceeds(an.add(out_bytes, v.offset), in_bytes)) {
      reason = "the view of " + text(out_bytes) + " bytes at byte offset " + text(v.offset) +
               " ends at byte " + text(an.add(out_bytes, v.offset)) + ", but it has " +
               text(in_bytes) + " bytes";
    } else if ((!v.offset || at_start) && exceeds(out_bytes, in_bytes)) {
      reason = "the view has " + text(out_bytes) + " bytes, but it has " + text(in_bytes);
    }
  } else if (v.in_element && v.out_element && !v.new_shape) {
    if (*v.out_element > *v.in_element)
      reason = "the new dtype makes each of its elements " + std::to_string(*v.out_element) +
               " bytes instead of " + std::to_string(*v.in_element) +
               " with the shape unchanged; give the view a smaller shape";
  } else if (v.in_dims && v.out_dims && !v.new_dtype) {
    const ir::PrimExpr* in_n = product(ctx, *v.in_dims);
    const ir::PrimExpr* out_n = product(ctx, *v.out_dims);
    if (exceeds(out_n, in_n))
      reason = "the view has " + text(out_n) + " elements, but it has " + text(in_n);
  } else if (v.offset && !v.new_shape && !v.new_dtype && an.prove_positive(v.offset)) {
    reason = "an offset of " + text(v.offset) +
             " bytes with the same shape and dtype reaches past its end";
  }
  if (reason.empty()) return;
  const auto* var = ir::dyn_cast<ir::Var>(ctx.call.args[0]);
  ctx.report(diag::MemoryViewOutOfBounds{.data = var ? var->name : "data", .reason = reason},
             ctx.call.span);
}

const ir::StructInfo* infer_memory_view(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<DataType> dt;
  ViewRequest request;
  request.new_dtype = !view_argument_omitted(ctx, "dtype");
  if (request.new_dtype) dt = attr_dtype(ctx, "dtype");
  if (!x) return unknown(ctx);
  DataType dtype = dt && !dt->is_void() ? *dt : x->dtype;
  request.in_dims = v_dims(*x);
  request.in_element = element_bytes(x->dtype);
  request.out_element =
      request.new_dtype ? (dt ? element_bytes(*dt) : std::nullopt) : request.in_element;
  if (view_argument_omitted(ctx, "relative_byte_offset")) {
    request.offset = ctx.analyzer.make_int(0);
  } else if (auto* p = ir::dyn_cast<ir::PrimSInfo>(arg_sinfo(ctx, "relative_byte_offset"))) {
    request.offset = p->value;
  }
  const ir::TensorSInfo* result = nullptr;
  request.new_shape = !view_argument_omitted(ctx, "shape");
  if (request.new_shape) {
    if (auto shape = shape_operand(ctx, "shape")) {
      request.out_dims = shape->dims;
      result = tensor_of_shape(ctx, *shape, dtype, x->vdevice);
    }
  } else {
    request.out_dims = request.in_dims;
  }
  check_view_bounds(ctx, request);
  if (result) return result;
  return with_dtype(ctx, *x, dtype);
}

}  // namespace

void register_memory(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.null_value", "R.null_value", {}, {}, infer_object,
                          "a null object (placeholder for an omitted argument)"));
  table.push_back(
      make_op("relax.hint_on_device", "R.hint_on_device", {{"data", K::Tensor}},
              {{"dst_vdevice", K::Other}, {"memory_scope", K::String, true, "\"global\""}},
              infer_tensor_identity, "hints that data should live on a device"));
  table.push_back(make_op("relax.to_vdevice", "R.to_vdevice", {{"data", K::Tensor}},
                          {{"dst_vdevice", K::String}}, infer_to_vdevice,
                          "copies data to a virtual device of the module"));
  table.push_back(make_op("relax.builtin.alloc_tensor", "R.builtin.alloc_tensor",
                          {{"shape", K::Shape}},
                          {{"dtype", K::DType},
                           {"runtime_device_index", K::Int},
                           {"storage_scope", K::String, true, "\"global\""}},
                          infer_builtin_alloc_tensor, "allocates a tensor"));
  table.push_back(make_op("relax.builtin.stop_lift_params", "R.builtin.stop_lift_params",
                          {{"x", K::Tensor}}, {}, infer_tensor_identity,
                          "marks the end of parameter lifting (identity)"));
  table.push_back(make_op("relax.memory.alloc_storage", "R.memory.alloc_storage",
                          {{"size", K::Shape}},
                          {{"virtual_device_index", K::Int},
                           {"storage_scope", K::String, true, "\"global\""},
                           {"dtype", K::DType}},
                          infer_object, "allocates a storage block"));
  table.push_back(make_op("relax.memory.alloc_tensor", "R.memory.alloc_tensor",
                          {{"storage", K::Any}},
                          {{"offset", K::Int},
                           {"shape", K::Shape},
                           {"dtype", K::DType},
                           {"runtime_device_index", K::Int, true, "0"}},
                          infer_memory_alloc_tensor, "creates a tensor inside a storage block"));
  table.push_back(make_op("relax.memory.kill_storage", "R.memory.kill_storage",
                          {{"storage", K::Any}}, {}, unit, "ends a storage block's lifetime",
                          Purity::Impure));
  table.push_back(make_op("relax.memory.kill_tensor", "R.memory.kill_tensor", {{"tensor", K::Any}},
                          {}, unit, "ends a tensor's lifetime", Purity::Impure));
  table.push_back(make_op("relax.memory.view", "R.memory.view", {{"data", K::Tensor}},
                          {{"shape", K::Shape, true, "None"},
                           {"dtype", K::DType, true, "None"},
                           {"relative_byte_offset", K::Prim, true, "None"}},
                          infer_memory_view, "a view of data with a new shape/dtype"));
  table.push_back(make_op("relax.vm.alloc_storage", "R.vm.alloc_storage", {{"size", K::Shape}},
                          {{"runtime_device_index", K::Int},
                           {"dtype", K::DType},
                           {"storage_scope", K::String, true, "\"global\""}},
                          infer_object, "allocates a VM storage block"));
  table.push_back(make_op("relax.vm.alloc_tensor", "R.vm.alloc_tensor", {{"storage", K::Any}},
                          {{"offset", K::Int},
                           {"shape", K::Shape},
                           {"dtype", K::DType},
                           {"runtime_device_index", K::Int, true, "0"}},
                          infer_memory_alloc_tensor, "creates a tensor inside a VM storage block"));
  table.push_back(make_op("relax.vm.kill_object", "R.vm.kill_object", {{"obj", K::Any}}, {}, unit,
                          "ends an object's lifetime", Purity::Impure));
  table.push_back(
      make_op("relax.vm.call_tir_dyn", "R.vm.call_tir_dyn", {{"func", K::Other}, {"args", K::Any}},
              {}, unit, "calls a PrimFunc with outputs and shape values in args", Purity::Impure));
}

}  // namespace raxc::analysis::ops
