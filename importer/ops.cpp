// The operator converters: one function per ONNX operator (default domain, opsets 7-17), each
// writing the Relax operators of ../shared/spec/operators.md that `raxc run` executes (the
// legalized ones, backend/legalize). Opset differences are handled per operator (attribute vs
// input forms of Slice, Split, Squeeze/Unsqueeze, the reductions, Clip, Pad; Softmax's 2-D
// coercion before opset 13). An operand that must be known at import time (a shape, axes, pads)
// comes from an initializer, a Constant, a folded Shape, or an input whose value is known; else
// the node is refused with RX1402, naming what is missing.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

const std::string& dtype_of(Context& c, int i) {
  static const std::string kNone;
  const Value* v = c.in(i);
  return v ? v->dtype : kNone;
}

bool is_float_dtype(const std::string& d) { return d.rfind("float", 0) == 0 || d == "bfloat16"; }

std::vector<Dim> static_dims(const Ints& v) {
  std::vector<Dim> d;
  for (int64_t x : v) d.push_back(Dim{x, ""});
  return d;
}

std::string shape_literal(const Ints& v) { return "R.shape(" + int_list(v) + ")"; }

// ------------------------------------------------------------------ elementwise

bool unary(Context& c, const char* op) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  c.emit(0, std::string(op) + "(" + x + ")", dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// Both operands of a binary operator: ONNX broadcasts like numpy from opset 7 on, as Relax does.
bool binary(Context& c, const char* op, const std::string& out_dtype = "") {
  std::string a = c.tensor(0), b = c.tensor(1);
  if (!c.ok()) return false;
  c.emit(0, std::string(op) + "(" + a + ", " + b + ")",
         out_dtype.empty() ? dtype_of(c, 0) : out_dtype);
  return true;
}

// A chain over the inputs: op(op(x0, x1), x2)...; the last application is the output.
bool chain(Context& c, const char* op) {
  int n = c.node().input_size();
  std::string acc = c.tensor(0);
  if (!c.ok()) return false;
  if (n == 1) {
    c.alias(0, *c.in(0));
    return true;
  }
  for (int i = 1; i < n; ++i) {
    std::string next = c.tensor(i);
    if (!c.ok()) return false;
    std::string expr = std::string(op) + "(" + acc + ", " + next + ")";
    if (i + 1 == n) {
      c.emit(0, expr, dtype_of(c, 0));
      return true;
    }
    acc = c.temp(expr);
  }
  return true;
}

bool float_only(Context& c) {
  if (is_float_dtype(dtype_of(c, 0))) return true;
  return c.refuse_type(c.node().input(0), dtype_of(c, 0));
}

bool mean_of(Context& c) {
  if (!chain(c, "R.add")) return false;
  int n = c.node().input_size();
  if (n == 1) return true;
  const std::string& dt = dtype_of(c, 0);
  Value sum = c.values().at(c.node().output(0));
  std::string s = c.tensor_of(sum, c.node().output(0));
  c.emit(0, "R.divide(" + s + ", " + Context::scalar(n, dt) + ")", dt);
  return true;
}

// Div: R.divide truncates integer quotients toward zero, as ONNX does (operators.md 3.1).
bool div(Context& c) { return binary(c, "R.divide"); }

bool mod(Context& c) {
  if (c.attr_int("fmod", 0)) return binary(c, "R.mod");
  if (is_float_dtype(dtype_of(c, 0))) return c.refuse("fmod=0 on floating-point operands");
  return binary(c, "R.floor_mod");
}

bool pow_op(Context& c) {
  std::string a = c.tensor(0), b = c.tensor(1);
  if (!c.ok()) return false;
  const std::string& dt = dtype_of(c, 0);
  if (!is_float_dtype(dt)) {
    // R.power lowers for floats only (as TVM's): integers go through float64, exact for the
    // results float64 holds, then back.
    std::string af = c.temp("R.astype(" + a + ", \"float64\")");
    std::string bf = c.temp("R.astype(" + b + ", \"float64\")");
    c.emit(0, "R.astype(" + c.temp("R.power(" + af + ", " + bf + ")") + ", \"" + dt + "\")", dt);
    return true;
  }
  // A square (layer normalisation as exporters decompose it, where patterns.cpp does not take
  // it whole): x · x, rounded once as pow's result is; pow cost 2.3 ns per element, most of the
  // time of such a normalisation.
  const Tensor* exponent = c.constant(1);
  if (exponent && exponent->numel() == 1 && exponent->real(0) == 2.0 && c.rank(1) >= 0 &&
      c.rank(1) <= c.rank(0)) {
    c.emit(0, "R.multiply(" + a + ", " + a + ")", dt, c.in(0)->dims);
    return true;
  }
  if (dtype_of(c, 1) != dt) b = c.temp("R.astype(" + b + ", \"" + dt + "\")");
  c.emit(0, "R.power(" + a + ", " + b + ")", dt);
  return true;
}

// Gelu (opset 20), also what patterns.cpp makes of GELU decomposed into Div, Erf, Add and Muls.
bool gelu(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  std::string approximate = c.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return c.refuse("approximate='" + approximate + "'");
  c.emit(0, std::string(approximate == "tanh" ? "R.nn.gelu_tanh(" : "R.nn.gelu(") + x + ")",
         dtype_of(c, 0), c.in(0)->dims);
  return true;
}

bool compare(Context& c, const char* op) { return binary(c, op, "bool"); }

bool reciprocal(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  c.emit(0, "R.divide(" + Context::scalar(1, dtype_of(c, 0)) + ", " + x + ")", dtype_of(c, 0));
  return true;
}

bool isinf(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  bool pos = c.attr_int("detect_positive", 1), neg = c.attr_int("detect_negative", 1);
  if (pos && neg) {
    c.emit(0, "R.isinf(" + x + ")", "bool");
    return true;
  }
  const std::string& dt = dtype_of(c, 0);
  std::string inf = Context::scalar(pos ? INFINITY : -INFINITY, dt);
  if (!pos && !neg) return c.refuse("detect_positive=0 and detect_negative=0");
  c.emit(0, "R.equal(" + x + ", " + inf + ")", "bool");
  return true;
}

// Activations composed from elementwise operators (alpha, beta as 0-d constants of x's dtype).
bool activation(Context& c, const std::string& kind) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  const std::string dt = dtype_of(c, 0);
  auto k = [&](double v) { return Context::scalar(v, dt); };
  auto T = [&](const std::string& e) { return c.temp(e); };
  std::string zero = k(0), one = k(1), out;
  if (kind == "LeakyRelu") {
    double alpha = c.attr_float("alpha", 0.01);
    std::string pos = T("R.greater(" + x + ", " + zero + ")");
    std::string scaled = T("R.multiply(" + x + ", " + k(alpha) + ")");
    out = "R.where(" + pos + ", " + x + ", " + scaled + ")";
  } else if (kind == "Elu") {
    std::string ex = T("R.exp(" + x + ")");
    std::string em1 = T("R.subtract(" + ex + ", " + one + ")");
    std::string neg = T("R.multiply(" + em1 + ", " + k(c.attr_float("alpha", 1.0)) + ")");
    std::string pos = T("R.greater(" + x + ", " + zero + ")");
    out = "R.where(" + pos + ", " + x + ", " + neg + ")";
  } else if (kind == "Selu") {
    double alpha = c.attr_float("alpha", 1.67326319217681884765625);
    double gamma = c.attr_float("gamma", 1.05070102214813232421875);
    std::string ex = T("R.exp(" + x + ")");
    std::string em1 = T("R.subtract(" + ex + ", " + one + ")");
    std::string neg = T("R.multiply(" + em1 + ", " + k(alpha) + ")");
    std::string pos = T("R.greater(" + x + ", " + zero + ")");
    std::string sel = T("R.where(" + pos + ", " + x + ", " + neg + ")");
    out = "R.multiply(" + sel + ", " + k(gamma) + ")";
  } else if (kind == "Celu") {
    double alpha = c.attr_float("alpha", 1.0);
    std::string scaled = T("R.divide(" + x + ", " + k(alpha) + ")");
    std::string e = T("R.exp(" + scaled + ")");
    std::string em1 = T("R.subtract(" + e + ", " + one + ")");
    std::string neg = T("R.multiply(" + em1 + ", " + k(alpha) + ")");
    std::string lo = T("R.minimum(" + neg + ", " + zero + ")");
    std::string hi = T("R.maximum(" + x + ", " + zero + ")");
    out = "R.add(" + hi + ", " + lo + ")";
  } else if (kind == "ThresholdedRelu") {
    std::string pos = T("R.greater(" + x + ", " + k(c.attr_float("alpha", 1.0)) + ")");
    out = "R.where(" + pos + ", " + x + ", " + zero + ")";
  } else if (kind == "HardSigmoid") {
    std::string ax = T("R.multiply(" + x + ", " + k(c.attr_float("alpha", 0.2)) + ")");
    std::string axb = T("R.add(" + ax + ", " + k(c.attr_float("beta", 0.5)) + ")");
    out = "R.clip(" + axb + ", 0, 1)";
  } else if (kind == "HardSwish") {
    std::string ax = T("R.multiply(" + x + ", " + k(1.0 / 6) + ")");
    std::string axb = T("R.add(" + ax + ", " + k(0.5) + ")");
    std::string hs = T("R.clip(" + axb + ", 0, 1)");
    out = "R.multiply(" + x + ", " + hs + ")";
  } else if (kind == "Softplus") {
    std::string e = T("R.exp(" + x + ")");
    std::string e1 = T("R.add(" + e + ", " + one + ")");
    out = "R.log(" + e1 + ")";
  } else if (kind == "Softsign") {
    std::string a = T("R.abs(" + x + ")");
    std::string a1 = T("R.add(" + a + ", " + one + ")");
    out = "R.divide(" + x + ", " + a1 + ")";
  } else if (kind == "Mish") {
    std::string e = T("R.exp(" + x + ")");
    std::string e1 = T("R.add(" + e + ", " + one + ")");
    std::string sp = T("R.log(" + e1 + ")");
    std::string th = T("R.tanh(" + sp + ")");
    out = "R.multiply(" + x + ", " + th + ")";
  } else if (kind == "Shrink") {
    double bias = c.attr_float("bias", 0.0), lambd = c.attr_float("lambd", 0.5);
    std::string lo = T("R.less(" + x + ", " + k(-lambd) + ")");
    std::string hi = T("R.greater(" + x + ", " + k(lambd) + ")");
    std::string xp = T("R.add(" + x + ", " + k(bias) + ")");
    std::string xm = T("R.subtract(" + x + ", " + k(bias) + ")");
    std::string inner = T("R.where(" + hi + ", " + xm + ", " + zero + ")");
    out = "R.where(" + lo + ", " + xp + ", " + inner + ")";
  }
  c.emit(0, out, dt, c.in(0)->dims);
  return true;
}

bool prelu(Context& c) {
  std::string x = c.tensor(0), slope = c.tensor(1);
  if (!c.ok() || !float_only(c)) return false;
  const std::string& dt = dtype_of(c, 0);
  std::string neg = c.temp("R.less(" + x + ", " + Context::scalar(0, dt) + ")");
  // A per-channel slope of shape (C,) broadcast along axis 1 (the exporters' convention, and
  // ONNX's before opset 7's numpy broadcasting) unless it already matches the last axis.
  auto xs = c.static_shape(0), ss = c.static_shape(1);
  if (xs && ss && ss->size() == 1 && xs->size() >= 3 && (*ss)[0] == (*xs)[1] &&
      (*ss)[0] != xs->back()) {
    Ints axes;
    for (size_t i = 2; i < xs->size(); ++i) axes.push_back(static_cast<int64_t>(i) - 1);
    slope = c.temp("R.expand_dims(" + slope + ", axis=" + int_list(axes) + ")");
  }
  std::string scaled = c.temp("R.multiply(" + x + ", " + slope + ")");
  c.emit(0, "R.where(" + neg + ", " + scaled + ", " + x + ")", dt);
  return true;
}

// ------------------------------------------------------------------ softmax family

bool softmax(Context& c, const char* op) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t rank = c.rank(0);
  int64_t axis = c.attr_int("axis", c.opset() >= 13 ? -1 : 1);
  if (rank >= 0) axis = norm_axis(axis, rank);
  if (c.opset() >= 13 || (rank >= 0 && axis == rank - 1)) {
    c.emit(0, std::string(op) + "(" + x + ", axis=" + std::to_string(axis) + ")", dtype_of(c, 0),
           c.in(0)->dims);
    return true;
  }
  // Before opset 13 the input is coerced to 2-D at `axis` and normalised along the second axis.
  auto shape = c.static_shape(0);
  if (!shape)
    return c.refuse("axis " + std::to_string(axis) +
                    " before opset 13 on an input whose shape is not static");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= (*shape)[static_cast<size_t>(i)];
  std::string flat = c.temp("R.reshape(" + x + ", " + shape_literal({outer, inner}) + ")");
  std::string s = c.temp(std::string(op) + "(" + flat + ", axis=1)");
  c.emit(0, "R.reshape(" + s + ", " + shape_literal(*shape) + ")", dtype_of(c, 0));
  return true;
}

// ------------------------------------------------------------------ linear algebra

bool matmul(Context& c) { return binary(c, "R.matmul"); }

bool gemm(Context& c) {
  std::string a = c.tensor(0), b = c.tensor(1);
  if (!c.ok()) return false;
  const std::string& dt = dtype_of(c, 0);
  if (c.attr_int("transA", 0)) a = c.temp("R.permute_dims(" + a + ", axes=[1, 0])");
  if (c.attr_int("transB", 0)) b = c.temp("R.permute_dims(" + b + ", axes=[1, 0])");
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  bool has_c = c.has_input(2) && beta != 0;
  std::string y = "R.matmul(" + a + ", " + b + ")";
  if (alpha != 1.0) y = "R.multiply(" + c.temp(y) + ", " + Context::scalar(alpha, dt) + ")";
  if (!has_c) {
    c.emit(0, y, dt);
    return true;
  }
  std::string bias = c.tensor(2);
  if (!c.ok()) return false;
  if (beta != 1.0) bias = c.temp("R.multiply(" + bias + ", " + Context::scalar(beta, dt) + ")");
  c.emit(0, "R.add(" + c.temp(y) + ", " + bias + ")", dt);
  return true;
}

// ------------------------------------------------------------------ convolution and pooling

// Explicit pads for auto_pad (SAME_UPPER/SAME_LOWER need the static spatial extents).
std::optional<Ints> conv_pads(Context& c, const Ints& kernel, const Ints& strides,
                              const Ints& dilations) {
  size_t n = kernel.size();
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    Ints pads = c.attr_ints("pads").value_or(Ints(2 * n, 0));
    if (pads.size() != 2 * n) {
      c.refuse("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(n) +
               " spatial axes");
      return std::nullopt;
    }
    return pads;
  }
  if (auto_pad == "VALID") return Ints(2 * n, 0);
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    c.refuse("auto_pad='" + auto_pad + "'");
    return std::nullopt;
  }
  auto shape = c.static_shape(0);
  if (!shape) {
    c.refuse("auto_pad='" + auto_pad + "' on spatial dimensions that are not static");
    return std::nullopt;
  }
  Ints pads(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t in = (*shape)[i + 2], s = strides[i];
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>(0, (out - 1) * s + (kernel[i] - 1) * dilations[i] + 1 - in);
    int64_t small = total / 2, large = total - small;
    pads[i] = auto_pad == "SAME_UPPER" ? small : large;
    pads[i + n] = auto_pad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

bool conv(Context& c) {
  std::string x = c.tensor(0), w = c.tensor(1);
  if (!c.ok()) return false;
  int64_t wrank = c.rank(1);
  if (wrank < 3 || wrank > 5)
    return c.refuse("a weight of rank " + std::to_string(wrank) +
                    " (1-D to 3-D convolutions only)");
  size_t n = static_cast<size_t>(wrank - 2);
  Ints kernel = c.attr_ints("kernel_shape").value_or(Ints{});
  if (kernel.empty()) {
    auto ws = c.static_shape(1);
    if (!ws) return c.refuse("no kernel_shape and a weight whose shape is not static");
    kernel.assign(ws->begin() + 2, ws->end());
  }
  Ints strides = c.attr_ints("strides").value_or(Ints(n, 1));
  Ints dil = c.attr_ints("dilations").value_or(Ints(n, 1));
  auto pads = conv_pads(c, kernel, strides, dil);
  if (!pads) return false;
  const std::string& dt = dtype_of(c, 0);
  std::string op = "R.nn.conv" + std::to_string(n) + "d";
  std::string call = op + "(" + x + ", " + w + ", strides=" + int_list(strides) +
                     ", padding=" + int_list(*pads) + ", dilation=" + int_list(dil) +
                     ", groups=" + std::to_string(c.attr_int("group", 1)) + ")";
  if (!c.has_input(2)) {
    c.emit(0, call, dt);
    return true;
  }
  std::string y = c.temp(call), b = c.tensor(2);
  Ints axes;
  for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i) + 1);
  std::string bb = c.temp("R.expand_dims(" + b + ", axis=" + int_list(axes) + ")");
  c.emit(0, "R.add(" + y + ", " + bb + ")", dt);
  return true;
}

// ConvTranspose's pads from output_shape or auto_pad SAME_*: the total padding is
// stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out (ONNX's formula),
// SAME_UPPER putting the larger half at the end, otherwise at the start; a negative total (an
// output larger than the full transposed convolution) becomes extra output_padding at the end.
bool transpose_pads(Context& c, const Ints& kernel, const Ints& strides, const Ints& dil,
                    Ints& pads, Ints& out_pad) {
  size_t n = kernel.size();
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  auto out_shape = c.attr_ints("output_shape");
  bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!out_shape && !same) {
    if (auto_pad != "NOTSET" && auto_pad != "VALID") return c.refuse("auto_pad='" + auto_pad + "'");
    pads = auto_pad == "VALID" ? Ints(2 * n, 0) : c.attr_ints("pads").value_or(Ints(2 * n, 0));
    if (pads.size() != 2 * n) return c.refuse("pads of another length than 2 * spatial axes");
    return true;
  }
  auto shape = c.static_shape(0);
  if (!shape || shape->size() != n + 2)
    return c.refuse("output_shape or auto_pad on an input whose shape is not static");
  if (out_shape && out_shape->size() != n && out_shape->size() != n + 2)
    return c.refuse("an output_shape of " + std::to_string(out_shape->size()) + " values");
  Ints target(n);
  for (size_t i = 0; i < n; ++i)
    target[i] = out_shape ? (*out_shape)[out_shape->size() - n + i] : (*shape)[i + 2] * strides[i];
  pads.assign(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t total =
        strides[i] * ((*shape)[i + 2] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1 - target[i];
    if (total < 0) {
      out_pad[i] -= total;
      continue;
    }
    int64_t half = total / 2;
    pads[i] = auto_pad == "SAME_UPPER" ? half : total - half;
    pads[i + n] = total - pads[i];
  }
  for (size_t i = 0; i < n; ++i)
    if (out_pad[i] >= std::max(strides[i], dil[i]))
      return c.refuse("an output_shape beyond the stride's reach of the transposed convolution");
  return true;
}

bool conv_transpose(Context& c) {
  std::string x = c.tensor(0), w = c.tensor(1);
  if (!c.ok()) return false;
  int64_t wrank = c.rank(1);
  if (wrank < 3 || wrank > 5) return c.refuse("a weight of rank " + std::to_string(wrank));
  size_t n = static_cast<size_t>(wrank - 2);
  auto ws = c.static_shape(1);
  Ints kernel =
      c.attr_ints("kernel_shape").value_or(ws ? Ints(ws->begin() + 2, ws->end()) : Ints{});
  if (kernel.size() != n) return c.refuse("no kernel_shape and a weight whose shape is not static");
  Ints strides = c.attr_ints("strides").value_or(Ints(n, 1));
  Ints dil = c.attr_ints("dilations").value_or(Ints(n, 1));
  Ints out_pad = c.attr_ints("output_padding").value_or(Ints(n, 0));
  Ints pads;
  if (!transpose_pads(c, kernel, strides, dil, pads, out_pad)) return false;
  const std::string& dt = dtype_of(c, 0);
  std::string call = "R.nn.conv" + std::to_string(n) + "d_transpose(" + x + ", " + w +
                     ", strides=" + int_list(strides) + ", padding=" + int_list(pads) +
                     ", output_padding=" + int_list(out_pad) + ", dilation=" + int_list(dil) +
                     ", groups=" + std::to_string(c.attr_int("group", 1)) + ")";
  if (!c.has_input(2)) {
    c.emit(0, call, dt);
    return true;
  }
  std::string y = c.temp(call), b = c.tensor(2);
  Ints axes;
  for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i) + 1);
  std::string bb = c.temp("R.expand_dims(" + b + ", axis=" + int_list(axes) + ")");
  c.emit(0, "R.add(" + y + ", " + bb + ")", dt);
  return true;
}

struct Window {
  Ints kernel, strides, dil, pads;
};

// MaxPool's Indices output: the flat position (row-major over N, C and the spatial axes, or
// column-major over the spatial axes with storage_order=1) of each window's first maximum.
// Every kernel offset's candidates are a strided slice of the input padded with the lowest
// value; R.argmax over the stacked candidates picks the offset, and a constant table maps
// (offset, output position) to the spatial position, the batch and channel terms added.
bool max_pool_indices(Context& c, const std::string& x, const Window& w) {
  auto shape = c.static_shape(0);
  size_t n = w.kernel.size();
  if (!shape || shape->size() != n + 2)
    return c.refuse("the Indices output of an input whose shape is not static");
  if (c.attr_int("ceil_mode", 0)) return c.refuse("the Indices output with ceil_mode=1");
  for (size_t i = 0; i < n; ++i)
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dil[i] < 1)
      return c.refuse("a kernel, stride or dilation below 1");
  const std::string& dt = dtype_of(c, 0);
  Ints in(shape->begin() + 2, shape->end()), out(n), width;
  for (size_t i = 0; i < n; ++i) {
    int64_t span = (w.kernel[i] - 1) * w.dil[i] + 1;
    out[i] = (in[i] + w.pads[i] + w.pads[i + n] - span) / w.strides[i] + 1;
    if (out[i] < 1) return c.refuse("a window larger than the padded input");
  }
  width = {0, 0, 0, 0};
  for (size_t i = 0; i < n; ++i) {
    width.push_back(w.pads[i]);
    width.push_back(w.pads[i + n]);
  }
  double lowest = dt == "float64"   ? -std::numeric_limits<double>::max()
                  : dt == "float16" ? -65504.0
                                    : -std::numeric_limits<float>::max();
  char low[48];
  std::snprintf(low, sizeof low, "%.17g", lowest);
  std::string xp = c.temp("R.nn.pad(" + x + ", pad_width=" + int_list(width) +
                          ", pad_mode=\"constant\", pad_value=" + low + ")");
  int64_t K = 1, O = 1;
  for (size_t i = 0; i < n; ++i) {
    if (w.kernel[i] > kMaxTableElements / K || out[i] > kMaxTableElements / O)
      return c.refuse("the Indices output of a pool this large");
    K *= w.kernel[i], O *= out[i];
  }
  if (K > kMaxTableElements / O) return c.refuse("the Indices output of a pool this large");
  bool column_major = c.attr_int("storage_order", 0) != 0;
  std::string parts;
  Ints table;  // (K, out...) spatial flat positions
  Ints axes;
  for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i) + 2);
  for (int64_t k = 0; k < K; ++k) {
    Ints off(n), begin(n), end(n);
    for (int64_t r = k, i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
      off[size_t(i)] = r % w.kernel[size_t(i)];
      r /= w.kernel[size_t(i)];
    }
    for (size_t i = 0; i < n; ++i) {
      begin[i] = off[i] * w.dil[i];
      end[i] = begin[i] + (out[i] - 1) * w.strides[i] + 1;
    }
    parts +=
        c.temp("R.strided_slice(" + xp + ", axes=" + int_list(axes) + ", begin=" + int_list(begin) +
               ", end=" + int_list(end) + ", strides=" + int_list(w.strides) + ")") +
        ", ";
    for (int64_t o = 0; o < O; ++o) {
      Ints pos(n);
      for (int64_t r = o, i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
        pos[size_t(i)] = (r % out[size_t(i)]) * w.strides[size_t(i)] - w.pads[size_t(i)] +
                         off[size_t(i)] * w.dil[size_t(i)];
        r /= out[size_t(i)];
      }
      int64_t flat = 0;
      if (column_major)
        for (size_t i = n; i-- > 0;) flat = flat * in[i] + pos[i];
      else
        for (size_t i = 0; i < n; ++i) flat = flat * in[i] + pos[i];
      table.push_back(flat);
    }
  }
  std::string which = c.temp("R.argmax(R.stack((" + parts + "), axis=0), axis=0, keepdims=True)");
  Ints table_shape{K, 1, 1};
  table_shape.insert(table_shape.end(), out.begin(), out.end());
  Value tv;
  tv.constant = make_int_tensor("int64", table_shape, table);
  std::string tab = c.tensor_of(tv, c.node().output(1) + "_positions");
  Ints full{K, (*shape)[0], (*shape)[1]};
  full.insert(full.end(), out.begin(), out.end());
  std::string spread = c.temp("R.broadcast_to(" + tab + ", " + shape_literal(full) + ")");
  std::string spatial =
      c.temp("R.squeeze(R.gather_elements(" + spread + ", " + which + ", axis=0), axis=[0])");
  // n * C * S + c * S for S the spatial size: a constant of shape (N, C, 1...).
  int64_t S = 1;
  for (int64_t d : in) S *= d;
  Ints base, base_shape{(*shape)[0], (*shape)[1]};
  for (int64_t b = 0; b < (*shape)[0] * (*shape)[1]; ++b) base.push_back(b * S);
  for (size_t i = 0; i < n; ++i) base_shape.push_back(1);
  Value bv;
  bv.constant = make_int_tensor("int64", base_shape, base);
  std::string offset = c.tensor_of(bv, c.node().output(1) + "_base");
  c.emit(1, "R.add(" + spatial + ", " + offset + ")", "int64");
  return true;
}

// MaxUnpool: each value scattered to its flat index in zeros of the output shape (the
// output_shape input, else (in - 1) * stride + kernel - pads per spatial axis).
bool max_unpool(Context& c) {
  std::string x = c.tensor(0), idx = c.tensor(1);
  if (!c.ok()) return false;
  auto shape = c.static_shape(0);
  Ints kernel = c.attr_ints("kernel_shape").value_or(Ints{});
  size_t n = kernel.size();
  if (!shape || shape->size() != n + 2)
    return c.refuse("an input whose shape is not static or a kernel_shape of another rank");
  Ints strides = c.attr_ints("strides").value_or(Ints(n, 1));
  Ints pads = c.attr_ints("pads").value_or(Ints(2 * n, 0));
  // The unpooled extents; an output_shape beyond them pads zeros at the end of each axis (ONNX's
  // reference: the indices address the unpooled tensor, the given pads ignored).
  Ints out = {(*shape)[0], (*shape)[1]}, target;
  bool given = c.has_input(2);
  for (size_t i = 0; i < n; ++i)
    out.push_back(((*shape)[i + 2] - 1) * strides[i] + kernel[i] -
                  (given ? 0 : pads[i] + pads[i + n]));
  if (given) {
    auto g = c.const_ints(2);
    if (!g || g->size() != n + 2) return c.refuse("an output_shape that is not a constant");
    target = *g;
    for (size_t i = 0; i < n + 2; ++i)
      if (target[i] < out[i]) return c.refuse("an output_shape smaller than the unpooled shape");
  }
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  const std::string& dt = dtype_of(c, 0);
  std::string zeros =
      c.temp("R.zeros(R.shape([" + std::to_string(total) + "]), dtype=\"" + dt + "\")");
  std::string flat_i = c.temp("R.reshape(" + idx + ", R.shape([-1]))");
  std::string flat_x = c.temp("R.reshape(" + x + ", R.shape([-1]))");
  std::string scattered = c.temp("R.scatter_elements(" + zeros + ", " + flat_i + ", " + flat_x +
                                 ", axis=0, reduction=\"update\")");
  std::string y = "R.reshape(" + scattered + ", " + shape_literal(out) + ")";
  if (given && target != out) {
    Ints width;
    for (size_t i = 0; i < n + 2; ++i) {
      width.push_back(0);
      width.push_back(target[i] - out[i]);
    }
    y = "R.nn.pad(" + c.temp(y) + ", pad_width=" + int_list(width) +
        ", pad_mode=\"constant\", pad_value=0.0)";
    out = target;
  }
  c.emit(0, y, dt, static_dims(out));
  return true;
}

bool pool(Context& c, const char* kind) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  Ints kernel = c.attr_ints("kernel_shape").value_or(Ints{});
  size_t n = kernel.size();
  if (n < 1 || n > 3) return c.refuse("a kernel of " + std::to_string(n) + " spatial axes");
  Ints strides = c.attr_ints("strides").value_or(Ints(n, 1));
  Ints dil = c.attr_ints("dilations").value_or(Ints(n, 1));
  auto pads = conv_pads(c, kernel, strides, dil);
  if (!pads) return false;
  bool ceil_mode = c.attr_int("ceil_mode", 0);
  std::string call = std::string("R.nn.") + kind + "_pool" + std::to_string(n) + "d(" + x +
                     ", pool_size=" + int_list(kernel) + ", strides=" + int_list(strides) +
                     ", padding=" + int_list(*pads) + ", dilation=" + int_list(dil) +
                     ", ceil_mode=" + (ceil_mode ? "True" : "False");
  if (std::string(kind) == "avg")
    call += std::string(", count_include_pad=") +
            (c.attr_int("count_include_pad", 0) ? "True" : "False");
  c.emit(0, call + ")", dtype_of(c, 0));
  if (c.output_used(1)) return max_pool_indices(c, x, Window{kernel, strides, dil, *pads});
  return true;
}

bool global_pool(Context& c, const char* op) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t rank = c.rank(0);
  if (rank < 3) return c.refuse("an input of unknown rank or rank below 3");
  Ints axes;
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  c.emit(0, std::string(op) + "(" + x + ", axis=" + int_list(axes) + ", keepdims=True)",
         dtype_of(c, 0));
  return true;
}

// ------------------------------------------------------------------ normalisation

// Inference-mode BatchNormalization, composed: (x - mean) * scale / sqrt(var + eps) + bias,
// the per-channel operands expanded to broadcast over the spatial axes (no R.nn.batch_norm
// legalization yet).
// BatchNormalization in training mode (opset 14 on): R.nn.batch_norm with training=True, which
// normalises by the batch statistics (biased variance) and blends the running statistics;
// ONNX's momentum weighs the old running value, TVM's the batch's, hence 1 - momentum.
bool batch_norm_training(Context& c) {
  std::string x = c.tensor(0), scale = c.tensor(1), bias = c.tensor(2), mean = c.tensor(3),
              var = c.tensor(4);
  if (!c.ok() || !float_only(c)) return false;
  if (c.opset() < 14) return c.refuse("the training outputs before opset 14");
  char buf[120];
  std::snprintf(buf, sizeof buf, "epsilon=%.9g, momentum=%.9g", c.attr_float("epsilon", 1e-5),
                1.0 - c.attr_float("momentum", 0.9));
  std::string t = c.temp("R.nn.batch_norm(" + x + ", " + scale + ", " + bias + ", " + mean + ", " +
                         var + ", axis=1, " + buf + ", training=True)");
  c.emit(0, t + "[0]", dtype_of(c, 0), c.in(0)->dims);
  for (int i = 1; i < 3; ++i)
    if (c.output_used(i)) c.emit(i, t + "[" + std::to_string(i) + "]", dtype_of(c, 3));
  return true;
}

bool batch_norm(Context& c) {
  if (c.output_used(1) || c.output_used(2) || c.attr_int("training_mode", 0))
    return batch_norm_training(c);
  std::string x = c.tensor(0), scale = c.tensor(1), bias = c.tensor(2), mean = c.tensor(3),
              var = c.tensor(4);
  if (!c.ok() || !float_only(c)) return false;
  int64_t rank = c.rank(0);
  if (rank < 2) return c.refuse("an input of unknown rank or rank below 2");
  const std::string& dt = dtype_of(c, 0);
  Ints axes;
  for (int64_t i = 1; i + 1 < rank; ++i) axes.push_back(i);
  auto expand = [&](const std::string& v) {
    return axes.empty() ? v : c.temp("R.expand_dims(" + v + ", axis=" + int_list(axes) + ")");
  };
  std::string ve =
      c.temp("R.add(" + var + ", " + Context::scalar(c.attr_float("epsilon", 1e-5), dt) + ")");
  std::string sd = c.temp("R.sqrt(" + ve + ")");
  std::string k = c.temp("R.divide(" + scale + ", " + sd + ")");
  std::string centred = c.temp("R.subtract(" + x + ", " + expand(mean) + ")");
  std::string scaled = c.temp("R.multiply(" + centred + ", " + expand(k) + ")");
  c.emit(0, "R.add(" + scaled + ", " + expand(bias) + ")", dt, c.in(0)->dims);
  return true;
}

bool layer_norm(Context& c) {
  std::string x = c.tensor(0), scale = c.tensor(1);
  if (!c.ok() || !float_only(c)) return false;
  int64_t rank = c.rank(0);
  if (rank < 1) return c.refuse("an input of unknown rank");
  int64_t axis = norm_axis(c.attr_int("axis", -1), rank);
  Ints axes;
  for (int64_t i = axis; i < rank; ++i) axes.push_back(i);
  std::string bias = c.has_input(2) ? c.tensor(2) : c.temp("R.zeros_like(" + scale + ")");
  char eps[40];
  std::snprintf(eps, sizeof eps, "%.9g", c.attr_float("epsilon", 1e-5));
  c.emit(0,
         "R.nn.layer_norm(" + x + ", " + scale + ", " + bias + ", axes=" + int_list(axes) +
             ", epsilon=" + eps + ")",
         dtype_of(c, 0), c.in(0)->dims);
  // The optional Mean and InvStdDev outputs (reduced axes kept as 1).
  const std::string& dt = dtype_of(c, 0);
  std::string reduced = ", axis=" + int_list(axes) + ", keepdims=True)";
  if (c.output_used(1)) c.emit(1, "R.mean(" + x + reduced, dt);
  if (c.output_used(2)) {
    std::string var = c.temp("R.variance(" + x + reduced);
    std::string ve =
        c.temp("R.add(" + var + ", " + Context::scalar(c.attr_float("epsilon", 1e-5), dt) + ")");
    c.emit(2, "R.rsqrt(" + ve + ")", dt);
  }
  return true;
}

bool instance_norm(Context& c) {
  std::string x = c.tensor(0), scale = c.tensor(1), bias = c.tensor(2);
  if (!c.ok() || !float_only(c)) return false;
  int64_t rank = c.rank(0);
  if (rank < 3) return c.refuse("an input of unknown rank or rank below 3");
  Ints axes;
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  char eps[40];
  std::snprintf(eps, sizeof eps, "%.9g", c.attr_float("epsilon", 1e-5));
  c.emit(0,
         "R.nn.instance_norm(" + x + ", " + scale + ", " + bias +
             ", channel_axis=1, axes=" + int_list(axes) + ", epsilon=" + eps + ")",
         dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// ------------------------------------------------------------------ shape manipulation

bool reshape(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::optional<Ints> shape = c.opset() >= 5 ? c.const_ints(1) : c.attr_ints("shape");
  if (!shape) return c.refuse("a target shape that is not a constant");
  bool allowzero = c.attr_int("allowzero", 0);
  if (allowzero && std::find(shape->begin(), shape->end(), 0) != shape->end()) {
    // A literal 0 extent (R.reshape reads 0 as "copy"): only an empty input can take it, so
    // the result is an empty tensor of that shape.
    auto in = c.static_shape(0);
    bool empty = in && std::find(in->begin(), in->end(), 0) != in->end();
    if (!empty || std::find(shape->begin(), shape->end(), -1) != shape->end())
      return c.refuse("allowzero=1 and a 0 in the shape of an input that is not empty");
    c.emit(0, "R.zeros(" + shape_literal(*shape) + ", dtype=\"" + dtype_of(c, 0) + "\")",
           dtype_of(c, 0), static_dims(*shape));
    return true;
  }
  const Value& in = *c.in(0);
  std::string dims;
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t d = (*shape)[i];
    std::string text = std::to_string(d);
    if (d == 0 && !allowzero) {  // 0 copies the input's extent at that position
      if (!in.dims || i >= in.dims->size())
        return c.refuse("a shape value 0 and an input of unknown rank");
      const Dim& src = (*in.dims)[i];
      if (src.known())
        text = std::to_string(src.value);
      else if (!src.sym.empty())
        text = src.sym;
      else
        return c.refuse("a shape value 0 that copies a dimension that is not known");
    }
    dims += (i ? ", " : "") + text;
  }
  c.emit(0, "R.reshape(" + x + ", R.shape([" + dims + "]))", dtype_of(c, 0));
  return true;
}

bool flatten(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t rank = c.rank(0);
  if (rank < 0) return c.refuse("an input of unknown rank");
  int64_t axis = norm_axis(c.attr_int("axis", 1), rank);
  const Value& in = *c.in(0);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) {
    const Dim& d = (*in.dims)[static_cast<size_t>(i)];
    if (!d.known()) {
      if (axis == 1 && !d.sym.empty()) {
        c.emit(0, "R.reshape(" + x + ", R.shape([" + d.sym + ", -1]))", dtype_of(c, 0));
        return true;
      }
      return c.refuse("leading dimensions that are not static");
    }
    outer *= d.value;
  }
  c.emit(0, "R.reshape(" + x + ", R.shape([" + std::to_string(outer) + ", -1]))", dtype_of(c, 0));
  return true;
}

bool transpose(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto perm = c.attr_ints("perm");
  c.emit(0, "R.permute_dims(" + x + (perm ? ", axes=" + int_list(*perm) : std::string()) + ")",
         dtype_of(c, 0));
  return true;
}

bool concat(Context& c) {
  std::string parts;
  for (int i = 0; i < c.node().input_size(); ++i) {
    std::string t = c.tensor(i);
    if (!c.ok()) return false;
    parts += t + ", ";
  }
  int64_t axis = c.attr_int("axis", 0);
  c.emit(0, "R.concat((" + parts + "), axis=" + std::to_string(axis) + ")", dtype_of(c, 0));
  return true;
}

bool split(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t axis = c.attr_int("axis", 0);
  int outs = c.node().output_size();
  std::optional<Ints> sizes = c.opset() >= 13 ? (c.has_input(1) ? c.const_ints(1) : Ints{})
                                              : c.attr_ints("split").value_or(Ints{});
  if (!sizes) return c.refuse("split sizes that are not a constant");
  std::string sections;
  if (sizes->empty()) {
    sections = std::to_string(outs);
  } else {
    Ints indices;
    int64_t at = 0;
    for (size_t i = 0; i + 1 < sizes->size(); ++i) indices.push_back(at += (*sizes)[i]);
    sections = int_list(indices);
  }
  std::string tuple = c.temp("R.split(" + x + ", indices_or_sections=" + sections +
                             ", axis=" + std::to_string(axis) + ")");
  for (int i = 0; i < outs; ++i)
    if (c.output_used(i)) c.emit(i, tuple + "[" + std::to_string(i) + "]", dtype_of(c, 0));
  return true;
}

// Slice bounds normalised like ONNX (negative from the end, clamped to the extent) when the
// extent is static, so the legalized strided_slice sees in-range values.
bool slice(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::optional<Ints> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = c.const_ints(1);
    ends = c.const_ints(2);
    if (c.has_input(3)) axes = c.const_ints(3);
    if (c.has_input(4)) steps = c.const_ints(4);
    if ((c.has_input(3) && !axes) || (c.has_input(4) && !steps))
      return c.refuse("axes or steps that are not constants");
  }
  if (!starts || !ends) return c.refuse("starts or ends that are not constants");
  size_t n = starts->size();
  if (!axes) {
    axes = Ints{};
    for (size_t i = 0; i < n; ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (!steps) steps = Ints(n, 1);
  int64_t rank = c.rank(0);
  const Value& in = *c.in(0);
  for (size_t i = 0; i < n; ++i) {
    if ((*steps)[i] == 0) return c.refuse("a step of 0");
    if (rank >= 0) (*axes)[i] = norm_axis((*axes)[i], rank);
    if (!in.dims || (*axes)[i] >= static_cast<int64_t>(in.dims->size())) continue;
    const Dim& d = (*in.dims)[static_cast<size_t>((*axes)[i])];
    if (!d.known()) continue;
    int64_t L = d.value, s = (*steps)[i];
    int64_t b = (*starts)[i], e = (*ends)[i];
    b = b < 0 ? std::max<int64_t>(b + L, s > 0 ? 0 : -1) : b;
    e = e < 0 ? std::max<int64_t>(e + L, s > 0 ? 0 : -1) : e;
    b = s > 0 ? std::min(b, L) : std::min(b, L - 1);
    e = s > 0 ? std::min(e, L) : std::min(e, L - 1);
    // strided_slice reads a negative index from the end: "before the first element" of a
    // backward slice is spelled -L-1 (operators.md, strided_slice).
    (*starts)[i] = s < 0 && b < 0 ? -L - 1 : b;
    (*ends)[i] = s < 0 && e < 0 ? -L - 1 : e;
  }
  c.emit(0,
         "R.strided_slice(" + x + ", axes=" + int_list(*axes) + ", begin=" + int_list(*starts) +
             ", end=" + int_list(*ends) + ", strides=" + int_list(*steps) + ")",
         dtype_of(c, 0));
  return true;
}

bool gather(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t axis = c.attr_int("axis", 0);
  const Tensor* idx = c.constant(1);
  std::string indices;
  auto shape = c.static_shape(0);
  int64_t rank = c.rank(0);
  if (idx && shape && rank > 0 && !c.in(1)->runtime) {
    // Constant indices: negative ones are normalised here ("fast" mode does not wrap).
    int64_t extent = (*shape)[static_cast<size_t>(norm_axis(axis, rank))];
    Ints v = idx->integers();
    for (int64_t& i : v) i = i < 0 ? i + extent : i;
    Tensor fixed = make_int_tensor(idx->dtype, idx->dims, v);
    Value tmp;
    tmp.constant = fixed;
    indices = c.tensor_of(tmp, c.node().input(1) + "_normalised");
  } else {
    indices = c.tensor(1);
    if (!c.ok()) return false;
  }
  c.emit(0, "R.take(" + x + ", " + indices + ", axis=" + std::to_string(axis) + ", mode=\"wrap\")",
         dtype_of(c, 0));
  return true;
}

bool gather_elements(Context& c) {
  std::string x = c.tensor(0), idx = c.tensor(1);
  if (!c.ok()) return false;
  c.emit(0,
         "R.gather_elements(" + x + ", " + idx + ", axis=" + std::to_string(c.attr_int("axis", 0)) +
             ")",
         dtype_of(c, 0));
  return true;
}

bool gather_nd(Context& c) {
  std::string x = c.tensor(0), idx = c.tensor(1);
  if (!c.ok()) return false;
  c.emit(0,
         "R.gather_nd(" + x + ", " + idx +
             ", batch_dims=" + std::to_string(c.attr_int("batch_dims", 0)) + ")",
         dtype_of(c, 0));
  return true;
}

std::optional<Ints> axes_operand(Context& c, int64_t input_from_opset) {
  if (c.opset() >= input_from_opset) {
    if (!c.has_input(1)) return Ints{};
    return c.const_ints(1);
  }
  return c.attr_ints("axes").value_or(Ints{});
}

bool squeeze(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto axes = axes_operand(c, 13);
  if (!axes) return c.refuse("axes that are not a constant");
  c.emit(0, "R.squeeze(" + x + (axes->empty() ? "" : ", axis=" + int_list(*axes)) + ")",
         dtype_of(c, 0));
  return true;
}

bool unsqueeze(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto axes = axes_operand(c, 13);
  if (!axes || axes->empty()) return c.refuse("axes that are not a constant");
  int64_t rank = c.rank(0);
  if (rank < 0) return c.refuse("an input of unknown rank");
  int64_t out_rank = rank + static_cast<int64_t>(axes->size());
  for (int64_t& a : *axes) a = norm_axis(a, out_rank);
  std::sort(axes->begin(), axes->end());
  c.emit(0, "R.expand_dims(" + x + ", axis=" + int_list(*axes) + ")", dtype_of(c, 0));
  return true;
}

bool expand(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto shape = c.const_ints(1);
  if (!shape) return c.refuse("a target shape that is not a constant");
  auto in = c.static_shape(0);
  if (!in) return c.refuse("an input whose shape is not static");
  // Bidirectional broadcast: the output is the broadcast of both shapes.
  size_t n = std::max(in->size(), shape->size());
  Ints out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t a = i + in->size() >= n ? (*in)[i + in->size() - n] : 1;
    int64_t b = i + shape->size() >= n ? (*shape)[i + shape->size() - n] : 1;
    out[i] = a == 1 ? b : a;
  }
  c.emit(0, "R.broadcast_to(" + x + ", " + shape_literal(out) + ")", dtype_of(c, 0),
         static_dims(out));
  return true;
}

bool tile(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto reps = c.const_ints(1);
  if (!reps) return c.refuse("repeats that are not a constant");
  c.emit(0, "R.tile(" + x + ", repeats=" + int_list(*reps) + ")", dtype_of(c, 0));
  return true;
}

bool shape_op(Context& c) {
  const Value& x = c.need(0);
  if (!c.ok()) return false;
  int64_t rank = c.rank(0);
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", rank);
  auto shape = c.static_shape(0);
  if (shape) {
    start = std::clamp<int64_t>(norm_axis(start, rank), 0, rank);
    end = std::clamp<int64_t>(norm_axis(end, rank), 0, rank);
    Ints v(shape->begin() + start, shape->begin() + std::max(start, end));
    c.define_constant(0, make_int_tensor("int64", {static_cast<int64_t>(v.size())}, v));
    return true;
  }
  if (c.attr("start") || c.attr("end")) return c.refuse("start/end on a shape that is not static");
  std::string e = c.tensor_of(x, c.node().input(0));
  c.emit(0, "R.shape_to_tensor(R.shape_of(" + e + "))", "int64");
  return true;
}

bool size_op(Context& c) {
  auto shape = c.static_shape(0);
  if (!shape) return c.refuse("an input whose shape is not static");
  int64_t n = 1;
  for (int64_t d : *shape) n *= d;
  c.define_constant(0, make_int_tensor("int64", {}, {n}));
  return true;
}

bool cast(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::optional<std::string> to = relax_dtype(static_cast<int>(c.attr_int("to", 0)));
  if (!to)
    return c.refuse_type(c.node().output(0), onnx_type_name(static_cast<int>(c.attr_int("to", 0))));
  c.emit(0, "R.astype(" + x + ", \"" + *to + "\")", *to, c.in(0)->dims);
  return true;
}

bool cast_like(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const std::string& to = dtype_of(c, 1);
  if (to.empty()) return c.refuse("a target whose dtype is not known");
  c.emit(0, "R.astype(" + x + ", \"" + to + "\")", to, c.in(0)->dims);
  return true;
}

}  // namespace

DecodeError constant_node_value(const onnx::NodeProto& node, Tensor& t, std::string& why) {
  const onnx::AttributeProto* a = nullptr;
  for (const auto& attr : node.attribute()) a = &attr;
  if (!a) {
    why = "no value attribute";
    return DecodeError::Malformed;
  }
  if (a->name() == "value") {
    DecodeError e = decode_tensor(a->t(), ".", t, why);
    if (e != DecodeError::None && e != DecodeError::UnsupportedType) why = "its value: " + why;
    return e;
  }
  if (a->name() == "value_float") {
    t = make_tensor("float32", {}, {a->f()});
  } else if (a->name() == "value_floats") {
    t = make_tensor("float32", {a->floats_size()},
                    std::vector<double>(a->floats().begin(), a->floats().end()));
  } else if (a->name() == "value_int") {
    t = make_int_tensor("int64", {}, {a->i()});
  } else if (a->name() == "value_ints") {
    t = make_int_tensor("int64", {a->ints_size()}, Ints(a->ints().begin(), a->ints().end()));
  } else {
    why = "the '" + a->name() + "' attribute";
    return DecodeError::Malformed;
  }
  return DecodeError::None;
}

namespace {

bool constant(Context& c) {
  Tensor t;
  std::string why;
  DecodeError e = constant_node_value(c.node(), t, why);
  if (e == DecodeError::UnsupportedType) return c.refuse_type(c.node().output(0), why);
  if (e != DecodeError::None) return c.refuse(why);
  c.define_constant(0, std::move(t));
  return true;
}

bool constant_of_shape(Context& c) {
  auto shape = c.const_ints(0);
  if (!shape) return c.refuse("a shape that is not a constant");
  Tensor fill = make_tensor("float32", {1}, {0.0});
  if (const auto* a = c.attr("value")) {
    std::string why;
    if (decode_tensor(a->t(), ".", fill, why) != DecodeError::None)
      return c.refuse("its value: " + why);
  }
  int64_t n = 1;
  for (int64_t d : *shape) n *= d;
  Tensor t{fill.dtype, *shape, {}};
  std::string one = fill.raw.substr(0, static_cast<size_t>(element_size(fill.dtype)));
  for (int64_t i = 0; i < n; ++i) t.raw += one;
  if (n <= c.options().inline_limit) {
    c.define_constant(0, std::move(t));
    return true;
  }
  c.emit(0,
         "R.full(" + shape_literal(*shape) + ", " + Context::scalar(fill.real(0), fill.dtype) +
             ", dtype=\"" + fill.dtype + "\")",
         fill.dtype, static_dims(*shape));
  return true;
}

bool identity(Context& c) {
  const Value& x = c.need(0);
  if (!c.ok()) return false;
  c.alias(0, x);
  return true;
}

// Dropout at inference is the identity (its mask all true); training mode is refused.
bool dropout(Context& c) {
  const Value& x = c.need(0);
  if (!c.ok()) return false;
  if (c.has_input(2)) {
    // Training mode drops elements at random, unless the ratio is a constant 0.
    const Tensor* training = c.constant(2);
    const Tensor* ratio = c.has_input(1) ? c.constant(1) : nullptr;
    bool zero_ratio = ratio && ratio->numel() == 1 && ratio->real(0) == 0;
    if (!training || (training->integer(0) != 0 && !zero_ratio))
      return c.refuse("training_mode that is not a constant false");
  }
  if (c.attr_int("is_test", 1) == 0 && c.opset() < 7) return c.refuse("is_test=0");
  c.alias(0, x);
  if (c.output_used(1)) {
    std::string e = c.tensor_of(x, c.node().input(0));
    c.emit(1, "R.ones_like(" + e + ", dtype=\"bool\")", "bool", x.dims);
  }
  return true;
}

// ------------------------------------------------------------------ reductions

bool reduce(Context& c, const std::string& kind) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  // Axes became an input in opset 13 for ReduceSum and in opset 18 for the others.
  auto axes = axes_operand(c, kind == "ReduceSum" ? 13 : 18);
  if (!axes) return c.refuse("axes that are not a constant");
  bool keep = c.attr_int("keepdims", 1);
  if (axes->empty() && c.attr_int("noop_with_empty_axes", 0)) {
    c.alias(0, *c.in(0));
    return true;
  }
  const std::string& dt = dtype_of(c, 0);
  std::string args = (axes->empty() ? std::string() : ", axis=" + int_list(*axes)) +
                     ", keepdims=" + (keep ? "True" : "False") + ")";
  static const std::map<std::string, std::string> kDirect = {{"ReduceSum", "R.sum"},
                                                             {"ReduceMean", "R.mean"},
                                                             {"ReduceMax", "R.max"},
                                                             {"ReduceMin", "R.min"},
                                                             {"ReduceProd", "R.prod"}};
  if (auto it = kDirect.find(kind); it != kDirect.end()) {
    c.emit(0, it->second + "(" + x + args, dt);
    return true;
  }
  if (kind == "ReduceL1") {
    c.emit(0, "R.sum(" + c.temp("R.abs(" + x + ")") + args, dt);
  } else if (kind == "ReduceSumSquare") {
    c.emit(0, "R.sum(" + c.temp("R.multiply(" + x + ", " + x + ")") + args, dt);
  } else if (kind == "ReduceL2") {
    std::string s = c.temp("R.sum(" + c.temp("R.multiply(" + x + ", " + x + ")") + args);
    c.emit(0, "R.sqrt(" + s + ")", dt);
  } else if (kind == "ReduceLogSum") {
    c.emit(0, "R.log(" + c.temp("R.sum(" + x + args) + ")", dt);
  } else if (kind == "ReduceLogSumExp") {
    // Stable: max + log(sum(exp(x - max))).
    std::string kept =
        (axes->empty() ? std::string() : ", axis=" + int_list(*axes)) + ", keepdims=True)";
    std::string m = c.temp("R.max(" + x + kept);
    std::string e = c.temp("R.exp(" + c.temp("R.subtract(" + x + ", " + m + ")") + ")");
    std::string l = c.temp("R.log(" + c.temp("R.sum(" + e + args) + ")");
    std::string mm = keep ? m : c.temp("R.max(" + x + args);
    c.emit(0, "R.add(" + l + ", " + mm + ")", dt);
  }
  return true;
}

bool arg_reduce(Context& c, const char* op) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  if (c.attr_int("select_last_index", 0)) {
    // The last extreme index: the first one of the flipped axis, counted from the end.
    auto shape = c.static_shape(0);
    int64_t axis = norm_axis(c.attr_int("axis", 0), c.rank(0));
    if (!shape) return c.refuse("select_last_index=1 on an input whose shape is not static");
    std::string flipped = c.temp("R.flip(" + x + ", axis=" + std::to_string(axis) + ")");
    std::string first =
        c.temp(std::string(op) + "(" + flipped + ", axis=" + std::to_string(axis) +
               ", keepdims=" + (c.attr_int("keepdims", 1) ? "True" : "False") + ")");
    c.emit(
        0,
        "R.subtract(" +
            Context::scalar(static_cast<double>((*shape)[static_cast<size_t>(axis)] - 1), "int64") +
            ", " + first + ")",
        "int64");
    return true;
  }
  c.emit(0,
         std::string(op) + "(" + x + ", axis=" + std::to_string(c.attr_int("axis", 0)) +
             ", keepdims=" + (c.attr_int("keepdims", 1) ? "True" : "False") + ")",
         "int64");
  return true;
}

// ------------------------------------------------------------------ selection, padding, clip

bool where(Context& c) {
  std::string cond = c.tensor(0), a = c.tensor(1), b = c.tensor(2);
  if (!c.ok()) return false;
  c.emit(0, "R.where(" + cond + ", " + a + ", " + b + ")", dtype_of(c, 1));
  return true;
}

bool pad(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::optional<Ints> pads = c.opset() >= 11 ? c.const_ints(1) : c.attr_ints("pads");
  if (!pads) return c.refuse("pads that are not a constant");
  double value = c.opset() >= 11 ? 0.0 : c.attr_float("value", 0.0);
  if (c.opset() >= 11 && c.has_input(2)) {
    const Tensor* v = c.constant(2);
    if (!v) return c.refuse("a constant_value that is not a constant");
    value = v->real(0);
  }
  if (c.has_input(3)) return c.refuse("the axes input");
  int64_t rank = c.rank(0);
  if (rank < 0 || static_cast<int64_t>(pads->size()) != 2 * rank)
    return c.refuse("pads that do not match the input's rank");
  for (int64_t p : *pads)
    if (p < 0) return c.refuse("negative pads");
  std::string mode = c.attr_string("mode", "constant");
  static const std::map<std::string, std::string> kModes = {{"constant", "constant"},
                                                            {"reflect", "reflect"},
                                                            {"edge", "replicate"},
                                                            {"wrap", "circular"}};
  auto m = kModes.find(mode);
  if (m == kModes.end()) return c.refuse("mode='" + mode + "'");
  Ints width;
  for (int64_t i = 0; i < rank; ++i) {
    width.push_back((*pads)[static_cast<size_t>(i)]);
    width.push_back((*pads)[static_cast<size_t>(i + rank)]);
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  std::string v = buf;
  if (v.find_first_of(".en") == std::string::npos) v += ".0";
  c.emit(0,
         "R.nn.pad(" + x + ", pad_width=" + int_list(width) + ", pad_mode=\"" + m->second +
             "\", pad_value=" + v + ")",
         dtype_of(c, 0));
  return true;
}

bool clip(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const std::string& dt = dtype_of(c, 0);
  if (c.opset() < 11) {
    double lo = c.attr_float("min", -3.4028234663852886e38),
           hi = c.attr_float("max", 3.4028234663852886e38);
    std::string a = c.temp("R.maximum(" + x + ", " + Context::scalar(lo, dt) + ")");
    c.emit(0, "R.minimum(" + a + ", " + Context::scalar(hi, dt) + ")", dt, c.in(0)->dims);
    return true;
  }
  // From opset 11 the bounds are optional inputs (tensors), applied as max then min.
  bool lo = c.has_input(1), hi = c.has_input(2);
  if (!lo && !hi) {
    c.alias(0, *c.in(0));
    return true;
  }
  std::string acc = x;
  if (lo) {
    std::string e = "R.maximum(" + acc + ", " + c.tensor(1) + ")";
    if (!hi) {
      c.emit(0, e, dt, c.in(0)->dims);
      return c.ok();
    }
    acc = c.temp(e);
  }
  c.emit(0, "R.minimum(" + acc + ", " + c.tensor(2) + ")", dt, c.in(0)->dims);
  return c.ok();
}

bool topk(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::optional<Ints> k =
      c.opset() >= 10 ? c.const_ints(1) : std::optional<Ints>(Ints{c.attr_int("k", 1)});
  if (!k || k->empty()) return c.refuse("a k that is not a constant");
  std::string t = c.temp("R.topk(" + x + ", k=" + std::to_string((*k)[0]) + ", axis=" +
                         std::to_string(c.attr_int("axis", -1)) + ", ret_type=\"both\", largest=" +
                         (c.attr_int("largest", 1) ? "True" : "False") + ", dtype=\"int64\")");
  if (!c.attr_int("sorted", 1)) return c.refuse("sorted=0");
  c.emit(0, t + "[0]", dtype_of(c, 0));
  if (c.output_used(1)) c.emit(1, t + "[1]", "int64");
  return true;
}

bool trilu(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t k = 0;
  if (c.has_input(1)) {
    auto kv = c.const_ints(1);
    if (!kv) return c.refuse("a k that is not a constant");
    k = (*kv)[0];
  }
  c.emit(0,
         std::string(c.attr_int("upper", 1) ? "R.triu(" : "R.tril(") + x +
             ", k=" + std::to_string(k) + ")",
         dtype_of(c, 0));
  return true;
}

// Range: start + i * delta for i < max(0, ceil((limit - start) / delta)). The length must be
// known at import time; when the bounds come from a graph input's given value they are still
// computed at run time (R.arange of the length, scaled and shifted), else the range is a
// constant.
bool range(Context& c) {
  const Tensor *s = c.constant(0), *l = c.constant(1), *d = c.constant(2);
  if (!s || !l || !d) return c.refuse("a start, limit or delta that is not a constant");
  const std::string& dt = s->dtype;
  std::vector<double> v;
  double start = s->real(0), limit = l->real(0), delta = d->real(0);
  if (delta == 0) return c.refuse("delta=0");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  bool runtime = c.in(0)->runtime || c.in(1)->runtime || c.in(2)->runtime;
  if (!runtime) {
    for (int64_t i = 0; i < n; ++i) v.push_back(start + static_cast<double>(i) * delta);
    c.define_constant(0, make_tensor(dt, {n}, v));
    return true;
  }
  std::string st = c.tensor(0), dl = c.tensor(2);
  if (!c.ok()) return false;
  std::string steps = c.temp("R.arange(R.prim_value(0), R.prim_value(" + std::to_string(n) +
                             "), R.prim_value(1), dtype=\"" + dt + "\")");
  std::string scaled = c.temp("R.multiply(" + steps + ", " + dl + ")");
  c.emit(0, "R.add(" + scaled + ", " + st + ")", dt, static_dims({n}));
  return true;
}

// Hardmax: 1 at the first maximum along the axis, 0 elsewhere (R.one_hot of R.argmax); before
// opset 13 the input is coerced to 2-D at the axis, like Softmax.
bool hardmax(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto shape = c.static_shape(0);
  int64_t rank = c.rank(0);
  if (!shape || rank < 1) return c.refuse("an input whose shape is not static");
  int64_t axis = norm_axis(c.attr_int("axis", c.opset() >= 13 ? -1 : 1), rank);
  const std::string& dt = dtype_of(c, 0);
  std::string src = x;
  int64_t depth = (*shape)[static_cast<size_t>(axis)];
  if (c.opset() < 13) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? outer : inner) *= (*shape)[static_cast<size_t>(i)];
    src = c.temp("R.reshape(" + x + ", " + shape_literal({outer, inner}) + ")");
    axis = 1;
    depth = inner;
  }
  std::string idx =
      c.temp("R.argmax(" + src + ", axis=" + std::to_string(axis) + ", keepdims=False)");
  std::string one = "R.prim_value(T." + dt + "(1))", zero = "R.prim_value(T." + dt + "(0))";
  std::string hot = "R.one_hot(" + idx + ", " + one + ", " + zero +
                    ", depth=" + std::to_string(depth) + ", axis=" + std::to_string(axis) + ")";
  if (c.opset() < 13) hot = "R.reshape(" + c.temp(hot) + ", " + shape_literal(*shape) + ")";
  c.emit(0, hot, dt);
  return true;
}

// DepthToSpace (DCR and CRD) and SpaceToDepth: a reshape to 6-D, a transpose, a reshape back.
bool depth_space(Context& c, bool to_space) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto s = c.static_shape(0);
  if (!s || s->size() != 4) return c.refuse("an input that is not 4-D with a static shape");
  int64_t b = c.attr_int("blocksize", 1), n = (*s)[0], ch = (*s)[1], h = (*s)[2], w = (*s)[3];
  Ints split, perm, out;
  if (to_space) {
    bool crd = c.attr_string("mode", "DCR") == "CRD";
    split = crd ? Ints{n, ch / (b * b), b, b, h, w} : Ints{n, b, b, ch / (b * b), h, w};
    perm = crd ? Ints{0, 1, 4, 2, 5, 3} : Ints{0, 3, 4, 1, 5, 2};
    out = {n, ch / (b * b), h * b, w * b};
  } else {
    split = {n, ch, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    out = {n, ch * b * b, h / b, w / b};
  }
  std::string r = c.temp("R.reshape(" + x + ", " + shape_literal(split) + ")");
  std::string t = c.temp("R.permute_dims(" + r + ", axes=" + int_list(perm) + ")");
  c.emit(0, "R.reshape(" + t + ", " + shape_literal(out) + ")", dtype_of(c, 0), static_dims(out));
  return true;
}

// A PrimValue literal of `dtype` holding v (R.one_hot's on / off values).
std::string prim_literal(double v, const std::string& dtype) {
  char buf[40];
  if (is_float_dtype(dtype)) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return "R.prim_value(T." + dtype + "(" + s + "))";
  }
  if (dtype == "bool")
    return std::string("R.prim_value(T.bool(") + (v != 0 ? "True" : "False") + "))";
  return "R.prim_value(T." + dtype + "(" + std::to_string(static_cast<int64_t>(v)) + "))";
}

// CumSum(x, axis): R.cumsum along the constant axis; `exclusive` maps onto R.cumsum's, `reverse`
// flips the axis before and after.
bool cumsum(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto axis = c.const_ints(1);
  if (!axis || axis->size() != 1) return c.refuse("an axis that is not a constant");
  std::string a = std::to_string((*axis)[0]);
  bool reverse = c.attr_int("reverse", 0) != 0;
  if (reverse) x = c.temp("R.flip(" + x + ", axis=" + a + ")");
  std::string call = "R.cumsum(" + x + ", axis=" + a +
                     ", exclusive=" + (c.attr_int("exclusive", 0) ? "True" : "False") + ")";
  if (reverse) call = "R.flip(" + c.temp(call) + ", axis=" + a + ")";
  c.emit(0, call, dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// OneHot(indices, depth, values=[off, on]): R.one_hot of the indices as int64, negative ones
// counting from the end of the depth (ONNX wraps them).
bool one_hot(Context& c) {
  std::string idx = c.tensor(0);
  if (!c.ok()) return false;
  const Tensor* depth = c.constant(1);
  const Tensor* values = c.constant(2);
  if (!depth || !values || values->numel() != 2)
    return c.refuse("a depth or values that is not a constant");
  auto d = static_cast<int64_t>(depth->real(0));
  if (d < 1) return c.refuse("depth " + std::to_string(d));
  const std::string& dt = values->dtype;
  if (dtype_of(c, 0) != "int64") idx = c.temp("R.astype(" + idx + ", \"int64\")");
  std::string neg = c.temp("R.less(" + idx + ", " + Context::scalar(0, "int64") + ")");
  std::string wrapped = c.temp("R.add(" + idx + ", " + Context::scalar(double(d), "int64") + ")");
  idx = c.temp("R.where(" + neg + ", " + wrapped + ", " + idx + ")");
  // The canonical printer writes an integer PrimValue bare (int64): integer values other than
  // int64 are encoded in int64, then cast.
  bool via_int64 = !is_float_dtype(dt) && dt != "int64";
  const std::string& vt = via_int64 ? std::string("int64") : dt;
  std::string hot = "R.one_hot(" + idx + ", " + prim_literal(values->real(1), vt) + ", " +
                    prim_literal(values->real(0), vt) + ", depth=" + std::to_string(d) +
                    ", axis=" + std::to_string(c.attr_int("axis", -1)) + ")";
  if (via_int64) hot = "R.astype(" + c.temp(hot) + ", \"" + dt + "\")";
  c.emit(0, hot, dt);
  return true;
}

// The reduction attribute of ScatterElements / ScatterND as Relax names it ("none" is
// "update"); empty after refusing one Relax has not.
std::string scatter_reduction(Context& c) {
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction == "none") reduction = "update";
  if (reduction != "update" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min") {
    c.refuse("reduction='" + reduction + "'");
    return "";
  }
  return reduction;
}

// ScatterElements (and the older Scatter): R.scatter_elements; reduction none is "update".
bool scatter_elements(Context& c) {
  std::string x = c.tensor(0), idx = c.tensor(1), upd = c.tensor(2);
  if (!c.ok()) return false;
  std::string reduction = scatter_reduction(c);
  if (reduction.empty()) return false;
  c.emit(0,
         "R.scatter_elements(" + x + ", " + idx + ", " + upd + ", axis=" +
             std::to_string(c.attr_int("axis", 0)) + ", reduction=\"" + reduction + "\")",
         dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// An einsum equation with "..." spelled out in letters the equation does not use, from the
// operands' ranks (numpy's rules: the ellipsis axes broadcast right-aligned; an implicit output
// is the ellipsis axes, then the letters used once, in order).
std::optional<std::string> expand_ellipsis(Context& c, const std::string& eq) {
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (int(terms.size()) != c.node().input_size()) return std::nullopt;
  std::string unused;
  for (char ch = 'A'; ch <= 'Z'; ++ch)
    if (eq.find(ch) == std::string::npos) unused += ch;
  size_t most = 0;
  std::vector<size_t> covered(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].find("...") == std::string::npos) continue;
    int64_t rank = c.rank(int(i));
    int64_t named = int64_t(terms[i].size()) - 3;
    if (rank < 0 || rank < named) return std::nullopt;
    covered[i] = size_t(rank - named);
    most = std::max(most, covered[i]);
  }
  if (most > unused.size()) return std::nullopt;
  std::string letters = unused.substr(0, most);
  auto replace = [&](std::string term, size_t n) {
    size_t at = term.find("...");
    return at == std::string::npos ? term : term.replace(at, 3, letters.substr(most - n));
  };
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) out += (i ? "," : "") + replace(terms[i], covered[i]);
  if (arrow != std::string::npos) return out + "->" + replace(eq.substr(arrow + 2), most);
  std::string implicit = letters;
  for (char ch = 'a'; ch <= 'z'; ++ch)
    if (std::count(lhs.begin(), lhs.end(), ch) == 1) implicit += ch;
  return out + "->" + implicit;
}

// Einsum: R.einsum over the operands, the equation without spaces.
bool einsum(Context& c) {
  std::string operands;
  for (int i = 0; i < c.node().input_size(); ++i) {
    std::string t = c.tensor(i);
    if (!c.ok()) return false;
    operands += (i ? ", " : "") + t;
  }
  std::string eq;
  for (char ch : c.attr_string("equation", ""))
    if (ch != ' ') eq += ch;
  if (eq.empty()) return c.refuse("an empty equation");
  if (eq.find("...") != std::string::npos) {
    auto expanded = expand_ellipsis(c, eq);
    if (!expanded) return c.refuse("an ellipsis over operands of unknown rank");
    eq = *expanded;
  }
  if (c.node().input_size() == 1) operands += ",";
  c.emit(0, "R.einsum((" + operands + "), subscripts=\"" + eq + "\")", dtype_of(c, 0));
  return true;
}

// Resize (opsets 10-19) and Upsample (7-9) of a 4-D NCHW or 5-D NCDHW input over its spatial
// axes: R.image.resize2d / resize3d to the output size (the `sizes` input, or floor(in *
// scale)). ONNX maps output coordinates through the given scale, Relax through out / in: a
// scale that is not exactly out / in, tf_crop_and_resize (its roi) and a resize of the batch or
// channel axes or of another rank go through interpolation matrices instead
// (resize_matrix.cpp). antialias and axes (opset 18) are refused. Upsample is the asymmetric
// mode with floor rounding.
bool resize(Context& c, bool upsample) {
  auto shape = c.static_shape(0);
  if (!shape) return c.refuse("an input whose shape is not static");
  size_t rank = shape->size();
  if (c.attr_int("antialias", 0) != 0) return c.refuse("antialias=1");
  if (c.attr("axes")) return c.refuse("the axes attribute");
  if (c.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch")
    return c.refuse("keep_aspect_ratio_policy='" + c.attr_string("keep_aspect_ratio_policy", "") +
                    "'");
  std::string ctm = upsample ? "asymmetric"
                             : c.attr_string("coordinate_transformation_mode",
                                             c.opset() >= 11 ? "half_pixel" : "asymmetric");
  int scales_input = c.opset() >= 11 ? 2 : 1;
  Ints out = *shape;
  std::vector<double> scales(rank, 1.0), roi;
  bool exact = true;
  const Tensor* sizes = !upsample && c.opset() >= 11 && c.has_input(3) ? c.constant(3) : nullptr;
  if (!upsample && c.opset() >= 11 && c.has_input(3) && !sizes)
    return c.refuse("sizes that are not a constant");
  if (sizes) {
    Ints v = sizes->integers();
    if (v.size() != rank) return c.refuse("sizes of another rank");
    out = v;
    for (size_t d = 0; d < rank; ++d) scales[d] = double(out[d]) / double((*shape)[d]);
  } else {
    if (upsample && c.opset() < 9) {
      scales = c.attr_floats("scales").value_or(std::vector<double>{});
    } else if (const Tensor* t = c.has_input(scales_input) ? c.constant(scales_input) : nullptr) {
      scales = t->reals();
    } else {
      scales.clear();
    }
    if (scales.size() != rank) return c.refuse("scales that are not constants, one per axis");
    for (size_t d = 0; d < rank; ++d) {
      double full = double((*shape)[d]) * scales[d];
      out[d] = static_cast<int64_t>(std::floor(full));
      exact = exact && std::abs(full - double(out[d])) <= 1e-9 * std::max(1.0, full);
    }
  }
  if (ctm == "tf_crop_and_resize") {
    const Tensor* r = c.has_input(1) ? c.constant(1) : nullptr;
    if (!r || r->numel() != int64_t(2 * rank)) return c.refuse("a roi that is not a constant");
    roi = r->reals();
  }
  if (!exact || !roi.empty() || (rank != 4 && rank != 5) || out[0] != (*shape)[0] ||
      out[1] != (*shape)[1]) {
    if (upsample) return c.refuse("a scale whose output size is not exact (in * scale)");
    return resize_by_matrices(c, out, scales, roi, ctm);
  }
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::string mode = c.attr_string("mode", "nearest");
  std::string method = mode == "nearest"                           ? "nearest_neighbor"
                       : mode == "bilinear" || mode == "trilinear" ? "linear"
                                                                   : mode;
  if (method != "nearest_neighbor" && method != "linear" && method != "cubic")
    return c.refuse("mode='" + mode + "'");
  std::string rounding = upsample ? "floor" : c.attr_string("nearest_mode", "round_prefer_floor");
  char alpha[40];
  std::snprintf(alpha, sizeof alpha, "%.9g", c.attr_float("cubic_coeff_a", -0.75));
  std::string size;
  for (size_t d = 2; d < rank; ++d) size += (d > 2 ? ", " : "") + std::to_string(out[d]);
  c.emit(0,
         std::string(rank == 4 ? "R.image.resize2d(" : "R.image.resize3d(") + x + ", R.shape([" +
             size + "]), layout=\"" + (rank == 4 ? "NCHW" : "NCDHW") + "\", method=\"" + method +
             "\", coordinate_transformation_mode=\"" + ctm + "\", rounding_method=\"" +
             (method == "nearest_neighbor" ? rounding : std::string("")) + "\", cubic_alpha=" +
             alpha + ", cubic_exclude=" + std::to_string(c.attr_int("exclude_outside", 0)) + ")",
         dtype_of(c, 0), static_dims(out));
  return true;
}

// ScatterND: R.scatter_nd; reduction none is "update".
bool scatter_nd(Context& c) {
  std::string x = c.tensor(0), idx = c.tensor(1), upd = c.tensor(2);
  if (!c.ok()) return false;
  std::string reduction = scatter_reduction(c);
  if (reduction.empty()) return false;
  c.emit(0, "R.scatter_nd(" + x + ", " + idx + ", " + upd + ", reduction=\"" + reduction + "\")",
         dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// EyeLike: R.eye_like with the diagonal k and the dtype attribute (default: the input's).
bool eye_like(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::string dt = dtype_of(c, 0);
  if (const auto* a = c.attr("dtype")) {
    auto to = relax_dtype(static_cast<int>(a->i()));
    if (!to) return c.refuse_type(c.node().output(0), onnx_type_name(static_cast<int>(a->i())));
    dt = *to;
  }
  c.emit(0,
         "R.eye_like(" + x + ", R.prim_value(" + std::to_string(c.attr_int("k", 0)) +
             "), dtype=\"" + dt + "\")",
         dt, c.in(0)->dims);
  return true;
}

// HammingWindow (alpha 25/46, beta 21/46) and HannWindow (0.5, 0.5): R.hamming_window of the
// constant size; `periodic` (default 1) divides by the size, else by the size less one.
bool window(Context& c, double alpha, double beta) {
  auto size = c.const_ints(0);
  if (!size || size->size() != 1 || (*size)[0] < 1)
    return c.refuse("a size that is not a constant");
  auto to = relax_dtype(static_cast<int>(c.attr_int("output_datatype", 1)));
  if (!to || !is_float_dtype(*to))
    return c.refuse_type(c.node().output(0),
                         onnx_type_name(static_cast<int>(c.attr_int("output_datatype", 1))));
  char buf[160];
  std::snprintf(buf, sizeof buf, "R.prim_value(T.float64(%.17g)), R.prim_value(T.float64(%.17g))",
                alpha, beta);
  c.emit(0,
         "R.hamming_window(R.prim_value(" + std::to_string((*size)[0]) + "), R.prim_value(" +
             std::to_string(c.attr_int("periodic", 1) != 0) + "), " + buf + ", dtype=\"" + *to +
             "\")",
         *to, static_dims({(*size)[0]}));
  return true;
}

// ReverseSequence: R.reverse_sequence (time_axis is its seq_axis).
bool reverse_sequence(Context& c) {
  std::string x = c.tensor(0), lens = c.tensor(1);
  if (!c.ok()) return false;
  c.emit(0,
         "R.reverse_sequence(" + x + ", " + lens +
             ", seq_axis=" + std::to_string(c.attr_int("time_axis", 0)) +
             ", batch_axis=" + std::to_string(c.attr_int("batch_axis", 1)) + ")",
         dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// NonZero: R.nonzero, (rank, count) int64 indices in row-major order, as ONNX's.
bool nonzero(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  c.emit(0, "R.nonzero(" + x + ")", "int64");
  return true;
}

// Unique: R.unique with every output requested (values, first indices, inverse, counts).
bool unique(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  std::string call = "R.unique(" + x + ", sorted=" + (c.attr_int("sorted", 1) ? "True" : "False") +
                     ", return_index=True, return_inverse=True, return_counts=True";
  if (const auto* a = c.attr("axis")) call += ", axis=" + std::to_string(a->i());
  std::string t = c.temp(call + ")");
  c.emit(0, t + "[0]", dtype_of(c, 0));
  for (int i = 1; i < 4; ++i)
    if (c.output_used(i)) c.emit(i, t + "[" + std::to_string(i) + "]", "int64");
  return true;
}

// NonMaxSuppression: R.vision.all_class_non_max_suppression (ONNX output format: every
// (batch, class, box) row, the selected first, and their count), then the selected rows cut
// out with R.dynamic_strided_slice. Absent inputs take ONNX's defaults (no box kept when
// max_output_boxes_per_class is absent, no score threshold); center_point_box=1 boxes are
// turned into corners first.
bool non_max_suppression(Context& c) {
  std::string boxes = c.tensor(0), scores = c.tensor(1);
  if (!c.ok()) return false;
  if (c.attr_int("center_point_box", 0) != 0) {
    // [x_centre, y_centre, width, height] to the corners [y1, x1, y2, x2].
    const std::string& dt = dtype_of(c, 0);
    std::string parts = c.temp("R.split(" + boxes + ", indices_or_sections=4, axis=2)");
    auto part = [&](int k) { return c.temp(parts + "[" + std::to_string(k) + "]"); };
    std::string xc = part(0), yc = part(1), w = part(2), h = part(3);
    std::string hw = c.temp("R.divide(" + w + ", " + Context::scalar(2, dt) + ")");
    std::string hh = c.temp("R.divide(" + h + ", " + Context::scalar(2, dt) + ")");
    std::string y1 = c.temp("R.subtract(" + yc + ", " + hh + ")");
    std::string x1 = c.temp("R.subtract(" + xc + ", " + hw + ")");
    std::string y2 = c.temp("R.add(" + yc + ", " + hh + ")");
    std::string x2 = c.temp("R.add(" + xc + ", " + hw + ")");
    boxes = c.temp("R.concat((" + y1 + ", " + x1 + ", " + y2 + ", " + x2 + "), axis=2)");
  }
  auto operand = [&](int i, double fallback, const char* dtype) {
    if (c.has_input(i)) {
      std::string t = c.tensor(i);
      std::string r = c.temp("R.reshape(" + t + ", R.shape([1]))");
      return dtype_of(c, i) == dtype ? r : c.temp("R.astype(" + r + ", \"" + dtype + "\")");
    }
    return c.temp("R.reshape(" + Context::scalar(fallback, dtype) + ", R.shape([1]))");
  };
  std::string max_out = operand(2, 0, "int64");
  std::string iou = operand(3, 0, "float32");
  std::string score = operand(4, -std::numeric_limits<float>::infinity(), "float32");
  if (!c.ok()) return false;
  std::string nms =
      c.temp("R.vision.all_class_non_max_suppression(" + boxes + ", " + scores + ", " + max_out +
             ", " + iou + ", " + score + ", output_format=\"onnx\")");
  std::string count = c.temp(nms + "[1]");
  std::string end = c.temp("R.concat((" + count + ", R.const([3], \"int64\")), axis=0)");
  c.emit(0,
         "R.dynamic_strided_slice(" + c.temp(nms + "[0]") + ", R.const([0, 0], \"int64\"), " + end +
             ", R.const([1, 1], \"int64\"))",
         "int64");
  return true;
}

// QuantizeLinear / DequantizeLinear: R.quantize / R.dequantize (round half to even, saturating),
// per tensor or along `axis` (default 1); an absent zero point is 0 of uint8 (quantize) or of
// the input's dtype (dequantize). The quantized dtype is the zero point's.
bool quantize_linear(Context& c, bool quantize) {
  std::string x = c.tensor(0), scale = c.tensor(1);
  if (!c.ok()) return false;
  std::string qdt = quantize ? (c.has_input(2) ? dtype_of(c, 2) : "uint8") : dtype_of(c, 0);
  if (qdt != "int8" && qdt != "uint8" && qdt != "int32" && qdt != "int16" && qdt != "uint16")
    return c.refuse_type(c.node().input(c.has_input(2) ? 2 : 0), qdt);
  std::string zp = c.has_input(2) ? c.tensor(2) : Context::scalar(0, qdt);
  if (!c.ok()) return false;
  std::string out_dt = quantize ? qdt : dtype_of(c, 1);
  int64_t rank = c.rank(0);
  int64_t axis = c.attr_int("axis", 1);
  if (rank >= 0 && c.rank(1) <= 0) axis = -1;  // per tensor: the axis does not matter
  if (rank >= 0 && (axis < -rank || axis >= std::max<int64_t>(rank, 1)))
    return c.refuse("axis " + std::to_string(axis));
  c.emit(0,
         std::string(quantize ? "R.quantize(" : "R.dequantize(") + x + ", " + scale + ", " + zp +
             ", axis=" + std::to_string(axis) + ", out_dtype=\"" + out_dt + "\")",
         out_dt, c.in(0)->dims);
  return true;
}

// RoiAlign (mode avg): R.vision.roi_align of the rois prefixed by their batch index. ONNX's
// half_pixel mode (opset 16's default) samples at roi * scale - 0.5 without the minimum extent
// of 1: the rois are shifted by 0.5 / spatial_scale and the call is `aligned`;
// output_half_pixel is the unaligned form. ONNX's max mode (the maximum of the weighted corner
// terms, not of the samples) is refused.
bool roi_align(Context& c) {
  std::string x = c.tensor(0), rois = c.tensor(1), batch = c.tensor(2);
  if (!c.ok() || !float_only(c)) return false;
  std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg") return c.refuse("mode='" + mode + "'");
  std::string ctm = c.attr_string("coordinate_transformation_mode",
                                  c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return c.refuse("coordinate_transformation_mode='" + ctm + "'");
  double scale = c.attr_float("spatial_scale", 1.0);
  if (scale == 0) return c.refuse("spatial_scale=0");
  const std::string& rdt = dtype_of(c, 1);
  bool aligned = ctm == "half_pixel";
  if (aligned) rois = c.temp("R.subtract(" + rois + ", " + Context::scalar(0.5 / scale, rdt) + ")");
  std::string b = c.temp("R.expand_dims(R.astype(" + batch + ", \"" + rdt + "\"), axis=[1])");
  std::string all = c.temp("R.concat((" + b + ", " + rois + "), axis=1)");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", scale);
  c.emit(0,
         "R.vision.roi_align(" + x + ", " + all + ", pooled_size=[" +
             std::to_string(c.attr_int("output_height", 1)) + ", " +
             std::to_string(c.attr_int("output_width", 1)) + "], spatial_scale=" + buf +
             ", sample_ratio=" + std::to_string(c.attr_int("sampling_ratio", 0)) +
             ", aligned=" + (aligned ? "True" : "False") + ", layout=\"NCHW\", mode=\"avg\")",
         dtype_of(c, 0));
  return true;
}

// LRN: x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the window
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]; sum / size is an average pool of x^2
// laid out as (N, 1, C, rest) with the padding counted.
bool lrn(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  auto shape = c.static_shape(0);
  if (!shape || shape->size() < 3) return c.refuse("an input that is not 3-D or more, static");
  int64_t size = c.attr_int("size", 1);
  if (size < 1) return c.refuse("size " + std::to_string(size));
  const std::string& dt = dtype_of(c, 0);
  int64_t rest = 1;
  for (size_t d = 2; d < shape->size(); ++d) rest *= (*shape)[d];
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  std::string sq = c.temp("R.reshape(R.multiply(" + x + ", " + x + "), " +
                          shape_literal({(*shape)[0], 1, (*shape)[1], rest}) + ")");
  std::string pooled = c.temp("R.nn.avg_pool2d(" + sq + ", pool_size=[" + std::to_string(size) +
                              ", 1], strides=[1, 1], padding=[" + std::to_string(lo) + ", 0, " +
                              std::to_string(hi) + ", 0], count_include_pad=True)");
  std::string sum = c.temp("R.reshape(" + pooled + ", " + shape_literal(*shape) + ")");
  std::string scaled =
      c.temp("R.multiply(" + sum + ", " + Context::scalar(c.attr_float("alpha", 1e-4), dt) + ")");
  std::string base =
      c.temp("R.add(" + scaled + ", " + Context::scalar(c.attr_float("bias", 1.0), dt) + ")");
  std::string den =
      c.temp("R.power(" + base + ", " + Context::scalar(c.attr_float("beta", 0.75), dt) + ")");
  c.emit(0, "R.divide(" + x + ", " + den + ")", dt, c.in(0)->dims);
  return true;
}

// DynamicQuantizeLinear: uint8 quantization with the scale (max(x, 0) - min(x, 0)) / 255 and
// the zero point round(-min / scale) clipped to [0, 255] (ONNX's definition), then R.quantize.
bool dynamic_quantize_linear(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  if (dtype_of(c, 0) != "float32") return c.refuse_type(c.node().input(0), dtype_of(c, 0));
  std::string zero = Context::scalar(0, "float32");
  std::string hi = c.temp("R.maximum(R.max(" + x + "), " + zero + ")");
  std::string lo = c.temp("R.minimum(R.min(" + x + "), " + zero + ")");
  std::string scale = c.temp("R.divide(R.subtract(" + hi + ", " + lo + "), " +
                             Context::scalar(255, "float32") + ")");
  std::string zp_f = c.temp("R.clip(R.round(R.divide(R.negative(" + lo + "), " + scale +
                            ")), R.prim_value(T.float32(0)), R.prim_value(T.float32(255)))");
  std::string zp = c.temp("R.astype(" + zp_f + ", \"uint8\")");
  c.emit(0, "R.quantize(" + x + ", " + scale + ", " + zp + ", axis=-1, out_dtype=\"uint8\")",
         "uint8", c.in(0)->dims);
  if (c.output_used(1)) c.alias(1, Value{scale, "float32", std::vector<Dim>{}, std::nullopt});
  if (c.output_used(2)) c.alias(2, Value{zp, "uint8", std::vector<Dim>{}, std::nullopt});
  return true;
}

// MeanVarianceNormalization: (x - mean) / sqrt(variance) over `axes` (default [0, 2, 3]), as
// ONNX's function body (which adds no epsilon).
bool mean_variance_normalization(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  Ints axes = c.attr_ints("axes").value_or(Ints{0, 2, 3});
  std::string a = int_list(axes);
  std::string mean = c.temp("R.mean(" + x + ", axis=" + a + ", keepdims=True)");
  std::string centred = c.temp("R.subtract(" + x + ", " + mean + ")");
  std::string var =
      c.temp("R.mean(R.multiply(" + centred + ", " + centred + "), axis=" + a + ", keepdims=True)");
  c.emit(0, "R.divide(" + centred + ", R.sqrt(" + var + "))", dtype_of(c, 0), c.in(0)->dims);
  return true;
}

// NegativeLogLikelihoodLoss: R.nn.nll_loss has ONNX's semantics (weights, ignore_index, the
// three reductions).
bool nll_loss(Context& c) {
  std::string pred = c.tensor(0), target = c.tensor(1);
  if (!c.ok()) return false;
  std::string reduction = c.attr_string("reduction", "mean");
  std::string call = "R.nn.nll_loss(" + pred + ", " + target;
  if (c.has_input(2)) call += ", " + c.tensor(2);
  call += ", reduction=\"" + reduction + "\"";
  if (const auto* a = c.attr("ignore_index")) call += ", ignore_index=" + std::to_string(a->i());
  c.emit(0, call + ")", dtype_of(c, 0));
  return c.ok();
}

// SoftmaxCrossEntropyLoss: log_softmax over the class axis (1), then nll_loss.
bool softmax_cross_entropy(Context& c) {
  std::string scores = c.tensor(0), labels = c.tensor(1);
  if (!c.ok()) return false;
  const std::string& dt = dtype_of(c, 0);
  std::string log_prob = c.rank(0) == 1 ? c.temp("R.nn.log_softmax(" + scores + ", axis=0)")
                                        : c.temp("R.nn.log_softmax(" + scores + ", axis=1)");
  std::string call = "R.nn.nll_loss(" + log_prob + ", " + labels;
  if (c.has_input(2)) call += ", " + c.tensor(2);
  call += ", reduction=\"" + c.attr_string("reduction", "mean") + "\"";
  if (const auto* a = c.attr("ignore_index")) call += ", ignore_index=" + std::to_string(a->i());
  c.emit(0, call + ")", dt);
  if (c.output_used(1)) {
    Value v;
    v.expr = log_prob;
    v.dtype = dt;
    c.alias(1, v);
  }
  return c.ok();
}

// GridSample (opset 16; opset 20's names linear / cubic too) of a 4-D input:
// R.image.grid_sample, whose grid is laid out (N, 2, Ho, Wo) like TVM's, hence the transpose of
// ONNX's (N, Ho, Wo, 2).
bool grid_sample(Context& c) {
  std::string x = c.tensor(0), grid = c.tensor(1);
  if (!c.ok() || !float_only(c)) return false;
  if (c.rank(0) != 4 || c.rank(1) != 4) return c.refuse("an input or grid that is not 4-D");
  std::string mode = c.attr_string("mode", "bilinear");
  std::string method = mode == "linear" ? "bilinear" : mode == "cubic" ? "bicubic" : mode;
  if (method != "bilinear" && method != "nearest" && method != "bicubic")
    return c.refuse("mode='" + mode + "'");
  std::string padding = c.attr_string("padding_mode", "zeros");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return c.refuse("padding_mode='" + padding + "'");
  std::string g = c.temp("R.permute_dims(" + grid + ", axes=[0, 3, 1, 2])");
  if (dtype_of(c, 1) != dtype_of(c, 0))
    g = c.temp("R.astype(" + g + ", \"" + dtype_of(c, 0) + "\")");
  c.emit(0,
         "R.image.grid_sample(" + x + ", " + g + ", method=\"" + method + "\", padding_mode=\"" +
             padding + "\", align_corners=" + (c.attr_int("align_corners", 0) ? "True" : "False") +
             ")",
         dtype_of(c, 0));
  return true;
}

// Det of (..., n, n), n at most 5: the Leibniz sum over the n! permutations, as one R.take of
// the flattened matrices at every permutation's positions (..., n!, n), R.prod along the last
// axis and a signed R.sum; larger matrices would need a factorisation and are refused.
bool det(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok() || !float_only(c)) return false;
  auto shape = c.static_shape(0);
  if (!shape || shape->size() < 2) return c.refuse("an input whose shape is not static");
  int64_t n = shape->back();
  if (n != (*shape)[shape->size() - 2] || n < 1) return c.refuse("matrices that are not square");
  if (n > 5) return c.refuse("matrices larger than 5 x 5");
  Ints perm(static_cast<size_t>(n)), positions;
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<double> signs;
  do {
    int inversions = 0;
    for (size_t i = 0; i < perm.size(); ++i)
      for (size_t j = i + 1; j < perm.size(); ++j) inversions += perm[i] > perm[j];
    signs.push_back(inversions % 2 ? -1.0 : 1.0);
    for (int64_t i = 0; i < n; ++i) positions.push_back(i * n + perm[size_t(i)]);
  } while (std::next_permutation(perm.begin(), perm.end()));
  const std::string& dt = dtype_of(c, 0);
  int64_t count = static_cast<int64_t>(signs.size());
  Ints flat(shape->begin(), shape->end() - 2);
  Ints outer = flat;
  flat.push_back(n * n);
  Value pv, sv;
  pv.constant = make_int_tensor("int64", {count, n}, positions);
  sv.constant = make_tensor(dt, {count}, signs);
  std::string pos = c.tensor_of(pv, c.node().output(0) + "_positions");
  std::string sign = c.tensor_of(sv, c.node().output(0) + "_signs");
  std::string m = c.temp("R.reshape(" + x + ", " + shape_literal(flat) + ")");
  std::string terms = c.temp("R.take(" + m + ", " + pos + ", axis=-1)");
  std::string prods = c.temp("R.prod(" + terms + ", axis=[-1])");
  std::string signed_terms = c.temp("R.multiply(" + prods + ", " + sign + ")");
  c.emit(0, "R.sum(" + signed_terms + ", axis=[-1])", dt, static_dims(outer));
  return true;
}

// Compress: the entries of `axis` (or of the flattened input) where the condition is true, as
// R.take of their indices; a condition known at import time gives constant indices, else they
// come from R.nonzero at run time. A condition shorter than the axis selects from its prefix.
bool compress(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const auto* axis_attr = c.attr("axis");
  int64_t axis = 0;
  if (axis_attr) {
    int64_t rank = c.rank(0);
    if (rank < 0) return c.refuse("an axis on an input of unknown rank");
    axis = norm_axis(axis_attr->i(), rank);
  } else {
    x = c.temp("R.reshape(" + x + ", R.shape([-1]))");
  }
  std::string indices;
  const Tensor* cond = c.constant(1);
  if (cond && !c.in(1)->runtime) {
    Ints picked;
    for (int64_t i = 0; i < cond->numel(); ++i)
      if (cond->integer(i) != 0) picked.push_back(i);
    Value v;
    v.constant = make_int_tensor("int64", {static_cast<int64_t>(picked.size())}, picked);
    indices = c.tensor_of(v, c.node().input(1) + "_indices");
  } else {
    std::string cd = c.tensor(1);
    if (!c.ok()) return false;
    if (dtype_of(c, 1) != "bool") cd = c.temp("R.astype(" + cd + ", \"bool\")");
    // R.nonzero's count is data-dependent: a match_cast names it so the indices have a shape.
    std::string nz = c.temp("R.nonzero(" + cd + ")");
    std::string k = c.symbolic("selected");
    std::string nzk = c.temp("R.match_cast(" + nz + ", R.Tensor((1, " + k + "), dtype=\"int64\"))");
    indices = c.temp("R.reshape(" + nzk + ", R.shape([" + k + "]))");
  }
  c.emit(0, "R.take(" + x + ", " + indices + ", axis=" + std::to_string(axis) + ")",
         dtype_of(c, 0));
  return true;
}

// BlackmanWindow: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N), N the size (periodic, the
// default) or the size less one; the size must be known, so the window is a constant.
bool blackman_window(Context& c) {
  auto size = c.const_ints(0);
  if (!size || size->size() != 1 || (*size)[0] < 1)
    return c.refuse("a size that is not a constant");
  auto to = relax_dtype(static_cast<int>(c.attr_int("output_datatype", 1)));
  if (!to || !is_float_dtype(*to))
    return c.refuse_type(c.node().output(0),
                         onnx_type_name(static_cast<int>(c.attr_int("output_datatype", 1))));
  int64_t n = (*size)[0];
  if (n > kMaxTableElements) return c.refuse("a window this long");
  double N = c.attr_int("periodic", 1) != 0 ? double(n) : double(n - 1);
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    double a = N > 0 ? 2 * std::numbers::pi * double(i) / N : 0;
    v.push_back(0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a));
  }
  c.define_constant(0, make_tensor(*to, {n}, v));
  return true;
}

// ------------------------------------------------------------------ integer arithmetic

// Input i as int32 less its zero point (input zp, absent: 0). A per-row zero point of MatMul's A
// (shape (M,)) is laid out as (M, 1); a per-channel one of a convolution weight as (M, 1, ...).
std::string minus_zero_point(Context& c, int i, int zp, int64_t zp_axis_rank) {
  std::string v = c.temp("R.astype(" + c.tensor(i) + ", \"int32\")");
  if (!c.has_input(zp) || !c.ok()) return v;
  std::string z = c.temp("R.astype(" + c.tensor(zp) + ", \"int32\")");
  auto zs = c.static_shape(zp);
  if (zp_axis_rank > 0 && zs && zs->size() == 1 && (*zs)[0] > 1) {
    Ints axes;
    for (int64_t k = 1; k <= zp_axis_rank; ++k) axes.push_back(k);
    z = c.temp("R.expand_dims(" + z + ", axis=" + int_list(axes) + ")");
  }
  return c.temp("R.subtract(" + v + ", " + z + ")");
}

bool integer_operands(Context& c, std::initializer_list<int> ins) {
  for (int i : ins) {
    const std::string& d = dtype_of(c, i);
    if (c.has_input(i) && d != "int8" && d != "uint8") return c.refuse_type(c.node().input(i), d);
  }
  return c.ok();
}

// The int32 accumulation of a (quantized) matmul: exact, (a - a_zp) @ (b - b_zp).
std::string integer_matmul(Context& c, int a, int a_zp, int b, int b_zp) {
  std::string av = minus_zero_point(c, a, a_zp, 1);
  std::string bv = minus_zero_point(c, b, b_zp, 0);
  return c.ok() ? "R.matmul(" + av + ", " + bv + ")" : "";
}

// The int32 accumulation of a (quantized) convolution: the shifted input is padded with zeros,
// which is the zero point in the quantized domain (ONNX's ConvInteger and QLinearConv).
std::string integer_conv(Context& c, int x, int x_zp, int w, int w_zp) {
  int64_t wrank = c.rank(w);
  if (wrank < 3 || wrank > 5) {
    c.refuse("a weight of rank " + std::to_string(wrank) + " (1-D to 3-D convolutions only)");
    return "";
  }
  size_t n = static_cast<size_t>(wrank - 2);
  Ints kernel = c.attr_ints("kernel_shape").value_or(Ints{});
  if (kernel.empty()) {
    auto ws = c.static_shape(w);
    if (!ws) {
      c.refuse("no kernel_shape and a weight whose shape is not static");
      return "";
    }
    kernel.assign(ws->begin() + 2, ws->end());
  }
  Ints strides = c.attr_ints("strides").value_or(Ints(n, 1));
  Ints dil = c.attr_ints("dilations").value_or(Ints(n, 1));
  auto pads = conv_pads(c, kernel, strides, dil);
  if (!pads) return "";
  std::string xv = minus_zero_point(c, x, x_zp, 0);
  std::string wv = minus_zero_point(c, w, w_zp, wrank - 1);
  if (!c.ok()) return "";
  return "R.nn.conv" + std::to_string(n) + "d(" + xv + ", " + wv +
         ", strides=" + int_list(strides) + ", padding=" + int_list(*pads) +
         ", dilation=" + int_list(dil) + ", groups=" + std::to_string(c.attr_int("group", 1)) +
         ", out_dtype=\"int32\")";
}

bool matmul_integer(Context& c) {
  if (!integer_operands(c, {0, 1, 2, 3})) return false;
  std::string acc = integer_matmul(c, 0, 2, 1, 3);
  if (!c.ok()) return false;
  c.emit(0, acc, "int32");
  return true;
}

bool conv_integer(Context& c) {
  if (!integer_operands(c, {0, 1, 2, 3})) return false;
  std::string acc = integer_conv(c, 0, 2, 1, 3);
  if (!c.ok()) return false;
  c.emit(0, acc, "int32");
  return true;
}

// QLinearMatMul / QLinearConv: the exact int32 accumulation (plus QLinearConv's int32 bias),
// scaled by a_scale * b_scale in float32, then R.quantize by y_scale and y_zero_point (round
// half to even, saturating), ONNX's y = saturate(round(x / y_scale) + y_zero_point). A
// per-channel weight scale of a convolution is laid out along the output channels.
bool qlinear(Context& c, bool conv) {
  if (!integer_operands(c, {0, 2, 3, 5, 7})) return false;
  std::string acc = conv ? integer_conv(c, 0, 2, 3, 5) : integer_matmul(c, 0, 2, 3, 5);
  if (!c.ok()) return false;
  acc = c.temp(acc);
  int64_t out_rank = conv ? c.rank(0) : -1;
  Ints spatial;  // the axes after the channel axis, for per-channel operands
  for (int64_t k = 1; k + 1 < out_rank; ++k) spatial.push_back(k);
  if (conv && c.has_input(8))
    acc = c.temp("R.add(" + acc + ", R.expand_dims(" + c.tensor(8) + ", axis=" + int_list(spatial) +
                 "))");
  std::string ws = c.tensor(4);
  auto wss = c.static_shape(4);
  if (conv && out_rank > 2 && wss && wss->size() == 1 && (*wss)[0] > 1)
    ws = c.temp("R.expand_dims(" + ws + ", axis=" + int_list(spatial) + ")");
  std::string scale = c.temp("R.multiply(" + c.tensor(1) + ", " + ws + ")");
  std::string real = c.temp("R.multiply(R.astype(" + acc + ", \"float32\"), " + scale + ")");
  std::string ys = c.temp("R.reshape(" + c.tensor(6) + ", R.shape([]))");
  const std::string& qdt = dtype_of(c, 7);
  std::string yz = c.temp("R.reshape(" + c.tensor(7) + ", R.shape([]))");
  if (!c.ok()) return false;
  c.emit(0, "R.quantize(" + real + ", " + ys + ", " + yz + ", axis=-1, out_dtype=\"" + qdt + "\")",
         qdt);
  return true;
}

const std::map<std::string, Converter>& table() {
  static const std::map<std::string, Converter> kTable = {
      {"Add", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.add"); }},
      {"Sub", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.subtract"); }},
      {"Mul", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.multiply"); }},
      {"Div", [](Context& c, const onnx::NodeProto&) { return div(c); }},
      {"Mod", [](Context& c, const onnx::NodeProto&) { return mod(c); }},
      {"Pow", [](Context& c, const onnx::NodeProto&) { return pow_op(c); }},
      {"Max", [](Context& c, const onnx::NodeProto&) { return chain(c, "R.maximum"); }},
      {"Min", [](Context& c, const onnx::NodeProto&) { return chain(c, "R.minimum"); }},
      {"Sum", [](Context& c, const onnx::NodeProto&) { return chain(c, "R.add"); }},
      {"Mean", [](Context& c, const onnx::NodeProto&) { return mean_of(c); }},
      {"Equal", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.equal"); }},
      {"Less", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.less"); }},
      {"LessOrEqual",
       [](Context& c, const onnx::NodeProto&) { return compare(c, "R.less_equal"); }},
      {"Greater", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.greater"); }},
      {"GreaterOrEqual",
       [](Context& c, const onnx::NodeProto&) { return compare(c, "R.greater_equal"); }},
      {"And", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.logical_and"); }},
      {"Or", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.logical_or"); }},
      {"Xor", [](Context& c, const onnx::NodeProto&) { return compare(c, "R.logical_xor"); }},
      {"Not", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.logical_not"); }},
      {"BitwiseAnd", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.bitwise_and"); }},
      {"BitwiseOr", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.bitwise_or"); }},
      {"BitwiseXor", [](Context& c, const onnx::NodeProto&) { return binary(c, "R.bitwise_xor"); }},
      {"BitwiseNot", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.bitwise_not"); }},
      {"BitShift",
       [](Context& c, const onnx::NodeProto&) {
         return binary(
             c, c.attr_string("direction", "LEFT") == "LEFT" ? "R.left_shift" : "R.right_shift");
       }},
      {"Abs", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.abs"); }},
      {"Neg", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.negative"); }},
      {"Exp", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.exp"); }},
      {"Log", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.log"); }},
      {"Sqrt", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.sqrt"); }},
      {"Floor", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.floor"); }},
      {"Ceil", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.ceil"); }},
      {"Round", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.round"); }},
      {"Sign", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.sign"); }},
      {"Sin", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.sin"); }},
      {"Cos", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.cos"); }},
      {"Tan", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.tan"); }},
      {"Asin", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.asin"); }},
      {"Acos", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.acos"); }},
      {"Atan", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.atan"); }},
      {"Sinh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.sinh"); }},
      {"Cosh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.cosh"); }},
      {"Asinh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.asinh"); }},
      {"Acosh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.acosh"); }},
      {"Atanh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.atanh"); }},
      {"Erf", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.erf"); }},
      {"Gelu", [](Context& c, const onnx::NodeProto&) { return gelu(c); }},
      {"IsNaN", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.isnan"); }},
      {"IsInf", [](Context& c, const onnx::NodeProto&) { return isinf(c); }},
      {"Reciprocal", [](Context& c, const onnx::NodeProto&) { return reciprocal(c); }},
      {"Relu", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.nn.relu"); }},
      {"Sigmoid", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.sigmoid"); }},
      {"Tanh", [](Context& c, const onnx::NodeProto&) { return unary(c, "R.tanh"); }},
      {"LeakyRelu", [](Context& c, const onnx::NodeProto&) { return activation(c, "LeakyRelu"); }},
      {"Elu", [](Context& c, const onnx::NodeProto&) { return activation(c, "Elu"); }},
      {"Selu", [](Context& c, const onnx::NodeProto&) { return activation(c, "Selu"); }},
      {"Celu", [](Context& c, const onnx::NodeProto&) { return activation(c, "Celu"); }},
      {"ThresholdedRelu",
       [](Context& c, const onnx::NodeProto&) { return activation(c, "ThresholdedRelu"); }},
      {"HardSigmoid",
       [](Context& c, const onnx::NodeProto&) { return activation(c, "HardSigmoid"); }},
      {"HardSwish", [](Context& c, const onnx::NodeProto&) { return activation(c, "HardSwish"); }},
      {"Softplus", [](Context& c, const onnx::NodeProto&) { return activation(c, "Softplus"); }},
      {"Softsign", [](Context& c, const onnx::NodeProto&) { return activation(c, "Softsign"); }},
      {"Mish", [](Context& c, const onnx::NodeProto&) { return activation(c, "Mish"); }},
      {"Shrink", [](Context& c, const onnx::NodeProto&) { return activation(c, "Shrink"); }},
      {"PRelu", [](Context& c, const onnx::NodeProto&) { return prelu(c); }},
      {"Softmax", [](Context& c, const onnx::NodeProto&) { return softmax(c, "R.nn.softmax"); }},
      {"LogSoftmax",
       [](Context& c, const onnx::NodeProto&) { return softmax(c, "R.nn.log_softmax"); }},
      {"MatMul", [](Context& c, const onnx::NodeProto&) { return matmul(c); }},
      {"Gemm", [](Context& c, const onnx::NodeProto&) { return gemm(c); }},
      {"Conv", [](Context& c, const onnx::NodeProto&) { return conv(c); }},
      {"ConvTranspose", [](Context& c, const onnx::NodeProto&) { return conv_transpose(c); }},
      {"MaxPool", [](Context& c, const onnx::NodeProto&) { return pool(c, "max"); }},
      {"AveragePool", [](Context& c, const onnx::NodeProto&) { return pool(c, "avg"); }},
      {"GlobalAveragePool",
       [](Context& c, const onnx::NodeProto&) { return global_pool(c, "R.mean"); }},
      {"GlobalMaxPool", [](Context& c, const onnx::NodeProto&) { return global_pool(c, "R.max"); }},
      {"BatchNormalization", [](Context& c, const onnx::NodeProto&) { return batch_norm(c); }},
      {"LayerNormalization", [](Context& c, const onnx::NodeProto&) { return layer_norm(c); }},
      {"InstanceNormalization",
       [](Context& c, const onnx::NodeProto&) { return instance_norm(c); }},
      {"Reshape", [](Context& c, const onnx::NodeProto&) { return reshape(c); }},
      {"Flatten", [](Context& c, const onnx::NodeProto&) { return flatten(c); }},
      {"Transpose", [](Context& c, const onnx::NodeProto&) { return transpose(c); }},
      {"Concat", [](Context& c, const onnx::NodeProto&) { return concat(c); }},
      {"Split", [](Context& c, const onnx::NodeProto&) { return split(c); }},
      {"Slice", [](Context& c, const onnx::NodeProto&) { return slice(c); }},
      {"Gather", [](Context& c, const onnx::NodeProto&) { return gather(c); }},
      {"GatherElements", [](Context& c, const onnx::NodeProto&) { return gather_elements(c); }},
      {"GatherND", [](Context& c, const onnx::NodeProto&) { return gather_nd(c); }},
      {"Squeeze", [](Context& c, const onnx::NodeProto&) { return squeeze(c); }},
      {"Unsqueeze", [](Context& c, const onnx::NodeProto&) { return unsqueeze(c); }},
      {"Expand", [](Context& c, const onnx::NodeProto&) { return expand(c); }},
      {"Tile", [](Context& c, const onnx::NodeProto&) { return tile(c); }},
      {"Shape", [](Context& c, const onnx::NodeProto&) { return shape_op(c); }},
      {"Size", [](Context& c, const onnx::NodeProto&) { return size_op(c); }},
      {"Cast", [](Context& c, const onnx::NodeProto&) { return cast(c); }},
      {"CastLike", [](Context& c, const onnx::NodeProto&) { return cast_like(c); }},
      {"Constant", [](Context& c, const onnx::NodeProto&) { return constant(c); }},
      {"ConstantOfShape", [](Context& c, const onnx::NodeProto&) { return constant_of_shape(c); }},
      {"Identity", [](Context& c, const onnx::NodeProto&) { return identity(c); }},
      {"Dropout", [](Context& c, const onnx::NodeProto&) { return dropout(c); }},
      {"ReduceSum", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceSum"); }},
      {"ReduceMean", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceMean"); }},
      {"ReduceMax", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceMax"); }},
      {"ReduceMin", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceMin"); }},
      {"ReduceProd", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceProd"); }},
      {"ReduceL1", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceL1"); }},
      {"ReduceL2", [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceL2"); }},
      {"ReduceLogSum",
       [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceLogSum"); }},
      {"ReduceLogSumExp",
       [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceLogSumExp"); }},
      {"ReduceSumSquare",
       [](Context& c, const onnx::NodeProto&) { return reduce(c, "ReduceSumSquare"); }},
      {"ArgMax", [](Context& c, const onnx::NodeProto&) { return arg_reduce(c, "R.argmax"); }},
      {"ArgMin", [](Context& c, const onnx::NodeProto&) { return arg_reduce(c, "R.argmin"); }},
      {"Where", [](Context& c, const onnx::NodeProto&) { return where(c); }},
      {"Pad", [](Context& c, const onnx::NodeProto&) { return pad(c); }},
      {"Clip", [](Context& c, const onnx::NodeProto&) { return clip(c); }},
      {"TopK", [](Context& c, const onnx::NodeProto&) { return topk(c); }},
      {"Trilu", [](Context& c, const onnx::NodeProto&) { return trilu(c); }},
      {"Range", [](Context& c, const onnx::NodeProto&) { return range(c); }},
      {"Hardmax", [](Context& c, const onnx::NodeProto&) { return hardmax(c); }},
      {"DepthToSpace", [](Context& c, const onnx::NodeProto&) { return depth_space(c, true); }},
      {"SpaceToDepth", [](Context& c, const onnx::NodeProto&) { return depth_space(c, false); }},
      {"ScatterND", [](Context& c, const onnx::NodeProto&) { return scatter_nd(c); }},
      {"EyeLike", [](Context& c, const onnx::NodeProto&) { return eye_like(c); }},
      {"HammingWindow",
       [](Context& c, const onnx::NodeProto&) { return window(c, 25.0 / 46, 21.0 / 46); }},
      {"HannWindow", [](Context& c, const onnx::NodeProto&) { return window(c, 0.5, 0.5); }},
      {"ReverseSequence", [](Context& c, const onnx::NodeProto&) { return reverse_sequence(c); }},
      {"NonZero", [](Context& c, const onnx::NodeProto&) { return nonzero(c); }},
      {"Unique", [](Context& c, const onnx::NodeProto&) { return unique(c); }},
      {"NonMaxSuppression",
       [](Context& c, const onnx::NodeProto&) { return non_max_suppression(c); }},
      {"QuantizeLinear",
       [](Context& c, const onnx::NodeProto&) { return quantize_linear(c, true); }},
      {"DequantizeLinear",
       [](Context& c, const onnx::NodeProto&) { return quantize_linear(c, false); }},
      {"RoiAlign", [](Context& c, const onnx::NodeProto&) { return roi_align(c); }},
      {"LRN", [](Context& c, const onnx::NodeProto&) { return lrn(c); }},
      {"DynamicQuantizeLinear",
       [](Context& c, const onnx::NodeProto&) { return dynamic_quantize_linear(c); }},
      {"MeanVarianceNormalization",
       [](Context& c, const onnx::NodeProto&) { return mean_variance_normalization(c); }},
      {"CumSum", [](Context& c, const onnx::NodeProto&) { return cumsum(c); }},
      {"OneHot", [](Context& c, const onnx::NodeProto&) { return one_hot(c); }},
      {"ScatterElements", [](Context& c, const onnx::NodeProto&) { return scatter_elements(c); }},
      {"Scatter", [](Context& c, const onnx::NodeProto&) { return scatter_elements(c); }},
      {"Einsum", [](Context& c, const onnx::NodeProto&) { return einsum(c); }},
      {"Resize", [](Context& c, const onnx::NodeProto&) { return resize(c, false); }},
      {"Upsample", [](Context& c, const onnx::NodeProto&) { return resize(c, true); }},
      {"NegativeLogLikelihoodLoss", [](Context& c, const onnx::NodeProto&) { return nll_loss(c); }},
      {"RNN", [](Context& c, const onnx::NodeProto&) { return convert_rnn(c); }},
      {"If", [](Context& c, const onnx::NodeProto&) { return convert_if(c); }},
      {"Loop", [](Context& c, const onnx::NodeProto&) { return convert_loop(c); }},
      {"TfIdfVectorizer", [](Context& c, const onnx::NodeProto&) { return convert_tfidf(c); }},
      {"Scan", [](Context& c, const onnx::NodeProto&) { return convert_scan(c); }},
      {"DFT", [](Context& c, const onnx::NodeProto&) { return convert_dft(c); }},
      {"STFT", [](Context& c, const onnx::NodeProto&) { return convert_stft(c); }},
      {"MelWeightMatrix",
       [](Context& c, const onnx::NodeProto&) { return convert_mel_weight_matrix(c); }},
      {"Compress", [](Context& c, const onnx::NodeProto&) { return compress(c); }},
      {"Det", [](Context& c, const onnx::NodeProto&) { return det(c); }},
      {"MaxUnpool", [](Context& c, const onnx::NodeProto&) { return max_unpool(c); }},
      {"GridSample", [](Context& c, const onnx::NodeProto&) { return grid_sample(c); }},
      {"BlackmanWindow", [](Context& c, const onnx::NodeProto&) { return blackman_window(c); }},
      {"MatMulInteger", [](Context& c, const onnx::NodeProto&) { return matmul_integer(c); }},
      {"ConvInteger", [](Context& c, const onnx::NodeProto&) { return conv_integer(c); }},
      {"QLinearMatMul", [](Context& c, const onnx::NodeProto&) { return qlinear(c, false); }},
      {"QLinearConv", [](Context& c, const onnx::NodeProto&) { return qlinear(c, true); }},
      {"GRU", [](Context& c, const onnx::NodeProto&) { return convert_gru(c); }},
      {"LSTM", [](Context& c, const onnx::NodeProto&) { return convert_lstm(c); }},
      {"SoftmaxCrossEntropyLoss",
       [](Context& c, const onnx::NodeProto&) { return softmax_cross_entropy(c); }},
  };
  return kTable;
}

}  // namespace

Converter find_converter(const std::string& op_type) {
  for (const auto* t : {&table(), &sequence_table()})
    if (auto it = t->find(op_type); it != t->end()) return it->second;
  return nullptr;
}

std::vector<std::string> supported_operators() {
  std::vector<std::string> out;
  for (const auto* t : {&table(), &sequence_table()})
    for (const auto& [name, f] : *t) out.push_back(name);
  return out;
}

}  // namespace raxc::importer
