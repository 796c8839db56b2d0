// Reductions, statistics and scans (operators.md §3.9).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

// The reduced StructInfo for `x` (shared by sum/mean/.../median); nullopt axes = all.
const ir::TensorSInfo* reduce_shape(InferContext& ctx, const ir::TensorSInfo& x,
                                    const std::optional<std::vector<int64_t>>& axes, bool keepdims,
                                    DataType dtype) {
  int r = x.ndim;
  auto& an = ctx.analyzer;
  std::optional<std::vector<int>> norm;
  if (axes && r >= 0) {
    norm = normalize_axes(ctx, *axes, r, param_span(ctx, param(ctx, "axis")));
    if (!norm) return rank_only(ctx, keepdims ? r : -1, dtype, x.vdevice);
  }
  int out_rank = keepdims ? r : !axes ? 0 : r < 0 ? -1 : r - int(axes->size());
  auto dims = s_dims(x);
  if (!dims) {
    if (!axes && keepdims && r >= 0)
      return make_tensor(ctx, Dims(size_t(r), an.make_int(1)), dtype, x.vdevice);
    if (out_rank == 0) return make_tensor(ctx, {}, dtype, x.vdevice);
    return rank_only(ctx, out_rank, dtype, x.vdevice);
  }
  std::vector<bool> reduced(size_t(r), !axes.has_value());
  if (norm)
    for (int a : *norm) reduced[size_t(a)] = true;
  Dims out;
  for (int i = 0; i < r; ++i) {
    if (!reduced[size_t(i)])
      out.push_back((*dims)[size_t(i)]);
    else if (keepdims)
      out.push_back(an.make_int(1));
  }
  return make_tensor(ctx, std::move(out), dtype, x.vdevice);
}

const ir::StructInfo* infer_statistical(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  auto axes = attr_int_list(ctx, "axis");
  bool keepdims = attr_bool(ctx, "keepdims").value_or(false);
  if (!x) return rank_only(ctx, -1, DataType::Void(), nullptr);
  return reduce_shape(ctx, *x, axes, keepdims, x->dtype);
}

const ir::StructInfo* infer_median(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  auto axes = attr_int_list(ctx, "axis");
  bool keepdims = attr_bool(ctx, "keepdims").value_or(false);
  if (!x) return rank_only(ctx, -1, DataType::Void(), nullptr);
  const ir::TensorSInfo* values = reduce_shape(ctx, *x, axes, keepdims, x->dtype);
  if (!axes || axes->size() != 1) return values;
  const ir::TensorSInfo* indices = with_dtype(ctx, *values, DataType::Int(64));
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{values, indices});
}

const ir::StructInfo* infer_scan(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "data");
  std::optional<int64_t> axis = attr_int(ctx, "axis");
  std::optional<DataType> dtype = attr_dtype(ctx, "dtype");
  attr_bool(ctx, "exclusive");
  if (!x) return rank_only(ctx, -1, dtype.value_or(DataType::Void()), nullptr);
  DataType dt = dtype && !dtype->is_void() ? *dtype : x->dtype;
  if (!axis) {
    auto dims = s_dims(*x);
    if (dims) return make_tensor(ctx, {product(ctx, *dims)}, dt, x->vdevice);
    return rank_only(ctx, 1, dt, x->vdevice);  // TVM says the input rank; flattened is 1-D
  }
  return with_dtype(ctx, *x, dt);
}

}  // namespace

void register_reduce(std::vector<OpDef>& table) {
  using K = ArgKind;
  struct Entry {
    std::string_view name, text, doc;
  };
  static const Entry entries[] = {
      {"relax.sum", "R.sum", "sum over the given axes (all when None)"},
      {"relax.mean", "R.mean", "mean over the given axes (integer mean truncates)"},
      {"relax.max", "R.max", "maximum over the given axes"},
      {"relax.min", "R.min", "minimum over the given axes"},
      {"relax.prod", "R.prod", "product over the given axes"},
      {"relax.variance", "R.variance", "population variance over the given axes"},
      {"relax.std", "R.std", "population standard deviation over the given axes"},
  };
  for (const Entry& e : entries)
    table.push_back(
        make_op(e.name, e.text, {{"x", K::Tensor}},
                {{"axis", K::IntList, true, "None"}, {"keepdims", K::Bool, true, "False"}},
                infer_statistical, e.doc));
  table.push_back(
      make_op("relax.median", "R.median", {{"x", K::Tensor}},
              {{"axis", K::IntList, true, "None"}, {"keepdims", K::Bool, true, "False"}},
              infer_median, "lower median; a (values, indices) tuple when one axis is given"));
  for (auto [name, text, doc] :
       {std::tuple{"relax.cumsum", "R.cumsum", "cumulative sum along an axis (flattened if None)"},
        std::tuple{"relax.cumprod", "R.cumprod",
                   "cumulative product along an axis (flattened if None)"}})
    table.push_back(make_op(name, text, {{"data", K::Tensor}},
                            {{"axis", K::Int, true, "None"},
                             {"dtype", K::DType, true, "None"},
                             {"exclusive", K::Bool, true, "False"}},
                            infer_scan, doc));
}

}  // namespace raxc::analysis::ops
