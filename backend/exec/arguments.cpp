// Command-line arguments -> entry values (see arguments.h).
#include "backend/exec/arguments.h"

#include <random>

#include "backend/exec/checks.h"
#include "backend/exec/interpreter.h"
#include "backend/io/literal.h"
#include "backend/io/npy.h"
#include "frontend/ir/walks.h"
#include "frontend/printer/printer.h"

namespace raxc::backend {

using runtime::Value;

namespace {

enum class Generated { None, Random, Zeros, Ones };

Generated generated_kind(const std::string& text) {
  if (text == "random") return Generated::Random;
  if (text == "zeros") return Generated::Zeros;
  if (text == "ones") return Generated::Ones;
  return Generated::None;
}

struct ArgError {
  Diagnostic diagnostic;
};

class ArgumentBuilder {
 public:
  explicit ArgumentBuilder(const ArgumentOptions& options)
      : options_(options), rng_(options.seed) {}

  // A value from a file or a literal, for `param` (whose annotation decides the kind).
  Value parse(const ir::Var* param, const std::string& text) {
    const ir::StructInfo* s = param->annotation;
    if (text.ends_with(".npy")) {
      io::Result<runtime::TensorPtr> t = io::read_npy(text);
      if (const io::IoError* e = io::error_of(t)) fail(param, text, e->message);
      return std::get<runtime::TensorPtr>(t);
    }
    io::Result<io::Literal> parsed = io::parse_literal(text);
    if (const io::IoError* e = io::error_of(parsed)) fail(param, text, e->message);
    return from_literal(param, text, std::get<io::Literal>(parsed), s);
  }

  Value from_literal(const ir::Var* param, const std::string& text, const io::Literal& lit,
                     const ir::StructInfo* s) {
    auto unwrap = [&](auto result) {
      if (const io::IoError* e = io::error_of(result)) fail(param, text, e->message);
      return std::get<0>(std::move(result));
    };
    switch (s ? s->kind : ir::SInfoKind::Object) {
      case ir::SInfoKind::Tensor: {
        ir::DataType dt = ir::cast<ir::TensorSInfo>(s)->dtype;
        if (dt.is_void()) fail(param, text, "the parameter's dtype is not annotated");
        return unwrap(io::literal_to_tensor(lit, to_dl(dt)));
      }
      case ir::SInfoKind::Prim: {
        ir::DataType dt = ir::cast<ir::PrimSInfo>(s)->dtype;
        if (dt.is_void())
          dt = lit.kind == io::Literal::Kind::Float ? ir::DataType::Float(64)
                                                    : ir::DataType::Int(64);
        return unwrap(io::literal_to_prim(lit, to_dl(dt)));
      }
      case ir::SInfoKind::Shape: return unwrap(io::literal_to_shape(lit));
      case ir::SInfoKind::Tuple: {
        const auto* ts = ir::cast<ir::TupleSInfo>(s);
        if (!lit.is_sequence() || lit.items.size() != ts->fields.size())
          fail(param, text,
               "expected a tuple of " + std::to_string(ts->fields.size()) + " value(s)");
        runtime::Tuple t;
        for (size_t i = 0; i < lit.items.size(); ++i)
          t.fields.push_back(from_literal(param, text, lit.items[i], ts->fields[i]));
        return t;
      }
      default:
        if (lit.kind == io::Literal::Kind::String) return unwrap(io::literal_to_string(lit));
        fail(param, text,
             "the parameter's annotation (" + printer::print_struct_info(s) +
                 ") does not say what value to make");
    }
  }

  // A generated value shaped from the annotation; dimensions from `frame`, --default-dim.
  Value generate(const ir::Var* param, const std::string& text, Generated how,
                 const ir::StructInfo* s, Frame& frame) {
    switch (s ? s->kind : ir::SInfoKind::Object) {
      case ir::SInfoKind::Tensor: {
        const auto* ts = ir::cast<ir::TensorSInfo>(s);
        const auto* shape = ir::dyn_cast<ir::ShapeExpr>(ts->shape);
        // A tensor of known rank but unknown shape takes --default-dim for every dimension.
        if (!shape && (ts->shape || ts->ndim < 0 || !options_.default_dim))
          fail(param, text,
               "its shape (or its rank, with --default-dim) must be annotated to generate it");
        // R.Tensor(shape) without a dtype: TVMScript's default element type, float32.
        ir::DataType dtype = ts->dtype.is_void() ? ir::DataType::Float(32) : ts->dtype;
        std::vector<int64_t> dims;
        if (shape)
          for (const ir::PrimExpr* d : shape->values) dims.push_back(dimension(param, d, frame));
        else
          dims.assign(static_cast<size_t>(ts->ndim), *options_.default_dim);
        runtime::TensorPtr t = runtime::Tensor::empty(dims, to_dl(dtype));
        if (!t) fail(param, text, "the tensor is too large to allocate");
        if (how == Generated::Random)
          io::fill_random(*t, rng_);
        else if (how == Generated::Ones)
          io::fill_ones(*t);
        else
          io::fill_zeros(*t);
        return t;
      }
      case ir::SInfoKind::Prim: {
        const auto* ps = ir::cast<ir::PrimSInfo>(s);
        runtime::Prim p;
        p.dtype = to_dl(ps->dtype.is_void() ? ir::DataType::Int(64) : ps->dtype);
        if (ps->value) {
          p.i = dimension(param, ps->value, frame);
          p.f = static_cast<double>(p.i);
          return p;
        }
        runtime::TensorPtr one = runtime::Tensor::empty({}, p.dtype);
        if (how == Generated::Random)
          io::fill_random(*one, rng_);
        else if (how == Generated::Ones)
          io::fill_ones(*one);
        p.i = one->get_i64(0);
        p.f = one->get_f64(0);
        return p;
      }
      case ir::SInfoKind::Shape: {
        const auto* ss = ir::cast<ir::ShapeSInfo>(s);
        if (!ss->values) fail(param, text, "its dimensions must be annotated to generate it");
        runtime::Shape shape;
        for (const ir::PrimExpr* d : *ss->values) shape.dims.push_back(dimension(param, d, frame));
        return shape;
      }
      case ir::SInfoKind::Tuple: {
        runtime::Tuple t;
        for (const ir::StructInfo* field : ir::cast<ir::TupleSInfo>(s)->fields)
          t.fields.push_back(generate(param, text, how, field, frame));
        return t;
      }
      default:
        fail(param, text,
             "a value of its annotation (" + printer::print_struct_info(s) +
                 ") cannot be generated");
    }
  }

  // A dimension of a generated value: an expression of known variables, or a lone variable
  // that --bind (already in the frame) or --default-dim gives.
  int64_t dimension(const ir::Var* param, const ir::PrimExpr* d, Frame& frame) {
    for (const ir::PrimVar* v : ir::prim_vars(d)) {
      if (frame.dims.count(v)) continue;
      if (!options_.default_dim)
        throw ArgError{
            make_diagnostic(diag::SymbolicDimensionNotFixed{.variable = v->name}, param->span)};
      frame.dims[v] = *options_.default_dim;
    }
    return eval_dim(d, frame);
  }

  [[noreturn]] void fail(const ir::Var* param, const std::string& text, const std::string& why) {
    throw ArgError{make_diagnostic(
        diag::BadArgument{.argument = param->name, .text = text, .reason = why}, param->span)};
  }

 private:
  const ArgumentOptions& options_;
  std::mt19937_64 rng_;
};

}  // namespace

std::variant<std::vector<Value>, Diagnostic> make_arguments(const ir::Function& f,
                                                            const std::string& name,
                                                            const std::vector<std::string>& given,
                                                            const ArgumentOptions& options) {
  std::vector<std::string> texts = given;
  if (texts.empty() && options.random) texts.assign(f.params.size(), "random");
  if (texts.size() != f.params.size())
    return make_diagnostic(
        diag::EntryArgumentCount{
            .function = name, .expected = f.params.size(), .given = texts.size()},
        f.name_span);
  ArgumentBuilder builder(options);
  Frame frame;
  std::vector<Value> values(texts.size());
  try {
    // Inputs first, in parameter order: they fix the symbolic dimensions they carry.
    for (size_t i = 0; i < texts.size(); ++i) {
      if (generated_kind(texts[i]) != Generated::None) continue;
      values[i] = builder.parse(f.params[i], texts[i]);
      if (auto why = match_struct_info(values[i], f.params[i]->annotation, frame))
        builder.fail(f.params[i], texts[i],
                     "it does not match " + printer::print_struct_info(f.params[i]->annotation) +
                         ": " + *why);
    }
    // Then --bind for the dimensions no input fixed.
    std::vector<const ir::PrimVar*> vars;
    for (const ir::Var* p : f.params) ir::collect_shape_vars(p->annotation, vars);
    for (const auto& [var_name, value] : options.binds) {
      bool known = false;
      for (const ir::PrimVar* v : vars) {
        if (v->name != var_name) continue;
        known = true;
        frame.dims.try_emplace(v, value);
      }
      if (!known)
        return make_diagnostic(
            diag::BadArgument{
                .argument = "--bind",
                .text = var_name + "=" + std::to_string(value),
                .reason = "'" + name + "' has no symbolic dimension named '" + var_name + "'"},
            f.name_span);
    }
    for (size_t i = 0; i < texts.size(); ++i) {
      Generated how = generated_kind(texts[i]);
      if (how != Generated::None)
        values[i] = builder.generate(f.params[i], texts[i], how, f.params[i]->annotation, frame);
    }
  } catch (ArgError& e) {
    return std::move(e.diagnostic);
  } catch (ExecError& e) {
    return std::move(e.diagnostic);
  }
  return values;
}

}  // namespace raxc::backend
