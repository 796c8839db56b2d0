// import_onnx (onnx_importer.h): parses the ModelProto, checks what the importer relies on
// (a graph, known operator set domains, no cycles, readable external data), runs ONNX's own
// shape inference for the static shapes some conversions need, converts the nodes in
// topological order (ops.cpp) and assembles `main`.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <map>
#include <set>

#include "importer/context.h"
#include "importer/onnx_importer.h"

namespace raxc::importer {
namespace {

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

Diagnostic not_onnx(const std::string& source, const std::string& why) {
  return make_diagnostic(diag::UnreadableOnnxModel{.path = source, .reason = why}, Span{});
}

// Nodes in an order where every input is defined before it is read (Kahn's algorithm), or the
// first node left on a cycle. Inputs nothing defines are a malformed model.
std::variant<std::vector<const onnx::NodeProto*>, Diagnostic> topological_order(
    const onnx::GraphProto& g, const std::set<std::string>& defined_outside,
    const std::string& source) {
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string& out : g.node(i).output())
      if (!out.empty()) producer[out] = i;
  std::vector<int> pending(static_cast<size_t>(g.node_size()), 0);
  std::vector<std::vector<int>> users(static_cast<size_t>(g.node_size()));
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& in : g.node(i).input()) {
      if (in.empty() || defined_outside.count(in)) continue;
      auto p = producer.find(in);
      if (p == producer.end())
        return not_onnx(source, "node '" + g.node(i).name() + "' (" + g.node(i).op_type() +
                                    ") reads '" + in + "', which nothing defines");
      ++pending[static_cast<size_t>(i)];
      users[static_cast<size_t>(p->second)].push_back(i);
    }
  }
  std::vector<const onnx::NodeProto*> order;
  std::vector<int> ready;
  for (int i = g.node_size() - 1; i >= 0; --i)
    if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.back();
    ready.pop_back();
    order.push_back(&g.node(i));
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
  }
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[static_cast<size_t>(i)] > 0) {
      const onnx::NodeProto& n = g.node(i);
      return make_diagnostic(diag::OnnxGraphCycle{.node = n.name().empty() ? n.output(0) : n.name(),
                                                  .op = n.op_type()},
                             Span{});
    }
  return order;
}

// A graph input's annotation; dim_params become symbolic variables named after them (one
// variable per distinct dim_param), unknown dimensions fresh variables.
std::optional<Diagnostic> declare_input(Context& c, const onnx::ValueInfoProto& input,
                                        std::map<std::string, std::string>& syms,
                                        std::vector<std::string>& sym_order,
                                        std::vector<std::string>& signature) {
  const auto& type = input.type().tensor_type();
  std::optional<std::string> dtype = relax_dtype(type.elem_type());
  if (!input.type().has_tensor_type() || !dtype)
    return make_diagnostic(
        diag::UnsupportedOnnxTensorType{.location = "graph input",
                                        .tensor = input.name(),
                                        .type = input.type().has_tensor_type()
                                                    ? onnx_type_name(type.elem_type())
                                                    : "a non-tensor type"},
        Span{});
  Value v;
  v.dtype = *dtype;
  v.expr = c.fresh_name(input.name());
  v.runtime = true;
  std::string annotation = "R.Tensor(dtype=\"" + *dtype + "\")";
  if (type.has_shape()) {
    std::vector<Dim> dims;
    for (const auto& d : type.shape().dim()) {
      if (d.has_dim_value()) {
        dims.push_back(Dim{d.dim_value(), ""});
        continue;
      }
      std::string key = d.has_dim_param() ? d.dim_param() : "";
      std::string& sym = syms[key.empty() ? "\x01" + std::to_string(syms.size()) : key];
      if (sym.empty()) {
        sym = c.fresh_name(key.empty() ? "d" + std::to_string(sym_order.size()) : key);
        sym_order.push_back(sym);
      }
      dims.push_back(Dim{-1, sym});
    }
    annotation = "R.Tensor(" + shape_text(dims) + ", dtype=\"" + *dtype + "\")";
    v.dims = dims;
  }
  signature.push_back(v.expr + ": " + annotation);
  c.define(input.name(), std::move(v));
  return std::nullopt;
}

int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import())
    if (is_default_domain(o.domain())) return o.version();
  return 1;
}

// Converts the nodes of `g` in topological order; `outside` holds the names defined before
// them (graph inputs, initializers, an enclosing graph's values).
std::optional<Diagnostic> convert_nodes(Context& c, const onnx::GraphProto& g,
                                        const std::set<std::string>& outside,
                                        const std::string& source) {
  int64_t opset = c.opset();
  auto order = topological_order(g, outside, source);
  if (auto* d = std::get_if<Diagnostic>(&order)) return *d;
  for (const onnx::NodeProto* node : std::get<std::vector<const onnx::NodeProto*>>(order)) {
    c.begin(*node);
    if (!is_default_domain(node->domain())) {
      if (node->domain() == "ai.onnx.ml" || node->domain() == "ai.onnx.preview.training")
        return make_diagnostic(
            diag::UnsupportedOnnxOperator{.node = c.node_label(),
                                          .op = node->domain() + "." + node->op_type(),
                                          .opset = opset},
            Span{});
      return make_diagnostic(
          diag::UnknownOnnxDomain{.node = c.node_label(), .domain = node->domain()}, Span{});
    }
    Converter convert = find_converter(node->op_type());
    if (!convert)
      return make_diagnostic(
          diag::UnsupportedOnnxOperator{
              .node = c.node_label(), .op = node->op_type(), .opset = opset},
          Span{});
    for (int i = 0; i < node->input_size(); ++i)
      if (!node->input(i).empty() && !c.in(i)) c.refuse("input '" + node->input(i) + "' undefined");
    if (c.ok() && !try_fold(c) && convert(c, *node)) note_known_value(c);
    if (!c.ok()) return *c.error();
  }
  return std::nullopt;
}

}  // namespace

std::optional<Diagnostic> convert_subgraph(Context& c, const onnx::GraphProto& g) {
  if (g.initializer_size() > 0) {
    c.refuse("a subgraph with initializers");
    return *c.error();
  }
  // The enclosing values, less what the subgraph's own nodes define: an unrolled loop's body is
  // converted again, and its values of the previous iteration must not count as defined.
  std::set<std::string> outside;
  for (const auto& [name, v] : c.values()) outside.insert(name);
  for (const auto& n : g.node())
    for (const std::string& out : n.output()) outside.erase(out);
  const onnx::NodeProto& owner = c.node();
  auto d = convert_nodes(c, g, outside, "the subgraph of node '" + c.node_label() + "'");
  c.begin(owner);
  return d;
}

std::vector<std::string> graph_input_names(const std::string& bytes) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return {};
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> out;
  for (const auto& in : m.graph().input())
    if (!inits.count(in.name())) out.push_back(in.name());
  return out;
}

std::variant<std::string, Diagnostic> tensor_pb_to_npy(const std::string& bytes,
                                                       const std::string& source) {
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes))
    return make_diagnostic(
        diag::UnreadableTensorProto{.path = source, .reason = "the protobuf encoding is invalid"},
        Span{});
  Tensor t;
  std::string why;
  switch (decode_tensor(p, ".", t, why)) {
    case DecodeError::None: return encode_npy(t);
    case DecodeError::UnsupportedType:
      return make_diagnostic(
          diag::UnreadableTensorProto{.path = source,
                                      .reason = "its type " + why + " is not supported"},
          Span{});
    default:
      return make_diagnostic(diag::UnreadableTensorProto{.path = source, .reason = why}, Span{});
  }
}

std::variant<ImportResult, Diagnostic> import_onnx(const std::string& bytes,
                                                   const std::string& source,
                                                   const std::string& base_dir,
                                                   const ImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    return not_onnx(source, bytes.empty() ? "the file is empty"
                                          : "the protobuf encoding is invalid (truncated?)");
  if (!model.has_graph() || model.ir_version() <= 0)
    return not_onnx(source, "it has no graph or no IR version");
  int64_t opset = default_opset(model);
  std::set<std::string> known_domains;
  for (const auto& o : model.opset_import()) known_domains.insert(o.domain());
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception&) {
    // ONNX's inference is a help, not a requirement: conversions that need a static shape
    // refuse the node when it is missing.
  }
  const onnx::GraphProto& g = model.graph();

  Context c(options, opset);
  std::set<std::string> outside;
  for (const auto& init : g.initializer()) {
    Tensor t;
    std::string why;
    switch (decode_tensor(init, base_dir, t, why)) {
      case DecodeError::None: break;
      case DecodeError::UnsupportedType:
        return make_diagnostic(
            diag::UnsupportedOnnxTensorType{
                .location = "initializer", .tensor = init.name(), .type = why},
            Span{});
      case DecodeError::ExternalMissing: {
        size_t nl = why.find('\n');
        return make_diagnostic(diag::UnreadableExternalData{.initializer = init.name(),
                                                            .path = why.substr(0, nl),
                                                            .reason = why.substr(nl + 1)},
                               Span{});
      }
      case DecodeError::Malformed:
        return not_onnx(source, "initializer '" + init.name() + "': " + why);
    }
    Value v;
    v.dtype = t.dtype;
    std::vector<Dim> dims;
    for (int64_t d : t.dims) dims.push_back(Dim{d, ""});
    v.dims = dims;
    v.constant = std::move(t);
    c.define(init.name(), std::move(v));
    outside.insert(init.name());
  }

  ImportResult result;
  std::map<std::string, std::string> syms;
  std::vector<std::string> sym_order, signature;
  for (const auto& input : g.input()) {
    if (outside.count(input.name())) continue;  // IR < 4 lists initializers as inputs too
    if (auto d = declare_input(c, input, syms, sym_order, signature)) return *d;
    outside.insert(input.name());
    result.inputs.push_back(input.name());
    auto known = options.known_inputs.find(input.name());
    Tensor t;
    if (known != options.known_inputs.end() && decode_npy(known->second, t)) {
      Value v = c.values().at(input.name());
      v.constant = std::move(t);
      c.define(input.name(), std::move(v));
    }
  }
  for (const auto& vi : g.value_info()) c.set_inferred(vi.name(), vi.type());
  for (const auto& vi : g.output())
    if (!outside.count(vi.name())) c.set_inferred(vi.name(), vi.type());

  // The nodes as converted: decompositions of GELU and layer normalisation recognised whole.
  onnx::GraphProto nodes;
  {
    std::map<std::string, const onnx::NodeProto*> constant_nodes;
    std::map<std::string, std::string> identities;  // (exporters share equal weights so)
    for (const auto& n : g.node()) {
      if (!n.domain().empty() || n.output_size() != 1) continue;
      if (n.op_type() == "Constant") constant_nodes[n.output(0)] = &n;
      if (n.op_type() == "Identity" && n.input_size() == 1) identities[n.output(0)] = n.input(0);
    }
    std::map<std::string, Tensor> decoded;
    ConstantOf constant = [&](std::string name) -> const Tensor* {
      for (int hops = 0; identities.count(name) && hops < 16; ++hops) name = identities[name];
      auto v = c.values().find(name);  // inferred types define values too, without constants
      if (v != c.values().end() && v->second.constant) return &*v->second.constant;
      auto n = constant_nodes.find(name);
      if (n == constant_nodes.end()) return nullptr;
      auto [kept, fresh] = decoded.try_emplace(name);
      std::string why;
      if (fresh && constant_node_value(*n->second, kept->second, why) != DecodeError::None)
        kept->second.dtype.clear();
      return kept->second.dtype.empty() ? nullptr : &kept->second;
    };
    std::set<std::string> graph_outputs;
    for (const auto& out : g.output()) graph_outputs.insert(out.name());
    for (onnx::NodeProto& n : recognise_decompositions(g, constant, graph_outputs))
      *nodes.add_node() = std::move(n);
  }
  if (auto d = convert_nodes(c, nodes, outside, source)) return *d;

  std::vector<std::string> outputs;
  for (const auto& out : g.output()) {
    auto it = c.values().find(out.name());
    if (it == c.values().end())
      return not_onnx(source, "graph output '" + out.name() + "' is not defined");
    Value v = it->second;
    if (!v.sequence) {
      outputs.push_back(c.tensor_of(v, out.name()));
      continue;
    }
    // A sequence output is the tuple of its elements.
    std::string tuple = "(";
    for (size_t k = 0; k < v.sequence->size(); ++k)
      tuple += c.tensor_of((*v.sequence)[k], out.name() + "_" + std::to_string(k)) + ", ";
    outputs.push_back(tuple + ")");
  }
  if (outputs.empty()) return not_onnx(source, "the graph has no outputs");

  std::string& t = result.text;
  t = "# Imported from " + std::filesystem::path(source).filename().string() + " (ONNX opset " +
      std::to_string(opset) + ") by raxc import.\n";
  t += "@I.ir_module\nclass Module:\n    @R.function\n    def main(";
  size_t num_input = signature.size();
  for (const std::string& p : c.params()) signature.push_back(p);
  for (size_t i = 0; i < signature.size(); ++i) t += (i ? ", " : "") + signature[i];
  t += "):\n";
  for (const std::string& s : sym_order) t += "        " + s + " = T.int64()\n";
  if (!c.params().empty())
    t += "        R.func_attr({\"num_input\": " + std::to_string(num_input) + "})\n";
  t += c.body();
  if (outputs.size() == 1) {
    t += "        return " + outputs[0] + "\n";
  } else {
    t += "        return (";
    for (size_t i = 0; i < outputs.size(); ++i) t += (i ? ", " : "") + outputs[i];
    t += ")\n";
  }
  result.weights = std::move(c.weights());
  return result;
}

}  // namespace raxc::importer
