// PrimExpr -> LLVM values. Integer semantics follow TVM: Div/Mod truncate, FloorDiv/FloorMod
// round toward negative infinity; a zero divisor is a run-time error (RX5010) instead of the
// undefined behaviour (SIGFPE on x86) LLVM would give it. Float Min/Max are IEEE 754-2019
// minimum/maximum: a NaN operand gives NaN, as numpy's does (operators.md leaves NaN
// propagation open; TVM's compare-select would give the other operand), and unlike a
// compare-select a max/min reduction loop of them vectorizes without fast-math flags. Which of
// -0 and +0 they return is left open (as a compare-select leaves it), which makes each a
// vmaxps and a NaN check instead of six instructions.
// Half-precision math is computed in float32 and rounded back.
#include <llvm/IR/Intrinsics.h>

#include "backend/codegen/tir_emitter.h"
#include "backend/codegen/vector_math.h"
#include "frontend/ir/walks.h"

namespace raxc::backend {

using llvm::Value;

llvm::Type* TirEmitter::value_type(ir::DataType t) {
  if (t.lanes > 1) return nullptr;
  switch (t.code) {
    case ir::DataType::Code::Int:
    case ir::DataType::Code::UInt: return builder_.getIntNTy(t.bits);
    case ir::DataType::Code::Float:
      if (t.bits == 16) return builder_.getHalfTy();
      if (t.bits == 32) return builder_.getFloatTy();
      if (t.bits == 64) return builder_.getDoubleTy();
      return nullptr;
    case ir::DataType::Code::BFloat: return t.bits == 16 ? builder_.getBFloatTy() : nullptr;
    case ir::DataType::Code::Handle: return t.bits == 0 ? nullptr : builder_.getPtrTy();
    default: return nullptr;
  }
}

llvm::Type* TirEmitter::storage_type(ir::DataType t) {
  if (t.is_bool()) return builder_.getInt8Ty();
  return value_type(t);
}

Value* TirEmitter::cast(Value* v, ir::DataType from, ir::DataType to) {
  if (from == to) return v;
  llvm::Type* target = value_type(to);
  if (!target || !v) return nullptr;
  if (to.is_bool()) {
    if (from.is_float()) return builder_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0));
    return builder_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from.is_integer()) {
    bool is_signed = from.is_int();
    if (to.is_integer()) return builder_.CreateIntCast(v, target, is_signed && !from.is_bool());
    if (to.is_float())
      return is_signed ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  }
  if (from.is_float()) {
    if (to.is_float()) {
      // bfloat16 <-> half has no direct instruction: go through float.
      if (v->getType()->isBFloatTy() || target->isBFloatTy()) {
        v = builder_.CreateFPCast(v, builder_.getFloatTy());
        return builder_.CreateFPCast(v, target);
      }
      return builder_.CreateFPCast(v, target);
    }
    if (to.is_integer()) {
      // Saturating conversion: an out-of-range float gives the nearest bound, NaN gives 0,
      // never poison.
      auto id = to.is_int() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      return builder_.CreateIntrinsic(id, {target, v->getType()}, {v});
    }
  }
  if (from.is_handle() || to.is_handle()) return nullptr;
  return nullptr;
}

Value* TirEmitter::as_i64(const ir::PrimExpr* e) {
  Value* v = expr(e);
  if (!v) return nullptr;
  if (!e->dtype.is_integer()) {
    unsupported(e->span, "a non-integer index or extent");
    return nullptr;
  }
  return builder_.CreateIntCast(v, builder_.getInt64Ty(), e->dtype.is_int());
}

Value* TirEmitter::expr(const ir::PrimExpr* e) {
  using K = ir::PrimKind;
  if (!e) return nullptr;
  if (e->dtype.lanes > 1) {
    unsupported(e->span, "a vector expression ('" + e->dtype.str() + "')");
    return nullptr;
  }
  switch (e->kind) {
    case K::IntImm: {
      llvm::Type* t = value_type(e->dtype);
      if (!t) break;
      return llvm::ConstantInt::get(t, static_cast<uint64_t>(ir::cast<ir::IntImm>(e)->value),
                                    e->dtype.is_int());
    }
    case K::FloatImm: {
      llvm::Type* t = value_type(e->dtype);
      if (!t) break;
      return llvm::ConstantFP::get(t, ir::cast<ir::FloatImm>(e)->value);
    }
    case K::StringImm: return string_constant(ir::cast<ir::PrimStringImm>(e)->value);
    case K::Var: {
      auto it = vars_.find(ir::cast<ir::PrimVar>(e));
      if (it != vars_.end()) return it->second;
      unsupported(e->span, "variable '" + ir::cast<ir::PrimVar>(e)->name +
                               "' used before it has a value (it is not bound by a parameter, "
                               "a buffer shape, a loop or a let)");
      return nullptr;
    }
    case K::Not: {
      Value* a = expr(ir::cast<ir::PrimNot>(e)->a);
      return a ? builder_.CreateNot(a) : nullptr;
    }
    case K::Select: {
      const auto* s = ir::cast<ir::PrimSelect>(e);
      Value* c = expr(s->condition);
      Value* t = expr(s->true_value);
      Value* f = expr(s->false_value);
      return c && t && f ? builder_.CreateSelect(c, t, f) : nullptr;
    }
    case K::Cast: {
      const auto* c = ir::cast<ir::PrimCast>(e);
      ExactDivision exact(*this, c->value->dtype.is_float() && !c->dtype.is_float());
      Value* v = expr(c->value);
      if (!v) return nullptr;
      Value* r = cast(v, c->value->dtype, c->dtype);
      if (!r)
        unsupported(e->span, "a cast from " + c->value->dtype.str() + " to " + c->dtype.str());
      return r;
    }
    case K::BufferLoad: return load(ir::cast<ir::BufferLoad>(e));
    case K::Call: return call(ir::cast<ir::PrimCall>(e));
    case K::Let: {
      const auto* l = ir::cast<ir::PrimLet>(e);
      Value* v = expr(l->value);
      if (!v) return nullptr;
      auto saved = vars_.find(l->var) != vars_.end() ? std::optional(vars_[l->var]) : std::nullopt;
      vars_[l->var] = v;
      Value* body = expr(l->body);
      if (saved)
        vars_[l->var] = *saved;
      else
        vars_.erase(l->var);
      return body;
    }
    default:
      if (const auto* b = ir::dyn_cast<ir::PrimBinary>(e)) return binary(b);
      break;
  }
  unsupported(e->span, "an expression of type '" + e->dtype.str() + "'");
  return nullptr;
}

Value* TirEmitter::int_division(const ir::PrimBinary* e, Value* a, Value* b) {
  using K = ir::PrimKind;
  bool is_signed = e->a->dtype.is_int();
  llvm::Type* t = a->getType();
  // A zero divisor is an error; INT_MIN / -1 overflows (x86 traps): its quotient wraps to
  // INT_MIN and its remainder is 0, as two's complement arithmetic gives.
  if (!llvm::isa<llvm::ConstantInt>(b) || llvm::cast<llvm::ConstantInt>(b)->isZero())
    fail_if(builder_.CreateICmpEQ(b, llvm::ConstantInt::get(t, 0)),
            error_site(DiagId::RX5010, e->span, {name_}, 0));
  Value* safe_b = b;
  if (is_signed && !llvm::isa<llvm::ConstantInt>(b)) {
    Value* overflow = builder_.CreateAnd(
        builder_.CreateICmpEQ(
            a, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(t->getIntegerBitWidth()))),
        builder_.CreateICmpEQ(b, llvm::ConstantInt::get(t, -1, true)));
    safe_b = builder_.CreateSelect(overflow, llvm::ConstantInt::get(t, 1), b);
  }
  Value* q = is_signed ? builder_.CreateSDiv(a, safe_b) : builder_.CreateUDiv(a, safe_b);
  Value* r = is_signed ? builder_.CreateSRem(a, safe_b) : builder_.CreateURem(a, safe_b);
  if (safe_b != b) {  // a / 1 = a = INT_MIN (the wrapped quotient); remainder 0 either way
    Value* overflow = builder_.CreateICmpNE(safe_b, b);
    q = builder_.CreateSelect(overflow, a, q);
  }
  if (e->kind == K::Div) return q;
  if (e->kind == K::Mod) return r;
  if (!is_signed) return e->kind == K::FloorDiv ? q : r;
  // Floor: when the remainder is non-zero and its sign differs from the divisor's, step down.
  Value* zero = llvm::ConstantInt::get(t, 0);
  Value* adjust = builder_.CreateAnd(
      builder_.CreateICmpNE(r, zero),
      builder_.CreateICmpNE(builder_.CreateICmpSLT(r, zero), builder_.CreateICmpSLT(b, zero)));
  if (e->kind == K::FloorDiv)
    return builder_.CreateSelect(adjust, builder_.CreateSub(q, llvm::ConstantInt::get(t, 1)), q);
  return builder_.CreateSelect(adjust, builder_.CreateAdd(r, b), r);
}

Value* TirEmitter::binary(const ir::PrimBinary* e) {
  using K = ir::PrimKind;
  Value* a = expr(e->a);
  Value* b = expr(e->b);
  if (!a || !b) return nullptr;
  ir::DataType t = e->a->dtype;
  if (e->kind == K::And) return builder_.CreateAnd(a, b);
  if (e->kind == K::Or) return builder_.CreateOr(a, b);
  if (a->getType() != b->getType()) {
    unsupported(e->span, "operands of different types (" + e->a->dtype.str() + ", " +
                             e->b->dtype.str() + ")");
    return nullptr;
  }
  if (t.is_float()) {
    switch (e->kind) {
      case K::Add: return builder_.CreateFAdd(a, b);
      case K::Sub: return builder_.CreateFSub(a, b);
      case K::Mul: return builder_.CreateFMul(a, b);
      case K::Div: {
        Value* q = builder_.CreateFDiv(a, b);
        if (auto* div = llvm::dyn_cast<llvm::Instruction>(q); div && reciprocal_allowed(e->b))
          div->setHasAllowReciprocal(true);
        return q;
      }
      case K::Mod: return builder_.CreateFRem(a, b);
      case K::FloorDiv:
        return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
      case K::FloorMod: {
        Value* q = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
        return builder_.CreateFSub(a, builder_.CreateFMul(q, b));
      }
      case K::Min:
      case K::Max: {
        Value* m = builder_.CreateBinaryIntrinsic(
            e->kind == K::Min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum, a, b);
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(m)) call->setHasNoSignedZeros(true);
        return m;
      }
      case K::EQ: return builder_.CreateFCmpOEQ(a, b);
      case K::NE: return builder_.CreateFCmpUNE(a, b);
      case K::LT: return builder_.CreateFCmpOLT(a, b);
      case K::LE: return builder_.CreateFCmpOLE(a, b);
      case K::GT: return builder_.CreateFCmpOGT(a, b);
      case K::GE: return builder_.CreateFCmpOGE(a, b);
      default: break;
    }
  } else if (t.is_integer()) {
    bool s = t.is_int();
    switch (e->kind) {
      case K::Add: return builder_.CreateAdd(a, b);
      case K::Sub: return builder_.CreateSub(a, b);
      case K::Mul: return builder_.CreateMul(a, b);
      case K::Div:
      case K::Mod:
      case K::FloorDiv:
      case K::FloorMod: return int_division(e, a, b);
      case K::Min:
        return builder_.CreateSelect(
            s ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b), a, b);
      case K::Max:
        return builder_.CreateSelect(
            s ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpUGT(a, b), a, b);
      case K::EQ: return builder_.CreateICmpEQ(a, b);
      case K::NE: return builder_.CreateICmpNE(a, b);
      case K::LT: return s ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b);
      case K::LE: return s ? builder_.CreateICmpSLE(a, b) : builder_.CreateICmpULE(a, b);
      case K::GT: return s ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpUGT(a, b);
      case K::GE: return s ? builder_.CreateICmpSGE(a, b) : builder_.CreateICmpUGE(a, b);
      default: break;
    }
  } else if (t.is_handle() && (e->kind == K::EQ || e->kind == K::NE)) {
    return e->kind == K::EQ ? builder_.CreateICmpEQ(a, b) : builder_.CreateICmpNE(a, b);
  }
  unsupported(e->span, "this operator on '" + t.str() + "'");
  return nullptr;
}

Value* TirEmitter::load(const ir::BufferLoad* e) {
  Value* address = element_address(e->buffer, e->indices, e->span);
  llvm::Type* t = storage_type(e->buffer->dtype);
  if (!address || !t) {
    if (address) unsupported(e->span, "a buffer of dtype '" + e->buffer->dtype.str() + "'");
    return nullptr;
  }
  llvm::LoadInst* load = builder_.CreateLoad(t, address);
  alias_scopes_.annotate(load, e->buffer);
  Value* v = load;
  if (e->buffer->dtype.is_bool()) v = builder_.CreateICmpNE(v, builder_.getInt8(0));
  return cast(v, e->buffer->dtype, e->dtype);
}

namespace {

struct MathFn {
  const char* name;
  llvm::Intrinsic::ID intrinsic;  // not_intrinsic: a libm call
  const char* libm;               // the double-precision libm name
};

const MathFn* find_math(std::string_view name) {
  static const MathFn table[] = {
      {"exp", llvm::Intrinsic::not_intrinsic, "exp"},  // float32: emit_exp_f32
      {"exp2", llvm::Intrinsic::not_intrinsic, "exp2"},
      {"exp10", llvm::Intrinsic::not_intrinsic, "exp10"},
      {"log", llvm::Intrinsic::not_intrinsic, "log"},
      {"log2", llvm::Intrinsic::not_intrinsic, "log2"},
      {"log10", llvm::Intrinsic::not_intrinsic, "log10"},
      {"log1p", llvm::Intrinsic::not_intrinsic, "log1p"},
      {"sqrt", llvm::Intrinsic::sqrt, "sqrt"},
      {"fabs", llvm::Intrinsic::fabs, "fabs"},
      {"floor", llvm::Intrinsic::floor, "floor"},
      {"ceil", llvm::Intrinsic::ceil, "ceil"},
      // TVM lowers T.round to nearbyint: halves round to even, as numpy does.
      {"round", llvm::Intrinsic::nearbyint, "nearbyint"},
      {"nearbyint", llvm::Intrinsic::nearbyint, "nearbyint"},
      {"trunc", llvm::Intrinsic::trunc, "trunc"},
      {"sin", llvm::Intrinsic::not_intrinsic, "sin"},
      {"cos", llvm::Intrinsic::not_intrinsic, "cos"},
      {"tan", llvm::Intrinsic::not_intrinsic, "tan"},
      {"asin", llvm::Intrinsic::not_intrinsic, "asin"},
      {"acos", llvm::Intrinsic::not_intrinsic, "acos"},
      {"atan", llvm::Intrinsic::not_intrinsic, "atan"},
      {"sinh", llvm::Intrinsic::not_intrinsic, "sinh"},
      {"cosh", llvm::Intrinsic::not_intrinsic, "cosh"},
      {"tanh", llvm::Intrinsic::not_intrinsic, "tanh"},
      {"asinh", llvm::Intrinsic::not_intrinsic, "asinh"},
      {"acosh", llvm::Intrinsic::not_intrinsic, "acosh"},
      {"atanh", llvm::Intrinsic::not_intrinsic, "atanh"},
      {"erf", llvm::Intrinsic::not_intrinsic, "erf"},
      {"pow", llvm::Intrinsic::not_intrinsic, "pow"},
      {"atan2", llvm::Intrinsic::not_intrinsic, "atan2"},
      {"fmod", llvm::Intrinsic::not_intrinsic, "fmod"},
      {"hypot", llvm::Intrinsic::not_intrinsic, "hypot"},
      {"copysign", llvm::Intrinsic::copysign, "copysign"},
      {"nextafter", llvm::Intrinsic::not_intrinsic, "nextafter"},
  };
  for (const MathFn& f : table)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

// `x / d` may become `x * (1 / d)` (one more rounding, at most an ulp) with the reciprocal
// computed once outside the loop, when `d` does not change in the innermost loop — softmax's
// division by its row sum; a division per element costs as much as the exp before it. Not
// where the quotient is rounded to an integer (floor, ceil, trunc, round, a cast to an integer:
// a quotient one ulp below 1.0 would change the result), and not by a constant, which LLVM
// keeps exact.
bool TirEmitter::reciprocal_allowed(const ir::PrimExpr* divisor) const {
  if (exact_divisions_ > 0 || varying_.empty()) return false;
  if (ir::isa<ir::FloatImm>(divisor) || ir::isa<ir::IntImm>(divisor)) return false;
  return !varies(divisor);
}

bool TirEmitter::varies(const ir::PrimExpr* e) const {
  if (varying_.empty()) return false;
  for (const ir::PrimVar* v : ir::prim_vars(e))
    if (varying_.back().count(v)) return true;
  return false;
}

// A floating-point math function: an LLVM intrinsic where the target has an instruction for it
// (sqrt, floor, ...), float32 exp inline, else libm (`sinf` for float32, `sin` for float64)
// naming SLEEF's vector versions (vector_math.h). float16/bfloat16 go through float32.
Value* TirEmitter::math_call(const ir::PrimCall* e, const std::string& fn) {
  const MathFn* m = find_math(fn);
  ExactDivision exact(
      *this, fn == "floor" || fn == "ceil" || fn == "trunc" || fn == "round" || fn == "nearbyint");
  std::vector<Value*> args;
  for (const ir::PrimExpr* a : e->args) {
    Value* v = expr(a);
    if (!v) return nullptr;
    if (!a->dtype.is_float()) {
      unsupported(e->span, "'T." + fn + "' on '" + a->dtype.str() + "'");
      return nullptr;
    }
    args.push_back(v);
  }
  ir::DataType t = e->args[0]->dtype;
  bool narrow = t.bits == 16;
  ir::DataType compute = narrow ? ir::DataType::Float(32) : t;
  if (narrow)
    for (Value*& v : args) v = cast(v, t, compute);
  llvm::Type* ct = value_type(compute);
  Value* r = nullptr;
  auto exp = [&](Value* x) {
    return compute.bits == 32 ? emit_exp_f32(builder_, x)
                              : emit_libm_call(builder_, "exp", ct, {x});
  };
  if (fn == "exp") {
    r = exp(args[0]);
  } else if (fn == "erf" && compute.bits == 32) {
    r = emit_erf_f32(builder_, args[0]);
  } else if (fn == "sigmoid") {  // 1 / (1 + exp(-x))
    Value* ex = exp(builder_.CreateFNeg(args[0]));
    r = builder_.CreateFDiv(llvm::ConstantFP::get(ct, 1.0),
                            builder_.CreateFAdd(llvm::ConstantFP::get(ct, 1.0), ex));
  } else if (fn == "rsqrt") {
    r = builder_.CreateFDiv(llvm::ConstantFP::get(ct, 1.0),
                            builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]));
  } else if (fn == "ldexp") {
    unsupported(e->span, "'T.ldexp'");
    return nullptr;
  } else if (m && m->intrinsic != llvm::Intrinsic::not_intrinsic) {
    r = builder_.CreateIntrinsic(m->intrinsic, {ct}, args);
  } else if (m) {
    r = emit_libm_call(builder_, std::string(m->libm) + (compute.bits == 32 ? "f" : ""), ct, args);
  } else {
    unsupported(e->span, "'T." + fn + "'");
    return nullptr;
  }
  return narrow ? cast(r, compute, t) : r;
}

Value* TirEmitter::call(const ir::PrimCall* e) {
  std::string_view op = e->op;
  std::string fn(op.starts_with("tir.") ? op.substr(4) : op);
  auto arg = [&](size_t i) { return i < e->args.size() ? expr(e->args[i]) : nullptr; };
  auto arity = [&](size_t n) {
    if (e->args.size() == n) return true;
    unsupported(e->span, "'T." + fn + "' with " + std::to_string(e->args.size()) + " arguments");
    return false;
  };
  if (fn == "attr" || fn == "assume") {
    // Hints for TVM's passes (T.attr's pragmas and scopes, T.assume's facts): nothing to do
    // at run time on a CPU. Their operands are not evaluated (they have no effects).
    return builder_.getInt32(0);
  }
  if (fn == "if_then_else") {
    // Lazy: the branch not taken may load out of bounds (TVM guards padding this way).
    if (!arity(3)) return nullptr;
    Value* c = arg(0);
    if (!c) return nullptr;
    llvm::BasicBlock* then_bb = new_block("ite.then");
    llvm::BasicBlock* else_bb = new_block("ite.else");
    llvm::BasicBlock* join = new_block("ite.join");
    builder_.CreateCondBr(c, then_bb, else_bb);
    builder_.SetInsertPoint(then_bb);
    Value* t = arg(1);
    llvm::BasicBlock* then_end = builder_.GetInsertBlock();
    builder_.CreateBr(join);
    builder_.SetInsertPoint(else_bb);
    Value* f = arg(2);
    llvm::BasicBlock* else_end = builder_.GetInsertBlock();
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
    if (!t || !f) return nullptr;
    llvm::PHINode* phi = builder_.CreatePHI(t->getType(), 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }
  if (fn == "likely") return arity(1) ? arg(0) : nullptr;
  if (fn == "reinterpret") {
    if (!arity(1)) return nullptr;
    Value* v = arg(0);
    llvm::Type* t = value_type(e->dtype);
    if (!v || !t) return nullptr;
    if (v->getType()->getPrimitiveSizeInBits() != t->getPrimitiveSizeInBits()) {
      unsupported(e->span, "'T.reinterpret' between types of different sizes");
      return nullptr;
    }
    return builder_.CreateBitCast(v, t);
  }
  if (fn == "isnan" || fn == "isinf" || fn == "isfinite") {
    if (!arity(1)) return nullptr;
    Value* v = arg(0);
    if (!v) return nullptr;
    if (!e->args[0]->dtype.is_float()) return builder_.getInt1(fn == "isfinite");
    if (fn == "isnan") return builder_.CreateFCmpUNO(v, v);
    Value* absv = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    Value* inf = llvm::ConstantFP::getInfinity(v->getType());
    return fn == "isinf" ? builder_.CreateFCmpOEQ(absv, inf) : builder_.CreateFCmpOLT(absv, inf);
  }
  if (fn == "popcount" || fn == "clz") {
    if (!arity(1)) return nullptr;
    Value* v = arg(0);
    if (!v) return nullptr;
    if (fn == "popcount") return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v);
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, v, builder_.getFalse());
  }
  if (fn == "bitwise_not") return arity(1) && arg(0) ? builder_.CreateNot(arg(0)) : nullptr;
  if (fn == "bitwise_and" || fn == "bitwise_or" || fn == "bitwise_xor" || fn == "shift_left" ||
      fn == "shift_right") {
    if (!arity(2)) return nullptr;
    Value* a = arg(0);
    Value* b = arg(1);
    if (!a || !b) return nullptr;
    if (fn == "bitwise_and") return builder_.CreateAnd(a, b);
    if (fn == "bitwise_or") return builder_.CreateOr(a, b);
    if (fn == "bitwise_xor") return builder_.CreateXor(a, b);
    if (fn == "shift_left") return builder_.CreateShl(a, b);
    return e->args[0]->dtype.is_int() ? builder_.CreateAShr(a, b) : builder_.CreateLShr(a, b);
  }
  if (fn == "call_extern" || fn == "call_pure_extern") {
    // T.call_extern("dtype", "symbol", args...): a C function of the process (libm, libc).
    const auto* symbol = e->args.empty() ? nullptr : ir::dyn_cast<ir::PrimStringImm>(e->args[0]);
    llvm::Type* ret = e->dtype.is_void() ? builder_.getVoidTy() : value_type(e->dtype);
    if (!symbol || !ret) {
      unsupported(e->span, "this form of 'T." + fn + "'");
      return nullptr;
    }
    std::vector<Value*> args;
    std::vector<llvm::Type*> types;
    for (size_t i = 1; i < e->args.size(); ++i) {
      Value* v = expr(e->args[i]);
      if (!v) return nullptr;
      if (e->args[i]->dtype.is_bool()) v = builder_.CreateZExt(v, builder_.getInt32Ty());
      args.push_back(v);
      types.push_back(v->getType());
    }
    llvm::FunctionCallee callee =
        module_.getOrInsertFunction(symbol->value, llvm::FunctionType::get(ret, types, false));
    Value* r = builder_.CreateCall(callee, args);
    return ret->isVoidTy() ? builder_.getInt32(0) : r;
  }
  if (find_math(fn) || fn == "sigmoid" || fn == "rsqrt" || fn == "ldexp") {
    if (e->args.empty()) return arity(1) ? nullptr : nullptr;
    return math_call(e, fn);
  }
  unsupported(e->span, "the intrinsic '" + std::string(op) + "'");
  return nullptr;
}

}  // namespace raxc::backend
