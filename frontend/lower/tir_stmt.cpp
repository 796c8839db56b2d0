// TIR lowering: statements (text-format.md §6): suites and the scope of lets, bindings,
// expression statements (T.evaluate, block statements), `with` blocks and the implicit root
// block.
#include "frontend/lower/tir_lowerer.h"

namespace raxc::lower::tir_lowering {

namespace {

// Constructs TVM's TIR namespace has that raxc does not lower (§6.9, brief): reported clearly.
constexpr const char* kUnsupported[] = {"launch_thread",  "env_thread",  "allocate",
                                        "allocate_const", "decl_buffer", "realize",
                                        "prefetch",       "hint",        "let",
                                        "Assert",         "LetStmt",     "tvm_thread_allreduce",
                                        "block_realize",  "frame_scope", "buffer_store"};

bool unsupported_construct(std::string_view name) {
  for (const char* u : kUnsupported)
    if (name == u) return true;
  return false;
}

}  // namespace

const ir::Stmt* TirLowerer::suite(TSNode block, Where where) {
  std::vector<const ir::Stmt*> out;
  names_.push();
  if (!ts_node_is_null(block)) stmts(cst_.named_children(block), 0, where, out);
  names_.pop();
  return seq(std::move(out), span(block));
}

void TirLowerer::stmts(const std::vector<TSNode>& nodes, size_t begin, Where where,
                       std::vector<const ir::Stmt*>& out) {
  std::vector<OpenLet> lets;
  std::vector<const ir::Stmt*> current;
  bool returned = false;
  for (size_t i = begin; i < nodes.size(); ++i) {
    TSNode node = nodes[i];
    if (returned) {
      error(diag::TirStatementAfterReturn{}, node);
      break;
    }
    if (cst_.is(node, Kind::return_statement)) returned = true;
    if (stmt(nodes, i, where, current)) {
      opened_->before = std::move(current);
      current.clear();
      lets.push_back(std::move(*opened_));
      opened_.reset();
    }
  }
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    names_.pop();
    std::vector<const ir::Stmt*> body = std::move(current);
    current = std::move(it->before);
    if (it->value) {
      current.push_back(
          ctx_.make<ir::LetStmt>(it->var, it->value, seq(std::move(body), it->span), it->span));
    } else {
      current.insert(current.end(), body.begin(), body.end());
    }
  }
  out.insert(out.end(), current.begin(), current.end());
}

bool TirLowerer::stmt(const std::vector<TSNode>& nodes, size_t i, Where where,
                      std::vector<const ir::Stmt*>& out) {
  TSNode node = nodes[i];
  switch (cst_.kind(node)) {
    case Kind::binding: return binding(nodes, i, where, out);
    case Kind::augmented_binding: augmented(node, out); return false;
    case Kind::expression_statement: expression_statement(node, where, i, out); return false;
    case Kind::for_statement: for_stmt(node, out); return false;
    case Kind::while_statement: while_stmt(node, out); return false;
    case Kind::if_statement: if_stmt(node, out); return false;
    case Kind::with_statement: with_stmt(node, where, out); return false;
    case Kind::assert_statement: assert_stmt(node, out); return false;
    case Kind::return_statement: return_stmt(node, out); return false;
    case Kind::pass_statement: return false;
    case Kind::break_statement:
    case Kind::continue_statement: {
      bool is_break = cst_.is(node, Kind::break_statement);
      if (loop_depth_ == 0) {
        error(diag::LoopControlOutsideLoop{.keyword = is_break ? "break" : "continue"}, node);
      } else if (is_break) {
        out.push_back(ctx_.make<ir::BreakStmt>(span(node)));
      } else {
        out.push_back(ctx_.make<ir::ContinueStmt>(span(node)));
      }
      return false;
    }
    case Kind::dataflow_block:
      error(diag::UnsupportedInTirFunction{.construct = "a dataflow block"}, node);
      return false;
    case Kind::relax_function:
    case Kind::prim_function:
    case Kind::function_definition:
      error(diag::UnsupportedInTirFunction{.construct = "a nested function"}, node);
      return false;
    default:
      error(diag::UnsupportedInTirFunction{.construct = "this statement"}, node);
      return false;
  }
}

bool TirLowerer::binding(const std::vector<TSNode>& nodes, size_t i, Where where,
                         std::vector<const ir::Stmt*>& out) {
  TSNode node = nodes[i];
  TSNode left = cst_.field(node, Field::left);
  TSNode right = cst_.field(node, Field::right);
  TSNode ann = cst_.field(node, Field::annotation);
  if (ts_node_is_null(right) || cst_.is(right, Kind::binding)) {
    error(diag::UnsupportedInTirFunction{.construct = "a chained or incomplete assignment"}, node);
    return false;
  }
  if (cst_.is(left, Kind::subscript)) {
    store(left, right, node, out);
    return false;
  }
  if (cst_.is(left, Kind::pattern_list)) {
    unpack(left, right, node, where);
    return false;
  }
  if (!cst_.is(left, Kind::identifier)) {
    error(diag::UnsupportedInTirFunction{.construct = "assignment to '" + text(left) + "'"}, left);
    return false;
  }
  std::string rhs_path = cst_.is(right, Kind::call) ? path(right) : "";
  if (!rhs_path.empty() && ts_node_is_null(ann)) {
    if (is_declaration(right)) {
      declaration(left, right);
      return false;
    }
    if (rhs_path == "Var") {
      // `n = T.Var("n", "int64")` declares n, as `n = T.int64()` does.
      const ir::PrimExpr* v = expr(right);
      if (const auto* var = v ? ir::dyn_cast<ir::PrimVar>(v) : nullptr) {
        std::string n = text(left);
        if (names_.find_var(n) || names_.find_buffer(n) || names_.find_expr(n))
          error(diag::DeclarationRedefinesName{.name = n}, left);
        else
          names_.define(n, TirNames::Entry{var, nullptr, nullptr, false});
      }
      return false;
    }
    if (rhs_path == "match_buffer") {
      match_buffer(left, right, where);
      return false;
    }
    if (rhs_path == "alloc_buffer" || rhs_path == "sblock_alloc_buffer") {
      alloc_buffer(left, right, where, rhs_path, out);
      return false;
    }
    if (rhs_path.rfind("axis.", 0) == 0) {
      axis(std::vector<TSNode>{left}, right, rhs_path, where);
      return false;
    }
    if (rhs_path == "Buffer" || unsupported_construct(rhs_path)) {
      error(diag::UnsupportedByRaxc{.construct = "T." + rhs_path}, right);
      return false;
    }
  }
  return let_or_assign(nodes, i, left, right, ann, out);
}

bool TirLowerer::is_declaration(TSNode call) {
  std::string p = path(call);
  auto dt = DataType::parse(p);
  if (!dt || p == "void" || p == "handle") return false;
  return args_of(call).positional.empty();
}

void TirLowerer::declaration(TSNode name, TSNode call) {
  DataType dt = *DataType::parse(path(call));
  Args args = args_of(call);
  bool size_var = false;
  for (auto& [key, v] : args.keywords) {
    auto b = bool_value(v);
    if (key == "is_size_var" && b) {
      size_var = *b;
    } else {
      error(diag::InvalidTirConstruct{.construct = "T." + dt.str() + "()",
                                      .problem = "unknown argument '" + key + "'"},
            v);
    }
  }
  std::string n = text(name);
  if (names_.find_var(n) || names_.find_buffer(n) || names_.find_expr(n)) {
    error(diag::DeclarationRedefinesName{.name = n}, name);
    return;
  }
  const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, dt, span(name), size_var);
  names_.define(n, TirNames::Entry{var, nullptr, nullptr, false});
}

void TirLowerer::unpack(TSNode left, TSNode right, TSNode node, Where where) {
  std::vector<TSNode> targets = cst_.named_children(left);
  for (TSNode t : targets) {
    if (!cst_.is(t, Kind::identifier)) {
      error(diag::UnsupportedInTirFunction{.construct = "assignment to '" + text(t) + "'"}, t);
      return;
    }
  }
  if (cst_.is(right, Kind::call) && path(right).rfind("axis.", 0) == 0) {
    axis(targets, right, path(right), where);
    return;
  }
  std::vector<TSNode> values = cst_.is(right, Kind::expression_list) || cst_.is(right, Kind::tuple)
                                   ? cst_.named_children(right)
                                   : std::vector<TSNode>{right};
  // `N, C = T.int64(), T.int64(16)`: declarations, some given a value. TVM evaluates the tuple
  // and binds each name to what it holds: a fresh variable, or the value (a constant alias).
  bool all_decls = values.size() == targets.size();
  bool any_decl = false;
  for (TSNode v : values) {
    bool is_decl = cst_.is(v, Kind::call) && is_declaration(v);
    bool is_typed_value = cst_.is(v, Kind::call) && !is_decl && DataType::parse(path(v)) &&
                          path(v) != "handle" && path(v) != "void";
    any_decl = any_decl || is_decl;
    all_decls = all_decls && (is_decl || is_typed_value);
  }
  all_decls = all_decls && any_decl;
  if (!all_decls) {
    if (values.size() != targets.size() && values.size() > 1) {
      error(
          diag::TirUnpackCountMismatch{.value_count = values.size(), .name_count = targets.size()},
          node);
    } else {
      error(
          diag::UnsupportedInTirFunction{
              .construct =
                  "tuple assignment other than 'm, n = T.int64(), T.int64()' or T.axis.remap"},
          node);
    }
    return;
  }
  for (size_t k = 0; k < targets.size(); ++k) {
    if (is_declaration(values[k])) {
      declaration(targets[k], values[k]);
      continue;
    }
    std::string n = text(targets[k]);
    if (names_.find_var(n) || names_.find_buffer(n) || names_.find_expr(n)) {
      error(diag::DeclarationRedefinesName{.name = n}, targets[k]);
      continue;
    }
    if (const ir::PrimExpr* value = expr(values[k]))
      names_.define(n, TirNames::Entry{nullptr, nullptr, value, false});
  }
}

bool TirLowerer::assigned_later(const std::vector<TSNode>& nodes, size_t from,
                                std::string_view name) {
  if (from >= nodes.size()) return false;
  auto& last = last_assignment_[nodes.front().id];
  if (last.empty()) {
    last.emplace("", 0);  // marks the table as built
    for (size_t k = 0; k < nodes.size(); ++k) collect_assigned(nodes[k], k, last);
  }
  auto it = last.find(name);
  return it != last.end() && it->second >= from;
}

void TirLowerer::collect_assigned(TSNode node, size_t index,
                                  std::map<std::string, size_t, std::less<>>& last) {
  if (cst_.is(node, Kind::binding) || cst_.is(node, Kind::augmented_binding)) {
    TSNode left = cst_.field(node, Field::left);
    if (cst_.is(left, Kind::identifier)) last[text(left)] = index;
    return;
  }
  // Statements with suites: look inside (not into expressions).
  for (TSNode child : cst_.named_children(node)) {
    Kind k = cst_.kind(child);
    if (k == Kind::block || k == Kind::elif_clause || k == Kind::else_clause ||
        k == Kind::binding || k == Kind::augmented_binding || k == Kind::for_statement ||
        k == Kind::while_statement || k == Kind::if_statement || k == Kind::with_statement)
      collect_assigned(child, index, last);
  }
}

bool TirLowerer::let_or_assign(const std::vector<TSNode>& nodes, size_t i, TSNode left,
                               TSNode right, TSNode ann, std::vector<const ir::Stmt*>& out) {
  TSNode node = nodes[i];
  std::string n = text(left);
  std::optional<DataType> dt;
  if (!ts_node_is_null(ann)) {
    dt = let_annotation(cst_.field(ann, Field::value));
    if (!dt) return false;
    if (dt->is_void()) dt.reset();  // `x: T.let = e`: the value's dtype
  } else if (const ir::PrimExpr* current = names_.find_expr(n)) {
    // A mutable local scalar assigned again (v0.25).
    if (const auto* load = ir::dyn_cast<ir::BufferLoad>(current)) {
      const ir::PrimExpr* value = expr(right, load->buffer->dtype);
      if (value)
        out.push_back(ctx_.make<ir::BufferStore>(load->buffer,
                                                 cast(load->buffer->dtype, value, span(right)),
                                                 std::vector<const ir::PrimExpr*>{}, span(node)));
      return false;
    }
  }
  if (names_.find_buffer(n) && !names_.find_var(n)) {
    error(diag::TirNameRedefined{.name = n}, left);
    return false;
  }
  const ir::PrimExpr* value = expr(right, dt);
  if (value && dt) value = cast(*dt, value, span(right));
  DataType var_dtype = value ? value->dtype : (dt ? *dt : DataType::Int(32));
  if (ts_node_is_null(ann) && value && assigned_later(nodes, i + 1, n)) {
    // `x = e` assigned again later: a mutable local scalar, a 0-d "local" buffer (§6.1).
    auto* buffer = ctx_.make<ir::Buffer>();
    buffer->name = n;
    buffer->dtype = var_dtype;
    buffer->scope = "local";
    buffer->span = span(left);
    out.push_back(ctx_.make<ir::AllocBufferStmt>(buffer, span(node)));
    out.push_back(
        ctx_.make<ir::BufferStore>(buffer, value, std::vector<const ir::PrimExpr*>{}, span(node)));
    const ir::PrimExpr* load = ctx_.make<ir::BufferLoad>(
        var_dtype, buffer, std::vector<const ir::PrimExpr*>{}, span(left));
    names_.define(n, TirNames::Entry{nullptr, nullptr, load, false});
    return false;
  }
  // A let scoped over the rest of the suite. On error the name is still defined so that its
  // uses do not cascade into "undefined" errors.
  const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, var_dtype, span(left));
  names_.push();  // popped by stmts() when the suite ends
  names_.define(n, TirNames::Entry{var, nullptr, nullptr, false});
  opened_ = OpenLet{var, value, span(node), {}};
  return true;
}

std::optional<DataType> TirLowerer::let_annotation(TSNode ann) {
  if (auto dt = tir_dtype_attribute(ctx_, ann, &names_)) return dt;
  if (cst_.is(ann, Kind::attribute) && path(ann) == "let") return DataType::Void();
  if (cst_.is(ann, Kind::subscript) && path(cst_.field(ann, Field::value)) == "let") {
    std::vector<TSNode> items = cst_.fields(ann, Field::subscript);
    if (items.size() == 1)
      if (auto dt = tir_dtype_attribute(ctx_, items[0], &names_)) return dt;
  }
  error(diag::InvalidTirConstruct{.construct = "a let annotation",
                                  .problem = "expected T.<dtype> or T.let[T.<dtype>]"},
        ann);
  return std::nullopt;
}

void TirLowerer::expression_statement(TSNode node, Where where, size_t index,
                                      std::vector<const ir::Stmt*>& out) {
  TSNode value = cst_.field(node, Field::value);
  if (cst_.is(value, Kind::string) || cst_.is(value, Kind::concatenated_string)) {
    if (where == Where::FunctionTop && index == 0) return;  // docstring
    error(diag::UnsupportedInTirFunction{.construct = "a string statement"}, node);
    return;
  }
  if (!cst_.is(value, Kind::call) || path(value).empty()) {
    error(diag::UnsupportedInTirFunction{.construct =
                                             "the expression statement '" + text(value) + "'"},
          node);
    return;
  }
  std::string p = path(value);
  Args args = args_of(value);
  if (p == "func_attr") {
    if (where != Where::FunctionTop) {
      error(diag::TirConstructMisplaced{.construct = "T.func_attr",
                                        .allowed_place = "at the top of the function"},
            value);
    } else if (args.positional.size() != 1 || !args.keywords.empty()) {
      error(diag::InvalidTirConstruct{.construct = "T.func_attr",
                                      .problem = "expected one dictionary"},
            value);
    } else {
      attr_dict(args.positional[0], func_->attrs, "T.func_attr");
    }
    return;
  }
  if (p == "evaluate") {
    if (args.positional.size() != 1 || !args.keywords.empty()) {
      error(diag::InvalidTirConstruct{.construct = "T.evaluate",
                                      .problem = "expected one expression"},
            value);
      return;
    }
    if (const ir::PrimExpr* e = expr(args.positional[0]))
      out.push_back(ctx_.make<ir::Evaluate>(e, span(node)));
    return;
  }
  if (p == "reads" || p == "writes" || p == "where" || p == "block_attr" || p == "sblock_attr") {
    block_statement(value, p, args, where);
    return;
  }
  if (unsupported_construct(p) || p == "Buffer") {
    error(diag::UnsupportedByRaxc{.construct = "T." + p}, value);
    return;
  }
  if (is_declaration(value)) {
    error(diag::UnboundVarDeclaration{.constructor = p}, value);
    return;
  }
  if (const ir::PrimExpr* e = expr(value)) out.push_back(ctx_.make<ir::Evaluate>(e, span(node)));
}

void TirLowerer::block_statement(TSNode call, const std::string& p, const Args& args, Where where) {
  if (where != Where::BlockBody || !block_) {
    error(
        diag::TirConstructMisplaced{.construct = "T." + p, .allowed_place = "directly in a block"},
        call);
    return;
  }
  ir::Block* b = block_->block;
  if (p == "where") {
    if (block_->has_where)
      error(diag::DuplicateBlockStatement{.statement = "T.where", .block = b->name}, call);
    if (args.positional.size() != 1 || !args.keywords.empty()) {
      error(diag::InvalidTirConstruct{.construct = "T.where", .problem = "expected one condition"},
            call);
      return;
    }
    block_->has_where = true;
    const ir::PrimExpr* c = expr(args.positional[0]);
    if (c && !c->dtype.is_bool()) {
      error(
          diag::InvalidTirConstruct{.construct = "T.where",
                                    .problem = "the condition must be bool, not " + c->dtype.str()},
          call);
      return;
    }
    b->predicate = c;
    return;
  }
  if (p == "block_attr" || p == "sblock_attr") {
    if (args.positional.size() != 1 || !args.keywords.empty()) {
      error(diag::InvalidTirConstruct{.construct = "T." + p, .problem = "expected one dictionary"},
            call);
      return;
    }
    attr_dict(args.positional[0], b->annotations,
              p == "block_attr" ? "T.block_attr" : "T.sblock_attr");
    return;
  }
  auto& slot = p == "reads" ? b->reads : b->writes;
  if (slot) error(diag::DuplicateBlockStatement{.statement = "T." + p, .block = b->name}, call);
  std::vector<ir::BufferRegion> regions;
  std::vector<TSNode> items;
  for (TSNode a : args.positional) {
    if (cst_.is(a, Kind::list) || cst_.is(a, Kind::tuple)) {
      for (TSNode x : cst_.named_children(a)) items.push_back(x);
    } else {
      items.push_back(a);
    }
  }
  for (auto& [k, v] : args.keywords)
    error(
        diag::InvalidTirConstruct{.construct = "T." + p, .problem = "unknown argument '" + k + "'"},
        v);
  for (TSNode item : items)
    if (auto r = region(item)) regions.push_back(std::move(*r));
  slot = std::move(regions);
}

void TirLowerer::with_stmt(TSNode node, Where where, std::vector<const ir::Stmt*>& out) {
  std::vector<TSNode> items = cst_.fields(node, Field::item);
  if (items.size() != 1) {
    error(diag::UnsupportedInTirFunction{.construct = "a 'with' statement with several items"},
          node);
    return;
  }
  TSNode value = cst_.field(items[0], Field::value);
  if (!ts_node_is_null(cst_.field(items[0], Field::alias))) {
    error(diag::UnsupportedInTirFunction{.construct = "'with ... as ...'"}, items[0]);
    return;
  }
  std::string p = cst_.is(value, Kind::call) ? path(value) : "";
  if (p == "block" || p == "sblock") {
    if (const ir::Stmt* b = block(node, value, where)) out.push_back(b);
    return;
  }
  if (p == "init") {
    if (where != Where::BlockBody || !block_) {
      error(diag::TirConstructMisplaced{.construct = "T.init()",
                                        .allowed_place = "directly in a block"},
            value);
      return;
    }
    if (block_->block->init)
      error(diag::DuplicateBlockStatement{.statement = "T.init()", .block = block_->block->name},
            value);
    BlockState* saved = block_;
    block_ = nullptr;
    const ir::Stmt* init = suite(cst_.field(node, Field::body), Where::Nested);
    block_ = saved;
    block_->block->init = init;
    return;
  }
  if (p == "attr") {
    // `with T.attr(node, "key", value):` is the attribute statement followed by its body, the
    // concise form TVM prints for an attribute that covers the rest of a suite.
    if (const ir::PrimExpr* e = expr(value)) out.push_back(ctx_.make<ir::Evaluate>(e, span(value)));
    out.push_back(suite(cst_.field(node, Field::body), where));
    return;
  }
  if (!p.empty() && unsupported_construct(p)) {
    error(diag::UnsupportedByRaxc{.construct = "T." + p}, value);
    return;
  }
  error(diag::UnsupportedInTirFunction{.construct = "'with " + text(value) + "'"}, value);
}

const ir::Stmt* TirLowerer::block(TSNode node, TSNode call, Where where) {
  Args args = args_of(call);
  std::string name;
  if (args.positional.size() > 1) {
    error(diag::InvalidTirConstruct{.construct = "T.block", .problem = "expected at most a name"},
          call);
    return nullptr;
  }
  if (!args.positional.empty()) {
    auto s = string_value(args.positional[0]);
    if (!s) {
      error(
          diag::InvalidTirConstruct{.construct = "T.block", .problem = "the name must be a string"},
          args.positional[0]);
      return nullptr;
    }
    name = *s;
  }
  for (auto& [k, v] : args.keywords) {
    if (k != "no_realize")
      error(diag::InvalidTirConstruct{.construct = "T.block",
                                      .problem = "unknown argument '" + k + "'"},
            v);
  }
  auto* b = ctx_.make<ir::Block>(name, span(node));
  BlockState state{b};
  BlockState* saved = block_;
  block_ = &state;
  names_.push();
  std::vector<const ir::Stmt*> body;
  TSNode suite_node = cst_.field(node, Field::body);
  if (!ts_node_is_null(suite_node))
    stmts(cst_.named_children(suite_node), 0, Where::BlockBody, body);
  names_.pop();
  block_ = saved;
  b->body = seq(std::move(body), span(suite_node));
  saw_block_ = true;
  if (where == Where::FunctionTop && name == "root" && b->iter_vars.empty()) explicit_root_ = b;
  return b;
}

const ir::Stmt* TirLowerer::root(std::vector<const ir::Stmt*>& body) {
  if (body.size() == 1 && explicit_root_ && body[0] == explicit_root_) {
    explicit_root_->is_root = true;
    for (const ir::Buffer* b : root_allocs_) explicit_root_->alloc_buffers.push_back(b);
    return explicit_root_;
  }
  Span sp = func_->span;
  if (!saw_block_ && root_allocs_.empty()) return seq(std::move(body), sp);
  auto* r = ctx_.make<ir::Block>("root", sp);
  r->is_root = true;
  r->alloc_buffers = root_allocs_;
  r->body = seq(std::move(body), sp);
  return r;
}

}  // namespace raxc::lower::tir_lowering
