// Constant tensors of the importer (tensor.h): TensorProto decoding (raw_data, the typed
// fields, external data files), .npy encoding/decoding and exact R.const literals.
#include "importer/tensor.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace raxc::importer {
namespace {

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  uint32_t bits =
      exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return sign | 0x7c00u | (mant ? 0x200u : 0u);
  if (exp >= 31) return sign | 0x7c00u;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13), rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

template <typename T>
T load(const std::string& raw, int64_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(std::string& raw, T v) {
  raw.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void store_real(std::string& raw, const std::string& dtype, double v) {
  if (dtype == "float32")
    store(raw, static_cast<float>(v));
  else if (dtype == "float64")
    store(raw, v);
  else if (dtype == "float16")
    store(raw, float_to_half(static_cast<float>(v)));
  else if (dtype == "bfloat16")
    store(raw, static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16));
  else if (dtype == "bool")
    store(raw, static_cast<uint8_t>(v != 0));
  else if (dtype == "int8")
    store(raw, static_cast<int8_t>(v));
  else if (dtype == "int16")
    store(raw, static_cast<int16_t>(v));
  else if (dtype == "int32")
    store(raw, static_cast<int32_t>(v));
  else if (dtype == "int64")
    store(raw, static_cast<int64_t>(v));
  else if (dtype == "uint8")
    store(raw, static_cast<uint8_t>(v));
  else if (dtype == "uint16")
    store(raw, static_cast<uint16_t>(v));
  else if (dtype == "uint32")
    store(raw, static_cast<uint32_t>(v));
  else if (dtype == "uint64")
    store(raw, static_cast<uint64_t>(v));
}

void store_int(std::string& raw, const std::string& dtype, int64_t v) {
  if (dtype == "int64")
    store(raw, v);
  else if (dtype == "uint64")
    store(raw, static_cast<uint64_t>(v));
  else
    store_real(raw, dtype, static_cast<double>(v));
}

std::string npy_descr(const std::string& dtype) {
  if (dtype == "bool") return "|b1";
  if (dtype == "int8") return "|i1";
  if (dtype == "uint8") return "|u1";
  if (dtype == "bfloat16") return "<f4";  // numpy has no bfloat16: widened on write
  char kind = dtype[0] == 'f' ? 'f' : dtype[0] == 'u' ? 'u' : 'i';
  return std::string("<") + kind + std::to_string(element_size(dtype));
}

std::optional<std::string> dtype_of_descr(const std::string& d) {
  static const std::pair<const char*, const char*> kTable[] = {
      {"|b1", "bool"},   {"|i1", "int8"},    {"|u1", "uint8"},   {"<i2", "int16"},
      {"<i4", "int32"},  {"<i8", "int64"},   {"<u2", "uint16"},  {"<u4", "uint32"},
      {"<u8", "uint64"}, {"<f2", "float16"}, {"<f4", "float32"}, {"<f8", "float64"},
      {"<b1", "bool"},   {"|b", "bool"}};
  for (const auto& [descr, dtype] : kTable)
    if (d == descr) return dtype;
  return std::nullopt;
}

}  // namespace

int element_size(const std::string& dtype) {
  if (dtype == "bool" || dtype == "int8" || dtype == "uint8") return 1;
  if (dtype == "int16" || dtype == "uint16" || dtype == "float16" || dtype == "bfloat16") return 2;
  if (dtype == "int32" || dtype == "uint32" || dtype == "float32") return 4;
  return 8;
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool Tensor::is_float() const { return dtype[0] == 'f' || dtype == "bfloat16"; }

double Tensor::real(int64_t i) const {
  if (dtype == "float32") return load<float>(raw, i);
  if (dtype == "float64") return load<double>(raw, i);
  if (dtype == "float16") return half_to_float(load<uint16_t>(raw, i));
  if (dtype == "bfloat16")
    return std::bit_cast<float>(static_cast<uint32_t>(load<uint16_t>(raw, i)) << 16);
  if (dtype == "uint64") return static_cast<double>(load<uint64_t>(raw, i));
  return static_cast<double>(integer(i));
}

int64_t Tensor::integer(int64_t i) const {
  if (dtype == "bool" || dtype == "uint8") return load<uint8_t>(raw, i);
  if (dtype == "int8") return load<int8_t>(raw, i);
  if (dtype == "int16") return load<int16_t>(raw, i);
  if (dtype == "uint16") return load<uint16_t>(raw, i);
  if (dtype == "int32") return load<int32_t>(raw, i);
  if (dtype == "uint32") return load<uint32_t>(raw, i);
  if (dtype == "int64") return load<int64_t>(raw, i);
  if (dtype == "uint64") return static_cast<int64_t>(load<uint64_t>(raw, i));
  double v = real(i);
  if (!std::isfinite(v)) return 0;
  return static_cast<int64_t>(v);
}

std::vector<int64_t> Tensor::integers() const {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < numel(); ++i) out.push_back(integer(i));
  return out;
}

std::vector<double> Tensor::reals() const {
  std::vector<double> out;
  for (int64_t i = 0; i < numel(); ++i) out.push_back(real(i));
  return out;
}

std::optional<std::string> relax_dtype(int onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return "float32";
    case onnx::TensorProto::UINT8: return "uint8";
    case onnx::TensorProto::INT8: return "int8";
    case onnx::TensorProto::UINT16: return "uint16";
    case onnx::TensorProto::INT16: return "int16";
    case onnx::TensorProto::INT32: return "int32";
    case onnx::TensorProto::INT64: return "int64";
    case onnx::TensorProto::BOOL: return "bool";
    case onnx::TensorProto::FLOAT16: return "float16";
    case onnx::TensorProto::DOUBLE: return "float64";
    case onnx::TensorProto::UINT32: return "uint32";
    case onnx::TensorProto::UINT64: return "uint64";
    // BFLOAT16 is left out: .npy cannot hold it, so neither weights nor inputs could carry it.
    default: return std::nullopt;
  }
}

std::string onnx_type_name(int onnx_type) {
  if (onnx::TensorProto::DataType_IsValid(onnx_type))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_type));
  return "type " + std::to_string(onnx_type);
}

Tensor make_tensor(const std::string& dtype, std::vector<int64_t> dims,
                   const std::vector<double>& values) {
  Tensor t{dtype, std::move(dims), {}};
  for (double v : values) store_real(t.raw, dtype, v);
  return t;
}

Tensor make_int_tensor(const std::string& dtype, std::vector<int64_t> dims,
                       const std::vector<int64_t>& values) {
  Tensor t{dtype, std::move(dims), {}};
  for (int64_t v : values) store_int(t.raw, dtype, v);
  return t;
}

DecodeError decode_tensor(const onnx::TensorProto& p, const std::string& base_dir, Tensor& out,
                          std::string& why) {
  std::optional<std::string> dtype = relax_dtype(p.data_type());
  if (!dtype) {
    why = onnx_type_name(p.data_type());
    return DecodeError::UnsupportedType;
  }
  out.dtype = *dtype;
  out.dims.assign(p.dims().begin(), p.dims().end());
  for (int64_t d : out.dims)
    if (d < 0) {
      why = "a negative dimension";
      return DecodeError::Malformed;
    }
  int64_t bytes = out.numel() * element_size(out.dtype);
  out.raw.clear();
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : p.external_data()) {
      if (kv.key() == "location") location = kv.value();
      if (kv.key() == "offset") offset = std::stoll(kv.value());
      if (kv.key() == "length") length = std::stoll(kv.value());
    }
    std::filesystem::path path = std::filesystem::path(base_dir) / location;
    std::ifstream in(path, std::ios::binary);
    if (location.empty() || !in) {
      why = location + "\n" + (location.empty() ? "no location given" : "no such file");
      return DecodeError::ExternalMissing;
    }
    in.seekg(offset);
    out.raw.resize(static_cast<size_t>(length >= 0 ? length : bytes));
    in.read(out.raw.data(), static_cast<std::streamsize>(out.raw.size()));
    if (!in || static_cast<int64_t>(out.raw.size()) != bytes) {
      why = location + "\n" + "the file holds fewer bytes than the tensor needs";
      return DecodeError::ExternalMissing;
    }
    return DecodeError::None;
  }
  if (p.has_raw_data()) {
    out.raw = p.raw_data();
  } else if (out.dtype == "float32") {
    for (float v : p.float_data()) store(out.raw, v);
  } else if (out.dtype == "float64") {
    for (double v : p.double_data()) store(out.raw, v);
  } else if (out.dtype == "int64") {
    for (int64_t v : p.int64_data()) store(out.raw, v);
  } else if (out.dtype == "uint32" || out.dtype == "uint64") {
    for (uint64_t v : p.uint64_data()) store_int(out.raw, out.dtype, static_cast<int64_t>(v));
  } else if (out.dtype == "float16" || out.dtype == "bfloat16") {
    for (int32_t v : p.int32_data()) store(out.raw, static_cast<uint16_t>(v));
  } else {
    for (int32_t v : p.int32_data()) store_int(out.raw, out.dtype, v);
  }
  if (static_cast<int64_t>(out.raw.size()) != bytes) {
    why = "it holds " + std::to_string(out.raw.size()) + " bytes of data for " +
          std::to_string(out.numel()) + " elements of " + out.dtype;
    return DecodeError::Malformed;
  }
  return DecodeError::None;
}

std::string encode_npy(const Tensor& t) {
  std::string shape = "(";
  for (int64_t d : t.dims) shape += std::to_string(d) + ",";
  if (t.dims.size() > 1) shape.pop_back();
  shape += ")";
  std::string header =
      "{'descr': '" + npy_descr(t.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  if (t.dtype == "bfloat16") {
    for (int64_t i = 0; i < t.numel(); ++i) store(out, static_cast<float>(t.real(i)));
  } else {
    out += t.raw;
  }
  return out;
}

bool decode_npy(const std::string& bytes, Tensor& out) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return false;
  int major = static_cast<unsigned char>(bytes[6]);
  size_t len = 0, start = 0;
  if (major == 1) {
    len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    start = 10;
  } else {
    if (bytes.size() < 12) return false;
    for (int i = 0; i < 4; ++i)
      len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    start = 12;
  }
  if (bytes.size() < start + len) return false;
  std::string header = bytes.substr(start, len);
  auto value_of = [&](const std::string& key) -> std::string {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) return "";
    at = header.find(':', at);
    size_t end = header.find_first_of(key == "shape" ? ")" : ",}", at);
    return at == std::string::npos || end == std::string::npos ? ""
                                                               : header.substr(at + 1, end - at);
  };
  std::string descr = value_of("descr");
  size_t q1 = descr.find('\''), q2 = descr.rfind('\'');
  if (q1 == std::string::npos || q2 <= q1) return false;
  std::optional<std::string> dtype = dtype_of_descr(descr.substr(q1 + 1, q2 - q1 - 1));
  if (!dtype || value_of("fortran_order").find("True") != std::string::npos) return false;
  out.dtype = *dtype;
  out.dims.clear();
  std::string shape = value_of("shape");
  std::stringstream digits;
  for (char c : shape) digits << (std::isdigit(static_cast<unsigned char>(c)) ? c : ' ');
  for (int64_t d; digits >> d;) out.dims.push_back(d);
  size_t need = static_cast<size_t>(out.numel() * element_size(out.dtype));
  if (bytes.size() < start + len + need) return false;
  out.raw = bytes.substr(start + len, need);
  return true;
}

std::optional<std::string> const_literal(const Tensor& t) {
  if (t.dtype == "bfloat16" || t.dtype.rfind("uint", 0) == 0) return std::nullopt;
  std::vector<std::string> items;
  for (int64_t i = 0; i < t.numel(); ++i) {
    char buf[40];
    if (t.dtype == "bool") {
      items.push_back(t.integer(i) ? "True" : "False");
    } else if (t.is_float()) {
      double v = t.real(i);
      if (!std::isfinite(v)) return std::nullopt;
      std::snprintf(buf, sizeof buf, t.dtype == "float64" ? "%.17g" : "%.9g", v);
      std::string s = buf;
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      items.push_back(s);
    } else {
      items.push_back(std::to_string(t.integer(i)));
    }
  }
  // Nest the flat list by the dimensions, innermost first.
  std::string text;
  if (t.dims.empty()) {
    text = items.empty() ? "0" : items[0];
  } else {
    for (auto d = t.dims.rbegin(); d != t.dims.rend(); ++d) {
      std::vector<std::string> grouped;
      size_t n = static_cast<size_t>(*d);
      if (n == 0) return std::nullopt;
      for (size_t i = 0; i < items.size(); i += n) {
        std::string g = "[";
        for (size_t j = 0; j < n; ++j) g += (j ? ", " : "") + items[i + j];
        grouped.push_back(g + "]");
      }
      items = std::move(grouped);
    }
    text = items.empty() ? "[]" : items[0];
  }
  return "R.const(" + text + ", \"" + t.dtype + "\")";
}

}  // namespace raxc::importer
