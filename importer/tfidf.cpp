// TfIdfVectorizer over integer tokens (pool_int64s; string pools are refused with the string
// tensors): for each gram length n of [min_gram_length, max_gram_length] and each skip s (0 to
// max_skip_count; unigrams once), the windows x[i], x[i + s + 1], ... of the last axis are
// stacked (strided slices), compared with the pool's n-grams (a constant) and the full matches
// summed; the per-gram counts then become TF, IDF (count > 0) or TFIDF, times the weights, and
// a constant 0/1 matrix puts them at their ngram_indexes (R.matmul in float32, exact for counts).
#include <algorithm>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

// The counts (..., grams of length n) of the pool's n-grams `grams` (flattened, n each).
std::string count_grams(Context& c, const std::string& x, int64_t rank, int64_t length, int64_t n,
                        const Ints& grams, int64_t max_skip) {
  int64_t g = static_cast<int64_t>(grams.size()) / n;
  Value gv;
  gv.constant = make_int_tensor("int64", {g, n}, grams);
  std::string pool = c.tensor_of(gv, c.node().output(0) + "_grams" + std::to_string(n));
  std::string total;
  std::string axis = std::to_string(rank - 1);
  for (int64_t s = 0; s <= (n == 1 ? 0 : max_skip); ++s) {
    int64_t positions = length - (n - 1) * (s + 1);
    if (positions <= 0) break;
    std::string slices;
    for (int64_t k = 0; k < n; ++k) {
      int64_t begin = k * (s + 1);
      slices +=
          c.temp("R.strided_slice(" + x + ", axes=[" + axis + "], begin=[" + std::to_string(begin) +
                 "], end=[" + std::to_string(begin + positions) + "])") +
          ", ";
    }
    std::string windows = c.temp("R.expand_dims(R.stack((" + slices + "), axis=-1), axis=[" +
                                 std::to_string(rank) + "])");  // (..., P, 1, n)
    std::string match = c.temp("R.min(R.astype(R.equal(" + windows + ", " + pool +
                               "), \"int64\"), axis=[-1])");  // (..., P, G)
    std::string counted = c.temp("R.sum(" + match + ", axis=[-2])");
    total = total.empty() ? counted : c.temp("R.add(" + total + ", " + counted + ")");
  }
  if (total.empty()) {  // too short for any window: no matches
    Ints shape;
    for (const Dim& d : *c.in(0)->dims) shape.push_back(d.value);
    shape.back() = g;
    total = c.temp("R.zeros(R.shape(" + int_list(shape) + "), dtype=\"int64\")");
  }
  return total;
}

bool tfidf(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  const std::string& dt = c.in(0)->dtype;
  if (dt != "int32" && dt != "int64") return c.refuse_type(c.node().input(0), dt);
  auto shape = c.static_shape(0);
  if (!shape || shape->empty() || shape->size() > 2)
    return c.refuse("an input that is not 1-D or 2-D with a static shape");
  auto pool = c.attr_ints("pool_int64s");
  if (!pool) return c.refuse("a pool that is not pool_int64s");
  Ints counts = c.attr_ints("ngram_counts").value_or(Ints{});
  Ints indexes = c.attr_ints("ngram_indexes").value_or(Ints{});
  int64_t lo = c.attr_int("min_gram_length", 1), hi = c.attr_int("max_gram_length", 1);
  int64_t max_skip = c.attr_int("max_skip_count", 0);
  std::string mode = c.attr_string("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return c.refuse("mode='" + mode + "'");
  if (lo < 1 || hi < lo || static_cast<int64_t>(counts.size()) < hi || indexes.empty())
    return c.refuse("gram lengths, ngram_counts or ngram_indexes that do not match");
  std::vector<double> weights =
      c.attr_floats("weights").value_or(std::vector<double>(indexes.size(), 1.0));
  if (weights.size() != indexes.size()) return c.refuse("weights of another length");
  int64_t rank = static_cast<int64_t>(shape->size()), length = shape->back();
  std::string xi = dt == "int64" ? x : c.temp("R.astype(" + x + ", \"int64\")");
  // The pool's grams of length n are pool[counts[n - 1] : counts[n]] (the next start, or the
  // end), their j-th one the (first index of length n + j)-th entry of ngram_indexes.
  int64_t outputs = *std::max_element(indexes.begin(), indexes.end()) + 1;
  int64_t grams_total = 0;
  std::vector<double> scatter;
  std::string parts;
  for (int64_t n = 1; n <= static_cast<int64_t>(counts.size()); ++n) {
    int64_t begin = counts[size_t(n - 1)];
    int64_t end = n < static_cast<int64_t>(counts.size()) ? counts[size_t(n)]
                                                          : static_cast<int64_t>(pool->size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool->size()) ||
        (end - begin) % n != 0)
      return c.refuse("ngram_counts that do not split the pool");
    int64_t first = grams_total, g = (end - begin) / n;
    grams_total += g;
    if (n < lo || n > hi || g == 0) continue;
    Ints grams(pool->begin() + begin, pool->begin() + end);
    parts += count_grams(c, xi, rank, length, n, grams, max_skip) + ", ";
    for (int64_t j = 0; j < g; ++j) {
      size_t at = size_t(first + j);
      if (at >= indexes.size()) return c.refuse("fewer ngram_indexes than n-grams");
      std::vector<double> row(size_t(outputs), 0.0);
      row[size_t(indexes[at])] = weights[at];
      scatter.insert(scatter.end(), row.begin(), row.end());
    }
  }
  Ints out_shape(shape->begin(), shape->end());
  out_shape.back() = outputs;
  if (parts.empty()) {
    c.emit(0, "R.zeros(R.shape(" + int_list(out_shape) + "), dtype=\"float32\")", "float32");
    return true;
  }
  int64_t used = static_cast<int64_t>(scatter.size()) / outputs;
  std::string all = c.temp("R.astype(R.concat((" + parts + "), axis=-1), \"float32\")");
  if (mode == "IDF")
    all = c.temp("R.astype(R.greater(" + all + ", " + Context::scalar(0, "float32") +
                 "), \"float32\")");
  // TF ignores the weights (ONNX's reference); IDF and TFIDF scale by them.
  if (mode == "TF")
    for (double& v : scatter) v = v != 0 ? 1.0 : 0.0;
  Value mv;
  mv.constant = make_tensor("float32", {used, outputs}, scatter);
  std::string m = c.tensor_of(mv, c.node().output(0) + "_scatter");
  std::vector<Dim> dims;
  for (int64_t d : out_shape) dims.push_back(Dim{d, ""});
  c.emit(0, "R.matmul(" + all + ", " + m + ")", "float32", dims);
  return true;
}

}  // namespace

bool convert_tfidf(Context& c) { return tfidf(c); }

}  // namespace raxc::importer
