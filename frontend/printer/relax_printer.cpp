// Relax functions, bindings, expressions and StructInfo (TVM src/script/printer/relax/*.cc).
#include <cmath>
#include <cstring>

#include "frontend/printer/printer_impl.h"

namespace raxc::printer::detail {

using namespace ir;

namespace {

std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

// `(a, b)`, `(a,)`, `()`: a Python tuple display.
std::string tuple_text(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + join(items) + ")";
}

bool mentions(const PrimExpr* e, const std::unordered_set<const PrimVar*>& vars) {
  if (!e) return false;
  switch (e->kind) {
    case PrimKind::Var: return vars.count(cast<PrimVar>(e)) > 0;
    case PrimKind::IntImm:
    case PrimKind::FloatImm:
    case PrimKind::StringImm: return false;
    case PrimKind::Not: return mentions(cast<PrimNot>(e)->a, vars);
    case PrimKind::Select: {
      auto s = cast<PrimSelect>(e);
      return mentions(s->condition, vars) || mentions(s->true_value, vars) ||
             mentions(s->false_value, vars);
    }
    case PrimKind::Cast: return mentions(cast<PrimCast>(e)->value, vars);
    case PrimKind::BufferLoad:
      for (const PrimExpr* i : cast<BufferLoad>(e)->indices)
        if (mentions(i, vars)) return true;
      return false;
    case PrimKind::Call:
      for (const PrimExpr* a : cast<PrimCall>(e)->args)
        if (mentions(a, vars)) return true;
      return false;
    case PrimKind::Let: {
      auto l = cast<PrimLet>(e);
      return mentions(l->value, vars) || mentions(l->body, vars);
    }
    default: {
      auto b = cast<PrimBinary>(e);
      return mentions(b->a, vars) || mentions(b->b, vars);
    }
  }
}

double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  double value;
  if (exponent == 0x1f) {
    value = fraction ? NAN : INFINITY;
  } else if (exponent == 0) {
    value = std::ldexp(double(fraction), -24);
  } else {
    value = std::ldexp(double(fraction | 0x400), exponent - 25);
  }
  return (h & 0x8000) ? -value : value;
}

// One element of a constant, spelled as a Python literal; nullopt for formats not decoded.
std::optional<std::string> element_literal(DataType dt, const uint8_t* p) {
  auto load = [p](auto value) {
    std::memcpy(&value, p, sizeof value);
    return value;
  };
  if (dt.is_bool()) return std::string(p[0] ? "True" : "False");
  if (dt.code == DataType::Code::Int) {
    switch (dt.bits) {
      case 8: return std::to_string(load(int8_t{}));
      case 16: return std::to_string(load(int16_t{}));
      case 32: return std::to_string(load(int32_t{}));
      case 64: return std::to_string(load(int64_t{}));
    }
  }
  if (dt.code == DataType::Code::UInt) {
    switch (dt.bits) {
      case 8: return std::to_string(load(uint8_t{}));
      case 16: return std::to_string(load(uint16_t{}));
      case 32: return std::to_string(load(uint32_t{}));
      case 64: return std::to_string(load(uint64_t{}));
    }
  }
  if (dt.code == DataType::Code::Float) {
    switch (dt.bits) {
      case 16: return format_float(half_to_double(load(uint16_t{})));
      case 32: return format_float(double(load(float{})));
      case 64: return format_float(load(double{}));
    }
  }
  if (dt.code == DataType::Code::BFloat && dt.bits == 16) {
    uint32_t bits = uint32_t(load(uint16_t{})) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return format_float(double(f));
  }
  return std::nullopt;
}

// Row-major nested lists of the constant's elements, or nullopt when they cannot be decoded.
std::optional<std::string> constant_literal(const Constant* c) {
  if (!c->has_data() || c->dtype.lanes != 1) return std::nullopt;
  size_t element_bytes = c->dtype.bits <= 8 ? 1 : size_t(c->dtype.bits) / 8;
  size_t count = 1;
  for (int64_t d : c->shape) {
    if (d < 0) return std::nullopt;
    count *= size_t(d);
  }
  if (c->data.size() != count * element_bytes) return std::nullopt;
  if (count > 0 && !element_literal(c->dtype, c->data.data())) return std::nullopt;
  size_t index = 0;
  std::string out;
  auto emit = [&](auto&& self, size_t dim) -> void {
    if (dim == c->shape.size()) {
      out += *element_literal(c->dtype, c->data.data() + element_bytes * index++);
      return;
    }
    out += "[";
    for (int64_t i = 0; i < c->shape[dim]; ++i) {
      if (i) out += ", ";
      self(self, dim + 1);
    }
    out += "]";
  };
  emit(emit, 0);
  return out;
}

bool is_void_sinfo(const StructInfo* s) {
  auto t = dyn_cast<TupleSInfo>(s);
  return t && t->fields.empty();
}

}  // namespace

const StructInfo* Printer::inferred(const Var* v) const {
  return options_.struct_info_of ? options_.struct_info_of(v) : nullptr;
}

std::string Printer::call_args(const std::vector<std::string>& args,
                               const std::vector<std::pair<std::string, std::string>>& kwargs) {
  std::vector<std::string> all = args;
  for (auto& [key, value] : kwargs) all.push_back(key + "=" + value);
  return "(" + join(all) + ")";
}

// ---------------------------------------------------------------------------- functions
Lines Printer::relax_function(const Function* f, const std::string& name, bool top_level) {
  bool saved_context = relax_context_;
  relax_context_ = true;
  names_.push_frame();
  FunctionState state;
  state.frame = names_.depth() - 1;
  functions_.push_back(&state);
  // Variables first seen in a signature are that function's symbolic variables: quoted there,
  // declared at the top of its body (text §4.5). A nested function's own ones stay in it: one
  // hoisted into the outer function would no longer be bound by the nested signature.
  std::unordered_set<const PrimVar*> signature_vars;
  func_vars_ = &signature_vars;
  std::string ret = f->ret_struct_info ? sinfo(f->ret_struct_info) : "";
  std::vector<std::string> params;
  for (const Var* p : f->params) {
    const StructInfo* s = p->annotation ? p->annotation : inferred(p);
    std::string annotation = s ? sinfo(s) : "";
    std::string param = names_.define(p, p->name.empty() ? "v" : p->name);
    params.push_back(annotation.empty() ? param : param + ": " + annotation);
  }
  func_vars_ = nullptr;
  if (!f->attrs.empty()) {
    const AttrValue* symbol = f->attrs.find("global_symbol");
    bool implicit_symbol = top_level && symbol && symbol->get_if<std::string>() &&
                           *symbol->get_if<std::string>() == name;
    if (!(implicit_symbol && f->attrs.entries.size() == 1)) {
      state.pre.add(0, R("func_attr") + "(" +
                           attr_dict(f->attrs, implicit_symbol ? "global_symbol" : "") + ")");
    }
  }
  std::vector<std::string> keywords;
  if (!f->is_pure) keywords.push_back("pure=False");
  if (top_level && f->is_private) keywords.push_back("private=True");
  std::string decorator =
      "@" + R("function") + (keywords.empty() ? "" : "(" + join(keywords) + ")");
  Lines body = seq_expr(f->body, nullptr, "");

  Lines out;
  if (!top_level) {
    // TVM repeats the import header before a nested function.
    for (const std::string& line : header_lines()) out.add(0, line);
    out.blank();
  }
  out.add(0, decorator);
  out.add(0, "def " + name + "(" + join(params) + ")" + (ret.empty() ? "" : " -> " + ret) + ":");
  Lines inner;
  inner.append(state.pre);
  inner.append(body);
  if (inner.empty()) inner.add(0, "pass");
  out.append(inner, 1);
  out.blank();
  functions_.pop_back();
  names_.pop_frame();
  relax_context_ = saved_context;
  return out;
}

Lines Printer::seq_expr(const SeqExpr* seq, const std::string* result_var,
                        const std::string& result_ann) {
  names_.push_frame();
  Lines out;
  if (seq) {
    for (const BindingBlock* b : seq->blocks) block(b, out);
    if (!result_var) {
      out.add(0, "return " + expr(seq->body).text);
    } else {
      std::string value = rhs(seq->body);
      out.add(0, *result_var + (result_ann.empty() ? "" : ": " + result_ann) + " = " + value);
    }
  }
  names_.pop_frame();
  return out;
}

void Printer::block(const BindingBlock* b, Lines& out) {
  if (!b) return;
  if (!b->is_dataflow) {
    for (const Binding* binding : b->bindings) this->binding(binding, out, nullptr);
    return;
  }
  Lines inner;
  std::vector<std::string> outputs;
  comments_.emit_leading(b, 0, out);
  size_t header = out.size();
  for (const Binding* binding : b->bindings) this->binding(binding, inner, &outputs);
  inner.add(0, R("output") + "(" + join(outputs) + ")");
  out.add(0, "with " + R("dataflow") + "():");
  out.append_to(header, comments_.trailing(b));
  out.append(inner, 1);
}

// `v: S` for a binding (§5.14): the annotation as written, else the inferred StructInfo unless
// the value is a call_tir / call_dps_packed whose out_sinfo says the same.
std::string Printer::binding_annotation(const Binding* b) {
  if (b->var->annotation) return sinfo(b->var->annotation);
  const StructInfo* s = inferred(b->var);
  if (!s) return "";
  if (auto c = dyn_cast<Call>(b->value)) {
    auto op = dyn_cast<Op>(c->op);
    if (op &&
        (op->name == "relax.call_tir" || op->name == "relax.call_dps_packed" ||
         op->name == "relax.dist.call_tir_local_view") &&
        c->sinfo_args.size() == 1 && structural_equal(c->sinfo_args[0], s))
      return "";
  }
  return sinfo(s);
}

void Printer::binding(const Binding* b, Lines& out, std::vector<std::string>* outputs) {
  const Var* v = b->var;
  comments_.emit_leading(b, 0, out);
  size_t first = out.size();
  auto define = [&] { return names_.define(v, v->name.empty() ? "v" : v->name); };
  bool statement_only = false;
  if (b->is_match_cast()) {
    std::string annotation = sinfo(v->annotation ? v->annotation : b->match_cast);
    std::string value = expr(b->value).text;
    std::string target = sinfo(b->match_cast);
    std::string lhs = define();
    out.add(0,
            lhs + ": " + annotation + " = " + R("match_cast") + "(" + value + ", " + target + ")");
  } else if (auto i = dyn_cast<If>(b->value)) {
    std::string annotation = binding_annotation(b);
    std::string lhs = define();
    std::string cond = expr(i->cond).text;
    Lines then_lines = seq_expr(i->true_branch, &lhs, annotation);
    Lines else_lines = seq_expr(i->false_branch, &lhs, annotation);
    out.add(0, "if " + cond + ":");
    out.append(then_lines, 1);
    out.add(0, "else:");
    out.append(else_lines, 1);
  } else if (auto f = dyn_cast<Function>(b->value)) {
    std::string lhs = define();
    out.append(relax_function(f, lhs, /*top_level=*/false));
  } else if (!v->annotation && (inferred(v) ? is_void_sinfo(inferred(v)) : v->name == "_")) {
    // A void call statement (§5.1): no left-hand side.
    out.add(0, expr(b->value).text);
    statement_only = true;
  } else {
    std::string value = rhs(b->value);
    std::string annotation = binding_annotation(b);
    std::string lhs = define();
    out.add(0, lhs + (annotation.empty() ? "" : ": " + annotation) + " = " + value);
  }
  out.append_to(first, comments_.trailing(b));
  if (outputs && !statement_only && !v->is_dataflow()) outputs->push_back(var_name(v));
}

// The right-hand side of an assignment: a tuple of two or more fields without parentheses.
std::string Printer::rhs(const Expr* value) {
  if (auto t = dyn_cast<Tuple>(value); t && t->fields.size() > 1) {
    std::vector<std::string> fields;
    for (const Expr* f : t->fields) fields.push_back(expr(f).text);
    return join(fields);
  }
  return expr(value).text;
}

// ---------------------------------------------------------------------------- expressions
std::string Printer::var_name(const Var* v) {
  if (const std::string* name = names_.find(v)) return *name;
  std::string name = v->name.empty() ? "v" : v->name;
  for (char& c : name)
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

Doc Printer::global_var(const GlobalVar* g) {
  if (!in_module_) return {g->name};
  if (functions_.empty()) return {"Module." + g->name};
  FunctionState* outer = functions_.front();
  if (!outer->module_alias_printed) {
    outer->pre.add(0, "cls = Module");
    outer->module_alias_printed = true;
  }
  return {"cls." + g->name};
}

Doc Printer::callee(const Expr* e) {
  if (auto ext = dyn_cast<ExternFunc>(e)) return {quote_string(ext->global_symbol)};
  return expr(e);
}

Doc Printer::constant(const Constant* c) {
  if (c->metadata) {
    uses_metadata_ = true;
    return {"metadata[" + quote_string(c->metadata->key) + "][" +
            std::to_string(c->metadata->index) + "]"};
  }
  // TVM writes only CPU scalars of common dtypes inline and everything else to the metadata
  // table, which plain text cannot carry; raxc writes every decodable constant inline, as a
  // (nested) list for n-d tensors, which TVM's parser also reads.
  if (auto literal = constant_literal(c)) {
    if (c->dtensor) return {R("dist.const") + "(" + *literal + ", " + sinfo(c->dtensor) + ")"};
    return {R("const") + "(" + *literal + ", " + quote_string(c->dtype.str()) + ")"};
  }
  uses_metadata_ = true;
  return {"metadata[\"relax.expr.Constant\"][0]"};
}

Doc Printer::expr(const Expr* e) {
  if (!e) return {"None"};
  switch (e->kind) {
    case ExprKind::Constant: return constant(cast<Constant>(e));
    case ExprKind::Var:
    case ExprKind::DataflowVar: return {var_name(cast<Var>(e))};
    case ExprKind::GlobalVar: return global_var(cast<GlobalVar>(e));
    case ExprKind::Tuple: {
      auto t = cast<Tuple>(e);
      if (t->fields.empty()) return {R("tuple") + "()"};
      std::vector<std::string> fields;
      for (const Expr* f : t->fields) fields.push_back(expr(f).text);
      return {tuple_text(fields)};
    }
    case ExprKind::PrimValue:
      return {R("prim_value") + "(" + prim(cast<PrimValue>(e)->value).text + ")"};
    case ExprKind::StringImm:
      return {R("str") + "(" + quote_string(cast<StringImm>(e)->value) + ")"};
    case ExprKind::DataTypeImm:
      return {R("dtype") + "(" + quote_string(cast<DataTypeImm>(e)->value.str()) + ")"};
    case ExprKind::ShapeExpr: {
      std::vector<std::string> dims;
      for (const PrimExpr* d : cast<ShapeExpr>(e)->values) dims.push_back(shape_dim(d));
      return {R("shape") + "([" + join(dims) + "])"};
    }
    case ExprKind::TupleGetItem: {
      auto t = cast<TupleGetItem>(e);
      Doc tuple = expr(t->tuple);
      return {paren(tuple, kAtom, false) + "[" + std::to_string(t->index) + "]"};
    }
    case ExprKind::Call: return call(cast<Call>(e));
    case ExprKind::ExternFunc: {
      auto f = cast<ExternFunc>(e);
      std::string args = quote_string(f->global_symbol);
      if (f->struct_info) args += ", " + sinfo(f->struct_info);
      return {R("ExternFunc") + "(" + args + ")"};
    }
    case ExprKind::Op: {
      // An operator written as a value (`f = R.add`, not well formed: RX2026) prints as written.
      std::string_view name = cast<Op>(e)->name;
      if (name.substr(0, 6) == "relax.") return {R(name.substr(6))};
      return {I("Op") + "(" + quote_string(std::string(name)) + ")"};
    }
    case ExprKind::Error: {
      // Only a module with errors holds one, and fmt refuses those; `check --show-struct-info`
      // of such a module still shows where the error was (an unresolved name as written).
      const auto* error = cast<ErrorExpr>(e);
      return {error->is_unresolved_name() ? error->name : "<error>"};
    }
    case ExprKind::SeqExpr:
    case ExprKind::Function:
    case ExprKind::If:
      // Not in A-normal form: these only occur as binding values, printed as statements.
      return {"None"};
  }
  return {"None"};
}

std::optional<Doc> Printer::call_tir_family(const Call* c, const std::string& op) {
  bool tir = op == "relax.call_tir", inplace = op == "relax.call_tir_inplace",
       dps = op == "relax.call_dps_packed", grad = op == "relax.call_tir_with_grad",
       local_view = op == "relax.dist.call_tir_local_view";
  if (!(tir || inplace || dps || grad || local_view) || c->args.size() < 2 || c->args.size() > 3 ||
      c->sinfo_args.size() != 1)
    return std::nullopt;
  std::vector<std::string> args{callee(c->args[0]).text, expr(c->args[1]).text};
  std::vector<std::pair<std::string, std::string>> kwargs;
  if (auto t = dyn_cast<TupleSInfo>(c->sinfo_args[0])) {
    std::vector<std::string> fields;
    for (const StructInfo* f : t->fields) fields.push_back(sinfo(f));
    kwargs.emplace_back("out_sinfo", "[" + join(fields) + "]");
  } else {
    kwargs.emplace_back("out_sinfo", sinfo(c->sinfo_args[0]));
  }
  if (inplace) {
    const AttrValue* indices = c->attrs.find("inplace_indices");
    kwargs.emplace_back("inplace_indices", indices ? attr_value(*indices).text : "[]");
  }
  if (grad) {
    if (const AttrValue* name = c->attrs.find("te_grad_name"))
      kwargs.emplace_back("te_grad_name", attr_value(*name).text);
    if (const AttrValue* grad_kwargs = c->attrs.find("te_grad_kwargs")) {
      auto dict = grad_kwargs->get_if<AttrValue::Dict>();
      if (!dict || !dict->empty())
        kwargs.emplace_back("te_grad_kwargs", attr_value(*grad_kwargs).text);
    }
    return Doc{R("call_tir_with_grad") + call_args(args, kwargs)};
  }
  if (dps) return Doc{R("call_dps_packed") + call_args(args, kwargs)};
  if (c->args.size() == 3) kwargs.emplace_back("tir_vars", expr(c->args[2]).text);
  if (local_view) return Doc{R("dist.call_tir_local_view") + call_args(args, kwargs)};
  // TVM spells a call_tir whose outputs are DTensors R.dist.call_tir.
  const StructInfo* first_out = c->sinfo_args[0];
  if (auto t = dyn_cast<TupleSInfo>(first_out))
    first_out = t->fields.empty() ? nullptr : t->fields[0];
  if (tir && as_dtensor(first_out)) return Doc{R("dist.call_tir") + call_args(args, kwargs)};
  return Doc{R(inplace ? "call_tir_inplace" : "call_tir") + call_args(args, kwargs)};
}

Doc Printer::call(const Call* c) {
  const Op* op = dyn_cast<Op>(c->op);
  if (op) {
    if (auto doc = call_tir_family(c, op->name)) return *doc;
    // The format string is printed as `format=` so that it reads back as the format (§5.12).
    if (op->name == "relax.assert_op" && c->args.size() >= 2) {
      std::vector<std::string> args{expr(c->args[0]).text};
      std::string format = expr(c->args[1]).text;
      for (size_t i = 2; i < c->args.size(); ++i) args.push_back(expr(c->args[i]).text);
      return {R("assert_op") + call_args(args, {{"format", format}})};
    }
    if (op->name == "relax.print" && !c->args.empty()) {
      std::string format = expr(c->args[0]).text;
      std::vector<std::string> args;
      for (size_t i = 1; i < c->args.size(); ++i) args.push_back(expr(c->args[i]).text);
      return {R("print") + call_args(args, {{"format", format}})};
    }
  }
  std::string prefix;
  std::vector<std::string> args;
  if (auto ext = dyn_cast<ExternFunc>(c->op)) {
    prefix = R("call_packed");
    args.push_back(quote_string(ext->global_symbol));
  } else if (op) {
    prefix = op->name.rfind("relax.", 0) == 0 ? R(op->name.substr(6)) : op->name;
  } else {
    prefix = paren(expr(c->op), kAtom, false);
  }
  for (size_t i = 0; i < c->args.size(); ++i)
    args.push_back(i == 0 ? callee(c->args[i]).text : expr(c->args[i]).text);
  std::vector<std::pair<std::string, std::string>> kwargs;
  for (auto& [key, value] : c->attrs.entries) kwargs.emplace_back(key, attr_value(value).text);
  if (!c->sinfo_args.empty()) {
    std::vector<std::string> sinfos;
    for (const StructInfo* s : c->sinfo_args) sinfos.push_back(sinfo(s));
    kwargs.emplace_back("sinfo_args", tuple_text(sinfos));
  }
  return {prefix + call_args(args, kwargs)};
}

// ---------------------------------------------------------------------------- StructInfo
// A symbolic dimension: quoted in a signature when it mentions one of its signature variables.
std::string Printer::shape_dim(const PrimExpr* e) {
  bool saved = relax_context_;
  relax_context_ = true;
  std::string text = prim(e).text;
  relax_context_ = saved;
  if (func_vars_ && mentions(e, *func_vars_)) return quote_string(text);
  return text;
}

// A tensor StructInfo's shape argument: a tuple of dimensions, or the shape variable.
std::string Printer::tensor_shape(const Expr* shape) {
  auto literal = dyn_cast<ShapeExpr>(shape);
  if (!literal) return expr(shape).text;
  std::vector<std::string> dims;
  for (const PrimExpr* d : literal->values) dims.push_back(shape_dim(d));
  return tuple_text(dims);
}

// R.DTensor as TVM prints it: positional while shape and dtype are both known, keywords from the
// first unknown one on; the mesh as "name[index]" when the module declares it.
std::string Printer::dtensor_sinfo(const TensorSInfo* t) {
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> kwargs;
  bool keywords = t->shape == nullptr;
  if (t->shape) args.push_back(tensor_shape(t->shape));
  if (t->dtype.is_void()) {
    keywords = true;
  } else if (keywords) {
    kwargs.emplace_back("dtype", quote_string(t->dtype.str()));
  } else {
    args.push_back(quote_string(t->dtype.str()));
  }
  std::string mesh = device_mesh(*t->dist->mesh);
  std::string placement = quote_string(ir::placement_text(t->dist->placement));
  if (keywords) {
    kwargs.emplace_back("device_mesh", mesh);
    kwargs.emplace_back("placement", placement);
  } else {
    args.push_back(mesh);
    args.push_back(placement);
  }
  if (!t->shape && t->ndim != -1) kwargs.emplace_back("ndim", std::to_string(t->ndim));
  return R("DTensor") + call_args(args, kwargs);
}

// A declared mesh by its name ("mesh[0]"), an inline one as the R.device_mesh(...) call, whose
// range TVM prints T.Range outside the global infos.
std::string Printer::device_mesh(const DeviceMesh& mesh) {
  if (!mesh.global_info_key.empty()) return quote_string(ir::mesh_reference_text(mesh));
  return device_mesh_call(mesh, false);
}

std::string Printer::device_mesh_call(const DeviceMesh& mesh, bool in_global_infos) {
  std::vector<std::string> dims;
  for (int64_t d : mesh.shape) dims.push_back(std::to_string(d));
  std::string devices;
  if (mesh.device_range) {
    devices = (in_global_infos ? I("Range") : T("Range")) + "(" +
              std::to_string(mesh.device_range->first) + ", " +
              std::to_string(mesh.device_range->second) + ")";
  } else {
    std::vector<std::string> ids;
    for (int64_t d : mesh.device_ids) ids.push_back(std::to_string(d));
    devices = "[" + join(ids) + "]";
  }
  return R("device_mesh") + "(" + tuple_text(dims) + ", " + devices + ")";
}

std::string Printer::sinfo(const StructInfo* s) {
  if (!s) return R("Object");
  switch (s->kind) {
    case SInfoKind::Object:
      // Unknown only occurs in a module with errors, which is never printed to a file; messages
      // and --show-struct-info say what it is.
      return is_unknown(s) ? "{unknown}" : R("Object");
    case SInfoKind::Prim: {
      auto p = cast<PrimSInfo>(s);
      if (p->value) return R("Prim") + "(value=" + shape_dim(p->value) + ")";
      return R("Prim") + "(" + quote_string(p->dtype.str()) + ")";
    }
    case SInfoKind::Shape: {
      auto sh = cast<ShapeSInfo>(s);
      if (sh->values) {
        std::vector<std::string> dims;
        for (const PrimExpr* d : *sh->values) dims.push_back(shape_dim(d));
        return R("Shape") + "([" + join(dims) + "])";
      }
      return R("Shape") + "(ndim=" + std::to_string(sh->ndim) + ")";
    }
    case SInfoKind::Tensor: {
      auto t = cast<TensorSInfo>(s);
      if (t->dist) return dtensor_sinfo(t);
      std::vector<std::string> args;
      std::vector<std::pair<std::string, std::string>> kwargs;
      if (t->shape) args.push_back(tensor_shape(t->shape));
      if (!t->dtype.is_void()) kwargs.emplace_back("dtype", quote_string(t->dtype.str()));
      if (!t->shape && t->ndim != -1) kwargs.emplace_back("ndim", std::to_string(t->ndim));
      if (t->vdevice) kwargs.emplace_back("vdevice", vdevice_string(t->vdevice));
      if (args.empty() && kwargs.empty()) return R("Tensor");
      return R("Tensor") + call_args(args, kwargs);
    }
    case SInfoKind::Tuple: {
      auto t = cast<TupleSInfo>(s);
      if (t->fields.empty()) return R("Tuple");
      std::vector<std::string> fields;
      for (const StructInfo* f : t->fields) fields.push_back(sinfo(f));
      return R("Tuple") + "(" + join(fields) + ")";
    }
    case SInfoKind::Func: {
      auto f = cast<FuncSInfo>(s);
      std::string ret = sinfo(f->ret);
      if (f->is_opaque()) {
        std::vector<std::pair<std::string, std::string>> kwargs;
        if (f->ret && !isa<ObjectSInfo>(f->ret)) kwargs.emplace_back("ret", ret);
        if (f->purity) kwargs.emplace_back("purity", "True");
        if (!f->derive_func.empty())
          kwargs.emplace_back("derive_func", quote_string(f->derive_func));
        if (kwargs.empty()) return R("Callable");
        return R("Callable") + call_args({}, kwargs);
      }
      std::vector<std::string> params;
      for (const StructInfo* p : *f->params) params.push_back(sinfo(p));
      std::vector<std::string> args{tuple_text(params), ret, f->purity ? "True" : "False"};
      std::vector<std::pair<std::string, std::string>> kwargs;
      if (!f->derive_func.empty()) kwargs.emplace_back("derive_func", quote_string(f->derive_func));
      return R("Callable") + call_args(args, kwargs);
    }
  }
  return R("Object");
}

}  // namespace raxc::printer::detail
