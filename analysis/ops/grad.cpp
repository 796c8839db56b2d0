// Gradient operators R.grad.* (operators.md §3.13), produced by autodiff and also written in
// tests: each has the StructInfo of one forward input; checkpoints are identities.
#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

const ir::StructInfo* infer_identity(InferContext& ctx) {
  const ir::StructInfo* s = ctx.args.empty() ? nullptr : ctx.args[0];
  return s ? s : object(ctx);
}

// The gradient of an op has the StructInfo of the forward input named `like`.
const ir::StructInfo* infer_grad_like(InferContext& ctx, std::string_view like) {
  for (const ParamSpec& p : current_op(ctx).args)
    if (p.kind == ArgKind::Tensor && arg_sinfo(ctx, p.name) && p.name != like && !p.optional)
      tensor_arg(ctx, p.name);
  const ir::TensorSInfo* x = tensor_arg(ctx, like);
  return x ? static_cast<const ir::StructInfo*>(x) : unknown(ctx);
}

const ir::StructInfo* infer_pool_backward(InferContext& ctx) {
  return infer_grad_like(ctx, "data");
}
const ir::StructInfo* infer_nll_backward(InferContext& ctx) {
  return infer_grad_like(ctx, "predictions");
}
const ir::StructInfo* infer_take_backward(InferContext& ctx) { return infer_grad_like(ctx, "x"); }

}  // namespace

void register_grad(std::vector<OpDef>& table) {
  using K = ArgKind;
  std::vector<ParamSpec> pool_bwd_attrs = {{"pool_size", K::IntList},
                                           {"strides", K::IntList, true, "1"},
                                           {"padding", K::IntList, true, "0"},
                                           {"dilation", K::IntList, true, "1"},
                                           {"ceil_mode", K::Bool, true, "False"},
                                           {"count_include_pad", K::Bool, true, "False"},
                                           {"layout", K::String, true, "\"NCHW\""},
                                           {"out_layout", K::String, true, "None"}};
  table.push_back(make_op("relax.grad.max_pool2d_backward", "R.grad.max_pool2d_backward",
                          {{"output_grad", K::Tensor}, {"data", K::Tensor}}, pool_bwd_attrs,
                          infer_pool_backward, "gradient of max_pool2d (shaped like data)"));
  table.push_back(make_op("relax.grad.avg_pool2d_backward", "R.grad.avg_pool2d_backward",
                          {{"output_grad", K::Tensor}, {"data", K::Tensor}}, pool_bwd_attrs,
                          infer_pool_backward, "gradient of avg_pool2d (shaped like data)"));
  table.push_back(
      make_op("relax.grad.nll_loss_backward", "R.grad.nll_loss_backward",
              {{"output_grad", K::Tensor},
               {"predictions", K::Tensor},
               {"targets", K::Tensor},
               {"weights", K::Tensor, true, "None"}},
              {{"reduction", K::String, true, "\"mean\""}, {"ignore_index", K::Int, true, "-100"}},
              infer_nll_backward, "gradient of nll_loss (shaped like predictions)"));
  table.push_back(make_op("relax.grad.take_backward", "R.grad.take_backward",
                          {{"output_grad", K::Tensor}, {"x", K::Tensor}, {"indices", K::Tensor}},
                          {{"axis", K::Int, true, "None"}}, infer_take_backward,
                          "gradient of take (shaped like x)"));
  for (auto [name, text, doc] :
       {std::tuple{"relax.grad.start_checkpoint", "R.grad.start_checkpoint",
                   "marks the start of a gradient checkpoint (identity)"},
        std::tuple{"relax.grad.end_checkpoint", "R.grad.end_checkpoint",
                   "marks the end of a gradient checkpoint (identity)"},
        std::tuple{"relax.grad.no_grad", "R.grad.no_grad", "stops gradient flow (identity)"}})
    table.push_back(make_op(name, text, {{"input", K::Any}}, {}, infer_identity, doc));
}

}  // namespace raxc::analysis::ops
