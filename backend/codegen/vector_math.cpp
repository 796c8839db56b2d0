// Vectorizable math (vector_math.h): an inline float32 exp, and libm calls that name SLEEF's
// vector versions through the vector-function ABI attribute the loop vectorizer reads.
#include "backend/codegen/vector_math.h"

#include <dlfcn.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <functional>
#include <vector>

namespace raxc::backend {

using llvm::Value;

namespace {

// An always-inline `float name(float x)` whose body `build` returns, built once per module;
// NaN in gives NaN out whatever the body does with it.
using BodyBuilder = std::function<Value*(llvm::IRBuilderBase& b, Value* x)>;
llvm::Function* inline_f32_function(llvm::Module& module, const char* name,
                                    const BodyBuilder& build) {
  if (llvm::Function* f = module.getFunction(name)) return f;
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(context);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false),
                                   llvm::GlobalValue::InternalLinkage, name, module);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->setDoesNotAccessMemory();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  Value* x = f->getArg(0);
  Value* result = build(b, x);
  b.CreateRet(b.CreateSelect(b.CreateFCmpUNO(x, x), x, result));
  return f;
}

// `x` clamped to [lo, hi] (NaN becomes a bound; inline_f32_function restores it).
Value* clamp(llvm::IRBuilderBase& b, Value* x, double lo, double hi) {
  llvm::Type* t = x->getType();
  return b.CreateBinaryIntrinsic(
      llvm::Intrinsic::minnum,
      b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, llvm::ConstantFP::get(t, lo)),
      llvm::ConstantFP::get(t, hi));
}

// exp(x) = 2^n · e^r with n = rint(x / ln 2) and r = x - n·ln 2 in [-ln2/2, ln2/2]; ln 2 is
// split into a part exact in a few bits and a correction so that n·ln 2 loses nothing; e^r is
// 1 + r + r²·P(r), P the degree-5 minimax polynomial of the Cephes library's expf. 2^n is
// applied as two factors 2^(n/2) and 2^(n - n/2), each a normal float for every n the clamp
// allows, so results near overflow and in the denormal range round once instead of flushing.
llvm::Function* exp_f32_function(llvm::Module& module) {
  return inline_f32_function(module, "raxc.exp.f32", [](llvm::IRBuilderBase& b, Value* x) {
    llvm::Type* f32 = x->getType();
    llvm::Type* i32 = b.getInt32Ty();
    auto c = [&](double v) { return llvm::ConstantFP::get(f32, v); };
    // Past these bounds the result is +inf or 0 whatever the rounding.
    Value* clamped = clamp(b, x, -104.0, 89.0);
    Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::rint,
                                      b.CreateFMul(clamped, c(1.44269504088896341)));
    Value* r = b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {n, c(-0.693359375), clamped});
    r = b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {n, c(2.12194440e-4), r});
    const double p[] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                        4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
    Value* poly = c(p[0]);
    for (size_t i = 1; i < std::size(p); ++i)
      poly = b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {poly, r, c(p[i])});
    Value* er = b.CreateFAdd(
        b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {b.CreateFMul(r, r), poly, r}), c(1.0));
    Value* ni = b.CreateFPToSI(n, i32);
    Value* half = b.CreateAShr(ni, 1);
    auto pow2 = [&](Value* k) {  // 2^k for k in [-126, 127]: the exponent field alone
      return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), f32);
    };
    return b.CreateFMul(b.CreateFMul(er, pow2(half)), pow2(b.CreateSub(ni, half)));
  });
}

// erf(x) = x · P(x²) / Q(x²) on [-4, 4] (outside it erf rounds to ±1 in float32): P of degree
// 6 and Q of degree 4 in x², a rational fit to erf's relative error made for raxc by
// iterated weighted least squares (within 6 ulp; SLEEF's vector erf is 1 ulp but about ten
// times slower, and GELU spends its time here).
llvm::Function* erf_f32_function(llvm::Module& module) {
  return inline_f32_function(module, "raxc.erf.f32", [](llvm::IRBuilderBase& b, Value* x) {
    llvm::Type* f32 = x->getType();
    Value* clamped = clamp(b, x, -4.0, 4.0);
    Value* t = b.CreateFMul(clamped, clamped);
    auto horner = [&](std::initializer_list<double> highest_first) {
      Value* acc = nullptr;
      for (double k : highest_first) {
        Value* ck = llvm::ConstantFP::get(f32, k);
        acc = acc ? b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {acc, t, ck}) : ck;
      }
      return acc;
    };
    Value* p = horner({1.967192328e-08, -1.942187023e-06, 1.412652185e-04, 3.699838348e-03,
                       5.057508006e-02, 2.000434868e-01, 1.128379115e+00});
    Value* q = horner({9.539218874e-04, 1.435406281e-02, 1.150345719e-01, 5.106157212e-01, 1.0});
    return b.CreateFDiv(b.CreateFMul(clamped, p), q);
  });
}

// SLEEF's accuracy suffix for a libm function it has vector versions of; null if it has none.
const char* sleef_suffix(std::string_view base) {
  static const char* const with_u10[] = {"exp",   "exp2",  "exp10", "expm1", "log",   "log2",
                                         "log10", "log1p", "sin",   "cos",   "tan",   "asin",
                                         "acos",  "atan",  "sinh",  "cosh",  "tanh",  "asinh",
                                         "acosh", "atanh", "erf",   "pow",   "atan2", "cbrt"};
  for (const char* f : with_u10)
    if (base == f) return "_u10";
  if (base == "hypot") return "_u05";
  if (base == "fmod" || base == "nextafter") return "";
  return nullptr;
}

// Loaded process-wide (RTLD_GLOBAL): the check of the kernels' calls before linking finds it.
bool sleef_available() {
  static const bool loaded = dlopen(kSleefLibrary, RTLD_NOW | RTLD_GLOBAL) != nullptr;
  return loaded;
}

// Declares SLEEF's 128-, 256- and 512-bit versions of `symbol` and names them on `call`.
void add_vector_variants(llvm::CallInst* call, const std::string& symbol, llvm::Type* type) {
  bool is_f32 = type->isFloatTy();
  std::string base = is_f32 ? symbol.substr(0, symbol.size() - 1) : symbol;
  const char* suffix = sleef_suffix(base);
  if (!suffix || !(is_f32 || type->isDoubleTy()) || !sleef_available()) return;
  llvm::Module& module = *call->getModule();
  unsigned arity = call->arg_size();
  std::string variants;
  const std::vector<unsigned> widths =
      is_f32 ? std::vector<unsigned>{4, 8, 16} : std::vector<unsigned>{2, 4, 8};
  for (unsigned lanes : widths) {
    std::string vector_name =
        "Sleef_" + base + (is_f32 ? "f" : "d") + std::to_string(lanes) + suffix;
    auto* vector_type = llvm::FixedVectorType::get(type, lanes);
    llvm::FunctionCallee vector_fn = module.getOrInsertFunction(
        vector_name,
        llvm::FunctionType::get(vector_type, std::vector<llvm::Type*>(arity, vector_type), false));
    llvm::appendToCompilerUsed(module, {llvm::cast<llvm::GlobalValue>(vector_fn.getCallee())});
    if (!variants.empty()) variants += ",";
    variants += "_ZGV_LLVM_N" + std::to_string(lanes) + std::string(arity, 'v') + "_" + symbol +
                "(" + vector_name + ")";
  }
  call->addFnAttr(
      llvm::Attribute::get(call->getContext(), "vector-function-abi-variant", variants));
}

}  // namespace

bool calls_sleef(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    if (f.getName().starts_with("Sleef_"))
      for (const llvm::User* user : f.users())
        if (llvm::isa<llvm::CallBase>(user)) return true;
  return false;
}

Value* emit_exp_f32(llvm::IRBuilderBase& builder, Value* x) {
  llvm::Module& module = *builder.GetInsertBlock()->getModule();
  return builder.CreateCall(exp_f32_function(module), {x});
}

Value* emit_erf_f32(llvm::IRBuilderBase& builder, Value* x) {
  llvm::Module& module = *builder.GetInsertBlock()->getModule();
  return builder.CreateCall(erf_f32_function(module), {x});
}

Value* emit_libm_call(llvm::IRBuilderBase& builder, const std::string& symbol, llvm::Type* type,
                      llvm::ArrayRef<Value*> args) {
  llvm::Module& module = *builder.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee = module.getOrInsertFunction(
      symbol, llvm::FunctionType::get(type, std::vector<llvm::Type*>(args.size(), type), false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // libm's math functions read nothing but their arguments here (errno is not inspected):
    // a call the vectorizer may widen must not touch memory.
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  llvm::CallInst* call = builder.CreateCall(callee, args);
  add_vector_variants(call, symbol, type);
  return call;
}

}  // namespace raxc::backend
