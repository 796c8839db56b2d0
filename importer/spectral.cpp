// DFT and STFT (opset 17) as matrix products: the transform of length N along an axis is the
// signal's real and imaginary parts times constant cosine and sine matrices (N, K), K = N, or
// N / 2 + 1 one-sided: Re = re C + im S, Im = im C - re S (the inverse: e^{+i theta} and 1 / N).
// O(N^2) per transform, exact in float64, in which the products are computed before the cast
// back. STFT takes its frames with one R.take of a constant (frames, length) index table and
// multiplies them by the window first. MelWeightMatrix, the filter bank applied to their
// magnitudes, is a constant.
#include <cmath>
#include <numbers>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

// The real and imaginary parts of a (..., 1 | 2) tensor in float64, the last axis dropped; the
// imaginary part is empty for a real signal.
bool parts(Context& c, const std::string& x, int64_t rank, int64_t last, std::string& re,
           std::string& im) {
  std::string wide = c.temp("R.astype(" + x + ", \"float64\")");
  std::string drop = ", axis=[" + std::to_string(rank - 1) + "])";
  if (last == 1) {
    re = c.temp("R.squeeze(" + wide + drop);
    im.clear();
    return true;
  }
  if (last != 2) return c.refuse("a last axis of " + std::to_string(last) + " (1 or 2 expected)");
  std::string halves =
      c.temp("R.split(" + wide + ", indices_or_sections=2, axis=" + std::to_string(rank - 1) + ")");
  re = c.temp("R.squeeze(" + halves + "[0]" + drop);
  im = c.temp("R.squeeze(" + halves + "[1]" + drop);
  return true;
}

std::string matrix(Context& c, int64_t n, int64_t k, bool sine, const std::string& tag) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      // The angle modulo n in integers keeps it small, so cos and sin stay exact at the
      // multiples of pi / 2.
      double theta = 2 * std::numbers::pi * double((i * j) % n) / double(n);
      v.push_back(sine ? std::sin(theta) : std::cos(theta));
    }
  Value t;
  t.constant = make_tensor("float64", {n, k}, v);
  return c.tensor_of(t, c.node().output(0) + "_" + tag);
}

// The transform of re (+ i im) along the last axis: (..., n) -> (..., k, 2) in float64.
std::string transform(Context& c, const std::string& re, const std::string& im, int64_t n,
                      int64_t k, bool inverse) {
  std::string C = matrix(c, n, k, false, "cos"), S = matrix(c, n, k, true, "sin");
  auto mm = [&](const std::string& a, const std::string& m) {
    return c.temp("R.matmul(" + a + ", " + m + ")");
  };
  std::string rc = mm(re, C), rs = mm(re, S);
  std::string out_re, out_im;
  if (im.empty()) {
    out_re = rc;
    out_im = inverse ? rs : c.temp("R.negative(" + rs + ")");
  } else {
    std::string ic = mm(im, C), is = mm(im, S);
    out_re =
        c.temp(inverse ? "R.subtract(" + rc + ", " + is + ")" : "R.add(" + rc + ", " + is + ")");
    out_im =
        c.temp(inverse ? "R.add(" + rs + ", " + ic + ")" : "R.subtract(" + ic + ", " + rs + ")");
  }
  if (inverse) {
    std::string scale = Context::scalar(1.0 / double(n), "float64");
    out_re = c.temp("R.multiply(" + out_re + ", " + scale + ")");
    out_im = c.temp("R.multiply(" + out_im + ", " + scale + ")");
  }
  return c.temp("R.stack((" + out_re + ", " + out_im + "), axis=-1)");
}

// DFT(input (..., N, ..., 1 | 2), dft_length?) along `axis`.
bool dft(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const std::string dt = c.in(0)->dtype;
  if (dt.rfind("float", 0) != 0) return c.refuse_type(c.node().input(0), dt);
  auto shape = c.static_shape(0);
  if (!shape || shape->size() < 2) return c.refuse("an input whose shape is not static");
  int64_t rank = int64_t(shape->size());
  int64_t axis = norm_axis(c.attr_int("axis", 1), rank);
  if (axis < 0 || axis >= rank - 1)
    return c.refuse("axis " + std::to_string(c.attr_int("axis", 1)));
  bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (inverse && onesided) return c.refuse("inverse=1 with onesided=1");
  int64_t n = (*shape)[size_t(axis)], length = n;
  if (c.has_input(1)) {
    auto l = c.const_ints(1);
    if (!l || l->size() != 1 || (*l)[0] < 1) return c.refuse("a dft_length that is not a constant");
    length = (*l)[0];
  }
  std::string re, im;
  if (!parts(c, x, rank, shape->back(), re, im)) return false;
  // The signal cut or zero-padded to dft_length along the axis, then the axis moved last.
  auto fit = [&](std::string v) {
    if (length < n)
      v = c.temp("R.strided_slice(" + v + ", axes=[" + std::to_string(axis) +
                 "], begin=[0], end=[" + std::to_string(length) + "])");
    if (length > n) {
      Ints width(size_t(2 * (rank - 1)), 0);
      width[size_t(2 * axis + 1)] = length - n;
      v = c.temp("R.nn.pad(" + v + ", pad_width=" + int_list(width) +
                 ", pad_mode=\"constant\", pad_value=0.0)");
    }
    return v;
  };
  Ints perm;
  for (int64_t i = 0; i < rank - 1; ++i) perm.push_back(i);
  std::swap(perm[size_t(axis)], perm.back());
  bool moved = axis != rank - 2;
  auto to_last = [&](const std::string& v) {
    return moved ? c.temp("R.permute_dims(" + v + ", axes=" + int_list(perm) + ")") : v;
  };
  re = to_last(fit(re));
  if (!im.empty()) im = to_last(fit(im));
  int64_t k = onesided ? length / 2 + 1 : length;
  if (length > kMaxTableElements / k) return c.refuse("a transform too long for its matrices");
  std::string y = transform(c, re, im, length, k, inverse);
  if (moved) {
    Ints back = perm;
    back.push_back(rank - 1);
    y = c.temp("R.permute_dims(" + y + ", axes=" + int_list(back) + ")");
  }
  c.emit(0, "R.astype(" + y + ", \"" + dt + "\")", dt);
  return true;
}

// STFT(signal (batch, length, 1 | 2), frame_step, window?, frame_length?): frames of the frame
// length every frame_step samples, times the window, each transformed (one-sided by default).
bool stft(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const std::string dt = c.in(0)->dtype;
  if (dt.rfind("float", 0) != 0) return c.refuse_type(c.node().input(0), dt);
  auto shape = c.static_shape(0);
  if (!shape || shape->size() != 3) return c.refuse("a signal that is not 3-D with a static shape");
  auto step = c.const_ints(1);
  if (!step || step->size() != 1 || (*step)[0] < 1)
    return c.refuse("a frame_step that is not a constant");
  int64_t length = -1;
  if (c.has_input(3)) {
    auto l = c.const_ints(3);
    if (!l || l->size() != 1) return c.refuse("a frame_length that is not a constant");
    length = (*l)[0];
  }
  auto ws = c.has_input(2) ? c.static_shape(2) : std::nullopt;
  if (c.has_input(2) && (!ws || ws->size() != 1)) return c.refuse("a window that is not 1-D");
  if (ws && length >= 0 && (*ws)[0] != length) return c.refuse("a window of another length");
  if (length < 0) length = ws ? (*ws)[0] : -1;
  if (length < 1 || length > (*shape)[1]) return c.refuse("no frame length within the signal");
  int64_t frames = ((*shape)[1] - length) / (*step)[0] + 1;
  std::string re, im;
  if (!parts(c, x, 3, shape->back(), re, im)) return false;
  Ints idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t l = 0; l < length; ++l) idx.push_back(f * (*step)[0] + l);
  Value table;
  table.constant = make_int_tensor("int64", {frames, length}, idx);
  std::string at = c.tensor_of(table, c.node().output(0) + "_frames");
  auto framed = [&](const std::string& v) {
    std::string f = c.temp("R.take(" + v + ", " + at + ", axis=1)");
    if (!c.has_input(2)) return f;
    std::string w = c.temp("R.astype(" + c.tensor(2) + ", \"float64\")");
    return c.temp("R.multiply(" + f + ", " + w + ")");
  };
  re = framed(re);
  if (!im.empty()) im = framed(im);
  if (!c.ok()) return false;
  int64_t k = c.attr_int("onesided", 1) != 0 ? length / 2 + 1 : length;
  if (length > kMaxTableElements / k || frames > kMaxTableElements / length)
    return c.refuse("frames too long for their matrices");
  std::string y = transform(c, re, im, length, k, false);
  c.emit(0, "R.astype(" + y + ", \"" + dt + "\")", dt);
  return true;
}

// MelWeightMatrix: the (dft_length / 2 + 1, num_mel_bins) triangular filter bank of ONNX's
// definition (mel = 2595 log10(1 + hz / 700), the band edges floored to spectrogram bins). Its
// shape depends on the operands, so they must be known; the matrix is a constant.
bool mel_weight_matrix(Context& c) {
  auto ints = [&](int i) { return c.const_ints(i); };
  const Tensor *lo = c.constant(3), *hi = c.constant(4);
  auto bins = ints(0), length = ints(1), rate = ints(2);
  if (!bins || !length || !rate || !lo || !hi || bins->size() != 1 || length->size() != 1 ||
      rate->size() != 1)
    return c.refuse("operands that are not known at import time");
  int64_t mels = (*bins)[0], dft = (*length)[0], sr = (*rate)[0];
  if (mels < 1 || dft < 1 || sr < 1) return c.refuse("a size or rate below 1");
  if (mels > kMaxTableElements / (dft / 2 + 1)) return c.refuse("a filter bank too large");
  auto to = relax_dtype(static_cast<int>(c.attr_int("output_datatype", 1)));
  if (!to || (to->rfind("float", 0) != 0 && to->rfind("int", 0) != 0 && to->rfind("uint", 0) != 0))
    return c.refuse_type(c.node().output(0),
                         onnx_type_name(static_cast<int>(c.attr_int("output_datatype", 1))));
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double low = mel(lo->real(0)), step = (mel(hi->real(0)) - low) / double(mels + 2);
  std::vector<int64_t> edge;
  for (int64_t k = 0; k < mels + 2; ++k) {
    double hz = 700 * (std::pow(10.0, (double(k) * step + low) / 2595) - 1);
    edge.push_back(static_cast<int64_t>(std::floor(double(dft + 1) * hz / double(sr))));
  }
  int64_t rows = dft / 2 + 1;
  std::vector<double> w(size_t(rows * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& { return w[size_t(j * mels + i)]; };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = edge[size_t(i)], centre = edge[size_t(i + 1)], right = edge[size_t(i + 2)];
    if (left < 0 || right >= rows + 1 || centre >= rows)
      return c.refuse("band edges beyond the spectrogram's bins");
    if (centre == left)
      at(centre, i) = 1;
    else
      for (int64_t j = left; j <= centre; ++j) at(j, i) = double(j - left) / double(centre - left);
    for (int64_t j = centre; j < right && j < rows; ++j)
      at(j, i) = double(right - j) / double(right - centre);
  }
  c.define_constant(0, make_tensor(*to, {rows, mels}, w));
  return true;
}

}  // namespace

bool convert_dft(Context& c) { return dft(c); }
bool convert_stft(Context& c) { return stft(c); }
bool convert_mel_weight_matrix(Context& c) { return mel_weight_matrix(c); }

}  // namespace raxc::importer
