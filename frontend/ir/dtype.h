// TIR/Relax data types: code, bits, lanes (seed spec "DataType"). `void` is Handle(0, 0) and
// means "unknown" in Relax; `bool` is UInt(1).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace raxc::ir {

struct DataType {
  enum class Code : uint8_t {
    Int,
    UInt,
    Float,
    BFloat,
    Handle,
    // Low-precision floats whose names carry their format (float8_e4m3fn, float4_e2m1fn, …).
    Float8E3M4,
    Float8E4M3,
    Float8E4M3B11FNUZ,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E8M0FNU,
    Float6E2M3FN,
    Float6E3M2FN,
    Float4E2M1FN,
  };
  Code code = Code::Handle;
  uint8_t bits = 0;
  uint16_t lanes = 0;
  // TVM's scalable vectors ("float32xvscalex4": lanes is a multiple of the hardware's vscale).
  bool scalable = false;

  static DataType Void() { return {Code::Handle, 0, 0}; }
  static DataType Bool() { return {Code::UInt, 1, 1}; }
  static DataType Int(int bits) { return {Code::Int, uint8_t(bits), 1}; }
  static DataType UInt(int bits) { return {Code::UInt, uint8_t(bits), 1}; }
  static DataType Float(int bits) { return {Code::Float, uint8_t(bits), 1}; }
  static DataType Handle() { return {Code::Handle, 64, 1}; }

  bool is_void() const { return code == Code::Handle && bits == 0; }
  bool is_bool() const { return code == Code::UInt && bits == 1; }
  bool is_int() const { return code == Code::Int; }
  bool is_uint() const { return code == Code::UInt && bits != 1; }
  bool is_integer() const { return code == Code::Int || code == Code::UInt; }
  bool is_float() const { return !is_integer() && code != Code::Handle; }
  bool is_handle() const { return code == Code::Handle && bits != 0; }

  // "float32", "int64x4", "bool", "void", "handle", "float8_e4m3fn". Inverse of parse().
  std::string str() const;
  // Parses a dtype string as TVM spells it; nullopt when it is not a dtype.
  static std::optional<DataType> parse(std::string_view text);

  friend bool operator==(const DataType&, const DataType&) = default;
};

}  // namespace raxc::ir
