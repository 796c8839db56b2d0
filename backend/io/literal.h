// Command-line argument literals for `raxc run FILE.rx ARG...`: parsing a literal into a tree,
// converting it to the runtime value a parameter expects, and the generated fillers
// (random / zeros / ones) for parameters given no literal.
//
// Syntax (whitespace — spaces, tabs, newlines — is allowed between tokens):
//   number   integer `42`, `-2`, `+7`; float `2.5`, `1.`, `.5`, `1e-3`, `-2.5E+4`;
//            `inf`, `-inf`, `infinity`, `nan` (case-insensitive)
//   bool     `true`, `false`, `True`, `False`
//   string   double quotes, with the escapes \" \\ \/ \n \t \r \0 and \uXXXX (stored as UTF-8)
//   list     `[1, 2, 3]`, `[[1, 2], [3, 4]]`, `[]` (a trailing comma is allowed)
//   tuple    `(2, 3)`, `(2,)`, `()`; as in Python `(x)` is just x
// Errors about the text are IoErrors whose message starts with the 1-based (byte) column of the
// offending character: "column 7: expected ',' or ']'". Nesting is limited to kMaxLiteralDepth
// levels. Conversion errors name the column of the offending element and its text.
//
// Conversions check that every value fits the target dtype exactly as written: ints must be
// integer literals within the dtype's range (300 does not fit int8, 2.0 is not an int), bools
// must be true/false, floats accept integers and floats whose magnitude does not overflow the
// dtype (rounding to the nearest representable value is fine; inf and nan are allowed).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "backend/io/io_error.h"
#include "backend/runtime/value.h"

namespace raxc::io {

inline constexpr int kMaxLiteralDepth = 64;

struct Literal {
  enum class Kind { Int, Float, Bool, String, List, Tuple };
  Kind kind = Kind::Int;
  // Int: the value as a sign and magnitude (so that all of int64 and uint64 are exact);
  // `too_big` when the magnitude exceeds uint64.
  bool negative = false;
  uint64_t magnitude = 0;
  bool too_big = false;
  double f = 0;                // Float (and Int, converted)
  bool b = false;              // Bool
  std::string s;               // String: the decoded characters
  std::vector<Literal> items;  // List, Tuple
  int column = 1;              // 1-based column of the literal's first character
  std::string text;            // the literal as written (for messages)

  bool is_sequence() const { return kind == Kind::List || kind == Kind::Tuple; }
};

Result<Literal> parse_literal(std::string_view text);

// A tensor of `dtype` whose shape is the nesting of lists/tuples (a scalar gives a 0-d tensor).
// Ragged nesting, non-numeric leaves, out-of-range values and vector dtypes are errors.
Result<runtime::TensorPtr> literal_to_tensor(const Literal& lit, DLDataType dtype);
// An R.Prim of `dtype` from a scalar literal. Prim stores integers in an int64: a uint64 value
// above INT64_MAX is kept as its two's-complement bit pattern.
Result<runtime::Prim> literal_to_prim(const Literal& lit, DLDataType dtype);
// An R.Shape from a tuple or list of non-negative integers (`()` is the 0-d shape).
Result<runtime::Shape> literal_to_shape(const Literal& lit);
// An R.String from a string literal.
Result<runtime::String> literal_to_string(const Literal& lit);

// Generated arguments, element by element in row-major order, one 64-bit draw per element so
// that a seed gives the same values on every platform:
//   floating point (any width)  uniform in [-1, 1), on a grid of 2^-(significand bits - 1)
//                               that the dtype represents exactly
//   integers (signed/unsigned)  uniform in {0, 1, 2, 3}
//   bool                        true or false with probability 1/2
void fill_random(runtime::Tensor& tensor, std::mt19937_64& rng);
void fill_zeros(runtime::Tensor& tensor);
void fill_ones(runtime::Tensor& tensor);  // bool: true

}  // namespace raxc::io
