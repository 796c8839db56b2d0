// Calling conventions: the call_tir family, packed calls, closures, VM builtins, print and
// assert (operators.md §3.11, §4).
#include "analysis/ops/common.h"
#include "frontend/ir/walks.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;

const ir::StructInfo* unit(InferContext& ctx) {
  return ctx.arena().make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{});
}

// sinfo_args: none -> Object, one -> it, several -> a Tuple of them.
const ir::StructInfo* derived_from_sinfo_args(InferContext& ctx) {
  const auto& s = ctx.call.sinfo_args;
  if (s.empty()) return object(ctx);
  if (s.size() == 1) return s[0];
  return ctx.arena().make<ir::TupleSInfo>(s);
}

// out_sinfo of call_tir / call_dps_packed: tensors (or a tuple of tensors) with literal shapes.
bool check_out_sinfo(InferContext& ctx, const ir::StructInfo* s) {
  if (auto* tuple = ir::dyn_cast<ir::TupleSInfo>(s)) {
    bool ok = true;
    for (const ir::StructInfo* f : tuple->fields) ok = check_out_sinfo(ctx, f) && ok;
    return ok;
  }
  auto* t = ir::dyn_cast<ir::TensorSInfo>(s);
  if (t && ir::isa<ir::ShapeExpr>(t->shape)) return true;
  ctx.report(
      diag::OperatorArgumentWrongKind{
          .op = op_text(ctx),
          .parameter = "out_sinfo",
          .expected = "a tensor with a literal shape (or a list of them)",
          .sinfo = sinfo_text(s)},
      s->span.empty() ? ctx.call.span : s->span);
  return false;
}

const ir::StructInfo* out_sinfo(InferContext& ctx) {
  if (ctx.call.sinfo_args.empty()) return object(ctx);  // the frontend requires out_sinfo
  const ir::StructInfo* s = ctx.call.sinfo_args.size() == 1
                                ? ctx.call.sinfo_args[0]
                                : ctx.arena().make<ir::TupleSInfo>(ctx.call.sinfo_args);
  check_out_sinfo(ctx, s);
  return s;
}

void check_args_tuple(InferContext& ctx) {
  const ir::StructInfo* s = arg_sinfo(ctx, "args");
  if (s && !ir::isa<ir::TupleSInfo>(s) && !ir::isa<ir::ObjectSInfo>(s))
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "args",
                                               .expected = "a tuple of arguments",
                                               .sinfo = sinfo_text(s)},
               ctx.arg_span(1));
}

void check_tir_vars(InferContext& ctx) {
  const ir::StructInfo* s = arg_sinfo(ctx, "tir_vars");
  if (s && !ir::isa<ir::ShapeSInfo>(s))
    ctx.report(
        diag::OperatorArgumentNotShape{
            .op = op_text(ctx), .parameter = "tir_vars", .sinfo = sinfo_text(s)},
        ctx.arg_span(2));
}

void check_gvar(InferContext& ctx) {
  if (ctx.call.args.empty()) return;
  const ir::Expr* callee = ctx.call.args[0];
  auto* gv = ir::dyn_cast<ir::GlobalVar>(callee);
  if (!gv) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "gvar",
                                               .expected = "a global PrimFunc",
                                               .sinfo = ctx.args.empty() ? "unknown"
                                                                         : sinfo_text(ctx.args[0])},
               ctx.arg_span(0));
    return;
  }
  if (ctx.module == nullptr) return;
  const ir::GlobalDef* def = ctx.module->find(gv->name);
  if (def && !def->prim_func())
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = gv->name,
                                               .expected = "a PrimFunc (a T.prim_func)",
                                               .sinfo = ctx.args.empty() ? "unknown"
                                                                         : sinfo_text(ctx.args[0])},
               ctx.arg_span(0));
}

// The buffer bound to PrimFunc parameter `p` (a T.Buffer parameter or a match_buffer), or null.
const ir::Buffer* param_buffer(const ir::PrimFunc& f, const ir::PrimFuncParam& p) {
  if (p.buffer) return p.buffer;
  for (auto& [var, buffer] : f.buffer_map)
    if (var == p.var) return buffer;
  return nullptr;
}

std::string buffer_text(const ir::Buffer& b) {
  return "shape " + dims_text(b.shape) + " and dtype '" + b.dtype.str() + "'";
}

// False when tensor `t` provably disagrees with buffer `b`: dtype, rank, or a dimension once the
// buffer's symbolic variables are replaced by `mapping` (unbound ones are not compared).
bool dims_match_buffer(arith::Analyzer& an, const ir::TensorSInfo& t, const ir::Buffer& b,
                       const arith::VarMap& mapping,
                       const std::optional<std::vector<const ir::PrimExpr*>>& dims) {
  if (!t.dtype.is_void() && t.dtype != b.dtype) return false;
  if (t.ndim >= 0 && size_t(t.ndim) != b.shape.size()) return false;
  for (size_t d = 0; dims && d < dims->size() && d < b.shape.size(); ++d) {
    bool bound = true;
    for (const ir::PrimVar* v : ir::prim_vars(b.shape[d])) bound = bound && mapping.count(v);
    if (!bound) continue;
    const ir::PrimExpr* want = an.substitute(b.shape[d], mapping);
    auto wi = an.as_int(want), gi = an.as_int((*dims)[d]);
    if (wi && gi ? *wi != *gi : an.compare(want, (*dims)[d]) == arith::Proof::NotEqual)
      return false;
  }
  return true;
}

// TVM's call_tir validation: the PrimFunc's parameters are [inputs..., outputs..., tir_vars...];
// binding the input buffers' symbolic dims (and the tir_vars scalars) from the arguments must
// give outputs compatible with out_sinfo. Only provable disagreements are reported.
void check_against_prim_func(InferContext& ctx, const ir::StructInfo* out) {
  if (ctx.module == nullptr || ctx.call.args.empty()) return;
  auto* gv = ir::dyn_cast<ir::GlobalVar>(ctx.call.args[0]);
  const ir::GlobalDef* def = gv ? ctx.module->find(gv->name) : nullptr;
  const ir::PrimFunc* f = def ? def->prim_func() : nullptr;
  auto* args = ir::dyn_cast<ir::TupleSInfo>(arg_sinfo(ctx, "args"));
  if (!f || !args) return;
  std::vector<const ir::StructInfo*> outs;
  if (auto* t = ir::dyn_cast<ir::TupleSInfo>(out))
    outs = t->fields;
  else
    outs = {out};
  std::optional<std::vector<const ir::PrimExpr*>> tir_vars;
  size_t n_tv = 0;
  if (const ir::StructInfo* tv = arg_sinfo(ctx, "tir_vars")) {
    auto* sh = ir::dyn_cast<ir::ShapeSInfo>(tv);
    if (!sh || sh->ndim < 0) return;
    n_tv = size_t(sh->ndim);
    tir_vars = sh->values;
  }
  // call_tir_inplace passes only the freshly allocated outputs; an in-place output is written
  // through the input parameter it names.
  std::vector<int64_t> param_of_output;
  size_t n_in = args->fields.size(), n_fresh = 0, n_params = f->params.size();
  std::optional<std::vector<int64_t>> inplace;
  if (current_op(ctx).name == "relax.call_tir_inplace") {
    inplace = attr_int_list(ctx, "inplace_indices");
    if (!inplace || inplace->size() != outs.size()) return;
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    int64_t k = inplace ? (*inplace)[j] : -1;
    if (k >= int64_t(n_in)) return;
    param_of_output.push_back(k >= 0 ? k : int64_t(n_in + n_fresh++));
  }
  size_t n_out = outs.size();
  if (n_params != n_in + n_fresh + n_tv) {
    ctx.report(diag::CallTirParameterCount{.op = op_text(ctx),
                                           .prim_func = gv->name,
                                           .params = n_params,
                                           .inputs = n_in,
                                           .outputs = n_fresh,
                                           .tir_vars = n_tv},
               ctx.call.span);
    return;
  }
  auto& an = ctx.analyzer;
  arith::VarMap mapping;
  for (size_t i = 0; i < n_in; ++i) {
    const ir::Buffer* b = param_buffer(*f, f->params[i]);
    auto* t = ir::dyn_cast<ir::TensorSInfo>(args->fields[i]);
    if (!b || !t) continue;
    auto dims = v_dims(*t);
    if (!dims || dims->size() != b->shape.size()) continue;
    for (size_t d = 0; d < dims->size(); ++d)
      if (auto* v = ir::dyn_cast<ir::PrimVar>(b->shape[d]); v && !mapping.count(v))
        mapping[v] = (*dims)[d];
  }
  if (tir_vars)
    for (size_t k = 0; k < n_tv; ++k) mapping[f->params[n_in + n_fresh + k].var] = (*tir_vars)[k];
  // TVM's well-formedness matches each argument against its buffer: dtype, rank, and the dims
  // once the symbolic variables are bound (by the first argument that uses them).
  for (size_t i = 0; i < n_in; ++i) {
    const ir::Buffer* b = param_buffer(*f, f->params[i]);
    auto* t = ir::dyn_cast<ir::TensorSInfo>(args->fields[i]);
    if (!b || !t) continue;
    if (!dims_match_buffer(an, *t, *b, mapping, v_dims(*t)))
      ctx.report(diag::CallTirInputMismatch{.op = op_text(ctx),
                                            .index = i,
                                            .sinfo = sinfo_text(t),
                                            .prim_func = gv->name,
                                            .buffer = b->name,
                                            .buffer_shape = buffer_text(*b)},
                 ctx.call.span);
  }
  for (size_t j = 0; j < n_out; ++j) {
    const ir::Buffer* b = param_buffer(*f, f->params[size_t(param_of_output[j])]);
    auto* t = ir::dyn_cast<ir::TensorSInfo>(outs[j]);
    if (!b || !t) continue;
    if (!dims_match_buffer(an, *t, *b, mapping, s_dims(*t)))
      ctx.report(diag::CallTirOutputMismatch{.op = op_text(ctx),
                                             .index = j,
                                             .declared = sinfo_text(t),
                                             .prim_func = gv->name,
                                             .buffer = b->name,
                                             .buffer_shape = buffer_text(*b)},
                 ctx.call.span);
  }
}

const ir::StructInfo* infer_call_tir(InferContext& ctx) {
  check_gvar(ctx);
  check_args_tuple(ctx);
  check_tir_vars(ctx);
  const ir::StructInfo* out = out_sinfo(ctx);
  check_against_prim_func(ctx, out);
  return out;
}

// R.dist.call_tir_local_view: a call_tir whose PrimFunc already works on each device's shard, so
// its buffers have the local shapes while out_sinfo gives the global DTensors (TVM's
// LowerGlobalViewToLocalView writes it); the buffers are not compared with the global shapes.
const ir::StructInfo* infer_call_tir_local_view(InferContext& ctx) {
  check_gvar(ctx);
  check_args_tuple(ctx);
  check_tir_vars(ctx);
  const ir::StructInfo* out = out_sinfo(ctx);
  std::vector<const ir::StructInfo*> outputs{out};
  if (auto* tuple = ir::dyn_cast<ir::TupleSInfo>(out)) outputs = tuple->fields;
  for (const ir::StructInfo* o : outputs) {
    // Anything but a tensor was reported by out_sinfo already.
    if (ir::as_dtensor(o) || !ir::isa<ir::TensorSInfo>(o)) continue;
    ctx.report(diag::LocalViewOutputNotDTensor{.op = op_text(ctx), .sinfo = sinfo_text(o)},
               ctx.call.span);
    break;
  }
  return out;
}

const ir::StructInfo* infer_call_tir_inplace(InferContext& ctx) {
  const ir::StructInfo* result = infer_call_tir(ctx);
  auto indices = attr_int_list(ctx, "inplace_indices");
  auto* args = ir::dyn_cast<ir::TupleSInfo>(arg_sinfo(ctx, "args"));
  if (!indices || !args) return result;
  std::vector<const ir::StructInfo*> outs;
  if (auto* t = ir::dyn_cast<ir::TupleSInfo>(result);
      t && ctx.call.sinfo_args.size() == 1 && indices->size() != 1)
    outs = t->fields;
  else
    outs = {result};
  Span at = param_span(ctx, param(ctx, "inplace_indices"));
  if (outs.size() != indices->size()) {
    ctx.report(
        diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                       .attribute = "inplace_indices",
                                       .reason = std::to_string(indices->size()) + " indices for " +
                                                 std::to_string(outs.size()) + " outputs"},
        at);
    return result;
  }
  std::vector<size_t> writer(args->fields.size(), SIZE_MAX);  // the output written in place
  for (size_t i = 0; i < indices->size(); ++i) {
    int64_t k = (*indices)[i];
    if (k < 0) continue;
    if (size_t(k) < args->fields.size() && writer[size_t(k)] != SIZE_MAX) {
      // Two outputs would alias one buffer (TVM rejects a repeated in-place index).
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx),
              .attribute = "inplace_indices",
              .reason = "argument " + std::to_string(k) + " is written in place by outputs " +
                        std::to_string(writer[size_t(k)]) + " and " + std::to_string(i)},
          at);
      continue;
    }
    if (size_t(k) < args->fields.size()) writer[size_t(k)] = i;
    if (size_t(k) < args->fields.size() && !ir::isa<ir::TensorSInfo>(args->fields[size_t(k)]) &&
        !ir::isa<ir::ObjectSInfo>(args->fields[size_t(k)])) {
      ctx.report(
          diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                         .attribute = "inplace_indices",
                                         .reason = "argument " + std::to_string(k) +
                                                   " written in place is not a tensor ('" +
                                                   sinfo_text(args->fields[size_t(k)]) + "')"},
          at);
      continue;
    }
    if (size_t(k) >= args->fields.size()) {
      ctx.report(
          diag::OperatorInvalidAttribute{
              .op = op_text(ctx),
              .attribute = "inplace_indices",
              .reason = "index " + std::to_string(k) + " is out of range for " +
                        std::to_string(args->fields.size()) + " arguments"},
          at);
      continue;
    }
    auto* in = ir::dyn_cast<ir::TensorSInfo>(args->fields[size_t(k)]);
    auto* out = ir::dyn_cast<ir::TensorSInfo>(outs[i]);
    if (!in || !out) continue;
    if (!in->dtype.is_void() && in->dtype != out->dtype)
      ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                             .operands = "an in-place output and its input",
                                             .first = out->dtype.str(),
                                             .second = in->dtype.str()},
                 at);
    auto din = v_dims(*in), dout = s_dims(*out);
    if (din && dout && din->size() == dout->size()) {
      for (size_t d = 0; d < din->size(); ++d)
        if (!check_dims_equal(ctx, (*dout)[d],
                              "dimension " + std::to_string(d) + " of output " + std::to_string(i),
                              (*din)[d], "that of argument " + std::to_string(k), at))
          break;
    } else if (din && dout) {
      ctx.report(diag::OperatorRankMismatch{.op = op_text(ctx),
                                            .operands = "an in-place output and its input",
                                            .first = dout->size(),
                                            .second = din->size()},
                 at);
    }
  }
  return result;
}

const ir::StructInfo* infer_call_dps_packed(InferContext& ctx) {
  check_args_tuple(ctx);
  return out_sinfo(ctx);
}

const ir::StructInfo* infer_call_pure_packed(InferContext& ctx) {
  if (!ctx.call.args.empty() && ir::isa<ir::Op>(ctx.call.args[0]))
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "func",
                                               .expected = "a packed function, not an operator",
                                               .sinfo = "an operator"},
               ctx.arg_span(0));
  return derived_from_sinfo_args(ctx);
}

const ir::StructInfo* infer_call_inplace_packed(InferContext& ctx) {
  if (ctx.call.args.size() < 2)
    ctx.report(
        diag::OperatorArgumentCount{
            .op = op_text(ctx), .expected = "2", .given = std::to_string(ctx.call.args.size())},
        ctx.call.span);
  return derived_from_sinfo_args(ctx);
}

const ir::StructInfo* infer_builtin_with_ctx(InferContext& ctx) {
  if (ctx.call.sinfo_args.empty()) return unit(ctx);
  return ctx.call.sinfo_args[0];
}

const ir::StructInfo* infer_invoke_closure(InferContext& ctx) {
  return derived_from_sinfo_args(ctx);
}

const ir::StructInfo* infer_make_closure(InferContext& ctx) { return object(ctx); }

const ir::StructInfo* infer_print(InferContext& ctx) {
  if (!ctx.call.args.empty() && !ir::isa<ir::StringImm>(ctx.call.args[0]))
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = "format",
                                               .expected = "a string",
                                               .sinfo = sinfo_text(ctx.args[0])},
               ctx.arg_span(0));
  return unit(ctx);
}

const ir::StructInfo* infer_assert(InferContext& ctx) {
  const ir::StructInfo* c = arg_sinfo(ctx, "condition");
  if (c) {
    bool ok = false;
    if (auto* p = ir::dyn_cast<ir::PrimSInfo>(c)) ok = p->dtype.is_bool() || p->dtype.is_void();
    if (auto* t = ir::dyn_cast<ir::TensorSInfo>(c))
      ok = (t->dtype.is_bool() || t->dtype.is_void()) && (t->ndim == 0 || t->ndim == -1);
    if (!ok)
      ctx.report(
          diag::OperatorArgumentWrongKind{
              .op = op_text(ctx),
              .parameter = "condition",
              .expected = "a boolean scalar (R.Prim(\"bool\") or a 0-d bool tensor)",
              .sinfo = sinfo_text(c)},
          ctx.arg_span(0));
  }
  return unit(ctx);
}

}  // namespace

void register_calls(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op(
      "relax.call_tir", "R.call_tir",
      {{"gvar", K::Other}, {"args", K::Any}, {"tir_vars", K::Shape, true, "None"}}, {},
      infer_call_tir, "calls a PrimFunc in destination-passing style; the result is out_sinfo"));
  table.push_back(
      make_op("relax.dist.call_tir_local_view", "R.dist.call_tir_local_view",
              {{"gvar", K::Other}, {"args", K::Any}, {"tir_vars", K::Shape, true, "None"}}, {},
              infer_call_tir_local_view,
              "calls a PrimFunc on each device's shard of DTensors; the result is out_sinfo"));
  table.push_back(
      make_op("relax.call_tir_inplace", "R.call_tir_inplace",
              {{"gvar", K::Other}, {"args", K::Any}, {"tir_vars", K::Shape, true, "None"}},
              {{"inplace_indices", K::IntList}}, infer_call_tir_inplace,
              "calls a PrimFunc that writes some outputs into its inputs"));
  table.push_back(
      make_op("relax.call_tir_with_grad", "R.call_tir_with_grad",
              {{"gvar", K::Other}, {"args", K::Any}, {"tir_vars", K::Shape, true, "None"}},
              {{"te_grad_name", K::String}, {"te_grad_kwargs", K::Other, true, "None"}},
              infer_call_tir, "call_tir with a registered TE gradient"));
  table.push_back(make_op("relax.call_dps_packed", "R.call_dps_packed",
                          {{"func", K::Other}, {"args", K::Any}}, {}, infer_call_dps_packed,
                          "calls a packed function in destination-passing style"));
  OpDef pure_packed = make_op("relax.call_pure_packed", "R.call_pure_packed",
                              {{"func", K::Other}, {"args", K::Any}}, {}, infer_call_pure_packed,
                              "calls a packed function the user asserts is pure");
  pure_packed.variadic = true;
  table.push_back(pure_packed);
  OpDef inplace_packed =
      make_op("relax.call_inplace_packed", "R.call_inplace_packed",
              {{"func", K::Other}, {"args", K::Any}}, {{"inplace_indices", K::IntList}},
              infer_call_inplace_packed, "calls a packed function that mutates some arguments");
  inplace_packed.variadic = true;
  table.push_back(inplace_packed);
  table.push_back(make_op("relax.call_builtin_with_ctx", "R.call_builtin_with_ctx",
                          {{"func", K::Other}, {"args", K::Any}}, {}, infer_builtin_with_ctx,
                          "calls a VM builtin with the VM context", Purity::Impure));
  table.push_back(make_op("relax.make_closure", "R.make_closure",
                          {{"func", K::Other}, {"args", K::Any}}, {}, infer_make_closure,
                          "captures values into a closure"));
  table.push_back(make_op("relax.invoke_closure", "R.invoke_closure",
                          {{"closure", K::Any}, {"args", K::Any}}, {}, infer_invoke_closure,
                          "calls a closure (impure); the result is sinfo_args", Purity::Impure));
  table.push_back(make_op("relax.invoke_pure_closure", "R.invoke_pure_closure",
                          {{"closure", K::Any}, {"args", K::Any}}, {}, infer_invoke_closure,
                          "calls a pure closure; the result is sinfo_args"));
  OpDef print = make_op("relax.print", "R.print", {{"format", K::String}, {"values", K::Any}}, {},
                        infer_print, "prints values with a format string (impure)", Purity::Impure);
  print.variadic = true;
  table.push_back(print);
  OpDef assert_op = make_op(
      "relax.assert_op", "R.assert_op",
      {{"condition", K::Any}, {"format", K::String}, {"format_args", K::Any}}, {}, infer_assert,
      "aborts with a message when condition is false (impure)", Purity::Impure);
  assert_op.variadic = true;
  table.push_back(assert_op);
  // The StructInfo parameters of the written signatures (hover, completion, signature help).
  for (OpDef& op : table) {
    if (op.name == "relax.call_tir" || op.name == "relax.call_tir_inplace" ||
        op.name == "relax.call_tir_with_grad" || op.name == "relax.call_dps_packed" ||
        op.name == "relax.dist.call_tir_local_view")
      op.struct_info_params = {{"out_sinfo", K::StructInfo}};
    if (op.name == "relax.call_pure_packed" || op.name == "relax.call_inplace_packed" ||
        op.name == "relax.call_builtin_with_ctx" || op.name == "relax.invoke_closure" ||
        op.name == "relax.invoke_pure_closure")
      op.struct_info_params = {{"sinfo_args", K::StructInfo, true, "None"}};
  }
}

}  // namespace raxc::analysis::ops
