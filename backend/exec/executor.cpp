// The Relax evaluator (see executor.h): one handler per expression kind, calls dispatched by
// callee kind, operators by name through the builtin table (builtins.cpp).
#include "backend/exec/executor.h"

#include <iostream>
#include <new>

#include "backend/exec/checks.h"
#include "backend/exec/interpreter.h"
#include "backend/runtime/error.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::backend {

using runtime::Value;

Executor::Executor(Program program, const KernelLibrary& kernels, ExecOptions options)
    : seal_arguments_(options.arguments_fixed && !writes_given_tensors(program)),
      impl_(std::make_unique<Interpreter>(std::move(program), kernels, std::move(options))) {}
Executor::~Executor() = default;

bool writes_given_tensors(const Program& program) {
  class Finder : public ir::Visitor {
   public:
    explicit Finder(const ir::IRModule& module) : module_(module) {}
    bool found = false;

   private:
    void on_expr(const ir::Expr* e) override {
      const auto* call = ir::dyn_cast<ir::Call>(e);
      if (!call) return;
      if (const auto* op = ir::dyn_cast<ir::Op>(call->op)) {
        found |= op->name == "relax.call_tir_inplace" || op->name == "relax.call_inplace_packed" ||
                 op->name == "relax.call_packed" || op->name == "relax.call_pure_packed";
        return;
      }
      const auto* gvar = ir::dyn_cast<ir::GlobalVar>(call->op);
      const ir::GlobalDef* callee = gvar ? module_.find(gvar->name) : nullptr;
      found |= !callee || !callee->function();  // only Relax functions are walked in turn
    }
    const ir::IRModule& module_;
  };
  Finder finder(*program.module);
  for (const ir::GlobalDef& g : program.module->globals) {
    if (!g.function()) continue;
    const ir::Function* f = program.function ? program.function(g) : nullptr;
    finder.visit(f ? f : g.function());
  }
  return finder.found;
}

namespace {
// Seals the tensors of `v` (those of a tuple too).
void seal(const Value& v) {
  if (const auto* t = v.get_if<runtime::TensorPtr>()) (*t)->seal();
  if (const auto* tuple = v.get_if<runtime::Tuple>())
    for (const Value& field : tuple->fields) seal(field);
}
}  // namespace

std::optional<Value> Executor::call(const ir::GlobalDef& entry, std::vector<Value> args,
                                    Diagnostic* error) {
  if (seal_arguments_)
    for (const Value& arg : args) seal(arg);
  try {
    return impl_->call_global(entry, std::move(args), entry.gvar->span);
  } catch (ExecError& e) {
    if (error) *error = std::move(e.diagnostic);
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    if (error)
      *error =
          make_diagnostic(diag::TensorAllocationFailed{.shape = "(unknown)", .dtype = "(unknown)"},
                          entry.gvar->span);
    return std::nullopt;
  }
}

Interpreter::Interpreter(Program program, const KernelLibrary& kernels, ExecOptions options)
    : program(std::move(program)), kernels(kernels), options(std::move(options)) {}

// ------------------------------------------------------------------------------------ calls

Value Interpreter::call_global(const ir::GlobalDef& g, std::vector<Value> args, Span call_site) {
  if (const ir::PrimFunc* pf = g.prim_func()) return call_prim_func(g, *pf, args, call_site);
  if (const ir::ExternFunc* ef = g.extern_func())
    return call_packed(ef->global_symbol, args, call_site);
  const ir::Function* f = program.function ? program.function(g) : nullptr;
  if (!f)
    raise(diag::UnsupportedOnCpu{.what = "function '" + g.gvar->name + "' (not analysed)"},
          g.gvar->span);
  return call_function(*f, g.gvar->name, nullptr, std::move(args), call_site);
}

Value Interpreter::call_function(const ir::Function& f, const std::string& name,
                                 const Frame* captured, std::vector<Value> args, Span call_site) {
  if (depth >= options.max_call_depth)
    raise(diag::RecursionTooDeep{.max_depth = options.max_call_depth}, call_site);
  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& d) : d(d) { ++d; }
    ~DepthGuard() { --d; }
  } guard(depth);

  if (args.size() != f.params.size())
    raise(
        diag::EntryArgumentCount{
            .function = name, .expected = f.params.size(), .given = args.size()},
        call_site);
  Frame frame;
  if (captured) frame = *captured;
  StructMatcher matcher(frame);
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Var* param = f.params[i];
    if (auto why = matcher.bind(args[i], param->annotation))
      param_error(f, name, i, *why, call_site);
  }
  if (auto failed = matcher.finish())
    param_error(f, name, failed->first, failed->second, call_site);
  for (size_t i = 0; i < args.size(); ++i) frame.vars[f.params[i]] = std::move(args[i]);

  Value result = eval(f.body, frame);
  if (f.ret_struct_info) {
    if (auto why = match_struct_info(result, f.ret_struct_info, frame)) {
      Diagnostic d = make_diagnostic(
          diag::ValueDoesNotMatchAnnotation{
              .value = "the value returned by '" + name + "'",
              .annotation = printer::print_struct_info(f.ret_struct_info),
              .reason = *why},
          f.body->body ? f.body->body->span : f.span);
      d.note(f.ret_struct_info->span, "the return annotation is here");
      throw ExecError{std::move(d)};
    }
  }
  return result;
}

void Interpreter::param_error(const ir::Function& f, const std::string& name, size_t index,
                              const std::string& why, Span call_site) {
  const ir::Var* param = f.params[index];
  Diagnostic d = make_diagnostic(
      diag::ValueDoesNotMatchAnnotation{.value = "argument '" + param->name + "' of '" + name + "'",
                                        .annotation = printer::print_struct_info(param->annotation),
                                        .reason = why},
      param->span);
  if (!call_site.empty() && call_site != f.span) d.note(call_site, "in this call");
  throw ExecError{std::move(d)};
}

Value Interpreter::call_value(const Value& callee, std::vector<Value> args, Span call_site) {
  const auto* c = callee.get_if<runtime::CallablePtr>();
  if (!c)
    raise(diag::NotCallableAtRunTime{.callee = "this value", .value = describe_value(callee)},
          call_site);
  if (const auto* g = dynamic_cast<const GlobalRef*>(c->get()))
    return call_global(*g->global, std::move(args), call_site);
  if (const auto* closure = dynamic_cast<const Closure*>(c->get())) {
    std::vector<Value> all = closure->bound;
    for (Value& a : args) all.push_back(std::move(a));
    if (closure->global) return call_global(*closure->global, std::move(all), call_site);
    if (closure->self) {  // a local function sees itself: recursion without a cycle of owners
      Frame with_self = *closure->captured;
      with_self.vars[closure->self] = callee;
      return call_function(*closure->function, closure->name, &with_self, std::move(all),
                           call_site);
    }
    return call_function(*closure->function, closure->name, closure->captured.get(), std::move(all),
                         call_site);
  }
  if (const auto* p = dynamic_cast<const PackedRef*>(c->get()))
    return call_packed(p->symbol, args, call_site);
  raise(diag::NotCallableAtRunTime{.callee = "this value", .value = (*c)->describe()}, call_site);
}

// A PrimFunc called directly (`cls.f(x, y)`) or through call_tir: tensors by DLTensor, scalars
// by value; a non-zero status is the kernel's recorded error, located where the kernel
// raised it, with a note at the call.
Value Interpreter::call_prim_func(const ir::GlobalDef& g, const ir::PrimFunc& pf,
                                  const std::vector<Value>& args, Span call_site) {
  RaxcPackedFunc kernel = kernels.find(g.gvar->name);
  if (!kernel)
    raise(diag::UnsupportedOnCpu{.what = "PrimFunc '" + g.gvar->name + "' (not compiled)"},
          call_site);
  std::vector<RaxcArg> packed(args.size());
  std::vector<int32_t> kinds(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!pack_argument(args[i], packed[i], kinds[i]))
      raise(diag::PackedArgumentKind{.index = i,
                                     .callee = g.gvar->name,
                                     .expected =
                                         "a tensor or a scalar, not " + describe_value(args[i])},
            call_site);
  }
  RaxcArg ret{};
  ret.i64 = 0;
  int32_t status = timed(g.gvar->name, [&] {
    return kernel(packed.data(), kinds.data(), static_cast<int32_t>(packed.size()), &ret);
  });
  if (status != 0) kernel_error(call_site);
  if (pf.ret_type && !pf.ret_type->is_void()) {
    runtime::Prim p;
    p.dtype = to_dl(*pf.ret_type);
    if (pf.ret_type->is_float())
      p.f = ret.f64;
    else
      p.i = ret.i64;
    return p;
  }
  return runtime::Tuple{};  // a PrimFunc without a result returns the unit value, R.Tuple()
}

[[noreturn]] void Interpreter::kernel_error(Span call_site) {
  std::optional<runtime::RuntimeError> e = runtime::take_last_error();
  if (!e) raise(diag::UnsupportedOnCpu{.what = "a kernel that failed without an error"}, call_site);
  std::optional<DiagId> id = find_diagnostic(e->code);
  Diagnostic d = make_diagnostic(DiagPayload::from_positional(id.value_or(DiagId::RX5000), e->args),
                                 Span{e->begin, e->end});
  if (!call_site.empty() && !(call_site == d.span)) d.note(call_site, "called from here");
  throw ExecError{std::move(d)};
}

Value Interpreter::call_packed(const std::string& symbol, const std::vector<Value>& args,
                               Span call_site) {
  PackedFunction fn = find_packed(symbol);
  if (!fn) raise(diag::UnknownPackedFunction{.function = symbol}, call_site);
  return timed(symbol, [&] { return fn(*this, args, call_site); });
}

// ------------------------------------------------------------------------------ expressions

Value Interpreter::eval(const ir::Expr* e, Frame& frame) {
  using K = ir::ExprKind;
  switch (e->kind) {
    case K::Var:
    case K::DataflowVar: {
      auto it = frame.vars.find(ir::cast<ir::Var>(e));
      if (it == frame.vars.end())
        raise(diag::UnsupportedOnCpu{.what = "variable '" + ir::cast<ir::Var>(e)->name +
                                             "' read before it has a value"},
              e->span);
      return it->second;
    }
    case K::Constant: return constant(ir::cast<ir::Constant>(e));
    case K::GlobalVar: {
      const ir::GlobalDef* g = program.module->find(ir::cast<ir::GlobalVar>(e)->name);
      if (!g) raise(diag::UnsupportedOnCpu{.what = "an undefined global"}, e->span);
      auto ref = std::make_shared<GlobalRef>();
      ref->global = g;
      return runtime::CallablePtr(ref);
    }
    case K::Tuple: {
      runtime::Tuple t;
      for (const ir::Expr* f : ir::cast<ir::Tuple>(e)->fields) t.fields.push_back(eval(f, frame));
      return t;
    }
    case K::TupleGetItem: {
      const auto* g = ir::cast<ir::TupleGetItem>(e);
      Value t = eval(g->tuple, frame);
      const auto* tuple = t.get_if<runtime::Tuple>();
      if (!tuple || g->index < 0 || g->index >= static_cast<int64_t>(tuple->fields.size()))
        raise(diag::ValueDoesNotMatchAnnotation{.value = "the tuple",
                                                .annotation = "a tuple with field " +
                                                              std::to_string(g->index),
                                                .reason = "it is " + describe_value(t)},
              e->span);
      return tuple->fields[g->index];
    }
    case K::SeqExpr: return seq(ir::cast<ir::SeqExpr>(e), frame);
    case K::PrimValue: {
      const auto* p = ir::cast<ir::PrimValue>(e);
      Scalar s = eval_prim(p->value, frame);
      runtime::Prim v;
      v.dtype = to_dl(p->value->dtype);
      if (p->value->dtype.is_float())
        v.f = s.as_f64();
      else
        v.i = s.is_float ? static_cast<int64_t>(s.f) : s.i;
      return v;
    }
    case K::StringImm: return runtime::String{ir::cast<ir::StringImm>(e)->value};
    case K::DataTypeImm: return runtime::DType{to_dl(ir::cast<ir::DataTypeImm>(e)->value)};
    case K::ShapeExpr: {
      runtime::Shape s;
      for (const ir::PrimExpr* d : ir::cast<ir::ShapeExpr>(e)->values)
        s.dims.push_back(eval_dim(d, frame));
      return s;
    }
    case K::Function: return closure(ir::cast<ir::Function>(e), frame, nullptr);
    case K::If: {
      const auto* i = ir::cast<ir::If>(e);
      Value c = eval(i->cond, frame);
      return seq(condition(c, i->cond->span) ? i->true_branch : i->false_branch, frame);
    }
    case K::ExternFunc: {
      auto ref = std::make_shared<PackedRef>();
      ref->symbol = ir::cast<ir::ExternFunc>(e)->global_symbol;
      return runtime::CallablePtr(ref);
    }
    case K::Call: return call_expr(ir::cast<ir::Call>(e), frame);
    case K::Op: raise(diag::UnsupportedOnCpu{.what = "an operator used as a value"}, e->span);
    case K::Error:  // a module with errors is never run; this is only a safety net
      raise(diag::UnsupportedOnCpu{.what = "a part of the program that has an error"}, e->span);
  }
  raise(diag::UnsupportedOnCpu{.what = "this expression"}, e->span);
}

bool Interpreter::condition(const Value& c, Span at) {
  if (const runtime::TensorPtr* t = c.tensor()) {
    if ((*t)->ndim() == 0) return (*t)->get_f64(0) != 0;
  } else if (const auto* p = c.get_if<runtime::Prim>()) {
    return p->as_f64() != 0;
  }
  raise(diag::RuntimeConditionNotBool{.value = describe_value(c)}, at);
}

Value Interpreter::closure(const ir::Function* f, const Frame& frame, const ir::Var* self) {
  auto c = std::make_shared<Closure>();
  c->function = f;
  c->captured = std::make_shared<Frame>(frame);
  c->name = self ? self->name : "<nested function>";
  c->self = self;
  return runtime::CallablePtr(c);
}

// The variables a SeqExpr binds, listed at the binding after which nothing uses them any more
// (neither a later binding, nested functions and branches included, nor the SeqExpr's result).
const std::vector<std::vector<const ir::Var*>>& Interpreter::released_after(const ir::SeqExpr* s) {
  auto [it, added] = last_uses.emplace(s, std::vector<std::vector<const ir::Var*>>{});
  if (!added) return it->second;
  std::unordered_map<const ir::Var*, size_t> last;  // binding index; bound.size(): the result
  std::vector<const ir::Binding*> bound;
  for (const ir::BindingBlock* block : s->blocks)
    for (const ir::Binding* b : block->bindings) {
      for (const ir::Var* v : ir::free_vars(b->value).vars) last[v] = bound.size();
      bound.push_back(b);
      if (b->var) last.emplace(b->var, bound.size() - 1);
    }
  for (const ir::Var* v : ir::free_vars(s->body).vars) last[v] = bound.size();
  std::vector<std::vector<const ir::Var*>> plan(bound.size());
  for (const ir::Binding* b : bound)
    if (b->var && last.at(b->var) < bound.size()) plan[last.at(b->var)].push_back(b->var);
  return it->second = std::move(plan);
}

// A SeqExpr's bindings in order, each tensor dropped from the frame after its last use (so an
// intermediate's memory is free for the next one, as TVM's memory planning reuses it).
Value Interpreter::seq(const ir::SeqExpr* s, Frame& frame) {
  const std::vector<std::vector<const ir::Var*>>& release = released_after(s);
  size_t index = 0;
  for (const ir::BindingBlock* block : s->blocks) {
    for (const ir::Binding* b : block->bindings) {
      const auto* nested = ir::dyn_cast<ir::Function>(b->value);
      Value v = nested ? closure(nested, frame, b->var) : eval(b->value, frame);
      if (b->match_cast) {
        if (auto why = match_struct_info(v, b->match_cast, frame))
          raise(diag::ValueDoesNotMatchAnnotation{.value = "the value of R.match_cast",
                                                  .annotation =
                                                      printer::print_struct_info(b->match_cast),
                                                  .reason = *why},
                b->span);
      } else if (b->var->annotation) {
        if (auto why = match_struct_info(v, b->var->annotation, frame))
          raise(diag::ValueDoesNotMatchAnnotation{.value = "the value of '" + b->var->name + "'",
                                                  .annotation = printer::print_struct_info(
                                                      b->var->annotation),
                                                  .reason = *why},
                b->span);
      }
      frame.vars[b->var] = std::move(v);
      // Only tensors: a shape variable may still be named by a later annotation.
      for (const ir::Var* done : release[index++])
        if (auto it = frame.vars.find(done); it != frame.vars.end() && it->second.tensor())
          frame.vars.erase(it);
    }
  }
  return eval(s->body, frame);
}

Value Interpreter::call_expr(const ir::Call* c, Frame& frame) {
  if (const auto* op = ir::dyn_cast<ir::Op>(c->op)) return call_op(op->name, c, frame);
  std::vector<Value> args;
  args.reserve(c->args.size());
  for (const ir::Expr* a : c->args) args.push_back(eval(a, frame));
  if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(c->op)) {
    const ir::GlobalDef* g = program.module->find(gv->name);
    if (!g) raise(diag::UnsupportedOnCpu{.what = "a call of an undefined global"}, c->span);
    return call_global(*g, std::move(args), c->span);
  }
  if (const auto* ef = ir::dyn_cast<ir::ExternFunc>(c->op))
    return call_packed(ef->global_symbol, args, c->span);
  return call_value(eval(c->op, frame), std::move(args), c->span);
}

Value Interpreter::constant(const ir::Constant* c) {
  auto it = constants.find(c);
  if (it != constants.end()) return it->second;
  if (!c->has_data())
    raise(diag::ConstantWithoutData{.constant = "metadata[\"" + c->metadata->key + "\"][" +
                                                std::to_string(c->metadata->index) + "]"},
          c->span);
  runtime::TensorPtr t = allocate(c->shape, c->dtype, c->span);
  if (static_cast<int64_t>(c->data.size()) != t->nbytes())
    raise(diag::UnsupportedOnCpu{.what = "a constant whose data does not fill its shape"}, c->span);
  std::copy(c->data.begin(), c->data.end(), static_cast<uint8_t*>(t->data()));
  constants.emplace(c, t);
  return t;
}

runtime::TensorPtr Interpreter::allocate(const std::vector<int64_t>& shape, ir::DataType dtype,
                                         Span at, runtime::Tensor::Fill fill) {
  runtime::TensorPtr t = runtime::Tensor::empty(shape, to_dl(dtype), fill);
  if (!t) {
    std::string dims = "(";
    for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    raise(diag::TensorAllocationFailed{.shape = dims + (shape.size() == 1 ? ",)" : ")"),
                                       .dtype = dtype.str()},
          at);
  }
  return t;
}

DLDataType to_dl(ir::DataType t) {
  if (t.is_bool()) return DLDataType{kDLUInt, 1, 1};
  uint8_t code = t.is_int()                             ? kDLInt
                 : t.is_integer()                       ? kDLUInt
                 : t.code == ir::DataType::Code::BFloat ? kDLBfloat
                 : t.code == ir::DataType::Code::Float  ? kDLFloat
                                                        : kDLOpaqueHandle;
  return DLDataType{code, t.bits, t.lanes};
}

}  // namespace raxc::backend
