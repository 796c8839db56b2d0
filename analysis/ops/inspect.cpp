// R.inspect.tensor_* (operators.md §3.13): `Prim[...]` results describing a tensor's run-time
// header. They are produced by lowering and read one field of the DLTensor behind a Relax tensor,
// so each result has the dtype of that field in DLPack's header (dlpack.h: ndim `int`, dtype
// code/bits `uint8_t`, lanes `uint16_t`, shape/strides `int64_t`, byte_offset `uint64_t`); the
// element offset is the byte offset in elements, also unsigned 64-bit. The spec gives no values,
// so the results carry none (a Prim without a value is compatible with any value annotation).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* prim(InferContext& ctx, DataType dtype) {
  return ctx.arena().make<ir::PrimSInfo>(dtype, nullptr);
}

// The field's dtype for the operator being inferred.
DataType field_dtype(const InferContext& ctx) {
  std::string_view name = current_op(ctx).name;
  if (name == "relax.inspect.tensor_dtype_code" || name == "relax.inspect.tensor_dtype_bits")
    return DataType::UInt(8);
  if (name == "relax.inspect.tensor_dtype_lanes") return DataType::UInt(16);
  if (name == "relax.inspect.tensor_ndim") return DataType::Int(32);
  if (name == "relax.inspect.tensor_shape_i" || name == "relax.inspect.tensor_stride_i")
    return DataType::Int(64);
  return DataType::UInt(64);  // byte_offset, elem_offset
}

// tensor_ndim, tensor_dtype_*, tensor_byte_offset, tensor_elem_offset: one tensor operand.
const ir::StructInfo* infer_header_field(InferContext& ctx) {
  tensor_arg(ctx, "tensor");
  return prim(ctx, field_dtype(ctx));
}

// tensor_shape_i, tensor_stride_i: a tensor and an integer Prim axis. A literal axis must be in
// [0, ndim) (the run-time header has no negative indexing).
const ir::StructInfo* infer_header_field_i(InferContext& ctx) {
  const ir::TensorSInfo* t = tensor_arg(ctx, "tensor");
  ParamValue v = param(ctx, "axis");
  const ir::StructInfo* s = arg_sinfo(ctx, "axis");
  Span at = param_span(ctx, v);
  std::optional<int64_t> axis;
  if (s != nullptr) {
    auto* p = ir::dyn_cast<ir::PrimSInfo>(s);
    if (p == nullptr || (!p->dtype.is_void() && (!p->dtype.is_integer() || p->dtype.is_bool()))) {
      ctx.report(
          diag::OperatorArgumentNotPrimValue{
              .op = op_text(ctx), .parameter = "axis", .sinfo = sinfo_text(s)},
          at);
    } else if (p->value) {
      axis = ctx.analyzer.as_int(p->value);
    }
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[size_t(v.arg_index)]))
      axis = ctx.analyzer.as_int(pv->value);
  } else {
    axis = attr_int(ctx, "axis");
  }
  if (axis && *axis < 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "axis", .reason = "the axis must not be negative"},
        at);
  } else if (axis && t && t->ndim >= 0 && *axis >= t->ndim) {
    ctx.report(diag::AxisOutOfRange{.op = op_text(ctx), .axis = *axis, .ndim = t->ndim}, at);
  }
  return prim(ctx, field_dtype(ctx));
}

}  // namespace

void register_inspect(std::vector<OpDef>& table) {
  using K = ArgKind;
  struct Entry {
    std::string_view name, text, doc;
  };
  static const Entry single[] = {
      {"relax.inspect.tensor_dtype_code", "R.inspect.tensor_dtype_code",
       "the DLDataType code of a tensor at run time (uint8)"},
      {"relax.inspect.tensor_dtype_bits", "R.inspect.tensor_dtype_bits",
       "the DLDataType bit width of a tensor at run time (uint8)"},
      {"relax.inspect.tensor_dtype_lanes", "R.inspect.tensor_dtype_lanes",
       "the DLDataType lane count of a tensor at run time (uint16)"},
      {"relax.inspect.tensor_ndim", "R.inspect.tensor_ndim",
       "the rank of a tensor at run time (int32)"},
      {"relax.inspect.tensor_byte_offset", "R.inspect.tensor_byte_offset",
       "the DLTensor byte offset of a tensor at run time (uint64)"},
      {"relax.inspect.tensor_elem_offset", "R.inspect.tensor_elem_offset",
       "the DLTensor offset of a tensor at run time, in elements (uint64)"},
  };
  for (const Entry& e : single)
    table.push_back(
        make_op(e.name, e.text, {{"tensor", K::Tensor}}, {}, infer_header_field, e.doc));
  table.push_back(make_op("relax.inspect.tensor_shape_i", "R.inspect.tensor_shape_i",
                          {{"tensor", K::Tensor}, {"axis", K::Prim}}, {}, infer_header_field_i,
                          "the extent of one axis of a tensor at run time (int64)"));
  table.push_back(make_op("relax.inspect.tensor_stride_i", "R.inspect.tensor_stride_i",
                          {{"tensor", K::Tensor}, {"axis", K::Prim}}, {}, infer_header_field_i,
                          "the stride of one axis of a tensor at run time (int64)"));
}

}  // namespace raxc::analysis::ops
