// NumPy .npy files <-> runtime tensors (format description: numpy.lib.format).
//
// Reading accepts format versions 1.0, 2.0 and 3.0 and the dtypes
//   bool (|b1), int8..int64 (i1..i8), uint8..uint64 (u1..u8), float16/32/64 (f2, f4, f8)
// in little-endian ('<'), native ('=', little-endian hosts only), not-applicable ('|') or
// big-endian ('>') byte order; big-endian data is converted on read, bool bytes are normalised
// to 0/1, and Fortran-order files are transposed to row-major. 0-d and 0-size arrays work.
// Anything else (object, complex, string, structured or void dtypes, a longdouble, a header over
// kMaxNpyHeaderBytes or more than kMaxNpyDims dimensions) is an IoError, never an exception.
// The byte size the header implies is checked (for overflow, and against the file size) before
// any tensor memory is allocated, so a tiny file that declares a huge shape costs nothing.
// Extra bytes after the data are ignored, as numpy does.
//
// Writing produces format 1.0, or 2.0 when the header does not fit 1.0's 16-bit length, with
// the header padded so that the data starts at a multiple of 64 bytes. bfloat16 is not a numpy
// dtype: a bfloat16 tensor is written as float32 ('<f4') holding the same values (exact).
// Vector dtypes (lanes > 1) cannot be written.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "backend/io/io_error.h"
#include "backend/runtime/tensor.h"

namespace raxc::io {

inline constexpr int64_t kMaxNpyHeaderBytes = 1 << 16;  // header text, excluding the preamble
inline constexpr int kMaxNpyDims = 32;                  // numpy's own limit

// Reads a .npy file. Errors name the file. A large file whose elements need no conversion is
// mapped copy-on-write instead of copied (writes to the tensor stay in this process); as with any
// mapped file, truncating it while the tensor lives is undefined.
Result<runtime::TensorPtr> read_npy(const std::filesystem::path& path);
// Decodes .npy bytes held in memory (same rules; errors do not name a file).
Result<runtime::TensorPtr> decode_npy(std::string_view bytes);

// The complete .npy encoding of `tensor` (header + row-major data).
Result<std::string> encode_npy(const runtime::Tensor& tensor);
// Writes `tensor` to `path` without truncating an existing file in place (temporary file in the
// same directory + rename, see atomic_file.h).
Status write_npy(const std::filesystem::path& path, const runtime::Tensor& tensor);

// The numpy dtype descriptor written for `dtype` ("<f4", "|b1", ...; bfloat16 -> "<f4"), or an
// error for a dtype .npy cannot hold.
Result<std::string> npy_descr(DLDataType dtype);

}  // namespace raxc::io
