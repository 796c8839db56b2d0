// Operators an exporter had no ONNX node for and wrote out as a chain of elementary nodes,
// recognised whole before conversion and converted as the operator they stand for, as
// onnxruntime's graph fusions do. PyTorch exports nn.GELU before opset 20 and nn.LayerNorm
// before opset 17 so; converted node by node, a transformer block imported from PyTorch spent
// 7 % of its time on the kernels of its GELU (the matmul epilogue never saw a GELU to fold) and
// 5 % on its two normalisations (test/onnx/make_models.py writes such models).
//
//   GELU        Mul(Mul(x, Add(Erf(Div(x, √2)), 1)), 0.5), the Muls' operands in either order,
//               or Mul(Mul(x, 0.5), Add(...)); Div(x, √2) may be Mul(x, 1/√2)
//               → Gelu(x)
//   LayerNorm   d = Sub(x, ReduceMean(x)); Add(Mul(Div(d, Sqrt(Add(ReduceMean(Pow(d, 2)), ε))),
//               γ), β), both means over the same last axes, keeping them; γ, β constants of more
//               than one element
//               → LayerNormalization(x, γ, β, axis, epsilon = ε)
//
// Every intermediate value must be read by the chain alone (d by its Pow and its Div) and be no
// graph output, so nothing else needs it; constants must hold their value exactly (√2 and 1/√2
// to float32 rounding). A chain that differs anywhere is converted node by node as before. The
// results differ from the decomposed ones by rounding only.
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "importer/context.h"

namespace raxc::importer {
namespace {

class Recogniser {
 public:
  Recogniser(const onnx::GraphProto& g, const ConstantOf& constant,
             const std::set<std::string>& kept)
      : g_(g), constant_(constant) {
    for (int i = 0; i < g.node_size(); ++i)
      for (const std::string& out : g.node(i).output()) producer_[out] = i;
    count_readers(g);
    for (const std::string& name : kept) readers_[name] += 2;  // never "read by the chain alone"
  }

  std::vector<onnx::NodeProto> run() {
    std::vector<std::optional<onnx::NodeProto>> replaced(static_cast<size_t>(g_.node_size()));
    std::vector<bool> removed(static_cast<size_t>(g_.node_size()), false);
    for (int i = 0; i < g_.node_size(); ++i) {
      std::vector<int> chain;
      std::optional<onnx::NodeProto> node = gelu(i, chain);
      if (!node) {
        chain.clear();
        node = layer_norm(i, chain);
      }
      if (!node || claimed(chain, removed)) continue;
      for (int k : chain) removed[static_cast<size_t>(k)] = true;
      removed[static_cast<size_t>(i)] = false;
      replaced[static_cast<size_t>(i)] = std::move(node);
    }
    std::vector<onnx::NodeProto> out;
    for (int i = 0; i < g_.node_size(); ++i) {
      if (removed[static_cast<size_t>(i)]) continue;
      out.push_back(replaced[static_cast<size_t>(i)] ? *replaced[static_cast<size_t>(i)]
                                                     : g_.node(i));
    }
    return out;
  }

 private:
  // A chain overlapping one already replaced is left alone.
  static bool claimed(const std::vector<int>& chain, const std::vector<bool>& removed) {
    for (int k : chain)
      if (removed[static_cast<size_t>(k)]) return true;
    return false;
  }

  // The node defining `value` when it is of `op` and read `reads` times in all; else null.
  const onnx::NodeProto* made_by(const std::string& value, const char* op, int reads,
                                 std::vector<int>& chain) const {
    auto p = producer_.find(value);
    if (p == producer_.end() || readers(value) != reads) return nullptr;
    const onnx::NodeProto& n = g_.node(p->second);
    if (n.op_type() != op || !n.domain().empty() || n.output_size() != 1) return nullptr;
    chain.push_back(p->second);
    return &n;
  }

  // Every read of a value, inside subgraphs too (a branch or loop body may read an outer value).
  void count_readers(const onnx::GraphProto& g) {
    for (const auto& n : g.node()) {
      for (const std::string& in : n.input()) ++readers_[in];
      for (const auto& a : n.attribute()) {
        if (a.has_g()) count_readers(a.g());
        for (const auto& sub : a.graphs()) count_readers(sub);
      }
    }
  }

  // The value of a one-element constant, else nullopt.
  std::optional<double> scalar(const std::string& value) const {
    const Tensor* t = constant_(value);
    return t && t->numel() == 1 ? std::optional(t->real(0)) : std::nullopt;
  }

  int readers(const std::string& value) const {
    auto r = readers_.find(value);
    return r == readers_.end() ? 0 : r->second;
  }

  bool is_scalar(const std::string& value, double want, double tolerance = 0) const {
    std::optional<double> v = scalar(value);
    return v && std::fabs(*v - want) <= tolerance * std::fabs(want);
  }

  // Of a binary node's two inputs, the one that is not the scalar `want` (in either order).
  std::optional<std::string> other_than(const onnx::NodeProto& n, double want,
                                        double tolerance = 0) const {
    if (n.input_size() != 2) return std::nullopt;
    if (is_scalar(n.input(1), want, tolerance)) return n.input(0);
    if (is_scalar(n.input(0), want, tolerance)) return n.input(1);
    return std::nullopt;
  }

  // Add(Erf(x / √2), 1), read once: x, else nullopt.
  std::optional<std::string> erf_part(const std::string& value, std::vector<int>& chain) const {
    const onnx::NodeProto* add = made_by(value, "Add", 1, chain);
    std::optional<std::string> e = add ? other_than(*add, 1.0) : std::nullopt;
    const onnx::NodeProto* erf = e ? made_by(*e, "Erf", 1, chain) : nullptr;
    if (!erf || erf->input_size() != 1) return std::nullopt;
    constexpr double kRounding = 1e-7;  // √2 written in float32
    if (const onnx::NodeProto* div = made_by(erf->input(0), "Div", 1, chain))
      return div->input_size() == 2 && is_scalar(div->input(1), std::sqrt(2.0), kRounding)
                 ? std::optional(div->input(0))
                 : std::nullopt;
    const onnx::NodeProto* mul = made_by(erf->input(0), "Mul", 1, chain);
    return mul ? other_than(*mul, std::sqrt(0.5), kRounding) : std::nullopt;
  }

  // Node `at` as the last Mul of a GELU.
  std::optional<onnx::NodeProto> gelu(int at, std::vector<int>& chain) const {
    const onnx::NodeProto& last = g_.node(at);
    if (last.op_type() != "Mul" || !last.domain().empty() || last.input_size() != 2)
      return std::nullopt;
    std::optional<std::string> x;
    if (std::optional<std::string> product = other_than(last, 0.5)) {
      // Mul(Mul(x, Add(...)), 0.5)
      const onnx::NodeProto* mul = made_by(*product, "Mul", 1, chain);
      for (int side = 0; mul && mul->input_size() == 2 && side < 2 && !x; ++side) {
        std::vector<int> tried = chain;
        std::optional<std::string> inner = erf_part(mul->input(1 - side), tried);
        if (inner && *inner == mul->input(side)) x = inner, chain = tried;
      }
    } else {
      // Mul(Mul(x, 0.5), Add(...))
      for (int side = 0; side < 2 && !x; ++side) {
        std::vector<int> tried = chain;
        const onnx::NodeProto* half = made_by(last.input(side), "Mul", 1, tried);
        std::optional<std::string> h = half ? other_than(*half, 0.5) : std::nullopt;
        std::optional<std::string> inner = h ? erf_part(last.input(1 - side), tried) : h;
        if (inner && *inner == *h) x = inner, chain = tried;
      }
    }
    if (!x) return std::nullopt;
    onnx::NodeProto node;
    node.set_op_type("Gelu");
    node.set_name(last.name());
    node.add_input(*x);
    node.add_output(last.output(0));
    return node;
  }

  // The axes a ReduceMean keeping them averages over (attribute, or input from opset 18), all
  // given as negative and ending at -1; else nullopt.
  std::optional<std::vector<int64_t>> mean_axes(const onnx::NodeProto& n) const {
    std::vector<int64_t> axes;
    bool keepdims = true;
    for (const auto& a : n.attribute()) {
      if (a.name() == "keepdims") keepdims = a.i() != 0;
      if (a.name() == "axes") axes.assign(a.ints().begin(), a.ints().end());
    }
    if (n.input_size() == 2) {  // opset 18: a one-element axes input only
      std::optional<double> axis = scalar(n.input(1));
      if (!axis) return std::nullopt;
      axes = {int64_t(*axis)};
    }
    if (!keepdims || axes.empty()) return std::nullopt;
    for (size_t k = 0; k < axes.size(); ++k)
      if (axes[k] != -int64_t(axes.size() - k)) return std::nullopt;
    return axes;
  }

  // Node `at` as the Add of β that ends a layer normalisation.
  std::optional<onnx::NodeProto> layer_norm(int at, std::vector<int>& chain) const {
    const onnx::NodeProto& add = g_.node(at);
    if (add.op_type() != "Add" || !add.domain().empty() || add.input_size() != 2)
      return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      std::vector<int> tried;
      const onnx::NodeProto* mul = made_by(add.input(side), "Mul", 1, tried);
      const std::string& beta = add.input(1 - side);
      if (!mul || mul->input_size() != 2 || !weight(beta)) continue;
      for (int m = 0; m < 2; ++m) {
        std::vector<int> inner = tried;
        const std::string& gamma = mul->input(1 - m);
        if (!weight(gamma)) continue;
        std::optional<Normalised> n = normalised(mul->input(m), inner);
        if (!n || !over(gamma, n->axes) || !over(beta, n->axes)) continue;
        chain = inner;
        return layer_norm_node(add, *n, gamma, beta);
      }
    }
    return std::nullopt;
  }

  // γ or β: a constant of more than one element (one element would broadcast, which
  // LayerNormalization's scale does not).
  bool weight(const std::string& value) const {
    const Tensor* t = constant_(value);
    return t && t->is_float() && t->numel() > 1;
  }

  // γ or β shaped as the normalised axes, as LayerNormalization's are (a (1, K) γ also
  // broadcasts in the Mul).
  bool over(const std::string& value, const std::vector<int64_t>& axes) const {
    return constant_(value)->dims.size() == axes.size();
  }

  // What a normalisation normalises: its input, over which axes, with which ε.
  struct Normalised {
    std::string x;
    std::vector<int64_t> axes;
    double epsilon;
  };

  // Div(d, Sqrt(Add(ReduceMean(Pow(d, 2)), ε))) with d = Sub(x, ReduceMean(x)).
  std::optional<Normalised> normalised(const std::string& value, std::vector<int>& chain) const {
    const onnx::NodeProto* div = made_by(value, "Div", 1, chain);
    if (!div || div->input_size() != 2) return std::nullopt;
    const std::string& d = div->input(0);
    const onnx::NodeProto* sqrt = made_by(div->input(1), "Sqrt", 1, chain);
    const onnx::NodeProto* add = sqrt ? made_by(sqrt->input(0), "Add", 1, chain) : nullptr;
    if (!add || add->input_size() != 2) return std::nullopt;
    int e = scalar(add->input(1)) ? 1 : 0;
    std::optional<double> epsilon = scalar(add->input(e));
    const onnx::NodeProto* var =
        epsilon ? made_by(add->input(1 - e), "ReduceMean", 1, chain) : nullptr;
    const onnx::NodeProto* pow = var ? made_by(var->input(0), "Pow", 1, chain) : nullptr;
    if (!pow || pow->input_size() != 2 || pow->input(0) != d || !is_scalar(pow->input(1), 2.0))
      return std::nullopt;
    const onnx::NodeProto* sub = made_by(d, "Sub", 2, chain);
    const onnx::NodeProto* mean =
        sub && sub->input_size() == 2 ? made_by(sub->input(1), "ReduceMean", 1, chain) : nullptr;
    if (!mean || mean->input(0) != sub->input(0)) return std::nullopt;
    std::optional<std::vector<int64_t>> axes = mean_axes(*mean);
    if (!axes || axes != mean_axes(*var)) return std::nullopt;
    return Normalised{sub->input(0), *axes, *epsilon};
  }

  static onnx::NodeProto layer_norm_node(const onnx::NodeProto& last, const Normalised& n,
                                         const std::string& gamma, const std::string& beta) {
    onnx::NodeProto node;
    node.set_op_type("LayerNormalization");
    node.set_name(last.name());
    node.add_input(n.x);
    node.add_input(gamma);
    node.add_input(beta);
    node.add_output(last.output(0));
    onnx::AttributeProto* axis = node.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(n.axes.front());
    onnx::AttributeProto* eps = node.add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(static_cast<float>(n.epsilon));
    return node;
  }

  const onnx::GraphProto& g_;
  const ConstantOf& constant_;
  std::map<std::string, int> producer_;
  std::map<std::string, int> readers_;
};

}  // namespace

std::vector<onnx::NodeProto> recognise_decompositions(const onnx::GraphProto& g,
                                                      const ConstantOf& constant,
                                                      const std::set<std::string>& kept) {
  return Recogniser(g, constant, kept).run();
}

}  // namespace raxc::importer
