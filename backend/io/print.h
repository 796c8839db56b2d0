// The JSON form of run-time values (`raxc run --output-format json`, `--save`); the text form is
// the runtime's (backend/runtime/format.h), which a built library's R.print uses too.
#pragma once
#include <nlohmann/json.hpp>

#include "backend/runtime/format.h"
#include "backend/runtime/value.h"

namespace raxc::io {

using runtime::format_float_scalar;
using runtime::format_tensor;
using runtime::format_value;
using runtime::PrintOptions;
using runtime::valid_utf8;

// The JSON form (`--output-format json`), with all data (never summarised):
//   tensor   {"tensor": {"dtype": "float32", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]}}
//            (a 0-d tensor's "data" is the scalar); bools are true/false, integers exact
//            (uint64 included), floats the double of their shortest decimal in their dtype
//            (float32 0.1 is 0.1, not 0.10000000149011612)
//   tuple    {"tuple": [V, ...]}        shape  {"shape": [2, 3]}
//   prim     {"prim": 3, "dtype": "int64"}
//   string   {"string": "..."}          (invalid UTF-8 replaced by U+FFFD)
//   null     {"null": true}             dtype  {"dtype": "float32"}
//   callable {"callable": "DESCRIPTION"}
// nan, inf and -inf (JSON has no such numbers) are the strings "nan", "inf", "-inf".
nlohmann::json value_to_json(const runtime::Value& value);

// One float element or prim value as value_to_json writes it (see above).
nlohmann::json float_to_json(double value, DLDataType dtype);

}  // namespace raxc::io
