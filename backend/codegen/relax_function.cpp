// One Relax function -> LLVM IR (see relax_codegen.h): one handler per expression kind and per
// builtin operator, the seed spec's evaluation order (bindings in order, If evaluating one
// branch), and the run-time StructInfo checks of the interpreter (backend/exec/checks.cpp)
// done by raxc_rt_check over an encoded StructInfo. Handles: every value this function
// creates is stored in a slot of its own, null-initialised at entry and released by the one
// cleanup block every exit goes through, so a failure part-way never leaks; values read from
// slots are borrowed until the function returns (the result is retained for the caller).
#include <llvm/IR/MDBuilder.h>

#include "backend/codegen/relax_emitter.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/storage.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::backend {
namespace {

using llvm::Value;

// The StructInfo encoding raxc_rt_check reads (backend/runtime/value_api.cpp).
enum Tag : int64_t { kObject = 0, kTensor = 1, kTuple = 2, kShape = 3, kPrim = 4, kFunc = 5 };
enum DimKind : int64_t { kConst = 0, kBind = 1, kComputed = 2 };

// DLPack type codes of a Relax dtype (bool: kDLUInt with 1 bit).
int64_t dl_code(ir::DataType t) {
  if (t.is_bool() || t.is_uint()) return kDLUInt;
  if (t.is_int()) return kDLInt;
  if (t.code == ir::DataType::Code::BFloat) return kDLBfloat;
  if (t.code == ir::DataType::Code::Float) return kDLFloat;
  return -1;
}

// What a local function closes over: its leading arguments, before its parameters (see
// raxc_rt_closure).
struct Captures {
  const ir::Var* self = nullptr;         // a local function that recurs: the closure itself
  std::vector<const ir::Var*> vars;      // the enclosing functions' variables it uses
  std::vector<const ir::PrimVar*> dims;  // their shape variables, as R.Prim int64 values
  size_t count() const { return (self ? 1 : 0) + vars.size() + dims.size(); }
};

class FunctionEmitter {
 public:
  FunctionEmitter(RelaxModuleState& s, std::string name, const ir::Function& f, llvm::Function* fn,
                  Captures captures = {})
      : s_(s),
        b_(s.context),
        f_(f),
        name_(std::move(name)),
        fn_(fn),
        captures_(std::move(captures)) {}

  void emit() {
    entry_ = block("entry");
    llvm::BasicBlock* start = block("start");
    cleanup_ = block("cleanup");
    fail_ = block("fail");
    b_.SetInsertPoint(entry_);
    status_ = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "status");
    b_.CreateStore(b_.getInt32(0), status_);
    slots_ = b_.CreateAlloca(b_.getInt64Ty(), b_.getInt32(1), "slots");
    bound_ = b_.CreateAlloca(b_.getInt8Ty(), b_.getInt32(1), "bound");
    names_ =
        new llvm::GlobalVariable(s_.module, b_.getPtrTy(), true, llvm::GlobalValue::ExternalLinkage,
                                 nullptr, "raxc.names.placeholder");
    b_.SetInsertPoint(start);
    prologue();
    Value* result = seq(f_.body);
    if (f_.ret_struct_info) {
      Span at = f_.body->body ? f_.body->body->span : f_.span;
      check({{result, f_.ret_struct_info,
              site_for(DiagId::RX5020, at, "the value returned by '" + name_ + "'",
                       f_.ret_struct_info)}});
    }
    b_.CreateCall(s_.runtime("raxc_value_retain"), {result});
    b_.CreateStore(result, fn_->getArg(2));
    b_.CreateBr(cleanup_);
    finish(start);
  }

 private:
  struct Check {
    Value* handle;
    const ir::StructInfo* sinfo;
    llvm::Constant* site;
  };

  llvm::BasicBlock* block(const char* name) {
    return llvm::BasicBlock::Create(s_.context, name, fn_);
  }

  llvm::Constant* site_for(DiagId id, Span at, std::string what, const ir::StructInfo* sinfo) {
    return s_.error_site(id, at, {std::move(what), printer::print_struct_info(sinfo)});
  }

  // Branches to the cleanup with status 1 when `bad`; the error is already recorded.
  void fail_if(Value* bad) {
    llvm::BasicBlock* ok = block("ok");
    llvm::MDBuilder md(s_.context);
    b_.CreateCondBr(bad, fail_, ok, md.createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(ok);
  }

  // Records the error at `site` (with up to three integer values) when `bad`, then fails.
  void fail_with(Value* bad, llvm::Constant* site, std::vector<Value*> values = {}) {
    llvm::BasicBlock* raise = block("raise");
    llvm::BasicBlock* ok = block("ok");
    llvm::MDBuilder md(s_.context);
    b_.CreateCondBr(bad, raise, ok, md.createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(raise);
    while (values.size() < 3) values.push_back(b_.getInt64(0));
    b_.CreateCall(s_.runtime("raxc_fail"), {site, values[0], values[1], values[2]});
    b_.CreateBr(fail_);
    b_.SetInsertPoint(ok);
  }

  // A new handle from a helper: owned by a fresh slot (released at cleanup); null means the
  // helper recorded an error.
  Value* own(Value* handle) {
    llvm::IRBuilder<> e(entry_);
    llvm::AllocaInst* slot = e.CreateAlloca(b_.getPtrTy(), nullptr, "h");
    e.CreateStore(llvm::ConstantPointerNull::get(b_.getPtrTy()), slot);
    handles_.push_back(slot);
    b_.CreateStore(handle, slot);
    fail_if(b_.CreateIsNull(handle));
    return handle;
  }

  llvm::AllocaInst* entry_array(llvm::Type* type, size_t n, const char* name) {
    llvm::IRBuilder<> e(entry_);
    return e.CreateAlloca(type, b_.getInt32(static_cast<uint32_t>(n == 0 ? 1 : n)), name);
  }

  // ---------------------------------------------------------------- symbolic variables

  int slot_of(const ir::PrimVar* v) {
    auto it = slot_of_.find(v);
    if (it != slot_of_.end()) return it->second;
    int index = new_slot(v->name);
    slot_of_[v] = index;
    return index;
  }
  int new_slot(std::string name) {
    slot_names_.push_back(std::move(name));
    return static_cast<int>(slot_names_.size()) - 1;
  }
  Value* slot_ptr(int index) { return b_.CreateConstGEP1_64(b_.getInt64Ty(), slots_, index); }

  // A symbolic expression as i64 (comparisons 0/1), reading bound slots (RX5028 otherwise).
  Value* prim(const ir::PrimExpr* e) {
    using K = ir::PrimKind;
    switch (e->kind) {
      case K::IntImm: return b_.getInt64(ir::cast<ir::IntImm>(e)->value);
      case K::Var: {
        const auto* v = ir::cast<ir::PrimVar>(e);
        int index = slot_of(v);
        Value* bound =
            b_.CreateLoad(b_.getInt8Ty(), b_.CreateConstGEP1_64(b_.getInt8Ty(), bound_, index));
        fail_with(b_.CreateICmpEQ(bound, b_.getInt8(0)),
                  s_.error_site(DiagId::RX5028, e->span, {v->name}));
        return b_.CreateLoad(b_.getInt64Ty(), slot_ptr(index));
      }
      case K::Not: return truth(b_.CreateICmpEQ(prim(ir::cast<ir::PrimNot>(e)->a), b_.getInt64(0)));
      case K::Select: {
        const auto* sel = ir::cast<ir::PrimSelect>(e);
        Value* c = b_.CreateICmpNE(prim(sel->condition), b_.getInt64(0));
        return b_.CreateSelect(c, prim(sel->true_value), prim(sel->false_value));
      }
      case K::Cast: {
        const auto* c = ir::cast<ir::PrimCast>(e);
        if (!e->dtype.is_integer() || !c->value->dtype.is_integer()) break;
        Value* v = prim(c->value);
        if (e->dtype.is_bool()) return truth(b_.CreateICmpNE(v, b_.getInt64(0)));
        return v;
      }
      default: break;
    }
    const auto* bin = ir::dyn_cast<ir::PrimBinary>(e);
    if (!bin || e->dtype.is_float() || bin->a->dtype.is_float())
      s_.refuse(e->span, "this expression in a symbolic shape or R.Prim value");
    Value* x = prim(bin->a);
    Value* y = prim(bin->b);
    switch (e->kind) {
      case K::Add: return b_.CreateAdd(x, y);
      case K::Sub: return b_.CreateSub(x, y);
      case K::Mul: return b_.CreateMul(x, y);
      case K::Min: return b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y);
      case K::Max: return b_.CreateSelect(b_.CreateICmpSGT(x, y), x, y);
      case K::EQ: return truth(b_.CreateICmpEQ(x, y));
      case K::NE: return truth(b_.CreateICmpNE(x, y));
      case K::LT: return truth(b_.CreateICmpSLT(x, y));
      case K::LE: return truth(b_.CreateICmpSLE(x, y));
      case K::GT: return truth(b_.CreateICmpSGT(x, y));
      case K::GE: return truth(b_.CreateICmpSGE(x, y));
      case K::And:
        return truth(
            b_.CreateAnd(b_.CreateICmpNE(x, b_.getInt64(0)), b_.CreateICmpNE(y, b_.getInt64(0))));
      case K::Or:
        return truth(
            b_.CreateOr(b_.CreateICmpNE(x, b_.getInt64(0)), b_.CreateICmpNE(y, b_.getInt64(0))));
      default: return division(e, x, y);
    }
  }

  Value* truth(Value* bit) { return b_.CreateZExt(bit, b_.getInt64Ty()); }

  // Div/Mod truncate; FloorDiv/FloorMod round toward negative infinity (checks.cpp). A zero
  // divisor is RX5010; a divisor of -1 never reaches sdiv (INT64_MIN / -1 would be undefined).
  Value* division(const ir::PrimExpr* e, Value* x, Value* y) {
    using K = ir::PrimKind;
    fail_with(b_.CreateICmpEQ(y, b_.getInt64(0)),
              s_.error_site(DiagId::RX5010, e->span, {"a shape expression"}));
    Value* minus_one = b_.CreateICmpEQ(y, b_.getInt64(-1));
    Value* safe_y = b_.CreateSelect(minus_one, b_.getInt64(1), y);
    Value* q = b_.CreateSDiv(x, safe_y);
    Value* r = b_.CreateSRem(x, safe_y);
    Value* neg_q = b_.CreateSub(b_.getInt64(0), x);
    // Floor adjustment: r != 0 and the signs of r and y differ.
    Value* adjust = b_.CreateAnd(
        b_.CreateICmpNE(r, b_.getInt64(0)),
        b_.CreateICmpNE(b_.CreateICmpSLT(r, b_.getInt64(0)), b_.CreateICmpSLT(y, b_.getInt64(0))));
    switch (e->kind) {
      case K::Div: return b_.CreateSelect(minus_one, neg_q, q);
      case K::Mod: return b_.CreateSelect(minus_one, b_.getInt64(0), r);
      case K::FloorDiv:
        return b_.CreateSelect(minus_one, neg_q,
                               b_.CreateSub(q, b_.CreateZExt(adjust, b_.getInt64Ty())));
      case K::FloorMod:
        return b_.CreateSelect(minus_one, b_.getInt64(0),
                               b_.CreateSelect(adjust, b_.CreateAdd(r, y), r));
      default: s_.refuse(e->span, "this operator in a symbolic shape");
    }
  }

  // ---------------------------------------------------------------- StructInfo checks

  void encode_dim(const ir::PrimExpr* d, std::vector<int64_t>& out,
                  std::vector<std::pair<int, const ir::PrimExpr*>>& computed) {
    if (const auto* i = ir::dyn_cast<ir::IntImm>(d)) {
      out.insert(out.end(), {kConst, i->value});
    } else if (const auto* v = ir::dyn_cast<ir::PrimVar>(d)) {
      out.insert(out.end(), {kBind, slot_of(v)});
    } else {
      int index = new_slot("");
      computed.emplace_back(index, d);
      out.insert(out.end(), {kComputed, index});
    }
  }

  void encode(const ir::StructInfo* s, std::vector<int64_t>& out,
              std::vector<std::pair<int, const ir::PrimExpr*>>& computed) {
    if (!s) {
      out.push_back(kObject);
      return;
    }
    switch (s->kind) {
      case ir::SInfoKind::Object: out.push_back(kObject); return;
      case ir::SInfoKind::Func: out.push_back(kFunc); return;
      case ir::SInfoKind::Tensor: {
        const auto* t = ir::cast<ir::TensorSInfo>(s);
        const auto* shape = ir::dyn_cast<ir::ShapeExpr>(t->shape);
        int64_t ndim = shape ? static_cast<int64_t>(shape->values.size()) : t->ndim;
        out.insert(out.end(), {kTensor, ndim, t->dtype.is_void() ? -1 : dl_code(t->dtype),
                               t->dtype.bits, shape ? 1 : 0});
        if (shape)
          for (const ir::PrimExpr* d : shape->values) encode_dim(d, out, computed);
        return;
      }
      case ir::SInfoKind::Tuple: {
        const auto* t = ir::cast<ir::TupleSInfo>(s);
        out.insert(out.end(), {kTuple, static_cast<int64_t>(t->fields.size())});
        for (const ir::StructInfo* f : t->fields) encode(f, out, computed);
        return;
      }
      case ir::SInfoKind::Shape: {
        const auto* sh = ir::cast<ir::ShapeSInfo>(s);
        int64_t ndim = sh->values ? static_cast<int64_t>(sh->values->size()) : sh->ndim;
        out.insert(out.end(), {kShape, ndim, sh->values ? 1 : 0});
        if (sh->values)
          for (const ir::PrimExpr* d : *sh->values) encode_dim(d, out, computed);
        return;
      }
      case ir::SInfoKind::Prim: {
        const auto* p = ir::cast<ir::PrimSInfo>(s);
        bool has_value = p->value && !p->dtype.is_float();
        out.insert(out.end(), {kPrim, p->dtype.is_void() ? -1 : dl_code(p->dtype), p->dtype.bits,
                               has_value ? 1 : 0});
        if (has_value) encode_dim(p->value, out, computed);
        return;
      }
    }
  }

  llvm::Constant* int64_array(const std::vector<int64_t>& words, const char* name) {
    auto* init = llvm::ConstantDataArray::get(
        s_.context,
        llvm::ArrayRef<uint64_t>(reinterpret_cast<const uint64_t*>(words.data()), words.size()));
    return new llvm::GlobalVariable(s_.module, init->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, init, name);
  }

  // Checks values as one group (a function's parameters, or one value): bare variables bind
  // in order, composite dimensions are computed once all are bound and compared then.
  void check(const std::vector<Check>& checks) {
    std::vector<std::pair<int, const ir::PrimExpr*>> computed;
    std::vector<std::pair<llvm::Constant*, size_t>> descs;  // desc, computed count so far
    for (const Check& c : checks) {
      std::vector<int64_t> words;
      size_t before = computed.size();
      encode(c.sinfo, words, computed);
      descs.emplace_back(int64_array(words, ".sinfo"), computed.size() - before);
    }
    auto call = [&](size_t i, int phase) {
      Value* status = b_.CreateCall(s_.runtime("raxc_rt_check"),
                                    {checks[i].handle, descs[i].first, slots_, bound_, names_,
                                     b_.getInt32(phase), checks[i].site});
      fail_if(b_.CreateICmpNE(status, b_.getInt32(0)));
    };
    for (size_t i = 0; i < checks.size(); ++i) call(i, 0);
    if (computed.empty()) return;
    for (const auto& [index, expr] : computed) b_.CreateStore(prim(expr), slot_ptr(index));
    for (size_t i = 0; i < checks.size(); ++i)
      if (descs[i].second > 0) call(i, 1);
  }

  // ---------------------------------------------------------------- the function

  void prologue() {
    Value* entered = b_.CreateCall(
        s_.runtime("raxc_rt_enter"),
        {s_.error_site(DiagId::RX5024, f_.name_span.empty() ? f_.span : f_.name_span, {})});
    llvm::BasicBlock* too_deep = block("too_deep");
    llvm::BasicBlock* go = block("go");
    b_.CreateCondBr(b_.CreateICmpNE(entered, b_.getInt32(0)), too_deep, go);
    b_.SetInsertPoint(too_deep);
    b_.CreateRet(b_.getInt32(1));
    b_.SetInsertPoint(go);

    size_t n = f_.params.size();
    size_t k = captures_.count();
    Value* given = b_.CreateSub(fn_->getArg(1), b_.getInt32(static_cast<uint32_t>(k)));
    fail_with(b_.CreateICmpNE(given, b_.getInt32(static_cast<uint32_t>(n))),
              s_.error_site(DiagId::RX5002, f_.name_span.empty() ? f_.span : f_.name_span,
                            {name_, std::to_string(n)}, 1),
              {b_.CreateSExt(given, b_.getInt64Ty())});
    auto argument = [&](size_t i, const std::string& name) -> Value* {
      return b_.CreateLoad(b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getPtrTy(), fn_->getArg(0), i),
                           name);
    };
    size_t next = 0;
    if (captures_.self) vars_[captures_.self] = argument(next++, captures_.self->name);
    for (const ir::Var* v : captures_.vars) vars_[v] = argument(next++, v->name);
    for (const ir::PrimVar* d : captures_.dims) {
      Value* value = b_.CreateCall(s_.runtime("raxc_value_prim_i64"), {argument(next++, d->name)});
      int index = slot_of(d);
      b_.CreateStore(value, slot_ptr(index));
      b_.CreateStore(b_.getInt8(1), b_.CreateConstGEP1_64(b_.getInt8Ty(), bound_, index));
    }
    std::vector<Check> checks;
    for (size_t i = 0; i < n; ++i) {
      const ir::Var* p = f_.params[i];
      Value* h = argument(k + i, p->name);
      vars_[p] = h;
      if (p->annotation)
        checks.push_back(
            {h, p->annotation,
             site_for(DiagId::RX5020, p->span, "argument '" + p->name + "' of '" + name_ + "'",
                      p->annotation)});
    }
    check(checks);
  }

  void finish(llvm::BasicBlock* start) {
    b_.SetInsertPoint(fail_);
    b_.CreateStore(b_.getInt32(1), status_);
    b_.CreateBr(cleanup_);
    b_.SetInsertPoint(cleanup_);
    for (llvm::AllocaInst* slot : handles_)
      b_.CreateCall(s_.runtime("raxc_value_release"), {b_.CreateLoad(b_.getPtrTy(), slot)});
    b_.CreateCall(s_.runtime("raxc_rt_leave"), {});
    b_.CreateRet(b_.CreateLoad(b_.getInt32Ty(), status_));

    size_t n = slot_names_.empty() ? 1 : slot_names_.size();
    slots_->setOperand(0, b_.getInt32(static_cast<uint32_t>(n)));
    bound_->setOperand(0, b_.getInt32(static_cast<uint32_t>(n)));
    std::vector<llvm::Constant*> names;
    for (const std::string& name : slot_names_) names.push_back(s_.string_constant(name));
    if (names.empty()) names.push_back(s_.string_constant(""));
    auto* type = llvm::ArrayType::get(b_.getPtrTy(), names.size());
    auto* table = new llvm::GlobalVariable(s_.module, type, true, llvm::GlobalValue::PrivateLinkage,
                                           llvm::ConstantArray::get(type, names), ".names");
    names_->replaceAllUsesWith(table);
    names_->eraseFromParent();
    llvm::IRBuilder<> e(entry_);
    e.CreateMemSet(bound_, e.getInt8(0), e.getInt64(n), llvm::MaybeAlign(1));
    e.CreateBr(start);
  }

  // ---------------------------------------------------------------- expressions

  Value* seq(const ir::SeqExpr* s) {
    for (const ir::BindingBlock* block : s->blocks)
      for (const ir::Binding* binding : block->bindings) bind(binding);
    return expr(s->body);
  }

  void bind(const ir::Binding* binding) {
    const auto* local = ir::dyn_cast<ir::Function>(binding->value);
    Value* v = local ? closure(*local, binding->var) : expr(binding->value);
    if (binding->match_cast) {
      check({{v, binding->match_cast,
              site_for(DiagId::RX5020, binding->span, "the value of R.match_cast",
                       binding->match_cast)}});
    } else if (binding->var->annotation) {
      check({{v, binding->var->annotation,
              site_for(DiagId::RX5020, binding->span, "the value of '" + binding->var->name + "'",
                       binding->var->annotation)}});
    }
    vars_[binding->var] = v;
    bound_values_[binding->var] = binding->value;
  }

  Value* expr(const ir::Expr* e) {
    using K = ir::ExprKind;
    switch (e->kind) {
      case K::Var:
      case K::DataflowVar: {
        auto it = vars_.find(ir::cast<ir::Var>(e));
        if (it == vars_.end()) s_.refuse(e->span, "a variable of an enclosing function");
        return it->second;
      }
      case K::Constant: return constant(ir::cast<ir::Constant>(e));
      case K::Tuple: return tuple(ir::cast<ir::Tuple>(e)->fields);
      case K::TupleGetItem: {
        const auto* g = ir::cast<ir::TupleGetItem>(e);
        Value* t = expr(g->tuple);
        return own(b_.CreateCall(
            s_.runtime("raxc_rt_get"),
            {t, b_.getInt64(g->index), s_.error_site(DiagId::RX5020, e->span, {"the tuple"})}));
      }
      case K::SeqExpr: return seq(ir::cast<ir::SeqExpr>(e));
      case K::PrimValue: return prim_value(ir::cast<ir::PrimValue>(e));
      case K::StringImm:
        return own(b_.CreateCall(s_.runtime("raxc_value_string"),
                                 {s_.string_constant(ir::cast<ir::StringImm>(e)->value)}));
      case K::ShapeExpr: return shape(ir::cast<ir::ShapeExpr>(e)->values);
      case K::If: return if_expr(ir::cast<ir::If>(e));
      case K::Call: return call(ir::cast<ir::Call>(e));
      case K::Function: return closure(*ir::cast<ir::Function>(e), nullptr);
      case K::GlobalVar: {
        const ir::GlobalDef* g = s_.library.module->find(ir::cast<ir::GlobalVar>(e)->name);
        if (g && g->extern_func()) return packed_ref(g->extern_func()->global_symbol);
        if (g && g->prim_func()) return kernel_ref(*g, e->span);
        if (!g || !g->function()) s_.refuse(e->span, "a global that is not defined");
        return closure_of(s_.relax_function(*g), {}, g->gvar->name, false);
      }
      case K::ExternFunc: return packed_ref(ir::cast<ir::ExternFunc>(e)->global_symbol);
      case K::DataTypeImm: return dtype_value(ir::cast<ir::DataTypeImm>(e)->value, e->span);
      case K::Op: s_.refuse(e->span, "an operator used as a value");
      case K::Error: s_.refuse(e->span, "a part of the program that has an error");
    }
    s_.refuse(e->span, "this expression");
  }

  // ---------------------------------------------------------------- closures

  // A local function: compiled now as a function of its own whose leading arguments are what it
  // closes over (Captures), and a closure value over it.
  Value* closure(const ir::Function& local, const ir::Var* self) {
    ir::FreeVars used = ir::free_vars(&local);
    Captures captures;
    for (const ir::Var* v : used.vars) {
      if (v == self)
        captures.self = v;
      else
        captures.vars.push_back(v);
    }
    captures.dims = used.shape_vars;
    std::string name =
        name_ + "." + (self ? self->name : "lambda" + std::to_string(++local_functions_));
    auto* lifted =
        llvm::Function::Create(fn_->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                               "raxc_relax." + name, s_.module);
    lifted->addFnAttr(llvm::Attribute::NoUnwind);
    bool pass_self = captures.self != nullptr;
    std::vector<Value*> captured;
    for (const ir::Var* v : captures.vars) {
      auto it = vars_.find(v);
      if (it == vars_.end())
        s_.refuse(local.span, "a local function using '" + v->name + "' before it has a value");
      captured.push_back(it->second);
    }
    for (const ir::PrimVar* d : captures.dims) captured.push_back(int_from(prim(d)));
    FunctionEmitter(s_, name, local, lifted, std::move(captures)).emit();
    return closure_of(lifted, captured, name, pass_self);
  }

  Value* closure_of(llvm::Function* function, const std::vector<Value*>& captured,
                    const std::string& name, bool pass_self) {
    return own(b_.CreateCall(
        s_.runtime("raxc_rt_closure"),
        {function, handle_array(captured), b_.getInt32(static_cast<uint32_t>(captured.size())),
         s_.string_constant(name), b_.getInt32(pass_self ? 1 : 0)}));
  }

  Value* kernel_ref(const ir::GlobalDef& g, Span at) {
    const ir::PrimFunc& pf = *g.prim_func();
    int64_t code = -1, bits = 0;
    if (pf.ret_type && !pf.ret_type->is_void()) {
      code = dl_code(*pf.ret_type);
      bits = pf.ret_type->bits;
      if (code < 0) s_.refuse(at, "a PrimFunc result of type '" + pf.ret_type->str() + "'");
    }
    return own(b_.CreateCall(
        s_.runtime("raxc_rt_kernel_ref"),
        {s_.kernel(g), s_.string_constant(g.gvar->name), b_.getInt32(static_cast<uint32_t>(code)),
         b_.getInt32(static_cast<uint32_t>(bits))}));
  }

  // R.make_closure(global, (captured...)).
  Value* make_closure(const ir::Call* c) {
    const auto* gv = c->args.empty() ? nullptr : ir::dyn_cast<ir::GlobalVar>(c->args[0]);
    const ir::GlobalDef* g = gv ? s_.library.module->find(gv->name) : nullptr;
    if (!g || !g->function())
      s_.refuse(c->span, "R.make_closure of something other than a Relax global");
    return closure_of(s_.relax_function(*g), tuple_fields(c, 1), g->gvar->name, false);
  }

  // The fields of argument `i`, a tuple literal (a call's argument list); none when absent.
  std::vector<Value*> tuple_fields(const ir::Call* c, size_t i) {
    if (c->args.size() <= i) return {};
    const auto* t = ir::dyn_cast<ir::Tuple>(c->args[i]);
    if (!t) s_.refuse(c->args[i]->span, "arguments that are not a tuple literal");
    return exprs(t->fields, 0);
  }

  Value* int_from(Value* i64) {
    return own(
        b_.CreateCall(s_.runtime("raxc_rt_prim_int"), {i64, b_.getInt32(kDLInt), b_.getInt32(64)}));
  }

  Value* packed_ref(const std::string& symbol) {
    return own(b_.CreateCall(s_.runtime("raxc_rt_packed_ref"), {s_.string_constant(symbol)}));
  }

  Value* tuple(const std::vector<const ir::Expr*>& fields) {
    std::vector<Value*> values;
    for (const ir::Expr* f : fields) values.push_back(expr(f));
    return tuple_of(values);
  }

  Value* tuple_of(const std::vector<Value*>& values) {
    llvm::AllocaInst* array = entry_array(b_.getPtrTy(), values.size(), "fields");
    for (size_t i = 0; i < values.size(); ++i)
      b_.CreateStore(values[i], b_.CreateConstGEP1_64(b_.getPtrTy(), array, i));
    return own(b_.CreateCall(s_.runtime("raxc_rt_tuple"),
                             {array, b_.getInt32(static_cast<uint32_t>(values.size()))}));
  }

  // The dims as an i64 array in this frame.
  Value* dims_array(const std::vector<const ir::PrimExpr*>& dims) {
    llvm::AllocaInst* array = entry_array(b_.getInt64Ty(), dims.size(), "dims");
    for (size_t i = 0; i < dims.size(); ++i)
      b_.CreateStore(prim(dims[i]), b_.CreateConstGEP1_64(b_.getInt64Ty(), array, i));
    return array;
  }

  Value* shape(const std::vector<const ir::PrimExpr*>& dims) {
    Value* array = dims_array(dims);
    return own(b_.CreateCall(s_.runtime("raxc_rt_shape"),
                             {array, b_.getInt32(static_cast<uint32_t>(dims.size()))}));
  }

  Value* prim_value(const ir::PrimValue* p) {
    ir::DataType t = p->value->dtype;
    if (t.is_float()) {
      const auto* f = ir::dyn_cast<ir::FloatImm>(p->value);
      if (!f || dl_code(t) < 0) s_.refuse(p->span, "a float R.Prim value that is not a literal");
      return own(
          b_.CreateCall(s_.runtime("raxc_rt_prim_float"),
                        {llvm::ConstantFP::get(b_.getDoubleTy(), f->value),
                         b_.getInt32(static_cast<uint32_t>(dl_code(t))), b_.getInt32(t.bits)}));
    }
    if (!t.is_integer()) s_.refuse(p->span, "an R.Prim value of type '" + t.str() + "'");
    return own(b_.CreateCall(
        s_.runtime("raxc_rt_prim_int"),
        {prim(p->value), b_.getInt32(static_cast<uint32_t>(dl_code(t))), b_.getInt32(t.bits)}));
  }

  Value* constant(const ir::Constant* c) {
    if (!c->has_data())
      s_.report(make_diagnostic(
          diag::ConstantWithoutData{.constant = "metadata[\"" + c->metadata->key + "\"][" +
                                                std::to_string(c->metadata->index) + "]"},
          c->span));
    if (dl_code(c->dtype) < 0) s_.refuse(c->span, "a constant of dtype '" + c->dtype.str() + "'");
    auto* data = llvm::ConstantDataArray::get(s_.context, llvm::ArrayRef<uint8_t>(c->data));
    auto* global = new llvm::GlobalVariable(s_.module, data->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, data, ".const");
    global->setAlignment(llvm::Align(64));
    Value* dims = int64_array(c->shape, ".const_shape");
    return own(
        b_.CreateCall(s_.runtime("raxc_rt_const"),
                      {global, b_.getInt64(c->data.size()), dims,
                       b_.getInt32(static_cast<uint32_t>(c->shape.size())),
                       b_.getInt32(static_cast<uint32_t>(dl_code(c->dtype))),
                       b_.getInt32(c->dtype.bits), s_.error_site(DiagId::RX5026, c->span, {})}));
  }

  Value* if_expr(const ir::If* i) {
    Value* cond = expr(i->cond);
    Value* truth = b_.CreateCall(s_.runtime("raxc_rt_cond"),
                                 {cond, s_.error_site(DiagId::RX5025, i->cond->span, {})});
    fail_if(b_.CreateICmpSLT(truth, b_.getInt32(0)));
    llvm::BasicBlock* then_block = block("then");
    llvm::BasicBlock* else_block = block("else");
    llvm::BasicBlock* merge = block("merge");
    b_.CreateCondBr(b_.CreateICmpNE(truth, b_.getInt32(0)), then_block, else_block);
    b_.SetInsertPoint(then_block);
    Value* a = seq(i->true_branch);
    llvm::BasicBlock* a_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(else_block);
    Value* c = seq(i->false_branch);
    llvm::BasicBlock* c_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(b_.getPtrTy(), 2);
    phi->addIncoming(a, a_end);
    phi->addIncoming(c, c_end);
    return phi;
  }

  // ---------------------------------------------------------------- calls

  Value* call(const ir::Call* c) {
    if (const auto* op = ir::dyn_cast<ir::Op>(c->op)) {
      const std::string& name = op->name;
      if (name == "relax.call_tir" || name == "relax.call_tir_with_grad") return call_tir(c, false);
      if (name == "relax.call_tir_inplace") return call_tir(c, true);
      if (name == "relax.shape_of" && c->args.size() == 1) {
        Value* t = expr(c->args[0]);
        return own(b_.CreateCall(s_.runtime("raxc_rt_shape_of"),
                                 {t, s_.error_site(DiagId::RX5020, c->span,
                                                   {"the argument of R.shape_of", "R.Tensor"})}));
      }
      if (Value* v = language_op(name, c)) return v;
      std::string shown = name.starts_with("relax.") ? "R." + name.substr(6) : name;
      s_.refuse(c->span, "the operator " + shown);
    }
    const auto* gv = ir::dyn_cast<ir::GlobalVar>(c->op);
    const ir::GlobalDef* g = gv ? s_.library.module->find(gv->name) : nullptr;
    if (!g) return call_value(c);
    if (g->prim_func()) {
      std::vector<Value*> args;
      for (const ir::Expr* a : c->args) args.push_back(expr(a));
      return call_kernel(*g, args, {}, c->span);
    }
    if (g->extern_func())
      return call_packed(g->extern_func()->global_symbol, exprs(c->args, 0), c->span);
    std::vector<Value*> args = exprs(c->args, 0);
    llvm::AllocaInst* array = handle_array(args);
    llvm::AllocaInst* out = entry_array(b_.getPtrTy(), 1, "result");
    b_.CreateStore(llvm::ConstantPointerNull::get(b_.getPtrTy()), out);
    Value* status = b_.CreateCall(s_.relax_function(*g),
                                  {array, b_.getInt32(static_cast<uint32_t>(args.size())), out});
    Value* result = b_.CreateLoad(b_.getPtrTy(), out);
    llvm::IRBuilder<> e(entry_);
    llvm::AllocaInst* slot = e.CreateAlloca(b_.getPtrTy(), nullptr, "h");
    e.CreateStore(llvm::ConstantPointerNull::get(b_.getPtrTy()), slot);
    handles_.push_back(slot);
    b_.CreateStore(result, slot);
    fail_if(b_.CreateICmpNE(status, b_.getInt32(0)));
    return result;
  }

  std::vector<Value*> exprs(const std::vector<const ir::Expr*>& es, size_t from) {
    std::vector<Value*> values;
    for (size_t i = from; i < es.size(); ++i) values.push_back(expr(es[i]));
    return values;
  }

  llvm::AllocaInst* handle_array(const std::vector<Value*>& values) {
    llvm::AllocaInst* array = entry_array(b_.getPtrTy(), values.size(), "args");
    for (size_t i = 0; i < values.size(); ++i)
      b_.CreateStore(values[i], b_.CreateConstGEP1_64(b_.getPtrTy(), array, i));
    return array;
  }

  // The operators of the language other than the call_tir family and R.shape_of: null when
  // `name` is not one of them.
  Value* language_op(const std::string& name, const ir::Call* c) {
    if (name == "relax.call_packed" || name == "relax.call_pure_packed")
      return call_packed_or_value(c, packed_symbol(c), exprs(c->args, 1));
    if (name == "relax.call_dps_packed") return call_dps_packed(c);
    if (name == "relax.make_closure") return make_closure(c);
    if (name == "relax.invoke_closure" || name == "relax.invoke_pure_closure")
      return call_callable(expr(c->args.at(0)), tuple_fields(c, 1), c);
    if (name == "relax.call_inplace_packed") return call_inplace_packed(c);
    if (name == "relax.null_value") return own(b_.CreateCall(s_.runtime("raxc_rt_null"), {}));
    if (name == "relax.print") return print(c);
    if (name.starts_with("relax.inspect."))  // the runtime's functions of the same names
      return call_packed(name, exprs(c->args, 0), c->span);
    if (name == "relax.device") return device(c);
    if (name == "relax.assert_op") return assert_op(c);
    if (name == "relax.hint_on_device" || name == "relax.builtin.stop_lift_params")
      return expr(c->args.at(0));    // no effect at run time on one CPU
    if (name == "relax.to_vdevice")  // every vdevice is host memory: a copy, as to another device
      return call_packed("vm.builtin.to_device", {expr(c->args.at(0)), int_value(0), int_value(0)},
                         c->span);
    if (Value* v = memory_op(name, c)) return v;
    if (name == "relax.shape_to_tensor" && c->args.size() == 1)
      return own(b_.CreateCall(
          s_.runtime("raxc_rt_shape_to_tensor"),
          {expr(c->args[0]), s_.error_site(DiagId::RX5020, c->span,
                                           {"the argument of R.shape_to_tensor", "a shape"})}));
    if (name == "relax.tensor_to_shape" && c->args.size() == 1)
      return own(b_.CreateCall(
          s_.runtime("raxc_rt_tensor_to_shape"),
          {expr(c->args[0]),
           s_.error_site(DiagId::RX5020, c->span,
                         {"the argument of R.tensor_to_shape", "a 1-d integer tensor"})}));
    return nullptr;
  }

  // R.device(dev_type, index) of literal values: its name, as `raxc run` makes it.
  Value* device(const ir::Call* c) {
    auto literal = [&](size_t i, int64_t otherwise) -> int64_t {
      if (i >= c->args.size()) return otherwise;
      const auto* p = ir::dyn_cast<ir::PrimValue>(c->args[i]);
      const auto* imm = p ? ir::dyn_cast<ir::IntImm>(p->value) : nullptr;
      if (!imm) s_.refuse(c->args[i]->span, "an R.device argument that is not a literal");
      return imm->value;
    };
    if (c->args.empty()) s_.refuse(c->span, "R.device without a device type");
    std::string name = runtime::device_name(literal(0, 0), literal(1, 0));
    return own(b_.CreateCall(s_.runtime("raxc_value_string"), {s_.string_constant(name)}));
  }

  // ------------------------------------------------------------ R.print, R.assert_op

  // The `format` attribute, or null.
  const std::string* format_attr(const ir::Call* c) {
    const ir::AttrValue* a = c->attrs.find("format");
    return a ? a->get_if<std::string>() : nullptr;
  }

  // The printed form keeps a leading format string argument, as TVM's printer emits it.
  Value* print(const ir::Call* c) {
    size_t first = 0;
    std::string format;
    if (const std::string* f = format_attr(c); f && !f->empty()) {
      format = *f;
    } else if (!c->args.empty()) {
      if (const auto* s = ir::dyn_cast<ir::StringImm>(c->args[0])) {
        format = s->value;
        first = 1;
      }
    }
    std::vector<Value*> values = exprs(c->args, first);
    return own(b_.CreateCall(s_.runtime("raxc_rt_print"),
                             {s_.string_constant(format), handle_array(values),
                              b_.getInt32(static_cast<uint32_t>(values.size()))}));
  }

  Value* assert_op(const ir::Call* c) {
    if (c->args.empty()) s_.refuse(c->span, "R.assert_op without a condition");
    Value* condition = expr(c->args[0]);
    std::vector<Value*> values = exprs(c->args, 1);
    const std::string* f = format_attr(c);
    llvm::Value* format = f && !f->empty() ? static_cast<llvm::Value*>(s_.string_constant(*f))
                                           : llvm::ConstantPointerNull::get(b_.getPtrTy());
    return own(b_.CreateCall(
        s_.runtime("raxc_rt_assert"),
        {condition, format, handle_array(values), b_.getInt32(static_cast<uint32_t>(values.size())),
         s_.error_site(DiagId::RX5023, c->span, {}),
         s_.error_site(DiagId::RX5025, c->args[0]->span, {})}));
  }

  // ------------------------------------------------------------ explicit memory

  // The explicit-memory operators as the runtime's vm.builtin.* functions (the same ones
  // `raxc run` calls, backend/runtime/vm_builtins.cpp), the way TVM's VM lowers them. Null when
  // `name` is not one of them.
  Value* memory_op(const std::string& name, const ir::Call* c) {
    if (name == "relax.memory.alloc_storage") {
      // (size, virtual_device_index, storage_scope, dtype): `size` bytes.
      Operands ops{c, {"size", "virtual_device_index", "storage_scope", "dtype"}};
      return call_packed("vm.builtin.alloc_storage",
                         {operand(ops, 0), int_value(0), dtype_value(ir::DataType::UInt(8))},
                         c->span);
    }
    if (name == "relax.vm.alloc_storage") {
      // (size, runtime_device_index, dtype, storage_scope): size × dtype bytes.
      Operands ops{c, {"size", "runtime_device_index", "dtype", "storage_scope"}};
      return call_packed("vm.builtin.alloc_storage",
                         {operand(ops, 0), int_value(0), optional_operand(ops, 2)}, c->span);
    }
    if (name == "relax.memory.alloc_tensor" || name == "relax.vm.alloc_tensor") {
      Operands ops{c, {"storage", "offset", "shape", "dtype", "runtime_device_index"}};
      Value* offset = present(ops, 1) ? operand(ops, 1) : int_value(0);
      return call_packed("vm.builtin.alloc_tensor",
                         {operand(ops, 0), offset, operand(ops, 2), operand(ops, 3)}, c->span);
    }
    if (name == "relax.memory.view") {
      Operands ops{c, {"data", "shape", "dtype", "relative_byte_offset"}};
      Value* data = operand(ops, 0);
      Value* shape = present(ops, 1)
                         ? operand(ops, 1)
                         : own(b_.CreateCall(
                               s_.runtime("raxc_rt_shape_of"),
                               {data, s_.error_site(DiagId::RX5020, c->span,
                                                    {"the 'data' of R.memory.view", "a tensor"})}));
      return call_packed(
          "runtime.TVMTensorCreateView",
          {data, shape, optional_operand(ops, 2), present(ops, 3) ? operand(ops, 3) : int_value(0)},
          c->span);
    }
    if (name == "relax.memory.kill_storage" || name == "relax.memory.kill_tensor" ||
        name == "relax.vm.kill_object") {
      // The handle is released when the function returns; the kill only has to evaluate it.
      if (!c->args.empty()) expr(c->args[0]);
      return tuple_of({});
    }
    if (name == "relax.vm.call_tir_dyn") return vm_call_tir_dyn(c);
    if (name == "relax.builtin.alloc_tensor") {
      // (shape, dtype, runtime_device_index): a new zero-filled tensor.
      Operands ops{c, {"shape", "dtype", "runtime_device_index"}};
      return own(b_.CreateCall(
          s_.runtime("raxc_rt_empty"),
          {operand(ops, 0), operand(ops, 1), s_.error_site(DiagId::RX5026, c->span, {})}));
    }
    if (name == "relax.call_builtin_with_ctx") {
      // TVM passes the VM as a leading context argument; the runtime's built-ins take none.
      std::optional<std::string> symbol = packed_symbol(c);
      std::vector<Value*> args;
      if (c->args.size() > 1) {
        if (const auto* t = ir::dyn_cast<ir::Tuple>(c->args[1]))
          args = exprs(t->fields, 0);
        else
          s_.refuse(c->args[1]->span, "R.call_builtin_with_ctx arguments that are not a tuple");
      }
      return call_packed_or_value(c, symbol, args);
    }
    return nullptr;
  }

  // R.vm.call_tir_dyn(f, (args..., shape)): the PrimFunc f called with args and then the
  // shape's values as scalars; nothing returned.
  Value* vm_call_tir_dyn(const ir::Call* c) {
    const ir::GlobalDef* g = nullptr;
    if (const auto* gv = c->args.empty() ? nullptr : ir::dyn_cast<ir::GlobalVar>(c->args[0]))
      g = s_.library.module->find(gv->name);
    else if (const auto* s = c->args.empty() ? nullptr : ir::dyn_cast<ir::StringImm>(c->args[0]))
      g = s_.library.module->find(s->value);
    const auto* t = c->args.size() == 2 ? ir::dyn_cast<ir::Tuple>(c->args[1]) : nullptr;
    const auto* shape =
        t && !t->fields.empty() ? ir::dyn_cast<ir::ShapeExpr>(t->fields.back()) : nullptr;
    if (!g || !g->prim_func() || !shape)
      s_.refuse(c->span,
                "this form of R.vm.call_tir_dyn (a PrimFunc of the module and a tuple literal "
                "ending with a shape literal are compiled)");
    std::vector<Value*> args;
    for (size_t i = 0; i + 1 < t->fields.size(); ++i) args.push_back(expr(t->fields[i]));
    std::vector<Value*> scalars;
    for (const ir::PrimExpr* d : shape->values) scalars.push_back(prim(d));
    call_kernel(*g, args, scalars, c->span);
    return tuple_of({});
  }

  // An operator's operands by position or keyword (`R.memory.alloc_tensor(s, offset=0, ...)`
  // and the all-positional form TVM prints both occur).
  struct Operands {
    const ir::Call* call;
    std::vector<std::string_view> names;
  };

  const ir::AttrValue* operand_attr(const Operands& ops, size_t i) {
    const ir::AttrValue* a = ops.call->attrs.find(ops.names[i]);
    return a && !a->is_none() ? a : nullptr;
  }
  bool present(const Operands& ops, size_t i) {
    return i < ops.call->args.size() || operand_attr(ops, i);
  }
  Value* optional_operand(const Operands& ops, size_t i) {
    return present(ops, i) ? operand(ops, i) : own(b_.CreateCall(s_.runtime("raxc_rt_null"), {}));
  }

  Value* operand(const Operands& ops, size_t i) {
    if (i < ops.call->args.size()) return expr(ops.call->args[i]);
    const ir::AttrValue* a = operand_attr(ops, i);
    std::string what = "the '" + std::string(ops.names[i]) + "' of this call";
    if (!a) s_.refuse(ops.call->span, "this form of the call (without " + what + ")");
    if (const auto* e = a->get_if<const ir::Expr*>()) return expr(*e);
    if (const auto* n = a->get_if<int64_t>()) return int_value(*n);
    if (const auto* d = a->get_if<ir::DataType>()) return dtype_value(*d, a->span);
    if (const auto* s = a->get_if<std::string>())
      return own(b_.CreateCall(s_.runtime("raxc_value_string"), {s_.string_constant(*s)}));
    if (const auto* list = a->get_if<ir::AttrValue::List>()) {  // shape=[m, n]
      std::vector<const ir::PrimExpr*> dims;
      for (const ir::AttrValue& v : *list) {
        if (const auto* p = v.get_if<const ir::PrimExpr*>())
          dims.push_back(*p);
        else if (!v.get_if<int64_t>())
          s_.refuse(a->span.empty() ? ops.call->span : a->span, what);
      }
      if (dims.size() == list->size()) return shape(dims);
      std::vector<int64_t> ints;
      for (const ir::AttrValue& v : *list)
        if (const auto* n = v.get_if<int64_t>()) ints.push_back(*n);
      if (ints.size() == list->size()) {
        llvm::Constant* array = int64_array(ints, ".dims");
        return own(b_.CreateCall(s_.runtime("raxc_rt_shape"),
                                 {array, b_.getInt32(static_cast<uint32_t>(ints.size()))}));
      }
    }
    s_.refuse(a->span.empty() ? ops.call->span : a->span, what);
  }

  Value* int_value(int64_t v) {
    return own(b_.CreateCall(s_.runtime("raxc_rt_prim_int"),
                             {b_.getInt64(v), b_.getInt32(kDLInt), b_.getInt32(64)}));
  }
  Value* dtype_value(ir::DataType t, Span at = {}) {
    if (dl_code(t) < 0) s_.refuse(at, "a dtype value of '" + t.str() + "'");
    return own(
        b_.CreateCall(s_.runtime("raxc_rt_dtype"), {b_.getInt32(static_cast<uint32_t>(dl_code(t))),
                                                    b_.getInt32(t.bits), b_.getInt32(t.lanes)}));
  }

  // The name a packed call's first argument gives: R.ExternFunc, a string, a global
  // R.ExternFunc, or a variable bound to one of these in this function.
  std::optional<std::string> packed_symbol(const ir::Call* c) {
    const ir::Expr* e = c->args.empty() ? nullptr : c->args[0];
    for (int hops = 0; e && hops < 64; ++hops) {
      if (const auto* ef = ir::dyn_cast<ir::ExternFunc>(e)) return ef->global_symbol;
      if (const auto* s = ir::dyn_cast<ir::StringImm>(e)) return s->value;
      if (const auto* gv = ir::dyn_cast<ir::GlobalVar>(e)) {
        const ir::GlobalDef* g = s_.library.module->find(gv->name);
        if (g && g->extern_func()) return g->extern_func()->global_symbol;
        break;
      }
      const auto* v = ir::dyn_cast<ir::Var>(e);
      auto it = v ? bound_values_.find(v) : bound_values_.end();
      e = it == bound_values_.end() ? nullptr : it->second;
    }
    return std::nullopt;  // a value: called through raxc_rt_call_value
  }

  // A packed call: by name when the callee is one, else of the callee's value (a parameter
  // holding an R.ExternFunc, a closure).
  Value* call_packed_or_value(const ir::Call* c, const std::optional<std::string>& symbol,
                              const std::vector<Value*>& args) {
    if (symbol) return call_packed(*symbol, args, c->span);
    if (c->args.empty()) s_.refuse(c->span, "a packed call without a callee");
    return call_callable(expr(c->args[0]), args, c);
  }

  Value* call_packed(const std::string& symbol, const std::vector<Value*>& args, Span at) {
    return own(b_.CreateCall(s_.runtime("raxc_rt_call_packed"),
                             {s_.string_constant(symbol), handle_array(args),
                              b_.getInt32(static_cast<uint32_t>(args.size())),
                              s_.error_site(DiagId::RX5022, at, {symbol})}));
  }

  // A call whose callee is a value (a variable bound to R.ExternFunc, a parameter of function
  // type): through raxc_rt_call_value.
  Value* call_value(const ir::Call* c) {
    Value* callee = expr(c->op);
    return call_callable(callee, exprs(c->args, 0), c);
  }

  Value* call_callable(Value* callee, const std::vector<Value*>& args, const ir::Call* c) {
    const ir::Expr* callee_expr = ir::isa<ir::Op>(c->op) ? c->args.at(0) : c->op;
    const auto* var = ir::dyn_cast<ir::Var>(callee_expr);
    std::string callee_text = var ? "'" + var->name + "'" : "this value";
    return own(
        b_.CreateCall(s_.runtime("raxc_rt_call_value"),
                      {callee, handle_array(args), b_.getInt32(static_cast<uint32_t>(args.size())),
                       s_.error_site(DiagId::RX5027, c->span, {callee_text})}));
  }

  // The inputs of a destination-passing call (call_tir, call_dps_packed): its second argument,
  // a tuple literal's fields or one value.
  std::vector<Value*> dps_inputs(const ir::Call* c) {
    if (c->args.size() < 2) return {};
    if (const auto* t = ir::dyn_cast<ir::Tuple>(c->args[1])) return exprs(t->fields, 0);
    return {expr(c->args[1])};
  }

  // The outputs its out_sinfo describes (a tuple's fields, or the one); `is_tuple` says which.
  std::vector<const ir::StructInfo*> dps_outputs(const ir::Call* c, bool* is_tuple) {
    *is_tuple = ir::isa<ir::TupleSInfo>(c->sinfo_args[0]);
    if (*is_tuple) return ir::cast<ir::TupleSInfo>(c->sinfo_args[0])->fields;
    return {c->sinfo_args[0]};
  }

  // R.call_dps_packed(f, (inputs...), out_sinfo): f(inputs..., outputs...), the outputs
  // allocated here.
  Value* call_dps_packed(const ir::Call* c) {
    std::optional<std::string> symbol = packed_symbol(c);
    if (c->sinfo_args.empty()) s_.refuse(c->span, "a call_dps_packed without out_sinfo");
    std::vector<Value*> args = dps_inputs(c);
    bool is_tuple = false;
    std::vector<const ir::StructInfo*> outs = dps_outputs(c, &is_tuple);
    std::vector<Value*> results;
    for (const ir::StructInfo* o : outs) results.push_back(allocate(o));
    args.insert(args.end(), results.begin(), results.end());
    call_packed_or_value(c, symbol, args);
    return is_tuple ? tuple_of(results) : results[0];
  }

  // R.call_inplace_packed(f, args..., inplace_indices): f's result, or the arguments the
  // indices name when it returns nothing (raxc_rt_inplace_result).
  Value* call_inplace_packed(const ir::Call* c) {
    std::optional<std::string> symbol = packed_symbol(c);
    std::vector<Value*> args = exprs(c->args, 1);
    Value* returned = call_packed_or_value(c, symbol, args);
    std::vector<int64_t> indices = inplace_indices(c);
    return own(b_.CreateCall(
        s_.runtime("raxc_rt_inplace_result"),
        {returned, handle_array(args), b_.getInt32(static_cast<uint32_t>(args.size())),
         int64_array(indices, ".inplace"), b_.getInt32(static_cast<uint32_t>(indices.size())),
         s_.string_constant(symbol.value_or("the callee")),
         s_.error_site(DiagId::RX5032, c->span, {})}));
  }

  // Calls the kernel of PrimFunc `g` with `args` (tensors and prims) and then `scalars` (i64);
  // its scalar result becomes an R.Prim, none the empty tuple.
  Value* call_kernel(const ir::GlobalDef& g, const std::vector<Value*>& args,
                     const std::vector<Value*>& scalars, Span at) {
    size_t n = args.size() + scalars.size();
    llvm::AllocaInst* packed = entry_array(b_.getInt64Ty(), n, "packed");
    llvm::AllocaInst* kinds = entry_array(b_.getInt32Ty(), n, "kinds");
    for (size_t i = 0; i < args.size(); ++i) {
      Value* status =
          b_.CreateCall(s_.runtime("raxc_rt_pack"),
                        {args[i], b_.CreateConstGEP1_64(b_.getInt64Ty(), packed, i),
                         b_.CreateConstGEP1_64(b_.getInt32Ty(), kinds, i),
                         s_.error_site(DiagId::RX5003, at, {std::to_string(i), g.gvar->name})});
      fail_if(b_.CreateICmpNE(status, b_.getInt32(0)));
    }
    for (size_t i = 0; i < scalars.size(); ++i) {
      size_t k = args.size() + i;
      b_.CreateStore(scalars[i], b_.CreateConstGEP1_64(b_.getInt64Ty(), packed, k));
      b_.CreateStore(b_.getInt32(RAXC_ARG_INT), b_.CreateConstGEP1_64(b_.getInt32Ty(), kinds, k));
    }
    llvm::AllocaInst* ret = entry_array(b_.getInt64Ty(), 1, "ret");
    b_.CreateStore(b_.getInt64(0), ret);
    Value* status =
        b_.CreateCall(s_.kernel(g), {packed, kinds, b_.getInt32(static_cast<uint32_t>(n)), ret});
    fail_if(b_.CreateICmpNE(status, b_.getInt32(0)));
    const ir::PrimFunc& pf = *g.prim_func();
    if (!pf.ret_type || pf.ret_type->is_void()) return tuple_of({});
    ir::DataType t = *pf.ret_type;
    if (dl_code(t) < 0) s_.refuse(at, "a PrimFunc result of type '" + t.str() + "'");
    auto code = b_.getInt32(static_cast<uint32_t>(dl_code(t)));
    if (t.is_float())
      return own(b_.CreateCall(s_.runtime("raxc_rt_prim_float"),
                               {b_.CreateLoad(b_.getDoubleTy(), ret), code, b_.getInt32(t.bits)}));
    return own(b_.CreateCall(s_.runtime("raxc_rt_prim_int"),
                             {b_.CreateLoad(b_.getInt64Ty(), ret), code, b_.getInt32(t.bits)}));
  }

  // R.call_tir(f, (inputs...), out_sinfo, tir_vars): f(inputs..., outputs..., tir_vars...).
  // In place, output i is input inplace_indices[i], or a new tensor for -1.
  Value* call_tir(const ir::Call* c, bool inplace) {
    const auto* gv = c->args.empty() ? nullptr : ir::dyn_cast<ir::GlobalVar>(c->args[0]);
    const ir::GlobalDef* g = gv ? s_.library.module->find(gv->name) : nullptr;
    if (!g || !g->prim_func())
      s_.refuse(c->span, "a call_tir whose callee is not a PrimFunc of the module");
    if (c->sinfo_args.empty()) s_.refuse(c->span, "a call_tir without out_sinfo");
    std::vector<Value*> inputs = dps_inputs(c);
    std::vector<int64_t> indices;
    if (inplace) indices = inplace_indices(c);
    bool is_tuple = false;
    std::vector<const ir::StructInfo*> outs = dps_outputs(c, &is_tuple);
    std::vector<Value*> args = inputs, results;
    for (size_t i = 0; i < outs.size(); ++i) {
      int64_t index = i < indices.size() ? indices[i] : -1;
      if (index >= 0 && index < static_cast<int64_t>(inputs.size())) {
        results.push_back(inputs[index]);
        continue;
      }
      Value* fresh = allocate(outs[i]);
      args.push_back(fresh);
      results.push_back(fresh);
    }
    std::vector<Value*> scalars;
    if (c->args.size() > 2) {
      const auto* tir_vars = ir::dyn_cast<ir::ShapeExpr>(c->args[2]);
      if (!tir_vars) s_.refuse(c->args[2]->span, "tir_vars that are not a shape literal");
      for (const ir::PrimExpr* d : tir_vars->values) scalars.push_back(prim(d));
    }
    call_kernel(*g, args, scalars, c->span);
    return is_tuple ? tuple_of(results) : results[0];
  }

  std::vector<int64_t> inplace_indices(const ir::Call* c) {
    std::vector<int64_t> indices;
    if (const ir::AttrValue* a = c->attrs.find("inplace_indices")) {
      if (const auto* list = a->get_if<ir::AttrValue::List>()) {
        for (const ir::AttrValue& v : *list)
          if (const auto* i = v.get_if<int64_t>()) indices.push_back(*i);
      } else if (const auto* i = a->get_if<int64_t>()) {
        indices.push_back(*i);
      }
    }
    return indices;
  }

  // A tensor of an out_sinfo entry (its dims evaluated here), for the callee to fill.
  Value* allocate(const ir::StructInfo* s) {
    const auto* t = ir::dyn_cast<ir::TensorSInfo>(s);
    const auto* shape = t ? ir::dyn_cast<ir::ShapeExpr>(t->shape) : nullptr;
    if (!shape || t->dtype.is_void() || dl_code(t->dtype) < 0)
      s_.refuse(s->span, "an output whose shape or dtype is not known (out_sinfo must give both)");
    Value* dims = dims_array(shape->values);
    return own(
        b_.CreateCall(s_.runtime("raxc_rt_alloc"),
                      {dims, b_.getInt32(static_cast<uint32_t>(shape->values.size())),
                       b_.getInt32(static_cast<uint32_t>(dl_code(t->dtype))),
                       b_.getInt32(t->dtype.bits), s_.error_site(DiagId::RX5026, s->span, {})}));
  }

  RelaxModuleState& s_;
  llvm::IRBuilder<> b_;
  const ir::Function& f_;
  std::string name_;
  llvm::Function* fn_;
  llvm::BasicBlock *entry_ = nullptr, *cleanup_ = nullptr, *fail_ = nullptr;
  llvm::AllocaInst *status_ = nullptr, *slots_ = nullptr, *bound_ = nullptr;
  llvm::GlobalVariable* names_ = nullptr;
  std::vector<llvm::AllocaInst*> handles_;
  std::vector<std::string> slot_names_;
  std::unordered_map<const ir::PrimVar*, int> slot_of_;
  std::unordered_map<const ir::Var*, Value*> vars_;
  // What each variable of this function is bound to (a packed call's callee may be a variable
  // bound to R.ExternFunc).
  std::unordered_map<const ir::Var*, const ir::Expr*> bound_values_;
  Captures captures_;
  int local_functions_ = 0;
};

}  // namespace

void emit_relax_function(RelaxModuleState& state, const ir::GlobalDef& g, const ir::Function& f,
                         llvm::Function* fn) {
  FunctionEmitter(state, g.gvar->name, f, fn).emit();
}

}  // namespace raxc::backend
