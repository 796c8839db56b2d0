// Control flow over subgraphs converted into the body. If: both branches are converted (they
// are pure ONNX graphs reading the enclosing values) and each output is R.where(cond, then,
// else), which needs the two outputs to have the same static shape and dtype; a condition that is
// a constant (not a graph input's given value) takes its branch alone, which also lets the
// branches yield sequences. Loop and Scan are unrolled: their iteration count must be known at
// import time (Loop's trip count and every iteration's condition, Scan's static sequence
// length), the body converted once per iteration with its inputs bound to that iteration's
// values, the scan outputs stacked.
#include <algorithm>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

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

Value known_scalar(const std::string& dtype, double v) {
  Value out;
  out.dtype = dtype;
  out.dims = std::vector<Dim>{};
  out.constant = make_tensor(dtype, {}, {v});
  return out;
}

// A body output as a value of its own: materialised now, under a name of this iteration, so a
// later iteration redefining the body's names cannot change it.
Value settle(Context& c, const Value& v, const std::string& name) {
  if (v.sequence || !v.expr.empty()) return v;
  Value out = v;
  out.expr = c.tensor_of(v, name);
  return out;
}

std::optional<std::vector<Value>> body_outputs(Context& c, const onnx::GraphProto& body,
                                               int64_t iteration) {
  auto outs = run_branch(c, body);
  if (!outs) return std::nullopt;
  for (size_t k = 0; k < outs->size(); ++k)
    (*outs)[k] =
        settle(c, (*outs)[k], body.output(int(k)).name() + "_" + std::to_string(iteration));
  return outs;
}

// The scan outputs: each one's per-iteration values stacked along `axis`.
bool emit_stacked(Context& c, int out, const std::vector<Value>& steps, int64_t axis) {
  if (steps.empty()) return c.refuse("no iteration (an empty scan output's shape is unknown)");
  std::string parts;
  for (const Value& v : steps) {
    if (v.sequence) return c.refuse("a sequence as a scan output");
    parts += v.expr + ", ";
  }
  c.emit(out, "R.stack((" + parts + "), axis=" + std::to_string(axis) + ")", steps[0].dtype);
  return true;
}

// Loop(M?, cond?, v_initial...): body(iteration, cond, v...) -> (cond, v..., scan...).
bool loop(Context& c) {
  const onnx::GraphProto* body = branch(c, "body");
  if (!body) return false;
  const onnx::NodeProto& node = c.node();
  int carried = node.input_size() - 2;
  int scans = body->output_size() - 1 - carried;
  if (carried < 0 || scans < 0 || body->input_size() != carried + 2)
    return c.refuse("a body whose inputs and outputs do not match the loop's");
  std::optional<int64_t> trips;
  if (c.has_input(0)) {
    auto m = c.const_ints(0);
    if (!m || m->size() != 1) return c.refuse("a trip count that is not known at import time");
    trips = (*m)[0];
  }
  bool go = true;
  if (c.has_input(1)) {
    const Tensor* t = c.constant(1);
    if (!t) return c.refuse("a condition that is not known at import time");
    go = t->integer(0) != 0;
  }
  if (!trips && !c.has_input(1)) return c.refuse("neither a trip count nor a condition");
  std::vector<Value> state;
  for (int j = 0; j < carried; ++j) {
    state.push_back(c.need(2 + j));
    if (!c.ok()) return false;
  }
  std::vector<std::vector<Value>> scanned(static_cast<size_t>(scans));
  for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
    if (i >= kMaxUnrolledSteps) return c.refuse("more iterations than the importer unrolls");
    c.define(body->input(0).name(), known_scalar("int64", double(i)));
    c.define(body->input(1).name(), known_scalar("bool", go ? 1 : 0));
    for (int j = 0; j < carried; ++j) c.define(body->input(2 + j).name(), state[size_t(j)]);
    auto outs = body_outputs(c, *body, i);
    if (!outs) return false;
    const Value& cond = (*outs)[0];
    if (!cond.constant) return c.refuse("a condition the body computes at run time");
    go = cond.constant->integer(0) != 0;
    for (int j = 0; j < carried; ++j) state[size_t(j)] = (*outs)[size_t(1 + j)];
    for (int k = 0; k < scans; ++k) scanned[size_t(k)].push_back((*outs)[size_t(1 + carried + k)]);
  }
  for (int j = 0; j < carried && j < node.output_size(); ++j) c.alias(j, state[size_t(j)]);
  for (int k = 0; k < scans; ++k)
    if (c.output_used(carried + k) && !emit_stacked(c, carried + k, scanned[size_t(k)], 0))
      return false;
  return true;
}

// The slice of a scan input at step t along `axis` (the axis dropped).
Value scan_slice(Context& c, const Value& x, const std::string& expr, int64_t axis, int64_t t) {
  Value v;
  v.dtype = x.dtype;
  v.expr = c.temp("R.take(" + expr + ", R.const(" + std::to_string(t) +
                  ", \"int64\"), axis=" + std::to_string(axis) + ")");
  if (x.dims) {
    std::vector<Dim> d = *x.dims;
    d.erase(d.begin() + axis);
    v.dims = d;
  }
  return v;
}

// One Scan over states and scan inputs given as values (opset 9's form; opset 8's per batch
// entry): returns the final states and the stacked scan outputs' parts.
bool scan_once(Context& c, const onnx::GraphProto& body, std::vector<Value> state,
               const std::vector<Value>& inputs, const std::vector<std::string>& exprs,
               const Ints& in_axes, const Ints& in_dirs, int64_t length,
               std::vector<Value>& final_state, std::vector<std::vector<Value>>& scanned,
               int64_t& iteration) {
  size_t n = state.size(), m = inputs.size();
  scanned.assign(size_t(body.output_size()) - n, {});
  for (int64_t t = 0; t < length; ++t, ++iteration) {
    for (size_t j = 0; j < n; ++j) c.define(body.input(int(j)).name(), state[j]);
    for (size_t j = 0; j < m; ++j) {
      int64_t at = in_dirs[j] ? length - 1 - t : t;
      c.define(body.input(int(n + j)).name(), scan_slice(c, inputs[j], exprs[j], in_axes[j], at));
    }
    auto outs = body_outputs(c, body, iteration);
    if (!outs) return false;
    for (size_t j = 0; j < n; ++j) state[j] = (*outs)[j];
    for (size_t k = 0; k < scanned.size(); ++k) scanned[k].push_back((*outs)[n + k]);
  }
  final_state = state;
  return true;
}

bool scan(Context& c) {
  const onnx::GraphProto* body = branch(c, "body");
  if (!body) return false;
  const onnx::NodeProto& node = c.node();
  bool batched = c.opset() < 9;  // opset 8: sequence_lens first, a batch axis on everything
  int first = batched ? 1 : 0;
  int64_t m = c.attr_int("num_scan_inputs", 0);
  int64_t n = node.input_size() - first - m;
  if (m < 1 || n < 0 || body->input_size() != n + m)
    return c.refuse("a body whose inputs do not match the scan's");
  if (batched && c.has_input(0)) return c.refuse("sequence_lens");
  Ints in_axes = c.attr_ints("scan_input_axes").value_or(Ints(size_t(m), 0));
  Ints in_dirs =
      c.attr_ints(batched ? "directions" : "scan_input_directions").value_or(Ints(size_t(m), 0));
  int64_t k_out = body->output_size() - n;
  Ints out_axes = c.attr_ints("scan_output_axes").value_or(Ints(size_t(k_out), 0));
  Ints out_dirs = c.attr_ints("scan_output_directions").value_or(Ints(size_t(k_out), 0));
  std::vector<Value> state, inputs;
  std::vector<std::string> exprs, state_exprs;
  for (int64_t i = 0; i < n + m; ++i) {
    const Value& v = c.need(int(first + i));
    if (!c.ok()) return false;
    (i < n ? state : inputs).push_back(v);
    if (i < n && batched) state_exprs.push_back(c.tensor(int(first + i)));
  }
  for (int64_t j = 0; j < m; ++j) {
    exprs.push_back(c.tensor(int(first + n + j)));
    int64_t rank = c.rank(int(first + n + j));
    if (rank < 1) return c.refuse("a scan input of unknown rank");
    in_axes[size_t(j)] = norm_axis(in_axes[size_t(j)], rank - (batched ? 1 : 0));
  }
  if (!c.ok()) return false;
  auto shape = c.static_shape(int(first + n));
  int64_t axis0 = in_axes[0] + (batched ? 1 : 0);
  if (!shape) return c.refuse("a scan input whose shape is not static");
  int64_t length = (*shape)[size_t(axis0)];
  int64_t entries = batched ? (*shape)[0] : 1;
  if (entries > 0 && length > kMaxUnrolledSteps / entries)
    return c.refuse("more iterations than the importer unrolls");
  int64_t batch = batched ? (*shape)[0] : 1, iteration = 0;
  // Per batch entry (opset 8), the states and scan inputs taken at that entry.
  std::vector<std::vector<Value>> finals;
  std::vector<std::vector<std::vector<Value>>> outs;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Value> st = state, ins = inputs;
    std::vector<std::string> ex = exprs;
    if (batched) {
      for (size_t j = 0; j < st.size(); ++j) st[j] = scan_slice(c, st[j], state_exprs[j], 0, b);
      for (size_t j = 0; j < ins.size(); ++j) {
        ins[j] = scan_slice(c, ins[j], ex[j], 0, b);
        ex[j] = ins[j].expr;
      }
    }
    std::vector<Value> fin;
    std::vector<std::vector<Value>> sc;
    if (!scan_once(c, *body, st, ins, ex, in_axes, in_dirs, length, fin, sc, iteration))
      return false;
    finals.push_back(fin);
    outs.push_back(sc);
  }
  if (!batched) {
    for (int64_t j = 0; j < n; ++j) c.alias(int(j), finals[0][size_t(j)]);
    for (int64_t k = 0; k < k_out; ++k) {
      auto steps = outs[0][size_t(k)];
      if (out_dirs[size_t(k)]) std::reverse(steps.begin(), steps.end());
      int64_t r = steps.empty() || !steps[0].dims ? 0 : int64_t(steps[0].dims->size()) + 1;
      if (c.output_used(int(n + k)) &&
          !emit_stacked(c, int(n + k), steps, norm_axis(out_axes[size_t(k)], r)))
        return false;
    }
    return true;
  }
  // Opset 8: states and scan outputs stacked over the batch again.
  for (int64_t j = 0; j < n; ++j) {
    std::vector<Value> per_batch;
    for (auto& f : finals) per_batch.push_back(f[size_t(j)]);
    if (c.output_used(int(j)) && !emit_stacked(c, int(j), per_batch, 0)) return false;
  }
  for (int64_t k = 0; k < k_out; ++k) {
    std::vector<Value> per_batch;
    for (auto& o : outs) {
      auto steps = o[size_t(k)];
      Value stacked;
      stacked.dtype = steps.empty() ? "" : steps[0].dtype;
      std::string parts;
      for (const Value& v : steps) parts += v.expr + ", ";
      if (steps.empty()) return c.refuse("no iteration (an empty scan output's shape is unknown)");
      stacked.expr = c.temp("R.stack((" + parts + "), axis=0)");
      per_batch.push_back(stacked);
    }
    if (c.output_used(int(n + k)) && !emit_stacked(c, int(n + k), per_batch, 0)) return false;
  }
  return true;
}

}  // namespace

bool convert_if(Context& c) { return if_op(c); }
bool convert_loop(Context& c) { return loop(c); }
bool convert_scan(Context& c) { return scan(c); }

}  // namespace raxc::importer
