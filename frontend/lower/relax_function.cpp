// Relax functions and their bodies (text-format.md §4, §5.1–§5.7, §5.10, §10 items 1–5, 9,
// 17, 23): signatures, statements, dataflow blocks, if-bindings, returns, nested functions.
#include "frontend/lower/relax_function.h"

#include <algorithm>
#include <functional>

#include "frontend/ir/equal.h"
#include "frontend/lower/literals.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;

// The blocks of one SeqExpr under construction. Blocks stay mutable until the SeqExpr is made
// because an if-branch rewrites its last binding (§5.5).
struct FunctionLowerer::Builder {
  std::vector<ir::BindingBlock*> blocks;
  ir::BindingBlock* open = nullptr;  // the block receiving bindings
  bool dataflow = false;
  bool output_seen = false;
  Span output_span;
  bool in_branch = false;
  const ir::Expr* body = nullptr;  // the return value
  bool returned = false;
  Span return_span;
  const ir::Binding* last = nullptr;  // the most recent binding (if-branch result)
};

void FunctionLowerer::error(DiagPayload what, Span at) {
  ctx_.diags.report(make_diagnostic(std::move(what), at));
}

const Name* FunctionLowerer::lookup(std::string_view name) const {
  std::string key(name);
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    auto found = it->names.find(key);
    if (found != it->names.end()) return &found->second;
  }
  return nullptr;
}

void FunctionLowerer::bind_name(std::string name, Name entry) {
  poisoned_.erase(name);
  frames_.back().names[std::move(name)] = std::move(entry);
}

// ------------------------------------------------------------------------------ source map
// Each name is recorded where the scopes above resolve it (frontend/ir/source_map.h), so that
// editor queries see exactly what lowering saw.

void FunctionLowerer::record_global(TSNode name) {
  if (ctx_.source_map) record_name(span(name), make<ir::GlobalVar>(text(name), span(name)));
}

Span FunctionLowerer::quoted_name(TSNode string) const {
  // Children: string_start, string_content, string_end (grammar/NODES.md). A name spelled with
  // escapes is no single token.
  TSNode content{};
  for (TSNode part : cst().named_children(string)) {
    if (cst().is(part, Kind::escape_sequence)) return {};
    if (!cst().is(part, Kind::string_content)) continue;
    if (!ts_node_is_null(content)) return {};
    content = part;
  }
  return ts_node_is_null(content) ? Span{} : span(content);
}

FunctionLowerer::PriorNames FunctionLowerer::prior_names(TSNode stmt) const {
  PriorNames prior;
  if (!ctx_.source_map || !cst().is(stmt, Kind::binding)) return prior;
  TSNode left = cst().field(stmt, Field::left);
  std::vector<TSNode> targets;
  if (cst().is(left, Kind::identifier)) targets.push_back(left);
  if (cst().is(left, Kind::pattern_list)) targets = cst().named_children(left);
  for (TSNode t : targets) {
    std::string name = text(t);
    const Name* n = lookup(name);
    prior.push_back({std::move(name), span(t), n ? std::optional<Name>(*n) : std::nullopt});
  }
  return prior;
}

// Code lowering did not lower completely (a syntax error in it, an error that stopped it before
// its operands, a statement refused as a whole or never reached) still mentions names the reader
// can ask about: each one not recorded since `mark` is resolved in the current scopes as an
// operand would have been, a binding target's name by what it denoted before the binding
// (`prior`). Nested functions and lambdas have scopes of their own and are left alone.
void FunctionLowerer::record_unlowered_names(TSNode node, size_t mark, const PriorNames& prior) {
  if (!ctx_.source_map || ts_node_is_null(node)) return;
  switch (cst().kind(node)) {
    case Kind::lambda:
    case Kind::relax_function:
    case Kind::prim_function:
    case Kind::function_definition:
    case Kind::concatenated_string: return;
    case Kind::string: {
      // A quoted shape variable (`"n"` where the body needs a bare `n`, RX1209).
      Span at = quoted_name(node);
      if (at.empty() || ctx_.source_map->recorded_since(mark, at)) return;
      const Name* n =
          lookup(cst().source().substr(at.begin - cst().span_bias(), at.end - at.begin));
      if (n && n->kind == Name::Kind::Sym) record_name(at, n->sym->var);
      return;
    }
    case Kind::keyword_argument:
      record_unlowered_names(cst().field(node, Field::value), mark, prior);
      return;
    case Kind::attribute: {
      // `cls.f` names a global; the attribute of anything else is no name in scope.
      TSNode object = cst().field(node, Field::object), attr = cst().field(node, Field::attribute);
      if (is_module_ref(object)) {
        if (cst().is(attr, Kind::identifier) && module_.find(cst().text(attr)) &&
            !ctx_.source_map->recorded_since(mark, span(attr)))
          record_global(attr);
        return;
      }
      record_unlowered_names(object, mark, prior);
      return;
    }
    case Kind::identifier: {
      Span at = span(node);
      if (ctx_.source_map->recorded_since(mark, at)) return;
      std::string name = text(node);
      const Name* n = nullptr;
      auto before = std::find_if(prior.begin(), prior.end(),
                                 [&](const PriorName& p) { return p.name == name; });
      if (before != prior.end()) {
        if (before->target == at) return;
        n = before->entry ? &*before->entry : nullptr;
      } else {
        n = lookup(name);
      }
      if (n && n->kind == Name::Kind::Var) record_name(node, n->var);
      if (n && n->kind == Name::Kind::Sym) record_name(span(node), n->sym->var);
      if (!n && module_.find(name)) record_global(node);
      return;
    }
    default: break;
  }
  for (TSNode child : cst().named_children(node)) record_unlowered_names(child, mark, prior);
}

// ------------------------------------------------------------------------------ functions

FunctionLowerer::Decorator FunctionLowerer::lower_decorators(TSNode node) {
  Decorator result;
  for (TSNode deco : cst().fields(node, Field::decorator)) {
    TSNode value = cst().field(deco, Field::value);
    TSNode callee = cst().is(value, Kind::call) ? cst().field(value, Field::function) : value;
    if (namespace_path(ctx_, callee, Namespace::Relax) != "function") {
      error(diag::UnsupportedFunctionDecorator{.decorator = text(value)}, span(deco));
      continue;
    }
    if (!cst().is(value, Kind::call)) continue;
    for (TSNode arg : cst().named_children(cst().field(value, Field::arguments))) {
      if (!cst().is(arg, Kind::keyword_argument)) {
        error(diag::UnknownRelaxFunctionArgument{.argument = text(arg)}, span(arg));
        continue;
      }
      std::string key = text(cst().field(arg, Field::name));
      TSNode v = cst().field(arg, Field::value);
      bool is_true = is_type(v, "true"), is_false = is_type(v, "false");
      if (key != "pure" && key != "private" && key != "check_well_formed") {
        error(diag::UnknownRelaxFunctionArgument{.argument = key}, span(arg));
        continue;
      }
      if (!is_true && !is_false) {
        error(diag::FlagNotBoolean{.flag = key, .value = text(v)}, span(v));
        continue;
      }
      if (key == "pure") result.pure = is_true;
      if (key == "private") result.is_private = is_true;
    }
  }
  return result;
}

bool FunctionLowerer::calls_name(TSNode node, std::string_view name) const {
  if (ts_node_is_null(node)) return false;
  Kind k = cst().kind(node);
  if (k == Kind::relax_function || k == Kind::prim_function || k == Kind::function_definition)
    return false;  // a nested def's own calls are its business
  if (k == Kind::call) {
    TSNode callee = cst().field(node, Field::function);
    if (cst().is(callee, Kind::identifier) && cst().text(callee) == name) return true;
  }
  for (TSNode child : cst().named_children(node))
    if (calls_name(child, name)) return true;
  return false;
}

// §5.10 / §10 item 17: recursion is detected syntactically, statement by statement.
bool FunctionLowerer::is_recursive(TSNode body, std::string_view name) const {
  return calls_name(body, name);
}

std::vector<const ir::Var*> FunctionLowerer::lower_params(TSNode params_node) {
  std::vector<const ir::Var*> params;
  std::unordered_set<std::string> seen;
  for (TSNode p : cst().named_children(params_node)) {
    if (!cst().is(p, Kind::parameter)) continue;
    TSNode name_node = cst().field(p, Field::name);
    std::string name = text(name_node);
    TSNode ann = cst().field(p, Field::annotation);
    const ir::StructInfo* sinfo = nullptr;
    if (ts_node_is_null(ann)) {
      error(diag::ParameterMissingAnnotation{.param = name}, span(p));
    } else {
      sinfo = lower_sinfo(cst().field(ann, Field::value), SInfoMode::Signature);
    }
    if (!seen.insert(name).second) error(diag::DuplicateParameter{.param = name}, span(name_node));
    auto* var = make<ir::Var>(false, name, sinfo, span(name_node));
    record_name(name_node, var);
    if (ctx_.source_map) ctx_.source_map->mark_param(var);
    if (auto* t = ir::dyn_cast<ir::TupleSInfo>(sinfo))
      facts_[var].tuple_arity = int(t->fields.size());
    if (auto* f = ir::dyn_cast<ir::FuncSInfo>(sinfo)) {
      facts_[var].func_ret = f->ret;
      auto* rt = ir::dyn_cast<ir::TupleSInfo>(f->ret);
      facts_[var].func_returns_void = rt && rt->fields.empty();
    }
    bind_name(name, Name::of(var));
    params.push_back(var);
  }
  return params;
}

const ir::Function* FunctionLowerer::lower_function(TSNode node, bool nested, ir::Var* self) {
  (void)self;
  Decorator deco = lower_decorators(node);
  TSNode name_node = cst().field(node, Field::name);
  std::string fname = text(name_node);
  if (!ts_node_is_null(cst().field(node, Field::type_parameters)))
    error(diag::UnsupportedInRelaxFunction{.construct = "type parameters (def f[M](...))"},
          span(cst().field(node, Field::type_parameters)));

  // Signature variables are per function; outer ones stay visible through the scopes.
  auto saved_sig = std::move(signature_vars_);
  auto saved_order = std::move(signature_order_);
  auto saved_top = std::move(top_level_sig_names_);
  bool saved_return = seen_return_;
  int saved_dataflow = dataflow_depth_;
  signature_vars_.clear();
  signature_order_.clear();
  top_level_sig_names_.clear();
  seen_return_ = false;
  dataflow_depth_ = 0;

  frames_.push_back(Frame{Frame::Kind::Function, {}});
  TSNode params_node = cst().field(node, Field::parameters);
  for (TSNode p : cst().named_children(params_node)) {
    TSNode ann = cst().field(p, Field::annotation);
    if (!ts_node_is_null(ann)) collect_signature_vars(cst().field(ann, Field::value), false);
  }
  for (TSNode dim : bare_dims_) collect_bare_dim_names(dim);
  bare_dims_.clear();
  for (const std::string& name : signature_order_) {
    sym_storage_.push_back(SymVar{signature_vars_[name], true});
    Name entry;
    entry.kind = Name::Kind::Sym;
    entry.sym = &sym_storage_.back();
    bind_name(name, entry);
  }

  std::vector<const ir::Var*> params = lower_params(params_node);
  const ir::StructInfo* ret = nullptr;
  TSNode ret_node = cst().field(node, Field::return_type);
  // `-> None` is the same as no annotation (TVM evaluates it to Python's None).
  if (!ts_node_is_null(ret_node) && !cst().is(cst().field(ret_node, Field::value), Kind::none))
    ret = lower_sinfo(cst().field(ret_node, Field::value), SInfoMode::Return);

  // A statement tree-sitter could not place in the body is an ERROR child of the function (between
  // the signature and the body): its names see the parameters.
  if (ctx_.source_map)
    for (TSNode child : cst().named_children(node))
      if (is_error_node(child)) record_unlowered_names(child, ctx_.source_map->size(), {});

  ir::Var* self_var = nullptr;
  TSNode body_node = cst().field(node, Field::body);
  if (nested && is_recursive(body_node, fname)) {
    // The variable exists before the body so that the body can call it (§5.10).
    if (!ret) error(diag::RecursiveLocalFunctionUnannotated{.function = fname}, span(name_node));
    std::vector<const ir::StructInfo*> param_sinfo;
    for (const ir::Var* p : params)
      param_sinfo.push_back(p->annotation ? p->annotation : make<ir::ObjectSInfo>(p->span));
    const ir::StructInfo* r =
        ret ? ret : make<ir::TupleSInfo>(std::vector<const ir::StructInfo*>{});
    auto* fsi = make<ir::FuncSInfo>(param_sinfo, r, deco.pure, std::string(), span(name_node));
    // Bound in the enclosing frame: the binding that follows the def uses this same variable.
    self_var = make<ir::Var>(saved_dataflow > 0, fname, fsi, span(name_node));
    facts_[self_var].func_ret = r;
    auto* rt = ir::dyn_cast<ir::TupleSInfo>(r);
    facts_[self_var].func_returns_void = rt && rt->fields.empty();
    frames_[frames_.size() - 2].names[fname] = Name::of(self_var);
  }

  ir::Attrs attrs;
  bool is_private = nested || deco.is_private;
  // Syntax errors in the body were reported already; names they would have bound must not
  // cascade into "undefined name" or "no return" errors.
  bool saved_syntax = body_has_syntax_error_;
  body_has_syntax_error_ = saved_syntax || ts_node_has_error(body_node);
  const ir::SeqExpr* body = lower_body(body_node, attrs, is_private);
  if (!seen_return_ && !body_has_syntax_error_)
    error(diag::MissingReturnStatement{.function = fname}, span(name_node));
  body_has_syntax_error_ = saved_syntax;
  if (deco.is_private) {
    if (const ir::AttrValue* gs = attrs.find("global_symbol"))
      error(diag::PrivateFunctionWithGlobalSymbol{.function = fname}, gs->span);
  }
  frames_.pop_back();

  signature_vars_ = std::move(saved_sig);
  signature_order_ = std::move(saved_order);
  top_level_sig_names_ = std::move(saved_top);
  seen_return_ = saved_return;
  dataflow_depth_ = saved_dataflow;

  auto* fn = make<ir::Function>(std::move(params), body, ret, deco.pure, is_private,
                                std::move(attrs), span(node), span(name_node));
  if (self_var) pending_self_ = self_var;
  return fn;
}

const ir::SeqExpr* FunctionLowerer::lower_body(TSNode block, ir::Attrs& attrs, bool is_private) {
  (void)is_private;
  ir::Attrs* saved_attrs = func_attrs_;
  func_attrs_ = &attrs;
  Builder b;
  Builder* saved = current_;
  current_ = &b;
  bool reported_unreachable = false;
  for (TSNode stmt : cst().named_children(block)) {
    // Unreachable statements are not lowered; their names are still what the scopes say.
    if (b.returned && ctx_.source_map) record_unlowered_names(stmt, ctx_.source_map->size(), {});
    if (b.returned) {
      if (cst().is(stmt, Kind::return_statement)) {
        error(diag::SecondReturnStatement{}, span(stmt));
        continue;
      }
      if (!reported_unreachable) error(diag::StatementAfterReturn{}, span(stmt));
      reported_unreachable = true;
      continue;
    }
    lower_statement(stmt, b);
  }
  current_ = saved;
  func_attrs_ = saved_attrs;
  if (b.returned) seen_return_ = true;
  const ir::Expr* result =
      b.body ? b.body : make<ir::Tuple>(std::vector<const ir::Expr*>{}, span(block));
  // A body cut short by a syntax error may have lost its return: its result is unknown, not
  // the empty tuple a function without a return has.
  if (!b.returned && body_has_syntax_error_) result = make<ir::ErrorExpr>(span(block));
  return finish_seq(b, result, span(block));
}

const ir::SeqExpr* FunctionLowerer::finish_seq(Builder& b, const ir::Expr* body, Span at) {
  std::vector<const ir::BindingBlock*> blocks;
  for (ir::BindingBlock* blk : b.blocks)
    if (!blk->bindings.empty()) blocks.push_back(blk);
  return make<ir::SeqExpr>(std::move(blocks), body, at);
}

// ------------------------------------------------------------------------------ statements

// A statement with a syntax error inside it, or followed on its own line by an ERROR
// (`z = R.nn.` is the binding `z = R.nn` and an ERROR holding the `.`), or an ERROR that begins
// like a binding. The syntax error was reported; the names it binds are bound to an
// ir::ErrorExpr so that the rest of the function lowers as if the statement were complete.
// Returns false for any other statement.
bool FunctionLowerer::lower_broken_statement(TSNode stmt, Builder& b) {
  // A body without syntax errors has no broken statement, nor an ERROR after one: the sibling
  // need not be looked for (ts_node_next_named_sibling walks down from the tree's root, about
  // 15 thousand instructions a statement in a 20,000-line module).
  if (!body_has_syntax_error_) return false;
  TSNode next = ts_node_next_named_sibling(stmt);
  bool error_follows = !ts_node_is_null(next) && is_error_node(next) &&
                       ts_node_start_point(next).row == ts_node_end_point(stmt).row;
  bool broken = ts_node_has_error(stmt) || error_follows;
  if (!broken) return false;
  // Names are recorded before anything is bound: the operands see the names bound before the
  // statement, and the targets bound below are recorded again as definitions (the later entry
  // wins). An ERROR on the line of the statement before it was read with that statement.
  TSNode prev = ts_node_prev_named_sibling(stmt);
  bool read_before = is_error_node(stmt) && !ts_node_is_null(prev) &&
                     ts_node_start_point(stmt).row == ts_node_end_point(prev).row;
  if (ctx_.source_map && !read_before) {
    size_t mark = ctx_.source_map->size();
    record_unlowered_names(stmt, mark, {});
    if (error_follows) record_unlowered_names(next, mark, {});
  }
  // The error node covers the statement and the ERROR after it: the syntax error is inside it.
  Span whole = span(stmt);
  if (error_follows) whole.end = std::max(whole.end, span(next).end);
  switch (cst().kind(stmt)) {
    case Kind::binding:
      bind_broken(whole, cst().field(stmt, Field::left), cst().field(stmt, Field::annotation), b);
      return true;
    case Kind::expression_statement: {
      TSNode value = cst().field(stmt, Field::value);
      // `z = ` is the expression statement `z` and an ERROR holding the `=`.
      if (error_follows && cst().is(value, Kind::identifier) && !ts_node_has_error(stmt)) {
        TSNode first = ts_node_child(next, 0);
        if (!ts_node_is_null(first) && cst().text(first) == "=") {
          bind_broken(whole, value, TSNode{}, b);
          return true;
        }
      }
      // An unclosed `R.output(a, b` still says which variables leave the block.
      if (cst().is(value, Kind::call) && !error_follows &&
          relax_path(cst().field(value, Field::function)) == "output") {
        lower_output(value, b);
        return true;
      }
      // Its value would only be bound to `_`; the binding marks where the error is.
      if (!(b.dataflow && b.output_seen))
        emit(b, "_", nullptr, make<ir::ErrorExpr>(whole), nullptr, span(stmt), whole);
      return true;
    }
    case Kind::return_statement: {
      TSNode value = cst().field(stmt, Field::value);
      if (b.dataflow && !ts_node_is_null(value)) implicit_outputs(value);
      b.returned = true;
      b.return_span = span(stmt);
      b.body = make<ir::ErrorExpr>(whole);
      return true;
    }
    default: break;
  }
  if (!is_error_node(stmt)) return false;
  // An ERROR standing for a whole statement: bind what looks like a binding target at its
  // start (`name =`, `name:`, `a, b =`).
  uint32_t count = ts_node_child_count(stmt);
  for (uint32_t i = 0; i + 1 < count; ++i) {
    TSNode target = ts_node_child(stmt, i);
    TSNode after = ts_node_child(stmt, i + 1);
    if (!cst().is(target, Kind::identifier) && !cst().is(target, Kind::pattern_list)) break;
    std::string_view op = cst().text(after);
    if (op == "=" || op == ":") bind_broken(whole, target, TSNode{}, b);
    break;
  }
  return true;
}

const ir::Expr* FunctionLowerer::error_expr(TSNode node) { return make<ir::ErrorExpr>(span(node)); }

// Binds the targets of a broken statement to an ErrorExpr, with the annotation when it is
// complete and lowers without errors of its own.
void FunctionLowerer::bind_broken(Span at, TSNode target, TSNode annotation, Builder& b) {
  const ir::StructInfo* ann = nullptr;
  TSNode ann_value =
      ts_node_is_null(annotation) ? annotation : cst().field(annotation, Field::value);
  if (!ts_node_is_null(ann_value) && !ts_node_has_error(ann_value)) {
    size_t errors_before = ctx_.diags.error_count();
    ann = lower_sinfo(ann_value, SInfoMode::Body);
    if (ctx_.diags.error_count() > errors_before) ann = nullptr;
  }
  std::vector<TSNode> names;
  if (cst().is(target, Kind::identifier)) names.push_back(target);
  if (cst().is(target, Kind::pattern_list))
    for (TSNode n : cst().named_children(target))
      if (cst().is(n, Kind::identifier)) names.push_back(n);
  for (TSNode n : names) {
    std::string name = text(n);
    if (name == "_") continue;
    emit(b, name, names.size() == 1 ? ann : nullptr, make<ir::ErrorExpr>(at), nullptr, span(n), at);
  }
}

bool FunctionLowerer::lower_statement(TSNode stmt, Builder& b) {
  if (lower_broken_statement(stmt, b)) return true;
  size_t errors_before = ctx_.diags.error_count();
  size_t names_before = ctx_.source_map ? ctx_.source_map->size() : 0;
  PriorNames prior = prior_names(stmt);
  bool ok = dispatch_statement(stmt, b);
  // A block whose statements were lowered handled each of them; one refused as a whole (a `for`
  // loop, an `if` inside a dataflow block) recorded nothing.
  Kind kind = cst().kind(stmt);
  bool simple =
      kind == Kind::binding || kind == Kind::expression_statement || kind == Kind::return_statement;
  if (ctx_.diags.error_count() > errors_before &&
      (simple || (ctx_.source_map && ctx_.source_map->size() == names_before)))
    record_unlowered_names(stmt, names_before, prior);
  // A statement that failed binds nothing; its names are poisoned so that their later uses do
  // not cascade into "undefined name" errors.
  if (ctx_.diags.error_count() > errors_before) poison_names(stmt);
  return ok;
}

void FunctionLowerer::poison_names(TSNode node) {
  switch (cst().kind(node)) {
    case Kind::binding: {
      TSNode left = cst().field(node, Field::left);
      if (cst().is(left, Kind::identifier)) poisoned_.insert(text(left));
      if (cst().is(left, Kind::pattern_list))
        for (TSNode n : cst().named_children(left)) poisoned_.insert(text(n));
      TSNode right = cst().field(node, Field::right);
      if (cst().is(right, Kind::binding)) poison_names(right);
      return;
    }
    case Kind::relax_function:
    case Kind::prim_function:
    case Kind::function_definition: poisoned_.insert(text(cst().field(node, Field::name))); return;
    case Kind::if_statement:
    case Kind::elif_clause:
    case Kind::else_clause:
    case Kind::dataflow_block:
    case Kind::block:
      for (TSNode child : cst().named_children(node)) poison_names(child);
      return;
    default: return;
  }
}

bool FunctionLowerer::dispatch_statement(TSNode stmt, Builder& b) {
  switch (cst().kind(stmt)) {
    case Kind::binding: lower_binding(stmt, b); return true;
    case Kind::expression_statement: lower_expression_statement(stmt, b); return true;
    case Kind::return_statement: lower_return(stmt, b); return true;
    case Kind::dataflow_block: lower_dataflow(stmt, b); return true;
    case Kind::if_statement: lower_if(stmt, b); return true;
    case Kind::relax_function: lower_nested_function(stmt, b); return true;
    case Kind::pass_statement: return true;
    case Kind::prim_function:
      error(diag::NestedPrimFunc{.function = text(cst().field(stmt, Field::name))},
            span(cst().field(stmt, Field::name)));
      return false;
    case Kind::function_definition:
      error(diag::NestedFunctionMissingDecorator{.function = text(cst().field(stmt, Field::name))},
            span(cst().field(stmt, Field::name)));
      return false;
    case Kind::for_statement:
      error(diag::UnsupportedInRelaxFunction{.construct = "'for' loops"}, span(stmt));
      return false;
    case Kind::while_statement:
      error(diag::UnsupportedInRelaxFunction{.construct = "'while' loops"}, span(stmt));
      return false;
    case Kind::assert_statement:
      error(diag::UnsupportedInRelaxFunction{.construct = "'assert' statements (use R.assert_op)"},
            span(stmt));
      return false;
    case Kind::with_statement: error(diag::UnsupportedWithStatement{}, span(stmt)); return false;
    case Kind::augmented_binding:
      error(diag::UnsupportedInRelaxFunction{.construct = "augmented assignment"}, span(stmt));
      return false;
    case Kind::break_statement:
    case Kind::continue_statement:
      error(diag::UnsupportedInRelaxFunction{.construct = "'" + text(stmt) + "'"}, span(stmt));
      return false;
    default: break;
  }
  if (is_error_node(stmt) || ts_node_has_error(stmt)) return false;  // syntax errors
  error(diag::UnsupportedInRelaxFunction{.construct = "this statement"}, span(stmt));
  return false;
}

ir::Var* FunctionLowerer::emit(Builder& b, std::string name, const ir::StructInfo* annotation,
                               const ir::Expr* value, const ir::StructInfo* match_cast,
                               Span var_span, Span at, ir::Var* existing) {
  if (b.dataflow && b.output_seen) error(diag::BindingAfterOutput{.binding = name}, at);
  ir::Var* var = existing ? existing : make<ir::Var>(b.dataflow, name, annotation, var_span);
  // The target as written (not the statement a synthesised `_` or tuple variable stands for).
  if (ctx_.source_map && var_span.begin >= cst().span_bias() &&
      cst().source().substr(var_span.begin - cst().span_bias(), var_span.end - var_span.begin) ==
          name)
    record_name(var_span, var);
  if (!b.open || b.open->is_dataflow != b.dataflow) {
    b.open = make<ir::BindingBlock>(ir::BindingBlock{b.dataflow, {}, at});
    b.blocks.push_back(b.open);
  }
  auto* binding = make<ir::Binding>(ir::Binding{var, value, match_cast, at});
  b.open->bindings.push_back(binding);
  b.open->span.end = at.end;
  b.last = binding;
  VarFacts facts;
  const ir::StructInfo* known = match_cast ? match_cast : annotation;
  if (auto* t = ir::dyn_cast<ir::TupleSInfo>(known)) facts.tuple_arity = int(t->fields.size());
  if (auto* t = ir::dyn_cast<ir::Tuple>(value)) facts.tuple_arity = int(t->fields.size());
  if (auto* f = ir::dyn_cast<ir::Function>(value)) {
    facts.func_ret = f->ret_struct_info;
    auto* rt = ir::dyn_cast<ir::TupleSInfo>(f->ret_struct_info);
    facts.func_returns_void = rt && rt->fields.empty();
  }
  if (auto* v = ir::dyn_cast<ir::Var>(value)) {
    auto it = facts_.find(v);
    if (it != facts_.end()) facts = it->second;
  }
  if (facts.tuple_arity >= 0 || facts.func_ret) facts_[var] = facts;
  if (name != "_") bind_name(name, Name::of(var));
  return var;
}

void FunctionLowerer::lower_binding(TSNode stmt, Builder& b) {
  TSNode left = cst().field(stmt, Field::left);
  TSNode right = cst().field(stmt, Field::right);
  TSNode ann = cst().field(stmt, Field::annotation);
  if (cst().is(right, Kind::binding)) {
    poison_names(stmt);  // chained assignment: reported by the syntax check (RX1015)
    if (ctx_.source_map) record_unlowered_names(right, ctx_.source_map->size(), {});
    return;
  }
  if (cst().is(left, Kind::pattern_list)) {
    if (!ts_node_is_null(ann)) error(diag::AnnotatedUnpackingAssignment{}, span(ann));
    if (lower_declaration(left, right, b)) return;
    lower_unpack(stmt, left, right, b);
    return;
  }
  if (!cst().is(left, Kind::identifier)) {
    error(diag::InvalidAssignmentTarget{.target = text(left)}, span(left));
    return;
  }
  if (lower_declaration(left, right, b)) return;
  lower_simple_binding(stmt, left, ann, right, b);
}

// `n = T.int64()` / `m, n = T.int64(), T.int64()` (§4.5): declarations, never bindings.
bool FunctionLowerer::lower_declaration(TSNode left, TSNode right, Builder& b) {
  (void)b;
  auto is_ctor = [&](TSNode n, ir::DataType* dt, bool* size_var) {
    if (!cst().is(n, Kind::call)) return false;
    std::optional<ir::DataType> t =
        tir_dtype_attribute(ctx_, cst().field(n, Field::function), &names_);
    if (!t || !t->is_integer() || t->is_bool()) return false;
    bool positional = false;
    *size_var = false;
    for (TSNode arg : cst().named_children(cst().field(n, Field::arguments))) {
      if (cst().is(arg, Kind::keyword_argument) &&
          cst().text(cst().field(arg, Field::name)) == "is_size_var") {
        *size_var = is_type(cst().field(arg, Field::value), "true");
      } else {
        positional = true;
      }
    }
    if (positional) return false;  // T.int64(5) is a typed literal
    *dt = *t;
    return true;
  };
  std::vector<TSNode> targets, ctors;
  if (cst().is(left, Kind::pattern_list)) {
    targets = cst().named_children(left);
    if (!cst().is(right, Kind::expression_list) && !cst().is(right, Kind::tuple)) return false;
    ctors = cst().named_children(right);
  } else {
    targets = {left};
    ctors = {right};
  }
  // In a tuple, an entry with a value (`N, C = T.int64(), T.int64(16)`) binds its name to that
  // value, as `C = T.int64(16)` alone does (a PrimExpr alias, §5.1); a null type marks it.
  std::vector<std::optional<std::pair<ir::DataType, bool>>> types;
  bool any_declaration = false;
  for (TSNode c : ctors) {
    ir::DataType dt;
    bool size_var;
    if (is_ctor(c, &dt, &size_var)) {
      types.push_back(std::pair{dt, size_var});
      any_declaration = true;
    } else if (targets.size() > 1 && cst().is(c, Kind::call) && is_prim_expression(c)) {
      types.push_back(std::nullopt);
    } else {
      return false;
    }
  }
  if (!any_declaration) return false;
  if (targets.size() != ctors.size()) {
    error(diag::SymbolicDeclarationCountMismatch{.name_count = targets.size(),
                                                 .constructor_count = ctors.size()},
          span(right));
    return true;
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    std::string name = text(targets[i]);
    if (!types[i]) {
      bind_prim_alias(targets[i], ctors[i]);
      continue;
    }
    auto [dt, size_var] = *types[i];
    if (const Name* existing = lookup(name)) {
      if (existing->kind == Name::Kind::Sym) {
        record_name(span(targets[i]), existing->sym->var);
        if (existing->sym->var->dtype != dt) {
          error(diag::SymbolicVarDtypeMismatch{.name = name,
                                               .bound_dtype = existing->sym->var->dtype.str(),
                                               .declared_dtype = dt.str()},
                span(ctors[i]));
        }
        continue;  // the same variable (signature prelude or repeated declaration)
      }
      error(diag::SymbolicDeclarationOfBoundName{.name = name}, span(targets[i]));
      continue;
    }
    sym_storage_.push_back(SymVar{make<ir::PrimVar>(name, dt, span(targets[i]), size_var), false});
    record_name(span(targets[i]), sym_storage_.back().var);
    Name entry;
    entry.kind = Name::Kind::Sym;
    entry.sym = &sym_storage_.back();
    bind_name(name, entry);
  }
  return true;
}

// `k = n + 1`: the name stands for the PrimExpr; nothing is emitted (§5.1).
void FunctionLowerer::bind_prim_alias(TSNode target, TSNode value) {
  const ir::PrimExpr* prim = lower_prim(value);
  if (!prim) return;
  Name entry;
  entry.kind = Name::Kind::PrimAlias;
  entry.prim = prim;
  bind_name(text(target), entry);
}

void FunctionLowerer::lower_simple_binding(TSNode stmt, TSNode left, TSNode ann, TSNode right,
                                           Builder& b) {
  std::string name = text(left);
  Span at = span(stmt);
  TSNode ann_value = ts_node_is_null(ann) ? ann : cst().field(ann, Field::value);
  // R.match_cast: the target is lowered first so that it binds its variables (§5.4).
  if (cst().is(right, Kind::call) &&
      relax_path(cst().field(right, Field::function)) == "match_cast") {
    std::vector<TSNode> args = cst().named_children(cst().field(right, Field::arguments));
    if (args.size() != 2 || cst().is(args[0], Kind::keyword_argument) ||
        cst().is(args[1], Kind::keyword_argument)) {
      error(diag::MatchCastNeedsTwoArguments{}, span(right));
      return;
    }
    const ir::Expr* value = lower_expr(args[0]);
    const ir::StructInfo* target = lower_sinfo(args[1], SInfoMode::MatchCast);
    const ir::StructInfo* annotation =
        ts_node_is_null(ann_value) ? nullptr : lower_sinfo(ann_value, SInfoMode::Body);
    if (!value) value = error_expr(args[0]);  // reported where it failed
    if (!target) {
      emit(b, name, annotation, error_expr(right), nullptr, span(left), at);
      return;
    }
    if (annotation && !ir::structural_equal(annotation, target))
      error(diag::MatchCastAnnotationMismatch{.binding = name}, span(ann_value));
    // An annotation equal to the target adds nothing (TVM prints one on every match_cast).
    emit(b, name, nullptr, value, target, span(left), at);
    return;
  }
  if (ts_node_is_null(ann_value)) {
    // Non-emitting assignments (§5.1): module alias, strings, PrimExpr aliases.
    if (is_module_ref(right) && !cst().is(right, Kind::attribute)) {
      Name entry;
      entry.kind = Name::Kind::Module;
      bind_name(name, entry);
      return;
    }
    if (cst().is(right, Kind::string) || cst().is(right, Kind::concatenated_string)) {
      std::optional<std::string> s = string_value(ctx_, right);
      if (!s) return;
      Name entry;
      entry.kind = Name::Kind::String;
      entry.str = *s;
      bind_name(name, entry);
      return;
    }
    if (is_prim_expression(right)) {
      bind_prim_alias(left, right);
      return;
    }
  }
  const ir::Expr* value = nullptr;
  if (cst().is(right, Kind::expression_list)) {
    value = lower_tuple(right, LiteralMode::PrimValue);
  } else if (!ts_node_is_null(ann_value) && is_prim_expression(right)) {
    value = lower_prim_value(right);  // main-2026: `k: T.int64 = n + 1` binds a PrimValue
  } else {
    value = lower_expr(right, LiteralMode::Constant);
  }
  const ir::StructInfo* annotation =
      ts_node_is_null(ann_value) ? nullptr : lower_sinfo(ann_value, SInfoMode::Body);
  // The failure was reported where it happened; the binding stays, with an error as its value,
  // so that its uses are not undefined names.
  if (!value) value = error_expr(right);
  emit(b, name, annotation, value, nullptr, span(left), at);
}

// `p, q = t` (§5.7).
void FunctionLowerer::lower_unpack(TSNode stmt, TSNode left, TSNode right, Builder& b) {
  std::vector<TSNode> targets = cst().named_children(left);
  Span at = span(stmt);
  if (cst().is(right, Kind::expression_list) || cst().is(right, Kind::tuple)) {
    std::vector<TSNode> items = cst().named_children(right);
    if (items.size() != targets.size()) {
      error(diag::TupleUnpackCountMismatch{.target_count = targets.size(),
                                           .field_count = items.size()},
            span(right));
      return;
    }
    std::vector<const ir::Expr*> values;
    for (TSNode item : items) values.push_back(lower_expr(item, LiteralMode::Constant));
    for (size_t i = 0; i < targets.size(); ++i)
      emit(b, text(targets[i]), nullptr, values[i] ? values[i] : error_expr(items[i]), nullptr,
           span(targets[i]), at);
    return;
  }
  const ir::Expr* value = lower_expr(right);
  if (!value) {
    for (TSNode t : targets) emit(b, text(t), nullptr, error_expr(right), nullptr, span(t), at);
    return;
  }
  const ir::Expr* tuple = value;
  if (auto* var = ir::dyn_cast<ir::Var>(value)) {
    auto it = facts_.find(var);
    if (it != facts_.end() && it->second.tuple_arity >= 0 &&
        size_t(it->second.tuple_arity) != targets.size()) {
      error(diag::TupleUnpackCountMismatch{.target_count = targets.size(),
                                           .field_count = it->second.tuple_arity},
            span(right));
      return;
    }
  } else if (auto* t = ir::dyn_cast<ir::Tuple>(value)) {
    if (t->fields.size() != targets.size()) {
      error(diag::TupleUnpackCountMismatch{.target_count = targets.size(),
                                           .field_count = t->fields.size()},
            span(right));
      return;
    }
  } else if (!ir::isa<ir::GlobalVar>(value)) {
    // Bind a non-leaf value once, then take its fields.
    std::string joined;
    for (TSNode t : targets) joined += (joined.empty() ? "" : "_") + text(t);
    tuple = emit(b, joined, nullptr, value, nullptr, span(right), at);
    frames_.back().names.erase(joined);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    auto* item = make<ir::TupleGetItem>(tuple, int64_t(i), span(targets[i]));
    emit(b, text(targets[i]), nullptr, item, nullptr, span(targets[i]), at);
  }
}

void FunctionLowerer::lower_expression_statement(TSNode stmt, Builder& b) {
  TSNode value = cst().field(stmt, Field::value);
  if (cst().is(value, Kind::string) || cst().is(value, Kind::concatenated_string)) {
    error(diag::IgnoredDocstring{}, span(stmt));  // warning: docstrings are ignored
    return;
  }
  if (!cst().is(value, Kind::call)) {
    error(diag::UselessExpressionStatement{.expression = text(value)}, span(stmt));
    return;
  }
  std::string path = relax_path(cst().field(value, Field::function));
  if (path == "func_attr") {
    lower_func_attr(value, b);
    return;
  }
  if (path == "output") {
    lower_output(value, b);
    return;
  }
  const ir::Expr* call = lower_expr(value);
  if (!call) return;
  // Calls whose declared result is not void must be bound (§5.1); the declared signatures of
  // module functions and local functions are known here, operators are checked later.
  if (auto* c = ir::dyn_cast<ir::Call>(call)) {
    if (auto* gv = ir::dyn_cast<ir::GlobalVar>(c->op)) {
      const GlobalInfo* g = module_.find(gv->name);
      if (g && g->kind == GlobalInfo::Kind::Relax && g->has_return_annotation && !g->returns_void)
        error(diag::DiscardedNonVoidResult{.callee = gv->name}, span(stmt));
    } else if (auto* v = ir::dyn_cast<ir::Var>(c->op)) {
      auto it = facts_.find(v);
      if (it != facts_.end() && it->second.func_ret && !it->second.func_returns_void)
        error(diag::DiscardedNonVoidResult{.callee = v->name}, span(stmt));
    }
  }
  emit(b, "_", nullptr, call, nullptr, span(value), span(stmt));
}

void FunctionLowerer::lower_func_attr(TSNode call, Builder& b) {
  (void)b;
  std::vector<TSNode> args = cst().named_children(cst().field(call, Field::arguments));
  if (args.size() != 1 || !cst().is(args[0], Kind::dictionary)) {
    error(diag::FuncAttrNeedsStringKeyDict{}, span(call));
    return;
  }
  for (TSNode pair : cst().named_children(args[0])) {
    if (!cst().is(pair, Kind::pair)) continue;
    TSNode key = cst().field(pair, Field::key);
    std::optional<std::string> k;
    if (cst().is(key, Kind::string)) k = string_value(ctx_, key);
    if (!k) {
      error(diag::FuncAttrNeedsStringKeyDict{}, span(key));
      continue;
    }
    std::optional<ir::AttrValue> v = lower_literal_attr(ctx_, cst().field(pair, Field::value));
    if (!v) continue;
    if (func_attrs_->find(*k)) {
      error(diag::DuplicateAttribute{.attribute = *k}, span(key));
      continue;
    }
    v->span = span(pair);
    func_attrs_->entries.emplace_back(*k, std::move(*v));
  }
}

void FunctionLowerer::lower_output(TSNode call, Builder& b) {
  if (!b.dataflow) {
    error(diag::OutputOutsideDataflow{}, span(call));
    return;
  }
  if (b.output_seen) {
    error(diag::DuplicateOutputCall{}, span(call));
    return;
  }
  b.output_seen = true;
  b.output_span = span(call);
  if (b.open) b.open->output = b.output_span;
  Frame& frame = frames_.back();
  for (TSNode arg : cst().named_children(cst().field(call, Field::arguments))) {
    if (!cst().is(arg, Kind::identifier)) {
      error(diag::OutputOfUnboundName{.output = text(arg)}, span(arg));
      continue;
    }
    std::string name = text(arg);
    auto it = frame.names.find(name);
    if (it == frame.names.end() || it->second.kind != Name::Kind::Var) {
      if (it == frame.names.end() && poisoned_.count(name)) continue;  // already reported
      error(diag::OutputOfUnboundName{.output = name}, span(arg));
      continue;
    }
    it->second.var->kind = ir::ExprKind::Var;  // outputs are ordinary Vars (§10 item 3)
    record_name(arg, it->second.var);
  }
}

void FunctionLowerer::implicit_outputs(TSNode expr) {
  if (ts_node_is_null(expr)) return;
  if (cst().is(expr, Kind::identifier)) {
    Frame& frame = frames_.back();
    auto it = frame.names.find(text(expr));
    if (it != frame.names.end() && it->second.kind == Name::Kind::Var)
      it->second.var->kind = ir::ExprKind::Var;
    return;
  }
  for (TSNode child : cst().named_children(expr)) implicit_outputs(child);
}

void FunctionLowerer::lower_dataflow(TSNode stmt, Builder& b) {
  if (b.dataflow) {
    error(diag::NestedDataflowBlock{}, span(stmt));
    return;
  }
  TSNode ns = field_by_name(stmt, "namespace");
  if (!ts_node_is_null(ns)) {
    const Namespace* found = ctx_.namespaces.find(cst().text(ns));
    if (!found || *found != Namespace::Relax || lookup(cst().text(ns))) {
      error(diag::UnsupportedWithStatement{}, span(stmt));
      return;
    }
  }
  frames_.push_back(Frame{Frame::Kind::Dataflow, {}});
  ++dataflow_depth_;
  b.dataflow = true;
  b.output_seen = false;
  bool reported_unreachable = false;
  for (TSNode s : cst().named_children(cst().field(stmt, Field::body))) {
    if (b.returned && ctx_.source_map) record_unlowered_names(s, ctx_.source_map->size(), {});
    if (b.returned) {
      if (cst().is(s, Kind::return_statement)) {
        error(diag::SecondReturnStatement{}, span(s));
        continue;
      }
      if (!reported_unreachable) error(diag::StatementAfterReturn{}, span(s));
      reported_unreachable = true;
      continue;
    }
    lower_statement(s, b);
  }
  // The block is the `with` statement: it starts there, not at its first binding (a comment
  // between the two belongs to the binding).
  if (b.open && b.open->is_dataflow) b.open->span.begin = span(stmt).begin;
  b.dataflow = false;
  b.open = nullptr;
  --dataflow_depth_;
  // Only outputs survive the block (§5.3).
  Frame frame = std::move(frames_.back());
  frames_.pop_back();
  for (auto& [name, entry] : frame.names) {
    if (entry.kind == Name::Kind::Var && !entry.var->is_dataflow()) {
      bind_name(name, entry);
      left_dataflow_.erase(name);
    } else if (entry.kind == Name::Kind::Var) {
      left_dataflow_[name] = b.output_seen ? b.output_span : Span{};
    }
  }
  // What the names that left with the block denoted (source map).
  for (auto& [name, entry] : frame.names) {
    if (entry.kind != Name::Kind::Var) continue;
    if (entry.var->is_dataflow())
      left_dataflow_vars_[name] = entry.var;
    else
      left_dataflow_vars_.erase(name);
  }
}

namespace {
bool is_leaf(const ir::Expr* e) {
  switch (e->kind) {
    case ir::ExprKind::Var:
    case ir::ExprKind::DataflowVar:
    case ir::ExprKind::GlobalVar:
    case ir::ExprKind::Constant:
    case ir::ExprKind::PrimValue:
    case ir::ExprKind::StringImm:
    case ir::ExprKind::DataTypeImm:
    case ir::ExprKind::ShapeExpr:
    case ir::ExprKind::ExternFunc:
    case ir::ExprKind::Op:
    case ir::ExprKind::Tuple: return true;
    default: return false;
  }
}
}  // namespace

FunctionLowerer::Branch FunctionLowerer::lower_branch(TSNode block, const char* suffix) {
  Branch result;
  frames_.push_back(Frame{Frame::Kind::Branch, {}});
  Builder nb;
  nb.in_branch = true;
  Builder* saved = current_;
  current_ = &nb;
  size_t errors_before = ctx_.diags.error_count();
  for (TSNode s : cst().named_children(block)) lower_statement(s, nb);
  current_ = saved;
  frames_.pop_back();
  result.span = span(block);
  if (!nb.last) {
    if (ctx_.diags.error_count() == errors_before)
      error(diag::IfBranchMissingResultBinding{}, span(block));
    return result;
  }
  const ir::Binding* last = nb.last;
  result.last_var = last->var;
  result.name = last->var->name;
  result.annotation = last->var->annotation;
  result.last_span = last->span;
  if (last->var->is_dataflow())
    error(diag::IfResultIsDataflowVar{.result = result.name}, last->span);
  // Find and rewrite the last binding (§5.5).
  ir::BindingBlock* blk = nullptr;
  for (auto it = nb.blocks.rbegin(); it != nb.blocks.rend() && !blk; ++it)
    if (!(*it)->bindings.empty() && (*it)->bindings.back() == last) blk = *it;
  const ir::Expr* body = nullptr;
  if (blk) {
    if (!last->is_match_cast() && is_leaf(last->value)) {
      blk->bindings.pop_back();
      body = last->value;
    } else {
      auto* renamed =
          make<ir::Var>(false, result.name + suffix, last->var->annotation, last->var->span);
      blk->bindings.back() =
          make<ir::Binding>(ir::Binding{renamed, last->value, last->match_cast, last->span});
      body = renamed;
    }
  }
  if (!body) body = make<ir::Tuple>(std::vector<const ir::Expr*>{}, span(block));
  result.seq = finish_seq(nb, body, span(block));
  result.ok = true;
  return result;
}

const ir::Expr* FunctionLowerer::lower_condition(TSNode cond) {
  if (is_prim_expression(cond)) return lower_prim_value(cond);
  return lower_expr(cond);
}

// if / elif / else as one binding (§5.5, §10 item 4). `clauses` are the elif/else clauses
// following the condition at index `first`.
std::optional<FunctionLowerer::IfResult> FunctionLowerer::lower_if_chain(
    TSNode cond, TSNode consequence, const std::vector<TSNode>& clauses, size_t next, Span at) {
  const ir::Expr* c = lower_condition(cond);
  Branch then_b = lower_branch(consequence, "_then");
  Branch else_b;
  if (next >= clauses.size()) {
    error(diag::IfWithoutElse{}, at);
    return std::nullopt;
  }
  TSNode clause = clauses[next];
  if (cst().is(clause, Kind::else_clause)) {
    else_b = lower_branch(cst().field(clause, Field::body), "_else");
  } else {
    // elif: the else branch holds the nested if, bound to the same result name.
    Span inner_at = {span(clause).begin, at.end};
    auto inner =
        lower_if_chain(cst().field(clause, Field::condition),
                       cst().field(clause, Field::consequence), clauses, next + 1, inner_at);
    if (!inner) return std::nullopt;
    Builder nb;
    auto* var = make<ir::Var>(false, inner->name + "_else", inner->annotation, span(clause));
    nb.open = make<ir::BindingBlock>(ir::BindingBlock{false, {}, span(clause)});
    nb.blocks.push_back(nb.open);
    nb.open->bindings.push_back(
        make<ir::Binding>(ir::Binding{var, inner->expr, nullptr, inner_at}));
    else_b.ok = true;
    else_b.name = inner->name;
    else_b.annotation = inner->annotation;
    else_b.last_span = inner_at;
    else_b.seq = finish_seq(nb, var, span(clause));
    else_b.last_var = var;
    if (ctx_.source_map)
      for (const ir::Var* v : inner->replaced) ctx_.source_map->redirect(v, var);
  }
  if (!c || !then_b.ok || !else_b.ok) return std::nullopt;
  if (then_b.name != else_b.name) {
    error(diag::IfBranchResultMismatch{.then_result = then_b.name, .else_result = else_b.name},
          else_b.last_span);
    return std::nullopt;
  }
  IfResult r;
  r.replaced = {then_b.last_var, else_b.last_var};
  r.name = then_b.name;
  r.annotation = then_b.annotation ? then_b.annotation : else_b.annotation;
  r.expr = make<ir::If>(c, then_b.seq, else_b.seq, at);
  return r;
}

void FunctionLowerer::lower_if(TSNode stmt, Builder& b) {
  if (b.dataflow) {
    error(diag::IfStatementInDataflow{}, span(stmt));
    return;
  }
  std::vector<TSNode> clauses = cst().fields(stmt, Field::alternative);
  auto r = lower_if_chain(cst().field(stmt, Field::condition),
                          cst().field(stmt, Field::consequence), clauses, 0, span(stmt));
  if (!r) return;
  emit(b, r->name, r->annotation, r->expr, nullptr, span(stmt), span(stmt));
  // The branches' targets name the if's result from now on.
  if (ctx_.source_map)
    for (const ir::Var* v : r->replaced) ctx_.source_map->redirect(v, b.last->var);
}

void FunctionLowerer::lower_return(TSNode stmt, Builder& b) {
  if (b.in_branch) {
    error(diag::ReturnInsideIfBranch{}, span(stmt));
    return;
  }
  TSNode value = cst().field(stmt, Field::value);
  if (ts_node_is_null(value)) {
    error(diag::ReturnWithoutValue{}, span(stmt));
    b.returned = true;
    return;
  }
  if (b.dataflow) implicit_outputs(value);
  const ir::Expr* e = cst().is(value, Kind::expression_list)
                          ? lower_tuple(value, LiteralMode::PrimValue)
                          : lower_expr(value, LiteralMode::Constant);
  b.returned = true;
  b.return_span = span(stmt);
  b.body = e ? e : error_expr(value);  // reported where it failed; nothing to check it against
}

void FunctionLowerer::lower_nested_function(TSNode stmt, Builder& b) {
  const ir::Function* fn = lower_function(stmt, true, nullptr);
  ir::Var* self = pending_self_;
  pending_self_ = nullptr;
  std::string name = text(cst().field(stmt, Field::name));
  emit(b, name, nullptr, fn, nullptr, span(cst().field(stmt, Field::name)), span(stmt), self);
}

const ir::Function* lower_relax_function(LowerContext& ctx, const ModuleScope& module,
                                         TSNode node) {
  FunctionLowerer lowerer(ctx, module);
  return lowerer.lower_function(node, false, nullptr);
}

const ir::StructInfo* lower_module_sinfo(LowerContext& ctx, const ModuleScope& module,
                                         TSNode node) {
  FunctionLowerer lowerer(ctx, module);
  return lowerer.lower_sinfo_outside(node);
}

}  // namespace raxc::lower
