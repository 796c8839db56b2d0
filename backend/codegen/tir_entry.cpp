// The packed entry of a compiled PrimFunc: argument count and kinds, then every buffer of the
// buffer map bound to its DLTensor in parameter order (ndim, dtype, each dimension binding a
// symbolic variable at its first occurrence and checked against it afterwards, strides,
// element offset), scalar parameters, then the body. Also the helpers every part of the code
// generator uses to raise a located run-time error.
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backend/codegen/tir_emitter.h"
#include "backend/runtime/raxc_runtime.h"

namespace raxc::backend {

using llvm::Value;

TirEmitter::TirEmitter(llvm::Module& module, const ir::PrimFunc& func, const std::string& name,
                       const CodegenOptions& options, DiagnosticSink& diags)
    : module_(module),
      context_(module.getContext()),
      builder_(module.getContext()),
      func_(func),
      name_(name),
      options_(options),
      diags_(diags),
      alias_scopes_(module.getContext(), func, name) {
  llvm::Type* ptr = builder_.getPtrTy();
  llvm::Type* i32 = builder_.getInt32Ty();
  // DLTensor (dlpack 0.6): data, device{i32,i32}, ndim, dtype{u8,u8,u16}, shape, strides,
  // byte_offset.
  dltensor_type_ = llvm::StructType::get(
      context_, {ptr, llvm::StructType::get(context_, {i32, i32}), i32,
                 llvm::StructType::get(
                     context_, {builder_.getInt8Ty(), builder_.getInt8Ty(), builder_.getInt16Ty()}),
                 ptr, ptr, builder_.getInt64Ty()});
  // RaxcErrorSite: code, begin, end, num_static, num_values, args.
  site_type_ = llvm::StructType::get(context_, {ptr, i32, i32, i32, i32, ptr});
}

void TirEmitter::unsupported(Span at, const std::string& what) {
  failed_ = true;
  diags_.report(
      make_diagnostic(diag::UnsupportedOnCpu{.what = what + " (in '" + name_ + "')"}, at));
}

llvm::Constant* TirEmitter::string_constant(const std::string& text) {
  auto* init = llvm::ConstantDataArray::getString(context_, text, true);
  auto* g = new llvm::GlobalVariable(module_, init->getType(), true,
                                     llvm::GlobalValue::PrivateLinkage, init, ".str");
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return g;
}

llvm::Constant* TirEmitter::error_site(DiagId code, Span at,
                                       const std::vector<std::string>& statics, int num_values) {
  std::vector<llvm::Constant*> args;
  for (const std::string& s : statics) args.push_back(string_constant(s));
  auto* array_type = llvm::ArrayType::get(builder_.getPtrTy(), args.size());
  auto* array =
      new llvm::GlobalVariable(module_, array_type, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(array_type, args), ".args");
  auto* site = llvm::ConstantStruct::get(
      site_type_,
      {string_constant(raxc::code(code)), builder_.getInt32(at.begin), builder_.getInt32(at.end),
       builder_.getInt32(static_cast<int>(statics.size())), builder_.getInt32(num_values), array});
  return new llvm::GlobalVariable(module_, site_type_, true, llvm::GlobalValue::PrivateLinkage,
                                  site, ".site");
}

llvm::Function* TirEmitter::runtime_function(const char* name) {
  llvm::Type* ptr = builder_.getPtrTy();
  llvm::Type* i64t = builder_.getInt64Ty();
  llvm::FunctionType* type = nullptr;
  std::string_view n = name;
  if (n == "raxc_fail") {
    type = llvm::FunctionType::get(builder_.getInt32Ty(), {ptr, i64t, i64t, i64t}, false);
  } else if (n == "raxc_workspace_alloc") {
    type = llvm::FunctionType::get(ptr, {i64t, ptr}, false);
  } else if (n == "raxc_parallel_for") {
    type = llvm::FunctionType::get(builder_.getInt32Ty(), {i64t, i64t, ptr, ptr}, false);
  } else if (n == "raxc_workspace_free") {
    type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr}, false);
  }
  auto* f = llvm::cast<llvm::Function>(module_.getOrInsertFunction(name, type).getCallee());
  if (n == "raxc_fail") f->addFnAttr(llvm::Attribute::Cold);
  return f;
}

void TirEmitter::fail_if(Value* bad, llvm::Constant* site, std::vector<Value*> values) {
  llvm::BasicBlock* fail = new_block("fail");
  llvm::BasicBlock* ok = new_block("ok");
  llvm::MDBuilder md(context_);
  builder_.CreateCondBr(bad, fail, ok, md.createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(fail);
  if (site) {
    while (values.size() < 3) values.push_back(i64(0));
    std::vector<Value*> call_args{site};
    for (Value* v : values)
      call_args.push_back(builder_.CreateIntCast(v, builder_.getInt64Ty(), true));
    builder_.CreateCall(runtime_function("raxc_fail"), call_args);
  }
  builder_.CreateRet(builder_.getInt32(1));
  builder_.SetInsertPoint(ok);
}

llvm::AllocaInst* TirEmitter::entry_alloca(llvm::Type* type, Value* count, const char* name,
                                           uint64_t align) {
  llvm::IRBuilder<> entry(entry_, entry_->begin());
  llvm::AllocaInst* a = entry.CreateAlloca(type, count, name);
  a->setAlignment(llvm::Align(align));
  return a;
}

// `declared` is a dimension, stride or offset the PrimFunc declares; `actual` what the tensor
// has. An unbound variable is bound (its first occurrence defines it); anything else is compared
// once every buffer is bound (a shape `b * s` may come before the buffer that binds `b`), as
// TVM's argument binder orders its checks after its bindings.
void TirEmitter::bind_or_check(const ir::PrimExpr* declared, Value* actual, DiagId code,
                               const std::vector<std::string>& statics) {
  if (const auto* v = ir::dyn_cast<ir::PrimVar>(declared); v && !vars_.count(v)) {
    vars_[v] = builder_.CreateIntCast(actual, value_type(v->dtype), true);
    return;
  }
  deferred_checks_.push_back({declared, actual, code, statics});
}

void TirEmitter::check_deferred() {
  for (const DeferredCheck& c : deferred_checks_) {
    Value* expected = as_i64(c.declared);
    if (!expected) continue;
    fail_if(builder_.CreateICmpNE(c.actual, expected),
            error_site(c.code, c.declared->span, c.statics, 2), {c.actual, expected});
  }
  deferred_checks_.clear();
}

void TirEmitter::bind_tensor(const ir::Buffer* buffer, Value* dl, const std::string& what) {
  auto field = [&](unsigned i) { return builder_.CreateStructGEP(dltensor_type_, dl, i); };
  size_t rank = buffer->shape.size();
  Span at = buffer->span;
  // ndim
  Value* ndim = builder_.CreateLoad(builder_.getInt32Ty(), field(2));
  fail_if(builder_.CreateICmpNE(ndim, builder_.getInt32(static_cast<int>(rank))),
          error_site(DiagId::RX5004, at, {what, name_, std::to_string(rank)}, 1), {ndim});
  // dtype: code and bits (lanes 1); bool is stored as 8-bit but declared uint1 by DLPack.
  Value* dtype = field(3);
  Value* code = builder_.CreateLoad(
      builder_.getInt8Ty(), builder_.CreateStructGEP(dltensor_type_->getElementType(3), dtype, 0));
  Value* bits = builder_.CreateLoad(
      builder_.getInt8Ty(), builder_.CreateStructGEP(dltensor_type_->getElementType(3), dtype, 1));
  ir::DataType t = buffer->dtype;
  int want_code = t.is_int()                             ? kDLInt
                  : t.is_integer()                       ? kDLUInt
                  : t.code == ir::DataType::Code::BFloat ? kDLBfloat
                                                         : kDLFloat;
  int want_bits = t.bits;
  Value* bad = builder_.CreateOr(builder_.CreateICmpNE(code, builder_.getInt8(want_code)),
                                 builder_.CreateICmpNE(bits, builder_.getInt8(want_bits)));
  fail_if(bad, error_site(DiagId::RX5005, at, {what, name_, t.str()}, 2),
          {builder_.CreateZExt(code, builder_.getInt64Ty()),
           builder_.CreateZExt(bits, builder_.getInt64Ty())});

  BufferView view;
  Value* shape = builder_.CreateLoad(builder_.getPtrTy(), field(4));
  std::vector<Value*> dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    dims[k] = builder_.CreateLoad(builder_.getInt64Ty(),
                                  builder_.CreateConstGEP1_64(builder_.getInt64Ty(), shape, k));
    bind_or_check(buffer->shape[k], dims[k], DiagId::RX5006, {what, name_, std::to_string(k)});
    // A constant extent is used as the constant (the deferred check makes the tensor's agree),
    // so the compact strides the accesses use fold: with one loaded at run time, LLVM's
    // vectorizer stored the rows of a transpose with a symbolic extent through scatters, 6×
    // slower than the static shape's.
    const auto* constant = ir::dyn_cast<ir::IntImm>(buffer->shape[k]);
    view.extents.push_back(constant ? i64(constant->value) : dims[k]);
  }
  // Strides: null means compact row-major. Declared strides bind or check against the actual
  // ones; without a declaration the tensor must be compact: checked against the tensor's own
  // dimensions (a wrong shape is reported as that, RX5006, not as a wrong stride), addressed with
  // the view's extents.
  Value* strides = builder_.CreateLoad(builder_.getPtrTy(), field(5));
  Value* has_strides = builder_.CreateIsNotNull(strides);
  std::vector<Value*> compact(rank), compact_view(rank);
  Value* running = i64(1);
  Value* running_view = i64(1);
  for (size_t k = rank; k-- > 0;) {
    compact[k] = running;
    compact_view[k] = running_view;
    running = builder_.CreateMul(running, dims[k]);
    running_view = builder_.CreateMul(running_view, view.extents[k]);
  }
  for (size_t k = 0; k < rank; ++k) {
    // Reading strides[k] only when the pointer is set: select over a guarded load.
    llvm::BasicBlock* read = new_block("strides.read");
    llvm::BasicBlock* join = new_block("strides.join");
    llvm::BasicBlock* from = builder_.GetInsertBlock();
    builder_.CreateCondBr(has_strides, read, join);
    builder_.SetInsertPoint(read);
    Value* s = builder_.CreateLoad(builder_.getInt64Ty(),
                                   builder_.CreateConstGEP1_64(builder_.getInt64Ty(), strides, k));
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
    llvm::PHINode* actual = builder_.CreatePHI(builder_.getInt64Ty(), 2);
    actual->addIncoming(s, read);
    actual->addIncoming(compact[k], from);
    if (k < buffer->strides.size()) {
      bind_or_check(buffer->strides[k], actual, DiagId::RX5007, {what, name_, std::to_string(k)});
      view.strides.push_back(actual);  // equal to the declared stride once the checks pass
    } else {
      // A size-1 axis may have any stride (numpy and PyTorch leave them arbitrary).
      Value* bad_stride = builder_.CreateAnd(builder_.CreateICmpNE(actual, compact[k]),
                                             builder_.CreateICmpNE(dims[k], i64(1)));
      fail_if(bad_stride, error_site(DiagId::RX5007, at, {what, name_, std::to_string(k)}, 2),
              {actual, compact[k]});
      view.strides.push_back(compact_view[k]);
    }
  }
  // Element offset: DLPack's byte_offset. A declared offset variable is bound to it in
  // elements; otherwise the data pointer is moved past it.
  Value* data = builder_.CreateLoad(builder_.getPtrTy(), field(0));
  Value* byte_offset = builder_.CreateLoad(builder_.getInt64Ty(), field(6));
  int64_t elem_bytes = t.is_bool() ? 1 : (t.bits + 7) / 8;
  if (buffer->elem_offset) {
    view.data = data;
    Value* offset = builder_.CreateSDiv(byte_offset, i64(elem_bytes));
    bind_or_check(buffer->elem_offset, offset, DiagId::RX5007, {what, name_, "offset"});
    view.elem_offset = offset;
  } else {
    view.data = builder_.CreateGEP(builder_.getInt8Ty(), data, byte_offset);
    view.elem_offset = i64(0);
  }
  buffers_[buffer] = std::move(view);
}

void TirEmitter::bind_arguments() {
  int n = static_cast<int>(func_.params.size());
  fail_if(builder_.CreateICmpNE(num_args_, builder_.getInt32(n)),
          error_site(DiagId::RX5002, func_.name_span, {name_, std::to_string(n)}, 1), {num_args_});
  // Kinds, and the value of each argument.
  std::unordered_map<const ir::PrimVar*, Value*> handles;
  llvm::Type* arg_type = builder_.getInt64Ty();  // RaxcArg is 8 bytes
  for (int i = 0; i < n; ++i) {
    const ir::PrimFuncParam& p = func_.params[i];
    ir::DataType t = p.var->dtype;
    bool is_handle = t.is_handle();
    int kind = is_handle ? RAXC_ARG_TENSOR : t.is_float() ? RAXC_ARG_FLOAT : RAXC_ARG_INT;
    const char* kind_text = is_handle ? "a tensor" : t.is_float() ? "a float" : "an integer";
    Value* k = builder_.CreateLoad(builder_.getInt32Ty(),
                                   builder_.CreateConstGEP1_64(builder_.getInt32Ty(), kinds_, i));
    fail_if(builder_.CreateICmpNE(k, builder_.getInt32(kind)),
            error_site(DiagId::RX5003, p.span, {std::to_string(i), name_, kind_text}, 0));
    Value* slot = builder_.CreateConstGEP1_64(arg_type, args_, i);
    if (is_handle) {
      handles[p.var] = builder_.CreateLoad(builder_.getPtrTy(), slot);
    } else if (t.is_float()) {
      Value* v = builder_.CreateLoad(builder_.getDoubleTy(), slot);
      vars_[p.var] = cast(v, ir::DataType::Float(64), t);
    } else if (t.is_integer()) {
      Value* v = builder_.CreateLoad(builder_.getInt64Ty(), slot);
      vars_[p.var] = t.is_bool() ? builder_.CreateICmpNE(v, i64(0))
                                 : builder_.CreateIntCast(v, value_type(t), true);
    } else {
      unsupported(p.span, "a parameter of type '" + t.str() + "'");
    }
  }
  for (const auto& [var, buffer] : func_.buffer_map) {
    auto it = handles.find(var);
    if (it == handles.end()) continue;  // reported by well-formedness
    bind_tensor(buffer, it->second, buffer->name);
  }
  check_deferred();
  // Handle parameters without a buffer are plain pointers.
  for (const auto& [var, value] : handles)
    if (!vars_.count(var)) vars_[var] = value;
}

// Kernels never unwind, and their loops may use the CPU's widest vectors: LLVM's default for
// AVX-512 CPUs prefers 256-bit ones (to spare the clock on old Xeons), which halves the
// throughput of compute-bound loops such as exp. On CPUs without 512-bit vectors it has no
// effect.
void TirEmitter::set_kernel_attributes(llvm::Function* f) {
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr("prefer-vector-width", "512");
}

bool TirEmitter::emit(const std::string& symbol) {
  llvm::Type* ptr = builder_.getPtrTy();
  auto* type =
      llvm::FunctionType::get(builder_.getInt32Ty(), {ptr, ptr, builder_.getInt32Ty(), ptr}, false);
  function_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, symbol, module_);
  set_kernel_attributes(function_);
  auto arg = function_->arg_begin();
  args_ = &*arg++;
  kinds_ = &*arg++;
  num_args_ = &*arg++;
  ret_ = &*arg;
  entry_ = new_block("entry");
  llvm::BasicBlock* start = new_block("start");
  builder_.SetInsertPoint(start);
  bind_arguments();
  heap_scopes_.emplace_back();
  stmt(func_.body);
  for (Value* p : heap_scopes_.back())
    builder_.CreateCall(runtime_function("raxc_workspace_free"), {p});
  heap_scopes_.pop_back();
  builder_.CreateRet(builder_.getInt32(0));
  // The entry block holds only the allocas; it falls through to the code.
  builder_.SetInsertPoint(entry_);
  builder_.CreateBr(start);
  if (failed_) return false;
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyFunction(*function_, &os)) {
    unsupported(func_.name_span, "this PrimFunc (the generated code does not verify: " +
                                     os.str().substr(0, 200) + ")");
    return false;
  }
  return true;
}

bool emit_prim_func(llvm::Module& module, const ir::PrimFunc& func, const std::string& name,
                    const std::string& symbol, const CodegenOptions& options,
                    DiagnosticSink& diags) {
  TirEmitter emitter(module, func, name, options, diags);
  return emitter.emit(symbol);
}

}  // namespace raxc::backend
