// Relax values at run time (seed spec "Semantics"): tensors, tuples, shapes, scalars
// (R.Prim), strings, dtypes, null, and callables (closures and functions, opaque here: the
// executor that made them knows what they are).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "backend/runtime/tensor.h"

namespace raxc::runtime {

struct Value;

struct Null {};
struct Tuple {
  std::vector<Value> fields;
};
struct Shape {
  std::vector<int64_t> dims;
};
// A scalar R.Prim value: integers and bools in `i`, floats in `f`.
struct Prim {
  DLDataType dtype{kDLInt, 64, 1};
  int64_t i = 0;
  double f = 0;
  bool is_float() const { return dtype.code == kDLFloat || dtype.code == kDLBfloat; }
  double as_f64() const { return is_float() ? f : static_cast<double>(i); }
};
struct String {
  std::string value;
};
struct DType {
  DLDataType dtype;
};
// Anything callable; the executor defines the concrete kinds.
struct Callable {
  virtual ~Callable() = default;
  virtual std::string describe() const = 0;
};
using CallablePtr = std::shared_ptr<const Callable>;

struct Value {
  std::variant<Null, TensorPtr, Tuple, Shape, Prim, String, DType, CallablePtr> v;

  Value() = default;
  template <class T>
  Value(T x) : v(std::move(x)) {}

  template <class T>
  const T* get_if() const {
    return std::get_if<T>(&v);
  }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(v);
  }
  const TensorPtr* tensor() const { return std::get_if<TensorPtr>(&v); }
  // "tensor", "tuple", "shape", "prim", "string", "dtype", "null", "callable"
  const char* kind_name() const;
};

}  // namespace raxc::runtime
