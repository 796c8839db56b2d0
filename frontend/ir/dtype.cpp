#include "frontend/ir/dtype.h"

#include <array>
#include <charconv>

namespace raxc::ir {
namespace {

struct NamedFloat {
  std::string_view name;
  DataType::Code code;
  uint8_t bits;
};

// Low-precision float formats are spelled by name; their lanes suffix works like float32x4.
constexpr std::array<NamedFloat, 11> kNamedFloats{{
    {"float8_e3m4", DataType::Code::Float8E3M4, 8},
    {"float8_e4m3", DataType::Code::Float8E4M3, 8},
    {"float8_e4m3b11fnuz", DataType::Code::Float8E4M3B11FNUZ, 8},
    {"float8_e4m3fn", DataType::Code::Float8E4M3FN, 8},
    {"float8_e4m3fnuz", DataType::Code::Float8E4M3FNUZ, 8},
    {"float8_e5m2", DataType::Code::Float8E5M2, 8},
    {"float8_e5m2fnuz", DataType::Code::Float8E5M2FNUZ, 8},
    {"float8_e8m0fnu", DataType::Code::Float8E8M0FNU, 8},
    {"float6_e2m3fn", DataType::Code::Float6E2M3FN, 6},
    {"float6_e3m2fn", DataType::Code::Float6E3M2FN, 6},
    {"float4_e2m1fn", DataType::Code::Float4E2M1FN, 4},
}};

std::optional<int> parse_number(std::string_view text) {
  int value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool digit_at(std::string_view text, size_t i) {
  return i < text.size() && text[i] >= '0' && text[i] <= '9';
}

// TVM's short spellings (i8, u32, f16, bf16, fp8_e4m3fn, f8_e5m2, ...) in their long form.
std::string expand_alias(std::string_view text) {
  struct Alias {
    std::string_view short_prefix, long_prefix;
    size_t digit_at;  // the alias needs a digit here (0: no condition)
  };
  static constexpr Alias kAliases[] = {
      {"fp8_", "float8_", 0}, {"f8_", "float8_", 0}, {"fp6_", "float6_", 0}, {"f6_", "float6_", 0},
      {"fp4_", "float4_", 0}, {"f4_", "float4_", 0}, {"bf", "bfloat", 2},    {"i", "int", 1},
      {"u", "uint", 1},       {"f", "float", 1},
  };
  for (const Alias& a : kAliases) {
    if (!starts_with(text, a.short_prefix)) continue;
    if (a.digit_at && !digit_at(text, a.digit_at)) continue;
    return std::string(a.long_prefix) + std::string(text.substr(a.short_prefix.size()));
  }
  return std::string(text);
}

// The lanes suffix: "" (1), "x<n>", or TVM's scalable "xvscalex<n>" (SVE; `scalable`).
bool parse_lanes(std::string_view suffix, uint16_t& lanes, bool& scalable) {
  lanes = 1;
  scalable = false;
  if (suffix.empty()) return true;
  if (starts_with(suffix, "xvscale")) {
    scalable = true;
    suffix.remove_prefix(7);
  }
  if (!starts_with(suffix, "x")) return false;
  auto n = parse_number(suffix.substr(1));
  if (!n || *n <= 0 || *n > 65535) return false;
  lanes = uint16_t(*n);
  return true;
}

// TVM's parser takes any width; raxc keeps the widths some target implements, so that a typo
// ("float33") is still reported: integers of 1 to 64 bits (int4, uint2, ...), floats of 16, 32
// and 64 bits, bfloat16 (the low-precision floats are spelled by name).
bool plausible_bits(DataType::Code code, int bits) {
  switch (code) {
    case DataType::Code::Int:
    case DataType::Code::UInt: return bits >= 1 && bits <= 64;
    case DataType::Code::Float: return bits == 16 || bits == 32 || bits == 64;
    case DataType::Code::BFloat: return bits == 16;
    default: return true;
  }
}

}  // namespace

// Follows TVM's DataType string parser (tvm-ffi `StringToDLDataType`): a type code prefix, an
// optional bit width (32 when omitted, as TVM does), an optional lanes suffix. The `custom[...]`
// types of TVM's datatype registry are not dtypes of any program raxc reads and are refused.
std::optional<DataType> DataType::parse(std::string_view original) {
  if (original == "void") return Void();
  std::string expanded = expand_alias(original);
  std::string_view text = expanded;
  for (const NamedFloat& f : kNamedFloats) {
    if (!starts_with(text, f.name)) continue;
    std::string_view rest = text.substr(f.name.size());
    // float4_e2m1fn also takes "_x2" (TVM: allow_underscore_lanes).
    if (f.code == Code::Float4E2M1FN && starts_with(rest, "_x")) rest.remove_prefix(1);
    DataType dt{f.code, f.bits, 1};
    if (!starts_with(rest, "xvscale") && parse_lanes(rest, dt.lanes, dt.scalable)) return dt;
  }
  struct Prefix {
    std::string_view name;
    Code code;
    uint8_t default_bits;
  };
  // Order matters: "bfloat" before "float", "uint" before "int".
  for (Prefix p : {Prefix{"bfloat", Code::BFloat, 16}, Prefix{"float", Code::Float, 32},
                   Prefix{"uint", Code::UInt, 32}, Prefix{"int", Code::Int, 32},
                   Prefix{"bool", Code::UInt, 1}, Prefix{"handle", Code::Handle, 64}}) {
    if (!starts_with(text, p.name)) continue;
    std::string_view rest = text.substr(p.name.size());
    size_t digits = 0;
    while (digit_at(rest, digits)) ++digits;
    int bits = p.default_bits;
    if (digits > 0) {
      auto n = parse_number(rest.substr(0, digits));
      if (!n || *n > 255) return std::nullopt;
      if (*n != 0) bits = *n;
      // A width after "bool" or "handle" is not a dtype TVM prints; keep them exact.
      if (p.code == Code::Handle || p.name == "bool") return std::nullopt;
    }
    if (!plausible_bits(p.code, bits)) return std::nullopt;
    DataType dt{p.code, uint8_t(bits), 1};
    if (!parse_lanes(rest.substr(digits), dt.lanes, dt.scalable)) return std::nullopt;
    return dt;
  }
  return std::nullopt;
}

std::string DataType::str() const {
  if (is_void()) return "void";
  if (code == Code::Handle) return "handle";
  std::string base;
  if (is_bool()) {
    base = "bool";
  } else {
    switch (code) {
      case Code::Int: base = "int" + std::to_string(bits); break;
      case Code::UInt: base = "uint" + std::to_string(bits); break;
      case Code::Float: base = "float" + std::to_string(bits); break;
      case Code::BFloat: base = "bfloat" + std::to_string(bits); break;
      default:
        for (const NamedFloat& f : kNamedFloats)
          if (f.code == code) base = std::string(f.name);
    }
  }
  if (scalable) base += "xvscale";
  if (lanes > 1 || scalable) base += "x" + std::to_string(lanes);
  return base;
}

}  // namespace raxc::ir
