// PrimExpr lowering (text-format.md §1 prim_expr, §4.6, §6.4–6.6, §10 items 6 and 21).
//
// Sub-expressions made only of Python literals are folded the way Python evaluates them before
// TVM ever sees them (`2 * 3` is the int 6). A literal becomes a PrimExpr only when it meets a
// PrimExpr operand, whose dtype it adopts (TVMScript's `_auto_broadcast`), or at the end, where
// it takes the mode's default dtype (int32 in TIR, int64 in Relax shapes; float32 for floats).
//
// This file: the entry points, dispatch by node kind, atoms (literals, names) and buffer loads;
// the other sections of the class are listed in prim_lowerer.h.
#include <memory>

#include "frontend/lower/prim_lowerer.h"

namespace raxc::lower::prim_lowering {

const ir::PrimExpr* PrimLowerer::lower(TSNode node, std::optional<DataType> literal_dtype) {
  Result v = value(node);
  if (!v) return nullptr;
  return to_expr(*v, literal_dtype);
}

const ir::PrimExpr* PrimLowerer::update(const ir::PrimExpr* lhs, std::string_view op, TSNode rhs,
                                        Span span) {
  Result b = value(rhs);
  if (!b) return nullptr;
  const BinOp* bin = find_binop(op);
  if (!bin || op == "and" || op == "or" || is_comparison(bin->kind)) {
    error(diag::UnsupportedPrimOperator{.op = std::string(op) + "="}, span);
    return nullptr;
  }
  Result r = binary(*bin, Val::of(lhs), *b, span);
  return r ? to_expr(*r, std::nullopt) : nullptr;
}

Span PrimLowerer::span(TSNode node) const {
  Span s = cst_.span(node);
  s.begin = uint32_t(int64_t(s.begin) + shift_);
  s.end = uint32_t(int64_t(s.end) + shift_);
  if (!clamp_.empty()) {
    if (s.begin < clamp_.begin || s.begin > clamp_.end) s.begin = clamp_.begin;
    if (s.end > clamp_.end || s.end < s.begin) s.end = clamp_.end;
  }
  return s;
}

void PrimLowerer::error(DiagPayload what, Span span) {
  ctx_.diags.report(make_diagnostic(std::move(what), span));
}

Result PrimLowerer::value(TSNode node) {
  switch (cst_.kind(node)) {
    case Kind::integer: return integer(node);
    case Kind::string:
    case Kind::concatenated_string: return string(node);
    case Kind::identifier: return name(node);
    case Kind::parenthesized_expression: return value(cst_.field(node, Field::value));
    case Kind::unary_operator: return unary(node);
    case Kind::not_operator: return logical_not(node);
    case Kind::binary_operator:
    case Kind::boolean_operator: return binary_node(node);
    case Kind::comparison_operator: return comparison(node);
    case Kind::subscript: return load(node);
    case Kind::call: return call(node);
    case Kind::none: return unsupported(node, "None");
    case Kind::tuple: return unsupported(node, "a tuple");
    case Kind::list: return unsupported(node, "a list");
    case Kind::dictionary: return unsupported(node, "a dictionary");
    case Kind::lambda: return unsupported(node, "a lambda");
    case Kind::conditional_expression:
      return unsupported(node, "a conditional expression (use T.Select or T.if_then_else)");
    case Kind::attribute: return unsupported(node, "'" + text(node) + "' without a call");
    case Kind::slice: {
      error(diag::SliceOutsideBufferRegion{}, span(node));
      return std::nullopt;
    }
    default: break;
  }
  // `float`, `true`, `false` are C++ keywords, so they are matched by type name.
  std::string_view type = ts_node_type(node);
  if (type == "float") return real(node);
  if (type == "true") return Val::boolean(true, span(node));
  if (type == "false") return Val::boolean(false, span(node));
  return unsupported(node, "'" + text(node) + "'");
}

Result PrimLowerer::unsupported(TSNode node, std::string what) {
  error(diag::NotAllowedInPrimExpr{.construct = std::move(what)}, span(node));
  return std::nullopt;
}

Result PrimLowerer::integer(TSNode node) {
  auto lit = parse_int_literal(cst_.text(node));
  if (!lit) {
    error(diag::InvalidNumberLiteral{.literal = text(node)}, span(node));
    return std::nullopt;
  }
  if (lit->overflow) {
    error(diag::PrimValueOutOfRange{.value = text(node), .target = "a 64-bit integer"}, span(node));
    return std::nullopt;
  }
  return Val::integer(Int(lit->magnitude), span(node));
}

Result PrimLowerer::real(TSNode node) {
  auto f = parse_float_literal(cst_.text(node));
  if (!f) {
    error(diag::InvalidNumberLiteral{.literal = text(node)}, span(node));
    return std::nullopt;
  }
  return Val::real(*f, span(node));
}

Result PrimLowerer::string(TSNode node) {
  std::string why;
  auto s = decode_string(cst_, node, &why);
  if (!s) {
    error(diag::InvalidPrimStringLiteral{.reason = why}, span(node));
    return std::nullopt;
  }
  Val v;
  v.tag = Val::Tag::Str;
  v.s = std::move(*s);
  v.span = span(node);
  return v;
}

Result PrimLowerer::name(TSNode node) {
  std::string_view n = cst_.text(node);
  if (const ir::PrimExpr* alias = names_.find_expr(n)) return Val::of(alias);
  if (const ir::PrimVar* var = names_.find_var(n)) {
    // Only a Relax function's names are recorded (LowerContext::source_map).
    if (ctx_.source_map) ctx_.source_map->record(span(node), var);
    Val v = Val::of(var);
    v.span = span(node);
    return v;
  }
  if (names_.find_buffer(n)) {
    error(diag::BufferUsedAsScalar{.buffer = std::string(n)}, span(node));
    return std::nullopt;
  }
  error(diag::UndefinedTirName{.name = std::string(n)}, span(node));
  return std::nullopt;
}

Result PrimLowerer::load(TSNode node) {
  TSNode target = cst_.field(node, Field::value);
  if (!cst_.is(target, Kind::identifier)) {
    return unsupported(node, "subscript of '" + text(target) + "'");
  }
  std::string_view n = cst_.text(target);
  const ir::Buffer* buffer = names_.find_buffer(n);
  if (!buffer) {
    if (names_.find_var(n) || names_.find_expr(n)) {
      error(diag::NameNotBuffer{.name = std::string(n)}, span(target));
    } else {
      error(diag::UndefinedTirName{.name = std::string(n)}, span(target));
    }
    return std::nullopt;
  }
  auto indices = buffer_indices(node, buffer);
  if (!indices) return std::nullopt;
  return Val::of(make<ir::BufferLoad>(buffer->dtype, buffer, std::move(*indices), span(node)));
}

std::optional<std::vector<const ir::PrimExpr*>> PrimLowerer::buffer_indices(
    TSNode subscript, const ir::Buffer* buffer) {
  std::vector<TSNode> items = cst_.fields(subscript, Field::subscript);
  // `A[()]`: a 0-d buffer; `A[(i, j)]` is the same as `A[i, j]`.
  if (items.size() == 1 && cst_.is(items[0], Kind::tuple)) items = cst_.named_children(items[0]);
  std::vector<const ir::PrimExpr*> indices;
  bool ok = true;
  for (TSNode item : items) {
    if (cst_.is(item, Kind::slice)) {
      error(diag::SliceOutsideBufferRegion{}, span(item));
      ok = false;
      continue;
    }
    const ir::PrimExpr* e = lower(item);
    if (!e) ok = false;
    indices.push_back(e);
  }
  if (!ok) return std::nullopt;
  if (indices.size() != buffer->shape.size()) {
    error(
        diag::BufferIndexCountMismatch{
            .buffer = buffer->name, .ndim = buffer->shape.size(), .index_count = indices.size()},
        span(subscript));
    return std::nullopt;
  }
  return indices;
}

}  // namespace raxc::lower::prim_lowering

namespace raxc::lower {

using cst::Field;
using cst::Kind;
using ir::DataType;
using prim_lowering::PrimLowerer;

namespace {

// One parser per thread for lower_prim_string: creating a TSParser is not free.
struct ParserHolder {
  TSParser* parser = ts_parser_new();
  ParserHolder() { ts_parser_set_language(parser, tree_sitter_relax()); }
  ~ParserHolder() { ts_parser_delete(parser); }
};

TSParser* thread_parser() {
  thread_local ParserHolder holder;
  return holder.parser;
}

}  // namespace

const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    IntMode mode) {
  PrimLowerer lowerer(ctx, ctx.cst, names, mode);
  return lowerer.lower(node);
}

const ir::PrimExpr* lower_prim_expr(LowerContext& ctx, TSNode node, const PrimNames& names,
                                    const PrimOptions& options) {
  PrimLowerer lowerer(ctx, ctx.cst, names, options.mode);
  return lowerer.lower(node, options.literal_dtype);
}

const ir::PrimExpr* lower_prim_update(LowerContext& ctx, const ir::PrimExpr* lhs,
                                      std::string_view op, TSNode rhs, const PrimNames& names,
                                      IntMode mode, Span span) {
  PrimLowerer lowerer(ctx, ctx.cst, names, mode);
  return lowerer.update(lhs, op, rhs, span);
}

std::optional<std::vector<const ir::PrimExpr*>> lower_buffer_indices(LowerContext& ctx,
                                                                     TSNode subscript,
                                                                     const ir::Buffer* buffer,
                                                                     const PrimNames& names) {
  PrimLowerer lowerer(ctx, ctx.cst, names, IntMode::Int32);
  return lowerer.buffer_indices(subscript, buffer);
}

const ir::PrimExpr* cast_prim(LowerContext& ctx, DataType dtype, const ir::PrimExpr* value,
                              Span span) {
  struct NoNames : PrimNames {
    const ir::PrimVar* find_var(std::string_view) const override { return nullptr; }
  } none;
  PrimLowerer lowerer(ctx, ctx.cst, none, IntMode::Int32);
  return lowerer.cast(dtype, value, span);
}

const ir::PrimExpr* lower_prim_string(LowerContext& ctx, TSNode string_node,
                                      const PrimNames& names) {
  Span whole = ctx.cst.span(string_node);
  std::string why;
  auto decoded = decode_string(ctx.cst, string_node, &why);
  if (!decoded) {
    ctx.diags.report(make_diagnostic(diag::InvalidPrimStringLiteral{.reason = why}, whole));
    return nullptr;
  }
  // Spans map back exactly when the content is the raw text between the quotes (no escapes,
  // one plain string); otherwise they are clamped to the whole literal.
  std::string_view raw = ctx.cst.text(string_node);
  int64_t content_begin = -1;
  if (!ctx.cst.is(string_node, Kind::concatenated_string)) {
    size_t q = raw.find_first_of("\"'");
    size_t quote = (raw.size() >= q + 6 && raw.substr(q, 3) == std::string(3, raw[q])) ? 3 : 1;
    if (q != std::string_view::npos &&
        raw.substr(q + quote, raw.size() - q - 2 * quote) == *decoded)
      content_begin = int64_t(whole.begin + q + quote);
  }
  static constexpr std::string_view kPrefix = "_=(";
  std::string buffer;
  buffer.reserve(decoded->size() + 8);
  buffer.append(kPrefix).append(*decoded).append(")\n");
  TSParser* parser = thread_parser();
  std::unique_ptr<TSTree, void (*)(TSTree*)> tree(
      ts_parser_parse_string(parser, nullptr, buffer.data(), uint32_t(buffer.size())),
      ts_tree_delete);
  // Expected shape: source_file > binding(right: parenthesized_expression(value: expr)).
  cst::Cst mini(buffer);
  TSNode root = ts_tree_root_node(tree.get());
  TSNode expr{};
  bool ok = !ts_node_has_error(root) && !decoded->empty();
  if (ok) {
    std::vector<TSNode> stmts = mini.named_children(root);
    TSNode binding = stmts.size() == 1 ? stmts[0] : TSNode{};
    TSNode right = mini.is(binding, Kind::binding) ? mini.field(binding, Field::right) : TSNode{};
    ok = mini.is(right, Kind::parenthesized_expression);
    if (ok) expr = mini.field(right, Field::value);
    ok = ok && !ts_node_is_null(expr);
  }
  if (!ok) {
    ctx.diags.report(make_diagnostic(diag::UnparsablePrimExprString{.string = *decoded}, whole));
    return nullptr;
  }
  int64_t shift = content_begin >= 0 ? content_begin - int64_t(kPrefix.size()) : 0;
  Span clamp = content_begin >= 0
                   ? Span{uint32_t(content_begin), uint32_t(content_begin + decoded->size())}
                   : whole;
  if (content_begin < 0) shift = int64_t(whole.begin);  // clamped to `whole` below anyway
  PrimLowerer lowerer(ctx, mini, names, IntMode::Int64, shift, clamp);
  return lowerer.lower(expr);
}

std::string tir_path(const LowerContext& ctx, TSNode node, const PrimNames* names) {
  if (ctx.cst.is(node, Kind::call)) node = ctx.cst.field(node, Field::function);
  return prim_lowering::attribute_tir_path(ctx.cst, ctx.namespaces, node, names);
}

std::string prim_lowering::attribute_tir_path(const cst::Cst& cst, const Namespaces& namespaces,
                                              TSNode node, const PrimNames* names) {
  std::vector<std::string_view> parts;
  while (cst.is(node, Kind::attribute)) {
    parts.push_back(cst.text(cst.field(node, Field::attribute)));
    node = cst.field(node, Field::object);
  }
  if (!cst.is(node, Kind::identifier) || parts.empty()) return "";
  std::string_view prefix = cst.text(node);
  if (names && (names->find_var(prefix) || names->find_buffer(prefix) || names->find_expr(prefix)))
    return "";
  const Namespace* ns = namespaces.find(prefix);
  if (!ns || *ns != Namespace::Tir) return "";
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!path.empty()) path += '.';
    path += *it;
  }
  return path;
}

std::optional<DataType> tir_dtype_attribute(const LowerContext& ctx, TSNode node,
                                            const PrimNames* names) {
  if (!ctx.cst.is(node, Kind::attribute)) return std::nullopt;
  std::string path = tir_path(ctx, node, names);
  if (path.empty() || path == "void") return std::nullopt;
  return DataType::parse(path);
}

}  // namespace raxc::lower