// Whole-file lowering (text-format.md §3): imports, the metadata definition, the single
// top-level item, module classes with their two-pass declaration of globals.
#include "frontend/lower/lower.h"

#include <algorithm>
#include <utility>

#include "frontend/lower/distributed.h"
#include "frontend/lower/relax_function.h"
#include "frontend/lower/relax_lower.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;

namespace {

class FileLowerer {
 public:
  FileLowerer(LowerContext& ctx) : ctx_(ctx), cst_(ctx.cst) {}

  // Pass 1 only (the Engine): definitions are collected into `outline`, not lowered.
  void outline_only(ModuleOutline* outline, const OutlineReuse* reuse) {
    outline_ = outline;
    reuse_ = reuse;
  }

  void run(TSNode root) {
    TSNode top{};
    bool saw_definition = false;  // an undecorated def/class was already reported
    for (TSNode stmt : cst_.named_children(root)) {
      switch (cst_.kind(stmt)) {
        case Kind::import_from_statement:
        case Kind::import_statement:
          note_header(stmt);
          if (!ts_node_is_null(top)) error(diag::ImportAfterDefinition{}, span(stmt));
          lower_import(stmt);
          break;
        case Kind::binding:
          note_header(stmt);
          if (is_metadata_def(stmt)) {
            if (ctx_.module.has_metadata_def) error(diag::MetadataDefinedTwice{}, span(stmt));
            ctx_.module.has_metadata_def = true;
          } else if (!ts_node_has_error(root)) {
            error(diag::UnexpectedFileLevelStatement{.statement = first_line(stmt)}, span(stmt));
          }
          break;
        case Kind::module_class:
        case Kind::relax_function:
        case Kind::prim_function:
          if (!ts_node_is_null(top)) {
            error(diag::SecondTopLevelDefinition{.name = text(cst_.field(stmt, Field::name))},
                  span(cst_.field(stmt, Field::name)));
            break;
          }
          top = stmt;
          lower_top_item(stmt);
          break;
        case Kind::expression_statement:
          if (is_string(cst_.field(stmt, Field::value))) break;  // a docstring
          if (!ts_node_has_error(root))
            error(diag::UnexpectedFileLevelStatement{.statement = first_line(stmt)}, span(stmt));
          break;
        case Kind::pass_statement: break;
        case Kind::function_definition:
          saw_definition = true;
          error(diag::FunctionMissingDecorator{.function = text(cst_.field(stmt, Field::name))},
                span(cst_.field(stmt, Field::name)));
          break;
        case Kind::class_definition:
          saw_definition = true;
          error(diag::ClassNotIrModule{.class_name = text(cst_.field(stmt, Field::name))},
                span(cst_.field(stmt, Field::name)));
          break;
        default:
          // After a syntax error the file's structure is unreliable: no cascades.
          if (!ts_node_has_error(root))
            error(diag::UnexpectedFileLevelStatement{.statement = first_line(stmt)}, span(stmt));
          break;
      }
    }
    if (ts_node_is_null(top) && !saw_definition && !ts_node_has_error(root))
      error(diag::NoModuleOrFunction{}, Span{cst_.span_bias(), cst_.span_bias()});
  }

  // One definition found by pass 1, lowered on its own (its GlobalDef is returned, not added).
  std::optional<ir::GlobalDef> lower_definition(TSNode def, const ModuleScope& scope) {
    if (cst_.is(def, Kind::binding)) return lower_extern_global(def, scope);
    return lower_global(def, scope);
  }

 private:
  void error(DiagPayload what, Span at) { ctx_.diags.report(make_diagnostic(std::move(what), at)); }
  // A statement whose text and position the module-level IR depends on (ModuleOutline).
  void note_header(TSNode stmt) {
    if (!outline_) return;
    outline_->header_key.statements.push_back({span(stmt).begin, text(stmt)});
  }
  void note_definition(TSNode def, const std::string& name, const GlobalInfo& info) {
    if (!outline_) return;
    outline_->definitions.push_back(def);
    outline_->declared.push_back(
        {ts_node_start_byte(def), ts_node_end_byte(def), name, info.name_span, facts_of(info)});
  }
  static DeclarationFacts facts_of(const GlobalInfo& info) {
    return {static_cast<DeclarationFacts::Kind>(info.kind), info.has_return_annotation,
            info.returns_void};
  }
  static GlobalInfo info_of(const DeclarationFacts& facts, Span name_span) {
    GlobalInfo info;
    info.kind = static_cast<GlobalInfo::Kind>(facts.kind);
    info.has_return_annotation = facts.has_return_annotation;
    info.returns_void = facts.returns_void;
    info.name_span = name_span;
    return info;
  }
  Span span(TSNode n) const { return cst_.span(n); }
  std::string text(TSNode n) const { return std::string(cst_.text(n)); }
  std::string first_line(TSNode n) const {
    std::string t = text(n);
    size_t nl = t.find('\n');
    if (nl != std::string::npos) t = t.substr(0, nl) + " ...";
    if (t.size() > 60) t = t.substr(0, 57) + "...";
    return t;
  }
  bool is_string(TSNode n) const {
    return cst_.is(n, Kind::string) || cst_.is(n, Kind::concatenated_string);
  }

  // ---------------------------------------------------------------- imports (§3.2)
  void lower_import(TSNode stmt) {
    if (cst_.is(stmt, Kind::import_statement)) {
      for (TSNode name : cst_.fields(stmt, Field::name)) {
        if (cst_.is(name, Kind::dotted_name) && cst_.text(name) == "tvm") continue;
        error(diag::UnsupportedImport{.import = text(name)}, span(name));
      }
      return;
    }
    std::string module = text(cst_.field(stmt, Field::module_name));
    bool script = module == "tvm.script" || module == "tvm.script.parser";
    for (TSNode item : cst_.fields(stmt, Field::name)) {
      TSNode name = item, alias{};
      if (cst_.is(item, Kind::aliased_import)) {
        name = cst_.field(item, Field::name);
        alias = cst_.field(item, Field::alias);
      }
      std::string what = text(name);
      std::optional<Namespace> ns;
      if (what == "relax") ns = Namespace::Relax;
      if (what == "tir" || what == "tirx") ns = Namespace::Tir;
      if (what == "ir") ns = Namespace::Ir;
      if (!script || !ns) {
        error(diag::UnsupportedImport{.import = "from " + module + " import " + what}, span(item));
        continue;
      }
      ctx_.namespaces.bind(ts_node_is_null(alias) ? what : text(alias), *ns);
    }
  }

  // metadata = tvm.ir.load_json("...") (§3.6)
  bool is_metadata_def(TSNode stmt) const {
    TSNode left = cst_.field(stmt, Field::left), right = cst_.field(stmt, Field::right);
    if (!cst_.is(left, Kind::identifier) || cst_.text(left) != "metadata") return false;
    if (!cst_.is(right, Kind::call)) return false;
    if (namespace_path(ctx_, cst_.field(right, Field::function), Namespace::Tvm) != "ir.load_json")
      return false;
    std::vector<TSNode> args = cst_.named_children(cst_.field(right, Field::arguments));
    return args.size() == 1 && is_string(args[0]);
  }

  // ---------------------------------------------------------------- top level (§3.1, §3.4)
  void lower_top_item(TSNode item) {
    ir::IRModule& m = ctx_.module;
    if (cst_.is(item, Kind::module_class)) {
      m.top_level = ir::TopLevel::Module;
      lower_module(item);
      return;
    }
    std::string name = text(cst_.field(item, Field::name));
    ModuleScope scope;
    GlobalInfo info;
    info.kind =
        cst_.is(item, Kind::relax_function) ? GlobalInfo::Kind::Relax : GlobalInfo::Kind::Prim;
    declare_signature(item, info);
    scope.globals[name] = info;
    m.top_level =
        cst_.is(item, Kind::relax_function) ? ir::TopLevel::Function : ir::TopLevel::PrimFunc;
    if (outline_) {
      outline_->header_key.lone_function = name;
      note_definition(item, name, info);
      outline_->scope = std::make_shared<ModuleScope>(std::move(scope));
      return;
    }
    if (auto g = lower_global(item, scope)) m.globals.push_back(std::move(*g));
  }

  void declare_signature(TSNode def, GlobalInfo& info) {
    info.name_span = span(cst_.field(def, Field::name));
    TSNode ret = cst_.field(def, Field::return_type);
    info.has_return_annotation =
        !ts_node_is_null(ret) && !cst_.is(cst_.field(ret, Field::value), Kind::none);
    info.returns_void =
        info.has_return_annotation && is_void_annotation(ctx_, cst_.field(ret, Field::value));
  }

  // One GlobalDef, lowered into its own arena (its GlobalVar too, so that dropping the arena
  // drops everything the definition made).
  std::optional<ir::GlobalDef> lower_global(TSNode def, const ModuleScope& scope) {
    auto arena = std::make_shared<ir::Arena>();
    ctx_.arena = arena.get();
    TSNode name_node = cst_.field(def, Field::name);
    std::string name = text(name_node);
    ir::GlobalDef g;
    g.span = span(def);
    g.arena = arena;
    if (cst_.is(def, Kind::relax_function)) {
      const ir::Function* fn = lower_relax_function(ctx_, scope, def);
      if (!fn) return std::nullopt;
      g.value = fn;
    } else {
      // TIR scopes are not the Relax ones the source map describes (ir/source_map.h).
      ir::SourceMap* source_map = std::exchange(ctx_.source_map, nullptr);
      const ir::PrimFunc* fn = lower_prim_func(ctx_, def);
      ctx_.source_map = source_map;
      if (!fn) return std::nullopt;
      g.value = fn;
    }
    g.gvar = arena->make<ir::GlobalVar>(name, span(name_node));
    return g;
  }

  // ---------------------------------------------------------------- module class (§3.3)
  void lower_module_decorators(TSNode cls) {
    ir::IRModule& m = ctx_.module;
    bool classified = false;
    for (TSNode deco : cst_.fields(cls, Field::decorator)) {
      TSNode value = cst_.field(deco, Field::value);
      TSNode callee = cst_.is(value, Kind::call) ? cst_.field(value, Field::function) : value;
      bool ok = namespace_path(ctx_, callee, Namespace::Ir) == "ir_module" ||
                namespace_path(ctx_, callee, Namespace::Tvm) == "script.ir_module";
      if (!ok || classified) {
        error(diag::UnsupportedModuleDecorator{.decorator = text(value)}, span(deco));
        continue;
      }
      classified = true;
      if (!cst_.is(value, Kind::call)) continue;
      for (TSNode arg : cst_.named_children(cst_.field(value, Field::arguments))) {
        if (!cst_.is(arg, Kind::keyword_argument)) {
          error(diag::UnknownIrModuleArgument{.argument = text(arg)}, span(arg));
          continue;
        }
        std::string key = text(cst_.field(arg, Field::name));
        TSNode v = cst_.field(arg, Field::value);
        if (key != "check_well_formed" && key != "s_tir") {
          error(diag::UnknownIrModuleArgument{.argument = key}, span(arg));
          continue;
        }
        if (!is_type(v, "true") && !is_type(v, "false")) {
          error(diag::FlagNotBoolean{.flag = key, .value = text(v)}, span(v));
          continue;
        }
        if (key == "check_well_formed") m.check_well_formed = is_type(v, "true");
        if (key == "s_tir") m.s_tir = is_type(v, "true");
      }
    }
  }

  void lower_module(TSNode cls) {
    ir::IRModule& m = ctx_.module;
    lower_module_decorators(cls);
    m.name = text(cst_.field(cls, Field::name));
    if (outline_) {
      TSNode body = cst_.field(cls, Field::body);
      Span head{span(cls).begin, ts_node_is_null(body) ? span(cls).end : span(body).begin};
      outline_->header_key.statements.push_back(
          {head.begin, std::string(cst_.source().substr(head.begin - cst_.span_bias(),
                                                        head.end - head.begin))});
    }
    TSNode bases = cst_.field(cls, Field::superclasses);
    if (!ts_node_is_null(bases) && !cst_.named_children(bases).empty())
      error(diag::ModuleClassHasBases{.bases = text(bases)}, span(bases));
    ModuleScope scope;
    scope.class_name = m.name;
    std::vector<TSNode> stmts = cst_.named_children(cst_.field(cls, Field::body));
    // Pass 1: declare every global, read module attributes and global infos (vdevices must be
    // known before any annotation refers to them).
    std::vector<TSNode> definitions;  // for pass 2 (an outline notes them itself)
    auto keep = [&](TSNode def) {
      if (!outline_) definitions.push_back(def);
    };
    if (outline_) outline_->definitions.reserve(stmts.size());
    if (outline_) outline_->declared.reserve(stmts.size());
    const std::vector<DeclaredStatement>* reusable = reusable_declarations();
    if (outline_) outline_->declared_under = std::make_shared<Namespaces>(ctx_.namespaces);
    statements_ = stmts.size();
    start_sharing(scope);
    if (!sharing_) scope.globals.reserve(stmts.size());
    for (TSNode stmt : stmts) {
      Kind k = cst_.kind(stmt);
      if (const DeclaredStatement* old = reusable ? declared_before(*reusable, stmt, k) : nullptr) {
        uint32_t moved = ts_node_start_byte(stmt) - old->begin;  // modulo 2^32: may be negative
        GlobalInfo info =
            info_of(old->facts, {old->name_span.begin + moved, old->name_span.end + moved});
        if (declare_name(scope, stmt, old->name, info)) keep(stmt);
        ++outline_->declarations_reused;
      } else if (k == Kind::relax_function || k == Kind::prim_function) {
        GlobalInfo info;
        info.kind = k == Kind::relax_function ? GlobalInfo::Kind::Relax : GlobalInfo::Kind::Prim;
        declare_signature(stmt, info);
        if (declare(scope, stmt, cst_.field(stmt, Field::name), info)) keep(stmt);
      } else if (k == Kind::binding && is_extern_func(stmt)) {
        GlobalInfo info;
        info.kind = GlobalInfo::Kind::Extern;
        info.name_span = span(cst_.field(stmt, Field::left));
        if (declare(scope, stmt, cst_.field(stmt, Field::left), info)) keep(stmt);
      } else if (k == Kind::expression_statement) {
        note_header(stmt);
        lower_module_statement(stmt);
      } else if (k == Kind::pass_statement) {
      } else if (k == Kind::function_definition) {
        error(diag::FunctionMissingDecorator{.function = text(cst_.field(stmt, Field::name))},
              span(cst_.field(stmt, Field::name)));
      } else if (!is_error_node(stmt) && !ts_node_has_error(stmt)) {
        error(diag::UnexpectedModuleClassStatement{.statement = first_line(stmt)}, span(stmt));
      }
    }
    if (outline_) {
      outline_->scope = finish_sharing(scope);
      return;
    }
    // Pass 2: bodies, in source order.
    for (TSNode def : definitions) {
      if (auto g = lower_definition(def, scope)) m.globals.push_back(std::move(*g));
    }
  }

  bool declare(ModuleScope& scope, TSNode def, TSNode name_node, const GlobalInfo& info) {
    return declare_name(scope, def, text(name_node), info);
  }
  // `info.name_span` is where the name is written.
  bool declare_name(ModuleScope& scope, TSNode def, const std::string& name,
                    const GlobalInfo& info) {
    if (defer(scope, def, name, info)) return true;
    // One hash lookup for both the duplicate check and the insertion: a keystroke's outline
    // declares every global of the module again.
    auto [previous, added] = scope.globals.try_emplace(name, info);
    if (!added) {
      Diagnostic d = make_diagnostic(diag::DuplicateModuleDefinition{.name = name}, info.name_span);
      d.note(previous->second.name_span, "previous definition of '" + name + "' is here");
      ctx_.diags.report(std::move(d));
      return false;
    }
    note_definition(def, name, info);
    return true;
  }

  // ------------------------------------------------ sharing the previous outline's scope
  // A keystroke's outline usually declares the globals the previous one declared, in the same
  // order and with the same facts. Those are not entered into a map of their own while they
  // match (sharing_ points at the previous outline's list, deferred_ counts them); if all of
  // them match, the previous outline's scope is this one's too. The scope's name spans are then
  // an earlier text's: only the declaration pass reads them (the note of a duplicate), and it
  // never reads a shared scope. The first declaration that does not match enters the deferred
  // ones into `scope` (distinct names: they matched a list without duplicates) and stops.

  void start_sharing(const ModuleScope& scope) {
    const ModuleOutline* previous = reuse_ ? reuse_->previous : nullptr;
    if (outline_ && previous && previous->scope && previous->scope->class_name == scope.class_name)
      sharing_ = &previous->declared;
  }
  // True when the global was declared by deferring it.
  bool defer(ModuleScope& scope, TSNode def, const std::string& name, const GlobalInfo& info) {
    if (!sharing_) return false;
    if (deferred_ < sharing_->size() && (*sharing_)[deferred_].name == name &&
        (*sharing_)[deferred_].facts == facts_of(info)) {
      note_definition(def, name, info);
      ++deferred_;
      return true;
    }
    enter_deferred(scope);
    return false;
  }
  // Declares the deferred globals (as this outline noted them) in `scope`, and stops sharing.
  void enter_deferred(ModuleScope& scope) {
    if (!sharing_) return;
    scope.globals.reserve(statements_);
    for (size_t i = 0; i < deferred_; ++i) {
      const DeclaredStatement& d = outline_->declared[i];
      scope.globals.try_emplace(d.name, info_of(d.facts, d.name_span));
    }
    sharing_ = nullptr;
  }
  std::shared_ptr<const ModuleScope> finish_sharing(ModuleScope& scope) {
    if (sharing_ && deferred_ == sharing_->size()) {
      outline_->scope_shared = true;
      return reuse_->previous->scope;
    }
    enter_deferred(scope);
    return std::make_shared<ModuleScope>(std::move(scope));
  }

  // The previous outline's declarations, when they were read under the namespaces in force now.
  const std::vector<DeclaredStatement>* reusable_declarations() const {
    if (!reuse_ || !reuse_->previous || !reuse_->previous->declared_under) return nullptr;
    if (!(*reuse_->previous->declared_under == ctx_.namespaces)) return nullptr;
    return &reuse_->previous->declared;
  }
  // The declaration `stmt` (of kind `kind`) had before the edits, when its text is unchanged.
  const DeclaredStatement* declared_before(const std::vector<DeclaredStatement>& declared,
                                           TSNode stmt, Kind kind) const {
    uint32_t begin = ts_node_start_byte(stmt), end = ts_node_end_byte(stmt);
    if (!reuse_->unchanged(begin, end)) return nullptr;
    uint32_t was = reuse_->old_offset(begin);
    // Statements come in order: the one after the last found is tried before a binary search.
    auto it = declared.begin() + std::min(next_declared_, declared.size());
    if (it == declared.end() || it->begin != was)
      it = std::lower_bound(declared.begin(), declared.end(), was,
                            [](const DeclaredStatement& d, uint32_t at) { return d.begin < at; });
    next_declared_ = size_t(it - declared.begin()) + 1;
    if (it == declared.end() || it->begin != was || it->end - it->begin != end - begin)
      return nullptr;
    static constexpr Kind kStatementOf[] = {Kind::relax_function, Kind::prim_function,
                                            Kind::binding};  // by DeclarationFacts::Kind
    return kStatementOf[size_t(it->facts.kind)] == kind ? &*it : nullptr;
  }

  bool is_extern_func(TSNode stmt) const {
    TSNode left = cst_.field(stmt, Field::left), right = cst_.field(stmt, Field::right);
    if (!cst_.is(left, Kind::identifier) || !cst_.is(right, Kind::call)) return false;
    return namespace_path(ctx_, cst_.field(right, Field::function), Namespace::Relax) ==
           "ExternFunc";
  }

  std::optional<ir::GlobalDef> lower_extern_global(TSNode stmt, const ModuleScope& scope) {
    auto arena = std::make_shared<ir::Arena>();
    ctx_.arena = arena.get();
    TSNode right = cst_.field(stmt, Field::right);
    std::vector<TSNode> args = cst_.named_children(cst_.field(right, Field::arguments));
    TSNode sym{}, sinfo_node{};
    for (size_t i = 0; i < args.size(); ++i) {
      TSNode a = args[i];
      if (cst_.is(a, Kind::keyword_argument)) {
        std::string key = text(cst_.field(a, Field::name));
        if (key == "global_symbol")
          sym = cst_.field(a, Field::value);
        else if (key == "struct_info")
          sinfo_node = cst_.field(a, Field::value);
        else
          error(diag::UnexpectedKeywordArgument{.callee = "R.ExternFunc", .keyword = key}, span(a));
      } else if (i == 0) {
        sym = a;
      } else if (i == 1) {
        sinfo_node = a;
      } else {
        error(
            diag::TooManyPositionalArguments{
                .callee = "R.ExternFunc", .max_count = 2, .given_count = args.size()},
            span(a));
      }
    }
    if (ts_node_is_null(sym) || !is_string(sym)) {
      error(diag::StringLiteralExpected{.what = "R.ExternFunc"}, span(right));
      return std::nullopt;
    }
    std::optional<std::string> symbol = string_value(ctx_, sym);
    if (!symbol) return std::nullopt;
    const ir::StructInfo* sinfo = nullptr;
    if (!ts_node_is_null(sinfo_node)) {
      sinfo = lower_module_sinfo(ctx_, scope, sinfo_node);
      if (!sinfo) return std::nullopt;
    }
    ir::GlobalDef g;
    g.span = span(stmt);
    g.arena = arena;
    g.value = arena->make<ir::ExternFunc>(*symbol, sinfo, span(right));
    TSNode left = cst_.field(stmt, Field::left);
    g.gvar = arena->make<ir::GlobalVar>(text(left), span(left));
    return g;
  }

  // I.module_attrs({...}) / I.module_global_infos({...})
  void lower_module_statement(TSNode stmt) {
    TSNode value = cst_.field(stmt, Field::value);
    if (is_string(value)) return;  // docstring
    std::string path;
    if (cst_.is(value, Kind::call))
      path = namespace_path(ctx_, cst_.field(value, Field::function), Namespace::Ir);
    if (path != "module_attrs" && path != "module_global_infos") {
      error(diag::UnexpectedModuleClassStatement{.statement = first_line(stmt)}, span(stmt));
      return;
    }
    std::vector<TSNode> args = cst_.named_children(cst_.field(value, Field::arguments));
    if (args.size() != 1 || !cst_.is(args[0], Kind::dictionary)) {
      error(diag::ModuleInfoNeedsStringKeyDict{.builtin = "I." + path}, span(value));
      return;
    }
    ctx_.arena = ctx_.module.arena.get();
    for (TSNode pair : cst_.named_children(args[0])) {
      if (!cst_.is(pair, Kind::pair)) continue;
      TSNode key = cst_.field(pair, Field::key);
      std::optional<std::string> k;
      if (cst_.is(key, Kind::string)) k = string_value(ctx_, key);
      if (!k) {
        error(diag::ModuleInfoNeedsStringKeyDict{.builtin = "I." + path}, span(key));
        continue;
      }
      TSNode v = cst_.field(pair, Field::value);
      ir::Attrs& target = path == "module_attrs" ? ctx_.module.attrs : ctx_.module.global_infos;
      if (target.find(*k)) {
        error(diag::DuplicateAttribute{.attribute = *k}, span(key));
        continue;
      }
      std::optional<ir::AttrValue> lowered;
      if (path == "module_attrs") {
        lowered = lower_literal_attr(ctx_, v);
      } else {
        lowered = lower_global_info(*k, v);
      }
      if (lowered) target.entries.emplace_back(*k, std::move(*lowered));
    }
  }

  std::optional<ir::AttrValue> lower_global_info(const std::string& key, TSNode list) {
    if (!cst_.is(list, Kind::list) && !cst_.is(list, Kind::tuple)) {
      error(diag::InvalidGlobalInfoList{.key = key}, span(list));
      return std::nullopt;
    }
    ir::AttrValue::List items;
    for (TSNode item : cst_.named_children(list)) {
      std::string path;
      if (cst_.is(item, Kind::call))
        path = namespace_path(ctx_, cst_.field(item, Field::function), Namespace::Ir);
      if (path == "vdevice") {
        std::optional<ir::AttrValue> v = lower_vdevice(item, key == "vdevice");
        if (v) items.push_back(std::move(*v));
      } else if (is_device_mesh_call(ctx_, item)) {
        // Kept decoded in module.device_meshes (what annotations name as "key[index]"); the
        // list holds its position so that the printer finds it again.
        ir::DeviceMesh* mesh = lower_device_mesh(ctx_, *ctx_.module.arena, item);
        if (!mesh) continue;
        mesh->global_info_key = key;
        mesh->index = int(items.size());
        ctx_.module.device_meshes.push_back(mesh);
        items.push_back(ir::AttrValue(std::string("device_mesh"), span(item)));
      } else if (path == "dummy_global_info") {
        items.push_back(ir::AttrValue(std::string("dummy_global_info"), span(item)));
      } else {
        error(diag::InvalidGlobalInfoList{.key = key}, span(item));
      }
    }
    return ir::AttrValue(std::move(items), span(list));
  }

  // I.vdevice(target, vdevice_id=0, memory_scope="global")
  std::optional<ir::AttrValue> lower_vdevice(TSNode call, bool register_device) {
    std::vector<TSNode> args = cst_.named_children(cst_.field(call, Field::arguments));
    TSNode target{}, id{}, scope{};
    size_t position = 0;
    for (TSNode a : args) {
      if (cst_.is(a, Kind::keyword_argument)) {
        std::string key = text(cst_.field(a, Field::name));
        TSNode v = cst_.field(a, Field::value);
        if (key == "target")
          target = v;
        else if (key == "vdevice_id")
          id = v;
        else if (key == "memory_scope")
          scope = v;
        else {
          error(diag::UnexpectedKeywordArgument{.callee = "I.vdevice", .keyword = key}, span(a));
          return std::nullopt;
        }
        continue;
      }
      if (position == 0)
        target = a;
      else if (position == 1)
        id = a;
      else if (position == 2)
        scope = a;
      else {
        error(
            diag::TooManyPositionalArguments{
                .callee = "I.vdevice", .max_count = 3, .given_count = args.size()},
            span(a));
        return std::nullopt;
      }
      ++position;
    }
    auto* vd = ctx_.module.arena->make<ir::VDevice>();
    vd->span = span(call);
    if (ts_node_is_null(target)) {
      error(diag::InvalidVDeviceCall{.expected = "a target string or dictionary"}, span(call));
      return std::nullopt;
    }
    std::optional<ir::AttrValue> t = lower_literal_attr(ctx_, target);
    if (!t) return std::nullopt;
    if (const std::string* s = t->get_if<std::string>()) {
      vd->target_kind = s->substr(0, s->find(' '));
    } else if (const ir::AttrValue::Dict* d = t->get_if<ir::AttrValue::Dict>()) {
      for (auto& [k, v] : *d) {
        const std::string* ks = k.get_if<std::string>();
        const std::string* vs = v.get_if<std::string>();
        if (ks && vs && *ks == "kind") vd->target_kind = *vs;
      }
      if (vd->target_kind.empty()) {
        error(diag::InvalidVDeviceCall{.expected = "a \"kind\" key in the target dictionary"},
              span(target));
        return std::nullopt;
      }
    } else {
      error(diag::InvalidVDeviceCall{.expected = "a target string or dictionary"}, span(target));
      return std::nullopt;
    }
    vd->target = *t;
    ir::AttrValue::Dict record;
    record.emplace_back(ir::AttrValue(std::string("target")), *t);
    if (!ts_node_is_null(id)) {
      std::optional<ir::AttrValue> v = lower_literal_attr(ctx_, id);
      const int64_t* i = v ? v->get_if<int64_t>() : nullptr;
      if (!i) {
        error(diag::InvalidVDeviceCall{.expected = "an integer vdevice_id"}, span(id));
        return std::nullopt;
      }
      vd->dev_id = *i;
    }
    if (!ts_node_is_null(scope)) {
      std::optional<ir::AttrValue> v = lower_literal_attr(ctx_, scope);
      const std::string* s = v ? v->get_if<std::string>() : nullptr;
      if (!s) {
        error(diag::InvalidVDeviceCall{.expected = "a memory_scope string"}, span(scope));
        return std::nullopt;
      }
      vd->mem_scope = *s;
    }
    record.emplace_back(ir::AttrValue(std::string("vdevice_id")), ir::AttrValue(vd->dev_id));
    record.emplace_back(ir::AttrValue(std::string("memory_scope")), ir::AttrValue(vd->mem_scope));
    if (register_device) {
      vd->index = int(ctx_.module.vdevices.size());
      ctx_.module.vdevices.push_back(vd);
    }
    return ir::AttrValue(std::move(record), span(call));
  }

  LowerContext& ctx_;
  const OutlineReuse* reuse_ = nullptr;
  const cst::Cst& cst_;
  ModuleOutline* outline_ = nullptr;
  const std::vector<DeclaredStatement>* sharing_ = nullptr;  // see start_sharing
  size_t deferred_ = 0;
  size_t statements_ = 0;             // in the module class's body
  mutable size_t next_declared_ = 0;  // declared_before's guess
};

}  // namespace

std::unique_ptr<ir::IRModule> lower_file(const cst::Cst& cst, TSNode root, DiagnosticSink& diags) {
  auto module = std::make_unique<ir::IRModule>();
  LowerContext ctx{cst, diags, *module, Namespaces(), module->arena.get()};
  FileLowerer(ctx).run(root);
  return module;
}

ModuleOutline lower_outline(const cst::Cst& cst, TSNode root, DiagnosticSink& diags,
                            const OutlineReuse* reuse) {
  ModuleOutline outline;
  outline.module = std::make_unique<ir::IRModule>();
  LowerContext ctx{cst, diags, *outline.module, Namespaces(), outline.module->arena.get()};
  FileLowerer lowerer(ctx);
  lowerer.outline_only(&outline, reuse);
  lowerer.run(root);
  outline.namespaces = std::make_shared<Namespaces>(ctx.namespaces);
  if (!outline.scope) outline.scope = std::make_shared<ModuleScope>();
  return outline;
}

std::optional<ir::GlobalDef> lower_definition(const cst::Cst& cst, const ModuleOutline& outline,
                                              ir::IRModule& module, TSNode definition,
                                              DiagnosticSink& diags, ir::SourceMap* source_map) {
  LowerContext ctx{cst, diags, module, *outline.namespaces, module.arena.get()};
  ctx.source_map = source_map;
  std::optional<ir::GlobalDef> g = FileLowerer(ctx).lower_definition(definition, *outline.scope);
  if (source_map) {
    // Without a GlobalDef the arena the entries point into is gone.
    if (!g) source_map->clear();
    source_map->finish();
  }
  return g;
}

}  // namespace raxc::lower
