// TIR lowering: one `@T.prim_func` definition → ir::PrimFunc (text-format.md §6, §9, §10 items
// 20–22). Accepts classic-A (`T.block`, `T.alloc_buffer`, `tir.noalias`) and classic-B / v0.25
// (`T.sblock`, `T.sblock_alloc_buffer`, `x: T.let[...]`, tuple-form asserts) spellings.
//
// This file: the entry point and the signature (decorator, parameters, return type); the other
// sections of the class are listed in tir_lowerer.h.
#include "frontend/lower/tir_lowerer.h"

namespace raxc::lower::tir_lowering {

const ir::PrimFunc* TirLowerer::lower(TSNode def) {
  func_ = ctx_.make<ir::PrimFunc>();
  func_->span = cst_.span(def);
  TSNode name = cst_.field(def, Field::name);
  func_->name_span = cst_.span(name);
  name_ = std::string(cst_.text(name));
  decorator(def);
  names_.push();
  params(cst_.field(def, Field::parameters));
  return_type(def);
  std::vector<const ir::Stmt*> body;
  TSNode suite = cst_.field(def, Field::body);
  if (!ts_node_is_null(suite)) stmts(cst_.named_children(suite), 0, Where::FunctionTop, body);
  names_.pop();
  func_->body = root(body);
  if (func_->is_private && func_->attrs.find("global_symbol"))
    error(diag::PrivatePrimFuncWithGlobalSymbol{.function = name_},
          func_->attrs.find("global_symbol")->span);
  return func_;
}

void TirLowerer::decorator(TSNode def) {
  for (TSNode deco : cst_.fields(def, Field::decorator)) {
    TSNode value = cst_.field(deco, Field::value);
    if (!cst_.is(value, Kind::call)) continue;
    Args args = args_of(value);
    for (TSNode p : args.positional) error(diag::UnknownPrimFuncArgument{.argument = text(p)}, p);
    for (auto& [key, v] : args.keywords) {
      auto b = bool_value(v);
      if (key == "private" && b) {
        func_->is_private = *b;
      } else if (key == "s_tir" && b) {
        func_->s_tir = *b;
      } else if ((key == "private" || key == "s_tir") && !b) {
        error(diag::InvalidTirConstruct{.construct = "@T.prim_func(" + key + "=...)",
                                        .problem = "expected True or False"},
              v);
      } else {
        error(diag::UnknownPrimFuncArgument{.argument = key}, v);
      }
    }
  }
}

void TirLowerer::params(TSNode list) {
  if (ts_node_is_null(list)) return;
  std::vector<TSNode> nodes;
  for (TSNode p : cst_.named_children(list))
    if (cst_.is(p, Kind::parameter)) nodes.push_back(p);
  // Two passes: buffer shapes may use scalar parameters written after them.
  std::vector<std::optional<ir::PrimFuncParam>> result(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) result[i] = scalar_param(nodes[i]);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!result[i]) result[i] = buffer_param(nodes[i]);
  for (auto& p : result)
    if (p) func_->params.push_back(*p);
}

TSNode TirLowerer::annotation_value(TSNode param) {
  TSNode ann = cst_.field(param, Field::annotation);
  return ts_node_is_null(ann) ? ann : cst_.field(ann, Field::value);
}

bool TirLowerer::define(TSNode name_node, TirNames::Entry entry) {
  std::string n = text(name_node);
  if (names_.defined_here(n)) {
    error(diag::TirNameRedefined{.name = n}, name_node);
    return false;
  }
  names_.define(std::move(n), entry);
  return true;
}

std::optional<ir::PrimFuncParam> TirLowerer::scalar_param(TSNode param) {
  TSNode name = cst_.field(param, Field::name);
  TSNode ann = annotation_value(param);
  std::string n = text(name);
  std::optional<DataType> dt;
  if (ts_node_is_null(ann)) {
    error(diag::PrimFuncParamMissingType{.param = n}, param);
    return ir::PrimFuncParam{ctx_.make<ir::PrimVar>(n, DataType::Handle(), span(name)), nullptr,
                             span(param)};
  }
  std::string p = path(ann);
  if (p == "handle" || p == "Ptr") {
    dt = DataType::Handle();
  } else if (p == "Buffer") {
    return std::nullopt;  // second pass
  } else if (cst_.is(ann, Kind::attribute)) {
    dt = tir_dtype_attribute(ctx_, ann, &names_);
  }
  if (!dt) {
    error(diag::PrimFuncParamMissingType{.param = n}, ann);
    dt = DataType::Handle();
  }
  const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, *dt, span(name));
  define(name, TirNames::Entry{var, nullptr, nullptr, dt->is_handle()});
  return ir::PrimFuncParam{var, nullptr, span(param)};
}

std::optional<ir::PrimFuncParam> TirLowerer::buffer_param(TSNode param) {
  TSNode name = cst_.field(param, Field::name);
  TSNode ann = annotation_value(param);
  std::string n = text(name);
  const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, DataType::Handle(), span(name));
  ir::Buffer* buffer = nullptr;
  if (cst_.is(ann, Kind::call)) {
    buffer = make_buffer(n, ann, args_of(ann), 0, "T.Buffer");
  } else {
    error(diag::InvalidTirConstruct{.construct = "T.Buffer",
                                    .problem = "expected T.Buffer(shape, dtype, ...)"},
          ann);
  }
  if (!buffer) return ir::PrimFuncParam{var, nullptr, span(param)};
  define(name, TirNames::Entry{nullptr, buffer, nullptr, false});
  func_->buffer_map.emplace_back(var, buffer);
  return ir::PrimFuncParam{var, buffer, span(param)};
}

void TirLowerer::return_type(TSNode def) {
  TSNode ann = cst_.field(def, Field::return_type);
  if (ts_node_is_null(ann)) return;
  TSNode value = cst_.field(ann, Field::value);
  if (cst_.is(value, Kind::none)) return;
  if (auto dt = tir_dtype_attribute(ctx_, value, &names_)) {
    func_->ret_type = *dt;
    return;
  }
  error(diag::InvalidPrimFuncReturnType{.annotation = text(value)}, value);
}

}  // namespace raxc::lower::tir_lowering

namespace raxc::lower {

const ir::PrimFunc* lower_prim_func(LowerContext& ctx, TSNode prim_function) {
  tir_lowering::TirLowerer lowerer(ctx);
  return lowerer.lower(prim_function);
}

}  // namespace raxc::lower
