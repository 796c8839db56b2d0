// The run-time kernels of the data-dependent operators (operators.md §3.12, §4): the number of
// elements of their results is known only once the data is, so legalization (backend/legalize)
// lowers them to R.call_pure_packed of these built-in packed functions instead of a TIR loop
// nest. In the runtime's packed-function registry (packed.cpp) under TVM's names, so `raxc run`
// and built libraries share them.
//   relax.run.unique(x, sorted, return_index, return_inverse, return_counts[, axis])
//       np.unique: the distinct elements (slices along `axis`), ascending when `sorted`, else in
//       order of first occurrence; then, as requested, the first index of each, the inverse
//       (1-D, the position in the result of every element / slice) and the counts (int64).
//   relax.run.nonzero(x)
//       np.nonzero stacked: (ndim, count) int64, the indices of the non-zero elements in
//       row-major order.
//   relax.run.dynamic_strided_slice(x, begin, end, strides)
//       x[b0:e0:s0, b1:e1:s1, ...] with numpy's slice rules (negative bounds count from the end,
//       bounds clamped, a negative stride walks backwards), from int64 tensors read at run time;
//       axes past their length are taken whole. A zero stride is an error.
//   relax.run.all_class_non_max_suppression(boxes, scores, max_per_class, iou, score, format)
//       ONNX NonMaxSuppression per (batch, class): boxes (B, N, 4) as corners [y1, x1, y2, x2]
//       (either order), scores (B, C, N); candidates scoring above the threshold in descending
//       score order (stable), each kept unless its IoU with a kept box exceeds the threshold,
//       at most max_per_class each. "onnx": (B * C * N, 3) rows [batch, class, box], the kept
//       ones first, then zeros, and the (1,) count; "tensorflow": (B, C * N, 2) rows [class,
//       box] per batch, their (B, C * N) scores, and the (B,) counts.
//   relax.run.non_max_suppression(data, valid_count, indices, max_output_size, iou_threshold,
//                                 force_suppress, top_k, coord_start, score_index, id_index,
//                                 return_indices, invalid_to_bottom, soft_nms_sigma,
//                                 score_threshold)
//       TVM's classic NMS over get_valid_counts' output, step for step as its topi
//       defines it. Hard NMS (soft_nms_sigma 0): the valid boxes in descending score order (top_k
//       of them), each kept unless a kept box of its class (any class with force_suppress) overlaps
//       it with an IoU of at least the threshold, at most max_output_size kept; suppressed rows
//       become -1. With return_indices, the kept boxes' original indices compacted to the front
//       (int32, -1 after) and their (B, 1) count; else the rows, compacted with
//       invalid_to_bottom. Soft NMS (soft_nms_sigma > 0, LiteRT's form): each round selects
//       the best remaining box above score_threshold and moves it to the front; the others
//       of its class are dropped at an IoU of at least the threshold, else their score decays
//       by exp(-0.5 iou^2 / sigma) and they drop once it is at most score_threshold. Its
//       result also holds the decayed rows: (rows, indices, count) with return_indices.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

#include "backend/runtime/error.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/storage.h"

namespace raxc::runtime {

namespace {

const TensorPtr& tensor_argument(const std::vector<Value>& args, const char* fn) {
  const TensorPtr* t = args.empty() ? nullptr : args[0].tensor();
  if (!t) throw_error("RX5032", {std::string(fn) + ": the first argument must be a tensor"});
  return *t;
}

int64_t scalar_argument(const std::vector<Value>& args, size_t i, int64_t fallback) {
  if (i >= args.size()) return fallback;
  const auto* p = args[i].get_if<runtime::Prim>();
  return p ? (p->is_float() ? static_cast<int64_t>(p->f) : p->i) : fallback;
}

TensorPtr allocate(std::vector<int64_t> shape, DLDataType dtype) {
  TensorPtr t = runtime::Tensor::empty(shape, dtype);
  if (!t) throw_error("RX5026", {"(...)", runtime::dtype_name(dtype)});
  return t;
}

// The input seen as `outer` slices along the axis, each of `inner` elements in row-major order
// (axis None: every element its own slice).
struct Slices {
  int64_t before = 1;  // product of the extents before the axis
  int64_t count = 1;   // extent of the axis
  int64_t after = 1;   // product of the extents after the axis
  int64_t element(int64_t slice, int64_t k) const {
    return (k / after) * count * after + slice * after + k % after;
  }
  int64_t size() const { return before * after; }
};

int compare_elements(const runtime::Tensor& x, int64_t a, int64_t b) {
  DLDataType t = x.dtype();
  if (t.code == kDLFloat || t.code == kDLBfloat) {
    double u = x.get_f64(a), v = x.get_f64(b);
    return u < v ? -1 : (v < u ? 1 : 0);
  }
  if (t.code == kDLUInt && t.bits == 64) {
    uint64_t u = static_cast<uint64_t>(x.get_i64(a)), v = static_cast<uint64_t>(x.get_i64(b));
    return u < v ? -1 : (v < u ? 1 : 0);
  }
  int64_t u = x.get_i64(a), v = x.get_i64(b);
  return u < v ? -1 : (v < u ? 1 : 0);
}

int compare_slices(const runtime::Tensor& x, const Slices& s, int64_t a, int64_t b) {
  for (int64_t k = 0; k < s.size(); ++k)
    if (int c = compare_elements(x, s.element(a, k), s.element(b, k))) return c;
  return 0;
}

TensorPtr int64_vector(const std::vector<int64_t>& v) {
  TensorPtr t = allocate({static_cast<int64_t>(v.size())}, DLDataType{kDLInt, 64, 1});
  std::copy(v.begin(), v.end(), t->data_as<int64_t>());
  return t;
}

}  // namespace

Value builtin_unique(const std::vector<Value>& args) {
  const TensorPtr& x = tensor_argument(args, "relax.run.unique");
  bool sorted = scalar_argument(args, 1, 1) != 0;
  bool want_index = scalar_argument(args, 2, 0) != 0;
  bool want_inverse = scalar_argument(args, 3, 0) != 0;
  bool want_counts = scalar_argument(args, 4, 0) != 0;
  bool has_axis = args.size() > 5;
  const std::vector<int64_t>& shape = x->shape();
  Slices s;
  int64_t axis = 0;
  if (has_axis) {
    axis = scalar_argument(args, 5, 0);
    if (axis < 0) axis += x->ndim();
    if (axis < 0 || axis >= x->ndim())
      throw_error("RX5032",
                  {"relax.run.unique: axis " + std::to_string(axis) + " is out of range"});
    for (int64_t d = 0; d < x->ndim(); ++d)
      (d < axis ? s.before : d == axis ? s.count : s.after) *= shape[d];
  } else {
    s.count = x->numel();
  }
  // Slices in ascending order (stable: equal slices keep their first occurrence first).
  std::vector<int64_t> order(s.count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare_slices(*x, s, a, b) < 0; });
  std::vector<int64_t> first, counts, inverse(s.count);
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || compare_slices(*x, s, order[i - 1], order[i]) != 0) {
      first.push_back(order[i]);
      counts.push_back(0);
    }
    ++counts.back();
    inverse[order[i]] = static_cast<int64_t>(first.size()) - 1;
  }
  if (!sorted) {  // renumber the groups by first occurrence
    std::vector<size_t> by_first(first.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(),
              [&](size_t a, size_t b) { return first[a] < first[b]; });
    std::vector<int64_t> rank(first.size()), f2(first.size()), c2(first.size());
    for (size_t k = 0; k < by_first.size(); ++k) {
      rank[by_first[k]] = static_cast<int64_t>(k);
      f2[k] = first[by_first[k]];
      c2[k] = counts[by_first[k]];
    }
    first = f2;
    counts = c2;
    for (int64_t& i : inverse) i = rank[i];
  }
  std::vector<int64_t> out_shape{static_cast<int64_t>(first.size())};
  if (has_axis) {
    out_shape = shape;
    out_shape[axis] = static_cast<int64_t>(first.size());
  }
  TensorPtr values = allocate(out_shape, x->dtype());
  int64_t bytes = runtime::dtype_bytes(x->dtype());
  const char* src = static_cast<const char*>(x->data());
  char* dst = static_cast<char*>(values->data());
  Slices o = s;
  o.count = static_cast<int64_t>(first.size());
  for (int64_t g = 0; g < o.count; ++g)
    for (int64_t k = 0; k < s.size(); ++k)
      std::memcpy(dst + o.element(g, k) * bytes, src + s.element(first[g], k) * bytes, bytes);
  std::vector<Value> fields{values};
  if (want_index) fields.push_back(int64_vector(first));
  if (want_inverse) fields.push_back(int64_vector(inverse));
  if (want_counts) fields.push_back(int64_vector(counts));
  if (fields.size() == 1) return fields[0];
  return runtime::Tuple{std::move(fields)};
}

Value builtin_nonzero(const std::vector<Value>& args) {
  const TensorPtr& x = tensor_argument(args, "relax.run.nonzero");
  std::vector<int64_t> hits;
  bool is_float = x->dtype().code == kDLFloat || x->dtype().code == kDLBfloat;
  for (int64_t i = 0; i < x->numel(); ++i)
    if (is_float ? x->get_f64(i) != 0 : x->get_i64(i) != 0) hits.push_back(i);
  int64_t n = static_cast<int64_t>(hits.size());
  TensorPtr out = allocate({x->ndim(), n}, DLDataType{kDLInt, 64, 1});
  int64_t* p = out->data_as<int64_t>();
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = hits[k];
    for (int64_t d = x->ndim(); d-- > 0;) {
      p[d * n + k] = rest % x->shape()[d];
      rest /= x->shape()[d];
    }
  }
  return out;
}

Value builtin_dynamic_strided_slice(const std::vector<Value>& args) {
  const char* fn = "relax.run.dynamic_strided_slice";
  const TensorPtr& x = tensor_argument(args, fn);
  const TensorPtr* bounds[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    bounds[i] = i + 1 < args.size() ? args[i + 1].tensor() : nullptr;
    if (!bounds[i] || (*bounds[i])->ndim() != 1 || (*bounds[i])->dtype().code == kDLFloat)
      throw_error("RX5032", {std::string(fn) + ": begin, end and strides must be 1-D integer "
                                               "tensors"});
  }
  int64_t rank = x->ndim();
  std::vector<int64_t> start(rank), step(rank), shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = x->shape()[d];
    auto get = [&](size_t k, int64_t fallback) {
      const runtime::Tensor& t = **bounds[k];
      return d < t.numel() ? t.get_i64(d) : fallback;
    };
    int64_t s = get(2, 1);
    if (s == 0)
      throw_error("RX5032", {std::string(fn) + ": a stride of 0 on axis " + std::to_string(d)});
    int64_t b = get(0, s > 0 ? 0 : n - 1), e = get(1, s > 0 ? n : -n - 1);
    // numpy's slice.indices: bounds count from the end when negative, then clamp.
    auto clamp = [&](int64_t v) {
      if (v < 0) v += n;
      return s > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
    };
    b = clamp(b);
    e = clamp(e);
    int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
    start[d] = b;
    step[d] = s;
    shape[d] = std::max<int64_t>(len, 0);
  }
  TensorPtr out = allocate(shape, x->dtype());
  int64_t bytes = runtime::dtype_bytes(x->dtype());
  const char* src = static_cast<const char*>(x->data());
  char* dst = static_cast<char*>(out->data());
  for (int64_t k = 0; k < out->numel(); ++k) {
    int64_t rest = k, flat = 0, stride = 1;
    std::vector<int64_t> idx(rank);
    for (int64_t d = rank; d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    for (int64_t d = rank; d-- > 0;) {
      flat += (start[d] + idx[d] * step[d]) * stride;
      stride *= x->shape()[d];
    }
    std::memcpy(dst + k * bytes, src + flat * bytes, bytes);
  }
  return out;
}

namespace {

double iou(const runtime::Tensor& boxes, int64_t base_a, int64_t base_b) {
  auto corner = [&](int64_t base, int k) { return boxes.get_f64(base + k); };
  double ay1 = std::min(corner(base_a, 0), corner(base_a, 2)),
         ay2 = std::max(corner(base_a, 0), corner(base_a, 2));
  double ax1 = std::min(corner(base_a, 1), corner(base_a, 3)),
         ax2 = std::max(corner(base_a, 1), corner(base_a, 3));
  double by1 = std::min(corner(base_b, 0), corner(base_b, 2)),
         by2 = std::max(corner(base_b, 0), corner(base_b, 2));
  double bx1 = std::min(corner(base_b, 1), corner(base_b, 3)),
         bx2 = std::max(corner(base_b, 1), corner(base_b, 3));
  double ih = std::max(0.0, std::min(ay2, by2) - std::max(ay1, by1));
  double iw = std::max(0.0, std::min(ax2, bx2) - std::max(ax1, bx1));
  double inter = ih * iw;
  double uni = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter;
  return uni > 0 ? inter / uni : 0.0;
}

}  // namespace

Value builtin_all_class_nms(const std::vector<Value>& args) {
  const char* fn = "relax.run.all_class_non_max_suppression";
  const TensorPtr* t[5] = {};
  for (size_t i = 0; i < 5; ++i) {
    t[i] = i < args.size() ? args[i].tensor() : nullptr;
    if (!t[i])
      throw_error("RX5032",
                  {std::string(fn) + ": argument " + std::to_string(i) + " must be a tensor"});
  }
  const runtime::Tensor &boxes = **t[0], &scores = **t[1];
  if (boxes.ndim() != 3 || scores.ndim() != 3 || boxes.shape()[2] != 4 ||
      scores.shape()[0] != boxes.shape()[0] || scores.shape()[2] != boxes.shape()[1])
    throw_error("RX5032", {std::string(fn) + ": boxes (B, N, 4) and scores (B, C, N) expected"});
  auto first = [&](const runtime::Tensor& x, double fallback) {
    return x.numel() > 0 ? x.get_f64(0) : fallback;
  };
  int64_t max_per_class = static_cast<int64_t>(first(**t[2], 0));
  double iou_threshold = first(**t[3], 0), score_threshold = first(**t[4], -INFINITY);
  bool tensorflow = scalar_argument(args, 5, 0) != 0;
  int64_t B = boxes.shape()[0], N = boxes.shape()[1], C = scores.shape()[1];
  std::vector<std::array<int64_t, 3>> kept;
  std::vector<double> kept_scores;
  std::vector<int64_t> per_batch(B, 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      int64_t base = (b * C + c) * N;
      std::vector<int64_t> order;
      for (int64_t n = 0; n < N; ++n)
        if (scores.get_f64(base + n) > score_threshold) order.push_back(n);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        return scores.get_f64(base + x) > scores.get_f64(base + y);
      });
      std::vector<int64_t> chosen;
      for (int64_t n : order) {
        if (static_cast<int64_t>(chosen.size()) >= max_per_class) break;
        bool keep = true;
        for (int64_t k : chosen)
          if (iou(boxes, (b * N + n) * 4, (b * N + k) * 4) > iou_threshold) keep = false;
        if (!keep) continue;
        chosen.push_back(n);
        kept.push_back({b, c, n});
        kept_scores.push_back(scores.get_f64(base + n));
        ++per_batch[b];
      }
    }
  if (!tensorflow) {
    TensorPtr sel = allocate({B * C * N, 3}, DLDataType{kDLInt, 64, 1});
    int64_t* p = sel->data_as<int64_t>();
    std::fill(p, p + sel->numel(), 0);
    for (size_t k = 0; k < kept.size(); ++k)
      for (int j = 0; j < 3; ++j) p[k * 3 + j] = kept[k][j];
    return runtime::Tuple{{sel, int64_vector({static_cast<int64_t>(kept.size())})}};
  }
  TensorPtr sel = allocate({B, C * N, 2}, DLDataType{kDLInt, 64, 1});
  TensorPtr sc = allocate({B, C * N}, scores.dtype());
  int64_t* p = sel->data_as<int64_t>();
  std::fill(p, p + sel->numel(), 0);
  for (int64_t i = 0; i < sc->numel(); ++i) sc->set_f64(i, 0);
  std::vector<int64_t> slot(B, 0);
  for (size_t k = 0; k < kept.size(); ++k) {
    int64_t b = kept[k][0], row = b * C * N + slot[b]++;
    p[row * 2] = kept[k][1];
    p[row * 2 + 1] = kept[k][2];
    sc->set_f64(row, kept_scores[k]);
  }
  return runtime::Tuple{{sel, sc, int64_vector(per_batch)}};
}

// One batch of soft NMS over `o` (rows already in descending score order, top_k of them
// valid, `box` their positions, -1 for cleared rows); returns the number kept, at the front.
struct SoftNms {
  int64_t N, L, max_out, cs, si, id;
  double iou_threshold, sigma, score_threshold;
  bool force;
};

template <class Row, class Iou>
int64_t soft_nms_batch(const SoftNms& p, int64_t keep, Row&& o, int64_t* box, Iou&& iou) {
  int64_t kept = 0;
  for (int64_t round = 0; round < keep; ++round) {
    if (p.max_out > 0 && kept >= p.max_out) break;
    int64_t best = -1;
    double best_score = p.score_threshold;
    for (int64_t j = kept; j < keep; ++j)
      if (box[j] >= 0 && o(j, p.si) > best_score) best = j, best_score = o(j, p.si);
    if (best < 0) break;
    if (best != kept) {
      std::swap(box[best], box[kept]);
      for (int64_t k = 0; k < p.L; ++k) std::swap(o(best, k), o(kept, k));
    }
    for (int64_t j = kept + 1; j < keep; ++j) {
      if (box[j] < 0 || !(o(j, p.si) > p.score_threshold)) continue;
      if (!p.force && p.id >= 0 && o(kept, p.id) != o(j, p.id)) continue;
      double overlap = iou(kept, j);
      if (overlap >= p.iou_threshold) {
        box[j] = -1;
        continue;
      }
      o(j, p.si) *= std::exp(-0.5 / p.sigma * overlap * overlap);
      if (o(j, p.si) <= p.score_threshold) box[j] = -1;
    }
    ++kept;
  }
  return kept;
}

Value builtin_non_max_suppression(const std::vector<Value>& args) {
  const char* fn = "relax.run.non_max_suppression";
  const TensorPtr* t[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    t[i] = i < args.size() ? args[i].tensor() : nullptr;
    if (!t[i])
      throw_error("RX5032",
                  {std::string(fn) + ": argument " + std::to_string(i) + " must be a tensor"});
  }
  const runtime::Tensor &data = **t[0], &valid = **t[1], &indices = **t[2];
  if (data.ndim() != 3 || valid.numel() < data.shape()[0] || indices.ndim() != 2)
    throw_error("RX5032", {std::string(fn) + ": data (B, N, L), valid_count (B,) and indices "
                                             "(B, N) expected"});
  auto real = [&](size_t i, double fallback) {
    if (i >= args.size()) return fallback;
    const auto* p = args[i].get_if<runtime::Prim>();
    return p ? p->as_f64() : fallback;
  };
  int64_t max_out = scalar_argument(args, 3, -1);
  double iou_threshold = real(4, 0.5);
  bool force = scalar_argument(args, 5, 0) != 0;
  int64_t top_k = scalar_argument(args, 6, -1), cs = scalar_argument(args, 7, 2);
  int64_t si = scalar_argument(args, 8, 1), id = scalar_argument(args, 9, 0);
  bool return_indices = scalar_argument(args, 10, 1) != 0;
  bool to_bottom = scalar_argument(args, 11, 0) != 0;
  double sigma = real(12, 0.0), score_threshold = real(13, 0.0);
  int64_t B = data.shape()[0], N = data.shape()[1], L = data.shape()[2];
  if (cs < 0 || cs + 3 >= L || si < 0 || si >= L || id >= L)
    throw_error("RX5032", {std::string(fn) + ": coord_start, score_index or id_index outside "
                                             "the box"});
  std::vector<double> out(static_cast<size_t>(B * N * L));
  std::vector<int64_t> box(static_cast<size_t>(B * N));
  auto in = [&](int64_t b, int64_t j, int64_t k) { return data.get_f64((b * N + j) * L + k); };
  auto o = [&](int64_t b, int64_t j, int64_t k) -> double& {
    return out[static_cast<size_t>((b * N + j) * L + k)];
  };
  auto clear = [&](int64_t b, int64_t j) {
    for (int64_t k = 0; k < L; ++k) o(b, j, k) = -1;
    box[static_cast<size_t>(b * N + j)] = -1;
  };
  SoftNms soft{N, L, max_out, cs, si, id, iou_threshold, sigma, score_threshold, force};
  for (int64_t b = 0; b < B; ++b) {
    int64_t count = std::clamp<int64_t>(valid.get_i64(b), 0, N);
    auto corners = [&](int64_t j) {
      return std::array<double, 4>{
          std::min(o(b, j, cs), o(b, j, cs + 2)), std::min(o(b, j, cs + 1), o(b, j, cs + 3)),
          std::max(o(b, j, cs), o(b, j, cs + 2)), std::max(o(b, j, cs + 1), o(b, j, cs + 3))};
    };
    auto iou_of = [&](int64_t j, int64_t k) {
      auto a = corners(j), c = corners(k);
      double w = std::max(0.0, std::min(a[2], c[2]) - std::max(a[0], c[0]));
      double h = std::max(0.0, std::min(a[3], c[3]) - std::max(a[1], c[1]));
      double area = w * h;
      double u = (a[2] - a[0]) * (a[3] - a[1]) + (c[2] - c[0]) * (c[3] - c[1]) - area;
      return u <= 0 ? 0.0 : area / u;
    };
    // The valid boxes by descending score (stable), the first top_k of them.
    auto sort_valid = [&] {
      std::vector<int64_t> order(static_cast<size_t>(count));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return in(b, x, si) > in(b, y, si); });
      int64_t keep = top_k > 0 && top_k < count ? top_k : count;
      for (int64_t j = 0; j < count; ++j) {
        if (j >= keep) {
          clear(b, j);
          continue;
        }
        for (int64_t k = 0; k < L; ++k) o(b, j, k) = in(b, order[j], k);
        box[static_cast<size_t>(b * N + j)] = order[j];
      }
      return keep;
    };
    if (sigma > 0) {
      int64_t keep = sort_valid();
      int64_t kept = soft_nms_batch(
          soft, keep, [&](int64_t j, int64_t k) -> double& { return o(b, j, k); },
          &box[static_cast<size_t>(b * N)], iou_of);
      for (int64_t j = kept; j < count; ++j) clear(b, j);
    } else if (iou_threshold > 0) {
      sort_valid();
      int64_t kept = 0;
      for (int64_t j = 0; j < count; ++j) {
        if (kept == max_out) {
          clear(b, j);
          continue;
        }
        if (!(o(b, j, si) > 0)) continue;
        bool valid_box = true;
        for (int64_t k = 0; k < j && valid_box; ++k) {
          if (!(o(b, k, si) > 0) || (id >= 0 && o(b, k, id) < 0)) continue;
          if (!force && id >= 0 && o(b, j, id) != o(b, k, id)) continue;
          if (iou_of(j, k) >= iou_threshold) valid_box = false;
        }
        if (!valid_box)
          clear(b, j);
        else
          ++kept;
      }
    } else {
      for (int64_t j = 0; j < count; ++j) {
        for (int64_t k = 0; k < L; ++k) o(b, j, k) = in(b, j, k);
        box[static_cast<size_t>(b * N + j)] = j;
      }
    }
    for (int64_t j = count; j < N; ++j) clear(b, j);
    if (return_indices)
      for (int64_t j = 0; j < count; ++j) {
        int64_t& x = box[static_cast<size_t>(b * N + j)];
        if (x >= 0) x = indices.get_i64(b * indices.shape()[1] + x);
      }
  }
  DLDataType i32{kDLInt, 32, 1};
  if (return_indices) {
    // Compacted to the front (TVM's rearrangement), with the count per batch.
    TensorPtr idx = allocate({B, N}, i32);
    TensorPtr cnt = allocate({B, 1}, i32);
    for (int64_t b = 0; b < B; ++b) {
      int64_t v = 0;
      for (int64_t j = 0; j < N; ++j) {
        int64_t x = box[static_cast<size_t>(b * N + j)];
        if (x >= 0) idx->set_i64(b * N + v++, x);
        if (x > N || x < -N) idx->set_i64(b * N + v++, 0);
        if (j >= v) idx->set_i64(b * N + j, -1);
      }
      cnt->set_i64(b, v);
    }
    if (sigma <= 0) return runtime::Tuple{{idx, cnt}};
    TensorPtr rows = allocate({B, N, L}, data.dtype());
    for (size_t i = 0; i < out.size(); ++i) rows->set_f64(int64_t(i), out[i]);
    return runtime::Tuple{{rows, idx, cnt}};
  }
  TensorPtr result = allocate({B, N, L}, data.dtype());
  for (int64_t b = 0; b < B; ++b) {
    int64_t v = 0;
    for (int64_t j = 0; j < N; ++j) {
      int64_t dst = j;
      if (to_bottom) {
        if (o(b, j, 0) >= 0) {
          for (int64_t k = 0; k < L; ++k) result->set_f64((b * N + v) * L + k, o(b, j, k));
          ++v;
        }
        if (j >= v)
          for (int64_t k = 0; k < L; ++k) result->set_f64((b * N + j) * L + k, -1);
        continue;
      }
      for (int64_t k = 0; k < L; ++k) result->set_f64((b * N + dst) * L + k, o(b, j, k));
    }
  }
  return result;
}

std::vector<std::pair<const char*, PackedFunction>> data_dependent_builtins() {
  return {{"relax.run.unique", builtin_unique},
          {"relax.run.nonzero", builtin_nonzero},
          {"relax.run.dynamic_strided_slice", builtin_dynamic_strided_slice},
          {"relax.run.all_class_non_max_suppression", builtin_all_class_nms},
          {"relax.run.non_max_suppression", builtin_non_max_suppression}};
}

}  // namespace raxc::runtime
