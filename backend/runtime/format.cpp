// Value printing in numpy's style (see format.h).
//
// Floats: numpy formats with Dragon4 (Steele & White; Burger & Dybvig) in "unique" mode — the
// shortest digits that still identify the value among its neighbours in its own dtype, with
// IEEE unbiased (round-half-even) boundaries — optionally cut off after a number of digits and
// optionally extended to a minimum number of digits. The printed digits depend on those exact
// rules (e.g. at powers of two, where the gap below is half the gap above), so this file
// implements the same digit generation with exact big-integer arithmetic, then lays out the
// digits as numpy's positional and scientific formatters do, and finally reproduces numpy's
// FloatingFormat (common widths, choice of notation) and _formatArray (nesting, wrapping,
// summarisation).
#include "backend/runtime/format.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace raxc::runtime {

namespace {

// ---------------------------------------------------------------- big integers

// Unsigned integers of any size, little-endian 32-bit blocks, no leading zero blocks.
class BigInt {
 public:
  BigInt() = default;
  explicit BigInt(uint64_t v) {
    if (v) b_.push_back(static_cast<uint32_t>(v));
    if (v >> 32) b_.push_back(static_cast<uint32_t>(v >> 32));
  }
  static BigInt pow2(int n) {
    BigInt r(1);
    r.shl(n);
    return r;
  }

  void mul_small(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& x : b_) {
      uint64_t p = uint64_t{x} * m + carry;
      x = static_cast<uint32_t>(p);
      carry = p >> 32;
    }
    if (carry) b_.push_back(static_cast<uint32_t>(carry));
    trim();
  }
  void mul_pow10(int n) {
    for (; n >= 9; n -= 9) mul_small(1000000000u);
    static constexpr uint32_t small[] = {1,      10,      100,      1000,     10000,
                                         100000, 1000000, 10000000, 100000000};
    if (n > 0) mul_small(small[n]);
  }
  void shl(int n) {
    if (b_.empty() || n == 0) return;
    const int words = n / 32, bits = n % 32;
    if (bits) {
      uint32_t carry = 0;
      for (uint32_t& x : b_) {
        uint32_t next = x >> (32 - bits);
        x = (x << bits) | carry;
        carry = next;
      }
      if (carry) b_.push_back(carry);
    }
    b_.insert(b_.begin(), static_cast<size_t>(words), 0u);
  }
  // *this -= o, requires *this >= o.
  void sub(const BigInt& o) {
    int64_t borrow = 0;
    for (size_t i = 0; i < b_.size(); ++i) {
      int64_t d = int64_t{b_[i]} - (i < o.b_.size() ? int64_t{o.b_[i]} : 0) - borrow;
      borrow = d < 0;
      b_[i] = static_cast<uint32_t>(d + (borrow << 32));
    }
    trim();
  }
  friend BigInt operator+(const BigInt& a, const BigInt& b) {
    BigInt r;
    const size_t n = std::max(a.b_.size(), b.b_.size());
    r.b_.resize(n);
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t s = carry + (i < a.b_.size() ? a.b_[i] : 0) + (i < b.b_.size() ? b.b_[i] : 0);
      r.b_[i] = static_cast<uint32_t>(s);
      carry = s >> 32;
    }
    if (carry) r.b_.push_back(static_cast<uint32_t>(carry));
    return r;
  }
  friend int compare(const BigInt& a, const BigInt& b) {
    if (a.b_.size() != b.b_.size()) return a.b_.size() < b.b_.size() ? -1 : 1;
    for (size_t i = a.b_.size(); i-- > 0;) {
      if (a.b_[i] != b.b_[i]) return a.b_[i] < b.b_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  void trim() {
    while (!b_.empty() && b_.back() == 0) b_.pop_back();
  }
  std::vector<uint32_t> b_;
};

// r = r mod s, returning the quotient; requires r < 10 s.
uint32_t divide_digit(BigInt& r, const BigInt& s) {
  uint32_t q = 0;
  while (compare(r, s) >= 0) {
    r.sub(s);
    ++q;
  }
  return q;
}

// ---------------------------------------------------------------- Dragon4

// A finite binary float: value = mantissa * 2^exponent.
struct FloatParts {
  uint64_t mantissa = 0;
  int exponent = 0;
  int mantissa_bit = 0;  // index of the highest set bit of mantissa
  bool unequal = false;  // the gap to the next smaller float is half the gap to the next larger
};

// A float of some dtype, decoded.
struct Decoded {
  FloatParts parts;
  bool negative = false;
  bool nan = false;
  bool inf = false;
};

Decoded decode(uint64_t bits, int exp_bits, int mant_bits) {
  Decoded d;
  const uint64_t exp_mask = (uint64_t{1} << exp_bits) - 1;
  const uint64_t frac = bits & ((uint64_t{1} << mant_bits) - 1);
  const uint64_t e = (bits >> mant_bits) & exp_mask;
  d.negative = (bits >> (exp_bits + mant_bits)) & 1;
  const int bias = (1 << (exp_bits - 1)) - 1;
  if (e == exp_mask) {
    d.nan = frac != 0;
    d.inf = frac == 0;
    return d;
  }
  if (e == 0) {
    d.parts.mantissa = frac;
    d.parts.exponent = 1 - bias - mant_bits;
    d.parts.mantissa_bit = frac ? std::bit_width(frac) - 1 : 0;
  } else {
    d.parts.mantissa = frac | (uint64_t{1} << mant_bits);
    d.parts.exponent = static_cast<int>(e) - bias - mant_bits;
    d.parts.mantissa_bit = mant_bits;
    d.parts.unequal = e != 1 && frac == 0;
  }
  return d;
}

// `v` rounded to `dtype` (a float dtype) and decoded in that format.
Decoded decode(double v, DLDataType dtype) {
  if (dtype.code == kDLBfloat) {
    return decode(runtime::float_to_bfloat(static_cast<float>(v)), 8, 7);
  }
  if (dtype.bits == 16) return decode(runtime::float_to_half(static_cast<float>(v)), 5, 10);
  if (dtype.bits == 32) return decode(std::bit_cast<uint32_t>(static_cast<float>(v)), 8, 23);
  return decode(std::bit_cast<uint64_t>(v), 11, 52);
}

enum class Cutoff { kTotalLength, kFractionLength };

// Digits d1 d2 ... meaning d1.d2... x 10^exp10.
struct DecimalDigits {
  std::string digits;
  int exp10 = 0;
};

// Shortest-unique digits of `p`, stopping at the `cutoff_max`-th digit (total, or after the
// decimal point) and going on to at least the `cutoff_min`-th; -1: no such limit.
DecimalDigits dragon4(const FloatParts& p, Cutoff mode, int cutoff_max, int cutoff_min) {
  DecimalDigits out;
  if (p.mantissa == 0) {
    out.digits = "0";
    return out;
  }
  const bool even = (p.mantissa & 1) == 0;
  // value = r / s; half gaps to the neighbours: lo / s below, hi / s above.
  BigInt r(p.mantissa), s, lo, hi;
  if (p.unequal) {
    if (p.exponent > 0) {
      r.shl(p.exponent + 2);
      s = BigInt(4);
      lo = BigInt::pow2(p.exponent);
      hi = BigInt::pow2(p.exponent + 1);
    } else {
      r.shl(2);
      s = BigInt::pow2(-p.exponent + 2);
      lo = BigInt(1);
      hi = BigInt(2);
    }
  } else {
    if (p.exponent > 0) {
      r.shl(p.exponent + 1);
      s = BigInt(2);
      lo = BigInt::pow2(p.exponent);
    } else {
      r.shl(1);
      s = BigInt::pow2(-p.exponent + 1);
      lo = BigInt(1);
    }
    hi = lo;
  }
  // k: the decimal exponent just above the value (10^(k-1) <= value < 10^k), from an estimate
  // that is right or one too small.
  int k = static_cast<int>(
      std::ceil((p.mantissa_bit + p.exponent) * 0.30102999566398119521373889472449 - 0.69));
  // Digits before a fractional cutoff's range are all zero: start the output there.
  if (mode == Cutoff::kFractionLength && cutoff_max >= 0 && k <= -cutoff_max) k = -cutoff_max + 1;
  if (k > 0) {
    s.mul_pow10(k);
  } else if (k < 0) {
    r.mul_pow10(-k);
    lo.mul_pow10(-k);
    hi.mul_pow10(-k);
  }
  if (compare(r, s) >= 0) {
    ++k;
  } else {
    r.mul_small(10);
    lo.mul_small(10);
    hi.mul_small(10);
  }
  int max_exp = k - 4000;  // no cutoff (more digits than any float can need)
  if (cutoff_max >= 0) {
    max_exp = std::max(max_exp, mode == Cutoff::kTotalLength ? k - cutoff_max : -cutoff_max);
  }
  int min_exp = k;
  if (cutoff_min >= 0) {
    min_exp = std::min(min_exp, mode == Cutoff::kTotalLength ? k - cutoff_min : -cutoff_min);
  }
  out.exp10 = k - 1;

  int digit_exp = k;
  uint32_t digit = 0;
  bool low = false, high = false;
  for (;;) {
    --digit_exp;
    digit = divide_digit(r, s);
    int c_low = compare(r, lo);
    low = even ? c_low <= 0 : c_low < 0;
    int c_high = compare(r + hi, s);
    high = even ? c_high >= 0 : c_high > 0;
    if (((low || high) && digit_exp <= min_exp) || digit_exp == max_exp) break;
    out.digits += static_cast<char>('0' + digit);
    r.mul_small(10);
    lo.mul_small(10);
    hi.mul_small(10);
  }
  // The last digit: towards the neighbour that still identifies the value, else to nearest
  // (ties to an even digit).
  bool round_down = low;
  if (low == high) {
    BigInt twice = r;
    twice.shl(1);
    int c = compare(twice, s);
    round_down = c < 0 || (c == 0 && (digit & 1) == 0);
  }
  if (round_down) {
    out.digits += static_cast<char>('0' + digit);
  } else if (digit == 9) {
    while (!out.digits.empty() && out.digits.back() == '9') out.digits.pop_back();
    if (out.digits.empty()) {
      out.digits = "1";
      ++out.exp10;
    } else {
      ++out.digits.back();
    }
  } else {
    out.digits += static_cast<char>('0' + digit + 1);
  }
  return out;
}

// numpy's trim modes: 'k' keep everything, '.' trim zeros but keep the point, '0' trim zeros
// but keep one after the point, '-' trim zeros and the point.
enum class Trim { kKeep, kDot, kZero, kDotZeros };

// The digits after the point of `s` (`frac` of them) as `trim` and min_digits want them,
// numpy's way; returns how many there are then.
int trim_fraction(std::string& s, int frac, int precision, int min_digits, Trim trim) {
  if (trim != Trim::kDotZeros && frac == 0) s += '.';
  if (trim == Trim::kZero) {
    if (frac == 0) {
      s += '0';
      frac = 1;
    }
  } else if (trim == Trim::kKeep && min_digits > frac) {
    s.append(static_cast<size_t>(min_digits - frac), '0');
    frac = min_digits;
  }
  if (precision >= 0 && trim != Trim::kKeep && frac > 0) {
    while (s.back() == '0') {
      s.pop_back();
      --frac;
    }
    if (s.back() == '.') {
      if (trim == Trim::kZero) {
        s += '0';
        ++frac;
      } else if (trim == Trim::kDotZeros) {
        s.pop_back();
      }
    }
  }
  return frac;
}

// numpy.format_float_positional (fractional=True) of a finite value.
std::string positional(const Decoded& x, int precision, int min_digits, Trim trim, int pad_left,
                       int pad_right) {
  DecimalDigits dec = dragon4(x.parts, Cutoff::kFractionLength, precision, min_digits);
  std::string s = x.negative ? "-" : "";
  const int has_sign = x.negative ? 1 : 0;
  const int n = static_cast<int>(dec.digits.size());
  int whole = 0, frac = 0;
  if (dec.exp10 >= 0) {
    whole = dec.exp10 + 1;
    if (n <= whole) {
      s += dec.digits;
      s.append(static_cast<size_t>(whole - n), '0');
    } else {
      s += dec.digits.substr(0, static_cast<size_t>(whole));
      s += '.';
      s += dec.digits.substr(static_cast<size_t>(whole));
      frac = n - whole;
    }
  } else {
    whole = 1;
    const int zeros = -(dec.exp10 + 1);
    s += "0.";
    s.append(static_cast<size_t>(zeros), '0');
    s += dec.digits;
    frac = zeros + n;
  }
  frac = trim_fraction(s, frac, precision, min_digits, trim);
  if (pad_right >= frac) {
    if (trim == Trim::kDotZeros && frac == 0) s += ' ';
    s.append(static_cast<size_t>(pad_right - frac), ' ');
  }
  if (pad_left > whole + has_sign)
    s.insert(0, static_cast<size_t>(pad_left - whole - has_sign), ' ');
  return s;
}

// numpy.format_float_scientific of a finite value.
std::string scientific(const Decoded& x, int precision, int min_digits, Trim trim, int pad_left,
                       int exp_digits) {
  DecimalDigits dec = dragon4(x.parts, Cutoff::kTotalLength, precision >= 0 ? precision + 1 : -1,
                              min_digits >= 0 ? min_digits + 1 : -1);
  std::string s = x.negative ? "-" : "";
  const int has_sign = x.negative ? 1 : 0;
  s += dec.digits[0];
  int frac = static_cast<int>(dec.digits.size()) - 1;
  if (frac > 0) {
    s += '.';
    s += dec.digits.substr(1);
  }
  trim_fraction(s, frac, precision, min_digits, trim);
  int e = dec.exp10;
  s += 'e';
  s += e < 0 ? '-' : '+';
  std::string digits = std::to_string(e < 0 ? -e : e);
  const int want = exp_digits < 0 ? 2 : std::min(exp_digits, 5);
  if (static_cast<int>(digits.size()) < want) {
    digits.insert(0, static_cast<size_t>(want) - digits.size(), '0');
  }
  s += digits;
  if (pad_left > 1 + has_sign) s.insert(0, static_cast<size_t>(pad_left - 1 - has_sign), ' ');
  return s;
}

const char* non_finite_text(const Decoded& x) {
  if (x.nan) return "nan";
  return x.negative ? "-inf" : "inf";
}

// max / min computed in the dtype's own arithmetic, as numpy does.
double ratio_in_dtype(double max_val, double min_val, DLDataType t) {
  if (t.code == kDLFloat && t.bits == 64) return max_val / min_val;
  float q = static_cast<float>(max_val) / static_cast<float>(min_val);
  if (t.code == kDLBfloat) return runtime::bfloat_to_float(runtime::float_to_bfloat(q));
  if (t.bits == 16) return runtime::half_to_float(runtime::float_to_half(q));
  return q;
}

// numpy's FloatingFormat: one layout for all the (shown) elements of a float tensor.
class FloatFormat {
 public:
  FloatFormat(const std::vector<double>& values, DLDataType dtype, int precision)
      : dtype_(dtype), precision_(precision) {
    std::vector<Decoded> finite;
    bool any_non_finite = false, neg_inf = false;
    double max_val = 0, min_val = std::numeric_limits<double>::infinity();
    for (double v : values) {
      if (!std::isfinite(v)) {
        any_non_finite = true;
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
        continue;
      }
      finite.push_back(decode(v, dtype));
      if (v != 0) {
        max_val = std::max(max_val, std::fabs(v));
        min_val = std::min(min_val, std::fabs(v));
      }
    }
    if (max_val > 0) {
      exp_format_ =
          max_val >= 1e8 || min_val < 0.0001 || ratio_in_dtype(max_val, min_val, dtype) > 1000.0;
    }
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_format_) {
      int max_frac = 0, max_int = 0, max_exp_len = 0;
      for (const Decoded& x : finite) {
        std::string str = scientific(x, precision_, -1, Trim::kDot, -1, -1);
        size_t e = str.find('e'), dot = str.find('.');
        max_int = std::max(max_int, static_cast<int>(dot));
        max_frac = std::max(max_frac, static_cast<int>(e - dot - 1));
        max_exp_len = std::max(max_exp_len, static_cast<int>(str.size() - e - 1));
      }
      exp_size_ = max_exp_len - 1;
      precision_ = max_frac;
      pad_left_ = max_int;
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      int max_frac = 0, max_int = 0;
      for (const Decoded& x : finite) {
        std::string str = positional(x, precision_, -1, Trim::kDot, -1, -1);
        size_t dot = str.find('.');
        max_int = std::max(max_int, static_cast<int>(dot));
        max_frac = std::max(max_frac, static_cast<int>(str.size() - dot - 1));
      }
      pad_left_ = max_int;
      pad_right_ = max_frac;
    }
    if (any_non_finite) {
      const int offset = pad_right_ + 1;
      pad_left_ = std::max({pad_left_, 3 - offset, 3 + (neg_inf ? 1 : 0) - offset});
    }
  }

  std::string operator()(double v) const {
    Decoded x = decode(v, dtype_);
    if (x.nan || x.inf) {
      std::string text = non_finite_text(x);
      const int width = pad_left_ + pad_right_ + 1;
      return std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(text.size()))),
                         ' ') +
             text;
    }
    if (exp_format_)
      return scientific(x, precision_, precision_, Trim::kKeep, pad_left_, exp_size_);
    return positional(x, precision_, 0, Trim::kDot, pad_left_, pad_right_);
  }

 private:
  DLDataType dtype_;
  int precision_;
  bool exp_format_ = false;
  int pad_left_ = 0, pad_right_ = 0, exp_size_ = -1;
};

// ---------------------------------------------------------------- tensors

std::string int_text(const Tensor& t, int64_t i) {
  if (t.dtype().code == kDLUInt && t.dtype().bits == 64) {
    return std::to_string(t.data_as<uint64_t>()[i]);
  }
  return std::to_string(t.get_i64(i));
}

std::string rstrip(const std::string& s) {
  size_t end = s.find_last_not_of(' ');
  return end == std::string::npos ? std::string() : s.substr(0, end + 1);
}

// numpy's _formatArray over a tensor with an element formatter.
class ArrayFormatter {
 public:
  ArrayFormatter(const Tensor& t, const PrintOptions& o, bool summarize)
      : t_(t), o_(o), summarize_(summarize), strides_(t.shape().size(), 1) {
    for (size_t k = strides_.size(); k-- > 1;) strides_[k - 1] = strides_[k] * t.shape()[k];
  }

  // Flat indices of the elements that will be shown (all, or the edges when summarising).
  std::vector<int64_t> shown() const {
    std::vector<int64_t> out;
    collect(0, 0, out);
    return out;
  }

  template <class Fmt>
  std::string format(const Fmt& fmt) const {
    return recurse(0, 0, " ", o_.linewidth, fmt);
  }

 private:
  bool summarized_axis(size_t axis) const {
    return summarize_ && 2 * o_.edgeitems < t_.shape()[axis];
  }

  void collect(size_t axis, int64_t offset, std::vector<int64_t>& out) const {
    if (axis == t_.shape().size()) {
      out.push_back(offset);
      return;
    }
    const int64_t len = t_.shape()[axis];
    if (summarized_axis(axis)) {
      for (int64_t i = 0; i < o_.edgeitems; ++i)
        collect(axis + 1, offset + i * strides_[axis], out);
      for (int64_t i = len - o_.edgeitems; i < len; ++i) {
        collect(axis + 1, offset + i * strides_[axis], out);
      }
    } else {
      for (int64_t i = 0; i < len; ++i) collect(axis + 1, offset + i * strides_[axis], out);
    }
  }

  static void extend_line(std::string& s, std::string& line, const std::string& word, int width,
                          const std::string& next_prefix) {
    bool wrap = static_cast<int>(line.size() + word.size()) > width;
    if (line.size() <= next_prefix.size()) wrap = false;
    if (wrap) {
      s += rstrip(line) + "\n";
      line = next_prefix;
    }
    line += word;
  }

  template <class Fmt>
  std::string recurse(size_t axis, int64_t offset, const std::string& hanging, int width,
                      const Fmt& fmt) const {
    const size_t ndim = t_.shape().size();
    if (axis == ndim) return fmt(offset);
    const std::string next_hanging = hanging + " ";
    const int next_width = width - 1;
    const int64_t len = t_.shape()[axis];
    const bool summary = summarized_axis(axis);
    const int64_t leading = summary ? o_.edgeitems : 0;
    const int64_t trailing = summary ? o_.edgeitems : len;
    const int64_t stride = strides_[axis];
    std::string s;
    if (ndim - axis == 1) {
      const int elem_width = width - 1;
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, recurse(axis + 1, offset + i * stride, next_hanging, next_width, fmt),
                    elem_width, hanging);
        line += ' ';
      }
      if (summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += ' ';
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend_line(s, line,
                    recurse(axis + 1, offset + (len - i) * stride, next_hanging, next_width, fmt),
                    elem_width, hanging);
        line += ' ';
      }
      extend_line(s, line,
                  recurse(axis + 1, offset + (len - 1) * stride, next_hanging, next_width, fmt),
                  elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep(ndim - axis - 1, '\n');
      for (int64_t i = 0; i < leading; ++i) {
        s += hanging + recurse(axis + 1, offset + i * stride, next_hanging, next_width, fmt) +
             line_sep;
      }
      if (summary) s += hanging + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i) {
        s += hanging +
             recurse(axis + 1, offset + (len - i) * stride, next_hanging, next_width, fmt) +
             line_sep;
      }
      s += hanging + recurse(axis + 1, offset + (len - 1) * stride, next_hanging, next_width, fmt);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

  const Tensor& t_;
  const PrintOptions& o_;
  bool summarize_;
  std::vector<int64_t> strides_;
};

std::string shape_list(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string quote(const std::string& text) {
  std::string s = "\"";
  for (char c : valid_utf8(text)) {
    switch (c) {
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      case '\n': s += "\\n"; break;
      case '\t': s += "\\t"; break;
      case '\r': s += "\\r"; break;
      case '\0': s += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          s += buf;
        } else {
          s += c;
        }
    }
  }
  return s + "\"";
}

std::string format_prim(const runtime::Prim& p) {
  if (runtime::is_bool(p.dtype)) return p.i ? "True" : "False";
  if (is_float_dtype(p.dtype)) return format_float_scalar(p.f, p.dtype);
  if (p.is_float()) return format_float_scalar(p.f, DLDataType{kDLFloat, 64, 1});
  if (p.dtype.code == kDLUInt && p.dtype.bits == 64) {
    return std::to_string(static_cast<uint64_t>(p.i));
  }
  return std::to_string(p.i);
}

bool contains_tensor(const runtime::Value& v) {
  if (v.is<runtime::TensorPtr>()) return true;
  if (const runtime::Tuple* t = v.get_if<runtime::Tuple>()) {
    return std::any_of(t->fields.begin(), t->fields.end(), contains_tensor);
  }
  return false;
}

std::string indent(const std::string& text, const std::string& by) {
  std::string out = by;
  for (char c : text) {
    out += c;
    if (c == '\n') out += by;
  }
  return out;
}

// The shortest decimal of `x` in its dtype, as a double.
double shortest_double(const Decoded& x) {
  DecimalDigits dec = dragon4(x.parts, Cutoff::kTotalLength, -1, -1);
  std::string text = (x.negative ? "-" : "") + dec.digits + "e" +
                     std::to_string(dec.exp10 - static_cast<int>(dec.digits.size()) + 1);
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

// The shortest decimal (as a double) of every 16-bit float of a format; non-finite values map to
// themselves.
std::vector<double> shortest_table(int exp_bits, int mant_bits) {
  std::vector<double> table(1 << 16);
  for (uint32_t bits = 0; bits < table.size(); ++bits) {
    Decoded x = decode(bits, exp_bits, mant_bits);
    if (x.nan) {
      table[bits] = std::numeric_limits<double>::quiet_NaN();
    } else if (x.inf) {
      table[bits] = x.negative ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
    } else {
      table[bits] = shortest_double(x);
    }
  }
  return table;
}

}  // namespace

// ---------------------------------------------------------------- public

bool is_float_dtype(DLDataType t) {
  return t.lanes == 1 && ((t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
                          (t.code == kDLBfloat && t.bits == 16));
}
bool is_int_dtype(DLDataType t) {
  return t.lanes == 1 && !runtime::is_bool(t) && (t.code == kDLInt || t.code == kDLUInt) &&
         (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
}

std::string format_message(const std::string& format, const std::vector<Value>& values) {
  auto text = [](const Value& v) {
    if (const auto* s = v.get_if<String>()) return s->value;
    return format_value(v);
  };
  std::string out;
  if (format.empty()) {
    for (size_t i = 0; i < values.size(); ++i) out += (i ? " " : "") + text(values[i]);
    return out;
  }
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (format[i] == '}' && i + 1 < format.size() && format[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (format[i] == '{') {
      size_t close = format.find('}', i);
      if (close == std::string::npos) {
        out += format.substr(i);
        break;
      }
      std::string field = format.substr(i + 1, close - i - 1);
      size_t index = next++;
      if (!field.empty() && std::isdigit(static_cast<unsigned char>(field[0])))
        index = std::stoul(field);
      out += index < values.size() ? text(values[index]) : "{" + field + "}";
      i = close;
    } else {
      out += format[i];
    }
  }
  return out;
}

std::string format_float_scalar(double value, DLDataType dtype) {
  if (!is_float_dtype(dtype)) dtype = DLDataType{kDLFloat, 64, 1};
  Decoded x = decode(value, dtype);
  if (x.nan || x.inf) return non_finite_text(x);
  // numpy compares the dtype's value, widened to double.
  double a = std::fabs(value);
  if (dtype.code == kDLBfloat) {
    a = runtime::bfloat_to_float(runtime::float_to_bfloat(static_cast<float>(a)));
  } else if (dtype.bits == 16) {
    a = runtime::half_to_float(runtime::float_to_half(static_cast<float>(a)));
  } else if (dtype.bits == 32) {
    a = static_cast<float>(a);
  }
  if (a == 0 || (1e-4 <= a && a < 1e16)) return positional(x, -1, -1, Trim::kZero, -1, -1);
  return scientific(x, -1, -1, Trim::kDotZeros, -1, -1);
}

std::string format_tensor(const Tensor& t, const PrintOptions& given) {
  PrintOptions options = given;
  options.edgeitems = std::max<int64_t>(options.edgeitems, 1);
  options.precision = std::clamp(options.precision, 0, 100);
  const DLDataType dt = t.dtype();
  const bool is_bool = runtime::is_bool(dt);
  if (!is_bool && !is_float_dtype(dt) && !is_int_dtype(dt)) {
    return "<tensor of " + runtime::dtype_name(dt) + ", shape " + shape_list(t.shape()) + ">";
  }
  if (t.ndim() == 0) {
    if (is_bool) return t.get_i64(0) ? "True" : "False";
    if (is_float_dtype(dt)) return format_float_scalar(t.get_f64(0), dt);
    return int_text(t, 0);
  }
  const int64_t n = t.numel();
  if (n == 0) return "[]";
  ArrayFormatter array(t, options, n > options.threshold);
  const std::vector<int64_t> shown = array.shown();
  if (is_bool) {
    return array.format([&](int64_t i) { return std::string(t.get_i64(i) ? " True" : "False"); });
  }
  if (is_int_dtype(dt)) {
    size_t width = 0;
    for (int64_t i : shown) width = std::max(width, int_text(t, i).size());
    return array.format([&](int64_t i) {
      std::string s = int_text(t, i);
      return std::string(width - std::min(width, s.size()), ' ') + s;
    });
  }
  std::vector<double> values;
  values.reserve(shown.size());
  for (int64_t i : shown) values.push_back(t.get_f64(i));
  FloatFormat fmt(values, dt, options.precision);
  return array.format([&](int64_t i) { return fmt(t.get_f64(i)); });
}

std::string format_value(const runtime::Value& value, const PrintOptions& options) {
  using namespace runtime;
  if (const TensorPtr* t = value.get_if<TensorPtr>()) {
    return *t ? format_tensor(**t, options) : "None";
  }
  if (const Tuple* tuple = value.get_if<Tuple>()) {
    if (tuple->fields.empty()) return "()";
    if (!contains_tensor(value)) {
      std::string s = "(";
      for (size_t i = 0; i < tuple->fields.size(); ++i) {
        if (i) s += ", ";
        s += format_value(tuple->fields[i], options);
      }
      return s + (tuple->fields.size() == 1 ? ",)" : ")");
    }
    std::string s = "(\n";
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      s += indent(format_value(tuple->fields[i], options), "  ");
      s += (i + 1 < tuple->fields.size() || tuple->fields.size() == 1) ? ",\n" : "\n";
    }
    return s + ")";
  }
  if (const Shape* shape = value.get_if<Shape>()) return "R.shape(" + shape_list(shape->dims) + ")";
  if (const Prim* prim = value.get_if<Prim>()) return format_prim(*prim);
  if (const String* str = value.get_if<String>()) return quote(str->value);
  if (const DType* d = value.get_if<DType>()) return dtype_name(d->dtype);
  if (const CallablePtr* c = value.get_if<CallablePtr>()) {
    return *c ? "<callable " + (*c)->describe() + ">" : "None";
  }
  return "None";
}

double shortest_decimal(double value, DLDataType dtype) {
  if (std::isnan(value) || std::isinf(value)) return value;
  if (!is_float_dtype(dtype) || (dtype.code == kDLFloat && dtype.bits == 64)) return value;
  if (dtype.bits == 32) {
    // The shortest round-trip digits of a float (std::to_chars gives the same digits as Dragon4's
    // unique mode, and is much faster on large tensors).
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                             std::chars_format::scientific)
                   .ptr;
    double d = 0;
    std::from_chars(buf, end, d);
    return d;
  }
  // 16-bit floats: every value's shortest decimal, computed once per dtype.
  if (dtype.code == kDLBfloat) {
    static const std::vector<double> table = shortest_table(8, 7);
    return table[runtime::float_to_bfloat(static_cast<float>(value))];
  }
  static const std::vector<double> table = shortest_table(5, 10);
  return table[runtime::float_to_half(static_cast<float>(value))];
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      len = 1;
      cp = c;
    } else if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid too.
    if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
               (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))) {
      ok = false;
    }
    if (ok) {
      out.append(text, i, len);
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

}  // namespace raxc::runtime
