// The operator table and the generic part of every call's check: arity, keyword names, then the
// operator's own inference rule.
#include "analysis/ops/registry.h"

#include <string>
#include <unordered_map>

#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

struct Table {
  std::vector<OpDef> ops;
  std::unordered_map<std::string_view, size_t> by_name;
};

const Table& table() {
  static const Table t = [] {
    Table t;
    register_binary(t.ops);
    register_unary(t.ops);
    register_create(t.ops);
    register_manipulate(t.ops);
    register_index(t.ops);
    register_linalg(t.ops);
    register_reduce(t.ops);
    register_nn(t.ops);
    // Every operator of these modules belongs to the language (OpDef::language).
    auto language = [&](void (*register_module)(std::vector<OpDef>&)) {
      size_t from = t.ops.size();
      register_module(t.ops);
      for (size_t i = from; i < t.ops.size(); ++i) t.ops[i].language = true;
    };
    language(register_calls);
    register_shape(t.ops);
    language(register_memory);
    register_grad(t.ops);
    register_image(t.ops);
    register_vision(t.ops);
    register_quantize(t.ops);
    register_ccl(t.ops);
    register_distributed(t.ops);
    language(register_inspect);
    for (size_t i = 0; i < t.ops.size(); ++i) t.by_name.emplace(t.ops[i].name, i);
    return t;
  }();
  return t;
}

size_t required_args(const OpDef& def) {
  size_t n = 0;
  for (const ParamSpec& p : def.args)
    if (!p.optional) ++n;
  if (def.variadic && n > 0 && !def.args.back().optional) --n;  // `*values` may be empty
  return n;
}

const ParamSpec* find_param(const OpDef& def, std::string_view name, size_t* index) {
  size_t i = 0;
  for (const auto* list : {&def.args, &def.attrs}) {
    for (const ParamSpec& p : *list) {
      if (p.name == name) {
        *index = i;
        return &p;
      }
      ++i;
    }
  }
  return nullptr;
}

// Arity and keyword names; false when inference cannot run meaningfully.
bool check_signature(const OpDef& def, InferContext& ctx) {
  const ir::Call& call = ctx.call;
  std::string text(def.text);
  size_t given = call.args.size();
  size_t max = def.variadic ? SIZE_MAX : def.args.size() + def.attrs.size();
  bool ok = true;
  if (given > max) {
    ctx.report(diag::OperatorArgumentCount{.op = text,
                                           .expected = std::to_string(def.args.size()),
                                           .given = std::to_string(given)},
               ctx.arg_span(max));
    ok = false;
  }
  for (auto& [key, value] : call.attrs.entries) {
    size_t index = 0;
    const ParamSpec* p = find_param(def, key, &index);
    Span at = value.span.empty() ? call.span : value.span;
    if (p == nullptr) {
      ctx.report(diag::OperatorUnknownParameter{.op = text, .parameter = key}, at);
      ok = false;
    } else if (index < given && !(def.variadic && index + 1 >= def.args.size())) {
      ctx.report(diag::OperatorParameterGivenTwice{.op = text, .parameter = key}, at);
      ok = false;
    }
  }
  // Missing required positional arguments (a required argument may come by keyword).
  size_t required = required_args(def);
  for (size_t i = given; i < required; ++i) {
    if (call.attrs.find(def.args[i].name) != nullptr) continue;
    ctx.report(
        diag::OperatorArgumentCount{
            .op = text, .expected = std::to_string(required), .given = std::to_string(given)},
        call.span);
    ok = false;
    break;
  }
  // Required attributes (positionally after the arguments, or by keyword).
  for (size_t i = 0; i < def.attrs.size(); ++i) {
    const ParamSpec& p = def.attrs[i];
    if (p.optional || def.variadic) continue;
    if (def.args.size() + i < given || call.attrs.find(p.name) != nullptr) continue;
    ctx.report(diag::OperatorMissingParameter{.op = text, .parameter = std::string(p.name)},
               call.span);
    ok = false;
  }
  return ok;
}

// A tensor whose shape is a shape variable has that variable's rank (the lowering may leave
// ndim = -1 on such annotations).
const ir::StructInfo* with_shape_var_rank(ir::Arena& arena, const ir::StructInfo* s) {
  if (auto* t = ir::dyn_cast<ir::TensorSInfo>(s)) {
    if (t->ndim >= 0) return s;
    auto* var = ir::dyn_cast<ir::Var>(t->shape);
    auto* sh = var ? ir::dyn_cast<ir::ShapeSInfo>(var->annotation) : nullptr;
    if (!sh || sh->ndim < 0) return s;
    auto* ranked = arena.make<ir::TensorSInfo>(t->shape, t->dtype, t->vdevice, sh->ndim, t->span);
    ranked->dist = t->dist;
    return ranked;
  }
  if (auto* tuple = ir::dyn_cast<ir::TupleSInfo>(s)) {
    std::vector<const ir::StructInfo*> fields;
    bool changed = false;
    for (const ir::StructInfo* f : tuple->fields) {
      fields.push_back(with_shape_var_rank(arena, f));
      changed = changed || fields.back() != f;
    }
    if (changed) return arena.make<ir::TupleSInfo>(std::move(fields), tuple->span);
  }
  return s;
}

// The tensor operands of a call: its tensor arguments and the tensor fields of tuple arguments.
std::vector<const ir::TensorSInfo*> tensor_operands(const InferContext& ctx) {
  std::vector<const ir::TensorSInfo*> tensors;
  for (const ir::StructInfo* a : ctx.args) {
    if (auto* t = ir::dyn_cast<ir::TensorSInfo>(a)) tensors.push_back(t);
    if (auto* tuple = ir::dyn_cast<ir::TupleSInfo>(a))
      for (const ir::StructInfo* f : tuple->fields)
        if (auto* t = ir::dyn_cast<ir::TensorSInfo>(f)) tensors.push_back(t);
  }
  return tensors;
}

const ir::StructInfo* without_distribution(ir::Arena& arena, const ir::StructInfo* s) {
  if (const ir::TensorSInfo* t = ir::as_dtensor(s))
    return arena.make<ir::TensorSInfo>(t->shape, t->dtype, t->vdevice, t->ndim, t->span);
  if (auto* tuple = ir::dyn_cast<ir::TupleSInfo>(s)) {
    std::vector<const ir::StructInfo*> fields;
    for (const ir::StructInfo* f : tuple->fields) fields.push_back(without_distribution(arena, f));
    return arena.make<ir::TupleSInfo>(std::move(fields), tuple->span);
  }
  return s;
}

// Both tensors have the same known dims.
bool same_dims(arith::Analyzer& analyzer, const ir::TensorSInfo& a, const ir::TensorSInfo& b) {
  auto x = v_dims(a), y = v_dims(b);
  if (!x || !y || x->size() != y->size()) return false;
  for (size_t i = 0; i < x->size(); ++i) {
    auto u = analyzer.as_int((*x)[i]), v = analyzer.as_int((*y)[i]);
    if ((*x)[i] != (*y)[i] && (!u || !v || *u != *v)) return false;
  }
  return true;
}

// A tensor operator applied to DTensors (TVM's relax.dist inference of each operator). Every
// tensor operand must then be distributed (RX3132): TVM has no rule for a mix. The tensor part
// is inferred by the operator's own rule; the distribution carries over when every operand
// shares it and the result has their shape (element-wise operators). Otherwise where the result
// lives is TVM's sharding propagation to decide, and raxc leaves it unknown, so an annotation on
// the binding is what the rest of the function sees. nullopt when no operand is distributed.
std::optional<const ir::StructInfo*> infer_on_dtensors(const OpDef& def, InferContext& ctx) {
  std::vector<const ir::TensorSInfo*> tensors = tensor_operands(ctx);
  const ir::TensorSInfo *dtensor = nullptr, *plain = nullptr;
  for (const ir::TensorSInfo* t : tensors) (t->is_distributed() ? dtensor : plain) = t;
  if (dtensor == nullptr) return std::nullopt;
  if (plain != nullptr) {
    ctx.report(diag::MixedDistributedOperands{.op = std::string(def.text),
                                              .dtensor = sinfo_text(dtensor),
                                              .tensor = sinfo_text(plain)},
               ctx.call.span);
    return ir::unknown_sinfo();
  }
  for (const ir::StructInfo*& a : ctx.args) a = without_distribution(ctx.arena(), a);
  const ir::StructInfo* result = def.infer(ctx);
  auto* t = ir::dyn_cast<ir::TensorSInfo>(result);
  if (t == nullptr) return ir::unknown_sinfo();
  for (const ir::TensorSInfo* d : tensors)
    if (!ir::same_distribution(d->dist, dtensor->dist) || !same_dims(ctx.analyzer, *d, *t))
      return ir::unknown_sinfo();
  auto* shared =
      ctx.arena().make<ir::TensorSInfo>(t->shape, t->dtype, t->vdevice, t->ndim, t->span);
  shared->dist = dtensor->dist;
  return shared;
}

}  // namespace

const OpDef* find_op(std::string_view name) {
  const Table& t = table();
  auto it = t.by_name.find(name);
  return it == t.by_name.end() ? nullptr : &t.ops[it->second];
}

std::span<const OpDef> all_ops() { return table().ops; }

const ir::StructInfo* infer_call(const ir::Op& op, InferContext& ctx) {
  const OpDef* def = find_op(op.name);
  if (def == nullptr) {
    std::string text = op.name.rfind("relax.", 0) == 0 ? "R." + op.name.substr(6) : op.name;
    ctx.report(diag::UnknownOperator{.op = text}, op.span.empty() ? ctx.call.span : op.span);
    return ctx.arena().make<ir::ObjectSInfo>();
  }
  if (!check_signature(*def, ctx) || def->infer == nullptr) {
    if (ctx.call.sinfo_args.size() == 1) return ctx.call.sinfo_args[0];
    return ctx.arena().make<ir::ObjectSInfo>();
  }
  for (const ir::StructInfo*& a : ctx.args)
    if (a != nullptr) a = with_shape_var_rank(ctx.arena(), a);
  // The language's own operators and R.dist.* take DTensors as they are.
  if (!def->language && !def->name.starts_with("relax.dist."))
    if (std::optional<const ir::StructInfo*> result = infer_on_dtensors(*def, ctx)) return *result;
  const ir::StructInfo* result = def->infer(ctx);
  return result ? result : ctx.arena().make<ir::ObjectSInfo>();
}

}  // namespace raxc::analysis::ops
