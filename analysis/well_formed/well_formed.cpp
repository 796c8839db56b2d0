#include "analysis/well_formed/well_formed.h"

#include "analysis/normalize/normal_form.h"
#include "analysis/well_formed/function_checker.h"

namespace raxc::analysis {
namespace {

// WF-13 is a rule of Relax well-formedness: it holds for Relax functions. A PrimFunc may be
// exported under another symbol (TVM checks the rule for Relax functions only), and a lone
// function takes its name from the file, not from a module: nothing to compare.
void check_global_symbol(const ir::IRModule& module, const ir::GlobalDef& g,
                         DiagnosticSink& diags) {
  if (module.top_level != ir::TopLevel::Module) return;
  const ir::Function* f = g.function();
  const ir::AttrValue* symbol = f ? f->attrs.find("global_symbol") : nullptr;
  const std::string* text = symbol ? symbol->get_if<std::string>() : nullptr;
  if (!text || *text == g.gvar->name) return;
  Diagnostic d = make_diagnostic(
      diag::GlobalSymbolMismatch{.global = g.gvar->name, .global_symbol = *text}, symbol->span);
  d.note(g.gvar->span, "'" + g.gvar->name + "' is defined here");
  diags.report(std::move(d));
}

// WF-12: public functions carry an implicit global_symbol.
bool is_externally_linked(const ir::GlobalDef& g) {
  if (const ir::Function* f = g.function()) return !f->is_private || f->attrs.find("global_symbol");
  if (const ir::PrimFunc* p = g.prim_func())
    return !p->is_private || p->attrs.find("global_symbol");
  return false;
}

}  // namespace

void check_module_well_formed(const ir::IRModule& module, DiagnosticSink& diags) {
  check_module_well_formed(module, diags, WellFormedOptions{});
}

void check_module_well_formed(const ir::IRModule& module, DiagnosticSink& diags,
                              const WellFormedOptions& options) {
  if (!module.check_well_formed) return;
  for (const ir::GlobalDef& g : module.globals) check_global_symbol(module, g, diags);
  if (options.require_entry_point) check_entry_point(module, diags);
}

void check_entry_point(const ir::IRModule& module, DiagnosticSink& diags) {
  if (!module.check_well_formed) return;
  for (const ir::GlobalDef& g : module.globals)
    if (is_externally_linked(g)) return;
  Span at = module.globals.empty() ? Span{} : module.globals.front().span;
  diags.report(make_diagnostic(diag::NoEntryPoint{}, at));
}

void check_function_well_formed(const ir::IRModule& module, const ir::GlobalDef& global,
                                const ir::Function* f, DiagnosticSink& diags) {
  if (!module.check_well_formed || !f) return;
  wf::check_function(module, global, f, diags);
  check_normal_form(f, diags);
}

}  // namespace raxc::analysis
