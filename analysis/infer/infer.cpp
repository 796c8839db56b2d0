// StructInfo inference for one Relax function: the seed spec's Derivation Rules 1-16, purity,
// match_cast, binding annotations with the override semantics of text-format.md §5.1 / §10.2,
// return annotations, vdevice conflicts. See infer.h.
//
// Decisions where the spec leaves room (and why):
// * An annotation on a *call* replaces the inferred StructInfo (TVM's parser does this); on any
//   other right-hand side it is only checked. Only-possibly-compatible annotations warn (RX4000)
//   unless nothing was inferred at all (an opaque packed call gives R.Object: the annotation is
//   then the only information, which is the intended use). Elsewhere an R.Object where a
//   specific kind is expected is an error (the spec's check_compatibility step 2).
// * Branching on a value whose StructInfo is R.Object is only possibly wrong: a warning, not an
//   error (indexing one is an error: rule 12.2).
// * A callee's own shape variables (those its parameters bind) are renamed to the arguments'
//   dimensions; a local closure's captured variables are not its own. Unmapped own variables
//   are erased from the result, even when the callee is the current function (recursion).
#include "analysis/infer/infer.h"

#include <memory>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "analysis/normalize/normalize.h"
#include "analysis/ops/registry.h"
#include "analysis/struct_info/relations.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::analysis {

using ir::SInfoKind;
using ir::StructInfo;

namespace {

// ------------------------------------------------------------------------------- helpers

std::string text_of(const StructInfo* s) { return printer::print_struct_info(s); }

// The names of the shape variables `s` mentions, for a fix that casts to `s` (it declares those
// the function does not name yet).
std::vector<std::string> shape_var_names(const StructInfo* s) {
  std::vector<std::string> names;
  for (const ir::PrimVar* v : ir::shape_vars(s)) names.push_back(v->name);
  return names;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

bool is_force_pure(const ir::Function* f) {
  const ir::AttrValue* v = f->attrs.find("relax.force_pure");
  if (v == nullptr) return false;
  if (const bool* b = v->get_if<bool>()) return *b;
  if (const int64_t* i = v->get_if<int64_t>()) return *i != 0;
  return false;
}

// Does `s` hold the unknown StructInfo of an error (itself or a tuple field)? An operator or
// function applied to it has an unknown result and reports nothing: the error was reported.
bool has_unknown(const StructInfo* s) {
  if (ir::is_unknown(s)) return true;
  if (const auto* t = ir::dyn_cast<ir::TupleSInfo>(s))
    for (const StructInfo* f : t->fields)
      if (has_unknown(f)) return true;
  return false;
}

bool has_unknown(const std::vector<const StructInfo*>& args) {
  for (const StructInfo* a : args)
    if (has_unknown(a)) return true;
  return false;
}

bool is_void(const StructInfo* s) {
  const auto* t = ir::dyn_cast<ir::TupleSInfo>(s);
  return t != nullptr && t->fields.empty();
}

bool mentions_vdevice(const std::string& detail) {
  return detail.rfind("vdevice ", 0) == 0 || detail.find(": vdevice ") != std::string::npos;
}

const ir::VDevice* vdevice_of(const StructInfo* s) {
  const auto* t = ir::dyn_cast<ir::TensorSInfo>(s);
  return t ? t->vdevice : nullptr;
}

// A Var node is shared by all its uses, so its span is the declaration's: a use is located at
// the enclosing construct instead.
Span use_span(const ir::Expr* e, Span enclosing) {
  return e == nullptr || ir::isa<ir::Var>(e) ? enclosing : e->span;
}

// Where the value of `b` is written. A variable keeps no span of its uses, but as a binding's
// whole value it ends the statement.
Span value_span_of(const ir::Binding& b) {
  const auto* var = ir::dyn_cast<ir::Var>(b.value);
  if (!var) return use_span(b.value, b.span);
  uint32_t size = uint32_t(var->name.size());
  return b.span.end >= b.span.begin + size ? Span{b.span.end - size, b.span.end} : b.span;
}

// The name a callee is known by in messages.
std::string callee_name(const ir::Expr* op) {
  if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(op)) return gv->name;
  if (const auto* v = ir::dyn_cast<ir::Var>(op)) return v->name;
  if (const auto* o = ir::dyn_cast<ir::Op>(op)) {
    std::string name = o->name;
    if (name.rfind("relax.", 0) == 0) name = "R." + name.substr(6);
    return name;
  }
  if (const auto* e = ir::dyn_cast<ir::ExternFunc>(op)) return e->global_symbol;
  return "callee";
}

std::string expr_name(const ir::Expr* e) {
  if (const auto* v = ir::dyn_cast<ir::Var>(e)) return v->name;
  if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(e)) return gv->name;
  return "expression";
}

const StructInfo* default_extern_sinfo(ir::Arena& arena) {
  // R.ExternFunc("f"): opaque, impure, results derived from sinfo_args (default_derive).
  return arena.make<ir::FuncSInfo>(std::nullopt, arena.make<ir::ObjectSInfo>(), false);
}

// ------------------------------------------------------------------------------- operators

const StructInfo* infer_op_call(const ir::Op& op, ops::InferContext& ctx) {
  return ops::infer_call(op, ctx);
}
bool op_is_pure(const std::string& name) {
  const ops::OpDef* def = ops::find_op(name);
  return def == nullptr || def->purity == ops::Purity::Pure;
}

// ------------------------------------------------------------------------------- call graph

// Which global Relax functions are recursive (call themselves directly or through other
// globals). Any reference to a global counts as an edge: a function passed as a value may be
// called. Built once per top-level inference, and only when an unannotated global is called.
class RecursionInfo {
 public:
  explicit RecursionInfo(const ir::IRModule& module) : module_(module) {}

  bool is_recursive(const std::string& name) {
    auto known = recursive_.find(name);
    if (known != recursive_.end()) return known->second;
    // Depth-first search from `name`'s callees: recursive when it reaches `name` again.
    std::unordered_set<std::string> seen;
    std::vector<std::string> stack = callees(name);
    bool found = false;
    while (!stack.empty() && !found) {
      std::string next = std::move(stack.back());
      stack.pop_back();
      if (next == name) found = true;
      if (found || !seen.insert(next).second) continue;
      for (const std::string& c : callees(next)) stack.push_back(c);
    }
    recursive_[name] = found;
    return found;
  }

 private:
  const std::vector<std::string>& callees(const std::string& name) {
    auto it = callees_.find(name);
    if (it != callees_.end()) return it->second;
    std::vector<std::string>& out = callees_[name];
    const ir::GlobalDef* def = module_.find(name);
    if (def != nullptr && def->function() != nullptr) out = ir::global_names_in(def->function());
    return out;
  }

  const ir::IRModule& module_;
  std::unordered_map<std::string, std::vector<std::string>> callees_;
  std::unordered_map<std::string, bool> recursive_;
};

// ------------------------------------------------------------------------------- vdevices

// "Propagating Virtual Device Information", backward direction: the device each variable gets
// from its uses. Only variables (parameters and bindings) carry StructInfo of their own here, so
// the spec's updates of a value's StructInfo are recorded on the variables the value names; the
// second forward run (infer_function) gives them the device and propagates it forward.
using DeviceHints = std::unordered_map<const ir::Var*, const ir::VDevice*>;

class BackwardVDevices {
 public:
  BackwardVDevices(const FunctionInference& first, DeviceHints& hints)
      : first_(first), hints_(hints) {}

  void function(const ir::Function& f) {
    // Rule 1: a return annotation with a device gives the body's result that device.
    if (const ir::VDevice* v = vdevice_of(f.ret_struct_info)) hint_expr(f.body, v);
    expr(f.body);
  }

 private:
  const ir::VDevice* device_of(const ir::Var* v) const {
    auto hinted = hints_.find(v);
    if (hinted != hints_.end()) return hinted->second;
    auto it = first_.var_sinfo.find(v);
    return it == first_.var_sinfo.end() ? nullptr : vdevice_of(it->second);
  }

  // update_struct_info on a variable: only a tensor without a device of its own takes one (a
  // different device is a conflict the forward checks report).
  void hint(const ir::Var* v, const ir::VDevice* device) {
    auto it = first_.var_sinfo.find(v);
    const auto* t =
        it == first_.var_sinfo.end() ? nullptr : ir::dyn_cast<ir::TensorSInfo>(it->second);
    if (t == nullptr || t->vdevice != nullptr) return;
    hints_.emplace(v, device);
  }

  void hint_expr(const ir::Expr* e, const ir::VDevice* device) {
    if (e == nullptr) return;
    if (const auto* v = ir::dyn_cast<ir::Var>(e)) return hint(v, device);
    if (const auto* seq = ir::dyn_cast<ir::SeqExpr>(e)) return hint_expr(seq->body, device);
    if (const auto* tuple = ir::dyn_cast<ir::Tuple>(e))  // call_tir's argument tuple
      for (const ir::Expr* f : tuple->fields) hint_expr(f, device);
  }

  // Rule 2: a call whose result is on `device` gets its arguments there. R.to_vdevice and
  // R.hint_on_device are where data changes device: their argument keeps its own.
  void call(const ir::Call& c, const ir::VDevice* device) {
    if (const auto* op = ir::dyn_cast<ir::Op>(c.op))
      if (op->name == "relax.to_vdevice" || op->name == "relax.hint_on_device") return;
    for (const ir::Expr* a : c.args) hint_expr(a, device);
  }

  // Rule 3: bindings last to first, so a device reaches a chain of bindings in one pass.
  void expr(const ir::Expr* e) {
    if (e == nullptr) return;
    if (const auto* seq = ir::dyn_cast<ir::SeqExpr>(e)) {
      for (auto b = seq->blocks.rbegin(); b != seq->blocks.rend(); ++b) {
        if (*b == nullptr) continue;
        for (auto it = (*b)->bindings.rbegin(); it != (*b)->bindings.rend(); ++it)
          if (*it != nullptr && (*it)->var != nullptr) binding(**it);
      }
      return;
    }
    if (const auto* i = ir::dyn_cast<ir::If>(e)) {
      expr(i->true_branch);
      expr(i->false_branch);
    } else if (const auto* f = ir::dyn_cast<ir::Function>(e)) {
      function(*f);
    }
  }

  void binding(const ir::Binding& b) {
    const ir::VDevice* device = device_of(b.var);
    if (device != nullptr) {
      if (const auto* c = ir::dyn_cast<ir::Call>(b.value)) {
        call(*c, device);
      } else if (const auto* i = ir::dyn_cast<ir::If>(b.value)) {
        hint_expr(i->true_branch, device);
        hint_expr(i->false_branch, device);
      } else if (!ir::isa<ir::Function>(b.value)) {
        hint_expr(b.value, device);
      }
    }
    expr(b.value);
  }

  const FunctionInference& first_;
  DeviceHints& hints_;
};

// Shared by an inference and the inferences of the unannotated callees it triggers.
struct CalleeSignatures {
  explicit CalleeSignatures(const ir::IRModule& module) : recursion(module) {}
  RecursionInfo recursion;
  std::unordered_map<std::string, const StructInfo*> inferred;  // unannotated, non-recursive
};

// ------------------------------------------------------------------------------- inferer

// What a call site knows about its callee beyond the StructInfo: names and spans of the
// parameters (for messages and notes) and which shape variables are the callee's own.
struct CalleeInfo {
  std::string name;
  std::vector<std::pair<std::string, Span>> params;
  std::function<bool(const ir::PrimVar*)> is_own;
};

struct LocalFunction {
  const ir::Function* fn;
  std::shared_ptr<const std::unordered_set<const ir::PrimVar*>> captured;
};

class Inferer {
 public:
  Inferer(const ir::IRModule& module, const GlobalSignatures& globals, arith::Analyzer& analyzer,
          DiagnosticSink& diags, std::shared_ptr<CalleeSignatures> callees = nullptr,
          const DeviceHints* device_hints = nullptr)
      : device_hints_(device_hints),
        module_(module),
        globals_(globals),
        an_(analyzer),
        diags_(diags),
        callees_(callees ? std::move(callees) : std::make_shared<CalleeSignatures>(module)) {}

  FunctionInference run(const ir::Function* f, const std::string& name) {
    out_.signature = infer_function_expr(f, name);
    out_.expr_sinfo[f] = out_.signature;
    return std::move(out_);
  }

  const StructInfo* signature_for_callers(const ir::GlobalVar& gv) { return global_signature(gv); }

 private:
  // ---------------------------------------------------------------- scopes (Γ and Σ)
  struct Mark {
    size_t vars, shapes;
  };
  Mark mark() const { return {var_log_.size(), shape_log_.size()}; }
  void restore(Mark m) {
    for (size_t i = m.vars; i < var_log_.size(); ++i) var_scope_.erase(var_log_[i]);
    for (size_t i = m.shapes; i < shape_log_.size(); ++i) shape_scope_.erase(shape_log_[i]);
    var_log_.resize(m.vars);
    shape_log_.resize(m.shapes);
  }
  void bind_var(const ir::Var* v, const StructInfo* s) {
    s = with_hinted_vdevice(v, s);
    out_.var_sinfo[v] = s;
    if (var_scope_.insert(v).second) var_log_.push_back(v);
  }
  void bind_new_shape_vars(const StructInfo* s) {
    for (const ir::PrimVar* v : ir::shape_vars(s))
      if (shape_scope_.insert(v).second) shape_log_.push_back(v);
  }
  Scope scope() const {
    Scope s;
    s.has_var = [this](const ir::Var* v) { return var_scope_.count(v) != 0; };
    s.has_shape_var = [this](const ir::PrimVar* v) { return shape_scope_.count(v) != 0; };
    return s;
  }
  const StructInfo* erase(const StructInfo* s) { return erase_to_well_defined(an_, s, scope()); }
  // check_compatibility seeing the variables bound so far (a shape variable's values, step 6.6).
  CompatResult compat(const StructInfo* base, const StructInfo* derived) {
    return check_compatibility(an_, base, derived, [this](const ir::Var* v) -> const StructInfo* {
      auto it = out_.var_sinfo.find(v);
      return it == out_.var_sinfo.end() ? nullptr : it->second;
    });
  }

  ir::Arena& arena() { return an_.arena(); }
  const StructInfo* object() {
    if (object_ == nullptr) object_ = arena().make<ir::ObjectSInfo>();
    return object_;
  }
  void report(Diagnostic d) { diags_.report(std::move(d)); }

  // The device the backward pass found for `v` (see backward_vdevices), for a tensor that has
  // none of its own.
  const StructInfo* with_hinted_vdevice(const ir::Var* v, const StructInfo* s) {
    if (device_hints_ == nullptr) return s;
    auto it = device_hints_->find(v);
    const auto* t = ir::dyn_cast<ir::TensorSInfo>(s);
    if (it == device_hints_->end() || t == nullptr || t->vdevice != nullptr || t->dist) return s;
    return arena().make<ir::TensorSInfo>(t->shape, t->dtype, it->second, t->ndim, t->span);
  }

  // ---------------------------------------------------------------- expressions

  const StructInfo* infer(const ir::Expr* e) {
    if (e == nullptr) return object();
    const StructInfo* s = infer_uncached(e);
    if (s == nullptr) s = object();
    out_.expr_sinfo[e] = s;
    return s;
  }

  const StructInfo* infer_uncached(const ir::Expr* e) {
    switch (e->kind) {
      case ir::ExprKind::Constant: return infer_constant(*ir::cast<ir::Constant>(e));
      case ir::ExprKind::Var:
      case ir::ExprKind::DataflowVar: return lookup(ir::cast<ir::Var>(e));
      case ir::ExprKind::GlobalVar: return global_signature(*ir::cast<ir::GlobalVar>(e));
      case ir::ExprKind::Tuple: {
        std::vector<const StructInfo*> fields;
        for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) fields.push_back(infer(f));
        return arena().make<ir::TupleSInfo>(std::move(fields));
      }
      case ir::ExprKind::SeqExpr: return infer_seq(ir::cast<ir::SeqExpr>(e));
      case ir::ExprKind::PrimValue: {
        const ir::PrimExpr* v = ir::cast<ir::PrimValue>(e)->value;
        if (v == nullptr) return object();
        return arena().make<ir::PrimSInfo>(v->dtype, v);
      }
      case ir::ExprKind::StringImm:
      case ir::ExprKind::DataTypeImm:
      case ir::ExprKind::Op: return object();
      case ir::ExprKind::Function: {
        const auto* f = ir::cast<ir::Function>(e);
        return infer_function_expr(f, "function");
      }
      case ir::ExprKind::If: return infer_if(*ir::cast<ir::If>(e));
      case ir::ExprKind::ExternFunc: {
        const auto* f = ir::cast<ir::ExternFunc>(e);
        return f->struct_info ? f->struct_info : default_extern_sinfo(arena());
      }
      case ir::ExprKind::Call: return infer_call(*ir::cast<ir::Call>(e));
      case ir::ExprKind::ShapeExpr: {
        const auto* s = ir::cast<ir::ShapeExpr>(e);
        return arena().make<ir::ShapeSInfo>(s->values, int(s->values.size()));
      }
      case ir::ExprKind::TupleGetItem: return infer_get_item(*ir::cast<ir::TupleGetItem>(e));
      case ir::ExprKind::Error: return ir::unknown_sinfo();
    }
    return object();
  }

  // Rules 1 and 15.2/15.6: a global function without a return annotation returns, for its
  // callers, erase_to_well_defined of its inferred body, unless it is recursive (then only its
  // annotations count, and callers see R.Object). Everything else comes from `globals_`.
  const StructInfo* global_signature(const ir::GlobalVar& gv) {
    const StructInfo* declared = globals_ ? globals_(&gv) : nullptr;
    const ir::GlobalDef* def = module_.find(gv.name);
    const ir::Function* f = def ? def->function() : nullptr;
    if (f == nullptr || f->ret_struct_info != nullptr) return declared ? declared : object();
    if (callees_->recursion.is_recursive(gv.name)) return declared ? declared : object();
    auto it = callees_->inferred.find(gv.name);
    if (it != callees_->inferred.end()) return it->second;
    // Its own diagnostics belong to its own analysis.
    DiagnosticSink ignored;
    Inferer callee(module_, globals_, an_, ignored, callees_);
    const StructInfo* s = callee.run(normalize(f, arena()), gv.name).signature;
    callees_->inferred.emplace(gv.name, s);
    return s;
  }

  const StructInfo* lookup(const ir::Var* v) {
    auto it = out_.var_sinfo.find(v);
    if (it != out_.var_sinfo.end()) return it->second;
    return v->annotation ? v->annotation : object();  // unbound: a well-formedness error
  }

  // Rule 3. Metadata constants carry no data here: their StructInfo is unknown.
  const StructInfo* infer_constant(const ir::Constant& c) {
    if (c.dtensor) return c.dtensor;  // R.dist.const: the DTensor it is given
    if (c.metadata) {
      report(make_diagnostic(diag::MetadataConstantUnknownSInfo{}, c.span));
      return arena().make<ir::TensorSInfo>(nullptr, ir::DataType::Void(), nullptr, -1);
    }
    std::vector<const ir::PrimExpr*> dims;
    for (int64_t d : c.shape) dims.push_back(an_.make_int(d));
    int ndim = int(dims.size());
    const auto* shape = arena().make<ir::ShapeExpr>(std::move(dims), c.span);
    return arena().make<ir::TensorSInfo>(shape, c.dtype, nullptr, ndim);
  }

  // Rule 12.
  const StructInfo* infer_get_item(const ir::TupleGetItem& g) {
    const StructInfo* t = infer(g.tuple);
    if (ir::is_unknown(t)) return t;
    if (const auto* tuple = ir::dyn_cast<ir::TupleSInfo>(t)) {
      if (g.index >= 0 && size_t(g.index) < tuple->fields.size()) return tuple->fields[g.index];
      report(make_diagnostic(
          diag::TupleIndexOutOfRange{
              .index = g.index, .tuple = expr_name(g.tuple), .sinfo = text_of(t)},
          g.span));
      return object();
    }
    // Rule 12.2: an error for any StructInfo but a tuple's, R.Object included (a value that may
    // be a tuple is indexed after an R.match_cast).
    report(make_diagnostic(
        diag::IndexedValueNotTuple{.value = expr_name(g.tuple), .sinfo = text_of(t)}, g.span));
    return object();
  }

  // Rule 9, and the condition must be a bool scalar.
  const StructInfo* infer_if(const ir::If& node) {
    check_condition(use_span(node.cond, node.span), infer(node.cond));
    const StructInfo* t = infer(node.true_branch);
    const StructInfo* f = infer(node.false_branch);
    return unify(an_, t, f);
  }

  void check_condition(Span at, const StructInfo* s) {
    if (ir::is_unknown(s)) return;
    bool bad = false;
    if (const auto* p = ir::dyn_cast<ir::PrimSInfo>(s)) {
      bad = !p->dtype.is_bool();
    } else if (const auto* t = ir::dyn_cast<ir::TensorSInfo>(s)) {
      // Unknown dtype or rank is accepted, as TVM does; a known wrong one is not.
      bad = (!t->dtype.is_void() && !t->dtype.is_bool()) || t->ndim > 0;
    } else if (s->kind == SInfoKind::Object) {
      report(make_diagnostic(diag::ConditionMaybeNotBoolScalar{.sinfo = text_of(s)}, at));
    } else {
      bad = true;
    }
    if (bad) report(make_diagnostic(diag::ConditionNotBoolScalar{.sinfo = text_of(s)}, at));
  }

  // ---------------------------------------------------------------- calls (rule 14)

  const StructInfo* infer_call(const ir::Call& call) {
    if (const auto* op = ir::dyn_cast<ir::Op>(call.op)) return infer_op(call, *op);
    const StructInfo* callee = infer(call.op);
    std::vector<const StructInfo*> args;
    for (const ir::Expr* a : call.args) args.push_back(infer(a));
    if (ir::is_unknown(callee) || has_unknown(args)) return ir::unknown_sinfo();
    CalleeInfo info = describe_callee(call.op);
    const auto* f = ir::dyn_cast<ir::FuncSInfo>(callee);
    if (f == nullptr) {
      report(make_diagnostic(diag::NotCallable{.callee = info.name, .sinfo = text_of(callee)},
                             use_span(call.op, call.span)));
      return object();
    }
    if (!f->purity) check_purity(call, info.name);
    if (f->is_opaque()) return derive_opaque(call, *f);
    if (f->params->size() != args.size()) {
      report(make_diagnostic(
          diag::WrongArgumentCount{
              .callee = info.name, .expected = f->params->size(), .given = args.size()},
          call.span));
    }
    arith::VarMap mapping = own_mapping(*f, args, info);
    for (size_t i = 0; i < args.size() && i < f->params->size(); ++i)
      check_argument(call, i, substitute(an_, (*f->params)[i], mapping), args[i], info);
    return erase(substitute(an_, f->ret, mapping));
  }

  const StructInfo* infer_op(const ir::Call& call, const ir::Op& op) {
    std::vector<const StructInfo*> args;
    for (const ir::Expr* a : call.args) args.push_back(infer(a));
    if (has_unknown(args)) return ir::unknown_sinfo();
    if (!op_is_pure(op.name)) check_purity(call, callee_name(&op));
    ops::InferContext ctx{call, std::move(args), an_, diags_, &module_};
    const StructInfo* s = infer_op_call(op, ctx);
    return s ? s : object();
  }

  // default_derive: the call's sinfo_args; otherwise the callee's declared result.
  const StructInfo* derive_opaque(const ir::Call& call, const ir::FuncSInfo& f) {
    if (call.sinfo_args.size() == 1) return call.sinfo_args[0];
    if (call.sinfo_args.size() > 1) return arena().make<ir::TupleSInfo>(call.sinfo_args);
    return f.ret ? erase(f.ret) : object();
  }

  // get_shape_var_mapping over all parameters, restricted to the callee's own variables.
  arith::VarMap own_mapping(const ir::FuncSInfo& f, const std::vector<const StructInfo*>& args,
                            const CalleeInfo& info) {
    arith::VarMap all;
    for (size_t i = 0; i < args.size() && i < f.params->size(); ++i)
      get_shape_var_mapping((*f.params)[i], args[i], all);
    arith::VarMap own;
    for (const auto& [var, value] : all)
      if (info.is_own(var)) own.emplace(var, value);
    // An own variable the arguments did not determine means nothing at the call site, even
    // when the callee is the current function: rename it to a fresh variable, which erasure
    // then removes.
    for (const ir::PrimVar* v : ir::shape_vars(&f))
      if (info.is_own(v) && own.count(v) == 0)
        own.emplace(v, arena().make<ir::PrimVar>(v->name, v->dtype, v->span));
    return own;
  }

  void check_argument(const ir::Call& call, size_t i, const StructInfo* param,
                      const StructInfo* arg, const CalleeInfo& info) {
    CompatResult r = compat(param, arg);
    if (r.result == Compat::Compatible) return;
    std::string param_name = i < info.params.size() ? info.params[i].first : std::to_string(i);
    Span param_span = i < info.params.size() ? info.params[i].second : param->span;
    Span at = i < call.args.size() ? use_span(call.args[i], call.span) : call.span;
    Diagnostic d;
    if (r.result == Compat::Incompatible && mentions_vdevice(r.detail)) {
      d = make_diagnostic(
          diag::ConflictingVirtualDevices{
              .what = "argument " + std::to_string(i) + " of the call to " + quoted(info.name),
              .reason = r.detail},
          at);
    } else {
      // RX3001 and RX4001 state the same facts; only the verdict differs.
      auto mismatch = [&]<class Entry>(std::type_identity<Entry>) {
        return make_diagnostic(Entry{.index = i,
                                     .callee = info.name,
                                     .argument = text_of(arg),
                                     .parameter = param_name,
                                     .parameter_sinfo = text_of(param),
                                     .reason = r.detail},
                               at);
      };
      d = r.result == Compat::Incompatible
              ? mismatch(std::type_identity<diag::ArgumentIncompatibleWithParameter>{})
              : mismatch(std::type_identity<diag::ArgumentOnlyPossiblyCompatible>{});
      // The repair: check the argument against the parameter first (for an R.Object argument,
      // that is what R.match_cast is for).
      if (r.result == Compat::Possibly || arg->kind == SInfoKind::Object) {
        if (const auto* var = i < call.args.size() ? ir::dyn_cast<ir::Var>(call.args[i]) : nullptr)
          d.fixes.push_back({.kind = DiagFix::Kind::MatchCastArgument,
                             .target = call.span,
                             .statement = call.span,
                             .argument = int(i),
                             .name = var->name,
                             .sinfo = text_of(param),
                             .shape_vars = shape_var_names(param)});
      }
    }
    if (!param_span.empty()) d.note(param_span, "parameter '" + param_name + "'");
    report(std::move(d));
  }

  void check_purity(const ir::Call& call, const std::string& name) {
    if (in_dataflow_) {
      report(make_diagnostic(diag::ImpureCallInDataflow{.callee = name}, call.span));
    } else if (!fn_stack_.empty() && fn_stack_.back().check_purity) {
      Diagnostic d = make_diagnostic(
          diag::ImpureCallInPureFunction{.callee = name, .function = fn_stack_.back().name},
          call.span);
      report(std::move(d));
    }
  }

  CalleeInfo describe_callee(const ir::Expr* op) {
    CalleeInfo info;
    info.name = callee_name(op);
    if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(op)) {
      // Every shape variable in a global's signature belongs to it (globals capture nothing).
      info.is_own = [](const ir::PrimVar*) { return true; };
      const ir::GlobalDef* def = module_.find(gv->name);
      if (def == nullptr) return info;
      if (const ir::Function* f = def->function()) {
        for (const ir::Var* p : f->params) info.params.emplace_back(p->name, p->span);
        warn_missing_return(*gv, *f);
      } else if (const ir::PrimFunc* pf = def->prim_func()) {
        for (const auto& p : pf->params) info.params.emplace_back(p.var->name, p.span);
      }
      return info;
    }
    if (const auto* v = ir::dyn_cast<ir::Var>(op)) {
      auto it = local_functions_.find(v);
      if (it != local_functions_.end()) {
        for (const ir::Var* p : it->second.fn->params) info.params.emplace_back(p->name, p->span);
        auto captured = it->second.captured;
        info.is_own = [captured](const ir::PrimVar* pv) { return captured->count(pv) == 0; };
        return info;
      }
    }
    // A function value of unknown origin: variables already in scope are the caller's.
    auto snapshot = std::make_shared<std::unordered_set<const ir::PrimVar*>>(shape_scope_);
    info.is_own = [snapshot](const ir::PrimVar* pv) { return snapshot->count(pv) == 0; };
    return info;
  }

  // Only a recursive function needs a return annotation (rule 15.2): other callers see its
  // inferred result.
  void warn_missing_return(const ir::GlobalVar& gv, const ir::Function& f) {
    if (f.ret_struct_info != nullptr || !callees_->recursion.is_recursive(gv.name)) return;
    // Its own recursive calls: the definition itself is already rejected (RX2024).
    if (!fn_stack_.empty() && fn_stack_.front().name == gv.name) return;
    if (!warned_missing_return_.insert(gv.name).second) return;
    Diagnostic d = make_diagnostic(diag::MissingReturnAnnotation{.function = gv.name}, gv.span);
    if (!f.name_span.empty()) d.note(f.name_span, "'" + gv.name + "' is defined here");
    report(std::move(d));
  }

  // ---------------------------------------------------------------- SeqExpr and bindings

  // Rule 10.
  const StructInfo* infer_seq(const ir::SeqExpr* seq) {
    Mark m = mark();
    for (const ir::BindingBlock* block : seq->blocks)
      if (block != nullptr) infer_block(*block);
    const StructInfo* body = infer(seq->body);
    restore(m);
    const StructInfo* s = erase(body);
    out_.expr_sinfo[seq] = s;
    return s;
  }

  void infer_block(const ir::BindingBlock& block) {
    bool saved = in_dataflow_;
    in_dataflow_ = block.is_dataflow;
    for (const ir::Binding* b : block.bindings)
      if (b != nullptr && b->var != nullptr) infer_binding(*b);
    in_dataflow_ = saved;
    if (!block.is_dataflow) return;
    for (const ir::Binding* b : block.bindings)
      if (b != nullptr && b->var != nullptr && b->var->is_dataflow()) var_scope_.erase(b->var);
  }

  // Rule 11.
  void infer_binding(const ir::Binding& b) {
    if (b.is_match_cast()) return infer_match_cast(b);
    if (const auto* fn = ir::dyn_cast<ir::Function>(b.value)) return infer_local_function(b, *fn);
    const ir::Var* v = b.var;
    const auto* constant = ir::dyn_cast<ir::Constant>(b.value);
    if (constant && constant->metadata && v->annotation) {
      // A metadata constant takes the StructInfo of the binding it initialises (text §3.6).
      out_.expr_sinfo[b.value] = v->annotation;
      return bind_var(v, v->annotation);
    }
    const StructInfo* value = infer(b.value);
    check_void_statement(b, value);
    bind_var(v, v->annotation ? apply_annotation(b, value) : value);
  }

  // WF-14 where only inference knows it: the shape variable of a tensor annotation
  // (`R.Tensor(s, "float32")`) must hold an R.Shape, of the annotation's ndim when both are
  // known (the well-formedness pass checks annotated variables' spelling, not what an
  // unannotated one holds). False when it reported.
  bool check_shape_fields(const StructInfo* s, const std::string& owner) {
    if (const auto* tuple = ir::dyn_cast<ir::TupleSInfo>(s)) {
      bool ok = true;
      for (const StructInfo* f : tuple->fields) ok = check_shape_fields(f, owner) && ok;
      return ok;
    }
    const auto* t = ir::dyn_cast<ir::TensorSInfo>(s);
    const auto* var = t && t->shape ? ir::dyn_cast<ir::Var>(t->shape) : nullptr;
    if (var == nullptr) return true;
    const StructInfo* held = var->annotation;
    if (held == nullptr)
      if (auto it = out_.var_sinfo.find(var); it != out_.var_sinfo.end()) held = it->second;
    if (held == nullptr || ir::is_unknown(held)) return true;
    if (const auto* shape = ir::dyn_cast<ir::ShapeSInfo>(held)) {
      if (t->ndim < 0 || shape->ndim < 0 || t->ndim == shape->ndim) return true;
      report(make_diagnostic(diag::AnnotationNdimMismatch{.annotation_kind = "tensor",
                                                          .owner = owner,
                                                          .ndim = t->ndim,
                                                          .dimension_count = shape->ndim},
                             t->span));
      return false;
    }
    report(make_diagnostic(
        diag::InvalidTensorAnnotationShape{
            .owner = owner,
            .shape = quoted(var->name) + ", whose StructInfo is '" + text_of(held) + "'"},
        t->span));
    return false;
  }

  // The override semantics of text-format.md §5.1: an annotation replaces the StructInfo of a
  // call, and is only checked against anything else.
  const StructInfo* apply_annotation(const ir::Binding& b, const StructInfo* value) {
    const StructInfo* annotation = b.var->annotation;
    // An ill-formed annotation makes the binding invalid: its uses are unknown (as for RX3000).
    if (!check_shape_fields(annotation, quoted(b.var->name))) return ir::unknown_sinfo();
    // A value that could not be analysed takes its annotation: the user's intent.
    if (ir::is_unknown(value)) return annotation;
    bool is_call = ir::isa<ir::Call>(b.value);
    // A call that gives R.Object (an opaque packed call, a function returning R.Object): the
    // annotation is the only information, which is the intended use (§5.1's override).
    if (is_call && value->kind == SInfoKind::Object) return with_vdevice_of(annotation, value);
    CompatResult r = compat(annotation, value);
    if (r.result == Compat::Incompatible) {
      report_annotation_conflict(b, value, r);
      // The binding is invalid (as clang marks a declaration): neither its annotation nor its
      // value can be trusted, so its uses are unknown and report nothing more.
      return ir::unknown_sinfo();
    }
    if (r.result == Compat::Possibly) {
      // Either the annotation is a subtype of the value's StructInfo (R.Tensor((4,)) written
      // for an R.Tensor(ndim=1)), or the two only overlap ((n, 10) written for (8, 10)): say
      // which, since "more specific" is wrong for the second.
      bool narrower = compat(value, annotation).result == Compat::Compatible;
      Diagnostic d = make_diagnostic(
          diag::AnnotationOnlyPossiblyCompatible{
              .annotation = text_of(annotation),
              .binding = b.var->name,
              .relation = narrower ? "is more specific than" : "differs from",
              .inferred = text_of(value),
              .reason = r.detail},
          use_span(b.value, b.span));
      add_cast_fixes(d, b, annotation, value);
      note_annotation(d, annotation);
      report(std::move(d));
    }
    if (!is_call) return value;
    return with_vdevice_of(annotation, value);
  }

  // The repairs of an annotation the value may not have: check the value against it at run
  // time (preferred), or say what is known instead. Both rewrite text, so only where the text
  // has the binding.
  void add_cast_fixes(Diagnostic& d, const ir::Binding& b, const StructInfo* annotation,
                      const StructInfo* value) {
    if (b.var->span.empty() || annotation->span.empty()) return;
    d.fixes.push_back({.kind = DiagFix::Kind::MatchCastBinding,
                       .target = b.var->span,
                       .statement = b.span,
                       .value = value_span_of(b),
                       .name = b.var->name,
                       .sinfo = text_of(annotation),
                       .shape_vars = shape_var_names(annotation)});
    d.fixes.push_back({.kind = DiagFix::Kind::ReplaceAnnotation,
                       .target = annotation->span,
                       .name = b.var->name,
                       .sinfo = text_of(value),
                       .preferred = false});
  }

  void report_annotation_conflict(const ir::Binding& b, const StructInfo* value,
                                  const CompatResult& r) {
    Diagnostic d =
        mentions_vdevice(r.detail)
            ? make_diagnostic(
                  diag::ConflictingVirtualDevices{.what = quoted(b.var->name), .reason = r.detail},
                  use_span(b.value, b.span))
            : make_diagnostic(
                  diag::AnnotationIncompatibleWithValue{.binding = b.var->name,
                                                        .annotation = text_of(b.var->annotation),
                                                        .inferred = text_of(value),
                                                        .reason = r.detail},
                  use_span(b.value, b.span));
    // An R.Object value is what R.match_cast is for.
    if (value->kind == SInfoKind::Object) add_cast_fixes(d, b, b.var->annotation, value);
    note_annotation(d, b.var->annotation);
    report(std::move(d));
  }

  static void note_annotation(Diagnostic& d, const StructInfo* annotation) {
    if (!annotation->span.empty()) d.note(annotation->span, "annotated here");
  }

  // update_struct_info of the vdevice section: an annotation without a device takes the
  // value's device.
  const StructInfo* with_vdevice_of(const StructInfo* annotation, const StructInfo* value) {
    const auto* t = ir::dyn_cast<ir::TensorSInfo>(annotation);
    const ir::VDevice* device = vdevice_of(value);
    if (t == nullptr || t->vdevice != nullptr || device == nullptr || t->dist) return annotation;
    return arena().make<ir::TensorSInfo>(t->shape, t->dtype, device, t->ndim, t->span);
  }

  // `R.add(x, x)` as a statement: the result is bound to `_` and must be void (§5.1). Calls to
  // functions are checked by the lowering from their declarations; operators only here.
  void check_void_statement(const ir::Binding& b, const StructInfo* value) {
    if (b.var->name != "_" || b.var->annotation != nullptr) return;
    const auto* call = ir::dyn_cast<ir::Call>(b.value);
    if (call == nullptr || !ir::isa<ir::Op>(call->op)) return;
    if (value->kind == SInfoKind::Object || is_void(value)) return;
    report(make_diagnostic(
        diag::CallResultMustBeBound{.callee = callee_name(call->op), .sinfo = text_of(value)},
        b.span));
  }

  // Rule 11.3.
  void infer_match_cast(const ir::Binding& b) {
    const StructInfo* value = infer(b.value);
    const StructInfo* target = b.match_cast;
    // A cast always fails only when neither side is a subtype of the other (rule 11.3.3): a
    // cast from an Object (a supertype) is what the cast is for.
    CompatResult r = compat(target, value);
    bind_new_shape_vars(target);
    if (r.result == Compat::Incompatible && compat(value, target).result == Compat::Incompatible) {
      report(make_diagnostic(
          diag::MatchCastNeverSucceeds{
              .target = text_of(target), .value = text_of(value), .reason = r.detail},
          use_span(b.value, b.span)));
    }
    // An annotation that differs from the target is rejected by the lowering (RX1142).
    bind_var(b.var, target);
  }

  // Rule 11.2.1: a local function may call itself through its variable.
  void infer_local_function(const ir::Binding& b, const ir::Function& fn) {
    const ir::Var* v = b.var;
    auto captured = std::make_shared<std::unordered_set<const ir::PrimVar*>>(shape_scope_);
    local_functions_[v] = LocalFunction{&fn, captured};
    bind_var(v, v->annotation ? v->annotation : declared_signature(fn));
    const StructInfo* s = infer_function_expr(&fn, v->name);
    out_.expr_sinfo[&fn] = s;
    if (v->annotation == nullptr) return bind_var(v, s);
    CompatResult r = compat(v->annotation, s);
    if (r.result == Compat::Incompatible) report_annotation_conflict(b, s, r);
  }

  const StructInfo* declared_signature(const ir::Function& fn) {
    std::vector<const StructInfo*> params;
    for (const ir::Var* p : fn.params) params.push_back(p->annotation ? p->annotation : object());
    const StructInfo* ret = fn.ret_struct_info ? fn.ret_struct_info : object();
    return arena().make<ir::FuncSInfo>(std::move(params), ret, fn.is_pure);
  }

  // ---------------------------------------------------------------- functions (rule 15)

  const StructInfo* infer_function_expr(const ir::Function* f, const std::string& name) {
    Mark m = mark();
    std::vector<const StructInfo*> params;
    for (const ir::Var* p : f->params) {
      const StructInfo* s = p->annotation ? p->annotation : object();
      bind_new_shape_vars(s);
      bind_var(p, s);
      params.push_back(s);
    }
    fn_stack_.push_back({name, f->is_pure && !is_force_pure(f)});
    bool saved_dataflow = in_dataflow_;
    in_dataflow_ = false;
    const StructInfo* body = infer(f->body);
    in_dataflow_ = saved_dataflow;
    fn_stack_.pop_back();
    if (f->ret_struct_info != nullptr) check_return(*f, name, body);
    restore(m);
    const StructInfo* ret = f->ret_struct_info ? f->ret_struct_info : body;
    const StructInfo* sig = arena().make<ir::FuncSInfo>(std::move(params), ret, f->is_pure);
    return f->ret_struct_info ? sig : erase(sig);
  }

  // Where `return e` is: e's own span, or for a variable the end of the body, which the
  // return statement closes.
  static Span return_span(const ir::SeqExpr& body) {
    const auto* var = ir::dyn_cast<ir::Var>(body.body);
    if (var == nullptr) return body.body ? body.body->span : body.span;
    uint32_t end = body.span.end;
    uint32_t size = uint32_t(var->name.size());
    return Span{end >= size + body.span.begin ? end - size : body.span.begin, end};
  }

  void check_return(const ir::Function& f, const std::string& name, const StructInfo* body) {
    CompatResult r = compat(f.ret_struct_info, body);
    if (r.result == Compat::Compatible) return;
    if (f.body == nullptr) return;
    Span at = return_span(*f.body);
    // Lowered code (relax.force_pure) is produced by TVM's passes, which trust the return
    // annotation without checking it (TVM keeps it whenever the body is not a subtype).
    bool trusted = r.result == Compat::Incompatible && is_force_pure(&f);
    if (r.result == Compat::Incompatible && !trusted && mentions_vdevice(r.detail)) {
      Diagnostic d =
          make_diagnostic(diag::ConflictingVirtualDevices{.what = "the result of " + quoted(name),
                                                          .reason = r.detail},
                          at);
      note_annotation(d, f.ret_struct_info);
      return report(std::move(d));
    }
    std::string annotation = text_of(f.ret_struct_info);
    // RX4008, RX3004 and RX4002 state the same facts; only the verdict differs.
    auto mismatch = [&]<class Entry>(std::type_identity<Entry>) {
      return make_diagnostic(Entry{.function = name,
                                   .body = text_of(body),
                                   .annotation = annotation,
                                   .reason = r.detail},
                             at);
    };
    Diagnostic d;
    if (trusted) {
      d = mismatch(std::type_identity<diag::LoweredBodyIncompatibleWithReturn>{});
    } else if (r.result == Compat::Incompatible) {
      d = mismatch(std::type_identity<diag::BodyIncompatibleWithReturn>{});
    } else {
      d = mismatch(std::type_identity<diag::BodyOnlyPossiblyCompatible>{});
    }
    // The repair: check the returned variable against the annotation before returning it (for
    // an R.Object, that is what R.match_cast is for).
    const auto* var = ir::dyn_cast<ir::Var>(f.body->body);
    if (var && !trusted && (r.result == Compat::Possibly || body->kind == SInfoKind::Object))
      d.fixes.push_back({.kind = DiagFix::Kind::MatchCastReturn,
                         .target = at,
                         .statement = at,
                         .name = var->name,
                         .sinfo = annotation,
                         .shape_vars = shape_var_names(f.ret_struct_info)});
    if (!f.ret_struct_info->span.empty()) d.note(f.ret_struct_info->span, "return annotation");
    report(std::move(d));
  }

  struct FnContext {
    std::string name;
    bool check_purity;
  };

  const DeviceHints* device_hints_;
  const ir::IRModule& module_;
  const GlobalSignatures& globals_;
  arith::Analyzer& an_;
  DiagnosticSink& diags_;
  FunctionInference out_;
  std::shared_ptr<CalleeSignatures> callees_;

  std::unordered_set<const ir::Var*> var_scope_;
  std::vector<const ir::Var*> var_log_;
  std::unordered_set<const ir::PrimVar*> shape_scope_;
  std::vector<const ir::PrimVar*> shape_log_;
  std::unordered_map<const ir::Var*, LocalFunction> local_functions_;
  std::unordered_set<std::string> warned_missing_return_;
  std::vector<FnContext> fn_stack_;
  bool in_dataflow_ = false;
  const StructInfo* object_ = nullptr;
};

// ------------------------------------------------------------------------------- signatures

// Rule 16: buffers are tensors of their buffer's shape, other parameters scalars.
const StructInfo* prim_func_signature(const ir::PrimFunc& pf, ir::Arena& arena) {
  std::vector<const StructInfo*> params;
  for (const ir::PrimFuncParam& p : pf.params) {
    const ir::Buffer* buffer = p.buffer;
    for (const auto& [var, b] : pf.buffer_map)
      if (var == p.var) buffer = b;
    if (buffer != nullptr) {
      const auto* shape = arena.make<ir::ShapeExpr>(buffer->shape, buffer->span);
      params.push_back(arena.make<ir::TensorSInfo>(shape, buffer->dtype, nullptr,
                                                   int(buffer->shape.size()), p.span));
    } else {
      params.push_back(arena.make<ir::PrimSInfo>(p.var->dtype, nullptr, p.span));
    }
  }
  const StructInfo* ret =
      pf.ret_type && !pf.ret_type->is_void()
          ? static_cast<const StructInfo*>(arena.make<ir::PrimSInfo>(*pf.ret_type, nullptr))
          : arena.make<ir::TupleSInfo>(std::vector<const StructInfo*>{});
  return arena.make<ir::FuncSInfo>(std::move(params), ret, false);
}

const StructInfo* function_signature(const ir::Function& f, ir::Arena& arena) {
  std::vector<const StructInfo*> params;
  for (const ir::Var* p : f.params)
    params.push_back(p->annotation ? p->annotation : arena.make<ir::ObjectSInfo>(p->span));
  // A missing return annotation declares R.Object for callers (text-format.md §3.3).
  const StructInfo* ret = f.ret_struct_info ? f.ret_struct_info : arena.make<ir::ObjectSInfo>();
  return arena.make<ir::FuncSInfo>(std::move(params), ret, f.is_pure);
}

}  // namespace

const ir::StructInfo* signature_of(const ir::GlobalDef& global, arith::Analyzer& analyzer) {
  ir::Arena& arena = analyzer.arena();
  if (const ir::Function* f = global.function()) return function_signature(*f, arena);
  if (const ir::PrimFunc* pf = global.prim_func()) return prim_func_signature(*pf, arena);
  if (const ir::ExternFunc* e = global.extern_func())
    return e->struct_info ? e->struct_info : default_extern_sinfo(arena);
  return arena.make<ir::ObjectSInfo>();
}

FunctionInference infer_function(const ir::IRModule& module, const ir::Function* f,
                                 const GlobalSignatures& globals, arith::Analyzer& analyzer,
                                 DiagnosticSink& diags, std::string_view given_name) {
  std::string name = given_name.empty() ? "function" : std::string(given_name);
  if (given_name.empty()) {
    for (const ir::GlobalDef& g : module.globals) {
      const ir::Function* def = g.function();
      // normalize() may have copied the function: the name span still identifies it.
      if (def == f || (def != nullptr && !f->name_span.empty() && def->name_span == f->name_span))
        name = g.gvar->name;
    }
  }
  if (module.vdevices.empty()) {  // the vdevice step is omitted (spec)
    Inferer inferer(module, globals, analyzer, diags);
    return inferer.run(f, name);
  }
  // Forward, backward, forward again with the devices found (spec "Propagating Virtual Device
  // Information"); the diagnostics are those of the last forward run.
  DiagnosticSink first_diags;
  Inferer first(module, globals, analyzer, first_diags);
  FunctionInference result = first.run(f, name);
  DeviceHints hints;
  BackwardVDevices(result, hints).function(*f);
  if (hints.empty()) {
    for (Diagnostic& d : first_diags.take()) diags.report(std::move(d));
    return result;
  }
  Inferer second(module, globals, analyzer, diags, nullptr, &hints);
  return second.run(f, name);
}

const ir::StructInfo* caller_signature(const ir::IRModule& module, const ir::GlobalDef& global,
                                       const GlobalSignatures& annotated,
                                       arith::Analyzer& analyzer) {
  DiagnosticSink ignored;
  Inferer inferer(module, annotated, analyzer, ignored);
  return inferer.signature_for_callers(*global.gvar);
}

GlobalSignatures module_signatures(const ir::IRModule& module, arith::Analyzer& analyzer) {
  auto cache = std::make_shared<std::unordered_map<std::string, const ir::StructInfo*>>();
  return [&module, &analyzer, cache](const ir::GlobalVar* gv) -> const ir::StructInfo* {
    auto it = cache->find(gv->name);
    if (it != cache->end()) return it->second;
    const ir::GlobalDef* def = module.find(gv->name);
    const ir::StructInfo* s = def ? signature_of(*def, analyzer) : nullptr;
    cache->emplace(gv->name, s);
    return s;
  };
}

}  // namespace raxc::analysis
