// The state of one import: every ONNX value's Relax expression, dtype, static shape and, when
// known at import time, its constant value; the text of `main`'s body as it grows; and the
// helpers the operator converters (ops.cpp) share. One binding per emitted Relax call, named
// after the ONNX value it defines (sanitised), so the .rx text reads like the graph.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "importer/onnx_importer.h"
#include "importer/tensor.h"

namespace raxc::importer {

// A dimension: a static extent (>= 0), or a symbolic variable of `main`'s signature, or unknown.
struct Dim {
  int64_t value = -1;
  std::string sym;
  bool known() const { return value >= 0; }
};

struct Value {
  std::string expr;                      // Relax variable (empty: a constant not materialised yet)
  std::string dtype;                     // "" when unknown
  std::optional<std::vector<Dim>> dims;  // nullopt: rank unknown
  std::optional<Tensor> constant;        // the value, when known at import time
  bool runtime =
      false;  // a graph input: its known value only serves operands that must be constant
  // An ONNX sequence (sequences.cpp): its elements, known at import time; null for a tensor.
  std::shared_ptr<const std::vector<Value>> sequence = nullptr;
};

class Context;
// A converter: reads the node's inputs and attributes through the context and defines its
// outputs, or reports why it cannot (Context::refuse) and returns false.
using Converter = bool (*)(Context&, const onnx::NodeProto&);
// The converter of an operator of the default domain, or null.
Converter find_converter(const std::string& op_type);
// Converters that live in their own files (recurrent.cpp, ...), listed in ops.cpp's table.
bool convert_rnn(Context& c);
bool convert_gru(Context& c);
bool convert_lstm(Context& c);
bool convert_if(Context& c);
bool convert_dft(Context& c);
bool convert_stft(Context& c);
bool convert_mel_weight_matrix(Context& c);
bool convert_loop(Context& c);
bool convert_tfidf(Context& c);
bool convert_scan(Context& c);
// Resize through per-axis interpolation matrices (resize_matrix.cpp): output extents, the
// scales ONNX maps coordinates with, the roi (empty unless tf_crop_and_resize) and the mode.
bool resize_by_matrices(Context& c, const std::vector<int64_t>& out,
                        const std::vector<double>& scales, const std::vector<double>& roi,
                        const std::string& ctm);
// Converts the nodes of a subgraph (If's branches) into the current body, reading the
// enclosing values; the current node stays the owner (model.cpp).
std::optional<Diagnostic> convert_subgraph(Context& c, const onnx::GraphProto& g);
// The sequence operators' converters (sequences.cpp), by ONNX name.
const std::map<std::string, Converter>& sequence_table();
// Every operator with a converter (the README's coverage table).
std::vector<std::string> supported_operators();
// Folds the current node when its operands are all constants (fold.cpp); false when not.
bool try_fold(Context& c);

// The value a Constant node holds, in any of its attribute forms (ops.cpp); on failure `why`
// says what is wrong (for an UnsupportedType, the type).
DecodeError constant_node_value(const onnx::NodeProto& node, Tensor& t, std::string& why);

// patterns.cpp: g's nodes with the decompositions of operators ONNX lacked until recently (GELU,
// layer normalisation) each replaced by the one node it stands for (Gelu, LayerNormalization).
// `constant` gives a value's constant tensor (an initializer's, a Constant node's) or null;
// `kept` names values that must stay (the graph's outputs).
using ConstantOf = std::function<const Tensor*(const std::string&)>;
std::vector<onnx::NodeProto> recognise_decompositions(const onnx::GraphProto& g,
                                                      const ConstantOf& constant,
                                                      const std::set<std::string>& kept);
// After a node is converted: when its operands are known and one of them is a graph input's
// given value, records the folded value beside the emitted one (fold.cpp).
void note_known_value(Context& c);

class Context {
 public:
  Context(const ImportOptions& options, int64_t opset) : options_(options), opset_(opset) {}

  // ---- set-up (model.cpp)
  std::string fresh_name(const std::string& onnx_name);
  // (Re)defines a value; a loop body's values are defined again in every unrolled iteration.
  void define(const std::string& name, Value v) {
    materialised_.erase(name);
    values_[name] = std::move(v);
  }
  void set_inferred(const std::string& name, const onnx::TypeProto& type);
  const std::map<std::string, Value>& values() const { return values_; }
  std::vector<Weight>& weights() { return weights_; }
  std::vector<std::string>& params() { return params_; }
  const std::string& body() const { return body_; }
  const ImportOptions& options() const { return options_; }

  // ---- the node being converted
  void begin(const onnx::NodeProto& node) { node_ = &node; }
  int64_t opset() const { return opset_; }
  const onnx::NodeProto& node() const { return *node_; }
  // Input i, or null when absent (past the end or an empty name).
  const Value* in(int i) const;
  const Value& need(int i);  // input i; a refusal already recorded when absent (caller checks ok())
  bool has_input(int i) const { return in(i) != nullptr; }
  bool output_used(int i) const;
  int64_t rank(int i) const;  // -1 when unknown
  // Static dimensions of input i when all are known.
  std::optional<std::vector<int64_t>> static_shape(int i) const;

  // Attributes.
  const onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t def) const;
  double attr_float(const std::string& name, double def) const;
  std::string attr_string(const std::string& name, const std::string& def) const;
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;
  std::optional<std::vector<double>> attr_floats(const std::string& name) const;

  // The constant value of input i (an initializer, a Constant, a folded value, a known input).
  const Tensor* constant(int i) const;
  std::optional<std::vector<int64_t>> const_ints(int i) const;

  // The Relax expression of input i (a constant is materialised: inlined or a weight).
  std::string tensor(int i);
  std::string tensor_of(const Value& v, const std::string& onnx_name);
  // A 0-d constant of `dtype` holding `v` (`R.const(v, "dtype")`).
  static std::string scalar(double v, const std::string& dtype);

  // Binds `expr` to a new variable and defines output i with it.
  std::string emit(int out, const std::string& expr, const std::string& dtype,
                   std::optional<std::vector<Dim>> dims = std::nullopt);
  // Binds an intermediate value (not an ONNX output) and returns its variable.
  std::string temp(const std::string& expr);
  // Declares a new symbolic extent (`n = T.int64()`), for a match_cast to bind a data-dependent
  // one (NonZero's count), and returns its name.
  std::string symbolic(const std::string& base);
  // Defines output i as an existing value (Identity, Dropout) or a folded constant.
  void alias(int out, const Value& v);
  void define_constant(int out, Tensor t);
  // Records the value output i is known to take with the given inputs (it stays computed).
  void define_known(int out, Tensor t);

  // Records why the node cannot be converted (RX1402) and returns false.
  bool refuse(const std::string& why);
  // Unsupported dtype of an input or output (RX1403).
  bool refuse_type(const std::string& tensor_name, const std::string& type);
  std::optional<Diagnostic>& error() { return error_; }
  bool ok() const { return !error_; }
  std::string node_label() const;

 private:
  const ImportOptions& options_;
  int64_t opset_;
  const onnx::NodeProto* node_ = nullptr;
  std::map<std::string, Value> values_;
  std::map<std::string, std::string> materialised_;  // constant value name -> Relax expr
  std::set<std::string> names_;
  std::vector<Weight> weights_;
  std::vector<std::string> params_;  // weight parameter declarations "name: R.Tensor(...)"
  std::string body_;
  std::optional<Diagnostic> error_;
  int temps_ = 0;
};

// Import-time work a converter may do for one node: the steps an unrolled loop or recurrence
// takes, and the elements of a constant table it builds (interpolation and DFT matrices,
// position tables). Beyond them the node is refused rather than left to exhaust memory.
inline constexpr int64_t kMaxUnrolledSteps = 4096;
inline constexpr int64_t kMaxTableElements = int64_t(1) << 24;

// Normalises a possibly negative axis against `rank`.
inline int64_t norm_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }
std::string int_list(const std::vector<int64_t>& v);   // "[1, 2]"
std::string shape_text(const std::vector<Dim>& dims);  // "(1, n, 3)" for an annotation

}  // namespace raxc::importer
