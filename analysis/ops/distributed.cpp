// Distributed Relax's operators R.dist.* (TVM's relax.distributed): annotate_sharding (a hint
// on a plain tensor), redistribute (a DTensor moved to another mesh or placement) and
// redistribute_replica_to_shard (a replicated tensor split among workers). call_tir_local_view
// is a call of the call_tir family (calls.cpp).
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using Dims = std::vector<const ir::PrimExpr*>;

// The mesh and placement attributes the lowering checked and wrote in TVM's form; nullopt when
// either cannot be read (the lowering reported it).
std::optional<ir::Distribution> distribution_attrs(InferContext& ctx) {
  std::optional<std::string> mesh_text = attr_string(ctx, "device_mesh");
  std::optional<std::string> placement_text = attr_string(ctx, "placement");
  if (!mesh_text || !placement_text || ctx.module == nullptr) return std::nullopt;
  auto ref = ir::parse_mesh_reference(*mesh_text);
  const ir::DeviceMesh* mesh = ref ? ctx.module->find_mesh(ref->first, ref->second) : nullptr;
  std::optional<ir::Placement> placement = ir::parse_placement(*placement_text);
  if (!mesh || !placement || placement->size() != mesh->ndim()) return std::nullopt;
  return ir::Distribution{mesh, std::move(*placement)};
}

// Every sharded axis of `placement` exists in `input` (RX3133); as for an annotation, a tensor of
// unknown rank has none.
bool shards_existing_axes(InferContext& ctx, const ir::Placement& placement,
                          const ir::TensorSInfo& input) {
  for (int axis : placement) {
    if (axis == ir::kReplica || (input.ndim >= 0 && axis < input.ndim)) continue;
    ctx.report(diag::OperatorShardsMissingAxis{.op = op_text(ctx),
                                               .placement = ir::placement_text(placement),
                                               .axis = axis,
                                               .sinfo = sinfo_text(&input)},
               param_span(ctx, param(ctx, "placement")));
    return false;
  }
  return true;
}

// The same tensor part under another distribution.
const ir::TensorSInfo* distributed(InferContext& ctx, const ir::TensorSInfo& tensor,
                                   ir::Distribution dist) {
  auto* t =
      ctx.arena().make<ir::TensorSInfo>(tensor.shape, tensor.dtype, tensor.vdevice, tensor.ndim);
  t->dist = ctx.arena().make<ir::Distribution>(std::move(dist));
  return t;
}

// TVM's annotate_sharding only records the wish for the sharding-propagation pass: the value
// keeps its StructInfo.
const ir::StructInfo* infer_annotate_sharding(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input");
  std::optional<ir::Distribution> dist = distribution_attrs(ctx);
  if (!x) return unknown(ctx);
  if (dist) shards_existing_axes(ctx, dist->placement, *x);
  return x;
}

const ir::StructInfo* infer_redistribute(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input");
  std::optional<ir::Distribution> dist = distribution_attrs(ctx);
  if (!x) return unknown(ctx);
  if (!x->is_distributed()) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "input",
                                               .expected = "a DTensor (R.DTensor)",
                                               .sinfo = sinfo_text(x)},
               ctx.arg_span(0));
    return ir::unknown_sinfo();
  }
  if (!dist || !shards_existing_axes(ctx, dist->placement, *x)) return ir::unknown_sinfo();
  return distributed(ctx, *x, std::move(*dist));
}

// A plain tensor: axis `axis` divided by num_workers (each worker's part). A DTensor keeps its
// global shape and becomes sharded along `axis` on its one-dimensional mesh.
const ir::StructInfo* infer_redistribute_replica_to_shard(InferContext& ctx) {
  const ir::TensorSInfo* x = tensor_arg(ctx, "input");
  std::optional<int64_t> workers = attr_int(ctx, "num_workers");
  std::optional<int64_t> axis_attr = attr_int(ctx, "axis");
  if (!x) return unknown(ctx);
  if (!workers || *workers <= 0) {
    if (workers)
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx), .attribute = "num_workers", .reason = "it must be positive"},
          param_span(ctx, param(ctx, "num_workers")));
    return x->is_distributed() ? ir::unknown_sinfo()
                               : rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  }
  int axis = -1;  // normalized; -1 when unknown or rejected
  if (x->ndim >= 0 && axis_attr)
    axis =
        normalize_axis(ctx, *axis_attr, x->ndim, param_span(ctx, param(ctx, "axis"))).value_or(-1);
  auto dims = v_dims(*x);
  if (axis >= 0 && dims) {
    if (auto size = ctx.analyzer.as_int((*dims)[size_t(axis)]); size && *size % *workers != 0) {
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = "num_workers",
                                         .reason = "axis " + std::to_string(axis) + " of size " +
                                                   std::to_string(*size) + " is not divisible by " +
                                                   std::to_string(*workers)},
          param_span(ctx, param(ctx, "num_workers")));
      axis = -1;
    }
  }
  if (x->is_distributed()) {
    const ir::Distribution& from = *x->dist;
    if (from.mesh->ndim() != 1 || from.placement[0] != ir::kReplica) {
      ctx.report(diag::ReplicaToShardNeedsReplica{.op = op_text(ctx), .sinfo = sinfo_text(x)},
                 ctx.arg_span(0));
      return ir::unknown_sinfo();
    }
    if (axis < 0) return ir::unknown_sinfo();
    return distributed(ctx, *x, ir::Distribution{from.mesh, ir::Placement(1, axis)});
  }
  if (axis < 0 || !dims) return rank_only(ctx, x->ndim, x->dtype, x->vdevice);
  Dims out = *dims;
  out[size_t(axis)] = ctx.analyzer.floordiv(out[size_t(axis)], ctx.analyzer.make_int(*workers));
  return make_tensor(ctx, std::move(out), x->dtype, x->vdevice);
}

}  // namespace

void register_distributed(std::vector<OpDef>& table) {
  using K = ArgKind;
  std::vector<ParamSpec> distribution = {{"device_mesh", K::String}, {"placement", K::String}};
  table.push_back(make_op("relax.dist.annotate_sharding", "R.dist.annotate_sharding",
                          {{"input", K::Tensor}}, distribution, infer_annotate_sharding,
                          "asks sharding propagation to place the tensor on a device mesh"));
  table.push_back(make_op("relax.dist.redistribute", "R.dist.redistribute", {{"input", K::Tensor}},
                          distribution, infer_redistribute,
                          "moves a DTensor to another device mesh or placement"));
  table.push_back(make_op("relax.dist.redistribute_replica_to_shard",
                          "R.dist.redistribute_replica_to_shard", {{"input", K::Tensor}},
                          {{"num_workers", K::Int}, {"axis", K::Int}},
                          infer_redistribute_replica_to_shard,
                          "keeps each worker's slice of a replicated tensor along an axis"));
}

}  // namespace raxc::analysis::ops
