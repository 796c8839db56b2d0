// Saving a run's result to a directory (`raxc run --save-outputs DIR`, or however the driver
// names it): every tensor leaf of the value becomes DIR/N.npy, leaves numbered depth-first from 0
// in field order, and DIR/outputs.json describes the whole value:
//   {"value": V}   V = [V, ...]                             for a tuple
//                      {"npy": "0.npy"}                      for a tensor
//                      {"prim": 3, "dtype": "int64"}         for an R.Prim (value as in print.h)
//                      {"shape": [2, 3]}                     {"string": "..."}
//                      {"null": true}                        {"dtype": "float32"}
// DIR is created (with parents) when missing. Every file is written to a temporary file in DIR
// and renamed over its name, so an existing file is never truncated in place; outputs.json is
// written last, after all the .npy files it names. Files of an earlier run that this value does
// not name are left alone. A callable cannot be saved (an IoError, before anything is written),
// as cannot a tensor whose dtype .npy cannot hold (bfloat16 is saved as float32, see npy.h).
#pragma once
#include <filesystem>

#include "backend/io/io_error.h"
#include "backend/runtime/value.h"

namespace raxc::io {

Status save_outputs(const std::filesystem::path& dir, const runtime::Value& value);

}  // namespace raxc::io
