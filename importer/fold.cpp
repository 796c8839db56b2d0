// Constant folding at import time: shape arithmetic that exporters leave in the graph (Shape ->
// Gather -> Unsqueeze -> Concat -> Reshape, the expanded functions of ONNX's own tests) is
// evaluated here when every operand is a constant, so the operators that need constant operands
// (Reshape, Expand, ConstantOfShape, Slice) see values instead of refusing. Only values that do
// not come from graph inputs are folded (an input's known value stays a runtime argument: the
// model still computes with it), and only small ones. A value computed from a graph input's
// given value is still computed at run time, but its value is noted too (note_known_value), so
// an operand that must be known (Range's bounds, a Reshape shape) can use it, as it can use the
// input's own given value.
#include <algorithm>
#include <cmath>
#include <functional>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kMaxFoldElements = 4096;

Ints strides_of(const Ints& dims) {
  Ints s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// numpy broadcasting of several shapes, or nullopt when they do not broadcast.
std::optional<Ints> broadcast(const std::vector<const Tensor*>& ts) {
  size_t rank = 0;
  for (const Tensor* t : ts) rank = std::max(rank, t->dims.size());
  Ints out(rank, 1);
  for (const Tensor* t : ts)
    for (size_t i = 0; i < t->dims.size(); ++i) {
      int64_t d = t->dims[i];
      int64_t& o = out[rank - t->dims.size() + i];
      if (o == 1)
        o = d;
      else if (d != 1 && d != o)
        return std::nullopt;
    }
  return out;
}

// The flat index into `t` of output element `flat` of a broadcast result of shape `out`.
int64_t source_index(const Tensor& t, const Ints& out, const Ints& out_strides, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t i = t.dims.size(); i-- > 0;) {
    size_t o = out.size() - t.dims.size() + i;
    int64_t coord = (flat / out_strides[o]) % out[o];
    if (t.dims[i] != 1) index += coord * stride;
    stride *= t.dims[i];
  }
  return index;
}

std::optional<Tensor> elementwise(const std::vector<const Tensor*>& ts, const std::string& dtype,
                                  const std::function<double(const std::vector<double>&)>& f,
                                  bool integer) {
  auto out = broadcast(ts);
  if (!out) return std::nullopt;
  Ints strides = strides_of(*out);
  int64_t n = 1;
  for (int64_t d : *out) n *= d;
  std::vector<double> reals;
  Ints ints;
  std::vector<double> args(ts.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < ts.size(); ++k) {
      int64_t j = source_index(*ts[k], *out, strides, i);
      args[k] = ts[k]->is_float() ? ts[k]->real(j) : static_cast<double>(ts[k]->integer(j));
    }
    double v = f(args);
    if (integer)
      ints.push_back(static_cast<int64_t>(v));
    else
      reals.push_back(v);
  }
  return integer ? make_int_tensor(dtype, *out, ints) : make_tensor(dtype, *out, reals);
}

Tensor with_dims(const Tensor& t, Ints dims) {
  Tensor out = t;
  out.dims = std::move(dims);
  return out;
}

std::optional<Tensor> take(const Tensor& data, const Tensor& idx, int64_t axis) {
  int64_t rank = static_cast<int64_t>(data.dims.size());
  axis = norm_axis(axis, rank);
  if (axis < 0 || axis >= rank) return std::nullopt;
  int64_t outer = 1, inner = 1, extent = data.dims[static_cast<size_t>(axis)];
  for (int64_t i = 0; i < axis; ++i) outer *= data.dims[static_cast<size_t>(i)];
  for (int64_t i = axis + 1; i < rank; ++i) inner *= data.dims[static_cast<size_t>(i)];
  Ints dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  Tensor out{data.dtype, dims, {}};
  size_t es = static_cast<size_t>(element_size(data.dtype));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < idx.numel(); ++k) {
      int64_t j = idx.integer(k);
      if (j < 0) j += extent;
      if (j < 0 || j >= extent) return std::nullopt;
      out.raw.append(data.raw, static_cast<size_t>((o * extent + j) * inner) * es,
                     static_cast<size_t>(inner) * es);
    }
  return out;
}

std::optional<Tensor> concat(const std::vector<const Tensor*>& ts, int64_t axis) {
  int64_t rank = static_cast<int64_t>(ts[0]->dims.size());
  axis = norm_axis(axis, rank);
  if (axis < 0 || axis >= rank) return std::nullopt;
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= ts[0]->dims[static_cast<size_t>(i)];
  Ints dims = ts[0]->dims;
  dims[static_cast<size_t>(axis)] = 0;
  for (const Tensor* t : ts) {
    if (t->dtype != ts[0]->dtype || static_cast<int64_t>(t->dims.size()) != rank)
      return std::nullopt;
    dims[static_cast<size_t>(axis)] += t->dims[static_cast<size_t>(axis)];
  }
  Tensor out{ts[0]->dtype, dims, {}};
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor* t : ts) {
      size_t chunk = t->raw.size() / static_cast<size_t>(std::max<int64_t>(outer, 1));
      out.raw.append(t->raw, static_cast<size_t>(o) * chunk, chunk);
    }
  return out;
}

std::optional<Ints> axes_of(Context& c, int64_t input_from_opset) {
  if (c.opset() >= input_from_opset) return c.has_input(1) ? c.const_ints(1) : Ints{};
  return c.attr_ints("axes").value_or(Ints{});
}

std::optional<Tensor> fold(Context& c, const std::string& op) {
  const Tensor* a = c.constant(0);
  const Tensor* b = c.constant(1);
  auto arith = [&](const std::function<double(double, double)>& f) -> std::optional<Tensor> {
    if (!b || a->dtype != b->dtype) return std::nullopt;
    return elementwise(
        {a, b}, a->dtype, [&](const std::vector<double>& v) { return f(v[0], v[1]); },
        !a->is_float());
  };
  auto compare = [&](const std::function<bool(double, double)>& f) -> std::optional<Tensor> {
    if (!b) return std::nullopt;
    return elementwise(
        {a, b}, "bool", [&](const std::vector<double>& v) { return f(v[0], v[1]) ? 1.0 : 0.0; },
        true);
  };
  if (op == "Add") return arith([](double x, double y) { return x + y; });
  if (op == "Sub") return arith([](double x, double y) { return x - y; });
  if (op == "Mul") return arith([](double x, double y) { return x * y; });
  if (op == "Div") {
    if (!a->is_float() && b)
      for (int64_t i = 0; i < b->numel(); ++i)
        if (b->integer(i) == 0) return std::nullopt;
    return arith([&](double x, double y) { return a->is_float() ? x / y : std::trunc(x / y); });
  }
  if (op == "Equal") return compare([](double x, double y) { return x == y; });
  if (op == "Less") return compare([](double x, double y) { return x < y; });
  if (op == "Greater") return compare([](double x, double y) { return x > y; });
  if (op == "Neg" || op == "Abs" || op == "Sqrt" || op == "Floor" || op == "Ceil" || op == "Relu")
    return elementwise(
        {a}, a->dtype,
        [&](const std::vector<double>& v) {
          return op == "Neg"     ? -v[0]
                 : op == "Relu"  ? std::max(v[0], 0.0)
                 : op == "Abs"   ? std::fabs(v[0])
                 : op == "Sqrt"  ? std::sqrt(v[0])
                 : op == "Floor" ? std::floor(v[0])
                                 : std::ceil(v[0]);
        },
        !a->is_float());
  if (op == "Where") {
    const Tensor* y = c.constant(2);
    if (!b || !y || b->dtype != y->dtype) return std::nullopt;
    return elementwise(
        {a, b, y}, b->dtype, [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; },
        !b->is_float());
  }
  if (op == "Cast") {
    std::optional<std::string> to = relax_dtype(static_cast<int>(c.attr_int("to", 0)));
    if (!to) return std::nullopt;
    bool to_int = !(to->rfind("float", 0) == 0);
    return elementwise(
        {a}, *to, [](const std::vector<double>& v) { return v[0]; }, to_int);
  }
  if (op == "Identity") return *a;
  if (op == "Gather") {
    if (!b) return std::nullopt;
    return take(*a, *b, c.attr_int("axis", 0));
  }
  if (op == "Concat") {
    std::vector<const Tensor*> ts;
    for (int i = 0; i < c.node().input_size(); ++i) {
      const Tensor* t = c.constant(i);
      if (!t) return std::nullopt;
      ts.push_back(t);
    }
    return concat(ts, c.attr_int("axis", 0));
  }
  if (op == "Unsqueeze") {
    auto axes = axes_of(c, 13);
    if (!axes) return std::nullopt;
    int64_t out_rank = static_cast<int64_t>(a->dims.size() + axes->size());
    for (int64_t& x : *axes) x = norm_axis(x, out_rank);
    std::sort(axes->begin(), axes->end());
    Ints dims = a->dims;
    for (int64_t x : *axes) {
      if (x < 0 || x > static_cast<int64_t>(dims.size())) return std::nullopt;
      dims.insert(dims.begin() + x, 1);
    }
    return with_dims(*a, dims);
  }
  if (op == "Squeeze") {
    auto axes = axes_of(c, 13);
    if (!axes) return std::nullopt;
    int64_t rank = static_cast<int64_t>(a->dims.size());
    Ints dims;
    for (int64_t i = 0; i < rank; ++i) {
      bool listed = axes->empty() ? a->dims[static_cast<size_t>(i)] == 1
                                  : std::any_of(axes->begin(), axes->end(),
                                                [&](int64_t x) { return norm_axis(x, rank) == i; });
      if (!listed) dims.push_back(a->dims[static_cast<size_t>(i)]);
    }
    return with_dims(*a, dims);
  }
  if (op == "Reshape") {
    auto shape = c.opset() >= 5 ? c.const_ints(1) : c.attr_ints("shape");
    if (!shape) return std::nullopt;
    Ints dims = *shape;
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0 && !c.attr_int("allowzero", 0)) {
        if (i >= a->dims.size()) return std::nullopt;
        dims[i] = a->dims[i];
      }
      if (dims[i] == -1)
        infer = static_cast<int64_t>(i);
      else
        known *= dims[i];
    }
    if (infer >= 0) {
      if (known == 0) return std::nullopt;
      dims[static_cast<size_t>(infer)] = a->numel() / known;
    }
    Tensor out = with_dims(*a, dims);
    if (out.numel() != a->numel()) return std::nullopt;
    return out;
  }
  if (op == "Slice" && a->dims.size() == 1 && c.opset() >= 10) {
    auto starts = c.const_ints(1), ends = c.const_ints(2);
    if (!starts || !ends || starts->size() != 1) return std::nullopt;
    int64_t step = 1;
    if (c.has_input(4)) {
      auto s = c.const_ints(4);
      if (!s) return std::nullopt;
      step = (*s)[0];
    }
    if (step <= 0) return std::nullopt;
    int64_t L = a->dims[0];
    int64_t b0 = (*starts)[0], e0 = (*ends)[0];
    b0 = std::clamp<int64_t>(b0 < 0 ? b0 + L : b0, 0, L);
    e0 = std::clamp<int64_t>(e0 < 0 ? e0 + L : e0, 0, L);
    Ints idx;
    for (int64_t i = b0; i < e0; i += step) idx.push_back(i);
    return take(*a, make_int_tensor("int64", {static_cast<int64_t>(idx.size())}, idx), 0);
  }
  return std::nullopt;
}

}  // namespace

namespace {

const std::set<std::string>& foldable() {
  static const std::set<std::string> kFoldable = {
      "Add",    "Sub",       "Mul",     "Div",     "Equal", "Less", "Greater",  "Neg",
      "Abs",    "Sqrt",      "Floor",   "Ceil",    "Where", "Cast", "Identity", "Gather",
      "Concat", "Unsqueeze", "Squeeze", "Reshape", "Slice", "Relu"};
  return kFoldable;
}

// Whether the node folds: a foldable operator of one output whose operands are all known and
// small; `runtime` tells whether one of them is a graph input's given value.
bool operands_known(Context& c, bool& runtime) {
  const onnx::NodeProto& n = c.node();
  if (!foldable().count(n.op_type()) || n.output_size() != 1 || n.input_size() == 0) return false;
  runtime = false;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) continue;
    const Value* v = c.in(i);
    if (!v || !v->constant || v->constant->numel() > kMaxFoldElements) return false;
    runtime = runtime || v->runtime;
  }
  return true;
}

}  // namespace

bool try_fold(Context& c) {
  bool runtime = false;
  if (!operands_known(c, runtime) || runtime) return false;
  std::optional<Tensor> out = fold(c, c.node().op_type());
  if (!out || out->numel() > kMaxFoldElements) return false;
  c.define_constant(0, std::move(*out));
  return true;
}

void note_known_value(Context& c) {
  bool runtime = false;
  if (!c.ok() || !operands_known(c, runtime) || !runtime) return;
  std::optional<Tensor> out = fold(c, c.node().op_type());
  if (!out || out->numel() > kMaxFoldElements) return;
  c.define_known(0, std::move(*out));
}

}  // namespace raxc::importer
