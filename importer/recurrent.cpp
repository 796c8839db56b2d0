// The recurrent operators RNN, GRU and LSTM (opsets 7-14), unrolled over their static sequence
// length into Relax operators: the input projection of every step is one R.matmul, then each
// step is a matmul with the recurrence weights, the gates (R.split) and their activations. The
// forward, reverse and bidirectional directions, `layout` 1 (batch first), `clip`, LSTM's
// peepholes and `input_forget`, GRU's `linear_before_reset`, the activations ONNX lists with
// their alpha / beta, initial states and `sequence_lens` (a step past a batch entry's length
// keeps its state and writes zeros to Y, as ONNX's reference does) are all covered.
#include <cstdio>
#include <map>

#include "importer/context.h"

namespace raxc::importer {
namespace {

using Ints = std::vector<int64_t>;

enum class Cell { Rnn, Gru, Lstm };

int gate_count(Cell k) { return k == Cell::Rnn ? 1 : k == Cell::Gru ? 3 : 4; }

std::vector<std::string> default_activations(Cell k) {
  if (k == Cell::Rnn) return {"Tanh"};
  if (k == Cell::Gru) return {"Sigmoid", "Tanh"};
  return {"Sigmoid", "Tanh", "Tanh"};
}

// One activation of the `activations` attribute with the alpha / beta it consumes.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

// The alpha and beta defaults are those of the ONNX operator of the same name; an activation
// that takes them consumes the next values of activation_alpha / activation_beta in order.
std::optional<std::vector<Activation>> activations(Context& c, Cell k, int dirs) {
  std::vector<std::string> names;
  if (const auto* a = c.attr("activations"))
    for (const auto& s : a->strings()) names.push_back(s);
  if (names.empty())
    for (int d = 0; d < dirs; ++d)
      for (const auto& n : default_activations(k)) names.push_back(n);
  size_t per = default_activations(k).size();
  if (names.size() != per * static_cast<size_t>(dirs)) {
    c.refuse(std::to_string(names.size()) + " activations for " + std::to_string(dirs) +
             " direction(s)");
    return std::nullopt;
  }
  std::vector<double> alphas = c.attr_floats("activation_alpha").value_or(std::vector<double>{});
  std::vector<double> betas = c.attr_floats("activation_beta").value_or(std::vector<double>{});
  size_t ai = 0, bi = 0;
  static const std::map<std::string, std::pair<double, double>> kDefaults = {
      {"Sigmoid", {0, 0}},
      {"Tanh", {0, 0}},
      {"Relu", {0, 0}},
      {"Softsign", {0, 0}},
      {"Softplus", {0, 0}},
      {"LeakyRelu", {0.01, 0}},
      {"ThresholdedRelu", {1, 0}},
      {"ScaledTanh", {1, 1}},
      {"HardSigmoid", {0.2, 0.5}},
      {"Elu", {1, 0}},
      {"Affine", {1, 0}}};
  std::vector<Activation> out;
  for (const auto& n : names) {
    auto it = kDefaults.find(n);
    if (it == kDefaults.end()) {
      c.refuse("the activation '" + n + "'");
      return std::nullopt;
    }
    Activation a{n, it->second.first, it->second.second};
    bool takes_alpha = n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" ||
                       n == "HardSigmoid" || n == "Elu" || n == "Affine";
    bool takes_beta = n == "ScaledTanh" || n == "HardSigmoid" || n == "Affine";
    if (takes_alpha && ai < alphas.size()) a.alpha = alphas[ai++];
    if (takes_beta && bi < betas.size()) a.beta = betas[bi++];
    out.push_back(a);
  }
  return out;
}

// The recurrence of one node: its operands as Relax variables and the static sizes.
class Unroller {
 public:
  Unroller(Context& c, Cell kind, std::string dtype) : c_(c), kind_(kind), dt_(std::move(dtype)) {}

  std::string k(double v) const { return Context::scalar(v, dt_); }
  std::string T(const std::string& e) { return c_.temp(e); }

  std::string apply(const Activation& a, const std::string& x) {
    const std::string& n = a.name;
    if (n == "Sigmoid") return T("R.sigmoid(" + x + ")");
    if (n == "Tanh") return T("R.tanh(" + x + ")");
    if (n == "Relu") return T("R.nn.relu(" + x + ")");
    if (n == "Softsign") return T("R.divide(" + x + ", R.add(R.abs(" + x + "), " + k(1) + "))");
    if (n == "Softplus") return T("R.log(R.add(R.exp(" + x + "), " + k(1) + "))");
    if (n == "Affine")
      return T("R.add(R.multiply(" + x + ", " + k(a.alpha) + "), " + k(a.beta) + ")");
    if (n == "ScaledTanh")
      return T("R.multiply(R.tanh(R.multiply(" + x + ", " + k(a.beta) + ")), " + k(a.alpha) + ")");
    if (n == "HardSigmoid")
      return T("R.clip(R.add(R.multiply(" + x + ", " + k(a.alpha) + "), " + k(a.beta) + "), 0, 1)");
    std::string pos = T("R.greater(" + x + ", " + k(0) + ")");
    if (n == "LeakyRelu")
      return T("R.where(" + pos + ", " + x + ", R.multiply(" + x + ", " + k(a.alpha) + "))");
    if (n == "ThresholdedRelu")
      return T("R.where(R.greater(" + x + ", " + k(a.alpha) + "), " + x + ", " + k(0) + ")");
    // Elu
    return T("R.where(" + pos + ", " + x + ", R.multiply(R.subtract(R.exp(" + x + "), " + k(1) +
             "), " + k(a.alpha) + "))");
  }

  // Gate pre-activations are clipped to [-clip, clip] when `clip` is given.
  std::string clipped(const std::string& x) {
    if (!clip_) return x;
    char bounds[80];
    std::snprintf(bounds, sizeof bounds, ", %.17g, %.17g)", -*clip_, *clip_);
    return T("R.clip(" + x + bounds);
  }

  // Row d of a (num_directions, ...) operand, without the leading axis.
  std::string row(const std::string& v, int d, const Ints& rest) {
    return T("R.reshape(R.take(" + v + ", R.const([" + std::to_string(d) +
             "], \"int64\"), axis=0), R.shape(" + int_list(rest) + "))");
  }

  std::string gate(const std::string& parts, int g) {
    return gate_count(kind_) == 1 ? parts : T(parts + "[" + std::to_string(g) + "]");
  }

  Context& c_;
  Cell kind_;
  std::string dt_;
  std::optional<double> clip_;
  int64_t seq_ = 0, batch_ = 0, hidden_ = 0, input_ = 0;
  std::string mask_lens_;  // sequence_lens (batch,) as int64, or empty when every entry is full
};

// The operands of one direction.
struct Direction {
  std::string wt, rt;         // W^T (I, G*H), R^T (H, G*H)
  std::string wb, rb;         // the biases (G*H,), empty when absent
  std::string p_i, p_o, p_f;  // LSTM peepholes (H,), empty when absent
  std::string h0, c0;         // initial states (batch, H)
  std::vector<Activation> act;
};

struct Result {
  std::vector<std::string> y;  // per step t: (batch, H)
  std::string h, c;            // final states (batch, H)
};

Result run_direction(Unroller& u, const Direction& dir, const std::string& xw, bool reverse,
                     bool linear_before_reset, bool input_forget) {
  int G = gate_count(u.kind_);
  Result r;
  r.y.resize(static_cast<size_t>(u.seq_));
  std::string h = dir.h0, cell = dir.c0;
  for (int64_t s = 0; s < u.seq_; ++s) {
    int64_t t = reverse ? u.seq_ - 1 - s : s;
    std::string x =
        u.T("R.reshape(R.take(" + xw + ", R.const([" + std::to_string(t) +
            "], \"int64\"), axis=0), R.shape(" + int_list({u.batch_, G * u.hidden_}) + "))");
    std::string hr = u.T("R.matmul(" + h + ", " + dir.rt + ")");
    std::string nh, nc;
    if (u.kind_ == Cell::Rnn) {
      std::string pre = u.T("R.add(" + x + ", " + hr + ")");
      if (!dir.rb.empty()) pre = u.T("R.add(" + pre + ", " + dir.rb + ")");
      nh = u.apply(dir.act[0], u.clipped(pre));
    } else if (u.kind_ == Cell::Gru) {
      std::string xs = u.T("R.split(" + x + ", indices_or_sections=3, axis=1)");
      std::string rw = u.T("R.split(" + dir.rt + ", indices_or_sections=3, axis=1)");
      std::string rb =
          dir.rb.empty() ? "" : u.T("R.split(" + dir.rb + ", indices_or_sections=3, axis=0)");
      auto hpart = [&](int g, const std::string& hv) {
        std::string m = u.T("R.matmul(" + hv + ", " + u.gate(rw, g) + ")");
        return rb.empty() ? m : u.T("R.add(" + m + ", " + u.gate(rb, g) + ")");
      };
      std::string z =
          u.apply(dir.act[0], u.clipped(u.T("R.add(" + u.gate(xs, 0) + ", " + hpart(0, h) + ")")));
      std::string rr =
          u.apply(dir.act[0], u.clipped(u.T("R.add(" + u.gate(xs, 1) + ", " + hpart(1, h) + ")")));
      std::string hh;
      if (linear_before_reset)
        hh = u.T("R.multiply(" + rr + ", " + hpart(2, h) + ")");
      else
        hh = hpart(2, u.T("R.multiply(" + rr + ", " + h + ")"));
      std::string ht =
          u.apply(dir.act[1], u.clipped(u.T("R.add(" + u.gate(xs, 2) + ", " + hh + ")")));
      // (1 - z) * ht + z * h
      std::string one_minus = u.T("R.subtract(" + u.k(1) + ", " + z + ")");
      nh =
          u.T("R.add(R.multiply(" + one_minus + ", " + ht + "), R.multiply(" + z + ", " + h + "))");
    } else {
      std::string pre = u.T("R.add(" + x + ", " + hr + ")");
      if (!dir.rb.empty()) pre = u.T("R.add(" + pre + ", " + dir.rb + ")");
      std::string g = u.T("R.split(" + pre + ", indices_or_sections=4, axis=1)");
      auto peep = [&](const std::string& v, const std::string& p, const std::string& cv) {
        return p.empty() ? v : u.T("R.add(" + v + ", R.multiply(" + p + ", " + cv + "))");
      };
      std::string i = u.apply(dir.act[0], u.clipped(peep(u.gate(g, 0), dir.p_i, cell)));
      std::string f = input_forget
                          ? u.T("R.subtract(" + u.k(1) + ", " + i + ")")
                          : u.apply(dir.act[0], u.clipped(peep(u.gate(g, 2), dir.p_f, cell)));
      std::string cc = u.apply(dir.act[1], u.clipped(u.gate(g, 3)));
      nc = u.T("R.add(R.multiply(" + f + ", " + cell + "), R.multiply(" + i + ", " + cc + "))");
      std::string o = u.apply(dir.act[0], u.clipped(peep(u.gate(g, 1), dir.p_o, nc)));
      nh = u.T("R.multiply(" + o + ", " + u.apply(dir.act[2], nc) + ")");
    }
    if (!u.mask_lens_.empty()) {
      // Steps at or past an entry's length leave its state alone and output zeros.
      std::string live = u.T("R.expand_dims(R.less(R.const(" + std::to_string(t) +
                             ", \"int64\"), " + u.mask_lens_ + "), axis=[1])");
      r.y[static_cast<size_t>(t)] = u.T("R.where(" + live + ", " + nh + ", " + u.k(0) + ")");
      nh = u.T("R.where(" + live + ", " + nh + ", " + h + ")");
      if (!nc.empty()) nc = u.T("R.where(" + live + ", " + nc + ", " + cell + ")");
    } else {
      r.y[static_cast<size_t>(t)] = nh;
    }
    h = nh;
    if (!nc.empty()) cell = nc;
  }
  r.h = h;
  r.c = cell;
  return r;
}

// A (num_directions, batch, H) state operand (layout 0) or (batch, num_directions, H) (layout 1)
// as one (batch, H) row per direction; zeros when absent.
std::string initial_state(Unroller& u, int input, int d, bool batch_first) {
  Context& c = u.c_;
  Ints rest{u.batch_, u.hidden_};
  if (!c.has_input(input))
    return u.T("R.zeros(R.shape(" + int_list(rest) + "), dtype=\"" + u.dt_ + "\")");
  std::string v = c.tensor(input);
  if (batch_first) v = u.T("R.permute_dims(" + v + ", axes=[1, 0, 2])");
  return u.row(v, d, rest);
}

bool recurrent(Context& c, Cell kind) {
  std::string x = c.tensor(0), w = c.tensor(1), rw = c.tensor(2);
  if (!c.ok()) return false;
  const std::string dt = c.in(0)->dtype;
  if (dt.rfind("float", 0) != 0) return c.refuse_type(c.node().input(0), dt);
  auto xs = c.static_shape(0), ws = c.static_shape(1), rs = c.static_shape(2);
  if (!xs || xs->size() != 3 || !ws || ws->size() != 3 || !rs || rs->size() != 3)
    return c.refuse("X, W or R whose shapes are not static");
  bool batch_first = c.attr_int("layout", 0) != 0;
  std::string direction = c.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return c.refuse("direction='" + direction + "'");
  int dirs = direction == "bidirectional" ? 2 : 1;
  int G = gate_count(kind);
  Unroller u(c, kind, dt);
  u.seq_ = (*xs)[batch_first ? 1 : 0];
  u.batch_ = (*xs)[batch_first ? 0 : 1];
  u.input_ = (*xs)[2];
  u.hidden_ = c.attr_int("hidden_size", (*rs)[2]);
  if (u.seq_ * dirs > kMaxUnrolledSteps)
    return c.refuse("a sequence longer than the importer unrolls");
  if ((*ws)[0] != dirs || (*ws)[1] != G * u.hidden_ || (*rs)[2] != u.hidden_)
    return c.refuse("W or R shapes that do not match hidden_size and direction");
  if (const auto* a = c.attr("clip")) u.clip_ = a->f();
  auto acts = activations(c, kind, dirs);
  if (!acts) return false;
  bool lbr = kind == Cell::Gru && c.attr_int("linear_before_reset", 0) != 0;
  bool input_forget = kind == Cell::Lstm && c.attr_int("input_forget", 0) != 0;
  if (batch_first) x = u.T("R.permute_dims(" + x + ", axes=[1, 0, 2])");
  // sequence_lens: masking only when some entry is shorter than the sequence.
  if (c.has_input(4)) {
    const Tensor* lens = c.constant(4);
    bool full = lens != nullptr;
    if (lens)
      for (int64_t v : lens->integers()) full = full && v == u.seq_;
    if (!full) u.mask_lens_ = u.T("R.astype(" + c.tensor(4) + ", \"int64\")");
    if (!c.ok()) return false;
  }
  const int64_t GH = G * u.hidden_;
  std::vector<Result> results;
  for (int d = 0; d < dirs; ++d) {
    Direction dir;
    dir.act.assign(acts->begin() + d * static_cast<long>(acts->size() / dirs),
                   acts->begin() + (d + 1) * static_cast<long>(acts->size() / dirs));
    dir.wt = u.T("R.permute_dims(" + u.row(w, d, {GH, u.input_}) + ", axes=[1, 0])");
    dir.rt = u.T("R.permute_dims(" + u.row(rw, d, {GH, u.hidden_}) + ", axes=[1, 0])");
    std::string xw = u.T("R.matmul(" + x + ", " + dir.wt + ")");
    if (c.has_input(3)) {
      std::string b = u.row(c.tensor(3), d, {2 * GH});
      std::string parts = u.T("R.split(" + b + ", indices_or_sections=2, axis=0)");
      dir.wb = u.T(parts + "[0]");
      dir.rb = u.T(parts + "[1]");
      // The input bias joins the projection of every step at once; GRU keeps Rb per gate (its
      // third gate multiplies Rb by the reset gate when linear_before_reset).
      xw = u.T("R.add(" + xw + ", " + dir.wb + ")");
    }
    dir.h0 = initial_state(u, 5, d, batch_first);
    if (kind == Cell::Lstm) {
      dir.c0 = initial_state(u, 6, d, batch_first);
      if (c.has_input(7)) {
        std::string p = u.T("R.split(" + u.row(c.tensor(7), d, {3 * u.hidden_}) +
                            ", indices_or_sections=3, axis=0)");
        dir.p_i = u.T(p + "[0]");
        dir.p_o = u.T(p + "[1]");
        dir.p_f = u.T(p + "[2]");
      }
    }
    if (!c.ok()) return false;
    bool reverse = direction == "reverse" || d == 1;
    results.push_back(run_direction(u, dir, xw, reverse, lbr, input_forget));
  }
  // Y: (seq, dirs, batch, H), or (batch, seq, dirs, H) with layout 1.
  if (c.output_used(0)) {
    std::string steps;
    for (int64_t t = 0; t < u.seq_; ++t) {
      std::string per_dir;
      for (int d = 0; d < dirs; ++d)
        per_dir += results[static_cast<size_t>(d)].y[static_cast<size_t>(t)] + ", ";
      steps += u.T("R.stack((" + per_dir + "), axis=0)") + ", ";
    }
    std::string y = "R.stack((" + steps + "), axis=0)";
    if (batch_first) y = "R.permute_dims(" + u.T(y) + ", axes=[2, 0, 1, 3])";
    c.emit(0, y, dt);
  }
  auto states = [&](int out, bool cell) {
    if (!c.output_used(out)) return;
    std::string parts;
    for (const Result& r : results) parts += (cell ? r.c : r.h) + ", ";
    std::string s = "R.stack((" + parts + "), axis=0)";
    if (batch_first) s = "R.permute_dims(" + u.T(s) + ", axes=[1, 0, 2])";
    c.emit(out, s, dt);
  };
  states(1, false);
  if (kind == Cell::Lstm) states(2, true);
  return c.ok();
}

}  // namespace

bool convert_rnn(Context& c) { return recurrent(c, Cell::Rnn); }
bool convert_gru(Context& c) { return recurrent(c, Cell::Gru); }
bool convert_lstm(Context& c) { return recurrent(c, Cell::Lstm); }

}  // namespace raxc::importer
