// Resize as interpolation matrices, for the forms R.image.resize2d / resize3d cannot express:
// a scale whose output size floor(in * scale) is not exact (ONNX maps coordinates through the
// given scale, Relax through out / in), tf_crop_and_resize (the roi, extrapolation_value), and
// resizes of the batch or channel axes. Every ONNX mode is separable, so each resized axis is one
// constant (out, in) matrix built here with the formulas of ONNX's own reference
// (onnx/backend/test/case/node/resize.py: the coordinate transform, the neighbours clamped to the
// edge, the nearest / linear / cubic coefficients, exclude_outside) and applied with R.matmul;
// the positions tf_crop_and_resize maps outside the input take extrapolation_value.
#include <cmath>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

struct AxisResize {
  int64_t in = 0, out = 0;
  double scale = 1;  // the given scale (out / in when sizes were given)
  double roi_start = 0, roi_end = 1;
};

struct Modes {
  std::string ctm, mode, nearest;
  double cubic_a = -0.75;
  bool exclude = false;
};

// The source coordinate of output position x, or nullopt when tf_crop_and_resize maps it
// outside the input. The reference's output width is in * scale, unrounded.
std::optional<double> source(const Modes& m, const AxisResize& a, double x) {
  double in = double(a.in), width = double(a.in) * a.scale;
  if (m.ctm == "align_corners") return width == 1 ? 0.0 : x * (in - 1) / (width - 1);
  if (m.ctm == "asymmetric") return x / a.scale;
  if (m.ctm == "pytorch_half_pixel") return width == 1 ? -0.5 : (x + 0.5) / a.scale - 0.5;
  if (m.ctm == "tf_half_pixel_for_nn") return (x + 0.5) / a.scale;
  if (m.ctm == "tf_crop_and_resize") {
    double span = a.roi_end - a.roi_start;
    double s = width == 1 ? span * (in - 1) / 2 : x * span * (in - 1) / (width - 1);
    s += a.roi_start * (in - 1);
    if (s < 0 || s > in - 1) return std::nullopt;
    return s;
  }
  return (x + 0.5) / a.scale - 0.5;  // half_pixel
}

std::vector<double> coefficients(const Modes& m, double ratio) {
  if (m.mode == "linear") return {1 - ratio, ratio};
  if (m.mode == "cubic") {
    double A = m.cubic_a, r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
            ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
            ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
  }
  if (ratio == 1) return {0, 1};
  bool upper = m.nearest == "round_prefer_ceil" ? ratio >= 0.5
               : m.nearest == "floor"           ? false
               : m.nearest == "ceil"            ? true
                                                : ratio > 0.5;
  return {upper ? 0.0 : 1.0, upper ? 1.0 : 0.0};
}

// The (out, in) matrix of one axis, row-major, and which rows lie inside the input.
std::vector<double> axis_matrix(const Modes& m, const AxisResize& a, std::vector<bool>& inside) {
  std::vector<double> M(size_t(a.out * a.in), 0.0);
  inside.assign(size_t(a.out), true);
  for (int64_t x = 0; x < a.out; ++x) {
    auto s = source(m, a, double(x));
    if (!s) {
      inside[size_t(x)] = false;
      continue;
    }
    // The reference's neighbours: an integral coordinate counts as ratio 1 past the one below.
    double fl = std::floor(*s);
    bool integral = fl == *s;
    int64_t base = integral ? int64_t(fl) - 1 : int64_t(fl);
    std::vector<double> w = coefficients(m, integral ? 1.0 : *s - fl);
    int64_t n = int64_t(w.size()), first = base - n / 2 + 1;
    if (m.exclude) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        int64_t i = first + k;
        if (i < 0 || i >= a.in) w[size_t(k)] = 0;
        sum += w[size_t(k)];
      }
      for (double& v : w) v = sum != 0 ? v / sum : v;
    }
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = std::clamp<int64_t>(first + k, 0, a.in - 1);
      M[size_t(x * a.in + i)] += w[size_t(k)];
    }
  }
  return M;
}

bool identity(const std::vector<double>& M, int64_t n) {
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = 0; k < n; ++k)
      if (M[size_t(r * n + k)] != (r == k ? 1.0 : 0.0)) return false;
  return true;
}

// x with its axis `axis` (of `rank`) multiplied by the matrix: out[..., o, ...] = sum_i M[o, i]
// x[..., i, ...]. The last axis is x @ M^T, the one before M @ x; others are swapped to the end.
std::string apply(Context& c, const std::string& x, int64_t axis, int64_t rank,
                  const std::string& M) {
  if (axis == rank - 2) return c.temp("R.matmul(" + M + ", " + x + ")");
  std::string mt = c.temp("R.permute_dims(" + M + ", axes=[1, 0])");
  if (axis == rank - 1) return c.temp("R.matmul(" + x + ", " + mt + ")");
  Ints perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[size_t(axis)], perm.back());
  std::string moved = c.temp("R.permute_dims(" + x + ", axes=" + int_list(perm) + ")");
  std::string y = c.temp("R.matmul(" + moved + ", " + mt + ")");
  return c.temp("R.permute_dims(" + y + ", axes=" + int_list(perm) + ")");
}

std::string constant_tensor(Context& c, const std::string& dtype, Ints dims,
                            const std::vector<double>& v, const std::string& tag) {
  Value t;
  t.constant = make_tensor(dtype, std::move(dims), v);
  return c.tensor_of(t, c.node().output(0) + "_" + tag);
}

}  // namespace

bool resize_by_matrices(Context& c, const std::vector<int64_t>& out,
                        const std::vector<double>& scales, const std::vector<double>& roi,
                        const std::string& ctm) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  auto shape = c.static_shape(0);
  const std::string& dt = c.in(0)->dtype;
  if (!shape) return c.refuse("an input whose shape is not static");
  if (dt.rfind("float", 0) != 0) return c.refuse_type(c.node().input(0), dt);
  Modes m;
  m.ctm = ctm;
  m.mode = c.attr_string("mode", "nearest");
  m.nearest = c.attr_string("nearest_mode", "round_prefer_floor");
  m.cubic_a = c.attr_float("cubic_coeff_a", -0.75);
  m.exclude = c.attr_int("exclude_outside", 0) != 0;
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return c.refuse("mode='" + m.mode + "'");
  int64_t rank = int64_t(shape->size());
  std::string y = x, mask;
  for (int64_t d = 0; d < rank; ++d) {
    AxisResize a{(*shape)[size_t(d)], out[size_t(d)], scales[size_t(d)], 0, 1};
    if (roi.size() == size_t(2 * rank)) {
      a.roi_start = roi[size_t(d)];
      a.roi_end = roi[size_t(d + rank)];
    }
    if (a.out < 1 || a.in < 1) return c.refuse("an empty input or output axis");
    if (a.out > kMaxTableElements / a.in) return c.refuse("an axis too large for its matrix");
    std::vector<bool> inside;
    std::vector<double> M = axis_matrix(m, a, inside);
    bool all_inside = std::find(inside.begin(), inside.end(), false) == inside.end();
    if (a.in == a.out && all_inside && identity(M, a.in)) continue;
    y = apply(c, y, d, rank, constant_tensor(c, dt, {a.out, a.in}, M, "m" + std::to_string(d)));
    if (all_inside) continue;
    Ints dims(size_t(rank), 1);
    dims[size_t(d)] = a.out;
    std::vector<double> v(inside.begin(), inside.end());
    std::string axis_mask = constant_tensor(c, dt, dims, v, "inside" + std::to_string(d));
    mask = mask.empty() ? axis_mask : c.temp("R.multiply(" + mask + ", " + axis_mask + ")");
  }
  std::vector<Dim> dims;
  for (int64_t v : out) dims.push_back(Dim{v, ""});
  if (mask.empty()) {
    if (y == x) y = c.temp("R.add(" + x + ", " + Context::scalar(0, dt) + ")");
    c.emit(0, "R.reshape(" + y + ", R.shape(" + int_list(out) + "))", dt, dims);
    return true;
  }
  std::string keep = c.temp("R.greater(" + mask + ", " + Context::scalar(0, dt) + ")");
  c.emit(0,
         "R.where(" + keep + ", " + y + ", " +
             Context::scalar(c.attr_float("extrapolation_value", 0.0), dt) + ")",
         dt, dims);
  return true;
}

}  // namespace raxc::importer
