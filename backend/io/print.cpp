// The JSON form of run-time values (see print.h). Floats are written as the double of their
// shortest decimal in their own dtype (runtime::shortest_decimal).
#include "backend/io/print.h"

#include <cmath>

namespace raxc::io {
namespace {

using nlohmann::json;
using runtime::Tensor;

using runtime::is_float_dtype;
using runtime::is_int_dtype;

json tensor_data_json(const Tensor& t, size_t axis, int64_t& next) {
  if (axis == t.shape().size()) {
    const int64_t i = next++;
    const DLDataType dt = t.dtype();
    if (runtime::is_bool(dt)) return json(t.get_i64(i) != 0);
    if (is_float_dtype(dt)) return float_to_json(t.get_f64(i), dt);
    if (dt.code == kDLUInt && dt.bits == 64) return json(t.data_as<uint64_t>()[i]);
    return json(t.get_i64(i));
  }
  json arr = json::array();
  for (int64_t k = 0; k < t.shape()[axis]; ++k) arr.push_back(tensor_data_json(t, axis + 1, next));
  return arr;
}

}  // namespace

json float_to_json(double value, DLDataType dtype) {
  double d = runtime::shortest_decimal(value, dtype);
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  return d;
}

json value_to_json(const runtime::Value& value) {
  using namespace runtime;
  if (const TensorPtr* t = value.get_if<TensorPtr>()) {
    if (!*t) return json{{"null", true}};
    const Tensor& tensor = **t;
    json data = nullptr;
    const DLDataType dt = tensor.dtype();
    if (runtime::is_bool(dt) || is_float_dtype(dt) || is_int_dtype(dt)) {
      int64_t next = 0;
      data = tensor_data_json(tensor, 0, next);
    }
    return json{
        {"tensor",
         {{"dtype", dtype_name(dt)}, {"shape", tensor.shape()}, {"data", std::move(data)}}}};
  }
  if (const Tuple* tuple = value.get_if<Tuple>()) {
    json arr = json::array();
    for (const Value& f : tuple->fields) arr.push_back(value_to_json(f));
    return json{{"tuple", std::move(arr)}};
  }
  if (const Shape* shape = value.get_if<Shape>()) return json{{"shape", shape->dims}};
  if (const Prim* p = value.get_if<Prim>()) {
    json v;
    if (runtime::is_bool(p->dtype)) {
      v = p->i != 0;
    } else if (p->is_float()) {
      v = float_to_json(p->f, p->dtype);
    } else if (p->dtype.code == kDLUInt && p->dtype.bits == 64) {
      v = static_cast<uint64_t>(p->i);
    } else {
      v = p->i;
    }
    return json{{"prim", std::move(v)}, {"dtype", dtype_name(p->dtype)}};
  }
  if (const String* s = value.get_if<String>()) return json{{"string", valid_utf8(s->value)}};
  if (const DType* d = value.get_if<DType>()) return json{{"dtype", dtype_name(d->dtype)}};
  if (const CallablePtr* c = value.get_if<CallablePtr>()) {
    if (*c) return json{{"callable", valid_utf8((*c)->describe())}};
  }
  return json{{"null", true}};
}

}  // namespace raxc::io
