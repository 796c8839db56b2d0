// Python literal decoding shared by Relax and TIR lowering (text-format.md §2).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "frontend/lower/cst.h"

namespace raxc::lower {

// The value of a `string` / `concatenated_string` node: quotes and prefixes stripped, escapes
// decoded (`\xHH` are bytes, re-assembled as UTF-8 by construction). nullopt + `error` set on a
// malformed escape.
std::optional<std::string> decode_string(const cst::Cst& cst, TSNode node, std::string* error);

struct IntLiteral {
  uint64_t magnitude;  // the literal's value; callers apply a unary minus and range checks
  bool overflow;       // does not fit in 64 bits
};
// Decimal, 0x / 0o / 0b, `_` separators.
std::optional<IntLiteral> parse_int_literal(std::string_view text);
// `1.0`, `.5`, `3.`, `1e-05`, `2.5e+38`, `_` separators. Values beyond double range are ±inf.
std::optional<double> parse_float_literal(std::string_view text);

}  // namespace raxc::lower
