// A library's module (see relax_codegen.h): the entries, the Relax functions and PrimFuncs
// they reach (emitted once each, internal), the exported wrappers, the source map errors are
// located with, and the C header that documents the entries.
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backend/codegen/relax_emitter.h"
#include "frontend/printer/printer.h"

namespace raxc {
extern const std::string_view kRaxcValueHeader;  // raxc_value.h, embedded at build time
}

namespace raxc::backend {

RelaxModuleState::RelaxModuleState(llvm::Module& module, const RelaxLibrary& library,
                                   DiagnosticSink& diags)
    : module(module), context(module.getContext()), library(library), diags(diags) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  site_type = llvm::StructType::get(context, {ptr, i32, i32, i32, i32, ptr});
}

void RelaxModuleState::refuse(Span at, const std::string& what) {
  report(make_diagnostic(diag::BuildUnsupported{.what = what}, at));
}

void RelaxModuleState::report(Diagnostic d) {
  failed = true;
  diags.report(std::move(d));
  throw Refused{};
}

llvm::Constant* RelaxModuleState::string_constant(const std::string& text) {
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  auto* init = llvm::ConstantDataArray::getString(context, text, true);
  auto* g = new llvm::GlobalVariable(module, init->getType(), true,
                                     llvm::GlobalValue::PrivateLinkage, init, ".str");
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  strings_[text] = g;
  return g;
}

llvm::Constant* RelaxModuleState::error_site(DiagId code, Span at,
                                             const std::vector<std::string>& statics,
                                             int num_values) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  auto i32 = [&](int64_t v) {
    return llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), static_cast<uint64_t>(v));
  };
  std::vector<llvm::Constant*> args;
  for (const std::string& s : statics) args.push_back(string_constant(s));
  auto* array_type = llvm::ArrayType::get(ptr, args.size());
  auto* array =
      new llvm::GlobalVariable(module, array_type, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(array_type, args), ".args");
  auto* site = llvm::ConstantStruct::get(
      site_type, {string_constant(raxc::code(code)), i32(at.begin), i32(at.end),
                  i32(static_cast<int64_t>(statics.size())), i32(num_values), array});
  return new llvm::GlobalVariable(module, site_type, true, llvm::GlobalValue::PrivateLinkage, site,
                                  ".site");
}

llvm::FunctionCallee RelaxModuleState::runtime(const std::string& name) {
  llvm::Type* p = llvm::PointerType::getUnqual(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* f64 = llvm::Type::getDoubleTy(context);
  llvm::Type* v = llvm::Type::getVoidTy(context);
  struct Sig {
    const char* name;
    llvm::Type* ret;
    std::vector<llvm::Type*> params;
  };
  const Sig sigs[] = {
      {"raxc_rt_alloc", p, {p, i32, i32, i32, p}},
      {"raxc_rt_const", p, {p, i64, p, i32, i32, i32, p}},
      {"raxc_rt_tuple", p, {p, i32}},
      {"raxc_rt_get", p, {p, i64, p}},
      {"raxc_rt_prim_int", p, {i64, i32, i32}},
      {"raxc_rt_prim_float", p, {f64, i32, i32}},
      {"raxc_rt_shape", p, {p, i32}},
      {"raxc_rt_shape_of", p, {p, p}},
      {"raxc_rt_pack", i32, {p, p, p, p}},
      {"raxc_rt_cond", i32, {p, p}},
      {"raxc_rt_check", i32, {p, p, p, p, p, i32, p}},
      {"raxc_rt_enter", i32, {p}},
      {"raxc_rt_leave", v, {}},
      {"raxc_rt_locate", v, {p}},
      {"raxc_rt_unseal_arguments", v, {p, i32}},
      {"raxc_rt_call_packed", p, {p, p, i32, p}},
      {"raxc_rt_packed_ref", p, {p}},
      {"raxc_rt_kernel_ref", p, {p, p, i32, i32}},
      {"raxc_rt_closure", p, {p, p, i32, p, i32}},
      {"raxc_value_prim_i64", i64, {p}},
      {"raxc_rt_call_value", p, {p, p, i32, p}},
      {"raxc_rt_inplace_result", p, {p, p, i32, p, i32, p, p}},
      {"raxc_rt_null", p, {}},
      {"raxc_rt_empty", p, {p, p, p}},
      {"raxc_rt_print", p, {p, p, i32}},
      {"raxc_rt_assert", p, {p, p, p, i32, p, p}},
      {"raxc_rt_dtype", p, {i32, i32, i32}},
      {"raxc_rt_shape_to_tensor", p, {p, p}},
      {"raxc_rt_tensor_to_shape", p, {p, p}},
      {"raxc_value_retain", v, {p}},
      {"raxc_value_release", v, {p}},
      {"raxc_value_string", p, {p}},
      {"raxc_fail", i32, {p, i64, i64, i64}},
  };
  for (const Sig& s : sigs) {
    if (name != s.name) continue;
    llvm::FunctionCallee callee =
        module.getOrInsertFunction(name, llvm::FunctionType::get(s.ret, s.params, false));
    if (name == "raxc_fail")
      llvm::cast<llvm::Function>(callee.getCallee())->addFnAttr(llvm::Attribute::Cold);
    return callee;
  }
  report(
      make_diagnostic(diag::UnsupportedOnCpu{.what = "the runtime helper '" + name + "'"}, Span{}));
}

llvm::FunctionType* packed_type(llvm::LLVMContext& context) {
  llvm::Type* p = llvm::PointerType::getUnqual(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  return llvm::FunctionType::get(i32, {p, i32, p}, false);
}

llvm::Function* RelaxModuleState::relax_function(const ir::GlobalDef& g) {
  auto it = functions.find(&g);
  if (it != functions.end()) return it->second;
  auto* fn = llvm::Function::Create(packed_type(context), llvm::GlobalValue::InternalLinkage,
                                    "raxc_relax." + g.gvar->name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  functions[&g] = fn;
  pending_functions.push_back(&g);
  return fn;
}

llvm::Function* RelaxModuleState::kernel(const ir::GlobalDef& g) {
  auto it = kernel_decls.find(&g);
  if (it != kernel_decls.end()) return it->second;
  llvm::Type* p = llvm::PointerType::getUnqual(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  // A declaration under a temporary name: emit_prim_func creates the real function later.
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(i32, {p, p, i32, p}, false),
                                    llvm::GlobalValue::ExternalLinkage,
                                    "raxc.pending_kernel." + g.gvar->name, module);
  kernel_decls[&g] = fn;
  kernels.push_back(&g);
  return fn;
}

namespace {

std::vector<uint32_t> line_starts(std::string_view text) {
  std::vector<uint32_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(static_cast<uint32_t>(i + 1));
  return starts;
}

// RaxcModuleInfo (raxc_relax_abi.h) for this source: file, line starts, and the templates of
// every run-time code, so a failing entry renders the message as `raxc run` would.
llvm::Constant* module_info(RelaxModuleState& s) {
  llvm::LLVMContext& c = s.context;
  llvm::Type* p = llvm::PointerType::getUnqual(c);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  std::vector<uint32_t> starts = line_starts(s.library.source);
  auto* starts_init = llvm::ConstantDataArray::get(c, llvm::ArrayRef<uint32_t>(starts));
  auto* starts_global =
      new llvm::GlobalVariable(s.module, starts_init->getType(), true,
                               llvm::GlobalValue::PrivateLinkage, starts_init, ".line_starts");
  std::vector<llvm::Constant*> templates;
  for (const DiagInfo& d : all_diagnostics()) {
    if (std::string_view(d.code).substr(0, 4) != "RX50") continue;
    templates.push_back(s.string_constant(d.code));
    templates.push_back(s.string_constant(positional_template(d.id)));
  }
  auto* t_type = llvm::ArrayType::get(p, templates.size());
  auto* t_global =
      new llvm::GlobalVariable(s.module, t_type, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(t_type, templates), ".templates");
  auto* info_type = llvm::StructType::get(c, {p, p, i32, i32, p});
  auto* info = llvm::ConstantStruct::get(
      info_type, {s.string_constant(s.library.file_name), starts_global,
                  llvm::ConstantInt::get(i32, starts.size()),
                  llvm::ConstantInt::get(i32, templates.size() / 2), t_global});
  return new llvm::GlobalVariable(s.module, info_type, true, llvm::GlobalValue::PrivateLinkage,
                                  info, ".module_info");
}

// PREFIX_NAME: calls the internal function (after withdrawing its arguments' seals when the
// module may write into them); on failure locates the error in the source.
void emit_wrapper(RelaxModuleState& s, const ir::GlobalDef& g, llvm::Constant* info) {
  llvm::Function* inner = s.relax_function(g);
  auto* fn = llvm::Function::Create(packed_type(s.context), llvm::GlobalValue::ExternalLinkage,
                                    s.library.prefix + g.gvar->name, s.module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(s.context, "entry", fn));
  b.CreateStore(llvm::ConstantPointerNull::get(b.getPtrTy()), fn->getArg(2));
  if (s.library.writes_arguments)
    b.CreateCall(s.runtime("raxc_rt_unseal_arguments"), {fn->getArg(0), fn->getArg(1)});
  llvm::Value* status = b.CreateCall(inner, {fn->getArg(0), fn->getArg(1), fn->getArg(2)});
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(s.context, "failed", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(s.context, "done", fn);
  b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), failed, done);
  b.SetInsertPoint(failed);
  b.CreateCall(s.runtime("raxc_rt_locate"), {info});
  b.CreateRet(status);
  b.SetInsertPoint(done);
  b.CreateRet(status);
}

bool emit_kernels(RelaxModuleState& s, const CodegenOptions& options) {
  bool ok = true;
  for (const ir::GlobalDef* g : s.kernels) {
    llvm::Function* decl = s.kernel_decls[g];
    std::string symbol = "raxc_kernel." + g->gvar->name;
    if (!emit_prim_func(s.module, *g->prim_func(), g->gvar->name, symbol, options, s.diags)) {
      ok = false;
      continue;
    }
    llvm::Function* real = s.module.getFunction(symbol);
    real->setLinkage(llvm::GlobalValue::InternalLinkage);
    decl->replaceAllUsesWith(real);
    decl->eraseFromParent();
  }
  return ok;
}

}  // namespace

std::vector<const ir::GlobalDef*> public_functions(const ir::IRModule& module) {
  std::vector<const ir::GlobalDef*> out;
  for (const ir::GlobalDef& g : module.globals) {
    const ir::Function* f = g.function();
    if (!f || f->is_private) continue;
    if (const ir::AttrValue* sym = f->attrs.find("global_symbol")) {
      const auto* text = sym->get_if<std::string>();
      if (text && text->empty()) continue;
    }
    out.push_back(&g);
  }
  return out;
}

bool emit_relax_library(llvm::Module& module, const RelaxLibrary& library,
                        const CodegenOptions& options, DiagnosticSink& diags) {
  RelaxModuleState s(module, library, diags);
  llvm::Constant* info = module_info(s);
  for (const ir::GlobalDef* g : library.entries) emit_wrapper(s, *g, info);
  while (!s.pending_functions.empty()) {
    const ir::GlobalDef* g = s.pending_functions.front();
    s.pending_functions.pop_front();
    const ir::Function* f = library.function ? library.function(*g) : nullptr;
    try {
      if (!f) s.refuse(g->gvar->span, "function '" + g->gvar->name + "' (not analysed)");
      emit_relax_function(s, *g, *f, s.functions[g]);
    } catch (const Refused&) {
      // Reported; keep going so every function's first refusal is shown.
    }
  }
  if (s.failed) return false;
  if (!emit_kernels(s, options)) return false;
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) {
    diags.report(make_diagnostic(
        diag::UnsupportedOnCpu{.what = "this module (the generated code does not verify: " +
                                       os.str().substr(0, 300) + ")"},
        Span{}));
    return false;
  }
  return true;
}

std::string relax_library_header(const RelaxLibrary& library, std::string_view guard) {
  std::string out =
      "/* " + std::string(guard) + " — generated by `raxc build` from " + library.file_name +
      "; do not edit.\n *\n" +
      " * Each function takes its arguments as value handles (args[0..num_args)),\n" +
      " * borrowed, and stores a new reference to its result in *result (release it\n" +
      " * with raxc_value_release). It returns 0, or non-zero with the located error in\n" +
      " * raxc_last_error(). */\n";
  std::string macro;
  for (char c : guard) macro += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
  out += "#ifndef " + macro + "_\n#define " + macro + "_\n\n";
  out += std::string(kRaxcValueHeader) + "\n";
  out += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const ir::GlobalDef* g : library.entries) {
    const ir::Function* f = library.function ? library.function(*g) : g->function();
    if (!f) continue;
    out += "/* " + g->gvar->name + ": " + std::to_string(f->params.size()) + " argument(s)\n";
    for (size_t i = 0; i < f->params.size(); ++i) {
      const ir::Var* p = f->params[i];
      out += " *   args[" + std::to_string(i) + "] " + p->name + ": " +
             (p->annotation ? printer::print_struct_info(p->annotation) : "R.Object") + "\n";
    }
    out += " *   result: " +
           (f->ret_struct_info ? printer::print_struct_info(f->ret_struct_info) : "R.Object") +
           "\n */\n";
    out += "int32_t " + library.prefix + g->gvar->name +
           "(RaxcValue* const* args, int32_t num_args, RaxcValue** result);\n\n";
  }
  out += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return out;
}

}  // namespace raxc::backend
