// Printing run-time values: the text `raxc run` shows, R.print writes and messages quote (the
// JSON form is backend/io/print.h).
//
// Tensors print as numpy's str(array) does with default print options (numpy 1.24,
// np.array2string: precision 8, floatmode 'maxprec', threshold 1000, edgeitems 3, linewidth 75):
//   [[1.  2.5]
//    [3.  4. ]]
// — floats with the shortest digits that identify the value in its own dtype (float16 values
// print as float16, float32 as float32), at most `precision` digits after the point (after the
// first digit in scientific notation), one width for all elements; scientific notation when a
// non-zero finite magnitude is >= 1e8 or < 1e-4 or max/min > 1e3; nan, inf, -inf; integers
// right-aligned; bools True/False; arrays of more than `threshold` elements summarised with
// "..." keeping `edgeitems` at each edge of each axis; lines wrapped at `linewidth`. A 0-d tensor
// prints as numpy prints the scalar (str(np.float32(2.5)) == "2.5"), a 0-size one as "[]".
// bfloat16 (not a numpy dtype) is printed by the same rules with bfloat16's own precision.
//
// Other values:
//   Prim     its value as the numpy scalar of its dtype: 3, 2.5, True, nan
//   Shape    R.shape([2, 3])
//   String   in double quotes with \" \\ \n \t \r \0 and \uXXXX escapes (a valid argument literal)
//   Null     None
//   DType    its name: float32
//   Callable <callable DESCRIPTION>
//   Tuple    (a, b) on one line when no tensor is inside it, e.g. (3, R.shape([2]), "x"); a
//            1-tuple as (a,); a tuple holding a tensor anywhere puts each field on its own line,
//            indented by two spaces (nested fields further), fields separated by commas:
//              (
//                [[1. 2.]
//                 [3. 4.]],
//                3
//              )
//            with a trailing comma after the only field of a 1-tuple.
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend/runtime/value.h"

namespace raxc::runtime {

struct PrintOptions {
  int64_t threshold = 1000;  // tensors with more elements are summarised
  int64_t edgeitems = 3;     // elements kept at each edge of a summarised axis (at least 1)
  int linewidth = 75;        // characters per line
  int precision = 8;         // maximum fractional digits of floats (0 to 100)
};

std::string format_value(const Value& value, const PrintOptions& options = {});
std::string format_tensor(const Tensor& tensor, const PrintOptions& options = {});
// A float scalar of `dtype` (float16/32/64, bfloat16) as numpy's str() shows it: the shortest
// digits that round-trip in the dtype, positional for magnitudes in [1e-4, 1e16) and for 0,
// scientific otherwise ("2.5", "100.0", "1e-05", "1.5e+16", "nan", "-inf"). `value` is rounded
// to the dtype first.
std::string format_float_scalar(double value, DLDataType dtype);
// The double nearest to the shortest decimal that identifies `value` in `dtype` (float32 0.1
// is 0.1, not 0.10000000149011612); nan and infinities as they are, and an infinity when the
// value overflows the dtype.
double shortest_decimal(double value, DLDataType dtype);
// The dtypes format_tensor prints element by element: float16/32/64, bfloat16, and integers of
// 8 to 64 bits (bool is neither).
bool is_float_dtype(DLDataType t);
bool is_int_dtype(DLDataType t);
// `text` made valid UTF-8 (invalid bytes become U+FFFD).
std::string valid_utf8(const std::string& text);

// Python's str.format with positional `{}` / `{N}` fields and `{{` `}}` escapes, which is how
// TVM formats R.print and R.assert_op messages: strings as they are, other values as
// format_value shows them. An empty format joins the values with spaces.
std::string format_message(const std::string& format, const std::vector<Value>& values);

}  // namespace raxc::runtime
