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

const ir::StructInfo* infer_memory_view(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<DataType> dt;
  if (!view_argument_omitted(ctx, "dtype")) dt = attr_dtype(ctx, "dtype");
  if (!x) return unknown(ctx);
  DataType dtype = dt && !dt->is_void() ? *dt : x->dtype;
  if (!view_argument_omitted(ctx, "shape")) {
    if (auto shape = shape_operand(ctx, "shape"))
      return tensor_of_shape(ctx, *shape, dtype, x->vdevice);
  }
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
