// Context (context.h): values, names, constants and the emitted bindings of one import.
#include "importer/context.h"

#include <cmath>
#include <cstdio>

namespace raxc::importer {
namespace {

bool reserved(const std::string& name) {
  static const std::set<std::string> kWords = {
      "R",      "T",        "I",     "Module", "cls",      "main",    "and",    "as",   "assert",
      "async",  "await",    "break", "class",  "continue", "def",     "del",    "elif", "else",
      "except", "finally",  "for",   "from",   "global",   "if",      "import", "in",   "is",
      "lambda", "nonlocal", "not",   "or",     "pass",     "raise",   "return", "try",  "while",
      "with",   "yield",    "True",  "False",  "None",     "metadata"};
  return kWords.count(name) > 0;
}

}  // namespace

std::string int_list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string shape_text(const std::vector<Dim>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += i ? ", " : "";
    s += dims[i].known() ? std::to_string(dims[i].value) : "\"" + dims[i].sym + "\"";
  }
  return s + (dims.size() == 1 ? ",)" : ")");
}

std::string Context::fresh_name(const std::string& onnx_name) {
  std::string base;
  for (char c : onnx_name)
    base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
  if (reserved(base)) base += "_";
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

void Context::set_inferred(const std::string& name, const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return;
  Value& v = values_[name];
  if (auto dt = relax_dtype(type.tensor_type().elem_type())) v.dtype = *dt;
  if (!type.tensor_type().has_shape()) return;
  std::vector<Dim> dims;
  for (const auto& d : type.tensor_type().shape().dim())
    dims.push_back(d.has_dim_value() ? Dim{d.dim_value(), ""} : Dim{});
  v.dims = dims;
}

const Value* Context::in(int i) const {
  if (i < 0 || i >= node_->input_size() || node_->input(i).empty()) return nullptr;
  auto it = values_.find(node_->input(i));
  return it == values_.end() ? nullptr : &it->second;
}

const Value& Context::need(int i) {
  static const Value kNone;
  if (const Value* v = in(i)) return *v;
  refuse("input " + std::to_string(i) + " missing");
  return kNone;
}

bool Context::output_used(int i) const {
  return i < node_->output_size() && !node_->output(i).empty();
}

int64_t Context::rank(int i) const {
  const Value* v = in(i);
  if (!v) return -1;
  if (v->constant) return static_cast<int64_t>(v->constant->dims.size());
  return v->dims ? static_cast<int64_t>(v->dims->size()) : -1;
}

std::optional<std::vector<int64_t>> Context::static_shape(int i) const {
  const Value* v = in(i);
  if (!v) return std::nullopt;
  if (v->constant) return v->constant->dims;
  if (!v->dims) return std::nullopt;
  std::vector<int64_t> out;
  for (const Dim& d : *v->dims) {
    if (!d.known()) return std::nullopt;
    out.push_back(d.value);
  }
  return out;
}

const onnx::AttributeProto* Context::attr(const std::string& name) const {
  for (const auto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t Context::attr_int(const std::string& name, int64_t def) const {
  const auto* a = attr(name);
  return a ? a->i() : def;
}

double Context::attr_float(const std::string& name, double def) const {
  const auto* a = attr(name);
  return a ? a->f() : def;
}

std::string Context::attr_string(const std::string& name, const std::string& def) const {
  const auto* a = attr(name);
  return a ? a->s() : def;
}

std::optional<std::vector<int64_t>> Context::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<double>> Context::attr_floats(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

const Tensor* Context::constant(int i) const {
  const Value* v = in(i);
  return v && v->constant ? &*v->constant : nullptr;
}

std::optional<std::vector<int64_t>> Context::const_ints(int i) const {
  const Tensor* t = constant(i);
  if (!t) return std::nullopt;
  return t->integers();
}

std::string Context::tensor(int i) {
  const Value& v = need(i);
  if (ok() && v.sequence) refuse("a sequence as input " + std::to_string(i));
  return ok() ? tensor_of(v, node_->input(i)) : "";
}

std::string Context::tensor_of(const Value& v, const std::string& onnx_name) {
  if (!v.expr.empty()) return v.expr;
  if (!v.constant) return "";
  auto it = materialised_.find(onnx_name);
  if (it != materialised_.end()) return it->second;
  const Tensor& t = *v.constant;
  std::string name = fresh_name(onnx_name);
  std::optional<std::string> literal =
      t.numel() <= options_.inline_limit ? const_literal(t) : std::nullopt;
  if (literal) {
    body_ += "        " + name + " = " + *literal + "\n";
  } else {
    std::vector<Dim> dims;
    for (int64_t d : t.dims) dims.push_back(Dim{d, ""});
    weights_.push_back({name, encode_npy(t)});
    params_.push_back(name + ": R.Tensor(" + shape_text(dims) + ", dtype=\"" + t.dtype + "\")");
  }
  materialised_[onnx_name] = name;
  values_[onnx_name].expr = name;
  return name;
}

std::string Context::scalar(double v, const std::string& dtype) {
  char buf[40];
  bool is_float = dtype[0] == 'f' || dtype == "bfloat16";
  if (dtype == "bool") return std::string("R.const(") + (v != 0 ? "True" : "False") + ", \"bool\")";
  if (is_float && std::isinf(v))
    return std::string("R.const(\"") + (v < 0 ? "-inf" : "inf") + "\", \"" + dtype + "\")";
  if (is_float) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return "R.const(" + s + ", \"" + dtype + "\")";
  }
  return "R.const(" + std::to_string(static_cast<int64_t>(v)) + ", \"" + dtype + "\")";
}

std::string Context::emit(int out, const std::string& expr, const std::string& dtype,
                          std::optional<std::vector<Dim>> dims) {
  const std::string& onnx_name = node_->output(out);
  std::string name = fresh_name(onnx_name);
  body_ += "        " + name + " = " + expr + "\n";
  Value& v = values_[onnx_name];  // may hold ONNX's inferred dtype and shape already
  v.expr = name;
  if (v.dtype.empty()) v.dtype = dtype;
  if (!v.dims) v.dims = std::move(dims);
  v.constant.reset();
  return name;
}

std::string Context::temp(const std::string& expr) {
  std::string name = fresh_name("t" + std::to_string(temps_++));
  body_ += "        " + name + " = " + expr + "\n";
  return name;
}

std::string Context::symbolic(const std::string& base) {
  std::string name = fresh_name(base);
  body_ += "        " + name + " = T.int64()\n";
  return name;
}

void Context::alias(int out, const Value& v) { define(node_->output(out), v); }

void Context::define_constant(int out, Tensor t) {
  Value v;
  v.dtype = t.dtype;
  std::vector<Dim> dims;
  for (int64_t d : t.dims) dims.push_back(Dim{d, ""});
  v.dims = dims;
  v.constant = std::move(t);
  define(node_->output(out), std::move(v));
}

void Context::define_known(int out, Tensor t) {
  Value& v = values_[node_->output(out)];
  if (v.expr.empty() || v.sequence) return;
  v.constant = std::move(t);
  v.runtime = true;
}

std::string Context::node_label() const {
  return node_->name().empty() ? (node_->output_size() ? node_->output(0) : node_->op_type())
                               : node_->name();
}

bool Context::refuse(const std::string& why) {
  if (!error_)
    error_ = make_diagnostic(
        diag::UnsupportedOnnxOperatorVariant{
            .node = node_label(), .op = node_->op_type(), .opset = opset_, .condition = why},
        Span{});
  return false;
}

bool Context::refuse_type(const std::string& tensor_name, const std::string& type) {
  if (!error_)
    error_ = make_diagnostic(
        diag::UnsupportedOnnxTensorType{.location = "node '" + node_label() + "': operator '" +
                                                    node_->op_type() + "' of opset " +
                                                    std::to_string(opset_),
                                        .tensor = tensor_name,
                                        .type = type},
        Span{});
  return false;
}

}  // namespace raxc::importer
