// Run-time StructInfo checks and symbolic shape evaluation (see checks.h).
#include "backend/exec/checks.h"

#include <cmath>

#include "backend/exec/memory.h"
#include "frontend/printer/printer.h"

namespace raxc::backend {

using runtime::Value;

namespace {

int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Scalar int_scalar(int64_t v) { return Scalar{false, v, 0}; }
Scalar float_scalar(double v) { return Scalar{true, 0, v}; }

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  if (dims.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Scalar eval_prim(const ir::PrimExpr* e, const Frame& frame) {
  using K = ir::PrimKind;
  switch (e->kind) {
    case K::IntImm: return int_scalar(ir::cast<ir::IntImm>(e)->value);
    case K::FloatImm: return float_scalar(ir::cast<ir::FloatImm>(e)->value);
    case K::Var: {
      const auto* v = ir::cast<ir::PrimVar>(e);
      auto it = frame.dims.find(v);
      if (it == frame.dims.end())
        raise(diag::SymbolicVariableUnbound{.variable = v->name}, e->span);
      return int_scalar(it->second);
    }
    case K::Not: return int_scalar(!eval_prim(ir::cast<ir::PrimNot>(e)->a, frame).i);
    case K::Select: {
      const auto* s = ir::cast<ir::PrimSelect>(e);
      return eval_prim(s->condition, frame).as_f64() != 0 ? eval_prim(s->true_value, frame)
                                                          : eval_prim(s->false_value, frame);
    }
    case K::Cast: {
      Scalar v = eval_prim(ir::cast<ir::PrimCast>(e)->value, frame);
      if (e->dtype.is_float()) return float_scalar(v.as_f64());
      if (e->dtype.is_bool()) return int_scalar(v.as_f64() != 0);
      return int_scalar(v.is_float ? static_cast<int64_t>(v.f) : v.i);
    }
    case K::Call: {
      const auto* c = ir::cast<ir::PrimCall>(e);
      if (c->op == "tir.if_then_else" && c->args.size() == 3)
        return eval_prim(c->args[0], frame).as_f64() != 0 ? eval_prim(c->args[1], frame)
                                                          : eval_prim(c->args[2], frame);
      if (c->op == "tir.likely" && c->args.size() == 1) return eval_prim(c->args[0], frame);
      raise(diag::UnsupportedOnCpu{.what = "'" + c->op + "' in a shape expression"}, e->span);
    }
    default: break;
  }
  const auto* b = ir::dyn_cast<ir::PrimBinary>(e);
  if (!b) raise(diag::UnsupportedOnCpu{.what = "this expression in a shape"}, e->span);
  Scalar x = eval_prim(b->a, frame), y = eval_prim(b->b, frame);
  if (x.is_float || y.is_float || e->dtype.is_float()) {
    double p = x.as_f64(), q = y.as_f64();
    switch (e->kind) {
      case K::Add: return float_scalar(p + q);
      case K::Sub: return float_scalar(p - q);
      case K::Mul: return float_scalar(p * q);
      case K::Div: return float_scalar(p / q);
      case K::Mod: return float_scalar(std::fmod(p, q));
      case K::FloorDiv: return float_scalar(std::floor(p / q));
      case K::FloorMod: return float_scalar(p - std::floor(p / q) * q);
      case K::Min: return float_scalar(p < q ? p : q);
      case K::Max: return float_scalar(p > q ? p : q);
      case K::EQ: return int_scalar(p == q);
      case K::NE: return int_scalar(p != q);
      case K::LT: return int_scalar(p < q);
      case K::LE: return int_scalar(p <= q);
      case K::GT: return int_scalar(p > q);
      case K::GE: return int_scalar(p >= q);
      case K::And: return int_scalar(p != 0 && q != 0);
      case K::Or: return int_scalar(p != 0 || q != 0);
      default: break;
    }
  }
  int64_t p = x.i, q = y.i;
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };  // two's complement
  bool division =
      e->kind == K::Div || e->kind == K::Mod || e->kind == K::FloorDiv || e->kind == K::FloorMod;
  if (division && q == 0)
    raise(diag::IntegerDivisionByZero{.expression = "a shape expression"}, e->span);
  if (division && q == -1) {  // INT64_MIN / -1 overflows: wraps, remainder 0
    if (e->kind == K::Mod || e->kind == K::FloorMod) return int_scalar(0);
    return int_scalar(wrap(0 - static_cast<uint64_t>(p)));
  }
  switch (e->kind) {
    case K::Add: return int_scalar(wrap(uint64_t(p) + uint64_t(q)));
    case K::Sub: return int_scalar(wrap(uint64_t(p) - uint64_t(q)));
    case K::Mul: return int_scalar(wrap(uint64_t(p) * uint64_t(q)));
    case K::Div: return int_scalar(p / q);
    case K::Mod: return int_scalar(p % q);
    case K::FloorDiv: return int_scalar(floordiv(p, q));
    case K::FloorMod: return int_scalar(floormod(p, q));
    case K::Min: return int_scalar(std::min(p, q));
    case K::Max: return int_scalar(std::max(p, q));
    case K::EQ: return int_scalar(p == q);
    case K::NE: return int_scalar(p != q);
    case K::LT: return int_scalar(p < q);
    case K::LE: return int_scalar(p <= q);
    case K::GT: return int_scalar(p > q);
    case K::GE: return int_scalar(p >= q);
    case K::And: return int_scalar(p && q);
    case K::Or: return int_scalar(p || q);
    default: break;
  }
  raise(diag::UnsupportedOnCpu{.what = "this operator in a shape expression"}, e->span);
}

int64_t eval_dim(const ir::PrimExpr* e, const Frame& frame) {
  Scalar s = eval_prim(e, frame);
  return s.is_float ? static_cast<int64_t>(s.f) : s.i;
}

std::string describe_value(const Value& v) {
  if (const runtime::TensorPtr* t = v.tensor())
    return "a " + runtime::dtype_name((*t)->dtype()) + " tensor of shape " +
           dims_text((*t)->shape());
  if (const auto* t = v.get_if<runtime::Tuple>())
    return "a tuple of " + std::to_string(t->fields.size()) + " field(s)";
  if (const auto* s = v.get_if<runtime::Shape>()) return "the shape " + dims_text(s->dims);
  if (const auto* p = v.get_if<runtime::Prim>()) {
    std::string text = p->is_float() ? printer::format_float(p->f) : std::to_string(p->i);
    return "the " + runtime::dtype_name(p->dtype) + " value " + text;
  }
  if (v.is<runtime::String>()) return "a string";
  if (v.is<runtime::DType>()) return "a dtype";
  if (v.is<runtime::Null>()) return "null";
  if (const auto* c = v.get_if<runtime::CallablePtr>()) return (*c)->describe();
  return "a value";
}

std::optional<std::string> StructMatcher::dim(int64_t actual, const ir::PrimExpr* declared,
                                              std::string where) {
  if (const auto* var = ir::dyn_cast<ir::PrimVar>(declared)) {
    auto it = frame_.dims.find(var);
    if (it == frame_.dims.end()) {
      frame_.dims[var] = actual;
      return std::nullopt;
    }
    if (it->second != actual)
      return where + " is " + std::to_string(actual) + ", but '" + var->name + "' is " +
             std::to_string(it->second);
    return std::nullopt;
  }
  deferred_.push_back({index_, actual, declared, std::move(where)});
  return std::nullopt;
}

std::optional<std::string> StructMatcher::shape(const std::vector<int64_t>& dims,
                                                const std::vector<const ir::PrimExpr*>& declared,
                                                const char* what) {
  if (dims.size() != declared.size())
    return std::string(what) + " has " + std::to_string(dims.size()) + " dimension(s), not " +
           std::to_string(declared.size());
  for (size_t k = 0; k < dims.size(); ++k)
    if (auto e = dim(dims[k], declared[k], "dimension " + std::to_string(k))) return e;
  return std::nullopt;
}

std::optional<std::string> StructMatcher::tensor(const Value& v, const ir::TensorSInfo* s) {
  const runtime::TensorPtr* t = v.tensor();
  if (!t) return "it is " + describe_value(v);
  const runtime::Tensor& tensor = **t;
  if (s->ndim >= 0 && tensor.ndim() != s->ndim)
    return "it has " + std::to_string(tensor.ndim()) + " dimension(s), not " +
           std::to_string(s->ndim);
  if (!s->dtype.is_void()) {
    std::string want = s->dtype.str();
    std::string have = runtime::dtype_name(tensor.dtype());
    if (want != have) return "its dtype is " + have + ", not " + want;
  }
  if (const auto* shape_expr = ir::dyn_cast<ir::ShapeExpr>(s->shape))
    return shape(tensor.shape(), shape_expr->values, "it");
  if (const auto* var = ir::dyn_cast<ir::Var>(s->shape)) {
    auto it = frame_.vars.find(var);
    const auto* known = it == frame_.vars.end() ? nullptr : it->second.get_if<runtime::Shape>();
    if (known && known->dims != tensor.shape())
      return "its shape " + dims_text(tensor.shape()) + " is not '" + var->name + "' " +
             dims_text(known->dims);
  }
  return std::nullopt;
}

std::optional<std::string> StructMatcher::bind(const Value& v, const ir::StructInfo* s) {
  std::optional<std::string> result = match(v, s);
  ++index_;
  return result;
}

std::optional<std::string> StructMatcher::match(const Value& v, const ir::StructInfo* s) {
  std::optional<std::string> result;
  if (!s) return result;
  switch (s->kind) {
    case ir::SInfoKind::Object: break;
    case ir::SInfoKind::Tensor: result = tensor(v, ir::cast<ir::TensorSInfo>(s)); break;
    case ir::SInfoKind::Shape: {
      const auto* ss = ir::cast<ir::ShapeSInfo>(s);
      const auto* shape_value = v.get_if<runtime::Shape>();
      if (!shape_value) {
        result = "it is " + describe_value(v);
      } else if (ss->values) {
        result = shape(shape_value->dims, *ss->values, "it");
      } else if (ss->ndim >= 0 && static_cast<int>(shape_value->dims.size()) != ss->ndim) {
        result = "it has " + std::to_string(shape_value->dims.size()) + " dimension(s), not " +
                 std::to_string(ss->ndim);
      }
      break;
    }
    case ir::SInfoKind::Prim: {
      const auto* ps = ir::cast<ir::PrimSInfo>(s);
      const auto* p = v.get_if<runtime::Prim>();
      if (!p) {
        result = "it is " + describe_value(v);
      } else if (!ps->dtype.is_void() && runtime::dtype_name(p->dtype) != ps->dtype.str()) {
        result = "its dtype is " + runtime::dtype_name(p->dtype) + ", not " + ps->dtype.str();
      } else if (ps->value && !p->is_float()) {
        result = dim(p->i, ps->value, "its value");
      }
      break;
    }
    case ir::SInfoKind::Tuple: {
      const auto* ts = ir::cast<ir::TupleSInfo>(s);
      const auto* t = v.get_if<runtime::Tuple>();
      if (!t) {
        result = "it is " + describe_value(v);
      } else if (t->fields.size() != ts->fields.size()) {
        result = "it has " + std::to_string(t->fields.size()) + " field(s), not " +
                 std::to_string(ts->fields.size());
      } else {
        for (size_t i = 0; i < t->fields.size() && !result; ++i)
          if (auto e = match(t->fields[i], ts->fields[i]))
            result = "field " + std::to_string(i) + ": " + *e;
      }
      break;
    }
    case ir::SInfoKind::Func:  // a storage is an opaque object, not a function
      if (!v.is<runtime::CallablePtr>() || as_storage(v)) result = "it is " + describe_value(v);
      break;
  }
  return result;
}

std::optional<std::pair<size_t, std::string>> StructMatcher::finish() {
  for (const Deferred& d : deferred_) {
    int64_t expected = eval_dim(d.declared, frame_);
    if (expected != d.actual)
      return std::pair{d.value_index, d.where + " is " + std::to_string(d.actual) + ", expected " +
                                          std::to_string(expected)};
  }
  deferred_.clear();
  return std::nullopt;
}

std::optional<std::string> match_struct_info(const Value& value, const ir::StructInfo* sinfo,
                                             Frame& frame) {
  StructMatcher matcher(frame);
  if (auto e = matcher.bind(value, sinfo)) return e;
  if (auto e = matcher.finish()) return e->second;
  return std::nullopt;
}

}  // namespace raxc::backend
