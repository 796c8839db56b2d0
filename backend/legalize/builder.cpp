// The TIR builder of the legalization rules (builder.h).
#include "backend/legalize/builder.h"

#include <cmath>
#include <limits>

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

bool literal(const PrimExpr* e, int64_t* value) {
  const auto* imm = ir::dyn_cast<ir::IntImm>(e);
  if (!imm) return false;
  *value = imm->value;
  return true;
}

const PrimExpr* Builder::i64(int64_t v) { return arena_.make<ir::IntImm>(DataType::Int(64), v); }

const PrimExpr* Builder::int_imm(DataType t, int64_t v) { return arena_.make<ir::IntImm>(t, v); }

const PrimExpr* Builder::float_imm(DataType t, double v) { return arena_.make<ir::FloatImm>(t, v); }

const PrimExpr* Builder::constant(DataType t, double v) {
  if (t.is_bool()) return int_imm(t, v != 0);
  if (t.is_integer()) return int_imm(t, static_cast<int64_t>(v));
  return float_imm(t, v);
}

const ir::PrimVar* Builder::var(std::string name, DataType t) {
  return arena_.make<ir::PrimVar>(std::move(name), t);
}

namespace {
bool both(const PrimExpr* a, const PrimExpr* b, int64_t* x, int64_t* y) {
  return a->dtype == DataType::Int(64) && b->dtype == DataType::Int(64) && literal(a, x) &&
         literal(b, y);
}
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
}  // namespace

const PrimExpr* Builder::add(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y)) return i64(x + y);
  if (literal(b, &y) && y == 0 && b->dtype == a->dtype) return a;
  if (literal(a, &x) && x == 0 && b->dtype == a->dtype) return b;
  return binary(PrimKind::Add, a, b);
}

const PrimExpr* Builder::sub(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y)) return i64(x - y);
  if (literal(b, &y) && y == 0 && b->dtype == a->dtype) return a;
  return binary(PrimKind::Sub, a, b);
}

const PrimExpr* Builder::mul(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y)) return i64(x * y);
  if (literal(b, &y) && y == 1 && b->dtype == a->dtype) return a;
  if (literal(a, &x) && x == 1 && b->dtype == a->dtype) return b;
  if (((literal(a, &x) && x == 0) || (literal(b, &y) && y == 0)) && a->dtype == b->dtype)
    return int_imm(a->dtype, 0);
  return binary(PrimKind::Mul, a, b);
}

const PrimExpr* Builder::div(const PrimExpr* a, const PrimExpr* b) {
  return binary(PrimKind::Div, a, b);
}

const PrimExpr* Builder::floordiv(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y) && y != 0) return i64(floor_div(x, y));
  if (literal(b, &y) && y == 1 && b->dtype == a->dtype) return a;
  return binary(PrimKind::FloorDiv, a, b);
}

const PrimExpr* Builder::floormod(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y) && y != 0) return i64(x - floor_div(x, y) * y);
  if (literal(b, &y) && y == 1 && b->dtype == a->dtype) return int_imm(a->dtype, 0);
  return binary(PrimKind::FloorMod, a, b);
}

const PrimExpr* Builder::min(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y)) return i64(std::min(x, y));
  return binary(PrimKind::Min, a, b);
}

const PrimExpr* Builder::max(const PrimExpr* a, const PrimExpr* b) {
  int64_t x = 0, y = 0;
  if (both(a, b, &x, &y)) return i64(std::max(x, y));
  return binary(PrimKind::Max, a, b);
}

const PrimExpr* Builder::binary(PrimKind k, const PrimExpr* a, const PrimExpr* b) {
  return arena_.make<ir::PrimBinary>(k, a->dtype, a, b);
}

const PrimExpr* Builder::compare(PrimKind k, const PrimExpr* a, const PrimExpr* b) {
  return arena_.make<ir::PrimBinary>(k, DataType::Bool(), a, b);
}

const PrimExpr* Builder::logical_and(const PrimExpr* a, const PrimExpr* b) {
  return arena_.make<ir::PrimBinary>(PrimKind::And, DataType::Bool(), a, b);
}

const PrimExpr* Builder::logical_or(const PrimExpr* a, const PrimExpr* b) {
  return arena_.make<ir::PrimBinary>(PrimKind::Or, DataType::Bool(), a, b);
}

const PrimExpr* Builder::logical_not(const PrimExpr* a) { return arena_.make<ir::PrimNot>(a); }

const PrimExpr* Builder::select(const PrimExpr* c, const PrimExpr* t, const PrimExpr* f) {
  return arena_.make<ir::PrimSelect>(t->dtype, c, t, f);
}

const PrimExpr* Builder::if_then_else(const PrimExpr* c, const PrimExpr* t, const PrimExpr* f) {
  return call(t->dtype, "tir.if_then_else", {c, t, f});
}

const PrimExpr* Builder::cast(DataType t, const PrimExpr* e) {
  if (e->dtype == t) return e;
  int64_t v = 0;
  if (t == DataType::Int(64) && e->dtype.is_int() && literal(e, &v)) return i64(v);
  return arena_.make<ir::PrimCast>(t, e);
}

const PrimExpr* Builder::call(DataType t, std::string op, Exprs args) {
  return arena_.make<ir::PrimCall>(t, std::move(op), std::move(args));
}

const PrimExpr* Builder::load(const ir::Buffer* b, Exprs indices) {
  return arena_.make<ir::BufferLoad>(b->dtype, b, std::move(indices));
}

namespace {
double float_max(DataType t) {
  if (t.code == DataType::Code::BFloat) return 3.3895313892515355e+38;
  if (t.bits == 16) return 65504.0;
  if (t.bits == 32) return double(std::numeric_limits<float>::max());
  return std::numeric_limits<double>::max();
}
}  // namespace

const PrimExpr* Builder::min_value(DataType t) {
  if (t.is_bool()) return int_imm(t, 0);
  if (t.is_uint()) return int_imm(t, 0);
  if (t.is_int())
    return int_imm(
        t, t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits - 1)));
  return float_imm(t, -float_max(t));
}

const PrimExpr* Builder::max_value(DataType t) {
  if (t.is_bool()) return int_imm(t, 1);
  if (t.is_uint()) return int_imm(t, t.bits >= 64 ? -1 : int64_t((uint64_t(1) << t.bits) - 1));
  if (t.is_int())
    return int_imm(
        t, t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1);
  return float_imm(t, float_max(t));
}

const ir::Buffer* Builder::buffer(std::string name, DataType t, Exprs shape) {
  auto* b = arena_.make<ir::Buffer>();
  b->name = std::move(name);
  b->dtype = t;
  b->shape = std::move(shape);
  return b;
}

const ir::Stmt* Builder::store(const ir::Buffer* b, const PrimExpr* value, Exprs indices) {
  return arena_.make<ir::BufferStore>(b, cast(b->dtype, value), std::move(indices));
}

const ir::Stmt* Builder::seq(std::vector<const ir::Stmt*> stmts) {
  // Nested sequences are spliced in (as TVM's SeqStmt::Flatten does): the code generator merges
  // adjacent row-local nests of one sequence (codegen/row_loops.h), and a reduction's separate
  // init stage (stage(), over a symbolic extent) arrives as a sequence of its own.
  std::vector<const ir::Stmt*> flat;
  for (const ir::Stmt* s : stmts)
    if (const auto* inner = s ? ir::dyn_cast<ir::SeqStmt>(s) : nullptr)
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    else
      flat.push_back(s);
  if (flat.size() == 1) return flat[0];
  return arena_.make<ir::SeqStmt>(std::move(flat));
}

const ir::Stmt* Builder::loop(const ir::PrimVar* v, const PrimExpr* extent, const ir::Stmt* body) {
  return arena_.make<ir::For>(v, i64(0), extent, ir::ForKind::Serial, std::string(), ir::Attrs{},
                              nullptr, body);
}

const ir::Stmt* Builder::loops(const std::string& prefix, const Exprs& extents,
                               const std::function<const ir::Stmt*(const Exprs&)>& body) {
  Exprs vars;
  for (size_t d = 0; d < extents.size(); ++d) vars.push_back(var(prefix + std::to_string(d)));
  const ir::Stmt* s = body(vars);
  for (size_t d = extents.size(); d-- > 0;) s = loop(ir::cast<ir::PrimVar>(vars[d]), extents[d], s);
  return s;
}

const ir::Stmt* Builder::when(const PrimExpr* c, const ir::Stmt* then) {
  return arena_.make<ir::IfThenElse>(c, then, nullptr);
}

const ir::Stmt* Builder::stage(const std::string& name, const Exprs& extents,
                               std::string_view kinds, const StageBody& body,
                               const StageBody& init) {
  // T.init runs at a reduction's first step: over a reduction that may be empty at run time (an
  // extent 0, or a symbolic one) it never runs and the output keeps whatever the memory held.
  // Then the initial values are a stage of their own over the spatial axes (a reduction
  // variable there reads as its first value, 0).
  auto reduces = [&](size_t d) { return d < kinds.size() && kinds[d] == 'R'; };
  bool may_be_empty = false;
  for (size_t d = 0; d < extents.size(); ++d) {
    int64_t n = 0;
    may_be_empty |= reduces(d) && !(literal(extents[d], &n) && n > 0);
  }
  if (init && may_be_empty) {
    Exprs spatial;
    for (size_t d = 0; d < extents.size(); ++d)
      if (!reduces(d)) spatial.push_back(extents[d]);
    const ir::Stmt* first =
        stage(name + "_init", spatial, std::string(spatial.size(), 'S'), [&](const Exprs& v) {
          Exprs all;
          for (size_t d = 0, s = 0; d < extents.size(); ++d)
            all.push_back(reduces(d) ? i64(0) : v[s++]);
          return init(all);
        });
    return seq({first, stage(name, extents, kinds, body)});
  }
  auto loop_name = [&](size_t d) {
    return (d < kinds.size() && kinds[d] == 'R' ? "k" : "ax") + std::to_string(d);
  };
  std::vector<const ir::PrimVar*> loops;
  auto* block = arena_.make<ir::Block>(name);
  Exprs block_vars;
  for (size_t d = 0; d < extents.size(); ++d) {
    const ir::PrimVar* loop = var(loop_name(d));
    loops.push_back(loop);
    ir::IterVar iv;
    iv.var = var("v_" + loop_name(d));
    iv.dom = ir::PrimRange{i64(0), extents[d], {}};
    iv.iter_type =
        d < kinds.size() && kinds[d] == 'R' ? ir::IterType::Reduce : ir::IterType::DataPar;
    iv.binding = loop;
    block->iter_vars.push_back(iv);
    block_vars.push_back(iv.var);
  }
  block->body = body(block_vars);
  if (init) block->init = init(block_vars);
  const ir::Stmt* s = block;
  for (size_t d = extents.size(); d-- > 0;)
    s = arena_.make<ir::For>(loops[d], i64(0), extents[d], ir::ForKind::Serial, std::string(),
                             ir::Attrs{}, nullptr, s);
  return s;
}

}  // namespace raxc::backend::legalize
