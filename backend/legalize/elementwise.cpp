// Legalization of the element-wise operators (operators.md §3.1, §3.2, §3.4, the activations
// of §3.10, where): one stage over the output, inputs broadcast numpy-style. The per-element
// formulas follow TVM's topi and operators.md's numeric rules: integer divide truncates,
// floor_divide / floor_mod floor, `mod` is the truncated remainder (sign of the dividend),
// round is half to even, clip casts its bounds to the tensor's dtype and applies min before max.
// 16-bit floats evaluate transcendental functions in float32 and round once.
#include <cmath>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;
using ir::PrimKind;

ir::DataType compute_dtype(DataType t) {
  if ((t.code == DataType::Code::Float && t.bits == 16) || t.code == DataType::Code::BFloat)
    return DataType::Float(32);
  return t;
}

Exprs broadcast_indices(Builder& b, const ir::Buffer* input, const Exprs& out) {
  Exprs idx;
  size_t rank = input->shape.size();
  for (size_t d = 0; d < rank; ++d) {
    size_t o = out.size() - rank + d;
    int64_t v = 0;
    bool one = literal(input->shape[d], &v) && v == 1;
    idx.push_back(one ? b.i64(0) : out[o]);
  }
  return idx;
}

const ir::Stmt* elementwise(RuleContext& ctx, const std::string& name,
                            const std::function<const PrimExpr*(const Exprs&)>& value) {
  const ir::Buffer* o = ctx.out();
  return ctx.b.stage(name, o->shape, std::string(o->shape.size(), 'S'),
                     [&](const Exprs& v) { return ctx.b.store(o, value(v), v); });
}

const ir::Stmt* accumulate(RuleContext& ctx, const std::string& name, const Exprs& reduce,
                           const std::function<const PrimExpr*(const Exprs&, DataType)>& term) {
  Builder& b = ctx.b;
  const ir::Buffer* o = ctx.out();
  DataType t = o->dtype;
  DataType acc_t = compute_dtype(t);
  const ir::Buffer* acc = acc_t == t ? o : ctx.alloc(name + "_acc", acc_t, o->shape);
  size_t ro = o->shape.size();
  Exprs extents = o->shape;
  extents.insert(extents.end(), reduce.begin(), reduce.end());
  std::string kinds(ro, 'S');
  kinds.append(reduce.size(), 'R');
  auto out = [&](const Exprs& v) { return Exprs(v.begin(), v.begin() + ro); };
  Builder::StageBody init = [&](const Exprs& v) {
    return b.store(acc, b.constant(acc_t, 0), out(v));
  };
  const ir::Stmt* sum = b.stage(
      name, extents, kinds,
      [&](const Exprs& v) {
        const PrimExpr* x = term(v, acc_t);
        return b.store(acc, reduce.empty() ? x : b.add(b.load(acc, out(v)), x), out(v));
      },
      reduce.empty() ? nullptr : init);
  if (acc == o) return sum;
  return b.seq(
      {sum, elementwise(ctx, "T_cast", [&](const Exprs& v) { return b.cast(t, b.load(acc, v)); })});
}

const PrimExpr* product(Builder& b, const Exprs& dims) {
  const PrimExpr* p = b.i64(1);
  for (const PrimExpr* d : dims) p = b.mul(p, d);
  return p;
}

int norm_axis(int64_t axis, size_t ndim) {
  int64_t n = static_cast<int64_t>(ndim);
  if (axis < -n || axis >= n) return -1;
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

namespace {

using Binary = const PrimExpr* (*)(Builder&, const PrimExpr*, const PrimExpr*, DataType);

// ------------------------------------------------------------------------------- binary
// Operands are tensors, or an R.prim_value scalar (cast to the tensor's dtype, as TVM's
// legalization of a PrimValue operand does).
const ir::Stmt* binary_stage(RuleContext& ctx, Binary f) {
  const PrimExpr* scalar[2] = {nullptr, nullptr};
  if (ctx.inputs.size() == 1 && ctx.call.args.size() == 2) {
    for (int i = 0; i < 2; ++i)
      if (const auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[i]))
        scalar[i] = ctx.to_tir(pv->value);
    if (!scalar[0] && !scalar[1]) return ctx.refuse("a scalar operand that is not R.prim_value");
  } else if (ctx.inputs.size() != 2) {
    return ctx.refuse("this form of the operator");
  }
  DataType t = ctx.in(0)->dtype;
  std::string name = "T_" + std::string(ir::cast<ir::Op>(ctx.call.op)->name.substr(6));
  return elementwise(ctx, name, [&](const Exprs& v) {
    size_t next = 0;
    auto operand = [&](int i) {
      if (scalar[i]) return ctx.b.cast(t, scalar[i]);
      const ir::Buffer* in = ctx.in(next++);
      return ctx.b.load(in, broadcast_indices(ctx.b, in, v));
    };
    const PrimExpr* a = operand(0);
    const PrimExpr* c = operand(1);
    return f(ctx.b, a, c, t);
  });
}

#define BINARY(fname, body)                                                                        \
  const ir::Stmt* fname(RuleContext& ctx) {                                                        \
    return binary_stage(                                                                           \
        ctx, [](Builder& b, const PrimExpr* x, const PrimExpr* y, DataType t) -> const PrimExpr* { \
          body;                                                                                    \
        });                                                                                        \
  }

// Float math in float32 for 16-bit floats, then back.
const PrimExpr* math(Builder& b, const char* fn, Exprs args, DataType t) {
  DataType c = compute_dtype(t);
  for (auto& a : args) a = b.cast(c, a);
  return b.cast(t, b.call(c, std::string("tir.") + fn, std::move(args)));
}

BINARY(add_rule, (void)t; return b.add(x, y))
BINARY(subtract_rule, (void)t; return b.sub(x, y))
BINARY(multiply_rule, (void)t; return b.mul(x, y))
BINARY(divide_rule, (void)t; return b.div(x, y))
BINARY(floor_divide_rule, if (t.is_integer()) return b.floordiv(x, y);
       return math(b, "floor", {b.div(x, y)}, t))
BINARY(mod_rule, if (t.is_integer()) return b.binary(PrimKind::Mod, x, y);
       return math(b, "fmod", {x, y}, t))
BINARY(floor_mod_rule, if (t.is_integer()) return b.floormod(x, y); DataType c = compute_dtype(t);
       const PrimExpr* xc = b.cast(c, x); const PrimExpr* yc = b.cast(c, y);
       return b.cast(t, b.sub(xc, b.mul(b.call(c, "tir.floor", {b.div(xc, yc)}), yc))))
BINARY(power_rule, return math(b, "pow", {x, y}, t))
BINARY(maximum_rule, (void)t; return b.max(x, y))
BINARY(minimum_rule, (void)t; return b.min(x, y))
BINARY(atan2_rule, return math(b, "atan2", {x, y}, t))
BINARY(log_add_exp_rule, DataType c = compute_dtype(t); return b.cast(
    t, b.call(c, "tir.log",
              {b.add(b.call(c, "tir.exp", {b.cast(c, x)}), b.call(c, "tir.exp", {b.cast(c, y)}))})))
BINARY(equal_rule, (void)t; return b.compare(PrimKind::EQ, x, y))
BINARY(not_equal_rule, (void)t; return b.compare(PrimKind::NE, x, y))
BINARY(less_rule, (void)t; return b.compare(PrimKind::LT, x, y))
BINARY(less_equal_rule, (void)t; return b.compare(PrimKind::LE, x, y))
BINARY(greater_rule, (void)t; return b.compare(PrimKind::GT, x, y))
BINARY(greater_equal_rule, (void)t; return b.compare(PrimKind::GE, x, y))
BINARY(bitwise_and_rule, return b.call(t, "tir.bitwise_and", {x, y}))
BINARY(bitwise_or_rule, return b.call(t, "tir.bitwise_or", {x, y}))
BINARY(bitwise_xor_rule, return b.call(t, "tir.bitwise_xor", {x, y}))
BINARY(left_shift_rule, return b.call(t, "tir.shift_left", {x, y}))
BINARY(right_shift_rule, return b.call(t, "tir.shift_right", {x, y}))

const PrimExpr* truth(Builder& b, const PrimExpr* x) {
  if (x->dtype.is_bool()) return x;
  return b.compare(PrimKind::NE, x, b.constant(x->dtype, 0));
}
BINARY(logical_and_rule, return b.cast(t, b.logical_and(truth(b, x), truth(b, y))))
BINARY(logical_or_rule, return b.cast(t, b.logical_or(truth(b, x), truth(b, y))))
BINARY(logical_xor_rule, return b.cast(t, b.compare(PrimKind::NE, truth(b, x), truth(b, y))))

// Integer power fails at lowering in TVM too; refuse instead of computing through double.
const ir::Stmt* power_checked(RuleContext& ctx) {
  if (!ctx.inputs.empty() && !ctx.in(0)->dtype.is_float())
    return ctx.refuse("R.power on integers (TVM lowers float power only)");
  return power_rule(ctx);
}

// -------------------------------------------------------------------------------- unary
using Unary = const PrimExpr* (*)(Builder&, const PrimExpr*, DataType);

const ir::Stmt* unary_stage(RuleContext& ctx, Unary f) {
  if (ctx.inputs.size() != 1) return ctx.refuse("this form of the operator");
  DataType t = ctx.in(0)->dtype;
  std::string name = "T_" + std::string(ir::cast<ir::Op>(ctx.call.op)->name.substr(6));
  for (char& c : name)
    if (c == '.') c = '_';
  return elementwise(ctx, name,
                     [&](const Exprs& v) { return f(ctx.b, ctx.b.load(ctx.in(0), v), t); });
}

#define UNARY(fname, body)                                                                \
  const ir::Stmt* fname(RuleContext& ctx) {                                               \
    return unary_stage(                                                                   \
        ctx, [](Builder& b, const PrimExpr* x, DataType t) -> const PrimExpr* { body; }); \
  }
#define MATH(fname, fn) UNARY(fname, return math(b, fn, {x}, t))

MATH(exp_rule, "exp")
MATH(log_rule, "log")
MATH(sqrt_rule, "sqrt")
MATH(rsqrt_rule, "rsqrt")
MATH(tanh_rule, "tanh")
MATH(sigmoid_rule, "sigmoid")
MATH(sin_rule, "sin")
MATH(cos_rule, "cos")
MATH(tan_rule, "tan")
MATH(asin_rule, "asin")
MATH(acos_rule, "acos")
MATH(atan_rule, "atan")
MATH(sinh_rule, "sinh")
MATH(cosh_rule, "cosh")
MATH(asinh_rule, "asinh")
MATH(acosh_rule, "acosh")
MATH(atanh_rule, "atanh")
MATH(erf_rule, "erf")
UNARY(negative_rule, return b.sub(b.constant(t, 0), x))
UNARY(square_rule, (void)t; return b.mul(x, x))
UNARY(abs_rule, if (t.is_float()) return math(b, "fabs", {x}, t);
      if (t.is_int()) return b.select(b.compare(PrimKind::LT, x, b.constant(t, 0)),
                                      b.sub(b.constant(t, 0), x), x);
      return x)
UNARY(sign_rule, return b.select(b.compare(PrimKind::GT, x, b.constant(t, 0)), b.constant(t, 1),
                                 b.select(b.compare(PrimKind::LT, x, b.constant(t, 0)),
                                          b.constant(t, t.is_uint() ? 0 : -1), b.constant(t, 0))))
UNARY(floor_rule, if (!t.is_float()) return x; return math(b, "floor", {x}, t))
UNARY(ceil_rule, if (!t.is_float()) return x; return math(b, "ceil", {x}, t))
UNARY(trunc_rule, if (!t.is_float()) return x; return math(b, "trunc", {x}, t))
UNARY(round_rule, if (!t.is_float()) return x; return math(b, "round", {x}, t))
UNARY(bitwise_not_rule, return b.call(t, "tir.bitwise_not", {x}))
UNARY(logical_not_rule, return b.cast(t, b.logical_not(truth(b, x))))
UNARY(isnan_rule, (void)t; return b.call(DataType::Bool(), "tir.isnan", {x}))
UNARY(isinf_rule, (void)t; return b.call(DataType::Bool(), "tir.isinf", {x}))
UNARY(isfinite_rule, (void)t; return b.call(DataType::Bool(), "tir.isfinite", {x}))
UNARY(relu_rule, return b.max(x, b.constant(t, 0)))
UNARY(relu6_rule, return b.max(b.min(x, b.constant(t, 6)), b.constant(t, 0)))
// TVM's topi: x * (0.5 + erf(x * 0.5^0.5) * 0.5).
UNARY(gelu_rule, DataType c = compute_dtype(t); const PrimExpr* xc = b.cast(c, x);
      const PrimExpr* e = b.call(c, "tir.erf", {b.mul(xc, b.float_imm(c, std::sqrt(0.5)))});
      return b.cast(t, b.mul(xc, b.add(b.float_imm(c, 0.5), b.mul(e, b.float_imm(c, 0.5))))))
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
UNARY(gelu_tanh_rule, DataType c = compute_dtype(t); const PrimExpr* xc = b.cast(c, x);
      const PrimExpr* cube = b.mul(b.mul(xc, xc), xc);
      const PrimExpr* inner = b.mul(b.float_imm(c, std::sqrt(2.0 / 3.14159265358979323846)),
                                    b.add(xc, b.mul(b.float_imm(c, 0.044715), cube)));
      return b.cast(t, b.mul(b.mul(b.float_imm(c, 0.5), xc),
                             b.add(b.float_imm(c, 1.0), b.call(c, "tir.tanh", {inner})))))
UNARY(silu_rule, DataType c = compute_dtype(t); const PrimExpr* xc = b.cast(c, x);
      return b.cast(t, b.mul(xc, b.call(c, "tir.sigmoid", {xc}))))

// TVM's topi.nn.leaky_relu: x where x > 0, else x * alpha (alpha a constant of x's dtype).
const ir::Stmt* leakyrelu_rule(RuleContext& ctx) {
  double alpha = analysis::ops::attr_float(ctx.infer, "alpha").value_or(0.01);
  DataType t = ctx.in(0)->dtype;
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    Builder& b = ctx.b;
    const PrimExpr* x = b.load(ctx.in(0), v);
    return b.select(b.compare(PrimKind::GT, x, b.constant(t, 0)), x,
                    b.mul(x, b.constant(t, alpha)));
  });
}

// TVM's legalization of selu: scale * (max(0, x) + min(0, alpha * (exp(x) - 1))), with
// alpha and scale the constants of the SELU paper; exp in float32 for 16-bit floats.
UNARY(selu_rule, DataType c = compute_dtype(t); const PrimExpr* xc = b.cast(c, x);
      const PrimExpr* neg = b.mul(b.float_imm(c, 1.6732632423543772848170429916717),
                                  b.sub(b.call(c, "tir.exp", {xc}), b.float_imm(c, 1.0)));
      return b.cast(t, b.mul(b.float_imm(c, 1.0507009873554804934193349852946),
                             b.add(b.max(xc, b.float_imm(c, 0)), b.min(b.float_imm(c, 0), neg)))))

// TVM's topi.nn.softplus: x where beta * x > threshold (exp would overflow, the function is
// linear there), else log(1 + exp(beta * x)) / beta.
const ir::Stmt* softplus_rule(RuleContext& ctx) {
  double beta = analysis::ops::attr_float(ctx.infer, "beta").value_or(1.0);
  double threshold = analysis::ops::attr_float(ctx.infer, "threshold").value_or(20.0);
  DataType t = ctx.in(0)->dtype;
  DataType c = compute_dtype(t);
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    Builder& b = ctx.b;
    const PrimExpr* x = b.cast(c, b.load(ctx.in(0), v));
    const PrimExpr* z = b.mul(x, b.float_imm(c, beta));
    const PrimExpr* soft =
        b.div(b.call(c, "tir.log", {b.add(b.float_imm(c, 1.0), b.call(c, "tir.exp", {z}))}),
              b.float_imm(c, beta));
    return b.cast(t, b.select(b.compare(PrimKind::GT, z, b.float_imm(c, threshold)), x, soft));
  });
}

// R.clip(x, min, max): the bounds are PrimValue operands, cast to x's dtype; min before max.
const ir::Stmt* clip_rule(RuleContext& ctx) {
  if (ctx.inputs.size() != 1 || ctx.call.args.size() != 3) return ctx.refuse("this form of R.clip");
  const PrimExpr* bounds[2] = {};
  for (int i = 0; i < 2; ++i) {
    const auto* pv = ir::dyn_cast<ir::PrimValue>(ctx.call.args[i + 1]);
    if (!pv || !(bounds[i] = ctx.to_tir(pv->value)))
      return ctx.refuse("R.clip with non-literal bounds");
  }
  DataType t = ctx.in(0)->dtype;
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    const PrimExpr* x = ctx.b.load(ctx.in(0), v);
    return ctx.b.max(ctx.b.min(x, ctx.b.cast(t, bounds[1])), ctx.b.cast(t, bounds[0]));
  });
}

// R.astype(x, dtype): TVM's cast (float -> int truncates toward zero, any non-zero is True).
const ir::Stmt* astype_rule(RuleContext& ctx) {
  const ir::Buffer* o = ctx.out();
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    return ctx.b.cast(o->dtype, ctx.b.load(ctx.in(0), v));
  });
}

// R.size(x): the number of elements of x, a 0-d int64 tensor.
const ir::Stmt* size_rule(RuleContext& ctx) {
  const ir::Buffer* x = ctx.in(0);
  return elementwise(ctx, "size", [&](const Exprs&) {
    return ctx.b.cast(ir::DataType::Int(64), product(ctx.b, x->shape));
  });
}

// R.where(condition, x1, x2), all three broadcast.
const ir::Stmt* where_rule(RuleContext& ctx) {
  if (ctx.inputs.size() != 3) return ctx.refuse("this form of R.where");
  return elementwise(ctx, "T_where", [&](const Exprs& v) {
    auto at = [&](size_t i) {
      return ctx.b.load(ctx.in(i), broadcast_indices(ctx.b, ctx.in(i), v));
    };
    return ctx.b.select(truth(ctx.b, at(0)), at(1), at(2));
  });
}

// nn.prelu(x, alpha, axis): alpha[c] * x for negative x, c the index along the channel axis.
const ir::Stmt* prelu_rule(RuleContext& ctx) {
  const ir::Buffer* x = ctx.in(0);
  const ir::Buffer* alpha = ctx.in(1);
  int axis = norm_axis(analysis::ops::attr_int(ctx.infer, "axis").value_or(1), x->shape.size());
  if (axis < 0 || alpha->shape.size() != 1) return ctx.refuse("this form of R.nn.prelu");
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    Builder& b = ctx.b;
    const PrimExpr* xv = b.load(x, v);
    int64_t one = 0;
    const PrimExpr* c = literal(alpha->shape[0], &one) && one == 1 ? b.i64(0) : v[axis];
    return b.select(b.compare(PrimKind::LT, xv, b.constant(x->dtype, 0)),
                    b.mul(b.load(alpha, {c}), xv), xv);
  });
}

// ewise_fma(x1, x2, x3) = x1 * x2 + x3.
const ir::Stmt* ewise_fma_rule(RuleContext& ctx) {
  return elementwise(ctx, "compute", [&](const Exprs& v) {
    Builder& b = ctx.b;
    return b.add(b.mul(b.load(ctx.in(0), v), b.load(ctx.in(1), v)), b.load(ctx.in(2), v));
  });
}

// outer(x1, x2)[i, j] = x1[i] * x2[j].
const ir::Stmt* outer_rule(RuleContext& ctx) {
  return elementwise(ctx, "T_outer", [&](const Exprs& v) {
    Builder& b = ctx.b;
    return b.mul(b.load(ctx.in(0), {v[0]}), b.load(ctx.in(1), {v[1]}));
  });
}

}  // namespace

void add_elementwise_rules(std::vector<Rule>& t) {
  t.insert(t.end(), {
                        {"relax.add", "add", add_rule},
                        {"relax.subtract", "subtract", subtract_rule},
                        {"relax.multiply", "multiply", multiply_rule},
                        {"relax.divide", "divide", divide_rule},
                        {"relax.floor_divide", "floor_divide", floor_divide_rule},
                        {"relax.mod", "mod", mod_rule},
                        {"relax.floor_mod", "floor_mod", floor_mod_rule},
                        {"relax.power", "power", power_checked},
                        {"relax.maximum", "maximum", maximum_rule},
                        {"relax.minimum", "minimum", minimum_rule},
                        {"relax.atan2", "atan2", atan2_rule},
                        {"relax.log_add_exp", "log_add_exp", log_add_exp_rule},
                        {"relax.equal", "equal", equal_rule},
                        {"relax.not_equal", "not_equal", not_equal_rule},
                        {"relax.less", "less", less_rule},
                        {"relax.less_equal", "less_equal", less_equal_rule},
                        {"relax.greater", "greater", greater_rule},
                        {"relax.greater_equal", "greater_equal", greater_equal_rule},
                        {"relax.logical_and", "logical_and", logical_and_rule},
                        {"relax.logical_or", "logical_or", logical_or_rule},
                        {"relax.logical_xor", "logical_xor", logical_xor_rule},
                        {"relax.bitwise_and", "bitwise_and", bitwise_and_rule},
                        {"relax.bitwise_or", "bitwise_or", bitwise_or_rule},
                        {"relax.bitwise_xor", "bitwise_xor", bitwise_xor_rule},
                        {"relax.left_shift", "left_shift", left_shift_rule},
                        {"relax.right_shift", "right_shift", right_shift_rule},
                        {"relax.exp", "exp", exp_rule},
                        {"relax.log", "log", log_rule},
                        {"relax.sqrt", "sqrt", sqrt_rule},
                        {"relax.rsqrt", "rsqrt", rsqrt_rule},
                        {"relax.tanh", "tanh", tanh_rule},
                        {"relax.sigmoid", "sigmoid", sigmoid_rule},
                        {"relax.sin", "sin", sin_rule},
                        {"relax.cos", "cos", cos_rule},
                        {"relax.tan", "tan", tan_rule},
                        {"relax.asin", "asin", asin_rule},
                        {"relax.acos", "acos", acos_rule},
                        {"relax.atan", "atan", atan_rule},
                        {"relax.sinh", "sinh", sinh_rule},
                        {"relax.cosh", "cosh", cosh_rule},
                        {"relax.asinh", "asinh", asinh_rule},
                        {"relax.acosh", "acosh", acosh_rule},
                        {"relax.atanh", "atanh", atanh_rule},
                        {"relax.erf", "erf", erf_rule},
                        {"relax.negative", "negative", negative_rule},
                        {"relax.square", "square", square_rule},
                        {"relax.abs", "abs", abs_rule},
                        {"relax.sign", "sign", sign_rule},
                        {"relax.floor", "floor", floor_rule},
                        {"relax.ceil", "ceil", ceil_rule},
                        {"relax.trunc", "trunc", trunc_rule},
                        {"relax.round", "round", round_rule},
                        {"relax.bitwise_not", "bitwise_not", bitwise_not_rule},
                        {"relax.logical_not", "logical_not", logical_not_rule},
                        {"relax.isnan", "isnan", isnan_rule},
                        {"relax.isinf", "isinf", isinf_rule},
                        {"relax.isfinite", "isfinite", isfinite_rule},
                        {"relax.clip", "clip", clip_rule},
                        {"relax.astype", "cast", astype_rule},
                        // A parameter's cast to the dtype the model computes in.
                        {"relax.wrap_param", "wrap_param", astype_rule},
                        {"relax.size", "size", size_rule},
                        {"relax.where", "where", where_rule},
                        {"relax.nn.relu", "relu", relu_rule},
                        {"relax.nn.relu6", "relu6", relu6_rule},
                        {"relax.nn.gelu", "gelu", gelu_rule},
                        {"relax.nn.gelu_tanh", "gelu_tanh", gelu_tanh_rule},
                        {"relax.nn.silu", "silu", silu_rule},
                        {"relax.nn.prelu", "prelu", prelu_rule},
                        {"relax.nn.leakyrelu", "leaky_relu", leakyrelu_rule},
                        {"relax.nn.selu", "selu", selu_rule},
                        {"relax.nn.softplus", "softplus", softplus_rule},
                        {"relax.ewise_fma", "ewise_fma", ewise_fma_rule},
                        {"relax.outer", "outer", outer_rule},
                    });
}

}  // namespace raxc::backend::legalize
