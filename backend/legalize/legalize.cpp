// The legalization pass (legalize.h): walks each analysed Relax function, turns operator calls
// into call_tir of generated PrimFuncs, and assembles the lowered module. Also the rule table.
#include "backend/legalize/legalize.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/arith/analyzer.h"
#include "backend/legalize/rules.h"
#include "frontend/ir/dump.h"

namespace raxc::backend {

using namespace legalize;
using ir::DataType;
using ir::PrimExpr;

namespace legalize {

const std::vector<Rule>& table() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> t;
    add_elementwise_rules(t);
    add_reduce_rules(t);
    add_manipulate_rules(t);
    add_nn_rules(t);
    add_sort_rules(t);
    add_scatter_rules(t);
    add_misc_rules(t);
    add_einsum_rules(t);
    add_conv_rules(t);
    add_image_rules(t);
    add_layer_rules(t);
    add_create_rules(t);
    add_indexing_rules(t);
    add_grad_rules(t);
    add_vision_rules(t);
    return t;
  }();
  return rules;
}

const Rule* find_rule(std::string_view op) {
  static const std::unordered_map<std::string_view, const Rule*> index = [] {
    std::unordered_map<std::string_view, const Rule*> m;
    for (const Rule& r : table()) m.emplace(r.op, &r);
    return m;
  }();
  auto it = index.find(op);
  return it == index.end() ? nullptr : it->second;
}

std::span<const Rule> all_rules() { return table(); }

namespace {
// unique(x, sorted, return_index, return_inverse, return_counts[, axis]) passes its flags as
// scalars, as TVM's relax.run.unique takes them.
std::vector<const PrimExpr*> unique_args(analysis::ops::InferContext& infer, ir::Arena& arena,
                                         std::string* why) {
  Builder b(arena);
  std::vector<const PrimExpr*> out;
  for (const char* flag : {"sorted", "return_index", "return_inverse", "return_counts"}) {
    bool dflt = std::string_view(flag) == "sorted";
    out.push_back(
        b.int_imm(DataType::Bool(), analysis::ops::attr_bool(infer, flag).value_or(dflt)));
  }
  bool ok = true;
  if (auto axis = analysis::ops::attr_int(infer, "axis", &ok)) out.push_back(b.i64(*axis));
  if (!ok) *why = "an axis that is not a literal";
  return out;
}
std::vector<const PrimExpr*> no_args(analysis::ops::InferContext&, ir::Arena&, std::string*) {
  return {};
}
// non_max_suppression's attributes, in the kernel's order.
std::vector<const PrimExpr*> classic_nms_args(analysis::ops::InferContext& infer, ir::Arena& arena,
                                              std::string*) {
  using namespace analysis::ops;
  Builder b(arena);
  auto flag = [&](const char* name, bool dflt) {
    return b.i64(attr_bool(infer, name).value_or(dflt));
  };
  return {b.i64(attr_int(infer, "max_output_size").value_or(-1)),
          b.float_imm(DataType::Float(64), attr_float(infer, "iou_threshold").value_or(0.5)),
          flag("force_suppress", false),
          b.i64(attr_int(infer, "top_k").value_or(-1)),
          b.i64(attr_int(infer, "coord_start").value_or(2)),
          b.i64(attr_int(infer, "score_index").value_or(1)),
          b.i64(attr_int(infer, "id_index").value_or(0)),
          flag("return_indices", true),
          flag("invalid_to_bottom", false),
          b.float_imm(DataType::Float(64), attr_float(infer, "soft_nms_sigma").value_or(0.0)),
          b.float_imm(DataType::Float(64), attr_float(infer, "score_threshold").value_or(0.0))};
}
// all_class_non_max_suppression's output_format as a flag: 0 "onnx", 1 "tensorflow".
std::vector<const PrimExpr*> nms_args(analysis::ops::InferContext& infer, ir::Arena& arena,
                                      std::string* why) {
  std::string format = analysis::ops::attr_string(infer, "output_format").value_or("onnx");
  if (format != "onnx" && format != "tensorflow") *why = "output_format \"" + format + "\"";
  return {Builder(arena).i64(format == "tensorflow")};
}
}  // namespace

const PackedRule* find_packed_rule(std::string_view op) {
  static const PackedRule rules[] = {
      {"relax.unique", "relax.run.unique", unique_args},
      {"relax.nonzero", "relax.run.nonzero", no_args},
      {"relax.dynamic_strided_slice", "relax.run.dynamic_strided_slice", no_args},
      {"relax.vision.all_class_non_max_suppression", "relax.run.all_class_non_max_suppression",
       nms_args},
      {"relax.vision.non_max_suppression", "relax.run.non_max_suppression", classic_nms_args},
  };
  for (const PackedRule& r : rules)
    if (r.op == op) return &r;
  return nullptr;
}

std::vector<std::string_view> packed_operators() {
  return {"relax.unique", "relax.nonzero", "relax.dynamic_strided_slice",
          "relax.vision.all_class_non_max_suppression", "relax.vision.non_max_suppression"};
}

}  // namespace legalize

std::vector<std::string_view> legalized_operators() {
  std::vector<std::string_view> names;
  for (const Rule& r : all_rules()) names.push_back(r.op);
  for (std::string_view op : packed_operators()) names.push_back(op);
  return names;
}

bool has_legalization(std::string_view op) {
  return find_rule(op) != nullptr || find_packed_rule(op) != nullptr;
}

namespace {

std::string text_name(std::string_view op) {
  return op.starts_with("relax.") ? "R." + std::string(op.substr(6)) : std::string(op);
}

// A fully known tensor: literal ShapeExpr and a dtype.
const ir::ShapeExpr* known_shape(const ir::StructInfo* s, DataType* dtype) {
  const auto* t = s ? ir::dyn_cast<ir::TensorSInfo>(s) : nullptr;
  if (!t || t->dtype.is_void() || t->dtype.lanes != 1) return nullptr;
  const auto* shape = t->shape ? ir::dyn_cast<ir::ShapeExpr>(t->shape) : nullptr;
  if (shape) *dtype = t->dtype;
  return shape;
}

bool has_tensor(const ir::TupleSInfo* tuple) {
  for (const ir::StructInfo* f : tuple->fields)
    if (ir::isa<ir::TensorSInfo>(f)) return true;
  return false;
}

class Pass {
 public:
  explicit Pass(const LegalizeInput& input) : input_(input) {
    out_ = std::make_unique<LoweredModule>();
    for (const ir::GlobalDef& g : input.module->globals) taken_.insert(g.gvar->name);
  }

  std::unique_ptr<LoweredModule> run() {
    const ir::IRModule& in = *input_.module;
    ir::IRModule& m = out_->module;
    m.top_level = in.top_level;
    m.name = in.name;
    m.check_well_formed = in.check_well_formed;
    m.s_tir = in.s_tir;
    m.attrs = in.attrs;
    m.global_infos = in.global_infos;
    m.vdevices = in.vdevices;
    m.has_metadata_def = in.has_metadata_def;
    arena_ = m.arena;
    for (const ir::GlobalDef& g : in.globals) {
      const ir::Function* f = input_.function ? input_.function(g) : nullptr;
      const analysis::FunctionInference* inf =
          f && input_.inference ? input_.inference(g) : nullptr;
      if (!f || !inf) {
        m.globals.push_back(g);
        continue;
      }
      inference_ = inf;
      for (auto& [var, s] : inf->var_sinfo) out_->var_sinfo[var] = s;
      ir::GlobalDef copy = g;
      copy.value = ir::cast<ir::Function>(rewrite(f));
      copy.arena = arena_;
      m.globals.push_back(copy);
    }
    // A lone function stays a lone function only when nothing was generated.
    if (!generated_.empty() && m.top_level != ir::TopLevel::Module)
      m.top_level = ir::TopLevel::Module;
    for (auto& [name, g] : generated_) m.globals.push_back(g);
    out_->generated = generated_.size();
    std::stable_sort(
        out_->left.begin(), out_->left.end(),
        [](const LeftCall& a, const LeftCall& b) { return a.span.begin < b.span.begin; });
    return std::move(out_);
  }

 private:
  template <class T, class... Args>
  T* make(Args&&... args) {
    return arena_->make<T>(std::forward<Args>(args)...);
  }

  const ir::StructInfo* sinfo_of(const ir::Expr* e) const {
    if (const auto* v = ir::dyn_cast<ir::Var>(e)) {
      auto it = inference_->var_sinfo.find(v);
      if (it != inference_->var_sinfo.end()) return it->second;
    }
    auto it = inference_->expr_sinfo.find(e);
    return it == inference_->expr_sinfo.end() ? nullptr : it->second;
  }

  // ------------------------------------------------------------------------ Relax rewrite
  const ir::Expr* rewrite(const ir::Expr* e) {
    using K = ir::ExprKind;
    switch (e->kind) {
      case K::Function: {
        const auto* f = ir::cast<ir::Function>(e);
        return make<ir::Function>(f->params, rewrite_seq(f->body), f->ret_struct_info, f->is_pure,
                                  f->is_private, f->attrs, f->span, f->name_span);
      }
      case K::SeqExpr: return rewrite_seq(ir::cast<ir::SeqExpr>(e));
      case K::If: {
        const auto* i = ir::cast<ir::If>(e);
        return make<ir::If>(rewrite(i->cond), rewrite_seq(i->true_branch),
                            rewrite_seq(i->false_branch), i->span);
      }
      case K::Tuple: {
        const auto* t = ir::cast<ir::Tuple>(e);
        std::vector<const ir::Expr*> fields;
        for (const ir::Expr* f : t->fields) fields.push_back(rewrite(f));
        return make<ir::Tuple>(std::move(fields), t->span);
      }
      case K::Call: {
        const auto* c = ir::cast<ir::Call>(e);
        if (const auto* op = ir::dyn_cast<ir::Op>(c->op)) {
          if (const ir::Expr* lowered = legalize_call(*c, op->name)) return lowered;
        }
        std::vector<const ir::Expr*> args;
        for (const ir::Expr* a : c->args) args.push_back(rewrite(a));
        return make<ir::Call>(c->op, std::move(args), c->sinfo_args, c->attrs, c->span);
      }
      default: return e;
    }
  }

  const ir::SeqExpr* rewrite_seq(const ir::SeqExpr* s) {
    std::vector<const ir::BindingBlock*> blocks;
    Prelude* outer = prelude_;
    for (const ir::BindingBlock* block : s->blocks) {
      auto* nb = make<ir::BindingBlock>();
      nb->is_dataflow = block->is_dataflow;
      nb->span = block->span;
      for (const ir::Binding* b : block->bindings) {
        Prelude prelude{block->is_dataflow, {}};
        prelude_ = &prelude;
        auto* n = make<ir::Binding>(*b);
        n->value = rewrite(b->value);
        nb->bindings.insert(nb->bindings.end(), prelude.bindings.begin(), prelude.bindings.end());
        nb->bindings.push_back(n);
      }
      blocks.push_back(nb);
    }
    prelude_ = outer;
    return make<ir::SeqExpr>(std::move(blocks), rewrite(s->body), s->span);
  }

  // Emits an operand's match_casts (shape_operands) before the binding being rewritten, once its
  // call has lowered (to call_tir or to a run-time kernel alike).
  void emit_casts(const std::vector<const ir::Binding*>& casts) {
    for (const ir::Binding* cast : casts) {
      if (!cast) continue;
      out_->var_sinfo[cast->var] = cast->match_cast;
      prelude_->bindings.push_back(cast);
    }
  }

  // The operands a rule sees, after the match_casts that give them the shapes it needs.
  struct Operands {
    std::vector<const ir::Expr*> exprs;
    std::vector<const ir::StructInfo*> sinfo;
    std::vector<const ir::Binding*> casts;  // emitted before the call when it lowers
    const ir::StructInfo* result = nullptr;
  };

  // Two run-time checks turn into match_casts of the operands, so the kernel never reads past a
  // buffer and a mismatch is a located RX5020 error at the call:
  // - an operand whose dtype and rank are known but not its extents (`R.Tensor(dtype="float32",
  //   ndim=4)`) is matched against fresh shape variables (`x_0, x_1, ...`), so its kernel takes
  //   the extents at run time like any symbolic shape;
  // - dimensions the operator's inference took as equal without a proof (`(n, k) @ (k2, m)`,
  //   warned RX4xxx when checked) become one: the operand holding the lone variable is matched
  //   against its shape with that variable replaced (`R.match_cast(y, R.Tensor((k, m)))`).
  Operands shape_operands(const ir::Call& call) {
    Operands o;
    std::vector<const ir::ShapeExpr*> shaped(call.args.size(), nullptr);
    for (size_t i = 0; i < call.args.size(); ++i) {
      o.exprs.push_back(call.args[i]);
      o.sinfo.push_back(sinfo_of(call.args[i]));
      o.casts.push_back(nullptr);
      if (const ir::Binding* cast = fresh_shape_cast(call, i, o.sinfo[i])) set_cast(o, i, cast);
    }
    o.result = sinfo_of(&call);
    for (int round = 0; round < 4 && prelude_ && o.result; ++round) {
      std::vector<std::pair<const PrimExpr*, const PrimExpr*>> assumed;
      const ir::StructInfo* result = reinfer(call, o.sinfo, &assumed);
      if (std::any_of(o.casts.begin(), o.casts.end(), [](auto* c) { return c; })) o.result = result;
      if (!unify_one(call, o, assumed)) break;
    }
    return o;
  }

  void set_cast(Operands& o, size_t i, const ir::Binding* cast) {
    o.casts[i] = cast;
    o.exprs[i] = cast->var;
    o.sinfo[i] = cast->match_cast;
  }

  // The shape of a tensor operand as the rule reads it, when it is a literal ShapeExpr.
  static const ir::ShapeExpr* literal_shape(const ir::StructInfo* s) {
    const auto* t = s ? ir::dyn_cast<ir::TensorSInfo>(s) : nullptr;
    return t && t->shape ? ir::dyn_cast<ir::ShapeExpr>(t->shape) : nullptr;
  }

  // Replaces one variable of an assumed pair in the operands' shapes; false when none can be.
  bool unify_one(const ir::Call& call, Operands& o,
                 const std::vector<std::pair<const PrimExpr*, const PrimExpr*>>& assumed) {
    analysis::arith::Analyzer analyzer(*arena_);
    for (auto [a, b] : assumed) {
      for (auto [from, to] : {std::pair{b, a}, std::pair{a, b}}) {
        const auto* v = ir::dyn_cast<ir::PrimVar>(from);
        if (!v || mentions(to, v)) continue;
        bool changed = false;
        for (size_t i = 0; i < o.exprs.size(); ++i) {
          const ir::ShapeExpr* shape = literal_shape(o.sinfo[i]);
          if (!shape || !ir::isa<ir::Var>(call.args[i]) ||
              std::find(shape->values.begin(), shape->values.end(), v) == shape->values.end())
            continue;
          std::vector<const PrimExpr*> dims;
          for (const PrimExpr* d : shape->values) dims.push_back(d == v ? to : d);
          const auto* t = ir::cast<ir::TensorSInfo>(o.sinfo[i]);
          set_cast(o, i, cast_binding(call, i, t, std::move(dims)));
          changed = true;
        }
        if (changed) return true;
      }
    }
    return false;
  }

  static bool mentions(const PrimExpr* e, const ir::PrimVar* v) {
    if (e == v) return true;
    if (const auto* bin = ir::dyn_cast<ir::PrimBinary>(e))
      return mentions(bin->a, v) || mentions(bin->b, v);
    if (const auto* c = ir::dyn_cast<ir::PrimCast>(e)) return mentions(c->value, v);
    return !ir::isa<ir::IntImm>(e) && !ir::isa<ir::PrimVar>(e);  // unknown forms: assume so
  }

  const ir::Binding* fresh_shape_cast(const ir::Call& call, size_t i, const ir::StructInfo* s) {
    const auto* t = s ? ir::dyn_cast<ir::TensorSInfo>(s) : nullptr;
    const auto* var = ir::dyn_cast<ir::Var>(call.args[i]);
    if (!prelude_ || !t || !var || t->ndim < 0 || t->dtype.is_void() || t->dtype.lanes != 1 ||
        (t->shape && ir::isa<ir::ShapeExpr>(t->shape)))
      return nullptr;
    std::vector<const PrimExpr*> dims;
    for (int d = 0; d < t->ndim; ++d)
      dims.push_back(
          make<ir::PrimVar>(fresh_name(var->name + "_" + std::to_string(d)), DataType::Int(64)));
    return cast_binding(call, i, t, std::move(dims));
  }

  // `name_cast = R.match_cast(arg, R.Tensor(dims, dtype))`, located at the call.
  const ir::Binding* cast_binding(const ir::Call& call, size_t i, const ir::TensorSInfo* t,
                                  std::vector<const PrimExpr*> dims) {
    const auto* var = ir::cast<ir::Var>(call.args[i]);
    const auto* shaped = make<ir::TensorSInfo>(make<ir::ShapeExpr>(std::move(dims), call.span),
                                               t->dtype, t->vdevice, t->ndim);
    auto* binding = make<ir::Binding>();
    binding->var =
        make<ir::Var>(prelude_->in_dataflow, fresh_name(var->name + "_cast"), shaped, call.span);
    binding->value = var;
    binding->match_cast = shaped;
    binding->span = call.span;
    return binding;
  }

  std::string fresh_name(const std::string& base) {
    std::string name = base;
    for (int n = 1; !made_names_.insert(name).second; ++n) name = base + std::to_string(n);
    return name;
  }

  // ------------------------------------------------------------------------ one call
  const ir::Expr* legalize_call(const ir::Call& call, const std::string& op) {
    const analysis::ops::OpDef* def = analysis::ops::find_op(op);
    if (!def || def->language) return nullptr;  // the executor's own
    if (const PackedRule* p = find_packed_rule(op)) return packed_call(call, op, *p);
    const Rule* rule = find_rule(op);
    if (!rule) return left(call, op, "it has no legalization to TIR yet");
    // Arguments: tensors become input buffers (a tuple of tensors, each field).
    std::vector<const ir::StructInfo*> arg_sinfo;
    struct Input {
      const ir::Expr* expr;  // what the call_tir passes
      DataType dtype;
      const ir::ShapeExpr* shape;
    };
    std::vector<Input> inputs;
    Operands operands = shape_operands(call);
    for (size_t i = 0; i < call.args.size(); ++i) {
      const ir::Expr* a = operands.exprs[i];
      const ir::StructInfo* s = operands.sinfo[i];
      if (!s) return left(call, op, "an argument's StructInfo is not known");
      arg_sinfo.push_back(s);
      DataType dt;
      if (const ir::ShapeExpr* shape = known_shape(s, &dt)) {
        inputs.push_back({a, dt, shape});
      } else if (ir::isa<ir::TensorSInfo>(s)) {
        return left(call, op, "the shape or dtype of an argument is not known statically");
      } else if (const auto* tuple = ir::dyn_cast<ir::TupleSInfo>(s); tuple && has_tensor(tuple)) {
        // A tuple of tensors (concat's operands): each field is an input buffer. A tuple of
        // PrimValues (`R.reshape(x, (8, 3))`, `R.tile(x, (2, 3))`) is an operand the rule reads
        // through the attribute readers, like a ShapeExpr.
        const auto* literal_tuple = ir::dyn_cast<ir::Tuple>(a);
        for (size_t i = 0; i < tuple->fields.size(); ++i) {
          const ir::ShapeExpr* shape = known_shape(tuple->fields[i], &dt);
          if (!shape)
            return left(call, op, "the shape or dtype of an argument is not known statically");
          const ir::Expr* field = literal_tuple ? literal_tuple->fields[i]
                                                : make<ir::TupleGetItem>(a, int64_t(i), a->span);
          inputs.push_back({field, dt, shape});
        }
      }
    }
    const ir::StructInfo* result = operands.result;
    std::vector<std::pair<DataType, const ir::ShapeExpr*>> outputs;
    if (const auto* tuple = result ? ir::dyn_cast<ir::TupleSInfo>(result) : nullptr) {
      for (const ir::StructInfo* f : tuple->fields) {
        DataType dt;
        const ir::ShapeExpr* shape = known_shape(f, &dt);
        if (!shape)
          return left(call, op, "the shape or dtype of the result is not known statically");
        outputs.push_back({dt, shape});
      }
    } else {
      DataType dt;
      const ir::ShapeExpr* shape = known_shape(result, &dt);
      if (!shape) return left(call, op, "the shape or dtype of the result is not known statically");
      outputs.push_back({dt, shape});
    }

    // The PrimFunc: its own shape variables, bound by the inputs' lone dimensions first, the
    // rest passed as tir_vars.
    Builder b(*arena_);
    std::vector<std::pair<const ir::PrimVar*, const ir::PrimVar*>> bound;  // relax -> tir
    std::vector<std::pair<const ir::PrimVar*, const ir::PrimVar*>> passed;
    auto find = [&](const ir::PrimVar* v) -> const ir::PrimVar* {
      for (auto& [r, t] : bound)
        if (r == v) return t;
      for (auto& [r, t] : passed)
        if (r == v) return t;
      return nullptr;
    };
    for (const Input& in : inputs)
      for (const PrimExpr* d : in.shape->values)
        if (const auto* v = ir::dyn_cast<ir::PrimVar>(d); v && !find(v))
          bound.push_back({v, b.var(v->name)});
    std::function<const PrimExpr*(const PrimExpr*)> to_tir =
        [&](const PrimExpr* e) -> const PrimExpr* {
      if (!e) return nullptr;
      if (const auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
        if (const ir::PrimVar* t = find(v)) return t;
        if (!v->dtype.is_int()) return nullptr;
        const ir::PrimVar* t = b.var(v->name);
        passed.push_back({v, t});
        return t;
      }
      if (const auto* i = ir::dyn_cast<ir::IntImm>(e)) return b.int_imm(i->dtype, i->value);
      if (const auto* f = ir::dyn_cast<ir::FloatImm>(e)) return b.float_imm(f->dtype, f->value);
      if (const auto* bin = ir::dyn_cast<ir::PrimBinary>(e)) {
        const PrimExpr* x = to_tir(bin->a);
        const PrimExpr* y = to_tir(bin->b);
        if (!x || !y) return nullptr;
        return make<ir::PrimBinary>(bin->kind, bin->dtype, x, y);
      }
      if (const auto* c = ir::dyn_cast<ir::PrimCast>(e)) {
        const PrimExpr* x = to_tir(c->value);
        return x ? b.cast(c->dtype, x) : nullptr;
      }
      return nullptr;
    };
    auto dims = [&](const ir::ShapeExpr* shape) -> std::optional<Exprs> {
      Exprs out;
      for (const PrimExpr* d : shape->values) {
        const PrimExpr* t = to_tir(d);
        if (!t) return std::nullopt;
        out.push_back(b.cast(DataType::Int(64), t));
      }
      return out;
    };
    static const char* const kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    std::vector<const ir::Buffer*> in_buffers, out_buffers;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto d = dims(inputs[i].shape);
      if (!d) return left(call, op, "a dimension of an argument cannot be passed to TIR");
      in_buffers.push_back(
          b.buffer(i < 8 ? kNames[i] : "A" + std::to_string(i), inputs[i].dtype, *d));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto d = dims(outputs[i].second);
      if (!d) return left(call, op, "a dimension of the result cannot be passed to TIR");
      std::string name =
          "T_" + std::string(rule->name) + (outputs.size() > 1 ? "_" + std::to_string(i) : "");
      out_buffers.push_back(b.buffer(name, outputs[i].first, *d));
    }

    DiagnosticSink sink;
    analysis::arith::Analyzer analyzer(*arena_);
    analysis::ops::InferContext infer{call, arg_sinfo, analyzer, sink, input_.module};
    RuleContext ctx{call, infer, b, in_buffers, out_buffers, {}, to_tir, {}, {}, {}};
    const ir::Stmt* body = rule->fn(ctx);
    if (!body && !ctx.packed.empty()) {
      // R.call_dps_packed(symbol, (inputs...), out_sinfo=result): a run-time kernel.
      std::vector<const ir::Expr*> fields;
      for (const Input& in : inputs) fields.push_back(in.expr);
      for (int64_t v : ctx.packed_scalars)
        fields.push_back(make<ir::PrimValue>(b.i64(v), call.span));
      std::vector<const ir::Expr*> args{make<ir::ExternFunc>(ctx.packed, nullptr, call.span),
                                        make<ir::Tuple>(std::move(fields), call.span)};
      ++out_->legalized_calls;
      emit_casts(operands.casts);
      return make<ir::Call>(make<ir::Op>("relax.call_dps_packed", call.op->span), std::move(args),
                            std::vector<const ir::StructInfo*>{result}, ir::Attrs{}, call.span);
    }
    if (!body) return left(call, op, ctx.why.empty() ? "this form of the call" : ctx.why);

    auto* root = make<ir::Block>("root");
    root->is_root = true;
    root->alloc_buffers = ctx.allocs;
    root->body = body;
    auto* pf = make<ir::PrimFunc>();
    for (const ir::Buffer* buf : in_buffers) add_buffer_param(*pf, buf);
    for (const ir::Buffer* buf : out_buffers) add_buffer_param(*pf, buf);
    for (auto& [r, t] : passed) pf->params.push_back({t, nullptr, {}});
    pf->is_private = true;
    // Its buffers are distinct memory: call_tir gives it fresh outputs (what TVM's legalized
    // operators say the same way; the code generator then knows no store changes an input).
    pf->attrs.entries.emplace_back("tir.noalias", ir::AttrValue(true));
    pf->body = root;
    std::string name = intern(*pf, std::string(rule->name));

    // R.call_tir(cls.name, (inputs...), out_sinfo=result, tir_vars=R.shape([...]))
    std::vector<const ir::Expr*> fields;
    for (const Input& in : inputs) fields.push_back(in.expr);
    std::vector<const ir::Expr*> args{make<ir::GlobalVar>(name, call.span),
                                      make<ir::Tuple>(std::move(fields), call.span)};
    if (!passed.empty()) {
      std::vector<const PrimExpr*> vars;
      for (auto& [r, t] : passed) vars.push_back(r);
      args.push_back(make<ir::ShapeExpr>(std::move(vars), call.span));
    }
    ++out_->legalized_calls;
    emit_casts(operands.casts);
    return make<ir::Call>(make<ir::Op>("relax.call_tir", call.op->span), std::move(args),
                          std::vector<const ir::StructInfo*>{result}, ir::Attrs{}, call.span);
  }

  // The call's StructInfo again, from operands given fresh shapes (its diagnostics were
  // reported when the module was checked).
  const ir::StructInfo* reinfer(
      const ir::Call& call, std::vector<const ir::StructInfo*> args,
      std::vector<std::pair<const PrimExpr*, const PrimExpr*>>* assumed_equal) {
    DiagnosticSink sink;
    analysis::arith::Analyzer analyzer(*arena_);
    analysis::ops::InferContext infer{call, std::move(args), analyzer, sink, input_.module};
    infer.assumed_equal = assumed_equal;
    return analysis::ops::infer_call(*ir::cast<ir::Op>(call.op), infer);
  }

  // A data-dependent operator: R.call_pure_packed(symbol, operands..., flags...,
  // sinfo_args=result) of a run-time kernel (backend/exec/data_dependent.cpp); its result's
  // extents are not known before it runs, so only the operands' StructInfo must be known.
  const ir::Expr* packed_call(const ir::Call& call, const std::string& op, const PackedRule& p) {
    std::vector<const ir::StructInfo*> arg_sinfo;
    for (const ir::Expr* a : call.args) {
      const ir::StructInfo* s = sinfo_of(a);
      if (!s) return left(call, op, "an argument's StructInfo is not known");
      arg_sinfo.push_back(s);
    }
    const ir::StructInfo* result = sinfo_of(&call);
    if (!result) return left(call, op, "the StructInfo of the result is not known");
    DiagnosticSink sink;
    analysis::arith::Analyzer analyzer(*arena_);
    analysis::ops::InferContext infer{call, arg_sinfo, analyzer, sink, input_.module};
    // Every operand (dynamic_strided_slice reads its bounds from tensors), then the attributes.
    std::vector<const ir::Expr*> args{
        make<ir::ExternFunc>(std::string(p.symbol), nullptr, call.span)};
    for (size_t i = 0; i < call.args.size(); ++i)
      if (ir::isa<ir::TensorSInfo>(arg_sinfo[i])) args.push_back(call.args[i]);
    std::string why;
    for (const PrimExpr* e : p.args(infer, *arena_, &why))
      args.push_back(make<ir::PrimValue>(e, call.span));
    if (!why.empty()) return left(call, op, why);
    ++out_->legalized_calls;
    return make<ir::Call>(make<ir::Op>("relax.call_pure_packed", call.op->span), std::move(args),
                          std::vector<const ir::StructInfo*>{result}, ir::Attrs{}, call.span);
  }

  const ir::Expr* left(const ir::Call& call, const std::string& op, std::string why) {
    out_->left.push_back({call.span, text_name(op), std::move(why)});
    return nullptr;
  }

  void add_buffer_param(ir::PrimFunc& pf, const ir::Buffer* buf) {
    const ir::PrimVar* handle = make<ir::PrimVar>("var_" + buf->name, DataType::Handle());
    pf.params.push_back({handle, buf, {}});
    pf.buffer_map.push_back({handle, buf});
  }

  // The name of a PrimFunc structurally equal to `pf` generated before, or a new name for it.
  std::string intern(ir::PrimFunc& pf, const std::string& base) {
    ir::IRModule probe;
    ir::GlobalDef g{make<ir::GlobalVar>("f"), static_cast<const ir::PrimFunc*>(&pf), arena_, {}};
    probe.globals.push_back(g);
    ir::DumpOptions options;
    options.var_names = false;
    std::string key = ir::dump_module(probe, options);
    auto it = by_structure_.find(key);
    if (it != by_structure_.end()) return it->second;
    std::string name = base;
    for (int n = 1; taken_.count(name); ++n) name = base + std::to_string(n);
    taken_.insert(name);
    by_structure_.emplace(key, name);
    generated_.emplace(
        name, ir::GlobalDef{
                  make<ir::GlobalVar>(name), static_cast<const ir::PrimFunc*>(&pf), arena_, {}});
    return name;
  }

  const LegalizeInput& input_;
  std::unique_ptr<LoweredModule> out_;
  std::shared_ptr<ir::Arena> arena_;
  const analysis::FunctionInference* inference_ = nullptr;
  // Bindings to emit before the binding being rewritten (fresh_shape_cast's match_casts).
  struct Prelude {
    bool in_dataflow = false;
    std::vector<const ir::Binding*> bindings;
  };
  Prelude* prelude_ = nullptr;
  std::set<std::string> made_names_;  // of the variables shape_operands introduced
  std::set<std::string> taken_;
  std::map<std::string, std::string> by_structure_;
  std::map<std::string, ir::GlobalDef> generated_;  // by name: deterministic order
};

}  // namespace

std::unique_ptr<LoweredModule> legalize_module(const LegalizeInput& input) {
  return Pass(input).run();
}

}  // namespace raxc::backend
