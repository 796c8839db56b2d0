// ONNX sequences whose length and positions are known at import time (as TVM's importer keeps
// them): a sequence value is the list of its elements' values, each an ordinary tensor value,
// so SequenceAt, SequenceLength and the insertions and erasures cost nothing at run time, and
// ConcatFromSequence / SplitToSequence become R.concat / R.stack / R.split. A position must be
// a constant (or a graph input's given value); a graph output that is a sequence is a tuple.
#include "importer/context.h"

namespace raxc::importer {
namespace {

using Elements = std::vector<Value>;

Value sequence_of(Elements elements, const std::string& dtype) {
  Value v;
  v.dtype = dtype;
  v.sequence = std::make_shared<const Elements>(std::move(elements));
  return v;
}

// Input i as a sequence, or null with a refusal recorded.
const Elements* sequence_in(Context& c, int i) {
  const Value& v = c.need(i);
  if (!c.ok()) return nullptr;
  if (!v.sequence) {
    c.refuse("input " + std::to_string(i) + " that is not a sequence");
    return nullptr;
  }
  return v.sequence.get();
}

// A position operand (input i) in [-n, n - 1 + extra], normalised; `fallback` when absent.
std::optional<int64_t> position(Context& c, int i, int64_t n, int64_t extra, int64_t fallback) {
  if (!c.has_input(i)) return fallback;
  auto p = c.const_ints(i);
  if (!p || p->size() != 1) {
    c.refuse("a position that is not a constant");
    return std::nullopt;
  }
  int64_t at = (*p)[0] < 0 ? (*p)[0] + n : (*p)[0];
  if (at < 0 || at > n - 1 + extra) {
    c.refuse("position " + std::to_string((*p)[0]) + " in a sequence of " + std::to_string(n));
    return std::nullopt;
  }
  return at;
}

// The Relax expression of a sequence element (a constant element is materialised).
std::string element(Context& c, const Value& v, size_t k) {
  return c.tensor_of(v, c.node().input(0) + "_" + std::to_string(k));
}

bool sequence_empty(Context& c) {
  auto dt = relax_dtype(static_cast<int>(c.attr_int("dtype", 1)));
  if (!dt) return c.refuse_type(c.node().output(0), onnx_type_name(int(c.attr_int("dtype", 1))));
  c.alias(0, sequence_of({}, *dt));
  return true;
}

bool sequence_construct(Context& c) {
  Elements e;
  for (int i = 0; i < c.node().input_size(); ++i) {
    const Value& v = c.need(i);
    if (!c.ok()) return false;
    if (v.sequence) return c.refuse("a sequence as an element");
    e.push_back(v);
  }
  std::string dt = e.empty() ? "" : e[0].dtype;
  c.alias(0, sequence_of(std::move(e), dt));
  return true;
}

bool sequence_insert(Context& c) {
  const Elements* s = sequence_in(c, 0);
  if (!s) return false;
  const Value& v = c.need(1);
  if (!c.ok()) return false;
  if (v.sequence) return c.refuse("a sequence as an element");
  int64_t n = static_cast<int64_t>(s->size());
  auto at = position(c, 2, n, 1, n);
  if (!at) return false;
  Elements e = *s;
  e.insert(e.begin() + *at, v);
  c.alias(0, sequence_of(std::move(e), v.dtype));
  return true;
}

bool sequence_erase(Context& c) {
  const Elements* s = sequence_in(c, 0);
  if (!s) return false;
  int64_t n = static_cast<int64_t>(s->size());
  if (n == 0) return c.refuse("an empty sequence");
  auto at = position(c, 1, n, 0, n - 1);
  if (!at) return false;
  Elements e = *s;
  e.erase(e.begin() + *at);
  c.alias(0, sequence_of(std::move(e), c.in(0)->dtype));
  return true;
}

bool sequence_at(Context& c) {
  const Elements* s = sequence_in(c, 0);
  if (!s) return false;
  if (!c.has_input(1)) return c.refuse("no position");
  auto at = position(c, 1, static_cast<int64_t>(s->size()), 0, 0);
  if (!at) return false;
  c.alias(0, (*s)[static_cast<size_t>(*at)]);
  return true;
}

bool sequence_length(Context& c) {
  const Elements* s = sequence_in(c, 0);
  if (!s) return false;
  c.define_constant(0, make_int_tensor("int64", {}, {static_cast<int64_t>(s->size())}));
  return true;
}

// ConcatFromSequence: R.concat along `axis`, or R.stack at `axis` with new_axis=1.
bool concat_from_sequence(Context& c) {
  const Elements* s = sequence_in(c, 0);
  if (!s) return false;
  if (s->empty()) return c.refuse("an empty sequence");
  std::string parts;
  for (size_t k = 0; k < s->size(); ++k) parts += element(c, (*s)[k], k) + ", ";
  bool stack = c.attr_int("new_axis", 0) != 0;
  const auto* a = c.attr("axis");
  if (!a) return c.refuse("no axis");
  c.emit(0,
         std::string(stack ? "R.stack((" : "R.concat((") + parts +
             "), axis=" + std::to_string(a->i()) + ")",
         (*s)[0].dtype);
  return true;
}

// SplitToSequence: R.split into pieces of 1 (split absent; keepdims=0 squeezes them), of a
// scalar size (the last one shorter), or of the listed sizes.
bool split_to_sequence(Context& c) {
  std::string x = c.tensor(0);
  if (!c.ok()) return false;
  int64_t rank = c.rank(0);
  if (rank < 1) return c.refuse("an input of unknown rank");
  int64_t axis = norm_axis(c.attr_int("axis", 0), rank);
  const Value& in = *c.in(0);
  const Dim& d = (*in.dims)[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!c.has_input(1)) {
    if (!d.known()) return c.refuse("no split on an axis whose extent is not static");
    sizes.assign(static_cast<size_t>(d.value), 1);
    squeeze = c.attr_int("keepdims", 1) == 0;
  } else {
    auto split = c.const_ints(1);
    if (!split) return c.refuse("a split that is not a constant");
    if (c.rank(1) == 0) {
      if (!d.known() || (*split)[0] < 1)
        return c.refuse("a scalar split on an axis whose extent is not static");
      for (int64_t at = 0; at < d.value; at += (*split)[0])
        sizes.push_back(std::min((*split)[0], d.value - at));
    } else {
      sizes = *split;
    }
  }
  std::vector<int64_t> cuts;
  int64_t at = 0;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) cuts.push_back(at += sizes[i]);
  std::string parts = c.temp("R.split(" + x + ", indices_or_sections=" + int_list(cuts) +
                             ", axis=" + std::to_string(axis) + ")");
  Elements e;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Value v;
    v.dtype = in.dtype;
    v.expr = c.temp(parts + "[" + std::to_string(k) + "]");
    if (squeeze) v.expr = c.temp("R.squeeze(" + v.expr + ", axis=[" + std::to_string(axis) + "])");
    e.push_back(std::move(v));
  }
  c.alias(0, sequence_of(std::move(e), in.dtype));
  return true;
}

}  // namespace

const std::map<std::string, Converter>& sequence_table() {
  static const std::map<std::string, Converter> kTable = {
      {"SequenceEmpty", [](Context& c, const onnx::NodeProto&) { return sequence_empty(c); }},
      {"SequenceConstruct",
       [](Context& c, const onnx::NodeProto&) { return sequence_construct(c); }},
      {"SequenceInsert", [](Context& c, const onnx::NodeProto&) { return sequence_insert(c); }},
      {"SequenceErase", [](Context& c, const onnx::NodeProto&) { return sequence_erase(c); }},
      {"SequenceAt", [](Context& c, const onnx::NodeProto&) { return sequence_at(c); }},
      {"SequenceLength", [](Context& c, const onnx::NodeProto&) { return sequence_length(c); }},
      {"ConcatFromSequence",
       [](Context& c, const onnx::NodeProto&) { return concat_from_sequence(c); }},
      {"SplitToSequence", [](Context& c, const onnx::NodeProto&) { return split_to_sequence(c); }},
  };
  return kTable;
}

}  // namespace raxc::importer
