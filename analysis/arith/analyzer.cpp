// The symbolic shape prover: canonical form and comparison (see analyzer.h).
//
// Every integer PrimExpr is canonicalised to a polynomial with int64 coefficients over atoms.
// An atom is a shape variable or an expression the polynomial cannot see through (floordiv,
// floormod, min, max, select, casts, calls, comparisons, anything non-integer); its operands are
// canonical polynomials themselves, so two atoms are the same when their kinds and canonical
// operands are. Atoms are interned by a key string built from those parts.
//
// Terms keep the order in which they first appeared (so `n + m` prints as written and the
// printed form does not depend on cache history); equality ignores order.
#include "analysis/arith/analyzer.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>

namespace raxc::analysis::arith {

namespace {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;
using AtomId = uint32_t;

// Past this many terms a product is kept as an atom instead of being expanded.
constexpr size_t kMaxTerms = 64;

struct Term {
  std::vector<AtomId> factors;  // in the order they were first multiplied (for printing)
  std::vector<AtomId> key;      // sorted factors: the term's identity
  int64_t coeff = 0;
};

struct Poly {
  std::vector<Term> terms;  // nonzero coefficients, distinct keys
  int64_t constant = 0;
  DataType dtype = DataType::Int(64);

  bool is_const() const { return terms.empty(); }
};

bool is_arith_dtype(DataType dtype) {
  return (dtype.is_int() || dtype.is_uint()) && dtype.lanes == 1;
}

const Term* find_term(const Poly& p, const std::vector<AtomId>& key) {
  for (const Term& t : p.terms)
    if (t.key == key) return &t;
  return nullptr;
}

bool same_poly(const Poly& a, const Poly& b) {
  if (a.constant != b.constant || a.terms.size() != b.terms.size()) return false;
  for (const Term& t : a.terms) {
    const Term* u = find_term(b, t.key);
    if (u == nullptr || u->coeff != t.coeff) return false;
  }
  return true;
}

struct KeyHash {
  size_t operator()(const std::vector<AtomId>& key) const {
    size_t h = key.size();
    for (AtomId id : key) h = h * 1000003u ^ id;
    return h;
  }
};

// r += scale * b; false on overflow (r is then unusable). Large sums use a hashed index of r's
// terms so that long chains stay linear.
bool add_into(Poly& r, const Poly& b, int64_t scale) {
  int64_t c = 0;
  if (__builtin_mul_overflow(b.constant, scale, &c) ||
      __builtin_add_overflow(r.constant, c, &r.constant))
    return false;
  if (b.terms.empty()) return true;
  std::unordered_map<std::vector<AtomId>, size_t, KeyHash> index;
  bool indexed = r.terms.size() * b.terms.size() > 64;
  if (indexed)
    for (size_t i = 0; i < r.terms.size(); ++i) index.emplace(r.terms[i].key, i);
  bool erased = false;
  for (const Term& t : b.terms) {
    int64_t tc = 0;
    if (__builtin_mul_overflow(t.coeff, scale, &tc)) return false;
    Term* found = nullptr;
    if (indexed) {
      auto it = index.find(t.key);
      if (it != index.end()) found = &r.terms[it->second];
    } else {
      for (Term& u : r.terms)
        if (u.key == t.key) found = &u;
    }
    if (found == nullptr) {
      if (tc == 0) continue;
      if (indexed) index.emplace(t.key, r.terms.size());
      r.terms.push_back(Term{t.factors, t.key, tc});
      continue;
    }
    if (__builtin_add_overflow(found->coeff, tc, &found->coeff)) return false;
    erased |= found->coeff == 0;
  }
  // Cancelled terms are dropped at the end so the index stays valid while adding.
  if (erased)
    r.terms.erase(
        std::remove_if(r.terms.begin(), r.terms.end(), [](const Term& t) { return t.coeff == 0; }),
        r.terms.end());
  return true;
}

// a + scale * b; nullopt on overflow.
std::optional<Poly> add_scaled(const Poly& a, const Poly& b, int64_t scale) {
  Poly r = a;
  if (!add_into(r, b, scale)) return std::nullopt;
  return r;
}

// Every atom is integer-valued, so a polynomial whose non-constant coefficients share a factor
// that does not divide the constant is never zero (`n * 2 - m * 2 + 1`).
bool indivisible_constant(const Poly& p) {
  if (p.is_const()) return p.constant != 0;
  uint64_t g = 0;
  for (const Term& t : p.terms) {
    uint64_t x = t.coeff < 0 ? 0 - uint64_t(t.coeff) : uint64_t(t.coeff);
    while (x != 0) {
      uint64_t r = g % x;
      g = x;
      x = r;
    }
  }
  uint64_t k = p.constant < 0 ? 0 - uint64_t(p.constant) : uint64_t(p.constant);
  return g > 1 && k % g != 0;
}

std::optional<Poly> multiply(const Poly& a, const Poly& b) {
  if ((a.terms.size() + 1) * (b.terms.size() + 1) > kMaxTerms) return std::nullopt;
  Poly r;
  r.dtype = a.dtype;
  // Expand (sum a_i + ca) * (sum b_j + cb); constants are terms with an empty key.
  auto as_terms = [](const Poly& p) {
    std::vector<Term> ts = p.terms;
    if (p.constant != 0) ts.push_back(Term{{}, {}, p.constant});
    return ts;
  };
  std::vector<Term> ta = as_terms(a), tb = as_terms(b);
  for (const Term& x : ta) {
    for (const Term& y : tb) {
      Poly single;
      int64_t coeff = 0;
      if (__builtin_mul_overflow(x.coeff, y.coeff, &coeff)) return std::nullopt;
      if (x.key.empty() && y.key.empty()) {
        single.constant = coeff;
      } else {
        Term t;
        t.factors = x.factors;
        t.factors.insert(t.factors.end(), y.factors.begin(), y.factors.end());
        t.key = t.factors;
        std::sort(t.key.begin(), t.key.end());
        t.coeff = coeff;
        single.terms.push_back(std::move(t));
      }
      if (!add_into(r, single, 1)) return std::nullopt;
    }
  }
  return r;
}

Poly constant_poly(int64_t value, DataType dtype) {
  Poly p;
  p.constant = value;
  p.dtype = dtype;
  return p;
}

// Floor division and modulo of constants; nullopt for a zero divisor or overflow.
std::optional<int64_t> floor_div(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::optional<int64_t> floor_mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t gcd64(int64_t a, int64_t b) {
  // Magnitudes as unsigned so INT64_MIN does not overflow; results that do not fit give 1.
  uint64_t x = a < 0 ? 0 - uint64_t(a) : uint64_t(a);
  uint64_t y = b < 0 ? 0 - uint64_t(b) : uint64_t(b);
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > uint64_t(std::numeric_limits<int64_t>::max()) ? 1 : int64_t(x);
}

// An interval with optional (infinite) ends.
struct Bound {
  std::optional<int64_t> lo, hi;
};

Bound unbounded() { return {}; }

Bound add_bounds(const Bound& a, const Bound& b) {
  Bound r;
  int64_t v = 0;
  if (a.lo && b.lo && !__builtin_add_overflow(*a.lo, *b.lo, &v)) r.lo = v;
  if (a.hi && b.hi && !__builtin_add_overflow(*a.hi, *b.hi, &v)) r.hi = v;
  return r;
}

Bound scale_bound(const Bound& a, int64_t c) {
  Bound r;
  int64_t v = 0;
  const auto& from_lo = c >= 0 ? a.lo : a.hi;
  const auto& from_hi = c >= 0 ? a.hi : a.lo;
  if (from_lo && !__builtin_mul_overflow(*from_lo, c, &v)) r.lo = v;
  if (from_hi && !__builtin_mul_overflow(*from_hi, c, &v)) r.hi = v;
  if (c == 0) r.lo = r.hi = 0;
  return r;
}

struct AtomInfo {
  enum class Form : uint8_t { Var, Opaque, Binary, Select, Cast, Not, Call };
  explicit AtomInfo(Form form) : form(form) {}
  Form form;
  PrimKind kind = PrimKind::Var;  // the binary kind for Form::Binary
  DataType dtype;
  const PrimExpr* node = nullptr;  // Var / Opaque: the node itself
  std::vector<Poly> operands;
  std::string op;  // Call
  const PrimExpr* rebuilt = nullptr;
  std::optional<Bound> bound;
  int64_t depth = 1;
};

}  // namespace

struct Analyzer::Impl {
  ir::Arena& arena;
  std::unordered_map<const PrimExpr*, Poly> cache;
  std::unordered_map<std::string, AtomId> atom_index;
  std::vector<AtomInfo> atoms;

  explicit Impl(ir::Arena& arena) : arena(arena) {}

  // ---- atoms ------------------------------------------------------------------------------

  static void append_key(std::string& out, const Poly& p) {
    std::vector<const Term*> sorted;
    for (const Term& t : p.terms) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(),
              [](const Term* a, const Term* b) { return a->key < b->key; });
    out += '(';
    for (const Term* t : sorted) {
      out += std::to_string(t->coeff);
      for (AtomId id : t->key) {
        out += '*';
        out += std::to_string(id);
      }
      out += '+';
    }
    out += std::to_string(p.constant);
    out += ')';
  }

  Poly atom_poly(AtomId id, DataType dtype) {
    Poly p;
    p.dtype = dtype;
    p.terms.push_back(Term{{id}, {id}, 1});
    return p;
  }

  AtomId intern(const std::string& key, AtomInfo info) {
    auto it = atom_index.find(key);
    if (it != atom_index.end()) return it->second;
    AtomId id = AtomId(atoms.size());
    atoms.push_back(std::move(info));
    atom_index.emplace(key, id);
    return id;
  }

  static std::string pointer_key(const char* tag, const void* p) {
    return std::string(tag) + std::to_string(reinterpret_cast<uintptr_t>(p));
  }

  Poly var_atom(const ir::PrimVar* var) {
    AtomInfo info{AtomInfo::Form::Var};
    info.dtype = var->dtype;
    info.node = var;
    return atom_poly(intern(pointer_key("v", var), std::move(info)), var->dtype);
  }

  Poly opaque_atom(const PrimExpr* e, const std::string& key) {
    AtomInfo info{AtomInfo::Form::Opaque};
    info.dtype = e->dtype;
    info.node = e;
    return atom_poly(intern(key, std::move(info)), e->dtype);
  }

  // A binary atom; commutative kinds sort their operands' keys so min(a, b) == min(b, a).
  Poly binary_atom(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    std::string ka, kb;
    append_key(ka, a);
    append_key(kb, b);
    bool commutative = kind == PrimKind::Min || kind == PrimKind::Max || kind == PrimKind::EQ ||
                       kind == PrimKind::NE || kind == PrimKind::And || kind == PrimKind::Or ||
                       kind == PrimKind::Add || kind == PrimKind::Mul;
    if (commutative && kb < ka) std::swap(ka, kb);
    std::string key = "b" + std::to_string(int(kind)) + dtype.str() + ka + kb;
    AtomInfo info{AtomInfo::Form::Binary};
    info.kind = kind;
    info.dtype = dtype;
    info.operands = {a, b};
    info.depth = 1 + std::max(poly_depth(a), poly_depth(b));
    return atom_poly(intern(key, std::move(info)), dtype);
  }

  Poly nary_atom(AtomInfo::Form form, const char* tag, DataType dtype, std::vector<Poly> ops,
                 std::string op = {}) {
    std::string key = std::string(tag) + dtype.str() + op + "|";
    int64_t depth = 0;
    for (const Poly& p : ops) {
      append_key(key, p);
      depth = std::max(depth, poly_depth(p));
    }
    AtomInfo info{form};
    info.dtype = dtype;
    info.operands = std::move(ops);
    info.op = std::move(op);
    info.depth = depth + 1;
    return atom_poly(intern(key, std::move(info)), dtype);
  }

  int64_t poly_depth(const Poly& p) {
    int64_t d = 0;
    for (const Term& t : p.terms)
      for (AtomId id : t.factors) d = std::max(d, atoms[id].depth);
    return d;
  }

  // ---- canonicalisation -------------------------------------------------------------------

  const Poly& canon(const PrimExpr* e) {
    auto it = cache.find(e);
    if (it != cache.end()) return it->second;
    Poly p = compute(e);
    p.dtype = e->dtype;
    return cache.emplace(e, std::move(p)).first->second;
  }

  Poly compute(const PrimExpr* e) {
    switch (e->kind) {
      case PrimKind::IntImm: return constant_poly(ir::cast<ir::IntImm>(e)->value, e->dtype);
      case PrimKind::Var: return var_atom(ir::cast<ir::PrimVar>(e));
      case PrimKind::FloatImm: {
        double v = ir::cast<ir::FloatImm>(e)->value;
        uint64_t bits = 0;
        static_assert(sizeof bits == sizeof v);
        __builtin_memcpy(&bits, &v, sizeof bits);
        return opaque_atom(e, "f" + e->dtype.str() + std::to_string(bits));
      }
      case PrimKind::StringImm: return opaque_atom(e, "s" + ir::cast<ir::PrimStringImm>(e)->value);
      case PrimKind::BufferLoad: {
        const auto* load = ir::cast<ir::BufferLoad>(e);
        std::string key = pointer_key("L", load->buffer) + e->dtype.str();
        for (const PrimExpr* index : load->indices) append_key(key, canon(index));
        return opaque_atom(e, key);
      }
      case PrimKind::Let: return opaque_atom(e, pointer_key("let", e));
      case PrimKind::Not: {
        const Poly& a = canon(ir::cast<ir::PrimNot>(e)->a);
        if (a.is_const()) return constant_poly(a.constant == 0 ? 1 : 0, e->dtype);
        return nary_atom(AtomInfo::Form::Not, "!", e->dtype, {a});
      }
      case PrimKind::Select: {
        const auto* s = ir::cast<ir::PrimSelect>(e);
        return select(e->dtype, canon(s->condition), canon(s->true_value), canon(s->false_value));
      }
      case PrimKind::Cast:
        return cast_to(e->dtype, canon(ir::cast<ir::PrimCast>(e)->value),
                       ir::cast<ir::PrimCast>(e)->value->dtype);
      case PrimKind::Call: {
        const auto* call = ir::cast<ir::PrimCall>(e);
        std::vector<Poly> ops;
        for (const PrimExpr* arg : call->args) ops.push_back(canon(arg));
        return nary_atom(AtomInfo::Form::Call, "c", e->dtype, std::move(ops), call->op);
      }
      default: break;
    }
    if (is_sum(e)) {
      if (auto sum = sum_chain(e)) return *sum;
    }
    const auto* bin = ir::cast<ir::PrimBinary>(e);
    return binary(bin->kind, e->dtype, canon(bin->a), canon(bin->b));
  }

  static bool is_sum(const PrimExpr* e) {
    return (e->kind == PrimKind::Add || e->kind == PrimKind::Sub) && is_arith_dtype(e->dtype);
  }

  // A sum tree `a + (b - c) + ...` is flattened into signed leaves without caching every
  // partial sum, so long chains (a concat of many tensors) cost linear time and memory.
  // nullopt on overflow.
  std::optional<Poly> sum_chain(const PrimExpr* e) {
    Poly acc;
    acc.dtype = e->dtype;
    std::vector<std::pair<const PrimExpr*, int64_t>> stack{{e, 1}};
    while (!stack.empty()) {
      auto [node, sign] = stack.back();
      stack.pop_back();
      if (is_sum(node) && (node == e || cache.count(node) == 0)) {
        const auto* bin = ir::cast<ir::PrimBinary>(node);
        // Pushed right first so that terms keep their left-to-right order.
        stack.emplace_back(bin->b, bin->kind == PrimKind::Add ? sign : -sign);
        stack.emplace_back(bin->a, sign);
        continue;
      }
      if (!add_into(acc, canon(node), sign)) return std::nullopt;
    }
    return acc;
  }

  // For proofs only: floordiv(X + k, c) = floordiv(X + k mod c, c) + k div c and
  // floormod(X + k, c) = floormod(X + k mod c, c), so `(h - 1) // 2 + 1` meets `(h + 1) // 2`.
  // (The printed form keeps TVM's spelling, which does not move constants out.)
  Poly normalize_divisions(const Poly& p) {
    Poly out;
    out.dtype = p.dtype;
    out.constant = p.constant;
    for (const Term& t : p.terms) {
      Poly term;
      term.dtype = p.dtype;
      term.terms.push_back(t);
      if (t.factors.size() == 1) {
        if (auto replaced = shifted_division(t.factors[0])) {
          if (auto scaled = multiply(*replaced, constant_poly(t.coeff, p.dtype))) term = *scaled;
        }
      }
      if (!add_into(out, term, 1)) return p;
    }
    return out;
  }

  std::optional<Poly> shifted_division(AtomId id) {
    if (atoms[id].form != AtomInfo::Form::Binary) return std::nullopt;
    PrimKind kind = atoms[id].kind;
    if (kind != PrimKind::FloorDiv && kind != PrimKind::FloorMod) return std::nullopt;
    Poly x = atoms[id].operands[0];
    const Poly c = atoms[id].operands[1];
    DataType dtype = atoms[id].dtype;
    if (!c.is_const() || c.constant <= 0 || x.is_const()) return std::nullopt;
    int64_t r = *floor_mod(x.constant, c.constant);
    int64_t q = *floor_div(x.constant, c.constant);
    if (q == 0) return std::nullopt;
    x.constant = r;
    Poly result = binary_atom(kind, dtype, x, c);
    if (kind == PrimKind::FloorDiv) result.constant = q;
    return result;
  }

  // d is provably never zero.
  bool never_zero(const Poly& d) {
    Bound bd = bound(d);
    if ((bd.lo && *bd.lo > 0) || (bd.hi && *bd.hi < 0)) return true;
    return indivisible_constant(d);
  }

  Poly binary(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    bool arith = is_arith_dtype(dtype);
    switch (kind) {
      case PrimKind::Add:
      case PrimKind::Sub:
        if (arith) {
          if (auto r = add_scaled(a, b, kind == PrimKind::Add ? 1 : -1)) return *r;
        }
        return binary_atom(kind, dtype, a, b);
      case PrimKind::Mul:
        if (arith) {
          if (auto r = multiply(a, b)) return *r;
        }
        return binary_atom(kind, dtype, a, b);
      case PrimKind::FloorDiv:
        return arith ? floordiv(dtype, a, b) : binary_atom(kind, dtype, a, b);
      case PrimKind::FloorMod:
        return arith ? floormod(dtype, a, b) : binary_atom(kind, dtype, a, b);
      case PrimKind::Div:
      case PrimKind::Mod:
        return arith ? truncdiv(kind, dtype, a, b) : binary_atom(kind, dtype, a, b);
      case PrimKind::Min:
      case PrimKind::Max:
        return arith ? min_max(kind, dtype, a, b) : binary_atom(kind, dtype, a, b);
      case PrimKind::EQ:
      case PrimKind::NE:
      case PrimKind::LT:
      case PrimKind::LE:
      case PrimKind::GT:
      case PrimKind::GE: return compare_op(kind, dtype, a, b);
      case PrimKind::And:
      case PrimKind::Or: return logic(kind, dtype, a, b);
      default: return binary_atom(kind, dtype, a, b);
    }
  }

  Poly floordiv(DataType dtype, const Poly& a, const Poly& b) {
    if (b.is_const()) {
      int64_t c = b.constant;
      if (a.is_const()) {
        if (auto q = floor_div(a.constant, c)) return constant_poly(*q, dtype);
        return binary_atom(PrimKind::FloorDiv, dtype, a, b);
      }
      if (c == 1) return a;
      if (c > 1) return floordiv_by_constant(dtype, a, c);
      return binary_atom(PrimKind::FloorDiv, dtype, a, b);
    }
    if (same_poly(a, b)) return constant_poly(1, dtype);
    // floordiv(m * A, m * c) = floordiv(A, c) for a common monomial m (shape vars: m > 0).
    if (auto divided = divide_monomial(a, b))
      return floordiv(dtype, divided->first, divided->second);
    return binary_atom(PrimKind::FloorDiv, dtype, a, b);
  }

  // floordiv(c*X + R, c) = X + floordiv(R, c): pull out the terms divisible by c; then reduce
  // floordiv(g*R', g*c') to floordiv(R', c').
  Poly floordiv_by_constant(DataType dtype, const Poly& a, int64_t c) {
    Poly quotient, rest;
    quotient.dtype = rest.dtype = dtype;
    rest.constant = a.constant;
    for (const Term& t : a.terms) {
      if (t.coeff % c == 0) {
        quotient.terms.push_back(Term{t.factors, t.key, t.coeff / c});
      } else {
        rest.terms.push_back(t);
      }
    }
    if (!rest.is_const() || rest.constant != 0) {
      Poly q;
      if (rest.is_const()) {
        q = constant_poly(*floor_div(rest.constant, c), dtype);
      } else {
        int64_t g = c;
        for (const Term& t : rest.terms) g = gcd64(g, t.coeff);
        g = gcd64(g, rest.constant);
        Poly reduced = rest;
        for (Term& t : reduced.terms) t.coeff /= g;
        reduced.constant /= g;
        if (c / g == 1) {
          q = reduced;
        } else {
          q = binary_atom(PrimKind::FloorDiv, dtype, reduced, constant_poly(c / g, dtype));
        }
      }
      if (auto sum = add_scaled(quotient, q, 1)) return *sum;
      return binary_atom(PrimKind::FloorDiv, dtype, a, constant_poly(c, dtype));
    }
    return quotient;
  }

  // When b is a single monomial m*c (no constant) and every term of a (which has no constant)
  // contains m: returns (a / m, c).
  std::optional<std::pair<Poly, Poly>> divide_monomial(const Poly& a, const Poly& b) {
    if (b.terms.size() != 1 || b.constant != 0 || a.constant != 0 || a.is_const())
      return std::nullopt;
    const Term& m = b.terms[0];
    Poly quotient;
    quotient.dtype = a.dtype;
    for (const Term& t : a.terms) {
      std::vector<AtomId> rest_key;
      if (!std::includes(t.key.begin(), t.key.end(), m.key.begin(), m.key.end()))
        return std::nullopt;
      std::set_difference(t.key.begin(), t.key.end(), m.key.begin(), m.key.end(),
                          std::back_inserter(rest_key));
      // Remove m's factors from the printed order too, one occurrence each.
      std::vector<AtomId> factors = t.factors;
      for (AtomId id : m.key) factors.erase(std::find(factors.begin(), factors.end(), id));
      if (rest_key.empty()) {
        int64_t sum = 0;
        if (__builtin_add_overflow(quotient.constant, t.coeff, &sum)) return std::nullopt;
        quotient.constant = sum;
      } else {
        quotient.terms.push_back(Term{std::move(factors), std::move(rest_key), t.coeff});
      }
    }
    return std::make_pair(quotient, constant_poly(m.coeff, a.dtype));
  }

  Poly floormod(DataType dtype, const Poly& a, const Poly& b) {
    if (b.is_const()) {
      int64_t c = b.constant;
      if (a.is_const()) {
        if (auto r = floor_mod(a.constant, c)) return constant_poly(*r, dtype);
        return binary_atom(PrimKind::FloorMod, dtype, a, b);
      }
      if (c == 1) return constant_poly(0, dtype);
      if (c > 1) return floormod_by_constant(dtype, a, c);
      return binary_atom(PrimKind::FloorMod, dtype, a, b);
    }
    if (same_poly(a, b)) return constant_poly(0, dtype);
    return binary_atom(PrimKind::FloorMod, dtype, a, b);
  }

  // floormod(c*X + R, c) = floormod(R, c); floormod(g*R', g*c') = g * floormod(R', c').
  Poly floormod_by_constant(DataType dtype, const Poly& a, int64_t c) {
    Poly rest;
    rest.dtype = dtype;
    rest.constant = a.constant;
    for (const Term& t : a.terms)
      if (t.coeff % c != 0) rest.terms.push_back(t);
    if (rest.is_const()) return constant_poly(*floor_mod(rest.constant, c), dtype);
    int64_t g = c;
    for (const Term& t : rest.terms) g = gcd64(g, t.coeff);
    g = gcd64(g, rest.constant);
    for (Term& t : rest.terms) t.coeff /= g;
    rest.constant /= g;
    Poly atom = binary_atom(PrimKind::FloorMod, dtype, rest, constant_poly(c / g, dtype));
    atom.terms[0].coeff = g;
    return atom;
  }

  // Truncating division: like floor division when the dividend is provably non-negative and the
  // divisor a positive constant.
  Poly truncdiv(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    if (a.is_const() && b.is_const() && b.constant != 0 &&
        !(a.constant == std::numeric_limits<int64_t>::min() && b.constant == -1)) {
      return constant_poly(
          kind == PrimKind::Div ? a.constant / b.constant : a.constant % b.constant, dtype);
    }
    if (b.is_const() && b.constant > 0 && lower(a) >= 0) {
      return kind == PrimKind::Div ? floordiv(dtype, a, b) : floormod(dtype, a, b);
    }
    return binary_atom(kind, dtype, a, b);
  }

  Poly min_max(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    bool is_min = kind == PrimKind::Min;
    if (same_poly(a, b)) return a;
    if (auto d = add_scaled(a, b, -1)) {
      Bound bd = bound(*d);
      if (bd.lo && *bd.lo >= 0) return is_min ? b : a;  // a >= b
      if (bd.hi && *bd.hi <= 0) return is_min ? a : b;  // a <= b
    }
    return binary_atom(kind, dtype, a, b);
  }

  Poly compare_op(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    if (auto d = add_scaled(a, b, -1)) {
      Bound bd = bound(*d);
      bool zero = d->is_const() && d->constant == 0;
      bool nonzero = never_zero(*d);
      std::optional<bool> value;
      switch (kind) {
        case PrimKind::EQ:
          if (zero || nonzero) value = zero;
          break;
        case PrimKind::NE:
          if (zero || nonzero) value = nonzero;
          break;
        case PrimKind::LT:  // d < 0
          if (bd.hi && *bd.hi < 0) value = true;
          if (bd.lo && *bd.lo >= 0) value = false;
          break;
        case PrimKind::LE:
          if (bd.hi && *bd.hi <= 0) value = true;
          if (bd.lo && *bd.lo > 0) value = false;
          break;
        case PrimKind::GT:
          if (bd.lo && *bd.lo > 0) value = true;
          if (bd.hi && *bd.hi <= 0) value = false;
          break;
        case PrimKind::GE:
          if (bd.lo && *bd.lo >= 0) value = true;
          if (bd.hi && *bd.hi < 0) value = false;
          break;
        default: break;
      }
      if (value) return constant_poly(*value ? 1 : 0, dtype);
    }
    return binary_atom(kind, dtype, a, b);
  }

  Poly logic(PrimKind kind, DataType dtype, const Poly& a, const Poly& b) {
    bool is_and = kind == PrimKind::And;
    for (const Poly* p : {&a, &b}) {
      if (!p->is_const()) continue;
      bool v = p->constant != 0;
      if (is_and && !v) return constant_poly(0, dtype);
      if (!is_and && v) return constant_poly(1, dtype);
    }
    if (a.is_const() && b.is_const()) return constant_poly(is_and ? 1 : 0, dtype);
    if (a.is_const()) return b;  // the neutral element
    if (b.is_const()) return a;
    if (same_poly(a, b)) return a;
    return binary_atom(kind, dtype, a, b);
  }

  Poly select(DataType dtype, const Poly& cond, const Poly& t, const Poly& f) {
    if (cond.is_const()) return cond.constant != 0 ? t : f;
    if (same_poly(t, f)) return t;
    return nary_atom(AtomInfo::Form::Select, "?", dtype, {cond, t, f});
  }

  Poly cast_to(DataType dtype, const Poly& value, DataType from) {
    if (dtype == from) return value;
    if (value.is_const() && from.lanes == 1 && (from.is_integer())) {
      if (dtype.is_bool()) return constant_poly(value.constant != 0 ? 1 : 0, dtype);
      if (is_arith_dtype(dtype) && fits(value.constant, dtype))
        return constant_poly(value.constant, dtype);
    }
    return nary_atom(AtomInfo::Form::Cast, "C", dtype, {value});
  }

  static bool fits(int64_t v, DataType dtype) {
    if (dtype.bits >= 64) return dtype.is_int() || v >= 0;
    if (dtype.is_int()) {
      int64_t limit = int64_t(1) << (dtype.bits - 1);
      return v >= -limit && v < limit;
    }
    return v >= 0 && v < (int64_t(1) << dtype.bits);
  }

  // ---- bounds (shape variables are non-negative) --------------------------------------------

  Bound bound(const Poly& p) {
    Bound total{p.constant, p.constant};
    for (const Term& t : p.terms)
      total = add_bounds(total, scale_bound(monomial_bound(t), t.coeff));
    return total;
  }

  std::optional<int64_t> lower(const Poly& p) { return bound(p).lo; }

  Bound monomial_bound(const Term& t) {
    if (t.factors.size() == 1) return atom_bound(t.factors[0]);
    Bound r{1, 1};
    for (AtomId id : t.factors) {
      Bound b = atom_bound(id);
      if (!b.lo || *b.lo < 0) return unbounded();
      int64_t v = 0;
      r.lo = __builtin_mul_overflow(*r.lo, *b.lo, &v) ? std::optional<int64_t>(std::nullopt) : v;
      if (!r.lo) return unbounded();
      if (r.hi && b.hi && !__builtin_mul_overflow(*r.hi, *b.hi, &v)) {
        r.hi = v;
      } else {
        r.hi.reset();
      }
    }
    return r;
  }

  Bound atom_bound(AtomId id) {
    if (atoms[id].bound) return *atoms[id].bound;
    Bound b = compute_atom_bound(id);
    atoms[id].bound = b;
    return b;
  }

  Bound compute_atom_bound(AtomId id) {
    const AtomInfo& info = atoms[id];
    if (info.dtype.is_bool()) return Bound{0, 1};
    if (!is_arith_dtype(info.dtype)) return unbounded();
    switch (info.form) {
      case AtomInfo::Form::Var: {
        Bound b;
        b.lo = 0;
        return b;
      }
      case AtomInfo::Form::Binary:
        return binary_bound(info.kind, info.operands[0], info.operands[1]);
      case AtomInfo::Form::Select: {
        Bound t = bound(info.operands[1]), f = bound(info.operands[2]);
        return union_bound(t, f);
      }
      case AtomInfo::Form::Cast: {
        // A cast to a type that holds every value of the operand keeps its range.
        DataType from = info.operands[0].dtype;
        bool widening =
            is_arith_dtype(from) && from.code == info.dtype.code && from.bits <= info.dtype.bits;
        return widening ? bound(info.operands[0]) : unbounded();
      }
      default: return unbounded();
    }
  }

  static Bound union_bound(const Bound& a, const Bound& b) {
    Bound r;
    if (a.lo && b.lo) r.lo = std::min(*a.lo, *b.lo);
    if (a.hi && b.hi) r.hi = std::max(*a.hi, *b.hi);
    return r;
  }

  Bound binary_bound(PrimKind kind, const Poly& a, const Poly& b) {
    switch (kind) {
      case PrimKind::FloorDiv: {
        if (!b.is_const() || b.constant <= 0) return unbounded();
        Bound ba = bound(a), r;
        if (ba.lo) r.lo = floor_div(*ba.lo, b.constant);
        if (ba.hi) r.hi = floor_div(*ba.hi, b.constant);
        return r;
      }
      case PrimKind::FloorMod:
        if (!b.is_const() || b.constant == 0) return unbounded();
        if (b.constant > 0) return Bound{0, b.constant - 1};
        return Bound{b.constant + 1, 0};
      case PrimKind::Min: {
        Bound x = bound(a), y = bound(b), r;
        if (x.lo && y.lo) r.lo = std::min(*x.lo, *y.lo);
        if (x.hi && y.hi) {
          r.hi = std::min(*x.hi, *y.hi);
        } else {
          r.hi = x.hi ? x.hi : y.hi;
        }
        return r;
      }
      case PrimKind::Max: {
        Bound x = bound(a), y = bound(b), r;
        if (x.lo && y.lo) {
          r.lo = std::max(*x.lo, *y.lo);
        } else {
          r.lo = x.lo ? x.lo : y.lo;
        }
        if (x.hi && y.hi) r.hi = std::max(*x.hi, *y.hi);
        return r;
      }
      default: return unbounded();
    }
  }

  // ---- rebuilding PrimExprs -----------------------------------------------------------------

  const PrimExpr* make_int(int64_t v, DataType dtype) {
    return arena.make<ir::IntImm>(
        is_arith_dtype(dtype) || dtype.is_bool() ? dtype : DataType::Int(64), v);
  }

  const PrimExpr* bin(PrimKind kind, DataType dtype, const PrimExpr* a, const PrimExpr* b) {
    return arena.make<ir::PrimBinary>(kind, dtype, a, b);
  }

  const PrimExpr* rebuild_atom(AtomId id) {
    AtomInfo& info = atoms[id];
    if (info.rebuilt != nullptr) return info.rebuilt;
    const PrimExpr* e = nullptr;
    switch (info.form) {
      case AtomInfo::Form::Var:
      case AtomInfo::Form::Opaque: e = info.node; break;
      case AtomInfo::Form::Binary: {
        const PrimExpr* a = rebuild(info.operands[0]);
        const PrimExpr* b = rebuild(info.operands[1]);
        e = bin(atoms[id].kind, atoms[id].dtype, a, b);
        break;
      }
      case AtomInfo::Form::Select: {
        const PrimExpr* c = rebuild(info.operands[0]);
        const PrimExpr* t = rebuild(atoms[id].operands[1]);
        const PrimExpr* f = rebuild(atoms[id].operands[2]);
        e = arena.make<ir::PrimSelect>(atoms[id].dtype, c, t, f);
        break;
      }
      case AtomInfo::Form::Cast:
        e = arena.make<ir::PrimCast>(info.dtype, rebuild(info.operands[0]));
        break;
      case AtomInfo::Form::Not: e = arena.make<ir::PrimNot>(rebuild(info.operands[0])); break;
      case AtomInfo::Form::Call: {
        std::vector<const PrimExpr*> args;
        for (size_t i = 0; i < atoms[id].operands.size(); ++i)
          args.push_back(rebuild(atoms[id].operands[i]));
        e = arena.make<ir::PrimCall>(atoms[id].dtype, atoms[id].op, std::move(args));
        break;
      }
    }
    atoms[id].rebuilt = e;
    return e;
  }

  // A term's product without its sign: f1 * f2 * ... * |coeff|.
  const PrimExpr* rebuild_term(const Term& t, DataType dtype, int64_t scale) {
    const PrimExpr* e = nullptr;
    for (AtomId id : t.factors) {
      const PrimExpr* f = rebuild_atom(id);
      e = e == nullptr ? f : bin(PrimKind::Mul, dtype, e, f);
    }
    if (scale != 1) e = bin(PrimKind::Mul, dtype, e, make_int(scale, dtype));
    return e;
  }

  // Positive terms in order, then a positive constant, then the negative terms subtracted, then
  // a negative constant subtracted: `n * 2 + 1`, `h + 1 - kh`, `b - (b + 2) // 3 * 2`.
  const PrimExpr* rebuild(const Poly& p) {
    DataType dtype = p.dtype;
    if (p.is_const()) return make_int(p.constant, dtype);
    const PrimExpr* e = nullptr;
    auto plus = [&](const PrimExpr* x) { e = e == nullptr ? x : bin(PrimKind::Add, dtype, e, x); };
    for (const Term& t : p.terms)
      if (t.coeff > 0) plus(rebuild_term(t, dtype, t.coeff));
    if (p.constant > 0) plus(make_int(p.constant, dtype));
    for (const Term& t : p.terms) {
      if (t.coeff >= 0) continue;
      if (e == nullptr) e = make_int(0, dtype);  // only negative terms: `0 - n`
      if (t.coeff == std::numeric_limits<int64_t>::min()) {
        e = bin(PrimKind::Add, dtype, e, rebuild_term(t, dtype, t.coeff));
      } else {
        e = bin(PrimKind::Sub, dtype, e, rebuild_term(t, dtype, -t.coeff));
      }
    }
    if (p.constant < 0) {
      if (p.constant == std::numeric_limits<int64_t>::min()) {
        e = bin(PrimKind::Add, dtype, e, make_int(p.constant, dtype));
      } else {
        e = bin(PrimKind::Sub, dtype, e, make_int(-p.constant, dtype));
      }
    }
    return e;
  }
};

namespace {

bool same_structure(const PrimExpr* a, const PrimExpr* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || a->kind != b->kind || !(a->dtype == b->dtype)) return false;
  switch (a->kind) {
    case PrimKind::IntImm: return ir::cast<ir::IntImm>(a)->value == ir::cast<ir::IntImm>(b)->value;
    case PrimKind::Not:
      return same_structure(ir::cast<ir::PrimNot>(a)->a, ir::cast<ir::PrimNot>(b)->a);
    case PrimKind::Cast:
      return same_structure(ir::cast<ir::PrimCast>(a)->value, ir::cast<ir::PrimCast>(b)->value);
    case PrimKind::Select: {
      const auto *x = ir::cast<ir::PrimSelect>(a), *y = ir::cast<ir::PrimSelect>(b);
      return same_structure(x->condition, y->condition) &&
             same_structure(x->true_value, y->true_value) &&
             same_structure(x->false_value, y->false_value);
    }
    case PrimKind::Call: {
      const auto *x = ir::cast<ir::PrimCall>(a), *y = ir::cast<ir::PrimCall>(b);
      if (x->op != y->op || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i)
        if (!same_structure(x->args[i], y->args[i])) return false;
      return true;
    }
    default:
      if (const auto* x = ir::dyn_cast<ir::PrimBinary>(a)) {
        const auto* y = ir::cast<ir::PrimBinary>(b);
        return same_structure(x->a, y->a) && same_structure(x->b, y->b);
      }
      return false;  // vars, loads, lets, other immediates: identity only
  }
}

}  // namespace

Analyzer::Analyzer(ir::Arena& arena) : arena_(arena), impl_(new Impl(arena)) {}
Analyzer::~Analyzer() { delete impl_; }

Proof Analyzer::compare(const ir::PrimExpr* a, const ir::PrimExpr* b) {
  if (a == nullptr || b == nullptr) return Proof::Unknown;
  if (a == b) return Proof::Equal;
  const Poly& pa = impl_->canon(a);
  const Poly& pb = impl_->canon(b);
  if (same_poly(pa, pb)) return Proof::Equal;
  auto d = add_scaled(pa, pb, -1);
  if (!d) return Proof::Unknown;
  Poly normalized = impl_->normalize_divisions(*d);
  for (const Poly* diff : {&*d, &normalized}) {
    if (diff->is_const()) return diff->constant == 0 ? Proof::Equal : Proof::NotEqual;
    if (impl_->never_zero(*diff)) return Proof::NotEqual;
  }
  return Proof::Unknown;
}

std::optional<int64_t> Analyzer::as_int(const ir::PrimExpr* e) {
  if (e == nullptr) return std::nullopt;
  const Poly& p = impl_->canon(e);
  if (p.is_const()) return p.constant;
  return std::nullopt;
}

bool Analyzer::prove_non_negative(const ir::PrimExpr* e) {
  if (e == nullptr) return false;
  auto lo = impl_->lower(impl_->canon(e));
  return lo && *lo >= 0;
}

bool Analyzer::prove_positive(const ir::PrimExpr* e) {
  if (e == nullptr) return false;
  auto lo = impl_->lower(impl_->canon(e));
  return lo && *lo > 0;
}

const ir::PrimExpr* Analyzer::simplify(const ir::PrimExpr* e) {
  if (e == nullptr) return nullptr;
  if (e->kind == PrimKind::IntImm || e->kind == PrimKind::Var) return e;
  Poly p = impl_->canon(e);
  const PrimExpr* r = impl_->rebuild(p);
  return same_structure(r, e) ? e : r;
}

const ir::PrimExpr* Analyzer::make_int(int64_t value, ir::DataType dtype) {
  return impl_->make_int(value, dtype);
}

namespace {

DataType result_dtype(const PrimExpr* a, const PrimExpr* b) {
  if (is_arith_dtype(a->dtype)) return a->dtype;
  if (is_arith_dtype(b->dtype)) return b->dtype;
  return a->dtype;
}

}  // namespace

#define RAXC_ARITH_BUILDER(name, KIND)                                               \
  const ir::PrimExpr* Analyzer::name(const ir::PrimExpr* a, const ir::PrimExpr* b) { \
    DataType dtype = result_dtype(a, b);                                             \
    Poly p = impl_->binary(PrimKind::KIND, dtype, impl_->canon(a), impl_->canon(b)); \
    p.dtype = dtype;                                                                 \
    return impl_->rebuild(p);                                                        \
  }
RAXC_ARITH_BUILDER(add, Add)
RAXC_ARITH_BUILDER(sub, Sub)
RAXC_ARITH_BUILDER(mul, Mul)
RAXC_ARITH_BUILDER(floordiv, FloorDiv)
RAXC_ARITH_BUILDER(floormod, FloorMod)
RAXC_ARITH_BUILDER(min, Min)
RAXC_ARITH_BUILDER(max, Max)
#undef RAXC_ARITH_BUILDER

namespace {

// Rebuilds `e` with mapped variables replaced; returns `e` when nothing inside changed.
const PrimExpr* replace_vars(ir::Arena& arena, const PrimExpr* e, const VarMap& map) {
  switch (e->kind) {
    case PrimKind::Var: {
      auto it = map.find(ir::cast<ir::PrimVar>(e));
      return it != map.end() && it->second != nullptr ? it->second : e;
    }
    case PrimKind::Not: {
      const PrimExpr* a = replace_vars(arena, ir::cast<ir::PrimNot>(e)->a, map);
      return a == ir::cast<ir::PrimNot>(e)->a ? e : arena.make<ir::PrimNot>(a, e->span);
    }
    case PrimKind::Cast: {
      const auto* c = ir::cast<ir::PrimCast>(e);
      const PrimExpr* v = replace_vars(arena, c->value, map);
      return v == c->value ? e : arena.make<ir::PrimCast>(e->dtype, v, e->span);
    }
    case PrimKind::Select: {
      const auto* s = ir::cast<ir::PrimSelect>(e);
      const PrimExpr* c = replace_vars(arena, s->condition, map);
      const PrimExpr* t = replace_vars(arena, s->true_value, map);
      const PrimExpr* f = replace_vars(arena, s->false_value, map);
      if (c == s->condition && t == s->true_value && f == s->false_value) return e;
      return arena.make<ir::PrimSelect>(e->dtype, c, t, f, e->span);
    }
    case PrimKind::Call: {
      const auto* call = ir::cast<ir::PrimCall>(e);
      std::vector<const PrimExpr*> args;
      bool changed = false;
      for (const PrimExpr* arg : call->args) {
        args.push_back(replace_vars(arena, arg, map));
        changed |= args.back() != arg;
      }
      return changed ? arena.make<ir::PrimCall>(e->dtype, call->op, std::move(args), e->span) : e;
    }
    case PrimKind::BufferLoad: {
      const auto* load = ir::cast<ir::BufferLoad>(e);
      std::vector<const PrimExpr*> indices;
      bool changed = false;
      for (const PrimExpr* index : load->indices) {
        indices.push_back(replace_vars(arena, index, map));
        changed |= indices.back() != index;
      }
      return changed
                 ? arena.make<ir::BufferLoad>(e->dtype, load->buffer, std::move(indices), e->span)
                 : e;
    }
    case PrimKind::Let: {
      const auto* let = ir::cast<ir::PrimLet>(e);
      const PrimExpr* v = replace_vars(arena, let->value, map);
      const PrimExpr* b = replace_vars(arena, let->body, map);
      if (v == let->value && b == let->body) return e;
      return arena.make<ir::PrimLet>(let->var, v, b, e->span);
    }
    default: break;
  }
  if (const auto* bin = ir::dyn_cast<ir::PrimBinary>(e)) {
    const PrimExpr* a = replace_vars(arena, bin->a, map);
    const PrimExpr* b = replace_vars(arena, bin->b, map);
    if (a == bin->a && b == bin->b) return e;
    return arena.make<ir::PrimBinary>(e->kind, e->dtype, a, b, e->span);
  }
  return e;
}

}  // namespace

const ir::PrimExpr* Analyzer::substitute(const ir::PrimExpr* e, const VarMap& map) {
  if (e == nullptr || map.empty()) return e;
  const PrimExpr* replaced = replace_vars(arena_, e, map);
  if (replaced == e) return e;
  return simplify(replaced);
}

}  // namespace raxc::analysis::arith
