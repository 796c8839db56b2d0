// StructInfo annotations (text-format.md §4.3) and symbolic shape variables (§4.5, §10 item 1).
#include "frontend/lower/distributed.h"
#include "frontend/lower/literals.h"
#include "frontend/lower/relax_function.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;
using ir::DataType;

namespace {
TSNode unparen(const cst::Cst& cst, TSNode n) {
  while (cst.is(n, Kind::parenthesized_expression)) n = cst.field(n, Field::value);
  return n;
}
}  // namespace

const ir::StructInfo* FunctionLowerer::lower_sinfo_outside(TSNode node) {
  frames_.push_back(Frame{Frame::Kind::Function, {}});
  const ir::StructInfo* s = lower_sinfo(node, SInfoMode::Body);
  frames_.pop_back();
  return s;
}

const ir::StructInfo* FunctionLowerer::lower_sinfo(TSNode node, SInfoMode mode) {
  TSNode callee = cst().is(node, Kind::call) ? cst().field(node, Field::function) : node;
  TSNode args = cst().is(node, Kind::call) ? cst().field(node, Field::arguments) : TSNode{};
  std::string path = relax_path(callee);
  Span at = span(node);
  if (path == "Tensor") return lower_tensor_sinfo(node, args, mode);
  if (path == "Shape") return lower_shape_sinfo(node, args, mode);
  if (path == "Prim") return lower_prim_sinfo(node, args, mode);
  if (path == "Tuple") return lower_tuple_sinfo(node, args, mode);
  if (path == "Callable") return lower_callable_sinfo(node, args, mode);
  if (path == "Object" || path == "Any") {
    if (!ts_node_is_null(args) && !cst().named_children(args).empty()) {
      error(diag::AnnotationTakesNoArguments{.constructor = "R." + path}, at);
      return nullptr;
    }
    return make<ir::ObjectSInfo>(at);
  }
  if (path == "DTensor") return lower_dtensor_sinfo(node, args, mode);
  if (!cst().is(node, Kind::call)) {
    if (std::optional<DataType> dt = tir_dtype_attribute(ctx_, node, &names_))
      return make<ir::PrimSInfo>(*dt, nullptr, at);  // main-2026 `T.int64`
  }
  if (!ts_node_has_error(node)) error(diag::NotStructInfoAnnotation{.annotation = text(node)}, at);
  return nullptr;
}

namespace {
struct SInfoArgs {
  std::unordered_map<std::string, TSNode> by_name;
  bool ok = true;
};
}  // namespace

// R.Tensor(shape=None, dtype=None, vdevice=None, ndim=-1)
const ir::StructInfo* FunctionLowerer::lower_tensor_sinfo(TSNode node, TSNode args_node,
                                                          SInfoMode mode) {
  Span at = span(node);
  std::unordered_map<std::string, TSNode> p;
  if (!ts_node_is_null(args_node)) {
    CallArgs args = split_args(node);
    // A string as first argument with no dtype is the dtype: R.Tensor("float32", ndim=2).
    bool has_dtype_kw = false;
    for (auto& [k, v] : args.keywords) has_dtype_kw = has_dtype_kw || k == "dtype";
    if (!args.positional.empty() && args.positional.size() == 1 && !has_dtype_kw) {
      TSNode first = args.positional[0];
      if (cst().is(first, Kind::parenthesized_expression) &&
          cst().is(unparen(cst(), first), Kind::string)) {
        std::string inner = text(unparen(cst(), first));
        error(diag::ParenthesizedShapeNotTuple{.inner = inner}, span(first));
        return nullptr;
      }
      if (cst().is(first, Kind::string)) {
        args.keywords.insert(args.keywords.begin(), {"dtype", first});
        args.positional.clear();
      }
    }
    if (!bind_params(node, args, {"shape", "dtype", "vdevice", "ndim"}, p, "R.Tensor"))
      return nullptr;
  }
  return tensor_sinfo_of(at, p, mode);
}

ir::TensorSInfo* FunctionLowerer::tensor_sinfo_of(Span at,
                                                  std::unordered_map<std::string, TSNode>& p,
                                                  SInfoMode mode) {
  const ir::Expr* shape = nullptr;
  int ndim = -1;
  bool has_shape = false;
  if (p.count("shape") && !cst().is(p["shape"], Kind::none)) {
    TSNode s = p["shape"];
    TSNode u = s;
    if (cst().is(s, Kind::parenthesized_expression)) {
      u = unparen(cst(), s);
      if (cst().is(u, Kind::string) || cst().is(u, Kind::identifier) ||
          cst().is(u, Kind::integer)) {
        error(diag::ParenthesizedShapeNotTuple{.inner = text(u)}, span(s));
        return nullptr;
      }
    }
    if (cst().is(u, Kind::tuple) || cst().is(u, Kind::list)) {
      std::optional<std::vector<const ir::PrimExpr*>> dims = lower_dims(u, mode);
      if (!dims) return nullptr;
      ndim = int(dims->size());
      shape = make<ir::ShapeExpr>(std::move(*dims), span(u));
      has_shape = true;
    } else if (cst().is(u, Kind::identifier) && lookup(cst().text(u)) &&
               lookup(cst().text(u))->kind == Name::Kind::Var) {
      const ir::Var* var = lookup(cst().text(u))->var;  // a Relax variable of shape kind
      record_name(u, var);
      shape = var;
      has_shape = true;
      // Its annotation's ndim is the tensor's: R.Tensor(s) with s: R.Shape(ndim=2) is 2-d.
      if (const auto* s_info =
              var->annotation ? ir::dyn_cast<ir::ShapeSInfo>(var->annotation) : nullptr)
        ndim = s_info->ndim;
    } else {
      error(diag::AnnotationShapeNotSequence{.shape = text(s)}, span(s));
      return nullptr;
    }
  }
  DataType dtype = DataType::Void();
  if (p.count("dtype") && !cst().is(p["dtype"], Kind::none)) {
    TSNode d = p["dtype"];
    std::optional<std::string> s;
    if (cst().is(d, Kind::string)) s = string_value(ctx_, d);
    std::optional<DataType> dt;
    if (s) dt = DataType::parse(*s);
    if (!dt) dt = tir_dtype_attribute(ctx_, d, &names_);
    if (!dt) {
      error(diag::UnknownRelaxDtype{.dtype = s.value_or(text(d))}, span(d));
      return nullptr;
    }
    dtype = *dt;
  }
  const ir::VDevice* vdevice = nullptr;
  if (p.count("vdevice") && !cst().is(p["vdevice"], Kind::none)) {
    vdevice = resolve_vdevice(p["vdevice"]);
    if (!vdevice) return nullptr;
  }
  if (p.count("ndim")) {
    TSNode n = p["ndim"];
    const ir::PrimExpr* e =
        is_number(n) && !is_type(unparen(cst(), n), "float") ? lower_prim(n) : nullptr;
    auto* imm = e ? ir::dyn_cast<ir::IntImm>(e) : nullptr;
    if (!imm || e->dtype.is_bool()) {
      error(diag::NonLiteralNdim{.ndim = text(n)}, span(n));
      return nullptr;
    }
    if (imm->value < -1) {
      error(diag::NegativeNdim{.ndim = imm->value}, span(n));
      return nullptr;
    }
    if (has_shape && shape && ir::isa<ir::ShapeExpr>(shape) && imm->value != -1 &&
        imm->value != ndim) {
      error(diag::NdimShapeMismatch{.ndim = imm->value, .dimension_count = ndim}, span(n));
      return nullptr;
    }
    if (!has_shape || !ir::isa<ir::ShapeExpr>(shape)) ndim = int(imm->value);
  }
  return make<ir::TensorSInfo>(shape, dtype, vdevice, ndim, at);
}

// R.DTensor(shape=None, dtype=None, device_mesh, placement, ndim=-1): TVM's DTensorStructInfo,
// a tensor part with the mesh it is spread over and how each mesh dimension splits it.
const ir::StructInfo* FunctionLowerer::lower_dtensor_sinfo(TSNode node, TSNode args_node,
                                                           SInfoMode mode) {
  Span at = span(node);
  std::unordered_map<std::string, TSNode> p;
  if (!ts_node_is_null(args_node)) {
    CallArgs args = split_args(node);
    if (!bind_params(node, args, {"shape", "dtype", "device_mesh", "placement", "ndim"}, p,
                     "R.DTensor"))
      return nullptr;
  }
  for (const char* required : {"device_mesh", "placement"}) {
    if (p.count(required)) continue;
    error(diag::BuiltinArgumentMissing{.callee = "R.DTensor", .argument = required}, at);
    return nullptr;
  }
  const ir::DeviceMesh* mesh = resolve_device_mesh(ctx_, p["device_mesh"]);
  if (!mesh) return nullptr;
  std::optional<ir::Placement> placement = lower_placement(ctx_, p["placement"], *mesh);
  if (!placement) return nullptr;
  ir::TensorSInfo* tensor = tensor_sinfo_of(at, p, mode);
  if (!tensor) return nullptr;
  if (!check_sharded_axes(ctx_, *placement, tensor->ndim, span(p["placement"]))) return nullptr;
  tensor->dist = make<ir::Distribution>(ir::Distribution{mesh, std::move(*placement)});
  return tensor;
}

// R.Shape(values=None, ndim=-1)
const ir::StructInfo* FunctionLowerer::lower_shape_sinfo(TSNode node, TSNode args_node,
                                                         SInfoMode mode) {
  Span at = span(node);
  std::unordered_map<std::string, TSNode> p;
  if (!ts_node_is_null(args_node)) {
    CallArgs args = split_args(node);
    if (!bind_params(node, args, {"values", "ndim"}, p, "R.Shape")) return nullptr;
  }
  std::optional<std::vector<const ir::PrimExpr*>> values;
  int ndim = -1;
  if (p.count("values") && !cst().is(p["values"], Kind::none)) {
    TSNode v = p["values"];
    TSNode u = unparen(cst(), v);
    if (!cst().is(u, Kind::list) && !cst().is(u, Kind::tuple)) {
      if (cst().is(u, Kind::string))
        error(diag::ParenthesizedShapeNotTuple{.inner = text(u)}, span(v));
      else
        error(diag::AnnotationShapeNotSequence{.shape = text(u)}, span(v));
      return nullptr;
    }
    values = lower_dims(u, mode);
    if (!values) return nullptr;
    ndim = int(values->size());
  }
  if (p.count("ndim")) {
    TSNode n = p["ndim"];
    const ir::PrimExpr* e =
        is_number(n) && !is_type(unparen(cst(), n), "float") ? lower_prim(n) : nullptr;
    auto* imm = e ? ir::dyn_cast<ir::IntImm>(e) : nullptr;
    if (!imm || e->dtype.is_bool()) {
      error(diag::NonLiteralNdim{.ndim = text(n)}, span(n));
      return nullptr;
    }
    if (imm->value < -1) {
      error(diag::NegativeNdim{.ndim = imm->value}, span(n));
      return nullptr;
    }
    if (values && imm->value != -1 && imm->value != ndim) {
      error(diag::NdimShapeMismatch{.ndim = imm->value, .dimension_count = ndim}, span(n));
      return nullptr;
    }
    if (!values) ndim = int(imm->value);
  }
  return make<ir::ShapeSInfo>(std::move(values), ndim, at);
}

// R.Prim(dtype=None, value=None)
const ir::StructInfo* FunctionLowerer::lower_prim_sinfo(TSNode node, TSNode args_node,
                                                        SInfoMode mode) {
  Span at = span(node);
  std::unordered_map<std::string, TSNode> p;
  if (!ts_node_is_null(args_node)) {
    CallArgs args = split_args(node);
    if (!bind_params(node, args, {"dtype", "value"}, p, "R.Prim")) return nullptr;
  }
  bool has_dtype = p.count("dtype") && !cst().is(p["dtype"], Kind::none);
  bool has_value = p.count("value") && !cst().is(p["value"], Kind::none);
  if (!has_dtype && !has_value) {
    error(diag::PrimAnnotationEmpty{}, at);
    return nullptr;
  }
  std::optional<DataType> dtype;
  if (has_dtype) {
    TSNode d = p["dtype"];
    std::optional<std::string> s;
    if (cst().is(d, Kind::string)) s = string_value(ctx_, d);
    if (s) dtype = DataType::parse(*s);
    if (!dtype) dtype = tir_dtype_attribute(ctx_, d, &names_);
    if (!dtype) {
      error(diag::UnknownRelaxDtype{.dtype = s.value_or(text(d))}, span(d));
      return nullptr;
    }
  }
  const ir::PrimExpr* value = nullptr;
  if (has_value) {
    value = lower_dim(p["value"], mode, dtype ? *dtype : DataType::Int(64));
    if (!value) return nullptr;
    if (!dtype) dtype = value->dtype;
  }
  return make<ir::PrimSInfo>(*dtype, value, at);
}

// R.Tuple(*fields) or R.Tuple([fields])
const ir::StructInfo* FunctionLowerer::lower_tuple_sinfo(TSNode node, TSNode args_node,
                                                         SInfoMode mode) {
  std::vector<const ir::StructInfo*> fields;
  if (!ts_node_is_null(args_node)) {
    std::vector<TSNode> items = cst().named_children(args_node);
    for (TSNode item : items) {
      if (cst().is(item, Kind::keyword_argument)) {
        error(diag::UnexpectedKeywordArgument{.callee = "R.Tuple",
                                              .keyword = text(cst().field(item, Field::name))},
              span(item));
        return nullptr;
      }
    }
    if (items.size() == 1 && (cst().is(items[0], Kind::list) || cst().is(items[0], Kind::tuple)))
      items = cst().named_children(items[0]);
    for (TSNode item : items) {
      const ir::StructInfo* s = lower_sinfo(item, mode);
      if (!s) return nullptr;
      fields.push_back(s);
    }
  }
  return make<ir::TupleSInfo>(std::move(fields), span(node));
}

// R.Callable(params=None, ret=None, purity=None, derive_func=None)
const ir::StructInfo* FunctionLowerer::lower_callable_sinfo(TSNode node, TSNode args_node,
                                                            SInfoMode mode) {
  Span at = span(node);
  std::unordered_map<std::string, TSNode> p;
  if (!ts_node_is_null(args_node)) {
    CallArgs args = split_args(node);
    if (!bind_params(node, args, {"params", "ret", "purity", "derive_func"}, p, "R.Callable"))
      return nullptr;
  }
  std::optional<std::vector<const ir::StructInfo*>> params;
  if (p.count("params") && !cst().is(p["params"], Kind::none)) {
    TSNode ps = p["params"];
    std::vector<TSNode> items;
    if (cst().is(ps, Kind::list) || cst().is(ps, Kind::tuple))
      items = cst().named_children(ps);
    else
      items = {ps};
    params.emplace();
    for (TSNode item : items) {
      const ir::StructInfo* s = lower_sinfo(item, mode);
      if (!s) return nullptr;
      params->push_back(s);
    }
  }
  const ir::StructInfo* ret = nullptr;
  if (p.count("ret") && !cst().is(p["ret"], Kind::none)) {
    ret = lower_sinfo(p["ret"], mode);
    if (!ret) return nullptr;
  }
  if (!ret) ret = make<ir::ObjectSInfo>(at);
  bool purity = params.has_value();
  if (p.count("purity") && !cst().is(p["purity"], Kind::none)) {
    TSNode v = p["purity"];
    if (!is_type(v, "true") && !is_type(v, "false")) {
      error(diag::PurityNotBoolean{.value = text(v)}, span(v));
      return nullptr;
    }
    purity = is_type(v, "true");
  }
  std::string derive;
  if (p.count("derive_func") && !cst().is(p["derive_func"], Kind::none)) {
    std::optional<std::string> s;
    if (cst().is(p["derive_func"], Kind::string)) s = string_value(ctx_, p["derive_func"]);
    if (!s) {
      error(diag::StringLiteralExpected{.what = "R.Callable derive_func"}, span(p["derive_func"]));
      return nullptr;
    }
    derive = *s;
  }
  return make<ir::FuncSInfo>(std::move(params), ret, purity, std::move(derive), at);
}

std::optional<std::vector<const ir::PrimExpr*>> FunctionLowerer::lower_dims(TSNode list,
                                                                            SInfoMode mode) {
  std::vector<const ir::PrimExpr*> dims;
  bool ok = true;
  for (TSNode item : cst().named_children(list)) {
    const ir::PrimExpr* e = lower_dim(item, mode, DataType::Int(64));
    if (e && !e->dtype.is_integer()) {
      error(diag::NonIntegerDimension{.dimension = text(item), .dtype = e->dtype.str()},
            span(item));
      e = nullptr;
    }
    if (e && e->dtype != DataType::Int(64)) e = cast_prim(ctx_, DataType::Int(64), e, span(item));
    ok = ok && e;
    dims.push_back(e);
  }
  if (!ok) return std::nullopt;
  return dims;
}

// One dimension / prim value of an annotation (§4.5).
const ir::PrimExpr* FunctionLowerer::lower_dim(TSNode node, SInfoMode mode,
                                               DataType literal_default) {
  bool signature = mode == SInfoMode::Signature || mode == SInfoMode::Return;
  if (cst().is(node, Kind::string)) {
    std::optional<std::string> s = string_value(ctx_, node);
    if (!s) return nullptr;
    if (!signature) {
      error(diag::QuotedDimensionOutsideSignature{.dimension = *s}, span(node));
      return nullptr;
    }
    if (is_identifier(*s)) {
      if (auto found = signature_vars_.find(*s); found != signature_vars_.end())
        record_name(quoted_name(node), found->second);
      else if (const Name* n = lookup(*s); n && n->kind == Name::Kind::Sym)
        record_name(quoted_name(node), n->sym->var);
      auto it = signature_vars_.find(*s);
      if (it != signature_vars_.end()) return it->second;
      if (const Name* n = lookup(*s); n && n->kind == Name::Kind::Sym) return n->sym->var;
      error(diag::ReturnAnnotationIntroducesVar{.name = *s}, span(node));
      return nullptr;
    }
    names_.unbound_uses.clear();
    const ir::PrimExpr* e = lower_prim_string(ctx_, node, names_);
    report_unbound(span(node));
    return e;
  }
  if (mode == SInfoMode::MatchCast && cst().is(node, Kind::identifier)) {
    const Name* n = lookup(cst().text(node));
    if (n && n->kind == Name::Kind::Sym && !n->sym->bound) {
      // Shape dimensions are int64: another integer variable could only stand there cast,
      // and a cast binds nothing (TVM rejects such a shape).
      if (n->sym->var->dtype.is_integer() && n->sym->var->dtype != DataType::Int(64)) {
        error(diag::MatchCastBindsNonInt64Var{.name = std::string(cst().text(node)),
                                              .dtype = n->sym->var->dtype.str()},
              span(node));
        return nullptr;
      }
      n->sym->bound = true;  // the match_cast binds it (§5.4)
      record_name(span(node), n->sym->var);
      return n->sym->var;
    }
  }
  if (mode == SInfoMode::Signature && cst().is(node, Kind::identifier)) {
    auto it = signature_vars_.find(text(node));
    if (it != signature_vars_.end()) {
      record_name(span(node), it->second);
      return it->second;
    }
  }
  ScopeNames* names = &names_;
  names->signature = signature ? &signature_vars_ : nullptr;
  const ir::PrimExpr* e = lower_prim(node, literal_default);
  names->signature = nullptr;
  return e;
}

const ir::VDevice* FunctionLowerer::resolve_vdevice(TSNode node) {
  std::optional<std::string> s;
  if (cst().is(node, Kind::string)) s = string_value(ctx_, node);
  if (!s) {
    error(diag::MalformedVDevice{.vdevice = text(node)}, span(node));
    return nullptr;
  }
  // "kind", "kind:i", "kind:i:scope", "vdevice:i" (§4.3, §10 item 15)
  std::string kind = *s;
  int64_t index = 0;
  size_t colon = s->find(':');
  if (colon != std::string::npos) {
    kind = s->substr(0, colon);
    std::string rest = s->substr(colon + 1);
    size_t colon2 = rest.find(':');
    if (colon2 != std::string::npos) rest = rest.substr(0, colon2);
    std::optional<IntLiteral> i = parse_int_literal(rest);
    if (!i || i->overflow) {
      error(diag::MalformedVDevice{.vdevice = *s}, span(node));
      return nullptr;
    }
    index = int64_t(i->magnitude);
  }
  const auto& list = ctx_.module.vdevices;
  if (kind == "vdevice") {
    if (index < int64_t(list.size())) return list[size_t(index)];
  } else {
    int64_t seen = 0;
    for (const ir::VDevice* v : list)
      if (v->target_kind == kind && seen++ == index) return v;
  }
  error(diag::UnknownVDevice{.vdevice = *s, .vdevice_count = list.size()}, span(node));
  return nullptr;
}

// ------------------------------------------------------------------------------ signature

void FunctionLowerer::introduce_signature_var(std::string name, Span at, bool bare) {
  if (signature_vars_.count(name)) return;
  if (bare) {
    if (const Name* n = lookup(name)) {
      (void)n;
      return;  // an outer function's variable
    }
    error(diag::UndeclaredSignatureName{.name = name}, at);
  }
  signature_vars_[name] = make<ir::PrimVar>(name, DataType::Int(64), at);
  signature_order_.push_back(name);
}

// First pass over the parameter annotations: every identifier string in a dimension position
// introduces a variable, in any order (§4.5).
void FunctionLowerer::collect_signature_vars(TSNode node, bool in_dims) {
  if (ts_node_is_null(node)) return;
  if (in_dims) {
    TSNode u = unparen(cst(), node);
    if (cst().is(u, Kind::string)) {
      std::string error_text;
      std::optional<std::string> s = decode_string(cst(), u, &error_text);
      if (s && is_identifier(*s)) introduce_signature_var(*s, span(u), false);
    } else {
      bare_dims_.push_back(u);  // checked once every string variable is known
    }
    return;
  }
  if (!cst().is(node, Kind::call)) return;
  std::string path = relax_path(cst().field(node, Field::function));
  CallArgs args;
  for (TSNode a : cst().named_children(cst().field(node, Field::arguments))) {
    if (cst().is(a, Kind::keyword_argument))
      args.keywords.emplace_back(text(cst().field(a, Field::name)), cst().field(a, Field::value));
    else
      args.positional.push_back(a);
  }
  auto arg = [&](size_t pos, std::string_view key) -> TSNode {
    for (auto& [k, v] : args.keywords)
      if (k == key) return v;
    return pos < args.positional.size() ? args.positional[pos] : TSNode{};
  };
  auto dims = [&](TSNode list) {
    if (ts_node_is_null(list)) return;
    TSNode u = unparen(cst(), list);
    if (cst().is(u, Kind::tuple) || cst().is(u, Kind::list))
      for (TSNode item : cst().named_children(u)) collect_signature_vars(item, true);
  };
  if (path == "Tensor") {
    dims(arg(0, "shape"));
  } else if (path == "Shape") {
    dims(arg(0, "values"));
  } else if (path == "Prim") {
    TSNode v = arg(1, "value");
    if (!ts_node_is_null(v)) collect_signature_vars(v, true);
  } else if (path == "Tuple" || path == "Callable") {
    for (TSNode a : args.positional) {
      if (cst().is(a, Kind::list) || cst().is(a, Kind::tuple)) {
        for (TSNode item : cst().named_children(a)) collect_signature_vars(item, false);
      } else {
        collect_signature_vars(a, false);
      }
    }
    for (auto& [k, v] : args.keywords) {
      if (cst().is(v, Kind::list) || cst().is(v, Kind::tuple)) {
        for (TSNode item : cst().named_children(v)) collect_signature_vars(item, false);
      } else {
        collect_signature_vars(v, false);
      }
    }
  }
}

// Bare names in signature dimensions (`R.Tensor((n, 4))`) would be a NameError in TVM; they are
// accepted as if quoted, with a warning (§4.5).
void FunctionLowerer::collect_bare_dim_names(TSNode node) {
  if (ts_node_is_null(node)) return;
  if (cst().is(node, Kind::identifier)) {
    TSNode parent = ts_node_parent(node);
    if (cst().is(parent, Kind::attribute)) return;  // a prefix or attribute name
    if (cst().is(parent, Kind::keyword_argument) &&
        ts_node_eq(cst().field(parent, Field::name), node))
      return;
    if (cst().is(parent, Kind::call) && ts_node_eq(cst().field(parent, Field::function), node))
      return;
    std::string name = text(node);
    if (signature_vars_.count(name) || lookup(name)) return;
    if (ctx_.namespaces.find(name)) return;
    // Only dimension positions: an identifier as the shape argument of R.Tensor is a Relax
    // shape variable, not a dimension.
    introduce_signature_var(name, span(node), true);
    return;
  }
  if (cst().is(node, Kind::string)) return;
  for (TSNode child : cst().named_children(node)) collect_bare_dim_names(child);
}

}  // namespace raxc::lower
