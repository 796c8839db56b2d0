// TIR lowering: one `@T.prim_func` definition → ir::PrimFunc (text-format.md §6, §9, §10 items
// 20–22). Accepts classic-A (`T.block`, `T.alloc_buffer`, `tir.noalias`) and classic-B / v0.25
// (`T.sblock`, `T.sblock_alloc_buffer`, `x: T.let[...]`, tuple-form asserts) spellings.
#include <tree_sitter/api.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "frontend/lower/literals.h"
#include "frontend/lower/prim.h"
#include "frontend/lower/tir_names.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;
using ir::DataType;

namespace {

// Where a statement suite sits: some statements are only meaningful at function top or
// directly in a block (§6.2, §6.3).
enum class Where : uint8_t { FunctionTop, BlockBody, Nested };

struct LoopInfo {
  const ir::PrimVar* var;
  const ir::PrimExpr* min;
  const ir::PrimExpr* extent;
};

// The block whose direct suite is being lowered: axis definitions, T.where, T.reads, … fill it.
struct BlockState {
  ir::Block* block;
  bool has_where = false;
};

// Positional parameter order of TVM's buffer constructors after the leading arguments.
constexpr const char* kBufferKeys[] = {"shape",       "dtype",          "data",  "strides",
                                       "elem_offset", "scope",          "align", "offset_factor",
                                       "buffer_type", "axis_separators"};

// Constructs TVM's TIR namespace has that raxc does not lower (§6.9, brief): reported clearly.
constexpr const char* kUnsupported[] = {"launch_thread",
                                        "env_thread",
                                        "attr",
                                        "allocate",
                                        "allocate_const",
                                        "decl_buffer",
                                        "realize",
                                        "prefetch",
                                        "hint",
                                        "assume",
                                        "let",
                                        "Assert",
                                        "LetStmt",
                                        "tvm_thread_allreduce",
                                        "block_realize",
                                        "frame_scope",
                                        "buffer_store"};

bool unsupported_construct(std::string_view name) {
  for (const char* u : kUnsupported)
    if (name == u) return true;
  return false;
}

std::string_view node_type(TSNode node) { return ts_node_type(node); }

class TirLowerer {
 public:
  TirLowerer(LowerContext& ctx) : ctx_(ctx), cst_(ctx.cst) {}

  const ir::PrimFunc* lower(TSNode def) {
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
      error(DiagId::RX1341, func_->attrs.find("global_symbol")->span, {name_});
    return func_;
  }

 private:
  // ---------------------------------------------------------------- helpers
  void error(DiagId id, Span span, std::vector<std::string> args) {
    ctx_.diags.report(make_diagnostic(id, span, std::move(args)));
  }
  void error(DiagId id, TSNode node, std::vector<std::string> args) {
    error(id, cst_.span(node), std::move(args));
  }
  std::string text(TSNode node) const { return std::string(cst_.text(node)); }
  Span span(TSNode node) const { return cst_.span(node); }
  std::string path(TSNode node) const { return tir_path(ctx_, node, &names_); }

  const ir::PrimExpr* expr(TSNode node, std::optional<DataType> literal_dtype = std::nullopt) {
    if (ts_node_is_null(node)) return nullptr;
    return lower_prim_expr(ctx_, node, names_, PrimOptions{IntMode::Int32, literal_dtype});
  }
  const ir::PrimExpr* cast(DataType dt, const ir::PrimExpr* e, Span sp) {
    return e ? cast_prim(ctx_, dt, e, sp) : nullptr;
  }
  const ir::Stmt* seq(std::vector<const ir::Stmt*> stmts, Span sp) {
    if (stmts.size() == 1) return stmts[0];
    return ctx_.make<ir::SeqStmt>(std::move(stmts), sp);
  }
  const ir::PrimExpr* int_imm(DataType dt, int64_t v, Span sp) {
    return ctx_.make<ir::IntImm>(dt, v, sp);
  }

  struct Args {
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string, TSNode>> keywords;
    TSNode find(std::string_view key) const {
      for (auto& [k, v] : keywords)
        if (k == key) return v;
      return TSNode{};
    }
  };
  Args args_of(TSNode call) const {
    Args args;
    for (TSNode child : cst_.named_children(cst_.field(call, Field::arguments))) {
      if (cst_.is(child, Kind::keyword_argument)) {
        args.keywords.emplace_back(text(cst_.field(child, Field::name)),
                                   cst_.field(child, Field::value));
      } else {
        args.positional.push_back(child);
      }
    }
    return args;
  }

  std::optional<std::string> string_value(TSNode node) {
    if (!cst_.is(node, Kind::string) && !cst_.is(node, Kind::concatenated_string))
      return std::nullopt;
    std::string why;
    auto s = decode_string(cst_, node, &why);
    if (!s) error(DiagId::RX1301, node, {why});
    return s;
  }

  std::optional<bool> bool_value(TSNode node) {
    if (node_type(node) == "true") return true;
    if (node_type(node) == "false") return false;
    return std::nullopt;
  }

  std::optional<int64_t> int_value(TSNode node) {
    bool negative = false;
    if (cst_.is(node, Kind::unary_operator) &&
        cst_.text(ts_node_child_by_field_name(node, "operator", 8)) == "-") {
      negative = true;
      node = cst_.field(node, Field::argument);
    }
    if (!cst_.is(node, Kind::integer)) return std::nullopt;
    auto lit = parse_int_literal(cst_.text(node));
    if (!lit || lit->overflow || lit->magnitude > uint64_t(INT64_MAX)) return std::nullopt;
    return negative ? -int64_t(lit->magnitude) : int64_t(lit->magnitude);
  }

  // A bare integer literal (possibly negated): it adopts the dtype of its partner (§10.21).
  bool is_bare_int(TSNode node) { return int_value(node).has_value(); }

  std::optional<DataType> dtype_value(TSNode node) {
    if (auto s = string_value(node)) {
      if (auto dt = DataType::parse(*s)) return dt;
      error(DiagId::RX1306, node, {*s});
      return std::nullopt;
    }
    if (auto dt = tir_dtype_attribute(ctx_, node, &names_)) return dt;
    error(DiagId::RX1306, node, {text(node)});
    return std::nullopt;
  }

  // ---------------------------------------------------------------- attributes
  std::optional<ir::AttrValue> attr_value(TSNode node) {
    Span sp = span(node);
    if (auto b = bool_value(node)) return ir::AttrValue(*b, sp);
    if (cst_.is(node, Kind::none)) return ir::AttrValue(ir::AttrValue::None{}, sp);
    if (auto i = int_value(node)) return ir::AttrValue(*i, sp);
    if (node_type(node) == "float") {
      if (auto f = parse_float_literal(cst_.text(node))) return ir::AttrValue(*f, sp);
    }
    if (cst_.is(node, Kind::string) || cst_.is(node, Kind::concatenated_string)) {
      auto s = string_value(node);
      if (!s) return std::nullopt;
      return ir::AttrValue(*s, sp);
    }
    if (cst_.is(node, Kind::list) || cst_.is(node, Kind::tuple)) {
      ir::AttrValue::List list;
      for (TSNode item : cst_.named_children(node)) {
        auto v = attr_value(item);
        if (!v) return std::nullopt;
        list.push_back(std::move(*v));
      }
      return ir::AttrValue(std::move(list), sp);
    }
    if (cst_.is(node, Kind::dictionary)) {
      ir::AttrValue::Dict dict;
      for (TSNode pair : cst_.named_children(node)) {
        if (!cst_.is(pair, Kind::pair)) {
          error(DiagId::RX1319, pair, {text(pair)});
          return std::nullopt;
        }
        auto k = attr_value(cst_.field(pair, Field::key));
        auto v = attr_value(cst_.field(pair, Field::value));
        if (!k || !v) return std::nullopt;
        dict.emplace_back(std::move(*k), std::move(*v));
      }
      return ir::AttrValue(std::move(dict), sp);
    }
    if (cst_.is(node, Kind::parenthesized_expression))
      return attr_value(cst_.field(node, Field::value));
    // `T.bool(True)` as older printers wrote bool attributes.
    if (cst_.is(node, Kind::call) && path(node) == "bool") {
      Args a = args_of(node);
      if (a.positional.size() == 1)
        if (auto b = bool_value(a.positional[0])) return ir::AttrValue(*b, sp);
    }
    if (cst_.is(node, Kind::lambda) || cst_.is(node, Kind::conditional_expression) ||
        cst_.is(node, Kind::attribute) || cst_.kind(node) == Kind::Other) {
      error(DiagId::RX1319, node, {text(node)});
      return std::nullopt;
    }
    const ir::PrimExpr* e = expr(node);
    if (!e) return std::nullopt;
    return ir::AttrValue(e, sp);
  }

  // `{"key": value, …}` into `attrs` (string keys only).
  void attr_dict(TSNode node, ir::Attrs& attrs, const char* what) {
    if (!cst_.is(node, Kind::dictionary)) {
      error(DiagId::RX1322, node, {what, "expected a dictionary {\"key\": value}"});
      return;
    }
    for (TSNode pair : cst_.named_children(node)) {
      TSNode key = cst_.field(pair, Field::key);
      auto k = string_value(key);
      if (!k) {
        error(DiagId::RX1322, key, {what, "keys must be strings"});
        continue;
      }
      auto v = attr_value(cst_.field(pair, Field::value));
      if (!v) continue;
      bool replaced = false;
      for (auto& [ek, ev] : attrs.entries) {
        if (ek == *k) {
          ev = std::move(*v);
          replaced = true;
        }
      }
      if (!replaced) attrs.entries.emplace_back(*k, std::move(*v));
    }
  }

  // ---------------------------------------------------------------- signature
  void decorator(TSNode def) {
    for (TSNode deco : cst_.fields(def, Field::decorator)) {
      TSNode value = cst_.field(deco, Field::value);
      if (!cst_.is(value, Kind::call)) continue;
      Args args = args_of(value);
      for (TSNode p : args.positional) error(DiagId::RX1320, p, {text(p)});
      for (auto& [key, v] : args.keywords) {
        auto b = bool_value(v);
        if (key == "private" && b) {
          func_->is_private = *b;
        } else if (key == "s_tir" && b) {
          func_->s_tir = *b;
        } else if ((key == "private" || key == "s_tir") && !b) {
          error(DiagId::RX1322, v, {"@T.prim_func(" + key + "=...)", "expected True or False"});
        } else {
          error(DiagId::RX1320, v, {key});
        }
      }
    }
  }

  void params(TSNode list) {
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

  TSNode annotation_value(TSNode param) {
    TSNode ann = cst_.field(param, Field::annotation);
    return ts_node_is_null(ann) ? ann : cst_.field(ann, Field::value);
  }

  bool define(TSNode name_node, TirNames::Entry entry) {
    std::string n = text(name_node);
    if (names_.defined_here(n)) {
      error(DiagId::RX1325, name_node, {n});
      return false;
    }
    names_.define(std::move(n), entry);
    return true;
  }

  std::optional<ir::PrimFuncParam> scalar_param(TSNode param) {
    TSNode name = cst_.field(param, Field::name);
    TSNode ann = annotation_value(param);
    std::string n = text(name);
    std::optional<DataType> dt;
    if (ts_node_is_null(ann)) {
      error(DiagId::RX1321, param, {n});
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
      error(DiagId::RX1321, ann, {n});
      dt = DataType::Handle();
    }
    const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, *dt, span(name));
    define(name, TirNames::Entry{var, nullptr, nullptr, dt->is_handle()});
    return ir::PrimFuncParam{var, nullptr, span(param)};
  }

  std::optional<ir::PrimFuncParam> buffer_param(TSNode param) {
    TSNode name = cst_.field(param, Field::name);
    TSNode ann = annotation_value(param);
    std::string n = text(name);
    const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, DataType::Handle(), span(name));
    ir::Buffer* buffer = nullptr;
    if (cst_.is(ann, Kind::call)) {
      buffer = make_buffer(n, ann, args_of(ann), 0, "T.Buffer");
    } else {
      error(DiagId::RX1322, ann, {"T.Buffer", "expected T.Buffer(shape, dtype, ...)"});
    }
    if (!buffer) return ir::PrimFuncParam{var, nullptr, span(param)};
    define(name, TirNames::Entry{nullptr, buffer, nullptr, false});
    func_->buffer_map.emplace_back(var, buffer);
    return ir::PrimFuncParam{var, buffer, span(param)};
  }

  void return_type(TSNode def) {
    TSNode ann = cst_.field(def, Field::return_type);
    if (ts_node_is_null(ann)) return;
    TSNode value = cst_.field(ann, Field::value);
    if (cst_.is(value, Kind::none)) return;
    if (auto dt = tir_dtype_attribute(ctx_, value, &names_)) {
      func_->ret_type = *dt;
      return;
    }
    error(DiagId::RX1337, value, {text(value)});
  }

  // ---------------------------------------------------------------- buffers
  // T.Buffer / T.match_buffer / T.alloc_buffer arguments from index `first` on.
  ir::Buffer* make_buffer(const std::string& name, TSNode call, const Args& args, size_t first,
                          const std::string& what) {
    auto* buffer = ctx_.make<ir::Buffer>();
    buffer->name = name;
    buffer->dtype = DataType::Float(32);
    buffer->span = span(call);
    std::vector<std::pair<std::string, TSNode>> given;
    size_t count = std::size(kBufferKeys);
    for (size_t i = first; i < args.positional.size(); ++i) {
      if (i - first >= count) {
        error(DiagId::RX1322, args.positional[i], {what, "too many positional arguments"});
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
        error(DiagId::RX1324, node, {what + "(data=...)"});
        ok = false;
      } else {
        error(DiagId::RX1322, node, {what, "unknown argument '" + key + "'"});
        ok = false;
      }
    }
    if (!has_shape && what != "T.match_buffer") {
      error(DiagId::RX1322, call, {what, "missing the shape argument"});
      ok = false;
    }
    return ok ? buffer : nullptr;
  }

  bool bad(TSNode node, const std::string& what, const std::string& why) {
    error(DiagId::RX1322, node, {what, why});
    return false;
  }

  // A shape: tuple / list of PrimExprs, or a single expression for one dimension.
  bool shape_list(TSNode node, std::vector<const ir::PrimExpr*>& out) {
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
        error(DiagId::RX1322, d,
              {"buffer shape", "dimensions must be integers, not " + e->dtype.str()});
        e = nullptr;
      }
      ok &= e != nullptr;
      out.push_back(e);
    }
    return ok;
  }

  // `A[i, 0:4]` (or a bare buffer name for the whole buffer) as a region.
  std::optional<ir::BufferRegion> region(TSNode node) {
    ir::BufferRegion r;
    r.span = span(node);
    TSNode target = cst_.is(node, Kind::subscript) ? cst_.field(node, Field::value) : node;
    if (!cst_.is(target, Kind::identifier)) {
      error(DiagId::RX1322, node, {"buffer region", "expected A[...] or a buffer name"});
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
      error(DiagId::RX1313, node,
            {r.buffer->name, std::to_string(r.buffer->shape.size()), std::to_string(items.size())});
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

  std::optional<ir::PrimRange> region_index(TSNode item, const ir::PrimExpr* dim) {
    Span sp = span(item);
    if (!cst_.is(item, Kind::slice)) {
      const ir::PrimExpr* e = expr(item);
      if (!e) return std::nullopt;
      return ir::PrimRange{e, int_imm(e->dtype, 1, sp), sp};
    }
    TSNode start = cst_.field(item, Field::start), stop = cst_.field(item, Field::stop);
    if (!ts_node_is_null(cst_.field(item, Field::step))) {
      error(DiagId::RX1322, item, {"buffer region", "slices with a step are not supported"});
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

  // `hi - lo`, folded for immediates and for lo == 0.
  const ir::PrimExpr* difference(const ir::PrimExpr* hi, const ir::PrimExpr* lo, Span sp) {
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

  const ir::Buffer* find_buffer(TSNode name) {
    std::string_view n = cst_.text(name);
    if (const ir::Buffer* b = names_.find_buffer(n)) return b;
    if (names_.find_var(n) || names_.find_expr(n)) {
      error(DiagId::RX1314, name, {std::string(n)});
    } else {
      error(DiagId::RX1302, name, {std::string(n)});
    }
    return nullptr;
  }

  // ---------------------------------------------------------------- suites
  const ir::Stmt* suite(TSNode block, Where where) {
    std::vector<const ir::Stmt*> out;
    names_.push();
    if (!ts_node_is_null(block)) stmts(cst_.named_children(block), 0, where, out);
    names_.pop();
    return seq(std::move(out), span(block));
  }

  // Lowers nodes[begin..] into `out`. A let scopes over the rest of its suite: it is opened
  // (scope pushed, statements so far set aside) and closed at the end of the suite, iteratively
  // so that a long chain of lets cannot exhaust the stack.
  void stmts(const std::vector<TSNode>& nodes, size_t begin, Where where,
             std::vector<const ir::Stmt*>& out) {
    std::vector<OpenLet> lets;
    std::vector<const ir::Stmt*> current;
    bool returned = false;
    for (size_t i = begin; i < nodes.size(); ++i) {
      TSNode node = nodes[i];
      if (returned) {
        error(DiagId::RX1328, node, {});
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

  // Returns true when the statement opened a let (`opened_`) over the rest of the suite.
  bool stmt(const std::vector<TSNode>& nodes, size_t i, Where where,
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
          error(DiagId::RX1336, node, {is_break ? "break" : "continue"});
        } else if (is_break) {
          out.push_back(ctx_.make<ir::BreakStmt>(span(node)));
        } else {
          out.push_back(ctx_.make<ir::ContinueStmt>(span(node)));
        }
        return false;
      }
      case Kind::dataflow_block: error(DiagId::RX1323, node, {"a dataflow block"}); return false;
      case Kind::relax_function:
      case Kind::prim_function:
      case Kind::function_definition:
        error(DiagId::RX1323, node, {"a nested function"});
        return false;
      default: error(DiagId::RX1323, node, {"this statement"}); return false;
    }
  }

  // ---------------------------------------------------------------- bindings
  bool binding(const std::vector<TSNode>& nodes, size_t i, Where where,
               std::vector<const ir::Stmt*>& out) {
    TSNode node = nodes[i];
    TSNode left = cst_.field(node, Field::left);
    TSNode right = cst_.field(node, Field::right);
    TSNode ann = cst_.field(node, Field::annotation);
    if (ts_node_is_null(right) || cst_.is(right, Kind::binding)) {
      error(DiagId::RX1323, node, {"a chained or incomplete assignment"});
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
      error(DiagId::RX1323, left, {"assignment to '" + text(left) + "'"});
      return false;
    }
    std::string rhs_path = cst_.is(right, Kind::call) ? path(right) : "";
    if (!rhs_path.empty() && ts_node_is_null(ann)) {
      if (is_declaration(right)) {
        declaration(left, right);
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
        error(DiagId::RX1324, right, {"T." + rhs_path});
        return false;
      }
    }
    return let_or_assign(nodes, i, left, right, ann, out);
  }

  bool is_declaration(TSNode call) {
    std::string p = path(call);
    auto dt = DataType::parse(p);
    if (!dt || p == "void" || p == "handle") return false;
    return args_of(call).positional.empty();
  }

  // `n = T.int64()` / `T.int64(is_size_var=True)`: a symbolic variable, no statement (§6.5).
  void declaration(TSNode name, TSNode call) {
    DataType dt = *DataType::parse(path(call));
    Args args = args_of(call);
    bool size_var = false;
    for (auto& [key, v] : args.keywords) {
      auto b = bool_value(v);
      if (key == "is_size_var" && b) {
        size_var = *b;
      } else {
        error(DiagId::RX1322, v, {"T." + dt.str() + "()", "unknown argument '" + key + "'"});
      }
    }
    std::string n = text(name);
    if (names_.find_var(n) || names_.find_buffer(n) || names_.find_expr(n)) {
      error(DiagId::RX1338, name, {n});
      return;
    }
    const ir::PrimVar* var = ctx_.make<ir::PrimVar>(n, dt, span(name), size_var);
    names_.define(n, TirNames::Entry{var, nullptr, nullptr, false});
  }

  void unpack(TSNode left, TSNode right, TSNode node, Where where) {
    std::vector<TSNode> targets = cst_.named_children(left);
    for (TSNode t : targets) {
      if (!cst_.is(t, Kind::identifier)) {
        error(DiagId::RX1323, t, {"assignment to '" + text(t) + "'"});
        return;
      }
    }
    if (cst_.is(right, Kind::call) && path(right).rfind("axis.", 0) == 0) {
      axis(targets, right, path(right), where);
      return;
    }
    std::vector<TSNode> values =
        cst_.is(right, Kind::expression_list) || cst_.is(right, Kind::tuple)
            ? cst_.named_children(right)
            : std::vector<TSNode>{right};
    bool all_decls = values.size() == targets.size();
    for (TSNode v : values) all_decls = all_decls && cst_.is(v, Kind::call) && is_declaration(v);
    if (!all_decls) {
      if (values.size() != targets.size() && values.size() > 1) {
        error(DiagId::RX1327, node,
              {std::to_string(values.size()), std::to_string(targets.size())});
      } else {
        error(DiagId::RX1323, node,
              {"tuple assignment other than 'm, n = T.int64(), T.int64()' or T.axis.remap"});
      }
      return;
    }
    for (size_t k = 0; k < targets.size(); ++k) declaration(targets[k], values[k]);
  }

  // Does any statement in nodes[from..] (at any depth) assign to `name` again? The suite's
  // "last statement assigning each name" table is built once, so long suites stay linear.
  bool assigned_later(const std::vector<TSNode>& nodes, size_t from, std::string_view name) {
    if (from >= nodes.size()) return false;
    auto& last = last_assignment_[nodes.front().id];
    if (last.empty()) {
      last.emplace("", 0);  // marks the table as built
      for (size_t k = 0; k < nodes.size(); ++k) collect_assigned(nodes[k], k, last);
    }
    auto it = last.find(name);
    return it != last.end() && it->second >= from;
  }
  void collect_assigned(TSNode node, size_t index,
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

  bool let_or_assign(const std::vector<TSNode>& nodes, size_t i, TSNode left, TSNode right,
                     TSNode ann, std::vector<const ir::Stmt*>& out) {
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
      error(DiagId::RX1325, left, {n});
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
      out.push_back(ctx_.make<ir::BufferStore>(buffer, value, std::vector<const ir::PrimExpr*>{},
                                               span(node)));
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

  // `T.int32`, `T.let[T.int64]`, `T.let` (void: take the value's dtype).
  std::optional<DataType> let_annotation(TSNode ann) {
    if (auto dt = tir_dtype_attribute(ctx_, ann, &names_)) return dt;
    if (cst_.is(ann, Kind::attribute) && path(ann) == "let") return DataType::Void();
    if (cst_.is(ann, Kind::subscript) && path(cst_.field(ann, Field::value)) == "let") {
      std::vector<TSNode> items = cst_.fields(ann, Field::subscript);
      if (items.size() == 1)
        if (auto dt = tir_dtype_attribute(ctx_, items[0], &names_)) return dt;
    }
    error(DiagId::RX1322, ann, {"a let annotation", "expected T.<dtype> or T.let[T.<dtype>]"});
    return std::nullopt;
  }

  std::optional<std::vector<const ir::PrimExpr*>> store_indices(TSNode subscript,
                                                                const ir::Buffer* buffer) {
    std::vector<TSNode> items = cst_.fields(subscript, Field::subscript);
    if (items.size() == 1 && cst_.is(items[0], Kind::tuple)) items = cst_.named_children(items[0]);
    std::vector<const ir::PrimExpr*> indices;
    bool ok = true;
    for (TSNode item : items) {
      if (cst_.is(item, Kind::slice)) {
        error(DiagId::RX1317, item, {});
        ok = false;
        continue;
      }
      const ir::PrimExpr* e = expr(item);
      ok &= e != nullptr;
      indices.push_back(e);
    }
    if (!ok) return std::nullopt;
    if (indices.size() != buffer->shape.size()) {
      error(DiagId::RX1313, subscript,
            {buffer->name, std::to_string(buffer->shape.size()), std::to_string(indices.size())});
      return std::nullopt;
    }
    return indices;
  }

  void store(TSNode left, TSNode right, TSNode node, std::vector<const ir::Stmt*>& out) {
    TSNode target = cst_.field(left, Field::value);
    if (!cst_.is(target, Kind::identifier)) {
      error(DiagId::RX1323, left, {"assignment to '" + text(left) + "'"});
      return;
    }
    const ir::Buffer* buffer = find_buffer(target);
    if (!buffer) return;
    auto indices = store_indices(left, buffer);
    const ir::PrimExpr* value = expr(right, buffer->dtype);
    if (!indices || !value) return;
    value = cast(buffer->dtype, value, span(right));
    out.push_back(ctx_.make<ir::BufferStore>(buffer, value, std::move(*indices), span(node)));
  }

  void augmented(TSNode node, std::vector<const ir::Stmt*>& out) {
    TSNode left = cst_.field(node, Field::left);
    TSNode right = cst_.field(node, Field::right);
    std::string op(cst_.text(ts_node_child_by_field_name(node, "operator", 8)));
    if (!op.empty() && op.back() == '=') op.pop_back();
    const ir::Buffer* buffer = nullptr;
    std::vector<const ir::PrimExpr*> indices;
    if (cst_.is(left, Kind::subscript) &&
        cst_.is(cst_.field(left, Field::value), Kind::identifier)) {
      buffer = find_buffer(cst_.field(left, Field::value));
      if (!buffer) return;
      auto idx = store_indices(left, buffer);
      if (!idx) return;
      indices = std::move(*idx);
    } else if (cst_.is(left, Kind::identifier)) {
      const auto* load = ir::dyn_cast<ir::BufferLoad>(names_.find_expr(cst_.text(left)));
      if (!load) {
        if (!names_.find_var(cst_.text(left)) && !names_.find_buffer(cst_.text(left)))
          error(DiagId::RX1302, left, {text(left)});
        else
          error(DiagId::RX1323, node,
                {"'" + std::string(op) + "=' on immutable '" + text(left) + "'"});
        return;
      }
      buffer = load->buffer;
    } else {
      error(DiagId::RX1323, left, {"assignment to '" + text(left) + "'"});
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

  void match_buffer(TSNode left, TSNode call, Where where) {
    Args args = args_of(call);
    TSNode source = args.positional.empty() ? args.find("param") : args.positional[0];
    if (ts_node_is_null(source)) {
      error(DiagId::RX1322, call, {"T.match_buffer", "missing the source handle or region"});
      return;
    }
    std::string n = text(left);
    if (cst_.is(source, Kind::subscript)) {
      if (where != Where::BlockBody || !block_) {
        error(DiagId::RX1332, call, {"T.match_buffer of a buffer region", "directly in a block"});
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
      error(DiagId::RX1332, call, {"T.match_buffer of a handle", "at the top of the function"});
      return;
    }
    const TirNames::Entry* entry =
        cst_.is(source, Kind::identifier) ? names_.find(cst_.text(source)) : nullptr;
    if (!entry || !entry->var || !entry->is_handle_param) {
      if (cst_.is(source, Kind::identifier) && !entry)
        error(DiagId::RX1302, source, {text(source)});
      else
        error(DiagId::RX1329, source, {text(source)});
      return;
    }
    for (auto& [handle, b] : func_->buffer_map) {
      if (handle == entry->var) {
        error(DiagId::RX1340, source, {text(source)});
        return;
      }
    }
    ir::Buffer* buffer = make_buffer(n, call, args, 1, "T.match_buffer");
    if (!buffer) return;
    if (!has_shape_arg(args)) {
      error(DiagId::RX1322, call, {"T.match_buffer", "missing the shape argument"});
      return;
    }
    func_->buffer_map.emplace_back(entry->var, buffer);
    define(left, TirNames::Entry{nullptr, buffer, nullptr, false});
  }

  static bool has_shape_arg(const Args& args) {
    if (args.positional.size() >= 2) return true;
    for (auto& [k, v] : args.keywords)
      if (k == "shape") return true;
    return false;
  }

  void alloc_buffer(TSNode left, TSNode call, Where where, const std::string& what,
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

  // ---------------------------------------------------------------- block axes
  void axis(const std::vector<TSNode>& targets, TSNode call, const std::string& p, Where where) {
    if (where != Where::BlockBody || !block_) {
      error(DiagId::RX1332, call, {"T." + p, "directly in a block"});
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
      error(DiagId::RX1333, cst_.field(call, Field::function), {kind});
      return;
    }
    if (targets.size() != 1) {
      error(DiagId::RX1327, call, {"1", std::to_string(targets.size())});
      return;
    }
    TSNode dom = args.positional.size() > 0 ? args.positional[0] : args.find("dom");
    TSNode binding = args.positional.size() > 1 ? args.positional[1] : args.find("binding");
    TSNode dtype_node = args.positional.size() > 2 ? args.positional[2] : args.find("dtype");
    if (ts_node_is_null(dom) || ts_node_is_null(binding) || args.positional.size() > 3) {
      error(DiagId::RX1322, call, {"T." + p, "expected (dom, binding, dtype=\"int32\")"});
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
        error(DiagId::RX1322, dom, {"T." + p, "a domain is an extent or (min, max)"});
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

  void push_iter(TSNode name, DataType dt, ir::PrimRange dom, ir::IterType type,
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

  void remap(const std::vector<TSNode>& targets, TSNode call, const Args& args) {
    if (args.positional.size() != 2 || !args.keywords.empty()) {
      error(DiagId::RX1322, call, {"T.axis.remap", "expected (\"SR…\", [loop variables])"});
      return;
    }
    auto kinds = string_value(args.positional[0]);
    TSNode list = args.positional[1];
    // The loop variables: a list, or a name bound by `for iters in T.grid(...)`.
    const TirNames::Entry* tuple =
        cst_.is(list, Kind::identifier) ? names_.find(cst_.text(list)) : nullptr;
    if (tuple && !tuple->loop_tuple) tuple = nullptr;
    if (!kinds || !(cst_.is(list, Kind::list) || cst_.is(list, Kind::tuple) || tuple)) {
      error(DiagId::RX1322, call, {"T.axis.remap", "expected (\"SR…\", [loop variables])"});
      return;
    }
    std::vector<TSNode> bindings =
        tuple ? std::vector<TSNode>(tuple->loop_tuple->size(), list) : cst_.named_children(list);
    if (kinds->size() != targets.size() || bindings.size() != targets.size()) {
      error(DiagId::RX1326, call,
            {std::to_string(kinds->size()), std::to_string(targets.size()),
             std::to_string(bindings.size())});
      return;
    }
    for (size_t k = 0; k < targets.size(); ++k) {
      char c = (*kinds)[k];
      if (c != 'S' && c != 'R') {
        error(DiagId::RX1333, args.positional[0], {std::string(1, c)});
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
          error(DiagId::RX1302, bindings[k], {text(bindings[k])});
        else
          error(DiagId::RX1331, bindings[k], {text(bindings[k])});
        continue;
      }
      push_iter(targets[k], loop->var->dtype, {loop->min, loop->extent, span(bindings[k])},
                c == 'S' ? ir::IterType::DataPar : ir::IterType::Reduce, loop->var, call);
    }
  }

  // ---------------------------------------------------------------- expression statements
  void expression_statement(TSNode node, Where where, size_t index,
                            std::vector<const ir::Stmt*>& out) {
    TSNode value = cst_.field(node, Field::value);
    if (cst_.is(value, Kind::string) || cst_.is(value, Kind::concatenated_string)) {
      if (where == Where::FunctionTop && index == 0) return;  // docstring
      error(DiagId::RX1323, node, {"a string statement"});
      return;
    }
    if (!cst_.is(value, Kind::call) || path(value).empty()) {
      error(DiagId::RX1323, node, {"the expression statement '" + text(value) + "'"});
      return;
    }
    std::string p = path(value);
    Args args = args_of(value);
    if (p == "func_attr") {
      if (where != Where::FunctionTop) {
        error(DiagId::RX1332, value, {"T.func_attr", "at the top of the function"});
      } else if (args.positional.size() != 1 || !args.keywords.empty()) {
        error(DiagId::RX1322, value, {"T.func_attr", "expected one dictionary"});
      } else {
        attr_dict(args.positional[0], func_->attrs, "T.func_attr");
      }
      return;
    }
    if (p == "evaluate") {
      if (args.positional.size() != 1 || !args.keywords.empty()) {
        error(DiagId::RX1322, value, {"T.evaluate", "expected one expression"});
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
      error(DiagId::RX1324, value, {"T." + p});
      return;
    }
    if (is_declaration(value)) {
      error(DiagId::RX1318, value, {p});
      return;
    }
    if (const ir::PrimExpr* e = expr(value)) out.push_back(ctx_.make<ir::Evaluate>(e, span(node)));
  }

  void block_statement(TSNode call, const std::string& p, const Args& args, Where where) {
    if (where != Where::BlockBody || !block_) {
      error(DiagId::RX1332, call, {"T." + p, "directly in a block"});
      return;
    }
    ir::Block* b = block_->block;
    if (p == "where") {
      if (block_->has_where) error(DiagId::RX1335, call, {"T.where", b->name});
      if (args.positional.size() != 1 || !args.keywords.empty()) {
        error(DiagId::RX1322, call, {"T.where", "expected one condition"});
        return;
      }
      block_->has_where = true;
      const ir::PrimExpr* c = expr(args.positional[0]);
      if (c && !c->dtype.is_bool()) {
        error(DiagId::RX1322, call,
              {"T.where", "the condition must be bool, not " + c->dtype.str()});
        return;
      }
      b->predicate = c;
      return;
    }
    if (p == "block_attr" || p == "sblock_attr") {
      if (args.positional.size() != 1 || !args.keywords.empty()) {
        error(DiagId::RX1322, call, {"T." + p, "expected one dictionary"});
        return;
      }
      attr_dict(args.positional[0], b->annotations,
                p == "block_attr" ? "T.block_attr" : "T.sblock_attr");
      return;
    }
    auto& slot = p == "reads" ? b->reads : b->writes;
    if (slot) error(DiagId::RX1335, call, {"T." + p, b->name});
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
      error(DiagId::RX1322, v, {"T." + p, "unknown argument '" + k + "'"});
    for (TSNode item : items)
      if (auto r = region(item)) regions.push_back(std::move(*r));
    slot = std::move(regions);
  }

  // ---------------------------------------------------------------- loops
  struct LoopSpec {
    const ir::PrimExpr* min = nullptr;
    const ir::PrimExpr* extent = nullptr;
    const ir::PrimExpr* step = nullptr;
    ir::ForKind kind = ir::ForKind::Serial;
    std::string thread;
    ir::Attrs annotations;
  };

  // (start, stop) with literal adoption; the loop variable takes the wider dtype.
  bool bounds(TSNode a, TSNode b, LoopSpec& spec, Span sp) {
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

  bool integral(const ir::PrimExpr* e, TSNode node) {
    if (e->dtype.is_integer() && !e->dtype.is_bool()) return true;
    error(DiagId::RX1322, node, {"a loop bound", "must be an integer, not " + e->dtype.str()});
    return false;
  }

  std::optional<std::vector<LoopSpec>> iterator(TSNode right) {
    if (!cst_.is(right, Kind::call)) {
      error(DiagId::RX1330, right, {text(right)});
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
        error(DiagId::RX1322, right,
              {"range", "expected range(stop) or range(start, stop[, step])"});
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
        error(DiagId::RX1322, right, {"T.grid", "expected one or more extents"});
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
        error(DiagId::RX1322, right, {"T." + p, "expected (stop) or (start, stop)"});
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
          error(DiagId::RX1322, v, {"T." + p, "unknown argument '" + key + "'"});
          return std::nullopt;
        }
      }
      if (kind == ir::ForKind::ThreadBinding) {
        auto tag = ts_node_is_null(thread) ? std::nullopt : string_value(thread);
        if (!tag) {
          error(DiagId::RX1322, right, {"T.thread_binding", "missing thread=\"…\""});
          return std::nullopt;
        }
        spec.thread = *tag;
      }
      return std::vector<LoopSpec>{std::move(spec)};
    }
    error(DiagId::RX1330, right, {text(fn)});
    return std::nullopt;
  }

  bool loop_step(TSNode node, LoopSpec& spec) {
    const ir::PrimExpr* step = expr(node);
    if (!step) return false;
    if (is_bare_int(node)) step = cast(spec.extent->dtype, step, span(node));
    if (const auto* imm = ir::dyn_cast<ir::IntImm>(step)) {
      if (imm->value <= 0) {
        error(DiagId::RX1322, node, {"a loop step", "must be a positive integer"});
        return false;
      }
      if (imm->value == 1) return true;
    }
    spec.step = step;
    return true;
  }

  void for_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
    TSNode left = cst_.field(node, Field::left);
    std::vector<TSNode> targets =
        cst_.is(left, Kind::pattern_list) ? cst_.named_children(left) : std::vector<TSNode>{left};
    for (TSNode t : targets) {
      if (!cst_.is(t, Kind::identifier)) {
        error(DiagId::RX1323, t, {"a loop target other than a name"});
        return;
      }
    }
    auto specs = iterator(cst_.field(node, Field::right));
    if (!specs) return;
    // `for iters in T.grid(a, b)`: one name for the tuple of loop variables.
    bool tuple_target = targets.size() == 1 && specs->size() > 1;
    if (specs->size() != targets.size() && !tuple_target) {
      error(DiagId::RX1327, left, {std::to_string(specs->size()), std::to_string(targets.size())});
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
      body = ctx_.make<ir::For>(vars[k], s.min, s.extent, s.kind, s.thread,
                                std::move(s.annotations), s.step, body, span(node));
    }
    out.push_back(body);
  }

  void while_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
    const ir::PrimExpr* c = condition(cst_.field(node, Field::condition));
    ++loop_depth_;
    const ir::Stmt* body = suite(cst_.field(node, Field::body), Where::Nested);
    --loop_depth_;
    if (c) out.push_back(ctx_.make<ir::While>(c, body, span(node)));
  }

  const ir::PrimExpr* condition(TSNode node) {
    const ir::PrimExpr* c = expr(node);
    if (c && !c->dtype.is_bool()) {
      // TVM accepts integer conditions (`if n:`); compare against zero like C.
      if (c->dtype.is_integer() || c->dtype.is_float())
        c = ctx_.make<ir::PrimBinary>(
            ir::PrimKind::NE, DataType::Bool(), c,
            cast(c->dtype, int_imm(DataType::Int(32), 0, c->span), c->span), c->span);
      else {
        error(DiagId::RX1322, node, {"a condition", "must be bool, not " + c->dtype.str()});
        return nullptr;
      }
    }
    return c;
  }

  void if_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
    const ir::Stmt* s = if_chain(node, cst_.fields(node, Field::alternative), 0);
    if (s) out.push_back(s);
  }

  // `if` and its elif/else alternatives[k..] as nested IfThenElse.
  const ir::Stmt* if_chain(TSNode clause, const std::vector<TSNode>& alternatives, size_t k) {
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

  void assert_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
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
      error(DiagId::RX1334, ts_node_is_null(msg) ? node : msg, {});
      return;
    }
    if (c) out.push_back(ctx_.make<ir::AssertStmt>(c, kind, std::move(messages), span(node)));
  }

  void return_stmt(TSNode node, std::vector<const ir::Stmt*>& out) {
    TSNode value = cst_.field(node, Field::value);
    if (ts_node_is_null(value)) {
      error(DiagId::RX1322, node, {"return", "a TIR return needs a value"});
      return;
    }
    const ir::PrimExpr* e = expr(value, func_->ret_type);
    if (!e) return;
    if (func_->ret_type) e = cast(*func_->ret_type, e, span(value));
    out.push_back(ctx_.make<ir::ReturnStmt>(e, span(node)));
  }

  // ---------------------------------------------------------------- with statements
  void with_stmt(TSNode node, Where where, std::vector<const ir::Stmt*>& out) {
    std::vector<TSNode> items = cst_.fields(node, Field::item);
    if (items.size() != 1) {
      error(DiagId::RX1323, node, {"a 'with' statement with several items"});
      return;
    }
    TSNode value = cst_.field(items[0], Field::value);
    if (!ts_node_is_null(cst_.field(items[0], Field::alias))) {
      error(DiagId::RX1323, items[0], {"'with ... as ...'"});
      return;
    }
    std::string p = cst_.is(value, Kind::call) ? path(value) : "";
    if (p == "block" || p == "sblock") {
      if (const ir::Stmt* b = block(node, value, where)) out.push_back(b);
      return;
    }
    if (p == "init") {
      if (where != Where::BlockBody || !block_) {
        error(DiagId::RX1332, value, {"T.init()", "directly in a block"});
        return;
      }
      if (block_->block->init) error(DiagId::RX1335, value, {"T.init()", block_->block->name});
      BlockState* saved = block_;
      block_ = nullptr;
      const ir::Stmt* init = suite(cst_.field(node, Field::body), Where::Nested);
      block_ = saved;
      block_->block->init = init;
      return;
    }
    if (!p.empty() && unsupported_construct(p)) {
      error(DiagId::RX1324, value, {"T." + p});
      return;
    }
    error(DiagId::RX1323, value, {"'with " + text(value) + "'"});
  }

  const ir::Stmt* block(TSNode node, TSNode call, Where where) {
    Args args = args_of(call);
    std::string name;
    if (args.positional.size() > 1) {
      error(DiagId::RX1322, call, {"T.block", "expected at most a name"});
      return nullptr;
    }
    if (!args.positional.empty()) {
      auto s = string_value(args.positional[0]);
      if (!s) {
        error(DiagId::RX1322, args.positional[0], {"T.block", "the name must be a string"});
        return nullptr;
      }
      name = *s;
    }
    for (auto& [k, v] : args.keywords) {
      if (k != "no_realize") error(DiagId::RX1322, v, {"T.block", "unknown argument '" + k + "'"});
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

  // §6.3: wrap a body with blocks (or top-level allocations) in the implicit root block.
  const ir::Stmt* root(std::vector<const ir::Stmt*>& body) {
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

  LowerContext& ctx_;
  const cst::Cst& cst_;
  TirNames names_;
  ir::PrimFunc* func_ = nullptr;
  std::string name_;
  std::vector<LoopInfo> loops_;
  int loop_depth_ = 0;
  BlockState* block_ = nullptr;
  bool saw_block_ = false;
  ir::Block* explicit_root_ = nullptr;
  std::vector<const ir::Buffer*> root_allocs_;
  std::deque<std::vector<const ir::PrimVar*>> loop_tuples_;  // stable addresses
  struct OpenLet {
    const ir::PrimVar* var;
    const ir::PrimExpr* value;  // null after an error: the body is spliced in without a let
    Span span;
    std::vector<const ir::Stmt*> before;  // the suite's statements before the let
  };
  std::optional<OpenLet> opened_;
  // Per suite (keyed by its first statement's node id): name → last statement assigning it.
  std::map<const void*, std::map<std::string, size_t, std::less<>>> last_assignment_;
};

}  // namespace

const ir::PrimFunc* lower_prim_func(LowerContext& ctx, TSNode prim_function) {
  TirLowerer lowerer(ctx);
  return lowerer.lower(prim_function);
}

}  // namespace raxc::lower
