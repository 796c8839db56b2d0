#include "analysis/well_formed/function_checker.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/normalize/normal_form.h"
#include "analysis/well_formed/call_graph.h"
#include "frontend/ir/walks.h"

namespace raxc::analysis::wf {
namespace {

// Where a Relax variable stands at the point of the walk. Every binding site is declared by a
// pre-pass, so "not bound yet" and "never bound" can be told apart.
enum class VarState : uint8_t { Later, InScope, OutOfScope };

struct VarInfo {
  Span bound_at;
  VarState state = VarState::Later;
  int function_depth = 0;  // nesting depth of the function whose scope binds it
};

// A function under inspection, for the recursion criteria (WF-7, WF-8) and messages.
struct Frame {
  const ir::Function* function;
  const ir::Var* self;  // the variable a local function is bound to; null for the global
  std::string name;
  bool calls_self = false;
  Span self_call;  // the first call of itself (RX2024 points there)
};

// WF-20: what is wrong with a dtype written in an annotation, if anything. The spec lists
// int/uint of 1-64 bits and float16/32/64; bfloat16 and the fp8/fp6/fp4 formats, which TVM
// supports and real programs use, are accepted too.
std::optional<std::string> dtype_problem(ir::DataType d) {
  if (d.is_void()) return std::nullopt;
  if (d.lanes != 1) return "vector dtypes (lanes other than 1) are not allowed";
  switch (d.code) {
    case ir::DataType::Code::Int:
    case ir::DataType::Code::UInt:
      if (d.bits == 1 || d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64)
        return std::nullopt;
      return "integers have 1, 8, 16, 32 or 64 bits";
    case ir::DataType::Code::Float:
      if (d.bits == 16 || d.bits == 32 || d.bits == 64) return std::nullopt;
      return "floats have 16, 32 or 64 bits";
    case ir::DataType::Code::Handle:
      return "'handle' is not a Relax dtype (leave the dtype out when it is unknown)";
    default: return std::nullopt;
  }
}

bool is_scalar_number(ir::DataType d) {
  return d.lanes == 1 && d.code != ir::DataType::Code::Handle;
}

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// Where a signature or match_cast binds: a lone shape variable as a dimension or value, outside
// Callables (a Callable's parameters bind only inside it, see func_sinfo).
constexpr ir::ShapeVarPositions kBinding = ir::ShapeVarPositions::Lone;

// What an annotation under inspection belongs to, named in messages about it (the name points
// into the IR, which outlives the check).
struct Owner {
  enum Kind : uint8_t { Param, Variable, MatchCast, Return, SinfoArgs, ExternFunc } kind = Param;
  const std::string* name = nullptr;
};

class FunctionChecker {
 public:
  FunctionChecker(const ir::IRModule& module, const ir::GlobalDef& global, DiagnosticSink& diags)
      : module_(module), global_(global), diags_(diags), calls_(module) {}

  void run(const ir::Function* f) {
    declare_all(f);
    function(f, nullptr, global_.gvar->name);
  }

 private:
  // ------------------------------------------------------------------ reporting
  void report(DiagPayload what, Span at) { diags_.report(make_diagnostic(std::move(what), at)); }
  void report_var(DiagPayload what, Span at, const ir::Var* v) {
    Diagnostic d = make_diagnostic(std::move(what), at);
    auto it = vars_.find(v);
    if (it != vars_.end()) d.note(it->second.bound_at, quoted(v->name) + " is bound here");
    diags_.report(std::move(d));
  }

  static Span span_of(const ir::Var* v, Span fallback) {
    return v->span.empty() ? fallback : v->span;
  }
  static Span name_span_of(const ir::Function* f) {
    return f->name_span.empty() ? f->span : f->name_span;
  }
  // The name of global `name` in its definition, for notes about another function.
  Span global_name_span(const std::string& name) const {
    const ir::GlobalDef* g = find_global(module_, name);
    if (!g) return {};
    if (const ir::Function* f = g->function(); f && !f->name_span.empty()) return f->name_span;
    return g->gvar->span.empty() ? g->span : g->gvar->span;
  }
  // What a value being checked belongs to, for messages: the variable it is bound to, else the
  // function whose result it is.
  std::string value_owner() const {
    if (defining_) return "the value of " + quoted(defining_->name);
    return "the result of " + quoted(frames_.empty() ? global_.gvar->name : frames_.back().name);
  }

  // ------------------------------------------------------------------ pre-pass (WF-2)
  void declare(const ir::Var* v, Span at) {
    auto [it, fresh] = vars_.try_emplace(v, VarInfo{at});
    if (fresh) return;
    Diagnostic d = make_diagnostic(diag::VarBoundTwice{.var = v->name}, at);
    d.note(it->second.bound_at, quoted(v->name) + " is first bound here");
    diags_.report(std::move(d));
  }
  // Parameters before their function's body, a binding's variable after its value: RX2012's
  // "first bound here" is the binding site met first in that order.
  void declare_all(const ir::Function* f) {
    for (const ir::DefinedVar& d : ir::defined_vars(f))
      declare(d.var,
              d.binding ? span_of(d.var, d.binding->span) : span_of(d.var, d.function->span));
  }

  // ------------------------------------------------------------------ scopes
  void bind(const ir::Var* v) {
    VarInfo& info = vars_[v];
    info.state = VarState::InScope;
    info.function_depth = depth_;
    scope_.push_back(v);
  }
  void bind_sym(const ir::PrimVar* v) {
    if (sym_in_scope_.insert(v).second) sym_scope_.push_back(v);
  }
  void pop_scope(size_t mark, size_t sym_mark) {
    for (size_t i = mark; i < scope_.size(); ++i) vars_[scope_[i]].state = VarState::OutOfScope;
    scope_.resize(mark);
    for (size_t i = sym_mark; i < sym_scope_.size(); ++i) sym_in_scope_.erase(sym_scope_[i]);
    sym_scope_.resize(sym_mark);
  }
  // DataflowVars leave scope with their block (WF-1); ordinary Vars stay for the SeqExpr.
  void end_dataflow_block(size_t mark) {
    for (size_t i = mark; i < scope_.size(); ++i)
      if (scope_[i]->is_dataflow()) vars_[scope_[i]].state = VarState::OutOfScope;
  }

  // ------------------------------------------------------------------ functions
  void function(const ir::Function* f, const ir::Var* self, const std::string& name) {
    ++depth_;
    bool saved_dataflow = in_dataflow_;
    in_dataflow_ = false;
    frames_.push_back(Frame{f, self, name, false, Span{}});
    size_t mark = scope_.size(), sym_mark = sym_scope_.size();
    for (const ir::Var* p : f->params) {
      if (p->is_dataflow())
        report(diag::DataflowVarBoundOutsideBlock{.var = p->name}, span_of(p, f->span));
      bind(p);
    }
    signature(f, name);
    force_pure(f, name);
    seq(f->body);
    pop_scope(mark, sym_mark);
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    if (!f->ret_struct_info) require_return_annotation(frame);
    in_dataflow_ = saved_dataflow;
    --depth_;
  }

  // Shape variables of the signature (WF-4, WF-6): binding positions of all parameters bind
  // first, in any order; the return annotation can only use what the parameters bound.
  void signature(const ir::Function* f, const std::string& name) {
    std::vector<const ir::PrimVar*> bound;
    for (const ir::Var* p : f->params)
      if (p->annotation) ir::collect_shape_vars(p->annotation, bound, kBinding);
    for (const ir::PrimVar* v : bound) bind_sym(v);
    sym_diag_ = DiagId::RX2020;
    for (const ir::Var* p : f->params) {
      if (!p->annotation) continue;
      signature_param_ = p;
      annotation(p->annotation, {Owner::Param, &p->name});
    }
    signature_param_ = nullptr;
    sym_diag_ = DiagId::RX2019;
    signature_function_ = f;
    if (f->ret_struct_info) annotation(f->ret_struct_info, {Owner::Return, &name});
    signature_function_ = nullptr;
    sym_diag_ = DiagId::RX2018;
  }

  // WF-21.
  void force_pure(const ir::Function* f, const std::string& name) {
    const ir::AttrValue* a = f->attrs.find("relax.force_pure");
    const bool* on = a ? a->get_if<bool>() : nullptr;
    if (on && *on && !f->is_pure)
      report(diag::ForcePureOnImpureFunction{.function = name}, a->span);
  }

  // WF-8: a function that calls itself, directly or through other globals, must say what it
  // returns.
  void require_return_annotation(const Frame& frame) {
    Span at = name_span_of(frame.function);
    if (frame.calls_self) {
      Diagnostic d =
          make_diagnostic(diag::RecursionNeedsReturnAnnotation{.function = frame.name}, at);
      d.note(frame.self_call, quoted(frame.name) + " calls itself here");
      diags_.report(std::move(d));
      return;
    }
    if (frame.self) return;
    for (const auto& [callee, call_span] : global_callees_) {
      const ir::GlobalDef* g = find_global(module_, callee);
      if (!g || !g->function() || !calls_.reaches(callee, frame.name)) continue;
      Diagnostic d = make_diagnostic(
          diag::MutualRecursionNeedsReturnAnnotation{.function = frame.name, .callee = callee}, at);
      d.note(call_span, quoted(frame.name) + " calls " + quoted(callee) + " here");
      d.note(global_name_span(callee), quoted(callee) + " calls back into " + quoted(frame.name));
      diags_.report(std::move(d));
      return;
    }
  }

  // ------------------------------------------------------------------ bindings
  void seq(const ir::SeqExpr* s) {
    size_t mark = scope_.size(), sym_mark = sym_scope_.size();
    for (const ir::BindingBlock* block : s->blocks) {
      size_t block_mark = scope_.size();
      const ir::BindingBlock* saved_block = block_;
      block_ = block;
      for (const ir::Binding* b : block->bindings) binding(b, block->is_dataflow);
      block_ = saved_block;
      if (block->is_dataflow) end_dataflow_block(block_mark);
    }
    bool saved = in_dataflow_;
    in_dataflow_ = false;
    expr(s->body, s->span);
    in_dataflow_ = saved;
    pop_scope(mark, sym_mark);
  }

  void binding(const ir::Binding* b, bool dataflow) {
    bool saved = in_dataflow_;
    in_dataflow_ = dataflow;
    const ir::Var* v = b->var;
    if (v && v->is_dataflow() && !dataflow)
      report(diag::DataflowVarBoundOutsideBlock{.var = v->name}, span_of(v, b->span));
    auto* fn = ir::dyn_cast<ir::Function>(b->value);
    if (v && fn && !b->is_match_cast()) {
      bind(v);  // a local function may call itself
      function(fn, v, v->name);
    } else {
      defining_ = v;
      expr(b->value, b->span);
      defining_ = nullptr;
      if (b->is_match_cast()) match_cast(b->match_cast, v);
      if (v) bind(v);
    }
    // A match_cast's annotation equals its target (the frontend checks it): checked above.
    if (v && v->annotation && !b->is_match_cast())
      annotation(v->annotation, {Owner::Variable, &v->name});
    in_dataflow_ = saved;
  }

  void match_cast(const ir::StructInfo* target, const ir::Var* v) {
    std::vector<const ir::PrimVar*> bound;
    ir::collect_shape_vars(target, bound, kBinding);
    for (const ir::PrimVar* p : bound) bind_sym(p);
    annotation(target, {Owner::MatchCast, v ? &v->name : nullptr});
  }

  // ------------------------------------------------------------------ expressions
  void expr(const ir::Expr* e, Span at) {
    switch (e->kind) {
      case ir::ExprKind::Var:
      case ir::ExprKind::DataflowVar: return use(ir::cast<ir::Var>(e), at);
      case ir::ExprKind::GlobalVar: return global_ref(ir::cast<ir::GlobalVar>(e));
      case ir::ExprKind::Op: {  // WF-9: calls handle their callee without coming here
        // Named as the text writes it: relax.add is R.add.
        std::string op = ir::cast<ir::Op>(e)->name;
        if (op.rfind("relax.", 0) == 0) op = "R." + op.substr(6);
        return report(diag::OperatorUsedAsValue{.op = op}, e->span);
      }
      case ir::ExprKind::Tuple:
        for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) expr(f, e->span);
        return;
      case ir::ExprKind::TupleGetItem: return expr(ir::cast<ir::TupleGetItem>(e)->tuple, e->span);
      case ir::ExprKind::SeqExpr: return seq(ir::cast<ir::SeqExpr>(e));
      case ir::ExprKind::PrimValue: return prim_value(ir::cast<ir::PrimValue>(e));
      case ir::ExprKind::ShapeExpr:
        for (const ir::PrimExpr* v : ir::cast<ir::ShapeExpr>(e)->values) prim_uses(v);
        return;
      case ir::ExprKind::Function: return function(ir::cast<ir::Function>(e), nullptr, "<lambda>");
      case ir::ExprKind::If: return if_expr(ir::cast<ir::If>(e));
      case ir::ExprKind::ExternFunc: {
        auto* ext = ir::cast<ir::ExternFunc>(e);
        if (ext->struct_info)
          annotation(ext->struct_info, {Owner::ExternFunc, &ext->global_symbol});
        return;
      }
      case ir::ExprKind::Call: return call(ir::cast<ir::Call>(e));
      case ir::ExprKind::Error: return;  // reported by the lowering; uses nothing
      default:                           // Constant, StringImm, DataTypeImm
        return;
    }
  }

  void use(const ir::Var* v, Span at) {
    auto it = vars_.find(v);
    if (it == vars_.end()) {
      if (reported_.insert(v).second) report(diag::VarNeverBound{.var = v->name}, at);
      return;
    }
    const VarInfo& info = it->second;
    switch (info.state) {
      case VarState::InScope:
        // WF-11: closures do not capture DataflowVars.
        if (v->is_dataflow() && info.function_depth < depth_ && reported_.insert(v).second)
          report_var(diag::LocalFunctionCapturesDataflowVar{.function = frames_.back().name,
                                                            .var = v->name},
                     at, v);
        return;
      case VarState::Later:
        if (!reported_.insert(v).second) return;
        if (v == defining_) return report_var(diag::SelfReferentialBinding{.var = v->name}, at, v);
        return report_var(diag::VarUsedBeforeBound{.var = v->name}, at, v);
      case VarState::OutOfScope:
        if (!reported_.insert(v).second) return;
        if (v->is_dataflow())
          return report_var(diag::DataflowVarUsedOutsideBlock{.var = v->name}, at, v);
        return report_var(diag::VarUsedOutOfScope{.var = v->name}, at, v);
    }
  }

  void global_ref(const ir::GlobalVar* g) {
    if (find_global(module_, g->name)) return;
    if (reported_globals_.insert(g->name).second)
      report(diag::UnknownGlobal{.global = g->name}, g->span);
  }

  void if_expr(const ir::If* i) {
    if (in_dataflow_) {  // WF-7.3
      Diagnostic d = make_diagnostic(
          diag::IfBindingInDataflowBlock{.binding = defining_ ? defining_->name : std::string("?"),
                                         .function = frames_.back().name},
          i->span);
      if (block_ && !block_->span.empty()) d.note(block_->span, "the dataflow block starts here");
      diags_.report(std::move(d));
    }
    expr(i->cond, i->span);
    bool saved = in_dataflow_;
    in_dataflow_ = false;
    seq(i->true_branch);
    seq(i->false_branch);
    in_dataflow_ = saved;
  }

  // WF-18.
  void prim_value(const ir::PrimValue* p) {
    if (!is_scalar_number(p->value->dtype))
      report(diag::NonScalarPrimValue{.owner = value_owner(), .dtype = p->value->dtype.str()},
             p->span);
    prim_uses(p->value);
  }

  void call(const ir::Call* c) {
    if (auto* g = ir::dyn_cast<ir::GlobalVar>(c->op)) {
      global_ref(g);
      global_call(g, c);
    } else if (auto* v = ir::dyn_cast<ir::Var>(c->op)) {
      use(v, c->span);
      local_call(v, c);
    } else if (!ir::isa<ir::Op>(c->op)) {
      expr(c->op, c->span);
    }
    for (const ir::Expr* a : c->args) expr(a, c->span);
    const std::string* callee = ir::isa<ir::Op>(c->op) ? &ir::cast<ir::Op>(c->op)->name
                                : ir::isa<ir::GlobalVar>(c->op)
                                    ? &ir::cast<ir::GlobalVar>(c->op)->name
                                : ir::isa<ir::Var>(c->op) ? &ir::cast<ir::Var>(c->op)->name
                                                          : nullptr;
    for (const ir::StructInfo* s : c->sinfo_args) annotation(s, {Owner::SinfoArgs, callee});
  }

  // WF-7.1 / 7.2 for calls of globals; also feeds WF-8.
  void global_call(const ir::GlobalVar* g, const ir::Call* c) {
    const std::string& current = global_.gvar->name;
    if (g->name == current) {
      Frame& global = frames_.front();
      if (!global.calls_self) global.self_call = c->span;
      global.calls_self = true;
      if (in_dataflow_) {
        Diagnostic d = make_diagnostic(diag::RecursiveCallInDataflow{.callee = g->name}, c->span);
        d.note(name_span_of(global.function), quoted(g->name) + " is defined here");
        diags_.report(std::move(d));
      }
      return;
    }
    auto known = std::find_if(global_callees_.begin(), global_callees_.end(),
                              [&](const auto& entry) { return entry.first == g->name; });
    if (known == global_callees_.end()) global_callees_.emplace_back(g->name, c->span);
    if (!in_dataflow_) return;
    const ir::GlobalDef* def = find_global(module_, g->name);
    if (def && def->function() && calls_.reaches(g->name, current)) {
      Diagnostic d = make_diagnostic(
          diag::MutuallyRecursiveCallInDataflow{.callee = g->name, .caller = current}, c->span);
      d.note(global_name_span(g->name), quoted(g->name) + " calls back into " + quoted(current));
      diags_.report(std::move(d));
    }
  }

  // WF-7.1 / WF-8 for local functions calling themselves through their binding variable.
  void local_call(const ir::Var* v, const ir::Call* c) {
    for (Frame& frame : frames_) {
      if (frame.self != v) continue;
      if (!frame.calls_self) frame.self_call = c->span;
      frame.calls_self = true;
    }
    if (in_dataflow_ && frames_.back().self == v)
      report_var(diag::RecursiveCallInDataflow{.callee = v->name}, c->span, v);
  }

  // ------------------------------------------------------------------ StructInfo
  // An annotation written for `owner` ("parameter 'x'", "the return of 'f'", ...), named in the
  // messages about it.
  // Only a pointer to the name is kept: the text is built when a diagnostic needs it.
  void annotation(const ir::StructInfo* s, Owner owner) {
    Owner saved = std::exchange(annotation_owner_, owner);
    struct_info(s);
    annotation_owner_ = saved;
  }
  std::string owner_text() const {
    const Owner& o = annotation_owner_;
    std::string name = o.name ? quoted(*o.name) : std::string();
    switch (o.kind) {
      case Owner::Param: return "parameter " + name;
      case Owner::Variable: return "variable " + name;
      case Owner::MatchCast: return o.name ? "the match_cast to " + name : "a match_cast";
      case Owner::Return: return "the return of " + name;
      case Owner::SinfoArgs:
        return "the sinfo_args of the call to " + (o.name ? name : "a function") + " in " +
               value_owner();
      case Owner::ExternFunc: return "R.ExternFunc " + name;
    }
    return name;
  }

  void struct_info(const ir::StructInfo* s) {
    switch (s->kind) {
      case ir::SInfoKind::Tensor: return tensor_sinfo(ir::cast<ir::TensorSInfo>(s));
      case ir::SInfoKind::Shape: {
        auto* sh = ir::cast<ir::ShapeSInfo>(s);
        if (!sh->values) return;
        int n = static_cast<int>(sh->values->size());
        if (sh->ndim >= 0 && sh->ndim != n)  // WF-15
          report(diag::AnnotationNdimMismatch{.annotation_kind = "shape",
                                              .owner = owner_text(),
                                              .ndim = sh->ndim,
                                              .dimension_count = n},
                 s->span);
        for (const ir::PrimExpr* d : *sh->values) prim_uses(d);
        return;
      }
      case ir::SInfoKind::Prim: return prim_sinfo(ir::cast<ir::PrimSInfo>(s));
      case ir::SInfoKind::Tuple:
        for (const ir::StructInfo* f : ir::cast<ir::TupleSInfo>(s)->fields) struct_info(f);
        return;
      case ir::SInfoKind::Func: return func_sinfo(ir::cast<ir::FuncSInfo>(s));
      case ir::SInfoKind::Object: return;
    }
  }

  void tensor_sinfo(const ir::TensorSInfo* t) {
    if (t->shape) {
      if (auto* v = ir::dyn_cast<ir::Var>(t->shape)) {
        use(v, t->span);
      } else if (auto* shape = ir::dyn_cast<ir::ShapeExpr>(t->shape)) {
        int n = static_cast<int>(shape->values.size());
        if (t->ndim >= 0 && t->ndim != n)  // WF-10, WF-14
          report(diag::AnnotationNdimMismatch{.annotation_kind = "tensor",
                                              .owner = owner_text(),
                                              .ndim = t->ndim,
                                              .dimension_count = n},
                 t->span);
        for (const ir::PrimExpr* d : shape->values) prim_uses(d);
      } else {
        report(diag::InvalidTensorAnnotationShape{.owner = owner_text(),
                                                  .shape = describe_expr(t->shape)},
               t->shape->span);  // WF-14
      }
    }
    if (auto problem = dtype_problem(t->dtype))
      report(
          diag::UnsupportedAnnotationDtype{
              .dtype = t->dtype.str(), .owner = owner_text(), .reason = *problem},
          t->span);
    if (t->vdevice && std::find(module_.vdevices.begin(), module_.vdevices.end(), t->vdevice) ==
                          module_.vdevices.end())  // WF-24
      report(diag::VDeviceNotInGlobalInfo{.vdevice = t->vdevice->target_kind + ":" +
                                                     std::to_string(t->vdevice->dev_id),
                                          .owner = owner_text()},
             t->span);
  }

  void prim_sinfo(const ir::PrimSInfo* p) {
    ir::DataType d = p->dtype;
    bool number = d.code != ir::DataType::Code::Handle;
    if (!number)  // WF-19
      report(diag::InvalidPrimAnnotationDtype{.owner = owner_text(), .dtype = d.str()}, p->span);
    else if (auto problem = dtype_problem(d))  // WF-20
      report(
          diag::UnsupportedAnnotationDtype{
              .dtype = d.str(), .owner = owner_text(), .reason = *problem},
          p->span);
    if (!p->value) return;
    // WF-22. Literals take the annotation's dtype, so only symbolic values can disagree.
    bool literal = ir::isa<ir::IntImm>(p->value) || ir::isa<ir::FloatImm>(p->value);
    if (number && !literal && p->value->dtype != d)
      report(diag::PrimAnnotationDtypeMismatch{.owner = owner_text(),
                                               .annotated_dtype = d.str(),
                                               .value_dtype = p->value->dtype.str()},
             p->span);
    prim_uses(p->value);
  }

  // A Callable annotation is its own little signature: its parameters bind shape variables for
  // its return (WF-17 on the side).
  void func_sinfo(const ir::FuncSInfo* f) {
    if (f->params && !f->derive_func.empty())
      report(diag::CallableParamsAndDeriveFunc{.owner = owner_text()}, f->span);
    size_t sym_mark = sym_scope_.size();
    if (f->params) {
      std::vector<const ir::PrimVar*> bound;
      for (const ir::StructInfo* p : *f->params) ir::collect_shape_vars(p, bound, kBinding);
      for (const ir::PrimVar* v : bound) bind_sym(v);
      for (const ir::StructInfo* p : *f->params) struct_info(p);
    }
    if (f->ret) struct_info(f->ret);
    for (size_t i = sym_mark; i < sym_scope_.size(); ++i) sym_in_scope_.erase(sym_scope_[i]);
    sym_scope_.resize(sym_mark);
  }

  // ------------------------------------------------------------------ shape variables
  void prim_uses(const ir::PrimExpr* e) {
    if (!e) return;
    if (auto* v = ir::dyn_cast<ir::PrimVar>(e)) {
      if (!sym_in_scope_.count(v) && !let_bound_.count(v)) report_sym(v, e->span);
      return;
    }
    if (auto* b = ir::dyn_cast<ir::PrimBinary>(e)) {
      prim_uses(b->a);
      prim_uses(b->b);
      return;
    }
    switch (e->kind) {
      case ir::PrimKind::Not: return prim_uses(ir::cast<ir::PrimNot>(e)->a);
      case ir::PrimKind::Select: {
        auto* s = ir::cast<ir::PrimSelect>(e);
        prim_uses(s->condition);
        prim_uses(s->true_value);
        prim_uses(s->false_value);
        return;
      }
      case ir::PrimKind::Cast: return prim_uses(ir::cast<ir::PrimCast>(e)->value);
      case ir::PrimKind::Call:
        for (const ir::PrimExpr* a : ir::cast<ir::PrimCall>(e)->args) prim_uses(a);
        return;
      case ir::PrimKind::BufferLoad:
        for (const ir::PrimExpr* i : ir::cast<ir::BufferLoad>(e)->indices) prim_uses(i);
        return;
      case ir::PrimKind::Let: {
        auto* l = ir::cast<ir::PrimLet>(e);
        prim_uses(l->value);
        bool fresh = let_bound_.insert(l->var).second;
        prim_uses(l->body);
        if (fresh) let_bound_.erase(l->var);
        return;
      }
      default: return;
    }
  }

  void report_sym(const ir::PrimVar* v, Span at) {
    if (!sym_reported_.insert(v).second) return;
    const std::string& fn = frames_.empty() ? global_.gvar->name : frames_.back().name;
    if (sym_diag_ == DiagId::RX2019) {
      Diagnostic d = make_diagnostic(
          diag::ReturnAnnotationUnboundSymbolicVar{.function = fn, .var = v->name}, at);
      if (const ir::Function* f = signature_function_)
        d.note(params_span(f), f->params.empty()
                                   ? quoted(fn) + " has no parameters"
                                   : "no parameter of " + quoted(fn) + " binds " + quoted(v->name));
      diags_.report(std::move(d));
      return;
    }
    if (sym_diag_ == DiagId::RX2020) {
      Diagnostic d =
          make_diagnostic(diag::SymbolicVarNotBindable{.var = v->name, .function = fn}, at);
      if (const ir::Var* p = signature_param_)
        d.note(p->annotation && !p->annotation->span.empty() ? p->annotation->span : p->span,
               "parameter " + quoted(p->name) + " uses " + quoted(v->name) +
                   " only inside an expression");
      diags_.report(std::move(d));
      return;
    }
    report(diag::SymbolicVarUsedBeforeBound{.var = v->name}, at);
  }

  // The parameter list of `f` (its name when it has none).
  static Span params_span(const ir::Function* f) {
    if (f->params.empty()) return name_span_of(f);
    Span first = f->params.front()->span;
    const ir::Var* last = f->params.back();
    uint32_t end = last->span.end;
    if (last->annotation) end = std::max(end, last->annotation->span.end);
    if (first.empty() && end == 0) return name_span_of(f);
    return {first.begin, std::max(first.begin, end)};
  }

  const ir::IRModule& module_;
  const ir::GlobalDef& global_;
  DiagnosticSink& diags_;
  CallGraph calls_;

  std::unordered_map<const ir::Var*, VarInfo> vars_;
  std::vector<const ir::Var*> scope_;
  std::unordered_set<const ir::Var*> reported_;
  std::unordered_set<std::string> reported_globals_;
  const ir::Var* defining_ = nullptr;  // the variable whose (non-function) value is visited

  std::unordered_set<const ir::PrimVar*> sym_in_scope_;
  std::vector<const ir::PrimVar*> sym_scope_;
  std::unordered_set<const ir::PrimVar*> let_bound_;
  std::unordered_set<const ir::PrimVar*> sym_reported_;
  DiagId sym_diag_ = DiagId::RX2018;          // what an unbound shape variable means where we are
  const ir::Var* signature_param_ = nullptr;  // RX2020: the parameter being checked
  const ir::Function* signature_function_ = nullptr;  // RX2019: the function being checked
  Owner annotation_owner_;                   // what the annotation being checked belongs to
  const ir::BindingBlock* block_ = nullptr;  // the block of the binding being checked

  std::vector<Frame> frames_;
  // Globals called by the function, first call site each, in first-call order (RX2025).
  std::vector<std::pair<std::string, Span>> global_callees_;
  int depth_ = 0;
  bool in_dataflow_ = false;
};

}  // namespace

void check_function(const ir::IRModule& module, const ir::GlobalDef& global, const ir::Function* f,
                    DiagnosticSink& diags) {
  FunctionChecker(module, global, diags).run(f);
}

}  // namespace raxc::analysis::wf
