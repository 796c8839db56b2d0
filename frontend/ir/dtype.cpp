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

}  // namespace

std::optional<DataType> DataType::parse(std::string_view text) {
  if (text == "void") return Void();
  if (text == "bool") return Bool();
  if (text == "handle") return Handle();
  // Split a trailing "x<lanes>".
  uint16_t lanes = 1;
  if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    if (auto n = parse_number(text.substr(x + 1)); n && *n > 0 && *n < 65536) {
      lanes = uint16_t(*n);
      text = text.substr(0, x);
    }
  }
  for (const NamedFloat& f : kNamedFloats)
    if (text == f.name) return DataType{f.code, f.bits, lanes};
  struct Prefix {
    std::string_view name;
    Code code;
  };
  // Order matters: "bfloat" before "float", "uint" before "int".
  for (Prefix p : {Prefix{"bfloat", Code::BFloat}, Prefix{"float", Code::Float},
                   Prefix{"uint", Code::UInt}, Prefix{"int", Code::Int}}) {
    if (text.substr(0, p.name.size()) != p.name) continue;
    auto bits = parse_number(text.substr(p.name.size()));
    if (!bits) return std::nullopt;
    bool valid = p.code == Code::Float    ? (*bits == 16 || *bits == 32 || *bits == 64)
                 : p.code == Code::BFloat ? *bits == 16
                                          : (*bits == 8 || *bits == 16 || *bits == 32 ||
                                             *bits == 64 || (p.code == Code::UInt && *bits == 1));
    if (!valid) return std::nullopt;
    return DataType{p.code, uint8_t(*bits), lanes};
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
  if (lanes > 1) base += "x" + std::to_string(lanes);
  return base;
}

}  // namespace raxc::ir
