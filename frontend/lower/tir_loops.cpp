// TIR lowering: loops (`for` over T.serial/T.parallel/… and `range`, while, if, assert,
// return) and block axes (T.axis.spatial/reduce/remap, text-format.md §6.3).
#include "frontend/lower/tir_lowerer.h"

namespace raxc::lower::tir_lowering {

bool TirLowerer::bounds(TSNode a, TSNode b, LoopSpec& spec, Span sp) {
  if (ts_node_is_null(b)) {
    spec.extent = expr(a);
    if (!spec.extent) return false;
    spec.min = int_imm(spec.extent->dtype, 0, sp);
    return integral(spec.extent, a);
  }
  const ir::PrimExpr* lo = expr(a);
  const ir::PrimExpr* hi = expr(b);
  if (!lo || !hi) return false;
  if (is_bare_int(a)) lo = cast(hi->dtype, lo, sp);
  if (is_bare_int(b)) hi = cast(lo->dtype, hi, sp);
  if (!integral(lo, a) || !integral(hi, b)) return false;
  DataType wide = hi->dtype.bits >= lo->dtype.bits ? hi->dtype : lo->dtype;
  spec.min = cast(wide, lo, sp);
  spec.extent = difference(cast(wide, hi, sp), spec.min, sp);
  return true;
}

bool TirLowerer::integral(const ir::PrimExpr* e, TSNode node) {
  if (e->dtype.is_integer() && !e->dtype.is_bool()) return true;
  error(diag::InvalidTirConstruct{.construct = "a loop bound",
                                  .problem = "must be an integer, not " + e->dtype.str()},
        node);
  return false;
}

std::optional<std::vector<TirLowerer::LoopSpec>> TirLowerer::iterator(TSNode right) {
  if (!cst_.is(right, Kind::call)) {
    error(diag::UnsupportedLoopIterator{.iterator = text(right)}, right);
    return std::nullopt;
  }
  TSNode fn = cst_.field(right, Field::function);
  Args args = args_of(right);
  Span sp = span(right);
  std::string p = path(right);
  bool is_range = p.empty() && cst_.is(fn, Kind::identifier) && cst_.text(fn) == "range" &&
                  !names_.find("range");
  if (is_range) {
    if (args.positional.empty() || args.positional.size() > 3 || !args.keywords.empty()) {
      error(diag::InvalidTirConstruct{.construct = "range",
                                      .problem =
                                          "expected range(stop) or range(start, stop[, step])"},
            right);
      return std::nullopt;
    }
    LoopSpec spec;
    if (!bounds(args.positional[0], args.positional.size() > 1 ? args.positional[1] : TSNode{},
                spec, sp))
      return std::nullopt;
    if (args.positional.size() == 3 && !loop_step(args.positional[2], spec)) return std::nullopt;
    return std::vector<LoopSpec>{std::move(spec)};
  }
  if (p == "grid") {
    if (!args.keywords.empty() || args.positional.empty()) {
      error(diag::InvalidTirConstruct{.construct = "T.grid",
                                      .problem = "expected one or more extents"},
            right);
      return std::nullopt;
    }
    std::vector<LoopSpec> specs;
    for (TSNode e : args.positional) {
      LoopSpec spec;
      if (!bounds(e, TSNode{}, spec, sp)) return std::nullopt;
      specs.push_back(std::move(spec));
    }
    return specs;
  }
  static const std::pair<std::string_view, ir::ForKind> kKinds[] = {
      {"serial", ir::ForKind::Serial},
      {"parallel", ir::ForKind::Parallel},
      {"vectorized", ir::ForKind::Vectorized},
      {"unroll", ir::ForKind::Unrolled},
      {"thread_binding", ir::ForKind::ThreadBinding}};
  for (auto& [name, kind] : kKinds) {
    if (p != name) continue;
    LoopSpec spec;
    spec.kind = kind;
    std::vector<TSNode> pos;
    TSNode thread = args.find("thread");
    for (TSNode a : args.positional) {
      if (kind == ir::ForKind::ThreadBinding && ts_node_is_null(thread) &&
          (cst_.is(a, Kind::string) || cst_.is(a, Kind::concatenated_string)))
        thread = a;
      else
        pos.push_back(a);
    }
    if (pos.empty() || pos.size() > 2) {
      error(diag::InvalidTirConstruct{.construct = "T." + p,
                                      .problem = "expected (stop) or (start, stop)"},
            right);
      return std::nullopt;
    }
    if (!bounds(pos[0], pos.size() > 1 ? pos[1] : TSNode{}, spec, sp)) return std::nullopt;
    for (auto& [key, v] : args.keywords) {
      if (key == "annotations") {
        if (!cst_.is(v, Kind::none)) attr_dict(v, spec.annotations, "annotations");
      } else if (key == "step") {
        if (!cst_.is(v, Kind::none) && !loop_step(v, spec)) return std::nullopt;
      } else if (key == "thread" && kind == ir::ForKind::ThreadBinding) {
        // handled below
      } else {
        error(diag::InvalidTirConstruct{.construct = "T." + p,
                                        .problem = "unknown argument '" + key + "'"},
              v);
        return std::nullopt;
      }
    }
    if (kind == ir::ForKind::ThreadBinding) {
      auto tag = ts_node_is_null(thread) ? std::nullopt : string_value(thread);
      if (!tag) {
        error(diag::InvalidTirConstruct{.construct = "T.thread_binding",
                                        .problem = "missing thread=\"…\""},
              right);
        return std::nullopt;
      }
      spec.thread = *tag;
    }
    return std::vector<LoopSpec>{std::move(spec)};
  }
  error(diag::UnsupportedLoopIterator{.iterator = text(fn)}, right);
  return std::nullopt;
}

bool TirLowerer::loop_step(TSNode node, LoopSpec& spec) {
  const ir::PrimExpr* step = expr(node);
  if (!step) return false;
  if (is_bare_int(node)) step = cast(spec.extent->dtype, step, span(node));
  if (const auto* imm = ir::dyn_cast<ir::IntImm>(step)) {
    if (imm->value <= 0) {
      error(diag::InvalidTirConstruct{.construct = "a loop step",
                                      .problem = "must be a positive integer"},
            node);
      return false;
    }
    if (imm->value == 1) return true;
  }
  spec.step = step;
  return true;
}

void TirLowerer::for_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
  TSNode left = cst_.field(node, Field::left);
  std::vector<TSNode> targets =
      cst_.is(left, Kind::pattern_list) ? cst_.named_children(left) : std::vector<TSNode>{left};
  for (TSNode t : targets) {
    if (!cst_.is(t, Kind::identifier)) {
      error(diag::UnsupportedInTirFunction{.construct = "a loop target other than a name"}, t);
      return;
    }
  }
  auto specs = iterator(cst_.field(node, Field::right));
  if (!specs) return;
  // `for iters in T.grid(a, b)`: one name for the tuple of loop variables.
  bool tuple_target = targets.size() == 1 && specs->size() > 1;
  if (specs->size() != targets.size() && !tuple_target) {
    error(diag::TirUnpackCountMismatch{.value_count = specs->size(), .name_count = targets.size()},
          left);
    return;
  }
  names_.push();
  size_t loops_before = loops_.size();
  std::vector<const ir::PrimVar*> vars;
  for (size_t k = 0; k < specs->size(); ++k) {
    const LoopSpec& s = (*specs)[k];
    TSNode target = targets[tuple_target ? 0 : k];
    std::string var_name = text(target);
    if (tuple_target) var_name += "_" + std::to_string(k);
    const ir::PrimVar* var = ctx_.make<ir::PrimVar>(var_name, s.extent->dtype, span(target));
    if (!tuple_target) define(target, TirNames::Entry{var, nullptr, nullptr, false});
    loops_.push_back({var, s.min, s.extent});
    vars.push_back(var);
  }
  if (tuple_target) {
    loop_tuples_.push_back(vars);
    TirNames::Entry entry;
    entry.loop_tuple = &loop_tuples_.back();
    define(targets[0], entry);
  }
  ++loop_depth_;
  const ir::Stmt* body = suite(cst_.field(node, Field::body), Where::Nested);
  --loop_depth_;
  loops_.resize(loops_before);
  names_.pop();
  for (size_t k = specs->size(); k-- > 0;) {
    LoopSpec& s = (*specs)[k];
    body = ctx_.make<ir::For>(vars[k], s.min, s.extent, s.kind, s.thread, std::move(s.annotations),
                              s.step, body, span(node));
  }
  out.push_back(body);
}

void TirLowerer::while_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
  const ir::PrimExpr* c = condition(cst_.field(node, Field::condition));
  ++loop_depth_;
  const ir::Stmt* body = suite(cst_.field(node, Field::body), Where::Nested);
  --loop_depth_;
  if (c) out.push_back(ctx_.make<ir::While>(c, body, span(node)));
}

const ir::PrimExpr* TirLowerer::condition(TSNode node) {
  const ir::PrimExpr* c = expr(node);
  if (c && !c->dtype.is_bool()) {
    // TVM accepts integer conditions (`if n:`); compare against zero like C.
    if (c->dtype.is_integer() || c->dtype.is_float())
      c = ctx_.make<ir::PrimBinary>(ir::PrimKind::NE, DataType::Bool(), c,
                                    cast(c->dtype, int_imm(DataType::Int(32), 0, c->span), c->span),
                                    c->span);
    else {
      error(diag::InvalidTirConstruct{.construct = "a condition",
                                      .problem = "must be bool, not " + c->dtype.str()},
            node);
      return nullptr;
    }
  }
  return c;
}

void TirLowerer::if_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
  const ir::Stmt* s = if_chain(node, cst_.fields(node, Field::alternative), 0);
  if (s) out.push_back(s);
}

const ir::Stmt* TirLowerer::if_chain(TSNode clause, const std::vector<TSNode>& alternatives,
                                     size_t k) {
  const ir::PrimExpr* c = condition(cst_.field(clause, Field::condition));
  const ir::Stmt* then_case = suite(cst_.field(clause, Field::consequence), Where::Nested);
  const ir::Stmt* else_case = nullptr;
  if (k < alternatives.size()) {
    TSNode alt = alternatives[k];
    if (cst_.is(alt, Kind::else_clause)) {
      else_case = suite(cst_.field(alt, Field::body), Where::Nested);
    } else {
      else_case = if_chain(alt, alternatives, k + 1);
    }
  }
  if (!c) return nullptr;
  return ctx_.make<ir::IfThenElse>(c, then_case, else_case, span(clause));
}

void TirLowerer::assert_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
  const ir::PrimExpr* c = condition(cst_.field(node, Field::condition));
  TSNode msg = cst_.field(node, Field::message);
  std::string kind;
  std::vector<std::string> messages;
  bool ok = true;
  if (ts_node_is_null(msg)) {
    ok = false;
  } else if (auto s = string_value(msg)) {
    messages.push_back(*s);
  } else if (cst_.is(msg, Kind::tuple) || cst_.is(msg, Kind::parenthesized_expression)) {
    // ("Kind", ["part", …]) — v0.25.
    std::vector<TSNode> parts = cst_.named_children(msg);
    auto k = parts.size() == 2 ? string_value(parts[0]) : std::nullopt;
    ok = k && cst_.is(parts[1], Kind::list);
    if (ok) {
      kind = *k;
      for (TSNode p : cst_.named_children(parts[1])) {
        auto s = string_value(p);
        if (s)
          messages.push_back(*s);
        else
          ok = false;
      }
    }
  } else {
    ok = false;
  }
  if (!ok) {
    error(diag::InvalidAssertMessage{}, ts_node_is_null(msg) ? node : msg);
    return;
  }
  if (c) out.push_back(ctx_.make<ir::AssertStmt>(c, kind, std::move(messages), span(node)));
}

void TirLowerer::return_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
  TSNode value = cst_.field(node, Field::value);
  if (ts_node_is_null(value)) {
    error(diag::InvalidTirConstruct{.construct = "return", .problem = "a TIR return needs a value"},
          node);
    return;
  }
  const ir::PrimExpr* e = expr(value, func_->ret_type);
  if (!e) return;
  if (func_->ret_type) e = cast(*func_->ret_type, e, span(value));
  out.push_back(ctx_.make<ir::ReturnStmt>(e, span(node)));
}

void TirLowerer::axis(const std::vector<TSNode>& targets, TSNode call, const std::string& p,
                      Where where) {
  if (where != Where::BlockBody || !block_) {
    error(
        diag::TirConstructMisplaced{.construct = "T." + p, .allowed_place = "directly in a block"},
        call);
    return;
  }
  Args args = args_of(call);
  if (p == "axis.remap") {
    remap(targets, call, args);
    return;
  }
  std::string kind = p.substr(5);
  ir::IterType type;
  if (kind == "spatial" || kind == "S")
    type = ir::IterType::DataPar;
  else if (kind == "reduce" || kind == "R")
    type = ir::IterType::Reduce;
  else if (kind == "scan")
    type = ir::IterType::Scan;
  else if (kind == "opaque")
    type = ir::IterType::Opaque;
  else {
    error(diag::UnknownBlockAxisKind{.kind = kind}, cst_.field(call, Field::function));
    return;
  }
  if (targets.size() != 1) {
    error(diag::TirUnpackCountMismatch{.value_count = 1, .name_count = targets.size()}, call);
    return;
  }
  TSNode dom = args.positional.size() > 0 ? args.positional[0] : args.find("dom");
  TSNode binding = args.positional.size() > 1 ? args.positional[1] : args.find("binding");
  TSNode dtype_node = args.positional.size() > 2 ? args.positional[2] : args.find("dtype");
  if (ts_node_is_null(dom) || ts_node_is_null(binding) || args.positional.size() > 3) {
    error(diag::InvalidTirConstruct{.construct = "T." + p,
                                    .problem = "expected (dom, binding, dtype=\"int32\")"},
          call);
    return;
  }
  DataType requested = DataType::Int(32);
  if (!ts_node_is_null(dtype_node)) {
    auto dt = dtype_value(dtype_node);
    if (!dt) return;
    requested = *dt;
  }
  const ir::PrimExpr* min = nullptr;
  const ir::PrimExpr* extent = nullptr;
  Span sp = span(dom);
  if (cst_.is(dom, Kind::tuple) || cst_.is(dom, Kind::list)) {
    std::vector<TSNode> bounds = cst_.named_children(dom);
    if (bounds.size() != 2) {
      error(diag::InvalidTirConstruct{.construct = "T." + p,
                                      .problem = "a domain is an extent or (min, max)"},
            dom);
      return;
    }
    min = expr(bounds[0]);
    const ir::PrimExpr* max = expr(bounds[1]);
    if (!min || !max) return;
    if (is_bare_int(bounds[0])) min = cast(max->dtype, min, sp);
    if (is_bare_int(bounds[1])) max = cast(min->dtype, max, sp);
    extent = difference(max, min, sp);
  } else {
    extent = expr(dom);
    if (!extent) return;
    min = int_imm(extent->dtype, 0, sp);
  }
  // The variable's dtype is the widest of the domain and the requested dtype (§6.3).
  DataType dt = requested;
  for (const ir::PrimExpr* e : {min, extent})
    if (e->dtype.is_integer() && e->dtype.bits > dt.bits) dt = e->dtype;
  const ir::PrimExpr* value = expr(binding);
  if (!value) return;
  push_iter(targets[0], dt, {cast(dt, min, sp), cast(dt, extent, sp), sp}, type,
            cast(dt, value, span(binding)), call);
}

void TirLowerer::push_iter(TSNode name, DataType dt, ir::PrimRange dom, ir::IterType type,
                           const ir::PrimExpr* binding, TSNode call) {
  const ir::PrimVar* var = ctx_.make<ir::PrimVar>(text(name), dt, span(name));
  if (!define(name, TirNames::Entry{var, nullptr, nullptr, false})) return;
  ir::IterVar iv;
  iv.var = var;
  iv.dom = dom;
  iv.iter_type = type;
  iv.binding = binding;
  iv.span = span(call);
  block_->block->iter_vars.push_back(iv);
}

void TirLowerer::remap(const std::vector<TSNode>& targets, TSNode call, const Args& args) {
  if (args.positional.size() != 2 || !args.keywords.empty()) {
    error(diag::InvalidTirConstruct{.construct = "T.axis.remap",
                                    .problem = "expected (\"SR…\", [loop variables])"},
          call);
    return;
  }
  auto kinds = string_value(args.positional[0]);
  TSNode list = args.positional[1];
  // The loop variables: a list, or a name bound by `for iters in T.grid(...)`.
  const TirNames::Entry* tuple =
      cst_.is(list, Kind::identifier) ? names_.find(cst_.text(list)) : nullptr;
  if (tuple && !tuple->loop_tuple) tuple = nullptr;
  if (!kinds || !(cst_.is(list, Kind::list) || cst_.is(list, Kind::tuple) || tuple)) {
    error(diag::InvalidTirConstruct{.construct = "T.axis.remap",
                                    .problem = "expected (\"SR…\", [loop variables])"},
          call);
    return;
  }
  std::vector<TSNode> bindings =
      tuple ? std::vector<TSNode>(tuple->loop_tuple->size(), list) : cst_.named_children(list);
  if (kinds->size() != targets.size() || bindings.size() != targets.size()) {
    error(diag::AxisRemapCountMismatch{.kind_count = kinds->size(),
                                       .name_count = targets.size(),
                                       .loop_var_count = bindings.size()},
          call);
    return;
  }
  for (size_t k = 0; k < targets.size(); ++k) {
    char c = (*kinds)[k];
    if (c != 'S' && c != 'R') {
      error(diag::UnknownBlockAxisKind{.kind = std::string(1, c)}, args.positional[0]);
      return;
    }
    const LoopInfo* loop = nullptr;
    if (tuple || cst_.is(bindings[k], Kind::identifier)) {
      const ir::PrimVar* v =
          tuple ? (*tuple->loop_tuple)[k] : names_.find_var(cst_.text(bindings[k]));
      for (auto it = loops_.rbegin(); it != loops_.rend() && v; ++it)
        if (it->var == v) {
          loop = &*it;
          break;
        }
    }
    if (!loop) {
      if (cst_.is(bindings[k], Kind::identifier) && !names_.find(cst_.text(bindings[k])))
        error(diag::UndefinedTirName{.name = text(bindings[k])}, bindings[k]);
      else
        error(diag::AxisRemapNotLoopVar{.binding = text(bindings[k])}, bindings[k]);
      continue;
    }
    push_iter(targets[k], loop->var->dtype, {loop->min, loop->extent, span(bindings[k])},
              c == 'S' ? ir::IterType::DataPar : ir::IterType::Reduce, loop->var, call);
  }
}

}  // namespace raxc::lower::tir_lowering
