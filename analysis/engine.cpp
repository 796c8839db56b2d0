#include "analysis/engine.h"

#include <algorithm>
#include <exception>
#include <unordered_map>
#include <unordered_set>

#include "analysis/arith/analyzer.h"
#include "analysis/lint/unused.h"
#include "analysis/normalize/normalize.h"
#include "analysis/well_formed/call_graph.h"
#include "analysis/well_formed/well_formed.h"
#include "frontend/ir/hash.h"
#include "frontend/ir/visitor.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::analysis {
namespace {

using frontend::Definition;
using frontend::Token;

// The text of a definition up to the end of its signature (decorators, name, parameters, return
// annotation). Diagnostics of callers point into it (a parameter, the return annotation), so a
// caller is re-analysed when it changes, and its notes can be kept relative to the definition.
std::string_view header_text(const Definition& def) {
  const ir::Function* f = def.global ? def.global->function() : nullptr;
  if (!f) return def.text;
  uint32_t end = f->name_span.end;
  for (const ir::Var* p : f->params) {
    end = std::max(end, p->span.end);
    if (p->annotation) end = std::max(end, p->annotation->span.end);
  }
  if (f->ret_struct_info) end = std::max(end, f->ret_struct_info->span.end);
  if (end < def.ir_begin || end - def.ir_begin > def.text.size()) return def.text;
  return std::string_view(def.text).substr(0, end - def.ir_begin);
}

// The versions ("name", Definition::id) of every Relax function without a return annotation,
// in text order (see compute_signatures).
using Versions = std::vector<std::pair<std::string, uint64_t>>;

// What the analysis of a caller depends on in one global: the signature as callers see it
// (printed; none when inference could not give one), the header text the caller's diagnostics
// may point into, and, for a function whose return is inferred from its body, the versions of
// every unannotated function. Two keys are equal exactly when a caller's analysis would be the
// same; a global that does not exist has no key at all (std::nullopt).
struct SignatureKey {
  std::optional<std::string> struct_info;
  std::string header;
  std::optional<Versions> unannotated;
  bool operator==(const SignatureKey&) const = default;
};

}  // namespace

// ------------------------------------------------------------------------------ state

struct Engine::State {
  struct Signature {
    uint64_t def_id = 0;
    std::shared_ptr<ir::Arena> arena;
    std::shared_ptr<ir::Arena> def_arena;
    const ir::StructInfo* sinfo = nullptr;
    SignatureKey key;              // what callers' analyses depend on (see compute_signatures)
    uint64_t version = 0;          // changes exactly when `key` does (0: none given yet)
    SignatureKey annotated;        // the annotations and header alone
    bool return_inferred = false;  // a Relax function without a return annotation
  };
  struct Analysis {
    uint64_t def_id = 0;
    std::shared_ptr<ir::Arena> arena;                    // normalised IR and inferred StructInfo
    std::vector<std::shared_ptr<ir::Arena>> keep_alive;  // IR the results may point into
    const ir::Function* normalized = nullptr;
    FunctionInference inference;
    // Spans relative to the definition named in `owners` (one per span: the main span, then
    // each related one); "" for module-level spans, kept as they are.
    struct Anchored {
      Diagnostic diagnostic;
      std::vector<std::string> owners;
    };
    std::vector<Anchored> diagnostics;
    // Each global the function names, with the version of its key at the time (nullopt: no
    // such global): comparing versions, not printed signatures, keeps a keystroke's check of
    // every other function's dependencies cheap.
    std::vector<std::pair<std::string, std::optional<uint64_t>>> depends;
    // signature_versions when `depends` last matched the signatures: while no version has been
    // handed out since (nor a signature erased), they still do, and a keystroke that changed no
    // signature checks none of the 72 functions' dependencies by name.
    uint64_t matched_at = 0;
    // Where the document's errors inside the definition were (offsets from its start): they
    // decide whether its diagnostics are kept (errors_confined), and they change with edits
    // elsewhere (an unclosed string above it, a per-file limit) while its text does not.
    std::vector<uint32_t> errors_inside;
  };

  std::unique_ptr<frontend::Document> doc;
  std::unordered_map<std::string, Signature> signatures;
  // The signature of each definition at the last update, by its position in the document: an
  // unchanged definition (the same id at the same index, all but one after a keystroke) skips
  // the lookup by name, which for a module of 937 definitions was 0.3 M instructions an update.
  std::vector<std::pair<uint64_t, Signature*>> signature_at;
  // The last Signature::version handed out; also moved on when signatures are erased.
  uint64_t signature_versions = 0;
  Versions unannotated_versions;  // see compute_signatures
  // The cache of per-function results: each Relax function's analysis by Definition::id, kept
  // across updates while the definition and the signatures it depends on are unchanged.
  std::unordered_map<uint64_t, Analysis> function_analyses;
  std::vector<Diagnostic> module_diagnostics;                       // text offsets
  std::unordered_map<std::string_view, const Definition*> by_name;  // views of Definition::name
  // The definitions by_name was built from, in document order: they keep its keys alive, and a
  // keystroke that re-lowered one definition updates one entry (index_names).
  std::vector<std::shared_ptr<Definition>> indexed;
  // The call edges of every Relax function as of its last lowering, and the definition they were
  // computed from: mutual-recursion verdicts (RX2022, RX2025) of a function depend on the edges
  // of the functions it reaches, not only on their signatures.
  wf::CallEdges call_edges;
  std::unordered_map<std::string, uint64_t> call_edges_def;
  UpdateStats stats;
  mutable std::unique_ptr<SourceFile> source;
  std::string key;

  const Analysis* analysis_of(const Definition* def) const {
    if (!def) return nullptr;
    auto it = function_analyses.find(def->id);
    return it == function_analyses.end() ? nullptr : &it->second;
  }
  const Definition* definition_named(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
  Analysis::Anchored anchor(Diagnostic d) const;
  std::optional<Diagnostic> resolve(const Analysis::Anchored& a) const;

  void analyse();
  // The statistics of the update that just ran; the line map is rebuilt on next use.
  void record_update() {
    const frontend::LoweringStats& ls = doc->stats();
    stats.full = ls.full;
    stats.definitions = doc->definitions().size();
    stats.relowered = ls.lowered;
    source.reset();
  }
  void index_names();
  void compute_signatures();
  void refresh_signature(Signature& s, const Definition& def);
  std::unordered_set<std::string> update_call_edges();
  bool up_to_date(Analysis& a) const;
  std::optional<uint64_t> version_of(const std::string& global) const {
    auto it = signatures.find(global);
    if (it == signatures.end()) return std::nullopt;
    return it->second.version;
  }
  bool errors_confined(const Definition& def, const std::vector<Span>& errors) const;
  // The begins of `errors` (sorted) inside `def`, from its start.
  static std::vector<uint32_t> errors_inside(const Definition& def,
                                             const std::vector<Span>& errors);
  Analysis analyse_function(const Definition& def, const std::vector<Span>& errors);
};

bool Engine::State::up_to_date(Analysis& a) const {
  if (a.matched_at == signature_versions) return true;
  for (const auto& [name, version] : a.depends) {
    auto it = signatures.find(name);
    bool exists = it != signatures.end();
    if (version.has_value() != exists || (exists && *version != it->second.version)) return false;
  }
  a.matched_at = signature_versions;
  return true;
}

void Engine::State::index_names() {
  const auto& defs = doc->definitions();
  // Definitions the update kept are the same objects, at the same index when as many remain.
  auto update_in_place = [&] {
    if (indexed.size() != defs.size()) return false;
    for (size_t i = 0; i < defs.size(); ++i) {
      if (indexed[i] == defs[i]) continue;
      const Definition& old = *indexed[i];
      if (auto it = by_name.find(old.name); it != by_name.end() && it->second == &old)
        by_name.erase(it);
      indexed[i] = defs[i];
      // A name taken by another definition: the first in the text must win, as below.
      if (defs[i]->global && !by_name.emplace(defs[i]->name, defs[i].get()).second) return false;
    }
    return true;
  };
  if (update_in_place()) return;
  by_name.clear();
  indexed = defs;
  for (const auto& def : defs)
    if (def->global) by_name.emplace(def->name, def.get());
}

void Engine::State::compute_signatures() {
  // Updated in place: after a typical edit only the edited definition's entry changes.
  // Callers of a function without a return annotation see its inferred body (infer.h,
  // caller_signature), which depends on its text and, transitively, on the text of the
  // unannotated functions it calls. Rather than infer those bodies on every update, their
  // callers depend on the versions of all unannotated functions: an edit inside one re-analyses
  // the callers of unannotated functions, while an edit elsewhere (and any edit in a module
  // whose functions are all annotated, as TVM prints them) re-analyses nothing more.
  size_t live = 0;
  std::vector<Signature*> fresh;
  Versions versions;
  const auto& defs = doc->definitions();
  // Entries stay where they are until erased below, and only signatures of no live definition
  // are erased: the pointers kept for live definitions stay valid.
  std::vector<std::pair<uint64_t, Signature*>> at(defs.size(), {0, nullptr});
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto& def = defs[i];
    if (!def->global) continue;
    ++live;
    bool same = i < signature_at.size() && signature_at[i].first == def->id;
    Signature& s = same ? *signature_at[i].second : signatures[def->name];
    if (s.def_id != def->id) {
      refresh_signature(s, *def);
      fresh.push_back(&s);
    }
    if (s.return_inferred) versions.emplace_back(def->name, def->id);
    at[i] = {def->id, &s};
  }
  signature_at = std::move(at);
  if (signatures.size() != live) {
    std::unordered_set<uint64_t> ids;
    for (const auto& def : doc->definitions())
      if (def->global) ids.insert(def->id);
    for (auto it = signatures.begin(); it != signatures.end();)
      it = ids.count(it->second.def_id) ? std::next(it) : signatures.erase(it);
    ++signature_versions;  // a dependency on an erased global no longer matches
  }
  auto set_key = [&](Signature& s) {
    SignatureKey key = s.annotated;
    if (s.return_inferred) key.unannotated = unannotated_versions;
    if (s.version != 0 && key == s.key) return;
    s.key = std::move(key);
    s.version = ++signature_versions;
  };
  if (versions != unannotated_versions) {
    unannotated_versions = std::move(versions);
    for (auto& [name, s] : signatures) set_key(s);
  } else {
    for (Signature* s : fresh) set_key(*s);
  }
}

void Engine::State::refresh_signature(Signature& s, const Definition& def) {
  s.def_id = def.id;
  s.arena = std::make_shared<ir::Arena>();
  s.def_arena = def.global->arena;
  try {
    arith::Analyzer analyzer(*s.arena);
    s.sinfo = signature_of(*def.global, analyzer);
  } catch (const std::exception&) {
    s.sinfo = nullptr;  // the inference reports problems as diagnostics; never abort a query
  }
  s.annotated = SignatureKey{};
  if (s.sinfo) s.annotated.struct_info = printer::print_struct_info(s.sinfo);
  s.annotated.header = std::string(header_text(def));
  const ir::Function* f = def.global->function();
  s.return_inferred = f && !f->ret_struct_info;
}

// Refreshes call_edges for the re-lowered functions; returns the functions whose analyses are
// stale because the call edges of a function they reach changed (empty when none did, which is
// the case for an edit that adds or removes no call of a global).
std::unordered_set<std::string> Engine::State::update_call_edges() {
  std::vector<std::string> changed;
  size_t live = 0;
  for (const auto& def : doc->definitions()) {
    const ir::Function* f = def->global ? def->global->function() : nullptr;
    if (!f) continue;
    ++live;
    auto [known, fresh] = call_edges_def.try_emplace(def->name, def->id);
    if (!fresh && known->second == def->id) continue;
    known->second = def->id;
    std::vector<std::string> callees = ir::called_globals(f);
    std::vector<std::string>& old = call_edges[def->name];
    std::vector<std::string> sorted_old = old, sorted_new = callees;
    std::sort(sorted_old.begin(), sorted_old.end());
    std::sort(sorted_new.begin(), sorted_new.end());
    if (sorted_old != sorted_new) changed.push_back(def->name);
    old = std::move(callees);
  }
  if (call_edges_def.size() != live) {  // functions removed (or no longer Relax functions)
    std::unordered_set<std::string> names;
    for (const auto& def : doc->definitions())
      if (def->global && def->global->function()) names.insert(def->name);
    for (auto it = call_edges_def.begin(); it != call_edges_def.end();) {
      if (names.count(it->first)) {
        ++it;
        continue;
      }
      changed.push_back(it->first);
      call_edges.erase(it->first);
      it = call_edges_def.erase(it);
    }
  }
  if (function_analyses.empty()) return {};  // nothing to reuse anyway
  return wf::affected_by_call_edges(call_edges, changed);
}

namespace {

// An ill-formed construct (say an annotation whose dtype contradicts its own value) already has
// a well-formedness error; inference findings located at the same source range only repeat it.
void drop_cascades(const std::vector<Diagnostic>& well_formedness,
                   std::vector<Diagnostic>& inferred) {
  auto flagged = [&](const Span& at) {
    return std::any_of(well_formedness.begin(), well_formedness.end(), [&](const Diagnostic& w) {
      return w.severity == Severity::Error && w.span == at;
    });
  };
  std::erase_if(inferred, [&](const Diagnostic& d) {
    return flagged(d.span) || std::any_of(d.related.begin(), d.related.end(),
                                          [&](const RelatedInfo& r) { return flagged(r.span); });
  });
}

}  // namespace

// Does every error in `def` (syntax and lowering; `errors` are the document's, text offsets) lie
// inside a part that lowering replaced with an ir::ErrorExpr? Then the rest of the IR is what
// the text says and the function's analysis diagnostics are those of a clean file. Otherwise
// the IR around some error may not be what the text means (a statement lost to a broken
// block, a dropped declaration), and its diagnostics could be consequences of that error.
std::vector<uint32_t> Engine::State::errors_inside(const Definition& def,
                                                   const std::vector<Span>& errors) {
  Span extent = def.text_span();
  std::vector<uint32_t> out;
  auto it = std::lower_bound(errors.begin(), errors.end(), extent.begin,
                             [](Span e, uint32_t at) { return e.begin < at; });
  for (; it != errors.end() && it->begin < extent.end; ++it)
    out.push_back(it->begin - extent.begin);
  return out;
}

bool Engine::State::errors_confined(const Definition& def, const std::vector<Span>& errors) const {
  Span extent = def.text_span();
  std::vector<Span> found;
  for (Span e : errors)
    if (extent.begin <= e.begin && e.begin < extent.end) found.push_back(e);
  for (const Diagnostic& d : def.diagnostics)
    if (d.severity == Severity::Error) found.push_back(doc->to_text(d.span));
  if (found.empty()) return true;
  // The parts lowering read through an error: error expressions, and R.output(...) statements,
  // whose variables lowering takes even from an unclosed call (the grammar closes it at the next
  // statement), so an error there changes no binding.
  struct ErrorSpans : ir::Visitor {
    std::vector<Span> spans;
    void on_expr(const ir::Expr* e) override {
      if (e->kind == ir::ExprKind::Error) spans.push_back(e->span);
    }
    void on_block(const ir::BindingBlock& b) override {
      if (!b.output.empty()) spans.push_back(b.output);
    }
  } parts;
  parts.visit(def.global->function());
  for (Span& s : parts.spans) s = doc->to_text(s);
  auto inside = [&](Span e) {
    for (Span s : parts.spans)
      if (s.begin <= e.begin && e.begin < std::max(s.end, s.begin + 1)) return true;
    return false;
  };
  return std::all_of(found.begin(), found.end(), inside);
}

Engine::State::Analysis Engine::State::analyse_function(const Definition& def,
                                                        const std::vector<Span>& errors) {
  Analysis a;
  a.def_id = def.id;
  a.arena = std::make_shared<ir::Arena>();
  a.keep_alive.push_back(def.global->arena);
  a.keep_alive.push_back(doc->module().arena);
  const ir::IRModule& module = doc->module();
  DiagnosticSink sink, inference_sink;
  std::unordered_set<std::string> referenced;
  GlobalSignatures globals = [&](const ir::GlobalVar* gv) -> const ir::StructInfo* {
    if (!gv) return nullptr;
    referenced.insert(gv->name);
    auto it = signatures.find(gv->name);
    return it == signatures.end() ? nullptr : it->second.sinfo;
  };
  try {
    a.normalized = normalize(def.global->function(), *a.arena);
    check_function_well_formed(module, *def.global, a.normalized, sink);
    arith::Analyzer analyzer(*a.arena);
    a.inference = infer_function(module, a.normalized, globals, analyzer, inference_sink,
                                 def.global->gvar->name);
    // On the function as written: normalization's temporaries are not the user's bindings.
    check_unused_bindings(def.global->function(), inference_sink);
  } catch (const std::exception&) {
    // A bug in a checker must not take the editor down: keep what was reported.
  }
  // Every global the body names, whether or not inference asked for its signature.
  for (std::string& name : ir::global_names_in(def.global->function()))
    referenced.insert(std::move(name));
  for (const std::string& name : referenced) {
    auto it = signatures.find(name);
    a.depends.emplace_back(name, version_of(name));
    if (it != signatures.end()) {
      a.keep_alive.push_back(it->second.arena);
      a.keep_alive.push_back(it->second.def_arena);
    }
  }
  std::vector<Diagnostic> found = sink.take();
  std::vector<Diagnostic> inferred = inference_sink.take();
  // The StructInfo is kept either way: hover and inlay hints show what could be inferred.
  if (!errors_confined(def, errors)) {
    found.clear();
    inferred.clear();
  }
  drop_cascades(found, inferred);
  found.insert(found.end(), std::make_move_iterator(inferred.begin()),
               std::make_move_iterator(inferred.end()));
  for (Diagnostic& d : found) a.diagnostics.push_back(anchor(std::move(d)));
  return a;
}

Engine::State::Analysis::Anchored Engine::State::anchor(Diagnostic d) const {
  Analysis::Anchored out;
  // The definition `s` lies in, if it has a name to find it by later. A span in a definition
  // without one (`def (x): ...`, an error) keeps its IR offsets, which stay valid as long as
  // the definition's lowering, and so this analysis, is kept.
  auto owner_of = [&](Span s) -> const Definition* {
    const Definition* owner = doc->definition_of_ir(s);
    return owner && !owner->name.empty() ? owner : nullptr;
  };
  auto relative = [&](Span& s) {
    const Definition* owner = owner_of(s);
    if (!owner) return std::string();
    s = {s.begin - owner->ir_begin, std::max(s.end, s.begin) - owner->ir_begin};
    return owner->name;
  };
  // A fix changes the text of the diagnostic's own definition: its spans move with it.
  if (const Definition* owner = owner_of(d.span))
    for_each_fix_span(d, [&](Span& s) {
      if (s.begin < owner->ir_begin) return;
      s = {s.begin - owner->ir_begin, std::max(s.end, s.begin) - owner->ir_begin};
    });
  out.owners.push_back(relative(d.span));
  for (RelatedInfo& r : d.related) out.owners.push_back(relative(r.span));
  out.diagnostic = std::move(d);
  return out;
}

std::optional<Diagnostic> Engine::State::resolve(const Analysis::Anchored& a) const {
  auto place = [&](Span s, const std::string& owner) -> std::optional<Span> {
    if (owner.empty()) return doc->to_text(s);
    const Definition* def = definition_named(owner);
    if (!def) return std::nullopt;
    uint32_t limit = uint32_t(def->text.size());
    return Span{def->begin + std::min(s.begin, limit), def->begin + std::min(s.end, limit)};
  };
  std::optional<Span> main = place(a.diagnostic.span, a.owners[0]);
  if (!main) return std::nullopt;
  Diagnostic d = a.diagnostic;
  d.span = *main;
  for_each_fix_span(d, [&](Span& s) { s = place(s, a.owners[0]).value_or(Span{}); });
  d.related.clear();
  for (size_t i = 0; i < a.diagnostic.related.size(); ++i)
    if (std::optional<Span> s = place(a.diagnostic.related[i].span, a.owners[i + 1]))
      d.related.push_back({*s, a.diagnostic.related[i].message});
  return d;
}

void Engine::State::analyse() {
  const auto& defs = doc->definitions();
  std::vector<Diagnostic> frontend = doc->diagnostics();
  std::vector<Span> errors;
  for (const Diagnostic& d : frontend)
    if (d.severity == Severity::Error) errors.push_back(d.span);
  std::sort(errors.begin(), errors.end(), [](Span a, Span b) { return a.begin < b.begin; });

  index_names();
  compute_signatures();
  std::unordered_set<std::string> stale = update_call_edges();
  std::unordered_map<uint64_t, Analysis> next;
  stats.functions = 0;
  stats.reanalysed = 0;
  for (const auto& def : defs) {
    if (!def->global || !def->global->function()) continue;
    ++stats.functions;
    // A function with syntax or lowering errors is analysed too: lowering put an ir::ErrorExpr
    // where the text was wrong, whose StructInfo is unknown and reports nothing, so the rest of
    // the function gets the diagnostics and StructInfo it would have in a clean file (see
    // errors_confined for when its diagnostics are kept).
    auto old = function_analyses.find(def->id);
    std::vector<uint32_t> inside = errors_inside(*def, errors);
    if (old != function_analyses.end() && up_to_date(old->second) && !stale.count(def->name) &&
        old->second.errors_inside == inside) {
      next.emplace(def->id, std::move(old->second));
      continue;
    }
    Analysis analysis = analyse_function(*def, errors);
    analysis.errors_inside = std::move(inside);
    analysis.matched_at = signature_versions;
    next.emplace(def->id, std::move(analysis));
    ++stats.reanalysed;
  }
  function_analyses = std::move(next);

  module_diagnostics.clear();
  if (errors.empty()) {
    DiagnosticSink sink;
    try {
      check_module_well_formed(doc->module(), sink);
    } catch (const std::exception&) {
    }
    for (Diagnostic& d : sink.take()) module_diagnostics.push_back(doc->to_text(std::move(d)));
  }
}

// ------------------------------------------------------------------------------ Engine

struct Engine::Impl {
  std::unordered_map<std::string, std::unique_ptr<State>> documents;
};

Engine::Engine() : impl_(std::make_unique<Impl>()) {}
Engine::~Engine() = default;

Engine::State* Engine::find(const std::string& key) const {
  auto it = impl_->documents.find(key);
  return it == impl_->documents.end() ? nullptr : it->second.get();
}

void Engine::open(const std::string& key, std::string text) {
  install(key, [&] { return std::make_unique<frontend::Document>(std::move(text)); });
}

bool Engine::open_like(const std::string& key, const Engine& other) {
  const frontend::Document* source = other.document(key);
  if (!source) return false;
  install(key, [&] { return std::make_unique<frontend::Document>(*source, nullptr); });
  return true;
}

void Engine::install(const std::string& key,
                     const std::function<std::unique_ptr<frontend::Document>()>& make_document) {
  auto st = std::make_unique<State>();
  st->key = key;
  frontend::run_with_large_stack([&] {
    st->doc = make_document();
    st->analyse();
  });
  st->record_update();
  impl_->documents[key] = std::move(st);
}

bool Engine::update(const std::string& key, std::span<const TextEdit> edits) {
  State* st = find(key);
  if (!st) return false;
  frontend::run_with_large_stack([&] {
    st->doc->apply(edits);
    st->analyse();
  });
  st->record_update();
  return true;
}

bool Engine::settle(const std::string& key) {
  State* st = find(key);
  if (!st) return false;
  bool changed = false;
  frontend::run_with_large_stack([&] {
    changed = st->doc->settle();
    if (changed) st->analyse();
  });
  if (changed) st->record_update();
  return changed;
}

bool Engine::settled(const std::string& key) const {
  State* st = find(key);
  return !st || st->doc->settled();
}

bool Engine::replace(const std::string& key, std::string text) {
  State* st = find(key);
  if (!st) return false;
  TextEdit all{0, uint32_t(st->doc->text().size()), std::move(text)};
  return update(key, std::span<const TextEdit>(&all, 1));
}

void Engine::close(const std::string& key) { impl_->documents.erase(key); }
bool Engine::is_open(const std::string& key) const { return find(key) != nullptr; }

const std::string* Engine::text(const std::string& key) const {
  State* st = find(key);
  return st ? &st->doc->text() : nullptr;
}

const SourceFile* Engine::source(const std::string& key) const {
  State* st = find(key);
  if (!st) return nullptr;
  if (!st->source) st->source = std::make_unique<SourceFile>(key, st->doc->text());
  return st->source.get();
}

const frontend::Document* Engine::document(const std::string& key) const {
  State* st = find(key);
  return st ? st->doc.get() : nullptr;
}

const UpdateStats* Engine::last_update(const std::string& key) const {
  State* st = find(key);
  return st ? &st->stats : nullptr;
}

std::vector<Diagnostic> Engine::diagnostics(const std::string& key) const {
  State* st = find(key);
  if (!st) return {};
  std::vector<Diagnostic> out = st->doc->diagnostics();
  out.insert(out.end(), st->module_diagnostics.begin(), st->module_diagnostics.end());
  for (const auto& def : st->doc->definitions())
    if (const State::Analysis* a = st->analysis_of(def.get()))
      for (const auto& anchored : a->diagnostics)
        if (std::optional<Diagnostic> d = st->resolve(anchored)) out.push_back(std::move(*d));
  return out;
}

// ------------------------------------------------------------------------------ symbols
// Names are answered from what lowering resolved: each definition's source map
// (frontend/ir/source_map.h) gives the IR entity every name it resolved denotes, and the
// definition's own name (its GlobalVar) is the global it defines. A name lowering did not resolve
// (an undefined name, an operator, a keyword) is no symbol.

namespace {

SymbolKind global_kind(const ir::GlobalDef& g) {
  if (g.prim_func()) return SymbolKind::PrimFunc;
  if (g.extern_func()) return SymbolKind::ExternFunc;
  return SymbolKind::Function;
}

std::optional<Symbol> global_symbol(const Engine::State& st, const std::string& name) {
  const Definition* def = st.definition_named(name);
  if (!def) return std::nullopt;
  Symbol s;
  s.kind = global_kind(*def->global);
  s.name = name;
  s.definition = st.doc->to_text(def->global->gvar->span);
  s.scope = {0, uint32_t(st.doc->text().size())};
  s.global = &*def->global;
  return s;
}

// A shape variable introduced by a string (`R.Tensor(("n", 4))`) is the name inside the quotes:
// the token references and rename find, and what a rename replaces.
Span without_quotes(const std::string& text, Span span) {
  if (span.end - span.begin >= 2 && span.end <= text.size() && text[span.begin] == '"' &&
      text[span.end - 1] == '"')
    return {span.begin + 1, span.end - 1};
  return span;
}

// An IR span of `def` in text offsets, as Document::to_text gives it; translated here directly
// when it lies inside the definition's IR range (the document's lookup of the owner scans
// every definition, which adds up over a whole document's names).
Span text_span_in(const Engine::State& st, const Definition& def, Span ir) {
  Span range = def.ir_span();
  if (!range.contains(ir.begin) || ir.end < ir.begin) return st.doc->to_text(ir);
  uint32_t begin = ir.begin - def.ir_begin + def.begin;
  return {begin, std::min(begin + (ir.end - ir.begin), def.text_span().end)};
}

// The symbol a source-map entry of `def` denotes.
std::optional<Symbol> symbol_of(const Engine::State& st, const Definition& def,
                                const ir::NameRef& ref) {
  if (const ir::GlobalVar* g = ref.global()) return global_symbol(st, g->name);
  Symbol s;
  s.scope = def.text_span();
  if (const ir::Var* v = ref.var()) {
    s.kind = def.source_map.is_param(v) ? SymbolKind::Param : SymbolKind::Var;
    s.name = v->name;
    s.definition = text_span_in(st, def, v->span);
    s.var = v;
    return s;
  }
  const ir::PrimVar* p = ref.prim_var();
  s.kind = SymbolKind::ShapeVar;
  s.name = p->name;
  s.definition = without_quotes(st.doc->text(), text_span_in(st, def, p->span));
  s.prim_var = p;
  return s;
}

Span to_ir(const Definition& def, Span text) {
  return {text.begin - def.begin + def.ir_begin, text.end - def.begin + def.ir_begin};
}

// The symbol a token denotes; `def` is the definition containing it (may be null).
std::optional<Symbol> resolve_token(const Engine::State& st, const Token& token,
                                    const Definition* def) {
  if (!def || !def->global) return std::nullopt;
  Span at = to_ir(*def, token.span);
  if (const ir::NameRef* ref = def->source_map.at(at)) return symbol_of(st, *def, *ref);
  if (token.kind == Token::Kind::Identifier && at == def->global->gvar->span)
    return global_symbol(st, def->name);
  return std::nullopt;
}

}  // namespace

std::optional<Symbol> Engine::symbol_at(const std::string& key, uint32_t offset) const {
  State* st = find(key);
  if (!st) return std::nullopt;
  std::optional<Token> token = st->doc->token_at(offset);
  if (!token) return std::nullopt;
  return resolve_token(*st, *token, st->doc->definition_at(token->span.begin));
}

void Engine::for_each_symbol(
    const std::string& key, Span range,
    const std::function<void(const Token&, const std::optional<Symbol>&)>& visit) const {
  State* st = find(key);
  if (!st) return;
  // Tokens come in order: the definition holding the previous one usually holds this one too.
  const Definition* def = nullptr;
  st->doc->for_each_token(range, [&](const Token& token) {
    if (!def || !def->text_span().contains(token.span.begin))
      def = st->doc->definition_at(token.span.begin);
    visit(token, resolve_token(*st, token, def));
  });
}

namespace {

// The resolved names of one definition inside `range`, in text order: its source map, and its
// own name when the map has no entry there (resolve_token's two cases).
void visit_resolved(const Engine::State& st, const Definition& def, Span range,
                    const std::function<void(Span, const Symbol&)>& visit) {
  Span name = def.global->gvar->span;
  bool name_done = def.source_map.at(name) != nullptr;
  auto visit_name = [&] {
    name_done = true;
    Span at = text_span_in(st, def, name);
    if (range.begin <= at.begin && at.end <= range.end)
      if (std::optional<Symbol> s = global_symbol(st, def.name)) visit(at, *s);
  };
  for (const ir::NameRef& ref : def.source_map.refs()) {
    if (!name_done && name.begin < ref.span.begin) visit_name();
    Span at = text_span_in(st, def, ref.span);
    if (at.begin >= range.end) break;
    if (at.begin < range.begin || at.end > range.end) continue;
    if (std::optional<Symbol> s = symbol_of(st, def, ref)) visit(at, *s);
  }
  if (!name_done) visit_name();
}

}  // namespace

void Engine::for_each_resolved(const std::string& key, Span range,
                               const std::function<void(Span, const Symbol&)>& visit) const {
  State* st = find(key);
  if (!st) return;
  for (const auto& def : st->doc->definitions()) {
    Span extent = def->text_span();
    if (!def->global || extent.end <= range.begin || extent.begin >= range.end) continue;
    visit_resolved(*st, *def, range, visit);
  }
}

std::vector<Span> Engine::references(const std::string& key, uint32_t offset,
                                     bool include_definition) const {
  State* st = find(key);
  std::optional<Symbol> symbol = symbol_at(key, offset);
  if (!st || !symbol) return {};
  std::vector<Span> out;
  if (include_definition) out.push_back(symbol->definition);
  // A local symbol is named only inside its definition; a global anywhere.
  const Definition* local = symbol->global ? nullptr : st->doc->definition_at(symbol->scope.begin);
  for (const auto& def : st->doc->definitions()) {
    if (local && def.get() != local) continue;
    if (!def->global) continue;
    for (const ir::NameRef& ref : def->source_map.refs()) {
      bool same = symbol->global ? ref.global() && ref.global()->name == symbol->name
                  : symbol->var  ? ref.var() == symbol->var
                                 : ref.prim_var() == symbol->prim_var;
      if (!same) continue;
      Span at = st->doc->to_text(ref.span);
      if (at == symbol->definition) continue;
      out.push_back(at);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------ StructInfo

const ir::StructInfo* Engine::inferred(const std::string& key, const ir::Var* var) const {
  State* st = find(key);
  if (!st || !var) return nullptr;
  if (const Definition* def = st->doc->definition_of_ir(var->span))
    if (const State::Analysis* a = st->analysis_of(def)) {
      auto it = a->inference.var_sinfo.find(var);
      if (it != a->inference.var_sinfo.end()) return it->second;
    }
  return nullptr;
}

std::optional<StructInfoAt> Engine::struct_info_at(const std::string& key, uint32_t offset) const {
  State* st = find(key);
  if (!st) return std::nullopt;
  if (std::optional<Symbol> symbol = symbol_at(key, offset)) {
    StructInfoAt at;
    at.name = symbol->name;
    at.span = st->doc->token_at(offset)->span;
    if (symbol->var) {
      at.var = symbol->var;
      at.struct_info = inferred(key, symbol->var);
      at.annotation = symbol->var->annotation;
      return at;
    }
    if (symbol->global) {
      at.struct_info = signature(key, symbol->name);
      return at;
    }
  }
  const Definition* def = st->doc->definition_at(offset);
  const State::Analysis* a = st->analysis_of(def);
  if (!a || !a->normalized) return std::nullopt;
  uint32_t ir_offset = offset - def->begin + def->ir_begin;
  struct Innermost : ir::Visitor {
    uint32_t at;
    const FunctionInference& inference;
    const ir::Expr* best = nullptr;
    Innermost(uint32_t a, const FunctionInference& i) : at(a), inference(i) {}
    void on_expr(const ir::Expr* e) override {
      if (ir::isa<ir::Var>(e) || !e->span.contains(at) || !inference.expr_sinfo.count(e)) return;
      if (!best || (e->span.end - e->span.begin) <= (best->span.end - best->span.begin)) best = e;
    }
  } finder(ir_offset, a->inference);
  finder.visit(a->normalized);
  if (!finder.best) return std::nullopt;
  StructInfoAt at;
  at.span = st->doc->to_text(finder.best->span);
  at.expr = finder.best;
  at.struct_info = a->inference.expr_sinfo.at(finder.best);
  return at;
}

const ir::StructInfo* Engine::signature(const std::string& key, std::string_view global) const {
  State* st = find(key);
  if (!st) return nullptr;
  auto it = st->signatures.find(std::string(global));
  return it == st->signatures.end() ? nullptr : it->second.sinfo;
}

const ir::StructInfo* Engine::caller_signature(const std::string& key, std::string_view global,
                                               ir::Arena& arena) const {
  State* st = find(key);
  const Definition* def = st ? st->definition_named(global) : nullptr;
  const ir::Function* f = def && def->global ? def->global->function() : nullptr;
  if (!f || f->ret_struct_info) return signature(key, global);
  GlobalSignatures annotated = [st](const ir::GlobalVar* gv) -> const ir::StructInfo* {
    auto it = gv ? st->signatures.find(gv->name) : st->signatures.end();
    return it == st->signatures.end() ? nullptr : it->second.sinfo;
  };
  try {
    arith::Analyzer analyzer(arena);
    return analysis::caller_signature(st->doc->module(), *def->global, annotated, analyzer);
  } catch (const std::exception&) {
    return signature(key, global);  // a query never aborts
  }
}

const FunctionInference* Engine::inference(const std::string& key, std::string_view global) const {
  State* st = find(key);
  if (!st) return nullptr;
  const State::Analysis* a = st->analysis_of(st->definition_named(global));
  return a ? &a->inference : nullptr;
}

const ir::Function* Engine::normalized(const std::string& key, std::string_view global) const {
  State* st = find(key);
  if (!st) return nullptr;
  const State::Analysis* a = st->analysis_of(st->definition_named(global));
  return a ? a->normalized : nullptr;
}

std::vector<DocumentSymbol> Engine::document_symbols(const std::string& key) const {
  State* st = find(key);
  if (!st) return {};
  std::vector<DocumentSymbol> functions;
  for (const auto& def : st->doc->definitions()) {
    if (!def->global) continue;
    DocumentSymbol s;
    s.name = def->name;
    s.range = def->text_span();
    s.selection = st->doc->to_text(def->global->gvar->span);
    s.kind = def->global->prim_func()     ? DocumentSymbol::Kind::PrimFunc
             : def->global->extern_func() ? DocumentSymbol::Kind::ExternFunc
                                          : DocumentSymbol::Kind::Function;
    if (const ir::Function* f = def->global->function()) {
      for (const ir::BindingBlock* block : f->body->blocks) {
        if (!block->is_dataflow) continue;
        DocumentSymbol b;
        b.kind = DocumentSymbol::Kind::DataflowBlock;
        b.name = "dataflow";
        b.range = st->doc->to_text(block->span);
        b.selection = {b.range.begin, b.range.begin};
        s.children.push_back(std::move(b));
      }
    }
    functions.push_back(std::move(s));
  }
  const ir::IRModule& module = st->doc->module();
  if (module.top_level != ir::TopLevel::Module) return functions;
  DocumentSymbol m;
  m.kind = DocumentSymbol::Kind::Module;
  m.name = module.name;
  m.range = {0, uint32_t(st->doc->text().size())};
  if (!functions.empty()) m.range.begin = functions.front().range.begin;
  m.selection = {m.range.begin, m.range.begin};
  std::string needle = "class " + module.name;
  size_t at = st->doc->text().find(needle);
  if (at != std::string::npos) {
    m.range.begin = std::min(m.range.begin, uint32_t(at));
    m.selection = {uint32_t(at + 6), uint32_t(at + needle.size())};
  }
  m.children = std::move(functions);
  return {std::move(m)};
}

}  // namespace raxc::analysis
