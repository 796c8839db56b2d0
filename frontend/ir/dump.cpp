#include "frontend/ir/dump.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace raxc::ir {
namespace {

// ---------------------------------------------------------------------------- S-expression tree
// The dump is built as a tree first and laid out afterwards: a node that fits in the line width
// is printed on one line, otherwise each non-atom child goes on its own indented line.
struct SNode {
  std::string label;  // "key=" printed before the node
  std::string text;   // atom text (atoms only)
  std::vector<SNode> kids;
  char open = 0;  // 0: atom; '(' or '['
  size_t flat = 0;

  bool is_atom() const { return open == 0; }
};

constexpr size_t kLineWidth = 100;

SNode atom(std::string text) {
  SNode n;
  n.text = std::move(text);
  return n;
}

SNode list(std::string head) {
  SNode n;
  n.open = '(';
  n.kids.push_back(atom(std::move(head)));
  return n;
}

SNode bracket() {
  SNode n;
  n.open = '[';
  return n;
}

SNode labeled(std::string key, SNode node) {
  node.label = std::move(key) + "=";
  return node;
}

size_t measure(SNode& n) {
  if (n.is_atom()) return n.flat = n.label.size() + n.text.size();
  size_t width = n.label.size() + 2;
  for (size_t i = 0; i < n.kids.size(); ++i) width += measure(n.kids[i]) + (i > 0 ? 1 : 0);
  return n.flat = width;
}

void render_flat(const SNode& n, std::string& out) {
  out += n.label;
  if (n.is_atom()) {
    out += n.text;
    return;
  }
  out += n.open;
  for (size_t i = 0; i < n.kids.size(); ++i) {
    if (i > 0) out += ' ';
    render_flat(n.kids[i], out);
  }
  out += n.open == '(' ? ')' : ']';
}

void render(const SNode& n, size_t indent, std::string& out) {
  if (n.is_atom() || indent + n.flat <= kLineWidth) {
    render_flat(n, out);
    return;
  }
  out += n.label;
  out += n.open;
  size_t i = 0;
  // Leading atoms (the head and inline scalars) stay on the first line.
  for (; i < n.kids.size() && n.kids[i].is_atom(); ++i) {
    if (i > 0) out += ' ';
    render_flat(n.kids[i], out);
  }
  for (; i < n.kids.size(); ++i) {
    out += '\n';
    out.append(indent + 2, ' ');
    render(n.kids[i], indent + 2, out);
  }
  out += n.open == '(' ? ')' : ']';
}

std::string layout(SNode node) {
  measure(node);
  std::string out;
  render(node, 0, out);
  out += '\n';
  return out;
}

// ---------------------------------------------------------------------------- scalars
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c >= 0x20 && c <= 0x7e) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  if (v == std::nearbyint(v) && std::fabs(v) < 1e300) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  return buf;
}

std::string boolean(bool b) { return b ? "true" : "false"; }

const char* prim_kind_name(PrimKind k) {
  static constexpr const char* kNames[] = {
      "IntImm", "FloatImm", "StringImm", "Var", "Add", "Sub", "Mul", "Div", "Mod",
      "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE",
      "And", "Or", "Not", "Select", "Cast", "BufferLoad", "Call", "Let"};
  return kNames[static_cast<int>(k)];
}

const char* for_kind_name(ForKind k) {
  static constexpr const char* kNames[] = {"serial", "parallel", "vectorized", "unrolled",
                                           "thread_binding"};
  return kNames[static_cast<int>(k)];
}

const char* iter_type_name(IterType t) {
  static constexpr const char* kNames[] = {"DataPar", "Reduce", "Scan", "Opaque"};
  return kNames[static_cast<int>(t)];
}

double half_to_double(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

// Decodes one constant element as a printable number; nullopt for formats not decoded.
std::optional<std::string> element(DataType dt, const uint8_t* p) {
  auto load = [p](auto value) {
    std::memcpy(&value, p, sizeof value);
    return value;
  };
  if (dt.is_bool()) return boolean(p[0] != 0);
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
      case 16: return number(half_to_double(load(uint16_t{})));
      case 32: return number(load(float{}));
      case 64: return number(load(double{}));
    }
  }
  if (dt.code == DataType::Code::BFloat && dt.bits == 16) {
    uint32_t bits = uint32_t(load(uint16_t{})) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return number(f);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------- the dumper
class Dumper {
 public:
  explicit Dumper(const DumpOptions& options) : options_(options) {}

  SNode module(const IRModule& m) {
    SNode n = list("IRModule");
    static constexpr const char* kTopLevel[] = {"module", "function", "prim_func"};
    n.kids.push_back(labeled("top_level", atom(kTopLevel[static_cast<int>(m.top_level)])));
    // The class name is arbitrary source text (the printer always says "Module"): it is part of
    // the naming, not of the program.
    if (options_.var_names) n.kids.push_back(labeled("name", atom(quote(m.name))));
    n.kids.push_back(labeled("check_well_formed", atom(boolean(m.check_well_formed))));
    n.kids.push_back(labeled("s_tir", atom(boolean(m.s_tir))));
    n.kids.push_back(labeled("has_metadata_def", atom(boolean(m.has_metadata_def))));
    n.kids.push_back(labeled("attrs", attrs(m.attrs)));
    n.kids.push_back(labeled("global_infos", attrs(m.global_infos)));
    SNode vdevices = bracket();
    for (const VDevice* v : m.vdevices) vdevices.kids.push_back(vdevice_def(v));
    n.kids.push_back(labeled("vdevices", std::move(vdevices)));
    // An IRModule maps names to functions: with anonymous variables (AST equality) the globals
    // are dumped by name, since source order is not part of the program.
    std::vector<const GlobalDef*> globals;
    for (const GlobalDef& g : m.globals) globals.push_back(&g);
    if (!options_.var_names) {
      std::stable_sort(globals.begin(), globals.end(), [](const GlobalDef* a, const GlobalDef* b) {
        return (a->gvar ? a->gvar->name : "") < (b->gvar ? b->gvar->name : "");
      });
    }
    lone_function_ = m.top_level != TopLevel::Module;
    for (const GlobalDef* g : globals) n.kids.push_back(global(*g));
    return n;
  }

  SNode expr(const Expr* e) {
    if (!e) return atom("null");
    SNode n = expr_node(e);
    span(n, e->span);
    return n;
  }

  SNode sinfo(const StructInfo* s) {
    if (!s) return atom("null");
    SNode n = sinfo_node(s);
    span(n, s->span);
    return n;
  }

  SNode prim(const PrimExpr* e) {
    if (!e) return atom("null");
    SNode n = prim_node(e);
    span(n, e->span);
    return n;
  }

  SNode stmt(const Stmt* s) {
    if (!s) return atom("null");
    SNode n = stmt_node(s);
    span(n, s->span);
    return n;
  }

 private:
  void span(SNode& n, Span s) {
    if (!options_.spans) return;
    std::string text = "@" + std::to_string(s.begin) + ":" + std::to_string(s.end);
    if (n.is_atom()) {
      n.text += text;
    } else {
      // After the head, so the node still reads as "(Kind@..."; keep it an inline atom.
      n.kids.insert(n.kids.begin() + 1, atom(text));
    }
  }

  // A variable's printed name: its own (disambiguated by `#k` when distinct variables share it)
  // or its number in order of first appearance.
  std::string label(const void* node, const std::string& name) {
    if (!options_.var_names) {
      auto [it, inserted] = numbers_.emplace(node, numbers_.size());
      return "%" + std::to_string(it->second);
    }
    std::vector<const void*>& same_name = by_name_[name];
    size_t index = 0;
    while (index < same_name.size() && same_name[index] != node) ++index;
    if (index == same_name.size()) same_name.push_back(node);
    std::string text = name.empty() ? "<anon>" : name;
    if (index > 0) text += "#" + std::to_string(index);
    return text;
  }

  // ------------------------------------------------------------------ module level
  SNode vdevice_def(const VDevice* v) {
    SNode n = list("VDevice");
    n.kids.push_back(labeled("index", atom(std::to_string(v->index))));
    n.kids.push_back(labeled("kind", atom(quote(v->target_kind))));
    n.kids.push_back(labeled("dev_id", atom(std::to_string(v->dev_id))));
    n.kids.push_back(labeled("mem_scope", atom(quote(v->mem_scope))));
    n.kids.push_back(labeled("target", attr_value(v->target)));
    span(n, v->span);
    return n;
  }

  SNode vdevice_ref(const VDevice* v) {
    if (!v) return atom("null");
    return atom("vdevice#" + std::to_string(v->index) + ":" + v->target_kind + ":" +
                std::to_string(v->dev_id) + ":" + v->mem_scope);
  }

  SNode global(const GlobalDef& g) {
    SNode n = list("GlobalDef");
    // A lone private function has no name in TVM's AST (the printer calls it `main`).
    auto f = g.function();
    auto pf = g.prim_func();
    bool nameless = !options_.var_names && lone_function_ &&
                    ((f && f->is_private) || (pf && pf->is_private));
    n.kids.push_back(atom(nameless ? "<lone>" : g.gvar ? g.gvar->name : "<null>"));
    span(n, g.span);
    if (f) {
      n.kids.push_back(expr(f));
    } else if (pf) {
      n.kids.push_back(prim_func(pf));
    } else if (auto ef = g.extern_func()) {
      n.kids.push_back(expr(ef));
    } else {
      n.kids.push_back(atom("null"));
    }
    return n;
  }

  // ------------------------------------------------------------------ attributes
  // Attributes and string-keyed dictionaries are maps: they are dumped sorted by key so that
  // two ASTs differing only in the order the source wrote the keys dump the same (the printer
  // sorts them as TVM does).
  SNode attrs(const Attrs& a) {
    SNode n = list("attrs");
    std::vector<const std::pair<std::string, AttrValue>*> sorted;
    for (auto& entry : a.entries) sorted.push_back(&entry);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto* x, auto* y) { return x->first < y->first; });
    for (auto* sorted_entry : sorted) {
      auto& [key, value] = *sorted_entry;
      SNode entry = list(quote(key));
      entry.kids.push_back(attr_value(value));
      n.kids.push_back(std::move(entry));
    }
    return n;
  }

  SNode attr_value(const AttrValue& v) {
    SNode n = attr_value_node(v);
    span(n, v.span);
    return n;
  }

  SNode attr_value_node(const AttrValue& v) {
    const AttrValue::Value& value = v.value;
    if (std::holds_alternative<AttrValue::None>(value)) return atom("None");
    if (auto b = std::get_if<bool>(&value)) return atom(*b ? "True" : "False");
    if (auto i = std::get_if<int64_t>(&value)) return atom(std::to_string(*i));
    if (auto d = std::get_if<double>(&value)) return atom("f" + number(*d));
    if (auto s = std::get_if<std::string>(&value)) return atom(quote(*s));
    if (auto l = std::get_if<AttrValue::List>(&value)) {
      SNode n = bracket();
      for (const AttrValue& item : *l) n.kids.push_back(attr_value(item));
      return n;
    }
    if (auto d = std::get_if<AttrValue::Dict>(&value)) {
      SNode n = list("dict");
      std::vector<const std::pair<AttrValue, AttrValue>*> sorted;
      for (auto& entry : *d) sorted.push_back(&entry);
      std::stable_sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) {
        auto* a = x->first.template get_if<std::string>();
        auto* b = y->first.template get_if<std::string>();
        if (!a || !b) return !a && b;  // non-string keys (TIR variables) first, as written
        return *a < *b;
      });
      for (auto* sorted_entry : sorted) {
        auto& [key, item] = *sorted_entry;
        SNode entry = list("entry");
        entry.kids.push_back(attr_value(key));
        entry.kids.push_back(attr_value(item));
        n.kids.push_back(std::move(entry));
      }
      return n;
    }
    if (auto p = std::get_if<const PrimExpr*>(&value)) return prim(*p);
    if (auto m = std::get_if<const IndexMap*>(&value)) return index_map(*m);
    if (auto s = std::get_if<const StructInfo*>(&value)) return sinfo(*s);
    if (auto e = std::get_if<const Expr*>(&value)) return expr(*e);
    if (auto dt = std::get_if<DataType>(&value)) return atom("dtype:" + dt->str());
    return atom("?");
  }

  SNode index_map(const IndexMap* m) {
    if (!m) return atom("null");
    SNode n = list("IndexMap");
    SNode params = bracket();
    for (const PrimVar* p : m->params) params.kids.push_back(prim(p));
    SNode results = bracket();
    for (const PrimExpr* r : m->results) results.kids.push_back(prim(r));
    n.kids.push_back(labeled("params", std::move(params)));
    n.kids.push_back(labeled("results", std::move(results)));
    span(n, m->span);
    return n;
  }

  // ------------------------------------------------------------------ Relax expressions
  SNode var_ref(const Var* v) {
    SNode n = list(v->is_dataflow() ? "DataflowVar" : "Var");
    n.kids.push_back(atom(label(v, v->name)));
    return n;
  }

  // A variable where it is defined: parameters and binding targets carry their annotation.
  SNode var_def(const Var* v) {
    if (!v) return atom("null");
    SNode n = var_ref(v);
    if (v->annotation) n.kids.push_back(labeled("annotation", sinfo(v->annotation)));
    span(n, v->span);
    return n;
  }

  SNode exprs(const std::vector<const Expr*>& items) {
    SNode n = bracket();
    for (const Expr* e : items) n.kids.push_back(expr(e));
    return n;
  }

  SNode expr_node(const Expr* e) {
    switch (e->kind) {
      case ExprKind::Constant: return constant(cast<Constant>(e));
      case ExprKind::Var:
      case ExprKind::DataflowVar: return var_ref(cast<Var>(e));
      case ExprKind::GlobalVar: {
        SNode n = list("GlobalVar");
        n.kids.push_back(atom(cast<GlobalVar>(e)->name));
        return n;
      }
      case ExprKind::Tuple: {
        SNode n = list("Tuple");
        for (const Expr* f : cast<Tuple>(e)->fields) n.kids.push_back(expr(f));
        return n;
      }
      case ExprKind::SeqExpr: return seq_expr(cast<SeqExpr>(e));
      case ExprKind::PrimValue: {
        SNode n = list("PrimValue");
        n.kids.push_back(prim(cast<PrimValue>(e)->value));
        return n;
      }
      case ExprKind::StringImm: {
        SNode n = list("StringImm");
        n.kids.push_back(atom(quote(cast<StringImm>(e)->value)));
        return n;
      }
      case ExprKind::DataTypeImm: {
        SNode n = list("DataTypeImm");
        n.kids.push_back(atom(cast<DataTypeImm>(e)->value.str()));
        return n;
      }
      case ExprKind::Function: return function(cast<Function>(e));
      case ExprKind::If: {
        auto i = cast<If>(e);
        SNode n = list("If");
        n.kids.push_back(labeled("cond", expr(i->cond)));
        n.kids.push_back(labeled("then", expr(i->true_branch)));
        n.kids.push_back(labeled("else", expr(i->false_branch)));
        return n;
      }
      case ExprKind::ExternFunc: {
        auto f = cast<ExternFunc>(e);
        SNode n = list("ExternFunc");
        n.kids.push_back(atom(quote(f->global_symbol)));
        if (f->struct_info) n.kids.push_back(labeled("struct_info", sinfo(f->struct_info)));
        return n;
      }
      case ExprKind::Call: return call(cast<Call>(e));
      case ExprKind::ShapeExpr: {
        SNode n = list("ShapeExpr");
        for (const PrimExpr* v : cast<ShapeExpr>(e)->values) n.kids.push_back(prim(v));
        return n;
      }
      case ExprKind::TupleGetItem: {
        auto t = cast<TupleGetItem>(e);
        SNode n = list("TupleGetItem");
        n.kids.push_back(atom(std::to_string(t->index)));
        n.kids.push_back(expr(t->tuple));
        return n;
      }
      case ExprKind::Op: {
        SNode n = list("Op");
        n.kids.push_back(atom(cast<Op>(e)->name));
        return n;
      }
      case ExprKind::Error: {
        SNode n = list("Error");
        if (auto u = cast<ErrorExpr>(e); u->is_unresolved_name()) n.kids.push_back(atom(u->name));
        return n;
      }
    }
    return atom("?");
  }

  SNode constant(const Constant* c) {
    SNode n = list("Constant");
    n.kids.push_back(atom(c->dtype.str()));
    SNode shape = bracket();
    for (int64_t d : c->shape) shape.kids.push_back(atom(std::to_string(d)));
    n.kids.push_back(labeled("shape", std::move(shape)));
    if (c->metadata) {
      SNode meta = list("metadata");
      meta.kids.push_back(atom(quote(c->metadata->key)));
      meta.kids.push_back(atom(std::to_string(c->metadata->index)));
      n.kids.push_back(std::move(meta));
    }
    n.kids.push_back(labeled("data", constant_data(c)));
    return n;
  }

  SNode constant_data(const Constant* c) {
    SNode data = bracket();
    size_t count = 1;
    for (int64_t d : c->shape) count *= size_t(d < 0 ? 0 : d);
    size_t lanes = c->dtype.lanes ? c->dtype.lanes : 1;
    size_t element_bytes = c->dtype.bits <= 8 ? 1 : size_t(c->dtype.bits) / 8;
    element_bytes *= lanes;
    bool decodable = lanes == 1 && c->data.size() == count * element_bytes &&
                     element(c->dtype, c->data.data()).has_value();
    if (c->data.empty() || !decodable) {
      // Raw bytes: formats the dump does not decode, or data of an unexpected size.
      for (uint8_t b : c->data) data.kids.push_back(atom(std::to_string(b)));
      if (!c->data.empty()) data.label = "bytes";
      return data;
    }
    for (size_t i = 0; i < count; ++i)
      data.kids.push_back(atom(*element(c->dtype, c->data.data() + i * element_bytes)));
    return data;
  }

  SNode call(const Call* c) {
    SNode n = list("Call");
    n.kids.push_back(labeled("op", expr(c->op)));
    n.kids.push_back(labeled("args", exprs(c->args)));
    if (!c->sinfo_args.empty()) {
      SNode s = bracket();
      for (const StructInfo* si : c->sinfo_args) s.kids.push_back(sinfo(si));
      n.kids.push_back(labeled("sinfo_args", std::move(s)));
    }
    if (!c->attrs.empty()) n.kids.push_back(attrs(c->attrs));
    return n;
  }

  SNode function(const Function* f) {
    SNode n = list("Function");
    n.kids.push_back(labeled("pure", atom(boolean(f->is_pure))));
    n.kids.push_back(labeled("private", atom(boolean(f->is_private))));
    if (options_.spans) {
      n.kids.push_back(labeled("name_span", atom(std::to_string(f->name_span.begin) + ":" +
                                                 std::to_string(f->name_span.end))));
    }
    SNode params = bracket();
    for (const Var* p : f->params) params.kids.push_back(var_def(p));
    n.kids.push_back(labeled("params", std::move(params)));
    n.kids.push_back(labeled("ret", sinfo(f->ret_struct_info)));
    n.kids.push_back(attrs(f->attrs));
    n.kids.push_back(labeled("body", expr(f->body)));
    return n;
  }

  SNode seq_expr(const SeqExpr* s) {
    SNode n = list("SeqExpr");
    for (const BindingBlock* b : s->blocks) n.kids.push_back(block(b));
    n.kids.push_back(labeled("body", expr(s->body)));
    return n;
  }

  SNode block(const BindingBlock* b) {
    if (!b) return atom("null");
    SNode n = list(b->is_dataflow ? "DataflowBlock" : "BindingBlock");
    span(n, b->span);
    for (const Binding* binding : b->bindings) n.kids.push_back(this->binding(binding));
    return n;
  }

  SNode binding(const Binding* b) {
    if (!b) return atom("null");
    SNode n = list(b->is_match_cast() ? "MatchCast" : "VarBinding");
    span(n, b->span);
    n.kids.push_back(var_def(b->var));
    if (b->is_match_cast()) n.kids.push_back(labeled("struct_info", sinfo(b->match_cast)));
    n.kids.push_back(labeled("value", expr(b->value)));
    return n;
  }

  // ------------------------------------------------------------------ StructInfo
  SNode prims(const std::vector<const PrimExpr*>& items) {
    SNode n = bracket();
    for (const PrimExpr* e : items) n.kids.push_back(prim(e));
    return n;
  }

  SNode sinfo_node(const StructInfo* s) {
    switch (s->kind) {
      case SInfoKind::Object: return list("ObjectSInfo");
      case SInfoKind::Prim: {
        auto p = cast<PrimSInfo>(s);
        SNode n = list("PrimSInfo");
        n.kids.push_back(atom(p->dtype.str()));
        if (p->value) n.kids.push_back(labeled("value", prim(p->value)));
        return n;
      }
      case SInfoKind::Shape: {
        auto p = cast<ShapeSInfo>(s);
        SNode n = list("ShapeSInfo");
        n.kids.push_back(labeled("ndim", atom(std::to_string(p->ndim))));
        if (p->values) n.kids.push_back(labeled("values", prims(*p->values)));
        return n;
      }
      case SInfoKind::Tensor: {
        auto t = cast<TensorSInfo>(s);
        SNode n = list("TensorSInfo");
        n.kids.push_back(atom(t->dtype.str()));
        n.kids.push_back(labeled("ndim", atom(std::to_string(t->ndim))));
        if (t->vdevice) n.kids.push_back(labeled("vdevice", vdevice_ref(t->vdevice)));
        if (t->shape) n.kids.push_back(labeled("shape", expr(t->shape)));
        if (t->dist) {
          n.kids.push_back(labeled("device_mesh", atom(mesh_reference_text(*t->dist->mesh))));
          n.kids.push_back(labeled("placement", atom(placement_text(t->dist->placement))));
        }
        return n;
      }
      case SInfoKind::Tuple: {
        SNode n = list("TupleSInfo");
        for (const StructInfo* f : cast<TupleSInfo>(s)->fields) n.kids.push_back(sinfo(f));
        return n;
      }
      case SInfoKind::Func: {
        auto f = cast<FuncSInfo>(s);
        SNode n = list("FuncSInfo");
        n.kids.push_back(labeled("purity", atom(boolean(f->purity))));
        if (!f->derive_func.empty())
          n.kids.push_back(labeled("derive_func", atom(quote(f->derive_func))));
        if (f->params) {
          SNode params = bracket();
          for (const StructInfo* p : *f->params) params.kids.push_back(sinfo(p));
          n.kids.push_back(labeled("params", std::move(params)));
        } else {
          n.kids.push_back(atom("opaque"));
        }
        n.kids.push_back(labeled("ret", sinfo(f->ret)));
        return n;
      }
    }
    return atom("?");
  }

  // ------------------------------------------------------------------ PrimExpr
  SNode prim_var(const PrimVar* v) {
    SNode n = list(v->is_size_var ? "SizeVar" : "Var");
    n.kids.push_back(atom(v->dtype.str()));
    n.kids.push_back(atom(label(v, v->name)));
    return n;
  }

  SNode prim_node(const PrimExpr* e) {
    SNode n = list(prim_kind_name(e->kind));
    switch (e->kind) {
      case PrimKind::IntImm:
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(atom(std::to_string(cast<IntImm>(e)->value)));
        return n;
      case PrimKind::FloatImm:
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(atom(number(cast<FloatImm>(e)->value)));
        return n;
      case PrimKind::StringImm:
        n.kids.push_back(atom(quote(cast<PrimStringImm>(e)->value)));
        return n;
      case PrimKind::Var: return prim_var(cast<PrimVar>(e));
      case PrimKind::Not:
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(prim(cast<PrimNot>(e)->a));
        return n;
      case PrimKind::Select: {
        auto s = cast<PrimSelect>(e);
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(prim(s->condition));
        n.kids.push_back(prim(s->true_value));
        n.kids.push_back(prim(s->false_value));
        return n;
      }
      case PrimKind::Cast:
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(prim(cast<PrimCast>(e)->value));
        return n;
      case PrimKind::BufferLoad: {
        auto l = cast<BufferLoad>(e);
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(buffer_ref(l->buffer));
        n.kids.push_back(prims(l->indices));
        return n;
      }
      case PrimKind::Call: {
        auto c = cast<PrimCall>(e);
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(atom(c->op));
        for (const PrimExpr* a : c->args) n.kids.push_back(prim(a));
        return n;
      }
      case PrimKind::Let: {
        auto l = cast<PrimLet>(e);
        n.kids.push_back(atom(e->dtype.str()));
        n.kids.push_back(prim(l->var));
        n.kids.push_back(labeled("value", prim(l->value)));
        n.kids.push_back(labeled("body", prim(l->body)));
        return n;
      }
      default: break;
    }
    if (auto b = dyn_cast<PrimBinary>(e)) {
      n.kids.push_back(atom(e->dtype.str()));
      n.kids.push_back(prim(b->a));
      n.kids.push_back(prim(b->b));
    }
    return n;
  }

  // ------------------------------------------------------------------ TIR
  SNode buffer_ref(const Buffer* b) {
    if (!b) return atom("null");
    return atom("buffer:" + label(b, b->name));
  }

  // The full description of a buffer, printed where it is defined (parameter, buffer_map,
  // allocation, match); later mentions are references.
  SNode buffer_def(const Buffer* b) {
    if (!b) return atom("null");
    if (!defined_buffers_.insert(b).second) return buffer_ref(b);
    SNode n = list("Buffer");
    n.kids.push_back(atom(label(b, b->name)));
    n.kids.push_back(atom(b->dtype.str()));
    span(n, b->span);
    n.kids.push_back(labeled("shape", prims(b->shape)));
    if (!b->strides.empty()) n.kids.push_back(labeled("strides", prims(b->strides)));
    if (b->elem_offset) n.kids.push_back(labeled("elem_offset", prim(b->elem_offset)));
    n.kids.push_back(labeled("scope", atom(quote(b->scope))));
    n.kids.push_back(labeled("align", atom(std::to_string(b->align))));
    n.kids.push_back(labeled("offset_factor", atom(std::to_string(b->offset_factor))));
    if (!b->buffer_type.empty())
      n.kids.push_back(labeled("buffer_type", atom(quote(b->buffer_type))));
    if (!b->axis_separators.empty()) {
      SNode axes = bracket();
      for (int64_t a : b->axis_separators) axes.kids.push_back(atom(std::to_string(a)));
      n.kids.push_back(labeled("axis_separators", std::move(axes)));
    }
    return n;
  }

  SNode range(const PrimRange& r) {
    SNode n = list("Range");
    span(n, r.span);
    n.kids.push_back(prim(r.min));
    n.kids.push_back(prim(r.extent));
    return n;
  }

  SNode region(const BufferRegion& r) {
    SNode n = list("Region");
    n.kids.push_back(buffer_ref(r.buffer));
    span(n, r.span);
    for (const PrimRange& range : r.region) n.kids.push_back(this->range(range));
    return n;
  }

  SNode regions(const std::optional<std::vector<BufferRegion>>& rs) {
    if (!rs) return atom("inferred");
    SNode n = bracket();
    for (const BufferRegion& r : *rs) n.kids.push_back(region(r));
    return n;
  }

  SNode prim_func(const PrimFunc* f) {
    SNode n = list("PrimFunc");
    n.kids.push_back(labeled("private", atom(boolean(f->is_private))));
    n.kids.push_back(labeled("s_tir", atom(boolean(f->s_tir))));
    n.kids.push_back(labeled("ret_type", atom(f->ret_type ? f->ret_type->str() : "none")));
    span(n, f->span);
    if (options_.spans) {
      n.kids.push_back(labeled("name_span", atom(std::to_string(f->name_span.begin) + ":" +
                                                 std::to_string(f->name_span.end))));
    }
    SNode params = bracket();
    for (const PrimFuncParam& p : f->params) {
      SNode param = list("param");
      span(param, p.span);
      param.kids.push_back(prim(p.var));
      // Whether the buffer was written as a `T.Buffer` parameter or matched with T.match_buffer
      // is spelling (TVM's printer chooses); the buffer itself is in buffer_map.
      if (p.buffer && options_.var_names) param.kids.push_back(atom("as_buffer"));
      params.kids.push_back(std::move(param));
    }
    n.kids.push_back(labeled("params", std::move(params)));
    SNode map = bracket();
    for (auto& [var, buffer] : f->buffer_map) {
      SNode entry = list("map");
      entry.kids.push_back(prim(var));
      entry.kids.push_back(buffer_def(buffer));
      map.kids.push_back(std::move(entry));
    }
    n.kids.push_back(labeled("buffer_map", std::move(map)));
    n.kids.push_back(attrs(f->attrs));
    n.kids.push_back(labeled("body", stmt(f->body)));
    return n;
  }

  SNode stmt_node(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Seq: {
        SNode n = list("Seq");
        for (const Stmt* child : cast<SeqStmt>(s)->stmts) n.kids.push_back(stmt(child));
        return n;
      }
      case StmtKind::For: {
        auto f = cast<For>(s);
        SNode n = list("For");
        n.kids.push_back(atom(for_kind_name(f->for_kind)));
        if (!f->thread_tag.empty()) n.kids.push_back(labeled("thread", atom(quote(f->thread_tag))));
        n.kids.push_back(prim(f->loop_var));
        n.kids.push_back(labeled("min", prim(f->min)));
        n.kids.push_back(labeled("extent", prim(f->extent)));
        if (f->step) n.kids.push_back(labeled("step", prim(f->step)));
        if (!f->annotations.empty()) n.kids.push_back(attrs(f->annotations));
        n.kids.push_back(labeled("body", stmt(f->body)));
        return n;
      }
      case StmtKind::While: {
        auto w = cast<While>(s);
        SNode n = list("While");
        n.kids.push_back(labeled("cond", prim(w->condition)));
        n.kids.push_back(labeled("body", stmt(w->body)));
        return n;
      }
      case StmtKind::If: {
        auto i = cast<IfThenElse>(s);
        SNode n = list("IfThenElse");
        n.kids.push_back(labeled("cond", prim(i->condition)));
        n.kids.push_back(labeled("then", stmt(i->then_case)));
        if (i->else_case) n.kids.push_back(labeled("else", stmt(i->else_case)));
        return n;
      }
      case StmtKind::Block: return block_stmt(cast<Block>(s));
      case StmtKind::BufferStore: {
        auto b = cast<BufferStore>(s);
        SNode n = list("BufferStore");
        n.kids.push_back(buffer_ref(b->buffer));
        n.kids.push_back(prims(b->indices));
        n.kids.push_back(labeled("value", prim(b->value)));
        return n;
      }
      case StmtKind::Let: {
        auto l = cast<LetStmt>(s);
        SNode n = list("LetStmt");
        n.kids.push_back(prim(l->var));
        n.kids.push_back(labeled("value", prim(l->value)));
        n.kids.push_back(labeled("body", stmt(l->body)));
        return n;
      }
      case StmtKind::Evaluate: {
        SNode n = list("Evaluate");
        n.kids.push_back(prim(cast<Evaluate>(s)->value));
        return n;
      }
      case StmtKind::Assert: {
        auto a = cast<AssertStmt>(s);
        SNode n = list("Assert");
        n.kids.push_back(labeled("cond", prim(a->condition)));
        if (!a->kind_name.empty()) n.kids.push_back(labeled("kind", atom(quote(a->kind_name))));
        SNode messages = bracket();
        for (const std::string& m : a->messages) messages.kids.push_back(atom(quote(m)));
        n.kids.push_back(labeled("messages", std::move(messages)));
        return n;
      }
      case StmtKind::AllocBuffer: {
        SNode n = list("AllocBuffer");
        n.kids.push_back(buffer_def(cast<AllocBufferStmt>(s)->buffer));
        return n;
      }
      case StmtKind::Return: {
        SNode n = list("Return");
        n.kids.push_back(prim(cast<ReturnStmt>(s)->value));
        return n;
      }
      case StmtKind::Break: return list("Break");
      case StmtKind::Continue: return list("Continue");
    }
    return atom("?");
  }

  SNode block_stmt(const Block* b) {
    SNode n = list("Block");
    n.kids.push_back(atom(quote(b->name)));
    if (b->is_root) n.kids.push_back(atom("root"));
    SNode iters = bracket();
    for (const IterVar& iv : b->iter_vars) {
      SNode it = list("IterVar");
      it.kids.push_back(atom(iter_type_name(iv.iter_type)));
      span(it, iv.span);
      it.kids.push_back(prim(iv.var));
      it.kids.push_back(labeled("dom", range(iv.dom)));
      it.kids.push_back(labeled("binding", prim(iv.binding)));
      iters.kids.push_back(std::move(it));
    }
    n.kids.push_back(labeled("iter_vars", std::move(iters)));
    if (b->predicate) n.kids.push_back(labeled("where", prim(b->predicate)));
    n.kids.push_back(labeled("reads", regions(b->reads)));
    n.kids.push_back(labeled("writes", regions(b->writes)));
    if (!b->alloc_buffers.empty()) {
      SNode allocs = bracket();
      for (const Buffer* buf : b->alloc_buffers) allocs.kids.push_back(buffer_def(buf));
      n.kids.push_back(labeled("alloc_buffers", std::move(allocs)));
    }
    if (!b->match_buffers.empty()) {
      SNode matches = bracket();
      for (const MatchBufferRegion& m : b->match_buffers) {
        SNode match = list("MatchBuffer");
        match.kids.push_back(buffer_def(m.buffer));
        match.kids.push_back(region(m.source));
        matches.kids.push_back(std::move(match));
      }
      n.kids.push_back(labeled("match_buffers", std::move(matches)));
    }
    if (!b->annotations.empty()) n.kids.push_back(attrs(b->annotations));
    if (b->init) n.kids.push_back(labeled("init", stmt(b->init)));
    n.kids.push_back(labeled("body", stmt(b->body)));
    return n;
  }

  const DumpOptions& options_;
  bool lone_function_ = false;
  std::unordered_map<const void*, size_t> numbers_;
  std::unordered_map<std::string, std::vector<const void*>> by_name_;
  std::unordered_set<const Buffer*> defined_buffers_;
};

}  // namespace

std::string dump_module(const IRModule& module, const DumpOptions& options) {
  return layout(Dumper(options).module(module));
}

std::string dump_expr(const Expr* expr, const DumpOptions& options) {
  return layout(Dumper(options).expr(expr));
}

std::string dump_struct_info(const StructInfo* sinfo, const DumpOptions& options) {
  return layout(Dumper(options).sinfo(sinfo));
}

std::string dump_prim_expr(const PrimExpr* expr, const DumpOptions& options) {
  return layout(Dumper(options).prim(expr));
}

std::string dump_stmt(const Stmt* stmt, const DumpOptions& options) {
  return layout(Dumper(options).stmt(stmt));
}

}  // namespace raxc::ir
