// If: both branches are converted into the body (they are pure ONNX graphs reading the
// enclosing values) and each output is R.where(cond, then, else), which needs the two outputs to
// have the same static shape and dtype; a condition that is a constant (not a graph input's
// given value) takes its branch alone, which also lets the branches yield sequences.
#include "importer/context.h"

namespace raxc::importer {
namespace {

const onnx::GraphProto* branch(Context& c, const char* name) {
  const auto* a = c.attr(name);
  if (!a || !a->has_g()) {
    c.refuse(std::string("no ") + name);
    return nullptr;
  }
  return &a->g();
}

// Converts one branch and returns its output values (copies: later nodes may redefine nothing,
// ONNX names being unique, but the map may grow).
std::optional<std::vector<Value>> run_branch(Context& c, const onnx::GraphProto& g) {
  if (auto d = convert_subgraph(c, g)) {
    if (c.ok()) c.error() = *d;
    return std::nullopt;
  }
  std::vector<Value> outs;
  for (const auto& o : g.output()) {
    auto it = c.values().find(o.name());
    if (it == c.values().end()) {
      c.refuse("a branch output '" + o.name() + "' that is not defined");
      return std::nullopt;
    }
    outs.push_back(it->second);
  }
  return outs;
}

bool same_static_shape(const Value& a, const Value& b) {
  auto shape = [](const Value& v) -> std::optional<std::vector<int64_t>> {
    if (v.constant) return v.constant->dims;
    if (!v.dims) return std::nullopt;
    std::vector<int64_t> s;
    for (const Dim& d : *v.dims) {
      if (!d.known()) return std::nullopt;
      s.push_back(d.value);
    }
    return s;
  };
  auto sa = shape(a), sb = shape(b);
  return sa && sb && *sa == *sb;
}

bool if_op(Context& c) {
  const Value& cond = c.need(0);
  const onnx::GraphProto* then_g = branch(c, "then_branch");
  const onnx::GraphProto* else_g = branch(c, "else_branch");
  if (!c.ok() || !then_g || !else_g) return false;
  if (cond.constant && !cond.runtime) {
    auto outs = run_branch(c, cond.constant->integer(0) != 0 ? *then_g : *else_g);
    if (!outs) return false;
    for (size_t k = 0; k < outs->size() && int(k) < c.node().output_size(); ++k)
      c.alias(int(k), (*outs)[k]);
    return true;
  }
  auto then_outs = run_branch(c, *then_g);
  if (!then_outs) return false;
  auto else_outs = run_branch(c, *else_g);
  if (!else_outs) return false;
  if (then_outs->size() != else_outs->size()) return c.refuse("branches of different arity");
  std::string cv = c.tensor(0);
  if (!c.ok()) return false;
  if (c.rank(0) != 0) cv = c.temp("R.reshape(" + cv + ", R.shape([]))");
  for (size_t k = 0; k < then_outs->size(); ++k) {
    Value& a = (*then_outs)[k];
    Value& b = (*else_outs)[k];
    if (a.sequence || b.sequence)
      return c.refuse("sequence outputs on a condition known only at run time");
    if (a.dtype != b.dtype || !same_static_shape(a, b))
      return c.refuse("branch outputs of different or unknown shapes or dtypes");
    const std::string& base = c.node().output(int(k));
    std::string ta = c.tensor_of(a, base + "_then"), tb = c.tensor_of(b, base + "_else");
    c.emit(int(k), "R.where(" + cv + ", " + ta + ", " + tb + ")", a.dtype, a.dims);
  }
  return true;
}

}  // namespace

bool convert_if(Context& c) { return if_op(c); }

}  // namespace raxc::importer
