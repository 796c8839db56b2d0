// Command-line literals: a recursive-descent parser over one argument string, the checked
// conversions to runtime values, and the argument fillers (see literal.h).
#include "backend/io/literal.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

namespace raxc::io {

namespace {

using runtime::Tensor;
using runtime::TensorPtr;

IoError at(int column, const std::string& message) {
  return io_error("column " + std::to_string(column) + ": " + message);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Shows a character in a message.
std::string quote_char(char c) {
  if (c == '\0') return "end of input";
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
    return std::string("'") + buf + "'";
  }
  return std::string("'") + c + "'";
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<Literal> parse() {
    skip_ws();
    Literal lit;
    if (Status st = value(lit, 0)) return *st;
    skip_ws();
    if (i_ != s_.size()) {
      return at(column(), "unexpected " + quote_char(peek()) + " after the literal");
    }
    return lit;
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  int column() const { return static_cast<int>(i_) + 1; }
  void skip_ws() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  }

  Status value(Literal& lit, int depth) {
    lit.column = column();
    const size_t begin = i_;
    char c = peek();
    Status st;
    if (c == '[' || c == '(') {
      if (depth >= kMaxLiteralDepth) {
        return at(column(), "nesting deeper than " + std::to_string(kMaxLiteralDepth) + " levels");
      }
      st = sequence(lit, depth);
    } else if (c == '"') {
      st = string(lit);
    } else if (is_digit(c) || c == '-' || c == '+' || c == '.' || is_alpha(c)) {
      st = scalar(lit);
    } else if (c == '\0') {
      return at(column(), "expected a value, found the end of the input");
    } else {
      return at(column(), "expected a value, found " + quote_char(c));
    }
    if (st) return st;
    lit.text = std::string(s_.substr(begin, i_ - begin));
    return std::nullopt;
  }

  Status sequence(Literal& lit, int depth) {
    const char open = peek(), close = open == '[' ? ']' : ')';
    const int open_column = column();
    ++i_;
    skip_ws();
    std::vector<Literal> items;
    bool trailing_comma = false;
    while (peek() != close) {
      Literal item;
      if (Status st = value(item, depth + 1)) return st;
      items.push_back(std::move(item));
      skip_ws();
      trailing_comma = false;
      if (peek() == ',') {
        ++i_;
        skip_ws();
        trailing_comma = true;
        continue;
      }
      if (peek() != close) {
        if (peek() == '\0') {
          return at(column(), std::string("expected ',' or '") + close + "', found the end of " +
                                  "the input (the '" + open + "' at column " +
                                  std::to_string(open_column) + " is not closed)");
        }
        return at(column(),
                  std::string("expected ',' or '") + close + "', found " + quote_char(peek()));
      }
    }
    ++i_;
    if (open == '(' && items.size() == 1 && !trailing_comma) {
      // A parenthesised value, as in Python: (x) is x.
      Literal inner = std::move(items[0]);
      inner.column = open_column;
      lit = std::move(inner);
      return std::nullopt;
    }
    lit.kind = open == '[' ? Literal::Kind::List : Literal::Kind::Tuple;
    lit.items = std::move(items);
    return std::nullopt;
  }

  Status string(Literal& lit) {
    const int open_column = column();
    ++i_;
    lit.kind = Literal::Kind::String;
    while (true) {
      if (i_ >= s_.size()) {
        return at(open_column, "unterminated string (no closing '\"')");
      }
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return std::nullopt;
      }
      if (c != '\\') {
        lit.s += c;
        ++i_;
        continue;
      }
      const int escape_column = column();
      ++i_;
      char e = peek();
      ++i_;
      switch (e) {
        case '"': lit.s += '"'; break;
        case '\\': lit.s += '\\'; break;
        case '/': lit.s += '/'; break;
        case 'n': lit.s += '\n'; break;
        case 't': lit.s += '\t'; break;
        case 'r': lit.s += '\r'; break;
        case '0': lit.s += '\0'; break;
        case 'u': {
          uint32_t cp = 0;
          for (int k = 0; k < 4; ++k) {
            char h = peek();
            int v = is_digit(h)                            ? h - '0'
                    : (lower(h) >= 'a' && lower(h) <= 'f') ? lower(h) - 'a' + 10
                                                           : -1;
            if (v < 0) return at(escape_column, "\\u needs four hexadecimal digits");
            cp = cp * 16 + static_cast<uint32_t>(v);
            ++i_;
          }
          if (cp >= 0xd800 && cp <= 0xdfff) {
            return at(escape_column, "\\u escapes of surrogate halves are not supported");
          }
          append_utf8(lit.s, cp);
          break;
        }
        case '\0':
          if (i_ > s_.size()) return at(open_column, "unterminated string (no closing '\"')");
          [[fallthrough]];
        default:
          return at(escape_column, "unknown escape '\\" + std::string(1, e) +
                                       "' (known: \\\" \\\\ \\/ \\n \\t \\r \\0 \\uXXXX)");
      }
    }
  }

  Status scalar(Literal& lit) {
    const int start_column = column();
    const size_t begin = i_;
    bool negative = false;
    if (peek() == '-' || peek() == '+') {
      negative = peek() == '-';
      ++i_;
    }
    if (is_alpha(peek())) {
      size_t word_begin = i_;
      while (is_alpha(peek()) || is_digit(peek())) ++i_;
      std::string_view word = s_.substr(word_begin, i_ - word_begin);
      bool signed_ = word_begin != begin;
      if (iequals(word, "inf") || iequals(word, "infinity")) {
        lit.kind = Literal::Kind::Float;
        lit.f = negative ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
        return std::nullopt;
      }
      if (iequals(word, "nan")) {
        lit.kind = Literal::Kind::Float;
        lit.f = std::numeric_limits<double>::quiet_NaN();
        return std::nullopt;
      }
      if (!signed_ && (word == "true" || word == "True" || word == "false" || word == "False")) {
        lit.kind = Literal::Kind::Bool;
        lit.b = word[0] == 't' || word[0] == 'T';
        return std::nullopt;
      }
      return at(start_column, "'" + std::string(s_.substr(begin, i_ - begin)) +
                                  "' is not a literal (strings need double quotes)");
    }
    // digits [. digits] [e [+-] digits], or . digits [...]
    const size_t digits_begin = i_;
    size_t int_digits = 0, frac_digits = 0;
    while (is_digit(peek())) ++i_, ++int_digits;
    bool is_float = false;
    if (peek() == '.') {
      is_float = true;
      ++i_;
      while (is_digit(peek())) ++i_, ++frac_digits;
    }
    if (int_digits + frac_digits == 0) {
      return at(start_column, "expected a number after " + quote_char(s_[begin]));
    }
    const size_t mantissa_end = i_;
    int64_t exponent = 0;
    if (peek() == 'e' || peek() == 'E') {
      is_float = true;
      ++i_;
      bool exp_negative = false;
      if (peek() == '-' || peek() == '+') exp_negative = s_[i_++] == '-';
      if (!is_digit(peek())) return at(column(), "expected the exponent's digits");
      while (is_digit(peek())) {
        exponent = std::min<int64_t>(exponent * 10 + (s_[i_++] - '0'), 1'000'000);
      }
      if (exp_negative) exponent = -exponent;
    }
    if (is_alpha(peek()) || peek() == '.') {
      return at(column(), "unexpected " + quote_char(peek()) + " in a number");
    }
    lit.negative = negative;
    std::string_view number = s_.substr(digits_begin, i_ - digits_begin);
    double f = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), f);
    (void)ptr;
    if (ec == std::errc::result_out_of_range) {
      // Decimal exponent of the first significant digit decides overflow vs underflow.
      int64_t lead = 0;
      bool found = false;
      for (size_t k = digits_begin, pos = 0; k < mantissa_end; ++k) {
        if (s_[k] == '.') continue;
        if (s_[k] != '0') {
          lead = pos < int_digits ? static_cast<int64_t>(int_digits - pos - 1)
                                  : -static_cast<int64_t>(pos - int_digits + 1);
          found = true;
          break;
        }
        ++pos;
      }
      f = !found || lead + exponent < 0 ? 0.0 : std::numeric_limits<double>::infinity();
    }
    lit.f = negative ? -f : f;
    if (is_float) {
      lit.kind = Literal::Kind::Float;
      return std::nullopt;
    }
    lit.kind = Literal::Kind::Int;
    uint64_t m = 0;
    for (size_t k = digits_begin; k < mantissa_end; ++k) {
      uint64_t d = static_cast<uint64_t>(s_[k] - '0');
      if (m > (std::numeric_limits<uint64_t>::max() - d) / 10) {
        lit.too_big = true;
        break;
      }
      m = m * 10 + d;
    }
    lit.magnitude = lit.too_big ? 0 : m;
    if (lit.magnitude == 0 && !lit.too_big) lit.negative = false;  // -0 is the integer 0
    return std::nullopt;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// ---------------------------------------------------------------- conversions

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

const char* kind_text(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::Int: return "an integer";
    case Literal::Kind::Float: return "a float";
    case Literal::Kind::Bool: return "a bool";
    case Literal::Kind::String: return "a string";
    case Literal::Kind::List: return "a list";
    case Literal::Kind::Tuple: return "a tuple";
  }
  return "a value";
}

bool supported_dtype(DLDataType t) {
  if (t.lanes != 1) return false;
  if (runtime::is_bool(t)) return true;
  switch (t.code) {
    case kDLInt:
    case kDLUInt: return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat: return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat: return t.bits == 16;
    default: return false;
  }
}

// One scalar converted to a dtype: integers and bools in `i`, floats in `f` (already rounded to
// the dtype's precision).
struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
};

double round_to(double d, DLDataType t) {
  if (t.code == kDLFloat && t.bits == 32) return static_cast<float>(d);
  if (t.code == kDLFloat && t.bits == 16) {
    return runtime::half_to_float(runtime::float_to_half(static_cast<float>(d)));
  }
  if (t.code == kDLBfloat) {
    return runtime::bfloat_to_float(runtime::float_to_bfloat(static_cast<float>(d)));
  }
  return d;
}

std::string largest_text(DLDataType t) {
  if (t.code == kDLFloat && t.bits == 16) return "65504";
  if (t.code == kDLBfloat) return "3.3895314e+38";
  if (t.code == kDLFloat && t.bits == 32) return "3.4028235e+38";
  return "1.7976931348623157e+308";
}

Result<Scalar> convert_scalar(const Literal& lit, DLDataType t) {
  const std::string name = runtime::dtype_name(t);
  const std::string shown = lit.text.empty() ? std::string(kind_text(lit)) : lit.text;
  if (lit.kind == Literal::Kind::String) {
    return at(lit.column, "the string " + shown + " is not a value of " + name);
  }
  if (lit.is_sequence()) {
    return at(lit.column, std::string(kind_text(lit)) + " is not a single " + name + " value");
  }
  Scalar out;
  if (runtime::is_bool(t)) {
    if (lit.kind != Literal::Kind::Bool) {
      return at(lit.column, shown + " is not a bool (write true or false)");
    }
    out.i = lit.b ? 1 : 0;
    return out;
  }
  if (lit.kind == Literal::Kind::Bool) {
    return at(lit.column, shown + " is a bool, not a value of " + name);
  }
  if (t.code == kDLInt || t.code == kDLUInt) {
    if (lit.kind != Literal::Kind::Int) {
      return at(lit.column, shown + " is not an integer, as " + name + " needs");
    }
    const bool is_signed = t.code == kDLInt;
    const uint64_t max_pos = is_signed ? (uint64_t{1} << (t.bits - 1)) - 1
                                       : (t.bits == 64 ? std::numeric_limits<uint64_t>::max()
                                                       : (uint64_t{1} << t.bits) - 1);
    const uint64_t max_neg = is_signed ? uint64_t{1} << (t.bits - 1) : 0;  // magnitude
    const bool fits =
        !lit.too_big && (lit.negative ? lit.magnitude <= max_neg : lit.magnitude <= max_pos);
    if (!fits) {
      std::string range = is_signed
                              ? "-" + std::to_string(max_neg) + " to " + std::to_string(max_pos)
                              : "0 to " + std::to_string(max_pos);
      return at(lit.column, shown + " does not fit " + name + " (" + range + ")");
    }
    // Two's complement: also right for -2^63 and for uint64 values above INT64_MAX.
    out.i = static_cast<int64_t>(lit.negative ? ~lit.magnitude + 1 : lit.magnitude);
    return out;
  }
  // Floating point: integers and floats, rounded to the dtype; an explicit inf or nan is kept,
  // but a finite number whose magnitude overflows the dtype is an error.
  out.is_float = true;
  double d = lit.f;
  if (lit.kind == Literal::Kind::Int && !lit.too_big) {
    d = static_cast<double>(lit.magnitude);
    if (lit.negative) d = -d;
  }
  const bool written_special =
      lit.kind == Literal::Kind::Float && lit.text.find_first_of("iInN") != std::string::npos;
  if (!written_special && !std::isfinite(round_to(d, t))) {
    return at(lit.column, shown + " does not fit " + name + " (largest finite magnitude " +
                              largest_text(t) + ")");
  }
  out.f = round_to(d, t);
  return out;
}

// The shape of a nested literal; ragged nesting is an error naming the first odd element.
Result<std::vector<int64_t>> shape_of(const Literal& lit) {
  if (!lit.is_sequence()) return std::vector<int64_t>{};
  std::vector<int64_t> shape{static_cast<int64_t>(lit.items.size())};
  if (lit.items.empty()) return shape;
  Result<std::vector<int64_t>> first = shape_of(lit.items[0]);
  if (const IoError* e = error_of(first)) return *e;
  const std::vector<int64_t>& inner = std::get<std::vector<int64_t>>(first);
  for (size_t k = 1; k < lit.items.size(); ++k) {
    Result<std::vector<int64_t>> other = shape_of(lit.items[k]);
    if (const IoError* e = error_of(other)) return *e;
    const std::vector<int64_t>& o = std::get<std::vector<int64_t>>(other);
    if (o != inner) {
      return at(lit.items[k].column, "ragged list: this element has shape " + shape_text(o) +
                                         " but the first one (column " +
                                         std::to_string(lit.items[0].column) + ") has shape " +
                                         shape_text(inner));
    }
  }
  shape.insert(shape.end(), inner.begin(), inner.end());
  return shape;
}

Status fill_leaves(const Literal& lit, Tensor& t, int64_t& next) {
  if (lit.is_sequence()) {
    for (const Literal& item : lit.items) {
      if (Status st = fill_leaves(item, t, next)) return st;
    }
    return std::nullopt;
  }
  Result<Scalar> r = convert_scalar(lit, t.dtype());
  if (const IoError* e = error_of(r)) return *e;
  const Scalar& s = std::get<Scalar>(r);
  if (s.is_float) {
    t.set_f64(next++, s.f);
  } else {
    t.set_i64(next++, s.i);
  }
  return std::nullopt;
}

}  // namespace

Result<Literal> parse_literal(std::string_view text) { return Parser(text).parse(); }

Result<TensorPtr> literal_to_tensor(const Literal& lit, DLDataType dtype) {
  if (!supported_dtype(dtype)) {
    return io_error("tensors of " + runtime::dtype_name(dtype) + " cannot be given as literals");
  }
  if (lit.kind == Literal::Kind::String) {
    return at(lit.column, "expected a number or a list for a tensor of " +
                              runtime::dtype_name(dtype) + ", found the string " + lit.text);
  }
  Result<std::vector<int64_t>> shape = shape_of(lit);
  if (const IoError* e = error_of(shape)) return *e;
  TensorPtr t = Tensor::empty(std::get<std::vector<int64_t>>(shape), dtype);
  if (!t) return at(lit.column, "the tensor is too large");
  int64_t next = 0;
  if (Status st = fill_leaves(lit, *t, next)) return *st;
  return t;
}

Result<runtime::Prim> literal_to_prim(const Literal& lit, DLDataType dtype) {
  if (!supported_dtype(dtype)) {
    return io_error("R.Prim values of " + runtime::dtype_name(dtype) +
                    " cannot be given as literals");
  }
  Result<Scalar> r = convert_scalar(lit, dtype);
  if (const IoError* e = error_of(r)) return *e;
  const Scalar& s = std::get<Scalar>(r);
  runtime::Prim p;
  p.dtype = dtype;
  if (s.is_float) {
    p.f = s.f;
  } else {
    p.i = s.i;
  }
  return p;
}

Result<runtime::Shape> literal_to_shape(const Literal& lit) {
  if (lit.kind == Literal::Kind::Int) {
    return at(lit.column,
              "a shape is a tuple or list of sizes; write (" + lit.text + ",) for a 1-d shape");
  }
  if (!lit.is_sequence()) {
    return at(lit.column,
              "expected a shape (a tuple or list of sizes), found " + std::string(kind_text(lit)));
  }
  runtime::Shape shape;
  for (const Literal& item : lit.items) {
    if (item.kind != Literal::Kind::Int) {
      return at(item.column, "a shape's sizes are integers, found " + std::string(kind_text(item)));
    }
    if (item.negative && item.magnitude != 0) {
      return at(item.column, "a shape's sizes are not negative, found " + item.text);
    }
    if (item.too_big || item.magnitude > static_cast<uint64_t>(INT64_MAX)) {
      return at(item.column, item.text + " is too large for a size (int64)");
    }
    shape.dims.push_back(static_cast<int64_t>(item.magnitude));
  }
  return shape;
}

Result<runtime::String> literal_to_string(const Literal& lit) {
  if (lit.kind != Literal::Kind::String) {
    return at(lit.column,
              "expected a string in double quotes, found " + std::string(kind_text(lit)));
  }
  return runtime::String{lit.s};
}

void fill_random(Tensor& tensor, std::mt19937_64& rng) {
  const DLDataType t = tensor.dtype();
  const int64_t n = tensor.numel();
  const bool is_float = t.code == kDLFloat || t.code == kDLBfloat;
  // Significand bits (with the hidden one) of the float dtypes.
  int bits = 53;
  if (t.code == kDLBfloat) bits = 8;
  if (t.code == kDLFloat && t.bits == 16) bits = 11;
  if (t.code == kDLFloat && t.bits == 32) bits = 24;
  const double half = std::ldexp(1.0, bits - 1);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    if (is_float) {
      // m in [0, 2^bits): (m - 2^(bits-1)) / 2^(bits-1) lies in [-1, 1) and is exact in the dtype.
      const double m = static_cast<double>(r >> (64 - bits));
      tensor.set_f64(i, (m - half) / half);
    } else if (runtime::is_bool(t)) {
      tensor.set_i64(i, static_cast<int64_t>(r >> 63));
    } else {
      tensor.set_i64(i, static_cast<int64_t>(r >> 62));
    }
  }
}

void fill_zeros(Tensor& tensor) {
  std::memset(tensor.data(), 0, static_cast<size_t>(tensor.nbytes()));
}

void fill_ones(Tensor& tensor) {
  const int64_t n = tensor.numel();
  for (int64_t i = 0; i < n; ++i) tensor.set_i64(i, 1);
}

}  // namespace raxc::io
