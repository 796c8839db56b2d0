// Collective communication R.ccl.* (operators.md §3.13): all-reduce, broadcast, all-gather and
// scatter across workers.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::StructInfo* infer_same_tensor(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  attr_string(ctx, "op_type");
  attr_bool(ctx, "in_group");
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

const ir::StructInfo* infer_allgather(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<int64_t> workers = attr_int(ctx, "num_workers");
  if (!x) return unknown(ctx);
  auto dims = v_dims(*x);
  if (!dims || dims->empty() || !workers) return x;
  Dims out = *dims;
  out[0] = ctx.analyzer.mul(out[0], ctx.analyzer.make_int(*workers));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

const ir::StructInfo* infer_scatter_from_worker0(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "x");
  std::optional<int64_t> workers = attr_int(ctx, "num_workers");
  int64_t axis = attr_int(ctx, "axis").value_or(0);
  if (!x) return unknown(ctx);
  if (x->ndim < 0 || !workers || *workers <= 0) return x;
  auto ax = normalize_axis(ctx, axis, x->ndim, param_span(ctx, param(ctx, "axis")));
  auto dims = v_dims(*x);
  if (!ax || !dims) return x;
  auto& an = ctx.analyzer;
  const PrimExpr* d = (*dims)[size_t(*ax)];
  if (auto v = an.as_int(d); v && *v % *workers != 0) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "num_workers",
                                       .reason = "dimension " + std::to_string(*ax) + " of size " +
                                                 std::to_string(*v) + " is not divisible by " +
                                                 std::to_string(*workers)},
        ctx.call.span);
    return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  Dims out = *dims;
  out[size_t(*ax)] = an.floordiv(d, an.make_int(*workers));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

}  // namespace

void register_ccl(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(
      make_op("relax.ccl.allreduce", "R.ccl.allreduce", {{"x", K::Tensor}},
              {{"op_type", K::String, true, "\"sum\""}, {"in_group", K::Bool, true, "True"}},
              infer_same_tensor, "all-reduce across workers"));
  table.push_back(make_op("relax.ccl.broadcast_from_worker0", "R.ccl.broadcast_from_worker0",
                          {{"x", K::Tensor}}, {}, infer_same_tensor,
                          "broadcasts worker 0's tensor to all workers"));
  table.push_back(make_op("relax.ccl.allgather", "R.ccl.allgather", {{"x", K::Tensor}},
                          {{"num_workers", K::Int}, {"in_group", K::Bool, true, "True"}},
                          infer_allgather, "gathers every worker's tensor along axis 0"));
  table.push_back(make_op("relax.ccl.scatter_from_worker0", "R.ccl.scatter_from_worker0",
                          {{"x", K::Tensor}},
                          {{"num_workers", K::Int}, {"axis", K::Int, true, "0"}},
                          infer_scatter_from_worker0, "splits worker 0's tensor among workers"));
}

}  // namespace raxc::analysis::ops
