// TIR lowering: buffers (text-format.md §6.2, §6.7): T.Buffer parameters and declarations,
// T.match_buffer, T.alloc_buffer, regions of T.reads/T.writes, and stores into buffers.
#include "frontend/lower/tir_lowerer.h"

namespace raxc::lower::tir_lowering {

namespace {

// Positional parameter order of TVM's buffer constructors after the leading arguments.
constexpr const char* kBufferKeys[] = {"shape",       "dtype",          "data",  "strides",
                                       "elem_offset", "scope",          "align", "offset_factor",
                                       "buffer_type", "axis_separators"};

}  // namespace

ir::Buffer* TirLowerer::make_buffer(const std::string& name, TSNode call, const Args& args,
                                    size_t first, const std::string& what) {
  auto* buffer = ctx_.make<ir::Buffer>();
  buffer->name = name;
  buffer->dtype = DataType::Float(32);
  buffer->span = span(call);
  std::vector<std::pair<std::string, TSNode>> given;
  size_t count = std::size(kBufferKeys);
  for (size_t i = first; i < args.positional.size(); ++i) {
    if (i - first >= count) {
      error(
          diag::InvalidTirConstruct{.construct = what, .problem = "too many positional arguments"},
          args.positional[i]);
      return nullptr;
    }
    given.emplace_back(kBufferKeys[i - first], args.positional[i]);
  }
  for (auto& kw : args.keywords) given.push_back(kw);
  bool ok = true;
  bool has_shape = false;
  for (auto& [key, node] : given) {
    if (key == "shape") {
      has_shape = true;
      ok &= shape_list(node, buffer->shape);
    } else if (key == "dtype") {
      auto dt = dtype_value(node);
      ok &= dt.has_value();
      if (dt) buffer->dtype = *dt;
    } else if (key == "strides") {
      if (!cst_.is(node, Kind::none)) ok &= shape_list(node, buffer->strides);
    } else if (key == "elem_offset") {
      if (!cst_.is(node, Kind::none)) {
        buffer->elem_offset = expr(node);
        ok &= buffer->elem_offset != nullptr;
      }
    } else if (key == "scope") {
      auto s = string_value(node);
      if (s)
        buffer->scope = *s;
      else
        ok = bad(node, what, "scope must be a string");
    } else if (key == "align" || key == "offset_factor") {
      auto v = int_value(node);
      if (v)
        (key == "align" ? buffer->align : buffer->offset_factor) = *v;
      else
        ok = bad(node, what, key + " must be an integer");
    } else if (key == "buffer_type") {
      auto s = string_value(node);
      if (s && (*s == "auto" || *s == "default" || s->empty()))
        buffer->buffer_type = *s == "auto" ? "auto" : "";
      else
        ok = bad(node, what, "buffer_type must be \"auto\" or \"default\"");
    } else if (key == "axis_separators") {
      if (cst_.is(node, Kind::none)) continue;
      if (!cst_.is(node, Kind::list) && !cst_.is(node, Kind::tuple)) {
        ok = bad(node, what, "axis_separators must be a list of integers");
        continue;
      }
      for (TSNode item : cst_.named_children(node)) {
        auto v = int_value(item);
        if (v)
          buffer->axis_separators.push_back(*v);
        else
          ok = bad(item, what, "axis_separators must be a list of integers");
      }
    } else if (key == "data") {
      if (cst_.is(node, Kind::none)) continue;
      error(diag::UnsupportedByRaxc{.construct = what + "(data=...)"}, node);
      ok = false;
    } else {
      error(
          diag::InvalidTirConstruct{.construct = what, .problem = "unknown argument '" + key + "'"},
          node);
      ok = false;
    }
  }
  if (!has_shape && what != "T.match_buffer") {
    error(diag::InvalidTirConstruct{.construct = what, .problem = "missing the shape argument"},
          call);
    ok = false;
  }
  return ok ? buffer : nullptr;
}

bool TirLowerer::bad(TSNode node, const std::string& what, const std::string& why) {
  error(diag::InvalidTirConstruct{.construct = what, .problem = why}, node);
  return false;
}

bool TirLowerer::shape_list(TSNode node, std::vector<const ir::PrimExpr*>& out) {
  std::vector<TSNode> dims;
  if (cst_.is(node, Kind::tuple) || cst_.is(node, Kind::list)) {
    dims = cst_.named_children(node);
  } else {
    dims.push_back(node);
  }
  bool ok = true;
  for (TSNode d : dims) {
    const ir::PrimExpr* e = expr(d);
    if (e && !e->dtype.is_integer()) {
      error(diag::InvalidTirConstruct{.construct = "buffer shape",
                                      .problem =
                                          "dimensions must be integers, not " + e->dtype.str()},
            d);
      e = nullptr;
    }
    ok &= e != nullptr;
    out.push_back(e);
  }
  return ok;
}

std::optional<ir::BufferRegion> TirLowerer::region(TSNode node) {
  ir::BufferRegion r;
  r.span = span(node);
  TSNode target = cst_.is(node, Kind::subscript) ? cst_.field(node, Field::value) : node;
  if (!cst_.is(target, Kind::identifier)) {
    error(diag::InvalidTirConstruct{.construct = "buffer region",
                                    .problem = "expected A[...] or a buffer name"},
          node);
    return std::nullopt;
  }
  r.buffer = find_buffer(target);
  if (!r.buffer) return std::nullopt;
  if (!cst_.is(node, Kind::subscript)) {
    for (const ir::PrimExpr* dim : r.buffer->shape)
      r.region.push_back({int_imm(dim ? dim->dtype : DataType::Int(32), 0, r.span), dim, r.span});
    return r;
  }
  std::vector<TSNode> items = cst_.fields(node, Field::subscript);
  if (items.size() == 1 && cst_.is(items[0], Kind::tuple)) items = cst_.named_children(items[0]);
  if (items.size() != r.buffer->shape.size()) {
    error(
        diag::BufferIndexCountMismatch{
            .buffer = r.buffer->name, .ndim = r.buffer->shape.size(), .index_count = items.size()},
        node);
    return std::nullopt;
  }
  bool ok = true;
  for (size_t d = 0; d < items.size(); ++d) {
    auto range = region_index(items[d], r.buffer->shape[d]);
    if (!range)
      ok = false;
    else
      r.region.push_back(*range);
  }
  if (!ok) return std::nullopt;
  return r;
}

std::optional<ir::PrimRange> TirLowerer::region_index(TSNode item, const ir::PrimExpr* dim) {
  Span sp = span(item);
  if (!cst_.is(item, Kind::slice)) {
    const ir::PrimExpr* e = expr(item);
    if (!e) return std::nullopt;
    return ir::PrimRange{e, int_imm(e->dtype, 1, sp), sp};
  }
  TSNode start = cst_.field(item, Field::start), stop = cst_.field(item, Field::stop);
  if (!ts_node_is_null(cst_.field(item, Field::step))) {
    error(diag::InvalidTirConstruct{.construct = "buffer region",
                                    .problem = "slices with a step are not supported"},
          item);
    return std::nullopt;
  }
  const ir::PrimExpr* lo = ts_node_is_null(start) ? nullptr : expr(start);
  const ir::PrimExpr* hi = ts_node_is_null(stop) ? dim : expr(stop);
  if ((!ts_node_is_null(start) && !lo) || !hi) return std::nullopt;
  if (!lo) lo = int_imm(hi->dtype, 0, sp);
  // A bare literal bound adopts the other bound's dtype (A[i:i + 4] with int64 i).
  if (!ts_node_is_null(start) && is_bare_int(start)) lo = cast(hi->dtype, lo, sp);
  if (!ts_node_is_null(stop) && is_bare_int(stop)) hi = cast(lo->dtype, hi, sp);
  return ir::PrimRange{lo, difference(hi, lo, sp), sp};
}

const ir::PrimExpr* TirLowerer::difference(const ir::PrimExpr* hi, const ir::PrimExpr* lo,
                                           Span sp) {
  if (hi->dtype != lo->dtype) {
    DataType wide = hi->dtype.bits >= lo->dtype.bits ? hi->dtype : lo->dtype;
    hi = cast(wide, hi, sp);
    lo = cast(wide, lo, sp);
  }
  const auto* l = ir::dyn_cast<ir::IntImm>(lo);
  const auto* h = ir::dyn_cast<ir::IntImm>(hi);
  if (l && l->value == 0) return hi;
  if (l && h) return int_imm(hi->dtype, h->value - l->value, sp);
  // `(i + 4) - i` is common in regions: fold `x + c - x`.
  if (const auto* add = ir::dyn_cast<ir::PrimBinary>(hi);
      add && add->kind == ir::PrimKind::Add && add->a == lo)
    return add->b;
  return ctx_.make<ir::PrimBinary>(ir::PrimKind::Sub, hi->dtype, hi, lo, sp);
}

const ir::Buffer* TirLowerer::find_buffer(TSNode name) {
  std::string_view n = cst_.text(name);
  if (const ir::Buffer* b = names_.find_buffer(n)) return b;
  if (names_.find_var(n) || names_.find_expr(n)) {
    error(diag::NameNotBuffer{.name = std::string(n)}, name);
  } else {
    error(diag::UndefinedTirName{.name = std::string(n)}, name);
  }
  return nullptr;
}

void TirLowerer::store(TSNode left, TSNode right, TSNode node, std::vector<const ir::Stmt*>& out) {
  TSNode target = cst_.field(left, Field::value);
  if (!cst_.is(target, Kind::identifier)) {
    error(diag::UnsupportedInTirFunction{.construct = "assignment to '" + text(left) + "'"}, left);
    return;
  }
  const ir::Buffer* buffer = find_buffer(target);
  if (!buffer) return;
  auto indices = lower_buffer_indices(ctx_, left, buffer, names_);
  const ir::PrimExpr* value = expr(right, buffer->dtype);
  if (!indices || !value) return;
  value = cast(buffer->dtype, value, span(right));
  out.push_back(ctx_.make<ir::BufferStore>(buffer, value, std::move(*indices), span(node)));
}

void TirLowerer::augmented(TSNode node, std::vector<const ir::Stmt*>& out) {
  TSNode left = cst_.field(node, Field::left);
  TSNode right = cst_.field(node, Field::right);
  std::string op(cst_.text(ts_node_child_by_field_name(node, "operator", 8)));
  if (!op.empty() && op.back() == '=') op.pop_back();
  const ir::Buffer* buffer = nullptr;
  std::vector<const ir::PrimExpr*> indices;
  if (cst_.is(left, Kind::subscript) && cst_.is(cst_.field(left, Field::value), Kind::identifier)) {
    buffer = find_buffer(cst_.field(left, Field::value));
    if (!buffer) return;
    auto idx = lower_buffer_indices(ctx_, left, buffer, names_);
    if (!idx) return;
    indices = std::move(*idx);
  } else if (cst_.is(left, Kind::identifier)) {
    const auto* load = ir::dyn_cast<ir::BufferLoad>(names_.find_expr(cst_.text(left)));
    if (!load) {
      if (!names_.find_var(cst_.text(left)) && !names_.find_buffer(cst_.text(left)))
        error(diag::UndefinedTirName{.name = text(left)}, left);
      else
        error(diag::UnsupportedInTirFunction{.construct = "'" + std::string(op) +
                                                          "=' on immutable '" + text(left) + "'"},
              node);
      return;
    }
    buffer = load->buffer;
  } else {
    error(diag::UnsupportedInTirFunction{.construct = "assignment to '" + text(left) + "'"}, left);
    return;
  }
  const ir::PrimExpr* current =
      ctx_.make<ir::BufferLoad>(buffer->dtype, buffer, indices, span(left));
  const ir::PrimExpr* value =
      lower_prim_update(ctx_, current, op, right, names_, IntMode::Int32, span(node));
  if (!value) return;
  value = cast(buffer->dtype, value, span(node));
  out.push_back(ctx_.make<ir::BufferStore>(buffer, value, std::move(indices), span(node)));
}

void TirLowerer::match_buffer(TSNode left, TSNode call, Where where) {
  Args args = args_of(call);
  TSNode source = args.positional.empty() ? args.find("param") : args.positional[0];
  if (ts_node_is_null(source)) {
    error(diag::InvalidTirConstruct{.construct = "T.match_buffer",
                                    .problem = "missing the source handle or region"},
          call);
    return;
  }
  std::string n = text(left);
  if (cst_.is(source, Kind::subscript)) {
    if (where != Where::BlockBody || !block_) {
      error(diag::TirConstructMisplaced{.construct = "T.match_buffer of a buffer region",
                                        .allowed_place = "directly in a block"},
            call);
      return;
    }
    auto src = region(source);
    ir::Buffer* buffer = make_buffer(n, call, args, 1, "T.match_buffer");
    if (!src || !buffer) return;
    if (buffer->shape.empty())
      for (auto& r : src->region) buffer->shape.push_back(r.extent);
    block_->block->match_buffers.push_back({buffer, *src});
    define(left, TirNames::Entry{nullptr, buffer, nullptr, false});
    return;
  }
  if (where != Where::FunctionTop) {
    error(diag::TirConstructMisplaced{.construct = "T.match_buffer of a handle",
                                      .allowed_place = "at the top of the function"},
          call);
    return;
  }
  const TirNames::Entry* entry =
      cst_.is(source, Kind::identifier) ? names_.find(cst_.text(source)) : nullptr;
  if (!entry || !entry->var || !entry->is_handle_param) {
    if (cst_.is(source, Kind::identifier) && !entry)
      error(diag::UndefinedTirName{.name = text(source)}, source);
    else
      error(diag::MatchBufferSourceNotHandle{.source = text(source)}, source);
    return;
  }
  for (auto& [handle, b] : func_->buffer_map) {
    if (handle == entry->var) {
      error(diag::HandleMatchedTwice{.handle = text(source)}, source);
      return;
    }
  }
  ir::Buffer* buffer = make_buffer(n, call, args, 1, "T.match_buffer");
  if (!buffer) return;
  if (!has_shape_arg(args)) {
    error(diag::InvalidTirConstruct{.construct = "T.match_buffer",
                                    .problem = "missing the shape argument"},
          call);
    return;
  }
  func_->buffer_map.emplace_back(entry->var, buffer);
  define(left, TirNames::Entry{nullptr, buffer, nullptr, false});
}

bool TirLowerer::has_shape_arg(const Args& args) {
  if (args.positional.size() >= 2) return true;
  for (auto& [k, v] : args.keywords)
    if (k == "shape") return true;
  return false;
}

void TirLowerer::alloc_buffer(TSNode left, TSNode call, Where where, const std::string& what,
                              std::vector<const ir::Stmt*>& out) {
  ir::Buffer* buffer = make_buffer(text(left), call, args_of(call), 0, "T." + what);
  if (!buffer) return;
  if (!define(left, TirNames::Entry{nullptr, buffer, nullptr, false})) return;
  if (where == Where::FunctionTop) {
    root_allocs_.push_back(buffer);
  } else if (where == Where::BlockBody && block_) {
    block_->block->alloc_buffers.push_back(buffer);
  } else {
    out.push_back(ctx_.make<ir::AllocBufferStmt>(buffer, span(call)));
  }
}

}  // namespace raxc::lower::tir_lowering
