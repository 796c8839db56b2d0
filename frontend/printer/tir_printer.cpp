// PrimFuncs and TIR statements (TVM src/script/printer/tir/{function,buffer,for_loop,block,
// stmt}.cc), in the classic-A or classic-B spelling.
#include "frontend/printer/printer_impl.h"

namespace raxc::printer::detail {

using namespace ir;

namespace {

bool has_vars(const PrimExpr* e) {
  if (!e) return false;
  switch (e->kind) {
    case PrimKind::Var: return true;
    case PrimKind::IntImm:
    case PrimKind::FloatImm:
    case PrimKind::StringImm: return false;
    case PrimKind::Not: return has_vars(cast<PrimNot>(e)->a);
    case PrimKind::Select: {
      auto s = cast<PrimSelect>(e);
      return has_vars(s->condition) || has_vars(s->true_value) || has_vars(s->false_value);
    }
    case PrimKind::Cast: return has_vars(cast<PrimCast>(e)->value);
    case PrimKind::BufferLoad: return true;
    case PrimKind::Call:
      for (const PrimExpr* a : cast<PrimCall>(e)->args)
        if (has_vars(a)) return true;
      return false;
    case PrimKind::Let: return true;
    default: return has_vars(cast<PrimBinary>(e)->a) || has_vars(cast<PrimBinary>(e)->b);
  }
}

bool uses_any(const PrimExpr* e, const std::vector<const PrimVar*>& vars) {
  if (!e) return false;
  switch (e->kind) {
    case PrimKind::Var:
      for (const PrimVar* v : vars)
        if (v == e) return true;
      return false;
    case PrimKind::IntImm:
    case PrimKind::FloatImm:
    case PrimKind::StringImm: return false;
    case PrimKind::Not: return uses_any(cast<PrimNot>(e)->a, vars);
    case PrimKind::Select: {
      auto s = cast<PrimSelect>(e);
      return uses_any(s->condition, vars) || uses_any(s->true_value, vars) ||
             uses_any(s->false_value, vars);
    }
    case PrimKind::Cast: return uses_any(cast<PrimCast>(e)->value, vars);
    case PrimKind::BufferLoad:
      for (const PrimExpr* i : cast<BufferLoad>(e)->indices)
        if (uses_any(i, vars)) return true;
      return false;
    case PrimKind::Call:
      for (const PrimExpr* a : cast<PrimCall>(e)->args)
        if (uses_any(a, vars)) return true;
      return false;
    case PrimKind::Let: {
      auto l = cast<PrimLet>(e);
      return uses_any(l->value, vars) || uses_any(l->body, vars);
    }
    default: return uses_any(cast<PrimBinary>(e)->a, vars) || uses_any(cast<PrimBinary>(e)->b, vars);
  }
}

bool is_int(const PrimExpr* e, int64_t value) {
  auto i = dyn_cast<IntImm>(e);
  return i && i->value == value;
}

bool contains_block(const Stmt* s) {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Block: return true;
    case StmtKind::Seq:
      for (const Stmt* c : cast<SeqStmt>(s)->stmts)
        if (contains_block(c)) return true;
      return false;
    case StmtKind::For: return contains_block(cast<For>(s)->body);
    case StmtKind::While: return contains_block(cast<While>(s)->body);
    case StmtKind::If:
      return contains_block(cast<IfThenElse>(s)->then_case) ||
             contains_block(cast<IfThenElse>(s)->else_case);
    case StmtKind::Let: return contains_block(cast<LetStmt>(s)->body);
    default: return false;
  }
}

// A buffer TVM prints as a `T.Buffer(shape, dtype)` parameter annotation.
bool is_simple_buffer(const Buffer* b) {
  if (!b->strides.empty() || !b->axis_separators.empty()) return false;
  for (const PrimExpr* d : b->shape)
    if (has_vars(d)) return false;
  if (b->elem_offset && !is_int(b->elem_offset, 0)) return false;
  return b->scope == "global" && (b->align == -1 || b->align == 64) &&
         (b->offset_factor == -1 || b->offset_factor == 1) &&
         (b->buffer_type.empty() || b->buffer_type == "default");
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

std::string tuple_text(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + join(items) + ")";
}

}  // namespace

std::string Printer::block_keyword() const {
  return options_.tir == PrintOptions::TirDialect::ClassicB ? "sblock" : "block";
}

std::string Printer::alloc_keyword() const {
  return options_.tir == PrintOptions::TirDialect::ClassicB ? "sblock_alloc_buffer"
                                                            : "alloc_buffer";
}

// ---------------------------------------------------------------------------- functions
bool Printer::inline_buffer_param(const PrimFunc* f, const PrimFuncParam& p) const {
  const Buffer* buffer = nullptr;
  for (auto& [var, b] : f->buffer_map)
    if (var == p.var) buffer = b;
  return buffer && is_simple_buffer(buffer);
}

const Block* Printer::implicit_root(const PrimFunc* f) const {
  auto root = dyn_cast<Block>(f->body);
  if (!root || !root->iter_vars.empty() || root->predicate || !root->annotations.empty() ||
      !root->match_buffers.empty() || root->init || (root->reads && !root->reads->empty()) ||
      (root->writes && !root->writes->empty()) || root->name != "root")
    return nullptr;
  if (!root->alloc_buffers.empty()) return root;
  if (auto inner = dyn_cast<Block>(root->body)) return inner->iter_vars.empty() ? nullptr : root;
  return contains_block(root->body) ? root : nullptr;
}

Lines Printer::prim_func(const PrimFunc* f, const std::string& name) {
  bool saved_context = relax_context_;
  relax_context_ = false;
  names_.push_frame();
  tir_function_frame_ = names_.depth() - 1;
  tir_pending_ = Lines();
  Lines body;
  std::vector<std::string> params;
  std::vector<std::string> param_names(f->params.size());
  std::vector<bool> inlined(f->params.size(), false);
  for (size_t i = 0; i < f->params.size(); ++i) {
    const PrimFuncParam& p = f->params[i];
    if (inline_buffer_param(f, p)) {
      const Buffer* buffer = nullptr;
      for (auto& [var, b] : f->buffer_map)
        if (var == p.var) buffer = b;
      std::string lhs = define_buffer(buffer);
      params.push_back(lhs + ": " + buffer_call(buffer, "Buffer", {}, /*annotation_form=*/true));
      inlined[i] = true;
      continue;
    }
    std::string hint = p.var->name.empty() ? "v" : p.var->name;
    if (p.buffer && p.buffer->name == p.var->name) hint += "_handle";
    std::string annotation = p.var->dtype.is_handle() ? T("handle") : T(p.var->dtype.str());
    param_names[i] = names_.define(p.var, hint);
    params.push_back(param_names[i] + ": " + annotation);
  }
  if (!f->attrs.empty()) {
    const AttrValue* symbol = f->attrs.find("global_symbol");
    bool implicit_symbol =
        symbol && symbol->get_if<std::string>() && *symbol->get_if<std::string>() == name;
    if (!(implicit_symbol && f->attrs.entries.size() == 1)) {
      std::string dict = attr_dict(f->attrs, implicit_symbol ? "global_symbol" : "");
      flush_tir_declarations(body);
      body.add(0, T("func_attr") + "(" + dict + ")");
    }
  }
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (inlined[i]) continue;
    for (auto& [var, buffer] : f->buffer_map) {
      if (var != f->params[i].var) continue;
      std::string lhs = define_buffer(buffer);
      declare_shape_vars(buffer, body);
      std::string rhs = buffer_call(buffer, "match_buffer", {param_names[i]}, false);
      flush_tir_declarations(body);
      body.add(0, lhs + " = " + rhs);
    }
  }
  if (const Block* root = implicit_root(f)) {
    body.add(0, "# with T." + block_keyword() + "(\"root\"):");
    for (const Buffer* buffer : root->alloc_buffers) {
      std::string lhs = define_buffer(buffer);
      declare_shape_vars(buffer, body);
      std::string rhs = buffer_call(buffer, alloc_keyword(), {}, false);
      flush_tir_declarations(body);
      body.add(0, lhs + " = " + rhs);
    }
    stmt_body(root->body, body);
  } else {
    stmt_body(f->body, body);
  }
  std::string ret = f->ret_type ? " -> " + T(f->ret_type->str()) : "";
  std::vector<std::string> keywords;
  if (f->is_private) keywords.push_back("private=True");
  if (f->s_tir) keywords.push_back("s_tir=True");
  Lines out;
  out.add(0, "@" + T("prim_func") + (keywords.empty() ? "" : "(" + join(keywords) + ")"));
  out.add(0, "def " + name + "(" + join(params) + ")" + ret + ":");
  if (body.empty()) body.add(0, "pass");
  out.append(body, 1);
  out.blank();
  names_.pop_frame();
  relax_context_ = saved_context;
  return out;
}

void Printer::flush_tir_declarations(Lines& out) {
  if (tir_pending_.empty()) return;
  out.append(tir_pending_);
  tir_pending_ = Lines();
}

// Function-level statements: variables first used inside a statement are declared before it.
void Printer::stmt_body(const Stmt* s, Lines& out) {
  auto one = [&](const Stmt* child) {
    Lines lines;
    stmt(child, lines);
    flush_tir_declarations(out);
    out.append(lines);
  };
  if (auto seq = dyn_cast<SeqStmt>(s)) {
    comments_.emit_leading(s, 0, out);
    for (const Stmt* child : seq->stmts) one(child);
  } else if (s) {
    one(s);
  }
}

// ---------------------------------------------------------------------------- buffers
std::string Printer::buffer_name(const Buffer* b) {
  if (!b) return "None";
  if (const std::string* name = names_.find(b)) return *name;
  std::string name = b->name.empty() ? "buffer" : b->name;
  for (char& c : name)
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::string Printer::define_buffer(const Buffer* b) {
  return names_.define(b, b->name.empty() ? "buffer" : b->name);
}

// Shape dimensions that are new variables are declared just before the buffer, in one
// statement (`m, n = T.int64(), T.int64()`).
void Printer::declare_shape_vars(const Buffer* b, Lines& out) {
  std::vector<std::string> lhs, rhs;
  for (const PrimExpr* d : b->shape) {
    auto v = dyn_cast<PrimVar>(d);
    if (!v || names_.defined(v)) continue;
    lhs.push_back(names_.define(v, v->name.empty() ? "v" : v->name));
    rhs.push_back(var_creation(v));
  }
  if (lhs.size() == 1) out.add(0, lhs[0] + " = " + rhs[0]);
  if (lhs.size() > 1) out.add(0, join(lhs) + " = " + join(rhs));
}

std::string Printer::buffer_call(const Buffer* b, const std::string& method,
                                 std::vector<std::string> args, bool annotation_form) {
  std::vector<std::string> dims;
  for (const PrimExpr* d : b->shape) dims.push_back(prim(d).text);
  args.push_back(tuple_text(dims));
  if (annotation_form) {
    args.push_back(quote_string(b->dtype.str()));
    return T(method) + "(" + join(args) + ")";
  }
  if (b->dtype != DataType::Float(32)) args.push_back(quote_string(b->dtype.str()));
  std::vector<std::pair<std::string, std::string>> kwargs;
  if (!b->strides.empty()) {
    std::vector<std::string> strides;
    for (const PrimExpr* s : b->strides) strides.push_back(prim(s).text);
    kwargs.emplace_back("strides", tuple_text(strides));
  }
  if (b->elem_offset && !is_int(b->elem_offset, 0))
    kwargs.emplace_back("elem_offset", prim(b->elem_offset).text);
  if (b->scope != "global") kwargs.emplace_back("scope", quote_string(b->scope));
  if (b->align != -1 && b->align != 64) kwargs.emplace_back("align", std::to_string(b->align));
  if (b->offset_factor != -1 && b->offset_factor != 1)
    kwargs.emplace_back("offset_factor", std::to_string(b->offset_factor));
  if (!b->buffer_type.empty() && b->buffer_type != "default")
    kwargs.emplace_back("buffer_type", quote_string(b->buffer_type));
  if (!b->axis_separators.empty()) {
    std::vector<std::string> axes;
    for (int64_t a : b->axis_separators) axes.push_back(std::to_string(a));
    kwargs.emplace_back("axis_separators", "[" + join(axes) + "]");
  }
  for (auto& [key, value] : kwargs) args.push_back(key + "=" + value);
  return T(method) + "(" + join(args) + ")";
}

std::string Printer::indices(const std::vector<const PrimExpr*>& idx) {
  if (idx.empty()) return "[()]";
  std::vector<std::string> items;
  for (const PrimExpr* i : idx) items.push_back(prim(i).text);
  return "[" + join(items) + "]";
}

std::string Printer::range_end(const PrimExpr* min, const PrimExpr* extent) {
  return prim(add(min, extent)).text;
}

std::string Printer::region(const BufferRegion& r) {
  std::string name = buffer_name(r.buffer);
  if (r.region.empty()) return name + "[()]";
  std::vector<std::string> items;
  for (const PrimRange& range : r.region) {
    std::string min = prim(range.min).text;
    if (is_int(range.extent, 1)) {
      items.push_back(min);
    } else {
      items.push_back(min + ":" + range_end(range.min, range.extent));
    }
  }
  return name + "[" + join(items) + "]";
}

// ---------------------------------------------------------------------------- statements
void Printer::stmt(const Stmt* s, Lines& out) {
  if (!s) return;
  comments_.emit_leading(s, 0, out);
  size_t first = out.size();
  auto nested = [&](const Stmt* body) {
    names_.push_frame();
    Lines lines;
    stmt(body, lines);
    names_.pop_frame();
    if (lines.empty()) lines.add(0, "pass");
    return lines;
  };
  switch (s->kind) {
    case StmtKind::Seq:
      for (const Stmt* child : cast<SeqStmt>(s)->stmts) stmt(child, out);
      return;
    case StmtKind::For: for_loop(cast<For>(s), out); break;
    case StmtKind::While: {
      auto w = cast<While>(s);
      std::string cond = prim(w->condition).text;
      Lines body = nested(w->body);
      out.add(0, "while " + cond + ":");
      out.append(body, 1);
      break;
    }
    case StmtKind::If: {
      auto i = cast<IfThenElse>(s);
      std::string cond = prim(i->condition).text;
      Lines then_lines = nested(i->then_case);
      out.add(0, "if " + cond + ":");
      out.append(then_lines, 1);
      if (i->else_case) {
        Lines else_lines = nested(i->else_case);
        out.add(0, "else:");
        out.append(else_lines, 1);
      }
      break;
    }
    case StmtKind::Block: block_stmt(cast<Block>(s), out); break;
    case StmtKind::BufferStore: {
      auto b = cast<BufferStore>(s);
      std::string name = buffer_name(b->buffer);
      std::string value = prim(b->value).text;
      out.add(0, name + indices(b->indices) + " = " + value);
      break;
    }
    case StmtKind::Let: {
      // `x: T.int32 = value`, scoped over the statements that follow it.
      auto l = cast<LetStmt>(s);
      std::string type = T(l->var->dtype.str());
      std::string value = prim(l->value).text;
      names_.push_frame();
      std::string var = names_.define(l->var, l->var->name.empty() ? "v" : l->var->name);
      out.add(0, var + ": " + type + " = " + value);
      out.append_to(first, comments_.trailing(s));
      stmt(l->body, out);
      names_.pop_frame();
      return;
    }
    case StmtKind::Evaluate: {
      auto e = cast<Evaluate>(s);
      auto call = dyn_cast<PrimCall>(e->value);
      if (call && call->op == "tir.ret" && call->args.size() == 1) {
        out.add(0, "return " + prim(call->args[0]).text);
      } else if (call) {
        out.add(0, prim(call).text);
      } else {
        out.add(0, T("evaluate") + "(" + prim(e->value).text + ")");
      }
      break;
    }
    case StmtKind::Assert: {
      auto a = cast<AssertStmt>(s);
      std::string cond = prim(a->condition).text;
      std::string message;
      if (a->kind_name.empty()) {
        std::string joined;
        for (const std::string& m : a->messages) joined += m;
        message = quote_string(joined);
      } else {
        std::vector<std::string> parts;
        for (const std::string& m : a->messages) parts.push_back(quote_string(m));
        message = "(" + quote_string(a->kind_name) + ", [" + join(parts) + "])";
      }
      out.add(0, "assert " + cond + ", " + message);
      break;
    }
    case StmtKind::AllocBuffer: {
      const Buffer* buffer = cast<AllocBufferStmt>(s)->buffer;
      std::string lhs = define_buffer(buffer);
      declare_shape_vars(buffer, out);
      out.add(0, lhs + " = " + buffer_call(buffer, "alloc_buffer", {}, false));
      break;
    }
    case StmtKind::Return: out.add(0, "return " + prim(cast<ReturnStmt>(s)->value).text); break;
    case StmtKind::Break: out.add(0, "break"); break;
    case StmtKind::Continue: out.add(0, "continue"); break;
  }
  out.append_to(first, comments_.trailing(s));
}

void Printer::for_loop(const For* loop, Lines& out) {
  // Perfectly nested serial loops from zero print as one T.grid.
  std::vector<const For*> grid;
  std::vector<const PrimVar*> grid_vars;
  for (const For* l = loop; l; l = dyn_cast<For>(l->body)) {
    if (l->for_kind != ForKind::Serial || !is_int(l->min, 0) || !l->annotations.empty() ||
        (l->step && !is_int(l->step, 1)) || uses_any(l->extent, grid_vars))
      break;
    grid.push_back(l);
    grid_vars.push_back(l->loop_var);
  }
  names_.push_frame();
  size_t loops_before = loops_.size();
  std::string header;
  const Stmt* body = nullptr;
  if (grid.size() > 1) {
    std::vector<std::string> vars, extents;
    for (size_t i = 0; i < grid.size(); ++i) {
      if (i > 0) comments_.emit_leading(grid[i], 0, out);
      vars.push_back(names_.define(grid[i]->loop_var, grid[i]->loop_var->name.empty()
                                                           ? "v"
                                                           : grid[i]->loop_var->name));
      extents.push_back(prim(grid[i]->extent).text);
      loops_.push_back(grid[i]);
    }
    header = "for " + join(vars) + " in " + T("grid") + "(" + join(extents) + "):";
    body = grid.back()->body;
  } else {
    std::string var =
        names_.define(loop->loop_var, loop->loop_var->name.empty() ? "v" : loop->loop_var->name);
    loops_.push_back(loop);
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> kwargs;
    bool trivial_step = !loop->step || is_int(loop->step, 1);
    if (is_int(loop->min, 0) && trivial_step) {
      args.push_back(prim(loop->extent).text);
    } else {
      args.push_back(prim(loop->min).text);
      args.push_back(range_end(loop->min, loop->extent));
    }
    std::string prefix;
    bool range_sugar = false;
    switch (loop->for_kind) {
      case ForKind::Serial:
        range_sugar = loop->annotations.empty();
        prefix = range_sugar ? "range" : T("serial");
        break;
      case ForKind::Parallel: prefix = T("parallel"); break;
      case ForKind::Unrolled: prefix = T("unroll"); break;
      case ForKind::Vectorized: prefix = T("vectorized"); break;
      case ForKind::ThreadBinding:
        prefix = T("thread_binding");
        kwargs.emplace_back("thread", quote_string(loop->thread_tag));
        break;
    }
    if (!loop->annotations.empty()) kwargs.emplace_back("annotations", attr_dict(loop->annotations));
    if (!trivial_step) {
      if (range_sugar) {
        args.push_back(prim(loop->step).text);
      } else {
        kwargs.emplace_back("step", prim(loop->step).text);
      }
    }
    for (auto& [key, value] : kwargs) args.push_back(key + "=" + value);
    header = "for " + var + " in " + prefix + "(" + join(args) + "):";
    body = loop->body;
  }
  Lines lines;
  stmt(body, lines);
  if (lines.empty()) lines.add(0, "pass");
  out.add(0, header);
  out.append(lines, 1);
  loops_.resize(loops_before);
  names_.pop_frame();
}

void Printer::block_stmt(const Block* b, Lines& out) {
  names_.push_frame();
  Lines inner;
  // Axes bound to an enclosing loop variable over the loop's own range are grouped into one
  // T.axis.remap (TVM's block.cc).
  auto remappable = [&](const IterVar& iv) {
    if (iv.iter_type != IterType::DataPar && iv.iter_type != IterType::Reduce) return false;
    auto var = dyn_cast<PrimVar>(iv.binding);
    if (!var) return false;
    for (const For* loop : loops_) {
      if (loop->loop_var == var)
        return structural_equal(loop->min, iv.dom.min) &&
               structural_equal(loop->extent, iv.dom.extent);
    }
    return false;
  };
  auto single = [&](const IterVar& iv) {
    static constexpr const char* kKinds[] = {"spatial", "reduce", "scan", "opaque"};
    std::string dom;
    if (is_int(iv.dom.min, 0)) {
      dom = prim(iv.dom.extent).text;
    } else {
      std::string min = prim(iv.dom.min).text;
      dom = "(" + min + ", " + range_end(iv.dom.min, iv.dom.extent) + ")";
    }
    std::string rhs = T("axis") + "." + kKinds[int(iv.iter_type)] + "(" + dom;
    if (iv.binding) rhs += ", " + prim(iv.binding).text;
    rhs += ")";
    std::string lhs = names_.define(iv.var, iv.var->name.empty() ? "v" : iv.var->name);
    inner.add(0, lhs + " = " + rhs);
  };
  std::vector<const IterVar*> group;
  auto flush_group = [&] {
    if (group.size() == 1) single(*group[0]);
    if (group.size() > 1) {
      std::vector<std::string> lhs, bindings;
      std::string kinds;
      for (const IterVar* iv : group) {
        lhs.push_back(names_.define(iv->var, iv->var->name.empty() ? "v" : iv->var->name));
        bindings.push_back(prim(iv->binding).text);
        kinds += iv->iter_type == IterType::DataPar ? "S" : "R";
      }
      inner.add(0, join(lhs) + " = " + T("axis") + ".remap(" + quote_string(kinds) + ", [" +
                       join(bindings) + "])");
    }
    group.clear();
  };
  for (const IterVar& iv : b->iter_vars) {
    if (remappable(iv)) {
      group.push_back(&iv);
    } else {
      flush_group();
      single(iv);
    }
  }
  flush_group();
  if (b->predicate && !is_int(b->predicate, 1))
    inner.add(0, T("where") + "(" + prim(b->predicate).text + ")");
  // TVM always prints both (it infers omitted regions); without region inference an omitted list
  // stays omitted, so that it reads back the same.
  for (auto [key, regions] : {std::pair{"reads", &b->reads}, std::pair{"writes", &b->writes}}) {
    if (!*regions) continue;
    std::vector<std::string> items;
    for (const BufferRegion& r : **regions) items.push_back(region(r));
    inner.add(0, T(key) + "(" + join(items) + ")");
  }
  if (!b->annotations.empty()) {
    std::string attr = options_.tir == PrintOptions::TirDialect::ClassicB ? "sblock_attr" : "block_attr";
    inner.add(0, T(attr) + "(" + attr_dict(b->annotations) + ")");
  }
  for (const Buffer* buffer : b->alloc_buffers) {
    std::string lhs = define_buffer(buffer);
    declare_shape_vars(buffer, inner);
    inner.add(0, lhs + " = " + buffer_call(buffer, alloc_keyword(), {}, false));
  }
  for (const MatchBufferRegion& m : b->match_buffers) {
    std::string lhs = define_buffer(m.buffer);
    std::string source = region(m.source);
    declare_shape_vars(m.buffer, inner);
    inner.add(0, lhs + " = " + buffer_call(m.buffer, "match_buffer", {source}, false));
  }
  if (b->init) {
    names_.push_frame();
    Lines init;
    stmt(b->init, init);
    names_.pop_frame();
    if (init.empty()) init.add(0, "pass");
    inner.add(0, "with " + T("init") + "():");
    inner.append(init, 1);
  }
  stmt(b->body, inner);
  if (inner.empty()) inner.add(0, "pass");
  out.add(0, "with " + T(block_keyword()) + "(" + quote_string(b->name) + "):");
  out.append(inner, 1);
  names_.pop_frame();
}

}  // namespace raxc::printer::detail
