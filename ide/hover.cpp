// Hover: what the person pointing at a name, an annotation or a call wants to know. For a
// variable, its StructInfo; for an annotated binding also the value's inferred StructInfo and
// how the two relate (the headline question: "what did raxc infer here?"); for an annotation,
// that annotation and where its shape variables are bound; for an operator call, the operator's
// signature and the call's result. Nothing on whitespace, comments or punctuation.
#include <memory>

#include "analysis/arith/analyzer.h"
#include "analysis/ops/registry.h"
#include "analysis/struct_info/relations.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"
#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {
namespace {

using detail::print;

std::string where(FileRef file, Span span) {
  const SourceFile* source = file.engine.source(file.key);
  if (!source) return "";
  LineCol at = source->location(span.begin);
  return "line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
}

const char* kind_name(const analysis::Symbol& symbol) {
  switch (symbol.kind) {
    case analysis::SymbolKind::Var:
      return symbol.var && symbol.var->is_dataflow() ? "dataflow variable" : "variable";
    case analysis::SymbolKind::Param: return "parameter";
    case analysis::SymbolKind::ShapeVar: return "shape variable";
    case analysis::SymbolKind::Function: return "function";
    case analysis::SymbolKind::PrimFunc: return "prim_func";
    case analysis::SymbolKind::ExternFunc: return "extern function";
  }
  return "symbol";
}

// "`n` is bound at line 38, column 27" for each shape variable an annotation mentions.
void add_shape_var_sites(FileRef file, const ir::StructInfo* sinfo, HoverInfo& info) {
  for (const ir::PrimVar* var : ir::shape_vars(sinfo)) {
    if (var->span.empty()) continue;
    Span use = detail::text_span(file, var->span);
    std::optional<analysis::Symbol> symbol = file.engine.symbol_at(file.key, use.begin);
    Span site = symbol ? symbol->definition : use;
    info.notes.push_back("`" + var->name + "` is bound at " + where(file, site));
  }
}

// How an annotation relates to the value it annotates, in words (`var_sinfo`: what the
// function's variables hold, as the check saw them).
std::string relation(const ir::StructInfo* annotation, const ir::StructInfo* value,
                     const analysis::VarStructInfo& var_sinfo) {
  ir::Arena arena;
  analysis::arith::Analyzer analyzer(arena);
  analysis::CompatResult r = analysis::check_compatibility(analyzer, annotation, value, var_sinfo);
  switch (r.result) {
    case analysis::Compat::Compatible:
      if (analysis::struct_info_equal(analyzer, annotation, value))
        return "The annotation equals the inferred StructInfo.";
      return "The annotation is less specific than the inferred StructInfo: the variable has "
             "the annotation's.";
    case analysis::Compat::Possibly: {
      bool narrower =
          analysis::check_compatibility(analyzer, value, annotation, var_sinfo).result ==
          analysis::Compat::Compatible;
      return std::string("The annotation is ") +
             (narrower ? "more specific than" : "neither more nor less specific than") +
             " the inferred StructInfo and only possibly compatible (" + r.detail +
             "): nothing checks it before run time unless `R.match_cast` does.";
    }
    case analysis::Compat::Incompatible:
      return "The annotation is incompatible with the inferred StructInfo (" + r.detail + ").";
  }
  return "";
}

HoverInfo symbol_hover(FileRef file, const analysis::Symbol& symbol, Span token) {
  HoverInfo info;
  info.range = token;
  info.notes.push_back(std::string(kind_name(symbol)) + " `" + symbol.name + "`");
  if (symbol.kind == analysis::SymbolKind::ShapeVar) {
    info.code = symbol.name + ": T.int64";
    info.notes.push_back("bound at " + where(file, symbol.definition));
    return info;
  }
  if (symbol.global) {
    // What a call of it gets: an unannotated return shows as inferred, not as R.Object.
    info.code = symbol.name;
    ir::Arena arena;
    const ir::StructInfo* sig = file.engine.caller_signature(file.key, symbol.name, arena);
    if (sig) info.code += ": " + print(sig);
    if (sig && sig != file.engine.signature(file.key, symbol.name))
      info.notes.push_back("no return annotation: calls get the StructInfo its body returns");
    return info;
  }
  const ir::StructInfo* sinfo = file.engine.inferred(file.key, symbol.var);
  const ir::StructInfo* annotation = symbol.var ? symbol.var->annotation : nullptr;
  info.code = symbol.name + ": " + print(sinfo ? sinfo : annotation);
  if (!sinfo && !annotation) info.code = symbol.name;
  if (!annotation || symbol.kind != analysis::SymbolKind::Var) return info;
  // An annotated binding: the value's own StructInfo is what inference found.
  std::optional<detail::FunctionAt> f = detail::function_at(file, symbol.definition.begin);
  if (!f || !f->normalized || !f->inference) return info;
  const ir::Binding* binding = detail::binding_of(f->normalized, symbol.var);
  if (!binding || binding->is_match_cast()) return info;
  auto value = f->inference->expr_sinfo.find(binding->value);
  if (value == f->inference->expr_sinfo.end() || !value->second) return info;
  if (print(value->second) != print(annotation))
    info.notes.push_back("inferred from the value: `" + print(value->second) + "`");
  const auto& bound = f->inference->var_sinfo;
  info.notes.push_back(relation(annotation, value->second, [&](const ir::Var* v) {
    auto it = bound.find(v);
    return it == bound.end() ? nullptr : it->second;
  }));
  return info;
}

// The innermost StructInfo written in the function at `offset`: an annotation of a parameter,
// a binding or the return, a match_cast target, a call's out_sinfo / sinfo_args.
const ir::StructInfo* annotation_at(FileRef file, const ir::Function* f, uint32_t offset) {
  struct Finder : ir::Visitor {
    FileRef file;
    uint32_t offset;
    const ir::StructInfo* best = nullptr;
    Span best_span;
    Finder(FileRef fr, uint32_t o) : ir::Visitor({.annotations = true}), file(fr), offset(o) {}
    void on_struct_info(const ir::StructInfo* s) override {
      if (s->span.empty()) return;
      Span span = detail::text_span(file, s->span);
      if (!span.contains(offset)) return;
      if (!best || span.end - span.begin <= best_span.end - best_span.begin)
        best = s, best_span = span;
    }
  } finder(file, offset);
  finder.visit(f);
  return finder.best;
}

std::optional<HoverInfo> expression_hover(FileRef file, uint32_t offset) {
  std::optional<analysis::StructInfoAt> at = file.engine.struct_info_at(file.key, offset);
  if (!at || !at->expr) return std::nullopt;
  // A function or a body around the cursor means no expression is under it (a keyword, a
  // line's indentation): nothing to show.
  if (ir::isa<ir::Function>(at->expr) || ir::isa<ir::SeqExpr>(at->expr)) return std::nullopt;
  HoverInfo info;
  info.range = at->span;
  const auto* call = ir::dyn_cast<ir::Call>(at->expr);
  const auto* op = call && call->op ? ir::dyn_cast<ir::Op>(call->op) : nullptr;
  const analysis::ops::OpDef* def = op ? analysis::ops::find_op(op->name) : nullptr;
  if (def) {
    info.code = operator_signature(def->text);
    info.notes.push_back("operator `" + std::string(def->text) + "`, result `" +
                         print(at->struct_info) + "`");
    info.documentation = std::string(def->doc);
    return info;
  }
  info.code = print(at->struct_info);
  info.notes.push_back("expression");
  return info;
}

}  // namespace

std::optional<HoverInfo> hover(FileRef file, uint32_t offset) {
  const std::string* text = file.engine.text(file.key);
  if (!text || !detail::on_word(*text, offset)) return std::nullopt;
  if (std::optional<analysis::Symbol> symbol = file.engine.symbol_at(file.key, offset)) {
    const frontend::Document* document = file.engine.document(file.key);
    std::optional<frontend::Token> token = document ? document->token_at(offset) : std::nullopt;
    return symbol_hover(file, *symbol, token ? token->span : symbol->definition);
  }
  if (std::optional<detail::FunctionAt> f = detail::function_at(file, offset)) {
    if (const ir::StructInfo* annotation = annotation_at(file, f->lowered, offset)) {
      HoverInfo info;
      info.range = detail::text_span(file, annotation->span);
      info.code = print(annotation);
      info.notes.push_back("StructInfo annotation");
      add_shape_var_sites(file, annotation, info);
      return info;
    }
  }
  return expression_hover(file, offset);
}

}  // namespace raxc::ide
