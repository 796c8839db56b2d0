// Constant tensors inside the importer: initializers, Constant nodes, values folded at import
// time and inputs known when `raxc run` imports in memory. Stored as little-endian bytes of the
// Relax dtype (what .npy holds), read back as int64 or double for folding and printing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace raxc::importer {

struct Tensor {
  std::string dtype;  // Relax dtype: "float32", "int64", "bool", ...
  std::vector<int64_t> dims;
  std::string raw;  // row-major, little-endian, element_size(dtype) bytes per element

  int64_t numel() const;
  bool is_float() const;
  double real(int64_t i) const;      // element i as a double (any dtype)
  int64_t integer(int64_t i) const;  // element i as an int64 (floats truncated)
  std::vector<int64_t> integers() const;
  std::vector<double> reals() const;
};

int element_size(const std::string& dtype);
// The Relax dtype of an ONNX TensorProto data type, or nullopt (string, complex, ...).
std::optional<std::string> relax_dtype(int onnx_type);
std::string onnx_type_name(int onnx_type);

// Builds tensors of a dtype from values (cast like C, bool as != 0).
Tensor make_tensor(const std::string& dtype, std::vector<int64_t> dims,
                   const std::vector<double>& values);
Tensor make_int_tensor(const std::string& dtype, std::vector<int64_t> dims,
                       const std::vector<int64_t>& values);

enum class DecodeError { None, UnsupportedType, ExternalMissing, Malformed };
// A TensorProto's values; external data is read relative to `base_dir`. On failure `why` says
// what went wrong (for external data: the file name first, then the reason).
DecodeError decode_tensor(const onnx::TensorProto& proto, const std::string& base_dir, Tensor& out,
                          std::string& why);

std::string encode_npy(const Tensor& t);
// Little-endian C-order .npy (versions 1-3) back into a tensor; false for anything else.
bool decode_npy(const std::string& bytes, Tensor& out);

// `R.const(...)` text holding the tensor exactly, or nullopt (non-finite values, dtypes the
// text cannot spell).
std::optional<std::string> const_literal(const Tensor& t);

}  // namespace raxc::importer
