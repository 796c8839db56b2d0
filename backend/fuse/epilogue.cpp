// Epilogue fusion (fuse.h, before the element-wise fusion): a float32 product legalized to the
// runtime's `R.call_dps_packed("raxc.matmul_f32", (a, b))` (or "raxc.linear_f32") followed by
// kernels that each take its result as their only use, in the order
//
//   scale    out[i] = lv[i] * s                      (either operand order; s 0-d, a constant
//                                                     such as attention's 1/√d)
//   bias     out[..., j] = lv[..., j] + bias[j]      (either operand order; bias 1-D, (n,))
//   act      GELU as legalized (x · (0.5 + erf(x · √½) · 0.5)) or ReLU (max(x, 0))
//   residual out[i] = lv[i] + r[i]                   (r shaped as the result)
//
// each optional and in that order, becomes one call of the packed function naming them,
// `R.call_dps_packed("raxc.matmul_bias_gelu_f32", (a, b, bias))`, whose kernel applies them to
// each tile of the product while it is in cache (runtime/matmul.cpp) instead of passing over
// the result again. A float32 convolution, `R.call_dps_packed("raxc.conv2d_nchw_f32", (x, w,
// 9 integers))`, takes in the same way, in the order of a network's layers,
//
//   bias     out[n, c, h, w] = lv[n, c, h, w] + bias[c]   (bias (K, 1, 1) or (1, K, 1, 1))
//   residual out[i] = lv[i] + r[i]
//   relu     max(x, 0)
//
// becoming "raxc.conv2d_nchw_bias_residual_relu_f32"(x, w, bias, r, 9 integers), applied by
// each unit of the convolution to the outputs it completes (runtime/conv2d.cpp). The kernels are
// recognised by their formula (fusion::single_stage, then the exact shapes above), not by their
// names, so a user's kernel of that form fuses too and one that differs (a bias along another
// axis, a cast, another constant, steps in another order) does not. The fused call takes the
// place of the last kernel of the chain, where every operand it reads is defined; outside a
// dataflow block only bindings that write fresh tensors only (kernel calls, destination-passing
// packed calls, constants: fusion::writes_fresh_only) may stand between.
//
// Before its epilogue, a product's B that a kernel transposes from a 2-D float32 tensor w
// (out[i, j] = w[j, i]) for this product alone is read from w as R.linear reads its weight:
// "raxc.matmul_f32"(a, transpose(w)) becomes "raxc.linear_f32"(a, w) and the transpose kernel
// goes. That is how an ONNX Gemm with transB (every nn.Linear PyTorch exports) imports; the
// transpose of its weight was 17 % of such a layer's time on one thread (256×1024 ·
// (4096×1024)ᵀ).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/fuse/fuse.h"
#include "backend/fuse/stage.h"
#include "frontend/ir/equal.h"

namespace raxc::backend {
namespace {

enum class Step { kNone, kScale, kBias, kGelu, kRelu, kResidual };

// One kernel of a chain: what it applies and which of its inputs is the other operand.
struct Classified {
  Step step = Step::kNone;
  size_t other = 0;
};

bool is_f32(ir::DataType t) { return t == ir::DataType::Float(32); }

bool is_float(const ir::PrimExpr* e, double value) {
  const auto* f = ir::dyn_cast<ir::FloatImm>(e);
  return f && is_f32(f->dtype) && f->value == value;
}

// The formula of a stage, read against the input that is the product's result.
class Formula {
 public:
  Formula(const fusion::Stage& s, size_t product) : s_(s), x_(s.inputs[product]) {}

  // `channel_bias`: a bias is one value per element of axis 1 (a convolution's output channels,
  // in a shape that broadcasts so: (K, 1, 1), (1, K, 1, 1)), else of the last axis (1-D).
  Classified classify(bool channel_bias) const {
    const ir::PrimExpr* v = s_.store->value;
    const ir::Buffer* out = s_.store->buffer;
    if (!is_f32(out->dtype) || !is_f32(x_->dtype) || !same_shape(x_, out)) return {};
    if (s_.inputs.size() == 1 && is_gelu(v)) return {Step::kGelu, 0};
    if (s_.inputs.size() == 1 && is_relu(v)) return {Step::kRelu, 0};
    bool add = v->kind == ir::PrimKind::Add, mul = v->kind == ir::PrimKind::Mul;
    if (s_.inputs.size() != 2 || !(add || mul) || !is_f32(v->dtype)) return {};
    const auto* both = ir::cast<ir::PrimBinary>(v);
    const ir::PrimExpr* other = is_x(both->a) ? both->b : is_x(both->b) ? both->a : nullptr;
    const auto* load = other ? ir::dyn_cast<ir::BufferLoad>(other) : nullptr;
    if (!load || load->buffer == x_ || !is_f32(load->buffer->dtype)) return {};
    size_t index = s_.inputs[0] == load->buffer ? 0 : 1;
    if (s_.inputs[index] != load->buffer) return {};
    if (mul)  // a scalar: no index, no shape
      return load->indices.empty() && load->buffer->shape.empty() ? Classified{Step::kScale, index}
                                                                  : Classified{};
    if (at_every_axis(load) && same_shape(load->buffer, out)) return {Step::kResidual, index};
    if (channel_bias ? along_axis(load, 1)
                     : load->buffer->shape.size() == 1 && load->indices.size() == 1 &&
                           load->indices[0] == s_.block->iter_vars.back().var &&
                           ir::structural_equal(load->buffer->shape[0], out->shape.back()))
      return {Step::kBias, index};
    return {};
  }

 private:
  static bool same_shape(const ir::Buffer* a, const ir::Buffer* b) {
    if (a->shape.size() != b->shape.size()) return false;
    for (size_t d = 0; d < a->shape.size(); ++d)
      if (!ir::structural_equal(a->shape[d], b->shape[d])) return false;
    return true;
  }

  // A load at exactly the block variables, element for element (an axis of extent 1 may be
  // indexed by 0, as legalization writes it).
  bool at_every_axis(const ir::BufferLoad* load) const {
    const auto& vars = s_.block->iter_vars;
    if (load->indices.size() != vars.size() || load->buffer->shape.size() != vars.size())
      return false;
    for (size_t d = 0; d < vars.size(); ++d)
      if (load->indices[d] != vars[d].var &&
          !(is_int(load->indices[d], 0) && is_int(load->buffer->shape[d], 1)))
        return false;
    return true;
  }

  // A load of one element per index of the output's axis `axis`: that block variable at one
  // axis of the same extent, 0 at every other (of extent 1).
  bool along_axis(const ir::BufferLoad* load, size_t axis) const {
    const auto& vars = s_.block->iter_vars;
    const ir::Buffer* out = s_.store->buffer;
    if (axis >= vars.size() || load->indices.size() != load->buffer->shape.size()) return false;
    bool found = false;
    for (size_t d = 0; d < load->indices.size(); ++d) {
      if (!found && load->indices[d] == vars[axis].var &&
          ir::structural_equal(load->buffer->shape[d], out->shape[axis]))
        found = true;
      else if (!is_int(load->indices[d], 0) || !is_int(load->buffer->shape[d], 1))
        return false;
    }
    return found;
  }

  static bool is_int(const ir::PrimExpr* e, int64_t value) {
    const auto* i = ir::dyn_cast<ir::IntImm>(e);
    return i && i->value == value;
  }

  // The product's element at the output's index.
  bool is_x(const ir::PrimExpr* e) const {
    const auto* load = ir::dyn_cast<ir::BufferLoad>(e);
    return load && load->buffer == x_ && is_f32(load->dtype) && at_every_axis(load);
  }

  static const ir::PrimBinary* binary(const ir::PrimExpr* e, ir::PrimKind kind) {
    return e->kind == kind && is_f32(e->dtype) ? ir::cast<ir::PrimBinary>(e) : nullptr;
  }

  // x * (0.5 + erf(x * 0.70710678118654757) * 0.5), legalization's gelu_rule for float32.
  bool is_gelu(const ir::PrimExpr* v) const {
    const auto* outer = binary(v, ir::PrimKind::Mul);
    if (!outer || !is_x(outer->a)) return false;
    const auto* sum = binary(outer->b, ir::PrimKind::Add);
    if (!sum || !is_float(sum->a, 0.5)) return false;
    const auto* scaled = binary(sum->b, ir::PrimKind::Mul);
    if (!scaled || !is_float(scaled->b, 0.5)) return false;
    const auto* erf = ir::dyn_cast<ir::PrimCall>(scaled->a);
    if (!erf || erf->op != "tir.erf" || erf->args.size() != 1 || !is_f32(erf->dtype)) return false;
    const auto* arg = binary(erf->args[0], ir::PrimKind::Mul);
    return arg && is_x(arg->a) && is_float(arg->b, 0.70710678118654757);
  }

  bool is_relu(const ir::PrimExpr* v) const {
    const auto* m = binary(v, ir::PrimKind::Max);
    return m && is_x(m->a) && is_float(m->b, 0.0);
  }

  const fusion::Stage& s_;
  const ir::Buffer* x_;
};

// The packed functions whose results take epilogues: a product's (matmul_builtins), whose
// epilogue is scale, bias (per column), GELU or ReLU, residual; a convolution's
// (conv2d_builtins), whose epilogue is bias (per output channel), residual, ReLU.
enum class Producer { kMatmul, kLinear, kConv };

// `R.call_dps_packed("raxc.matmul_f32" | "raxc.linear_f32" | "raxc.conv2d_nchw_f32", (...))`.
const ir::Call* as_producer(const ir::Expr* e, Producer* kind) {
  const auto* call = e ? ir::dyn_cast<ir::Call>(e) : nullptr;
  const auto* op = call ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
  if (!op || op->name != "relax.call_dps_packed" || call->args.size() != 2 ||
      !ir::isa<ir::Tuple>(call->args[1]) || call->sinfo_args.size() != 1)
    return nullptr;
  const auto* f = ir::dyn_cast<ir::ExternFunc>(call->args[0]);
  if (!f) return nullptr;
  if (f->global_symbol == "raxc.matmul_f32")
    *kind = Producer::kMatmul;
  else if (f->global_symbol == "raxc.linear_f32")
    *kind = Producer::kLinear;
  else if (f->global_symbol == "raxc.conv2d_nchw_f32")
    *kind = Producer::kConv;
  else
    return nullptr;
  return call;
}

// The chain found from one producer.
struct Chain {
  Producer kind = Producer::kMatmul;
  std::vector<size_t> members;  // binding indices: the producer, then each kernel folded
  bool scale = false, bias = false, residual = false;
  Step act = Step::kNone;
  std::vector<const ir::Expr*> fields;  // the producer's arguments
  std::vector<const ir::Expr*> extra;   // the epilogue's operands, in order

  // Whether a kernel applying `step` may follow the chain so far, in the order the packed
  // functions apply their steps.
  bool takes(Step step) const {
    bool no_act = act == Step::kNone;
    if (kind == Producer::kConv)
      return (step == Step::kBias && !bias && !residual && no_act) ||
             (step == Step::kResidual && !residual && no_act) || (step == Step::kRelu && no_act);
    bool fresh = !scale && !bias && no_act && !residual;
    return (step == Step::kScale && fresh) ||
           (step == Step::kBias && !bias && no_act && !residual) ||
           ((step == Step::kGelu || step == Step::kRelu) && no_act && !residual) ||
           (step == Step::kResidual && !residual);
  }

  std::string symbol() const {
    if (kind == Producer::kConv)
      return std::string("raxc.conv2d_nchw") + (bias ? "_bias" : "") +
             (residual ? "_residual" : "") + (act == Step::kRelu ? "_relu" : "") + "_f32";
    std::string s = kind == Producer::kLinear ? "raxc.linear" : "raxc.matmul";
    if (scale) s += "_scale";
    if (bias) s += "_bias";
    if (act == Step::kGelu) s += "_gelu";
    if (act == Step::kRelu) s += "_relu";
    if (residual) s += "_residual";
    return s + "_f32";
  }

  // The fused call's arguments: a product's operands, then the epilogue's; a convolution's
  // data and weight, the epilogue's operands, then its integers.
  std::vector<const ir::Expr*> operands() const {
    size_t split = kind == Producer::kConv ? std::min<size_t>(2, fields.size()) : fields.size();
    std::vector<const ir::Expr*> out(fields.begin(), fields.begin() + split);
    out.insert(out.end(), extra.begin(), extra.end());
    out.insert(out.end(), fields.begin() + split, fields.end());
    return out;
  }
};

class EpiloguePass {
 public:
  explicit EpiloguePass(LoweredModule& lowered)
      : m_(lowered.module), arena_(*lowered.module.arena) {}

  size_t run() {
    fusion::rewrite_functions(m_, [&](const ir::Function* f) { return rewrite(f); });
    return fused_;
  }

 private:
  const ir::Function* rewrite(const ir::Function* f) {
    return fusion::rewrite_blocks(
        f, arena_,
        [&](const ir::BindingBlock* b, const fusion::UseCounts& uses) { return rewrite(b, uses); });
  }

  const ir::BindingBlock* rewrite(const ir::BindingBlock* block, const fusion::UseCounts& uses) {
    const auto& in = block->bindings;
    std::vector<const ir::Binding*> out(in.begin(), in.end());
    std::vector<bool> dropped(in.size(), false), claimed(in.size(), false);
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      Producer kind = Producer::kMatmul;
      const ir::Call* product =
          claimed[i] || in[i]->is_match_cast() ? nullptr : as_producer(in[i]->value, &kind);
      if (!product) continue;
      // B transposed by a kernel for this product alone (an ONNX Gemm with transB, PyTorch's
      // nn.Linear): the product reads the tensor before the transpose as R.linear reads its
      // weight, and the transpose goes.
      std::optional<size_t> transpose;
      if (kind == Producer::kMatmul)
        if (auto [at, weight] = transposed_operand(*block, i, *product, uses, claimed); weight) {
          transpose = at;
          product = as_linear(*product, weight);
          kind = Producer::kLinear;
        }
      Chain chain = follow(*block, i, *product, kind, uses, claimed);
      if (chain.members.size() < 2 && !transpose) continue;
      if (transpose) dropped[*transpose] = claimed[*transpose] = true;
      size_t last = chain.members.back();
      const ir::Call* tail = ir::cast<ir::Call>(in[last]->value);
      auto* call = arena_.make<ir::Call>(
          product->op,
          std::vector<const ir::Expr*>{
              arena_.make<ir::ExternFunc>(chain.symbol(), nullptr, product->args[0]->span),
              arena_.make<ir::Tuple>(chain.operands(), product->args[1]->span)},
          tail->sinfo_args, product->attrs, tail->span);
      auto* binding = arena_.make<ir::Binding>(*in[last]);
      binding->value = call;
      out[last] = binding;
      for (size_t k = 0; k + 1 < chain.members.size(); ++k) dropped[chain.members[k]] = true;
      for (size_t member : chain.members) claimed[member] = true;
      changed = true;
      ++fused_;
    }
    if (!changed) return block;
    return fusion::kept_bindings(arena_, *block, out, dropped);
  }

  // The kernels that fold into the product at binding `at`, in order.
  // A binding already in a chain (the last kernel of one, now its fused call) is in no other:
  // in `R.add(R.matmul(x, w1), R.matmul(x, w2))` the second product is the first's residual.
  Chain follow(const ir::BindingBlock& block, size_t at, const ir::Call& product, Producer kind,
               const fusion::UseCounts& uses, const std::vector<bool>& claimed) {
    Chain chain;
    chain.kind = kind;
    chain.members.push_back(at);
    const auto* args = ir::cast<ir::Tuple>(product.args[1]);
    chain.fields = args->fields;
    chain.bias = kind == Producer::kLinear && args->fields.size() == 3;  // R.linear's own bias
    const ir::Var* result = block.bindings[at]->var;
    while (uses.of(result) == 1) {
      size_t next = consumer(block, chain.members.back(), result);
      if (next == 0 || claimed[next]) break;
      const ir::Binding* b = block.bindings[next];
      const ir::Call* call = fusion::as_call_tir(b->value);
      Classified c = classify(*call, result, kind == Producer::kConv);
      if (!chain.takes(c.step) ||
          (!block.is_dataflow && !fusion::only_fresh_between(block, chain.members.back(), next)))
        break;
      if (c.step == Step::kScale || c.step == Step::kBias || c.step == Step::kResidual)
        chain.extra.push_back(ir::cast<ir::Tuple>(call->args[1])->fields[c.other]);
      chain.scale |= c.step == Step::kScale;
      chain.bias |= c.step == Step::kBias;
      chain.residual |= c.step == Step::kResidual;
      if (c.step == Step::kGelu || c.step == Step::kRelu) chain.act = c.step;
      chain.members.push_back(next);
      result = b->var;
    }
    return chain;
  }

  // When the product's B is the result of a kernel transposing a 2-D float32 tensor w
  // (out[i, j] = w[j, i]) used by this product alone: that binding and w; else null.
  std::pair<size_t, const ir::Expr*> transposed_operand(const ir::BindingBlock& block, size_t at,
                                                        const ir::Call& product,
                                                        const fusion::UseCounts& uses,
                                                        const std::vector<bool>& claimed) {
    const auto& fields = ir::cast<ir::Tuple>(product.args[1])->fields;
    // Outside a dataflow block w is read later than the transpose read it (sole_producer).
    std::optional<fusion::SoleProducer> transpose =
        fields.size() == 2 ? fusion::sole_producer(m_, block, at, fields[1], uses, claimed)
                           : std::nullopt;
    if (!transpose) return {};
    const auto& inputs = ir::cast<ir::Tuple>(transpose->call->args[1])->fields;
    if (inputs.size() != 1 || transpose->stage.inputs.size() != 1 ||
        !is_transpose(transpose->stage))
      return {};
    return {transpose->binding, inputs[0]};
  }

  // out[i, j] = x[j, i], both 2-D float32.
  static bool is_transpose(const fusion::Stage& s) {
    const ir::Buffer* out = s.store->buffer;
    const ir::Buffer* x = s.inputs[0];
    const auto& vars = s.block->iter_vars;
    const auto* load = ir::dyn_cast<ir::BufferLoad>(s.store->value);
    return is_f32(out->dtype) && is_f32(x->dtype) && out->shape.size() == 2 &&
           x->shape.size() == 2 && vars.size() == 2 && load && load->buffer == x &&
           load->indices.size() == 2 && load->indices[0] == vars[1].var &&
           load->indices[1] == vars[0].var && ir::structural_equal(x->shape[0], out->shape[1]) &&
           ir::structural_equal(x->shape[1], out->shape[0]);
  }

  // The product a · b as "raxc.linear_f32"(a, w), w the transpose of b.
  const ir::Call* as_linear(const ir::Call& product, const ir::Expr* weight) {
    const auto* args = ir::cast<ir::Tuple>(product.args[1]);
    return arena_.make<ir::Call>(
        product.op,
        std::vector<const ir::Expr*>{
            arena_.make<ir::ExternFunc>("raxc.linear_f32", nullptr, product.args[0]->span),
            arena_.make<ir::Tuple>(std::vector<const ir::Expr*>{args->fields[0], weight},
                                   args->span)},
        product.sinfo_args, product.attrs, product.span);
  }

  // The binding after `from` whose kernel call takes `v` as an argument (0: none).
  static size_t consumer(const ir::BindingBlock& block, size_t from, const ir::Var* v) {
    for (size_t i = from + 1; i < block.bindings.size(); ++i) {
      const ir::Binding* b = block.bindings[i];
      const ir::Call* call = b->is_match_cast() ? nullptr : fusion::as_call_tir(b->value);
      if (!call) continue;
      for (const ir::Expr* field : ir::cast<ir::Tuple>(call->args[1])->fields)
        if (field == v) return i;
    }
    return 0;
  }

  // What the kernel of `call` applies to `v`, one of its arguments.
  Classified classify(const ir::Call& call, const ir::Var* v, bool channel_bias) {
    std::optional<fusion::Stage> stage = fusion::stage_of(m_, call);
    const auto& fields = ir::cast<ir::Tuple>(call.args[1])->fields;
    if (!stage || fields.size() != stage->inputs.size()) return {};
    size_t at = 0;
    while (at < fields.size() && fields[at] != v) ++at;
    Classified c = Formula(*stage, at).classify(channel_bias);
    // The other operand must be a different tensor (a product added to itself is no bias).
    bool binary = c.step == Step::kScale || c.step == Step::kBias || c.step == Step::kResidual;
    if (binary && fields[c.other] == v) return {};
    return c;
  }

  ir::IRModule& m_;
  ir::Arena& arena_;
  size_t fused_ = 0;
};

}  // namespace

size_t fuse_epilogues(LoweredModule& lowered) { return EpiloguePass(lowered).run(); }

}  // namespace raxc::backend
