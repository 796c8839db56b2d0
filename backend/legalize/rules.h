// What a legalization rule sees and the table of rules (private to backend/legalize). A rule
// gets one Relax call whose arguments and result have fully known StructInfo, with one TIR
// buffer per tensor argument (tuple arguments flattened) and per result tensor, in our IR, shape
// variables already renamed to the PrimFunc's own; it returns the PrimFunc body, or a reason it
// cannot lower this form of the call (the call then stays as it is and refuses to run).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/ops/common.h"
#include "backend/legalize/builder.h"
#include "frontend/ir/expr.h"

namespace raxc::backend::legalize {

struct RuleContext {
  const ir::Call& call;
  analysis::ops::InferContext& infer;  // attribute readers (analysis/ops/common.h)
  Builder& b;
  std::vector<const ir::Buffer*> inputs;   // tensor arguments, in order
  std::vector<const ir::Buffer*> outputs;  // result tensors, in order
  // Intermediate buffers the rule allocates (T.alloc_buffer in the root block).
  std::vector<const ir::Buffer*> allocs;
  // Substitutes the Relax shape variables of a PrimExpr (attribute values such as a reshape
  // target or a strided_slice bound) by the PrimFunc's; null when it cannot.
  std::function<const ir::PrimExpr*(const ir::PrimExpr*)> to_tir;
  std::string why;  // set by a rule that refuses
  // Set by a rule that lowers this call to a run-time kernel of the runtime's packed registry
  // instead of a TIR body (it then returns null): the call becomes
  // R.call_dps_packed(symbol, (inputs..., scalars...), out_sinfo=result).
  std::string packed;
  std::vector<int64_t> packed_scalars;  // passed as R.prim_value after the tensors

  const ir::Buffer* in(size_t i) const { return inputs.at(i); }
  const ir::Buffer* out(size_t i = 0) const { return outputs.at(i); }
  const ir::Stmt* use_packed(std::string symbol) {
    packed = std::move(symbol);
    return nullptr;
  }
  const ir::Stmt* refuse(std::string reason) {
    why = std::move(reason);
    return nullptr;
  }
  const ir::Buffer* alloc(std::string name, ir::DataType t, Exprs shape) {
    const ir::Buffer* buf = b.buffer(std::move(name), t, std::move(shape));
    allocs.push_back(buf);
    return buf;
  }
};

using RuleFn = const ir::Stmt* (*)(RuleContext& ctx);

struct Rule {
  std::string_view op;    // "relax.add"
  std::string_view name;  // the generated PrimFunc's name before deduplication ("add")
  RuleFn fn;
};

void add_elementwise_rules(std::vector<Rule>& table);
void add_reduce_rules(std::vector<Rule>& table);
void add_manipulate_rules(std::vector<Rule>& table);
void add_nn_rules(std::vector<Rule>& table);
void add_sort_rules(std::vector<Rule>& table);
void add_scatter_rules(std::vector<Rule>& table);
void add_misc_rules(std::vector<Rule>& table);
void add_einsum_rules(std::vector<Rule>& table);
void add_conv_rules(std::vector<Rule>& table);
void add_image_rules(std::vector<Rule>& table);
void add_layer_rules(std::vector<Rule>& table);
void add_create_rules(std::vector<Rule>& table);
void add_indexing_rules(std::vector<Rule>& table);
void add_grad_rules(std::vector<Rule>& table);
void add_vision_rules(std::vector<Rule>& table);

// A data-dependent operator lowered to R.call_pure_packed of a run-time kernel: the symbol
// and the scalar arguments after the tensor (its attributes); `why` set when it cannot.
struct PackedRule {
  std::string_view op;
  std::string_view symbol;
  std::vector<const ir::PrimExpr*> (*args)(analysis::ops::InferContext&, ir::Arena&,
                                           std::string* why);
};

const Rule* find_rule(std::string_view op);
const PackedRule* find_packed_rule(std::string_view op);
std::vector<std::string_view> packed_operators();
std::span<const Rule> all_rules();

// ---- shared by the rule families

// The compute dtype of a value stored as `t`: float32 for 16-bit floats (TVM accumulates and
// evaluates transcendental functions there), `t` otherwise.
ir::DataType compute_dtype(ir::DataType t);
// numpy broadcasting of an input buffer against the output indices `out` (right-aligned; a
// literal 1 stretches).
Exprs broadcast_indices(Builder& b, const ir::Buffer* input, const Exprs& out);
// One element-wise stage over the first output: out[i...] = value(i...).
const ir::Stmt* elementwise(RuleContext& ctx, const std::string& name,
                            const std::function<const ir::PrimExpr*(const Exprs&)>& value);
// A sum over `reduce` extents into the first output: out[i...] = sum_k term(i..., k...), the
// stage's variables being the output's then the reduction's. The sum accumulates in
// compute_dtype (float32 for 16-bit floats, then one cast stage), like TVM's topi.
const ir::Stmt* accumulate(
    RuleContext& ctx, const std::string& name, const Exprs& reduce,
    const std::function<const ir::PrimExpr*(const Exprs& vars, ir::DataType acc)>& term);
// The row-major flat position of `idx` in `shape`, and the index of a flat position.
const ir::PrimExpr* flatten_index(Builder& b, const Exprs& shape, const Exprs& idx);
Exprs unflatten_index(Builder& b, const Exprs& shape, const ir::PrimExpr* flat);
// The product of dims.
const ir::PrimExpr* product(Builder& b, const Exprs& dims);
// Normalised axis (negative counts from the end) or -1 when out of range.
int norm_axis(int64_t axis, size_t ndim);

}  // namespace raxc::backend::legalize
