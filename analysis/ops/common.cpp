#include "analysis/ops/common.h"

#include <algorithm>

#include "frontend/printer/printer.h"

namespace raxc::analysis::ops {

using ir::DataType;
using ir::PrimExpr;

const OpDef& current_op(const InferContext& ctx) {
  return *find_op(ir::cast<ir::Op>(ctx.call.op)->name);
}

std::string op_text(const InferContext& ctx) {
  const auto* op = ir::dyn_cast<ir::Op>(ctx.call.op);
  if (op == nullptr) return "call";
  const OpDef* def = find_op(op->name);
  if (def != nullptr) return std::string(def->text);
  std::string name = op->name;
  if (name.rfind("relax.", 0) == 0) name = "R." + name.substr(6);
  return name;
}

ParamValue param(const InferContext& ctx, std::string_view name) {
  const OpDef& def = current_op(ctx);
  ParamValue v;
  size_t index = 0;
  for (const auto* list : {&def.args, &def.attrs}) {
    for (const ParamSpec& p : *list) {
      if (p.name == name) {
        if (index < ctx.call.args.size() && !(def.variadic && index >= def.args.size() - 1))
          v.arg_index = int(index);
        else
          v.attr = ctx.call.attrs.find(name);
        return v;
      }
      ++index;
    }
  }
  v.attr = ctx.call.attrs.find(name);
  return v;
}

Span param_span(const InferContext& ctx, const ParamValue& v) {
  if (v.arg_index >= 0) return ctx.arg_span(size_t(v.arg_index));
  if (v.attr != nullptr && !v.attr->span.empty()) return v.attr->span;
  return ctx.call.span;
}

std::string sinfo_text(const ir::StructInfo* s) { return printer::print_struct_info(s); }

std::string prim_text(const PrimExpr* e) {
  ir::ShapeSInfo holder(std::vector<const PrimExpr*>{e}, 1);
  std::string text = printer::print_struct_info(&holder);
  // "R.Shape([e])" -> "e"
  size_t open = text.find('[');
  size_t close = text.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close <= open) return text;
  return text.substr(open + 1, close - open - 1);
}

std::string dims_text(const std::vector<const PrimExpr*>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + prim_text(dims[i]);
  if (dims.size() == 1) out += ",";
  return out + ")";
}

// ------------------------------------------------------------------- attribute readers

namespace {

std::string attr_text(const ir::AttrValue& v);

std::string expr_text(const ir::Expr* e) {
  switch (e->kind) {
    case ir::ExprKind::Var:
    case ir::ExprKind::DataflowVar: return ir::cast<ir::Var>(e)->name;
    case ir::ExprKind::StringImm: return printer::quote_string(ir::cast<ir::StringImm>(e)->value);
    case ir::ExprKind::PrimValue: return prim_text(ir::cast<ir::PrimValue>(e)->value);
    case ir::ExprKind::DataTypeImm: return ir::cast<ir::DataTypeImm>(e)->value.str();
    case ir::ExprKind::ShapeExpr: return dims_text(ir::cast<ir::ShapeExpr>(e)->values);
    case ir::ExprKind::Tuple: return "a tuple";
    case ir::ExprKind::Constant: return "a constant";
    default: return "an expression";
  }
}

std::string attr_text(const ir::AttrValue& v) {
  if (v.is_none()) return "None";
  if (auto* b = v.get_if<bool>()) return *b ? "True" : "False";
  if (auto* i = v.get_if<int64_t>()) return std::to_string(*i);
  if (auto* d = v.get_if<double>()) return printer::format_float(*d);
  if (auto* s = v.get_if<std::string>()) return printer::quote_string(*s);
  if (auto* l = v.get_if<ir::AttrValue::List>()) {
    std::string out = "[";
    for (size_t i = 0; i < l->size(); ++i) out += (i ? ", " : "") + attr_text((*l)[i]);
    return out + "]";
  }
  if (auto* p = v.get_if<const PrimExpr*>()) return prim_text(*p);
  if (auto* e = v.get_if<const ir::Expr*>()) return expr_text(*e);
  if (auto* dt = v.get_if<DataType>()) return dt->str();
  if (auto* s = v.get_if<const ir::StructInfo*>()) return sinfo_text(*s);
  return "a value";
}

// The value of a parameter as one of: an Expr (positional) or an AttrValue (keyword).
struct Raw {
  const ir::Expr* expr = nullptr;
  const ir::AttrValue* attr = nullptr;
  Span span;
};

std::optional<Raw> raw(const InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  if (!v.present()) return std::nullopt;
  Raw r;
  r.span = param_span(ctx, v);
  if (v.arg_index >= 0) {
    r.expr = ctx.call.args[size_t(v.arg_index)];
  } else {
    r.attr = v.attr;
    if (auto* e = v.attr->get_if<const ir::Expr*>()) r.expr = *e;
  }
  if (r.attr != nullptr && r.attr->is_none()) return std::nullopt;
  return r;
}

std::string raw_text(const Raw& r) { return r.expr ? expr_text(r.expr) : attr_text(*r.attr); }

void bad_type(InferContext& ctx, std::string_view name, const Raw& r, std::string_view expected,
              bool* ok) {
  ctx.report(diag::OperatorParameterWrongKind{.op = op_text(ctx),
                                              .parameter = std::string(name),
                                              .expected = std::string(expected),
                                              .actual = raw_text(r)},
             r.span);
  if (ok) *ok = false;
}

const PrimExpr* prim_of(const Raw& r) {
  if (r.expr) {
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(r.expr)) return pv->value;
    return nullptr;
  }
  if (auto* p = r.attr->get_if<const PrimExpr*>()) return *p;
  return nullptr;
}

// Elements of a list-like value (a List attribute, a Tuple of PrimValues, a ShapeExpr).
std::optional<std::vector<const PrimExpr*>> prim_elements(InferContext& ctx, const Raw& r) {
  std::vector<const PrimExpr*> out;
  if (r.expr) {
    if (auto* s = ir::dyn_cast<ir::ShapeExpr>(r.expr)) return s->values;
    if (auto* t = ir::dyn_cast<ir::Tuple>(r.expr)) {
      for (const ir::Expr* f : t->fields) {
        auto* pv = ir::dyn_cast<ir::PrimValue>(f);
        if (!pv) return std::nullopt;
        out.push_back(pv->value);
      }
      return out;
    }
    if (auto* pv = ir::dyn_cast<ir::PrimValue>(r.expr)) return std::vector{pv->value};
    return std::nullopt;
  }
  auto one = [&](const ir::AttrValue& v) -> const PrimExpr* {
    if (auto* i = v.get_if<int64_t>()) return ctx.analyzer.make_int(*i);
    if (auto* p = v.get_if<const PrimExpr*>()) return *p;
    if (auto* e = v.get_if<const ir::Expr*>())
      if (auto* pv = ir::dyn_cast<ir::PrimValue>(*e)) return pv->value;
    return nullptr;
  };
  if (auto* l = r.attr->get_if<ir::AttrValue::List>()) {
    for (const ir::AttrValue& item : *l) {
      const PrimExpr* p = one(item);
      if (!p) return std::nullopt;
      out.push_back(p);
    }
    return out;
  }
  if (const PrimExpr* p = one(*r.attr)) return std::vector{p};
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> attr_int(InferContext& ctx, std::string_view name, bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (r->attr && !r->expr) {
    if (auto* i = r->attr->get_if<int64_t>()) return *i;
  }
  if (const PrimExpr* p = prim_of(*r))
    if (p->dtype.is_integer() && !p->dtype.is_bool())
      if (auto v = ctx.analyzer.as_int(p)) return v;
  bad_type(ctx, name, *r, "an integer", ok);
  return std::nullopt;
}

std::optional<double> attr_float(InferContext& ctx, std::string_view name, bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (r->attr && !r->expr) {
    if (auto* d = r->attr->get_if<double>()) return *d;
    if (auto* i = r->attr->get_if<int64_t>()) return double(*i);
  }
  if (const PrimExpr* p = prim_of(*r)) {
    if (auto* f = ir::dyn_cast<ir::FloatImm>(p)) return f->value;
    if (auto v = ctx.analyzer.as_int(p)) return double(*v);
  }
  bad_type(ctx, name, *r, "a number", ok);
  return std::nullopt;
}

std::optional<bool> attr_bool(InferContext& ctx, std::string_view name, bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (r->attr && !r->expr) {
    if (auto* b = r->attr->get_if<bool>()) return *b;
    if (auto* i = r->attr->get_if<int64_t>(); i && (*i == 0 || *i == 1)) return *i == 1;
  }
  if (const PrimExpr* p = prim_of(*r))
    if (auto* imm = ir::dyn_cast<ir::IntImm>(p); imm && p->dtype.is_bool()) return imm->value != 0;
  bad_type(ctx, name, *r, "a bool", ok);
  return std::nullopt;
}

std::optional<std::string> attr_string(InferContext& ctx, std::string_view name, bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (r->expr) {
    if (auto* s = ir::dyn_cast<ir::StringImm>(r->expr)) return s->value;
  } else if (auto* s = r->attr->get_if<std::string>()) {
    return *s;
  }
  bad_type(ctx, name, *r, "a string", ok);
  return std::nullopt;
}

std::optional<DataType> attr_dtype(InferContext& ctx, std::string_view name, bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  std::optional<std::string> text;
  if (r->expr) {
    if (auto* d = ir::dyn_cast<ir::DataTypeImm>(r->expr)) return d->value;
    if (auto* s = ir::dyn_cast<ir::StringImm>(r->expr)) text = s->value;
  } else {
    if (auto* d = r->attr->get_if<DataType>()) return *d;
    if (auto* s = r->attr->get_if<std::string>()) text = *s;
  }
  if (text) {
    if (text->empty()) return DataType::Void();
    if (auto dt = DataType::parse(*text)) return dt;
  }
  bad_type(ctx, name, *r, "a dtype", ok);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> attr_int_list(InferContext& ctx, std::string_view name,
                                                  bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (auto elems = prim_elements(ctx, *r)) {
    std::vector<int64_t> out;
    for (const PrimExpr* e : *elems) {
      std::optional<int64_t> v = ctx.analyzer.as_int(e);
      if (!v) break;
      out.push_back(*v);
    }
    if (out.size() == elems->size()) return out;
  }
  bad_type(ctx, name, *r, "a list of integers", ok);
  return std::nullopt;
}

std::optional<std::vector<const PrimExpr*>> attr_prim_list(InferContext& ctx, std::string_view name,
                                                           bool* ok) {
  std::optional<Raw> r = raw(ctx, name);
  if (!r) return std::nullopt;
  if (auto elems = prim_elements(ctx, *r)) return elems;
  bad_type(ctx, name, *r, "a list of integers or symbolic dimensions", ok);
  return std::nullopt;
}

// ---------------------------------------------------------------------- argument accessors

const ir::StructInfo* arg_sinfo(const InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  if (v.arg_index < 0 || size_t(v.arg_index) >= ctx.args.size()) return nullptr;
  return ctx.args[size_t(v.arg_index)];
}

const ir::TensorSInfo* tensor_arg(InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) return nullptr;  // absent (arity is checked) or given by keyword
  if (auto* t = ir::dyn_cast<ir::TensorSInfo>(s)) return t;
  ctx.report(
      diag::OperatorArgumentNotTensor{
          .op = op_text(ctx), .parameter = std::string(name), .sinfo = sinfo_text(s)},
      param_span(ctx, v));
  return nullptr;
}

std::optional<std::vector<const ir::TensorSInfo*>> tensor_tuple_arg(InferContext& ctx,
                                                                    std::string_view name) {
  ParamValue v = param(ctx, name);
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) return std::nullopt;
  if (auto* t = ir::dyn_cast<ir::TupleSInfo>(s)) {
    std::vector<const ir::TensorSInfo*> out;
    for (const ir::StructInfo* f : t->fields)
      if (auto* ft = ir::dyn_cast<ir::TensorSInfo>(f)) out.push_back(ft);
    if (out.size() == t->fields.size()) return out;
  }
  ctx.report(
      diag::OperatorArgumentNotTensorTuple{
          .op = op_text(ctx), .parameter = std::string(name), .sinfo = sinfo_text(s)},
      param_span(ctx, v));
  return std::nullopt;
}

const ir::ShapeSInfo* shape_arg(InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  const ir::StructInfo* s = arg_sinfo(ctx, name);
  if (s == nullptr) return nullptr;
  if (auto* sh = ir::dyn_cast<ir::ShapeSInfo>(s)) return sh;
  ctx.report(
      diag::OperatorArgumentNotShape{
          .op = op_text(ctx), .parameter = std::string(name), .sinfo = sinfo_text(s)},
      param_span(ctx, v));
  return nullptr;
}

std::optional<ShapeOperand> shape_operand(InferContext& ctx, std::string_view name) {
  ParamValue v = param(ctx, name);
  if (!v.present()) return std::nullopt;
  const ir::Expr* e = nullptr;
  const ir::StructInfo* s = nullptr;
  if (v.arg_index >= 0) {
    e = ctx.call.args[size_t(v.arg_index)];
    if (size_t(v.arg_index) < ctx.args.size()) s = ctx.args[size_t(v.arg_index)];
  } else if (auto* ex = v.attr->get_if<const ir::Expr*>()) {
    e = *ex;
  }
  ShapeOperand out;
  if (auto* se = ir::dyn_cast<ir::ShapeExpr>(e)) {
    out.expr = se;
    out.dims = se->values;
    out.ndim = int(se->values.size());
    return out;
  }
  if (auto* sh = ir::dyn_cast<ir::ShapeSInfo>(s)) {
    out.ndim = sh->ndim;
    out.dims = sh->values;
    if (ir::isa<ir::Var>(e))
      out.expr = e;
    else if (sh->values)
      out.expr = ctx.arena().make<ir::ShapeExpr>(*sh->values);
    return out;
  }
  bool is_list = e ? ir::isa<ir::Tuple>(e) : (v.attr && v.attr->get_if<ir::AttrValue::List>());
  if (is_list) {
    bool ok = true;
    auto values = attr_prim_list(ctx, name, &ok);
    if (!ok) return std::nullopt;
    if (values) {
      std::vector<const PrimExpr*> dims;
      for (const PrimExpr* d : *values) {
        if (!d->dtype.is_integer()) {
          ctx.report(diag::OperatorArgumentNotShape{.op = op_text(ctx),
                                                    .parameter = std::string(name),
                                                    .sinfo = s ? sinfo_text(s) : prim_text(d)},
                     param_span(ctx, v));
          return std::nullopt;
        }
        dims.push_back(d->dtype == ir::DataType::Int(64)
                           ? d
                           : ctx.arena().make<ir::PrimCast>(ir::DataType::Int(64), d));
      }
      out.expr = ctx.arena().make<ir::ShapeExpr>(dims);
      out.ndim = int(dims.size());
      out.dims = std::move(dims);
      return out;
    }
  }
  ctx.report(diag::OperatorArgumentNotShape{.op = op_text(ctx),
                                            .parameter = std::string(name),
                                            .sinfo = s ? sinfo_text(s) : "a non-shape value"},
             param_span(ctx, v));
  return std::nullopt;
}

const ir::TensorSInfo* tensor_of_shape(InferContext& ctx, const ShapeOperand& shape,
                                       ir::DataType dtype, const ir::VDevice* vdev) {
  return ctx.arena().make<ir::TensorSInfo>(shape.expr, dtype, vdev, shape.ndim);
}

std::optional<std::vector<const PrimExpr*>> s_dims(const ir::TensorSInfo& t) {
  if (auto* s = ir::dyn_cast<ir::ShapeExpr>(t.shape)) return s->values;
  return std::nullopt;
}

std::optional<std::vector<const PrimExpr*>> v_dims(const ir::TensorSInfo& t) {
  if (auto* s = ir::dyn_cast<ir::ShapeExpr>(t.shape)) return s->values;
  if (auto* var = ir::dyn_cast<ir::Var>(t.shape))
    if (auto* sh = ir::dyn_cast<ir::ShapeSInfo>(var->annotation); sh && sh->values)
      return sh->values;
  return std::nullopt;
}

// ------------------------------------------------------------------------- builders

const ir::TensorSInfo* make_tensor(InferContext& ctx, std::vector<const PrimExpr*> dims,
                                   DataType dtype, const ir::VDevice* vdev) {
  int ndim = int(dims.size());
  const auto* shape = ctx.arena().make<ir::ShapeExpr>(std::move(dims));
  return ctx.arena().make<ir::TensorSInfo>(shape, dtype, vdev, ndim);
}

const ir::TensorSInfo* rank_only(InferContext& ctx, int ndim, DataType dtype,
                                 const ir::VDevice* vdev) {
  return ctx.arena().make<ir::TensorSInfo>(nullptr, dtype, vdev, ndim);
}

const ir::TensorSInfo* with_dtype(InferContext& ctx, const ir::TensorSInfo& t, DataType dtype) {
  return ctx.arena().make<ir::TensorSInfo>(t.shape, dtype, t.vdevice, t.ndim);
}

const ir::StructInfo* object(InferContext& ctx) { return ctx.arena().make<ir::ObjectSInfo>(); }

const ir::StructInfo* unknown(InferContext& ctx, int ndim) {
  return rank_only(ctx, ndim, DataType::Void(), nullptr);
}

// ------------------------------------------------------------------------- rules

DataType arith_dtype(InferContext& ctx, DataType a, DataType b, std::string_view what, Span at) {
  if (a.is_void() || b.is_void()) return DataType::Void();
  if (a == b) return a;
  if (a.is_bool() || b.is_bool()) {
    ctx.report(
        diag::MixedDtypes{
            .op = op_text(ctx), .first = a.str(), .second = b.str(), .result = a.str()},
        at);
    return a;
  }
  ctx.report(
      diag::OperatorDtypeMismatch{
          .op = op_text(ctx), .operands = std::string(what), .first = a.str(), .second = b.str()},
      at);
  return a;
}

std::optional<std::vector<const PrimExpr*>> broadcast(
    InferContext& ctx, const std::vector<const PrimExpr*>& a, const std::vector<const PrimExpr*>& b,
    std::string_view a_name, std::string_view b_name, Span at, bool* conflict) {
  size_t n = std::max(a.size(), b.size());
  std::vector<const PrimExpr*> out(n);
  bool decided = true;
  for (size_t k = 0; k < n; ++k) {
    size_t pos = n - 1 - k;
    if (k >= a.size()) {
      out[pos] = b[b.size() - 1 - k];
      continue;
    }
    if (k >= b.size()) {
      out[pos] = a[a.size() - 1 - k];
      continue;
    }
    const PrimExpr* x = a[a.size() - 1 - k];
    const PrimExpr* y = b[b.size() - 1 - k];
    std::optional<int64_t> xi = ctx.analyzer.as_int(x), yi = ctx.analyzer.as_int(y);
    if (xi == 1) {
      out[pos] = y;
    } else if (yi == 1) {
      out[pos] = x;
    } else {
      arith::Proof p = ctx.analyzer.compare(x, y);
      if (p == arith::Proof::Equal) {
        out[pos] = x;
      } else if (xi && yi) {
        ctx.report(diag::CannotBroadcast{.op = op_text(ctx),
                                         .first_dim = prim_text(x),
                                         .first = std::string(a_name),
                                         .second_dim = prim_text(y),
                                         .second = std::string(b_name)},
                   at);
        if (conflict) *conflict = true;
        return std::nullopt;
      } else {
        if (decided)
          ctx.report(diag::MaybeNotBroadcastable{.op = op_text(ctx),
                                                 .first_dim = prim_text(x),
                                                 .first = std::string(a_name),
                                                 .second_dim = prim_text(y),
                                                 .second = std::string(b_name)},
                     at);
        decided = false;
      }
    }
  }
  if (!decided) return std::nullopt;
  return out;
}

std::optional<int> normalize_axis(InferContext& ctx, int64_t axis, int ndim, Span at) {
  if (axis < -int64_t(ndim) || axis >= int64_t(ndim)) {
    ctx.report(diag::AxisOutOfRange{.op = op_text(ctx), .axis = axis, .ndim = ndim}, at);
    return std::nullopt;
  }
  return int(axis < 0 ? axis + ndim : axis);
}

std::optional<std::vector<int>> normalize_axes(InferContext& ctx, const std::vector<int64_t>& axes,
                                               int ndim, Span at) {
  std::vector<int> out;
  std::vector<bool> seen(size_t(std::max(ndim, 0)), false);
  for (int64_t a : axes) {
    std::optional<int> n = normalize_axis(ctx, a, ndim, at);
    if (!n) return std::nullopt;
    if (seen[size_t(*n)]) {
      ctx.report(diag::AxisRepeated{.op = op_text(ctx), .axis = a}, at);
      return std::nullopt;
    }
    seen[size_t(*n)] = true;
    out.push_back(*n);
  }
  return out;
}

namespace {
bool same_vdevice(const ir::VDevice* a, const ir::VDevice* b) {
  if (a == b) return true;
  return a->target_kind == b->target_kind && a->dev_id == b->dev_id &&
         a->mem_scope == b->mem_scope && (a->index < 0 || b->index < 0 || a->index == b->index);
}
std::string vdevice_text(const ir::VDevice* v) {
  return v->target_kind + ":" + std::to_string(v->dev_id) + ":" + v->mem_scope;
}
}  // namespace

const ir::VDevice* first_vdevice(const std::vector<const ir::TensorSInfo*>& tensors) {
  const ir::VDevice* found = nullptr;
  for (const ir::TensorSInfo* t : tensors) {
    if (t == nullptr || t->vdevice == nullptr) continue;
    if (found == nullptr) {
      found = t->vdevice;
    } else if (!same_vdevice(found, t->vdevice)) {
      return nullptr;
    }
  }
  return found;
}

const ir::VDevice* binary_vdevice(InferContext& ctx, const ir::VDevice* a, const ir::VDevice* b) {
  if (!ctx.call.sinfo_args.empty())
    if (auto* t = ir::dyn_cast<ir::TensorSInfo>(ctx.call.sinfo_args[0])) return t->vdevice;
  if (a == nullptr || a->target_kind.empty()) return b;
  if (b == nullptr || b->target_kind.empty()) return a;
  if (!same_vdevice(a, b)) {
    ctx.report(
        diag::OperatorVdeviceMismatch{
            .op = op_text(ctx), .first = vdevice_text(a), .second = vdevice_text(b)},
        ctx.call.span);
  }
  return a;
}

bool require_float(InferContext& ctx, const ir::TensorSInfo& t, std::string_view name) {
  if (t.dtype.is_void() || t.dtype.is_float()) return true;
  ctx.report(
      diag::OperatorRequiresFloat{
          .op = op_text(ctx), .parameter = std::string(name), .dtype = t.dtype.str()},
      param_span(ctx, param(ctx, name)));
  return false;
}

bool check_dims_equal(InferContext& ctx, const PrimExpr* a, std::string_view a_what,
                      const PrimExpr* b, std::string_view b_what, Span at) {
  arith::Proof p = ctx.analyzer.compare(a, b);
  if (p == arith::Proof::Equal) return true;
  if (p == arith::Proof::NotEqual) {
    ctx.report(diag::OperatorDimensionsDiffer{.op = op_text(ctx),
                                              .first_what = std::string(a_what),
                                              .first = prim_text(a),
                                              .second_what = std::string(b_what),
                                              .second = prim_text(b)},
               at);
    return false;
  }
  ctx.report(diag::DimensionsMaybeDiffer{.op = op_text(ctx),
                                         .first_what = std::string(a_what),
                                         .first = prim_text(a),
                                         .second_what = std::string(b_what),
                                         .second = prim_text(b)},
             at);
  ctx.assume_equal(a, b);
  return true;
}

const PrimExpr* product(InferContext& ctx, const std::vector<const PrimExpr*>& dims) {
  const PrimExpr* p = ctx.analyzer.make_int(1);
  for (const PrimExpr* d : dims) p = ctx.analyzer.mul(p, d);
  return p;
}

OpDef make_op(std::string_view name, std::string_view text, std::vector<ParamSpec> args,
              std::vector<ParamSpec> attrs, InferFn infer, std::string_view doc, Purity purity) {
  OpDef d;
  d.name = name;
  d.text = text;
  d.args = std::move(args);
  d.attrs = std::move(attrs);
  d.infer = infer;
  d.doc = doc;
  d.purity = purity;
  return d;
}

}  // namespace raxc::analysis::ops
