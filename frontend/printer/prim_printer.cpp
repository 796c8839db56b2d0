// PrimExpr spelling (TVM src/script/printer/tir/expr.cc, ir.cc and relax/tir.cc): typed literals,
// operators with Python precedence, intrinsics, and the declaration of variables on first use.
#include <cinttypes>

#include "frontend/printer/printer_impl.h"

namespace raxc::printer::detail {

using namespace ir;

namespace {

bool is_const(const PrimExpr* e) {
  return e->kind == PrimKind::IntImm || e->kind == PrimKind::FloatImm;
}

// The value of a numeric literal, if `e` is one.
std::optional<double> const_value(const PrimExpr* e) {
  if (auto i = dyn_cast<IntImm>(e)) return double(i->value);
  if (auto f = dyn_cast<FloatImm>(e)) return f->value;
  return std::nullopt;
}

// Whether TVM's operator would fold or retype `a op b` (arith::TryConstFold, BinaryOpMatchTypes):
// then the printer spells the node explicitly (`T.Add(a, b)`) so that it reads back unchanged.
bool operator_would_rewrite(PrimKind kind, const PrimExpr* a, const PrimExpr* b) {
  if (a->dtype != b->dtype) return true;
  if (is_const(a) && is_const(b)) return true;
  auto ca = const_value(a), cb = const_value(b);
  switch (kind) {
    case PrimKind::Add: return (ca && *ca == 0) || (cb && *cb == 0);
    case PrimKind::Sub: return cb && *cb == 0;
    case PrimKind::Mul:
      return (ca && (*ca == 0 || *ca == 1)) || (cb && (*cb == 0 || *cb == 1));
    case PrimKind::Div:
    case PrimKind::FloorDiv: return (cb && *cb == 1) || (ca && *ca == 0);
    case PrimKind::FloorMod: return (cb && *cb == 1) || (ca && *ca == 0);
    case PrimKind::And:
    case PrimKind::Or: return ca.has_value() || cb.has_value();
    default: return false;
  }
}

struct BinarySpelling {
  const char* op;      // Python operator, or null when printed as a call only
  int prec;
  const char* call;    // T.<call>(a, b)
};

BinarySpelling binary_spelling(PrimKind kind) {
  switch (kind) {
    case PrimKind::Add: return {"+", kAdd, "Add"};
    case PrimKind::Sub: return {"-", kAdd, "Sub"};
    case PrimKind::Mul: return {"*", kMult, "Mul"};
    case PrimKind::Div: return {"/", kMult, "Div"};
    case PrimKind::Mod: return {nullptr, kAtom, "truncmod"};
    case PrimKind::FloorDiv: return {"//", kMult, "FloorDiv"};
    case PrimKind::FloorMod: return {"%", kMult, "FloorMod"};
    case PrimKind::Min: return {nullptr, kAtom, "min"};
    case PrimKind::Max: return {nullptr, kAtom, "max"};
    case PrimKind::EQ: return {"==", kCompare, "EQ"};
    case PrimKind::NE: return {"!=", kCompare, "NE"};
    case PrimKind::LT: return {"<", kCompare, "LT"};
    case PrimKind::LE: return {"<=", kCompare, "LE"};
    case PrimKind::GT: return {">", kCompare, "GT"};
    case PrimKind::GE: return {">=", kCompare, "GE"};
    case PrimKind::And: return {"and", kAnd, "And"};
    case PrimKind::Or: return {"or", kOr, "Or"};
    default: return {nullptr, kAtom, "?"};
  }
}

// Intrinsics whose result dtype is printed as an argument (TScriptDtypePrintLocation).
bool dtype_first(std::string_view name) {
  for (std::string_view n :
       {"reinterpret", "call_extern", "call_pure_extern", "call_llvm_intrin",
        "call_llvm_pure_intrin", "ptx_mma", "ptx_mma_sp", "ptx_ldmatrix", "ptx_cp_async",
        "ptx_cp_async_bulk", "mma_store", "mma_fill", "vectorhigh", "vectorlow", "vectorcombine",
        "dp4a", "get_active_lane_mask", "type_annotation"})
    if (name == n) return true;
  return false;
}

}  // namespace

std::string Printer::paren(const Doc& d, int parent, bool same_too) {
  if (d.prec < parent || (same_too && d.prec == parent)) return "(" + d.text + ")";
  return d.text;
}

Doc Printer::prim(const PrimExpr* e) {
  if (!e) return {"None"};
  switch (e->kind) {
    case PrimKind::IntImm: return int_literal(cast<IntImm>(e));
    case PrimKind::FloatImm: return float_literal(cast<FloatImm>(e));
    case PrimKind::StringImm: return {quote_string(cast<PrimStringImm>(e)->value)};
    case PrimKind::Var: return prim_var(cast<PrimVar>(e));
    case PrimKind::Not: {
      const PrimExpr* a = cast<PrimNot>(e)->a;
      Doc inner = prim(a);
      if (is_const(a)) return {T("Not") + "(" + inner.text + ")"};
      return {"not " + paren(inner, kNot, false), kNot};
    }
    case PrimKind::Select: {
      auto s = cast<PrimSelect>(e);
      std::string c = prim(s->condition).text, t = prim(s->true_value).text,
                  f = prim(s->false_value).text;
      return {T("Select") + "(" + c + ", " + t + ", " + f + ")"};
    }
    case PrimKind::Cast: {
      auto c = cast<PrimCast>(e);
      std::string value = prim(c->value).text;
      return {T("Cast") + "(" + quote_string(c->dtype.str()) + ", " + value + ")"};
    }
    case PrimKind::BufferLoad: {
      auto l = cast<BufferLoad>(e);
      std::string name = buffer_name(l->buffer);
      return {name + indices(l->indices)};
    }
    case PrimKind::Call: return prim_call(cast<PrimCall>(e));
    case PrimKind::Let: {
      auto l = cast<PrimLet>(e);
      std::string var = names_.define(l->var, l->var->name.empty() ? "v" : l->var->name);
      std::string value = prim(l->value).text;
      std::string body = prim(l->body).text;
      return {T("Let") + "(" + body + ", where={" + var + ": " + value + "})"};
    }
    default: return binary(cast<PrimBinary>(e));
  }
}

Doc Printer::int_literal(const IntImm* imm) {
  std::string digits = imm->dtype.code == DataType::Code::UInt && imm->dtype.bits == 64
                           ? std::to_string(uint64_t(imm->value))
                           : std::to_string(imm->value);
  if (imm->dtype.is_bool()) {
    std::string b = imm->value ? "True" : "False";
    return {relax_context_ ? b : T("bool") + "(" + b + ")"};
  }
  // Relax prints every integer bare (shapes are int64); TIR only int32.
  if (relax_context_ || imm->dtype == DataType::Int(32)) return {digits};
  return {T(imm->dtype.str()) + "(" + digits + ")"};
}

Doc Printer::float_literal(const FloatImm* imm) {
  return {T(imm->dtype.str()) + "(" + format_float(imm->value) + ")"};
}

Doc Printer::binary(const PrimBinary* b) {
  BinarySpelling s = binary_spelling(b->kind);
  Doc left = prim(b->a);
  Doc right = prim(b->b);
  bool integer_div = b->kind == PrimKind::Div && b->a->dtype.is_integer() &&
                     b->b->dtype.is_integer();
  if (s.op && !integer_div && !operator_would_rewrite(b->kind, b->a, b->b)) {
    // Comparisons do not chain: parenthesise a comparison on the left too.
    bool left_same = s.prec == kCompare;
    return {paren(left, s.prec, left_same) + " " + s.op + " " + paren(right, s.prec, true), s.prec};
  }
  return {T(s.call) + "(" + left.text + ", " + right.text + ")"};
}

Doc Printer::prim_call(const PrimCall* c) {
  std::string_view name = c->op;
  if (name.substr(0, 4) == "tir.") name.remove_prefix(4);
  // TVM prints the packed-call intrinsics under their builder names (T.call_packed, ...).
  if (name.substr(0, 9) == "tvm_call_") name.remove_prefix(4);
  std::string out = T(name) + "(";
  bool first = true;
  auto arg = [&](const std::string& text) {
    if (!first) out += ", ";
    first = false;
    out += text;
  };
  if (dtype_first(name)) arg(quote_string(c->dtype.str()));
  for (const PrimExpr* a : c->args) arg(prim(a).text);
  if (name == "tvm_struct_get") arg(quote_string(c->dtype.str()));
  return {out + ")"};
}

std::string Printer::var_creation(const PrimVar* v) {
  std::string ctor = v->dtype.is_handle() ? T("handle") : T(v->dtype.str());
  return ctor + (v->is_size_var ? "(is_size_var=True)" : "()");
}

// A variable seen for the first time is declared: in Relax at the top of the outermost function,
// or, while a signature is printed, at the top of that function (it becomes one of its
// signature variables); in TIR at function level before the current statement.
Doc Printer::prim_var(const PrimVar* v) {
  if (const std::string* name = names_.find(v)) return {*name};
  std::string hint = v->name.empty() ? "v" : v->name;
  if (relax_context_) {
    if (functions_.empty()) return {names_.define(v, hint)};
    FunctionState* home = func_vars_ ? functions_.back() : functions_.front();
    std::string name = names_.define(v, hint, home->frame);
    if (func_vars_) func_vars_->insert(v);
    home->pre.add(0, name + " = " + var_creation(v));
    return {name};
  }
  std::string name = names_.define(v, hint, tir_function_frame_);
  tir_pending_.add(0, name + " = " + var_creation(v));
  return {name};
}

std::string Printer::index_map(const IndexMap* m) {
  if (!m) return "None";
  names_.push_frame();
  std::string params;
  for (size_t i = 0; i < m->params.size(); ++i) {
    const PrimVar* p = m->params[i];
    params += (i ? ", " : "") + names_.define(p, p->name.empty() ? "v" : p->name);
  }
  std::string results = "(";
  for (size_t i = 0; i < m->results.size(); ++i) results += (i ? ", " : "") + prim(m->results[i]).text;
  if (m->results.size() == 1) results += ",";
  results += ")";
  names_.pop_frame();
  return T("index_map") + "(lambda " + params + ": " + results + ")";
}

const PrimExpr* Printer::add(const PrimExpr* a, const PrimExpr* b) {
  auto ia = dyn_cast<IntImm>(a), ib = dyn_cast<IntImm>(b);
  if (ia && ib) return scratch_.make<IntImm>(a->dtype, ia->value + ib->value);
  if (ib && ib->value == 0) return a;
  if (ia && ia->value == 0) return b;
  // `min + (end - min)` reads back as `end`, which keeps `range(a, b)` stable.
  if (auto sub = dyn_cast<PrimBinary>(b);
      sub && sub->kind == PrimKind::Sub && structural_equal(sub->b, a))
    return sub->a;
  return scratch_.make<PrimBinary>(PrimKind::Add, a->dtype, a, b);
}

}  // namespace raxc::printer::detail
