#!/usr/bin/env python3
"""Operator suite: every legalized Relax operator, run by `raxc run`, against numpy and PyTorch.

The case table below is the suite. Each case is one operator call with its inputs (shapes,
dtypes, how values are drawn), the symbolic annotation of its parameters (dimensions named
here are bound at run time from the data), and numpy's answer. The cases of one family become
one generated .rx module: a function per case and a `main` that calls them all and returns
their results as a tuple, so each family is ONE `raxc run` process (inputs as .npy files,
results through --save). Tolerances per dtype are in TOLERANCE, nowhere else. The reference is
numpy, or PyTorch (float64, one thread) for what numpy lacks: convolutions, pooling,
interpolation, attention and the losses.

Modes:
  op_check.py --raxc build/raxc                  compare with numpy
  op_check.py --raxc build/raxc --round-trip     also `raxc lower` each module, `raxc check` the
                                                 output, run it and require identical results
  op_check.py --raxc build/raxc --keep DIR       keep the generated modules and inputs in DIR
  op_check.py --list-ops                         the operators the suite covers

numpy and torch are Debian's python3-numpy and python3-torch (scripts/install-deps installs
both; the suite requires them): run with /usr/bin/python3 (ctest does).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
warnings.filterwarnings("ignore", message="scatter_reduce")

# Per-dtype tolerance (rtol, atol) of a float result against numpy; integers and bools are
# compared exactly. float16 results are compared against numpy computing in float32 and
# rounding once (raxc computes 16-bit floats through float32).
TOLERANCE = {
    "float64": (1e-12, 1e-12),
    "float32": (2e-5, 2e-6),
    "float16": (2e-3, 2e-3),
}
# Reductions sum many rounded terms: their tolerance is scaled by this factor.
REDUCTION_SCALE = 10


class Case:
    def __init__(self, family, call, inputs, ref, sym=None, reduction=False, name=None):
        self.family = family
        self.call = call            # the Relax call, over the parameter names
        self.inputs = inputs        # [(name, shape, dtype, values)]
        self.ref = ref              # numpy reference: f(*arrays) -> array or tuple of arrays
        self.sym = sym or {}        # name -> annotated shape with symbolic dims ("n")
        self.reduction = reduction
        self.name = name

    def op(self):
        return self.call.split("(")[0]


CASES = []


def case(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


def draw(rng, shape, dtype, values):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if values == "pos":
        return (rng.random(shape) * 4 + 0.1).astype(dtype)
    if values and values.startswith("below"):  # valid indices for an extent
        return rng.integers(0, int(values[5:]), size=shape).astype(dtype)
    if values and values.startswith("negidx"):  # valid indices, negative ones counting from the end
        n = int(values[6:])
        return rng.integers(-n, n, size=shape).astype(dtype)
    if values == "huge":  # exp would overflow without the max subtracted first
        return (rng.standard_normal(shape) * 1000).astype(dtype)
    if values == "exp_range":  # exp's whole range: overflow, denormal results, inf, NaN
        v = np.linspace(-110, 95, int(np.prod(shape))).astype(dtype)
        v[:5] = [np.inf, -np.inf, np.nan, 0.0, -0.0]
        return v.reshape(shape)
    if values == "with_nan":  # a NaN in each row, elsewhere normal values
        v = rng.standard_normal(shape).astype(dtype)
        v[..., shape[-1] // 3] = np.nan
        return v
    if values == "near_one":  # a product of hundreds of them stays finite
        return (1 + (rng.random(shape) - 0.5) * 0.02).astype(dtype)
    if values == "wide":
        return (rng.standard_normal(shape) * 5).astype(dtype)
    if values == "pos_above_one":
        return (rng.random(shape) * 4 + 1.01).astype(dtype)
    if values == "unit":
        return (rng.random(shape) * 1.8 - 0.9).astype(dtype)
    if values == "nonzero":
        v = rng.integers(1, 9, size=shape) * rng.choice([-1, 1], size=shape)
        return v.astype(dtype)
    if values == "halves":
        return (rng.integers(-8, 8, size=shape) / 2).astype(dtype)
    if values and values.startswith("const:"):  # given values ("const:1,-2,3")
        return np.array([float(v) for v in values[6:].split(",")]).astype(dtype).reshape(shape)
    if values == "sorted":  # ascending, with repeats (bucketize's boundaries)
        if np.issubdtype(np.dtype(dtype), np.integer):
            return np.sort(rng.integers(0, 5, size=shape)).astype(dtype)
        return np.sort(rng.standard_normal(shape)).astype(dtype)
    if values == "small":
        return rng.integers(0, 5, size=shape).astype(dtype)
    if np.issubdtype(np.dtype(dtype), np.integer):
        lo = 0 if np.issubdtype(np.dtype(dtype), np.unsignedinteger) else -20
        return rng.integers(lo, 20, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def T(name, shape, dtype="float32", values=None):
    return (name, shape, dtype, values)


def tt(a):
    """A float64 torch tensor of an array (integer arrays keep their dtype)."""
    a = np.ascontiguousarray(a)
    return torch.from_numpy(a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a)


def from_torch(t, dtype):
    return t.detach().numpy().astype(dtype)


# ------------------------------------------------------------------------------ the cases
def f32_via(fn):
    """numpy's answer computed in float32 (float16 inputs) and cast back to the input dtype."""
    def run(*xs):
        dt = xs[0].dtype
        wide = [x.astype(np.float32) if x.dtype == np.float16 else x for x in xs]
        return np.asarray(fn(*wide)).astype(dt)
    return run


erf = np.vectorize(math.erf, otypes=[np.float64])

BINARY = [
    ("add", np.add, None), ("subtract", np.subtract, None), ("multiply", np.multiply, None),
    ("divide", np.divide, "nonzero"), ("maximum", np.maximum, None), ("minimum", np.minimum, None),
    ("power", np.power, "pos"), ("floor_divide", np.floor_divide, "nonzero"),
    ("floor_mod", np.mod, "nonzero"), ("mod", np.fmod, "nonzero"), ("atan2", np.arctan2, None),
    ("log_add_exp", np.logaddexp, None),
]
for op, fn, values in BINARY:
    case("binary", f"R.{op}(x, y)", [T("x", (3, 4), "float32", values if op == "power" else None),
                                     T("y", (3, 4), "float32", values)], fn)
# numpy broadcasting, symbolic dims bound at run time, odd sizes, rank 0, 0-size dims
case("binary", "R.add(x, y)", [T("x", (5, 1, 3)), T("y", (4, 1))], np.add)
case("binary", "R.add(x, y)", [T("x", (7, 5)), T("y", (5,))], np.add, sym={"x": ("n", 5)})
case("binary", "R.multiply(x, y)", [T("x", (2, 3)), T("y", (2, 3))], np.multiply,
     sym={"x": ("n", "m"), "y": ("n", "m")})
case("binary", "R.subtract(x, y)", [T("x", ()), T("y", (3,))], np.subtract)
case("binary", "R.add(x, y)", [T("x", (0, 3)), T("y", (1, 3))], np.add)
case("binary", "R.maximum(x, y)", [T("x", (1, 4), "float16"), T("y", (3, 1), "float16")], np.maximum)
case("binary", "R.add(x, R.prim_value(T.float32(1.5)))", [T("x", (2, 3))], lambda x: x + np.float32(1.5),
     name="add_prim_value")
case("binary", "R.multiply(R.prim_value(T.int32(3)), x)", [T("x", (4,), "int32")], lambda x: 3 * x,
     name="multiply_prim_value")
case("binary", "R.add(x, y)", [T("x", (3,), "float64"), T("y", (3,), "float64")], np.add)
# TVM's integer semantics: divide truncates, mod is the truncated remainder
for dt in ["int32", "int64", "int8"]:
    case("binary", "R.divide(x, y)", [T("x", (16,), dt), T("y", (16,), dt, "nonzero")],
         lambda x, y: (np.trunc(x / y)).astype(x.dtype))
    case("binary", "R.mod(x, y)", [T("x", (16,), dt), T("y", (16,), dt, "nonzero")], np.fmod)
    case("binary", "R.floor_divide(x, y)", [T("x", (16,), dt), T("y", (16,), dt, "nonzero")],
         np.floor_divide)
    case("binary", "R.floor_mod(x, y)", [T("x", (16,), dt), T("y", (16,), dt, "nonzero")], np.mod)
case("binary", "R.add(x, y)", [T("x", (2, 3), "int32"), T("y", (3,), "int32")], np.add)
case("binary", "R.multiply(x, y)", [T("x", (5,), "uint8"), T("y", (5,), "uint8")], np.multiply)
case("binary", "R.floor_divide(x, y)", [T("x", (6,), "float32"), T("y", (6,), "float32", "nonzero")],
     np.floor_divide)
for op, fn in [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
               ("less_equal", np.less_equal), ("greater", np.greater),
               ("greater_equal", np.greater_equal)]:
    case("compare", f"R.{op}(x, y)", [T("x", (4, 5), "int32", "small"), T("y", (5,), "int32", "small")], fn)
case("compare", "R.less(x, y)", [T("x", (3, 2)), T("y", (3, 1))], np.less, sym={"x": ("n", 2), "y": ("n", 1)})
for op, fn in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
               ("logical_xor", np.logical_xor)]:
    case("compare", f"R.{op}(x, y)", [T("x", (6,), "bool"), T("y", (6,), "bool")], fn)
for op, fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
               ("bitwise_xor", np.bitwise_xor)]:
    case("compare", f"R.{op}(x, y)", [T("x", (7,), "int32"), T("y", (7,), "int32")], fn)
case("compare", "R.left_shift(x, y)", [T("x", (5,), "int32", "small"), T("y", (5,), "int32", "small")], np.left_shift)
case("compare", "R.right_shift(x, y)", [T("x", (5,), "int32"), T("y", (5,), "int32", "small")], np.right_shift)

UNARY = [
    ("exp", np.exp, None), ("log", np.log, "pos"), ("sqrt", np.sqrt, "pos"),
    ("rsqrt", lambda x: 1 / np.sqrt(x), "pos"), ("tanh", np.tanh, None),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), None), ("sin", np.sin, None), ("cos", np.cos, None),
    ("tan", np.tan, "unit"), ("asin", np.arcsin, "unit"), ("acos", np.arccos, "unit"),
    ("atan", np.arctan, None), ("sinh", np.sinh, None), ("cosh", np.cosh, None),
    ("asinh", np.arcsinh, None), ("atanh", np.arctanh, "unit"),
    ("acosh", np.arccosh, "pos_above_one"),
    ("erf", lambda x: erf(x).astype(x.dtype), None), ("negative", np.negative, None),
    ("abs", np.abs, None), ("square", np.square, None), ("sign", np.sign, None),
    ("floor", np.floor, "halves"), ("ceil", np.ceil, "halves"), ("trunc", np.trunc, "halves"),
    ("round", np.round, "halves"),
]
for op, fn, values in UNARY:
    case("unary", f"R.{op}(x)", [T("x", (3, 5), "float32", values)], fn)
case("unary", "R.exp(x)", [T("x", (4, 3), "float32")], np.exp, sym={"x": ("n", "m")})
# Long enough for the vectorized loop body (8-16 lanes, interleaved: the inline exp and SLEEF's
# vector functions) and its scalar remainder; the short cases above run the remainder alone.
for op, fn, values in UNARY:
    case("unary", f"R.{op}(x)", [T("x", (2, 131), "float32", values or "wide")], fn, name=f"{op} vector")
case("unary", "R.exp(x)", [T("x", (3, 129), "float32", "exp_range")], np.exp, name="exp range")
case("unary", "R.exp(x)", [T("x", (2, 67), "float64", "wide")], np.exp, name="exp float64 vector")
case("unary", "R.tanh(x)", [T("x", (2, 67), "float64", "wide")], np.tanh, name="tanh float64 vector")
case("unary", "R.tanh(x)", [T("x", (9,), "float16")], f32_via(np.tanh))
case("unary", "R.erf(x)", [T("x", (9,), "float16")], f32_via(lambda x: erf(x)))
case("unary", "R.sqrt(x)", [T("x", (0, 2), "float32", "pos")], np.sqrt)
case("unary", "R.abs(x)", [T("x", (6,), "int32")], np.abs)
case("unary", "R.negative(x)", [T("x", (6,), "int64")], np.negative)
case("unary", "R.sign(x)", [T("x", (6,), "int32")], np.sign)
case("unary", "R.bitwise_not(x)", [T("x", (6,), "int32")], np.bitwise_not)
case("unary", "R.logical_not(x)", [T("x", (6,), "bool")], np.logical_not)
case("unary", "R.isnan(x)", [T("x", (6,))], np.isnan)
case("unary", "R.isfinite(x)", [T("x", (6,))], np.isfinite)
case("unary", "R.isinf(x)", [T("x", (6,))], np.isinf)
case("unary", "R.clip(x, R.prim_value(-0.5), R.prim_value(0.5))", [T("x", (3, 4))],
     lambda x: np.clip(x, -0.5, 0.5))
case("unary", "R.clip(x, R.prim_value(-3), R.prim_value(4))", [T("x", (8,), "int32")],
     lambda x: np.clip(x, -3, 4))
# astype: float -> int truncates toward zero, non-zero -> True
case("unary", 'R.astype(x, "int32")', [T("x", (8,), "float32", "halves")], lambda x: x.astype(np.int32))
case("unary", 'R.astype(x, "float16")', [T("x", (8,))], lambda x: x.astype(np.float16))
case("unary", 'R.astype(x, "bool")', [T("x", (8,), "int32", "small")], lambda x: x.astype(bool))
case("unary", 'R.astype(x, "float32")', [T("x", (8,), "int64")], lambda x: x.astype(np.float32))
case("unary", 'R.astype(x, "uint8")', [T("x", (8,), "int32", "small")], lambda x: x.astype(np.uint8))
case("unary", 'R.wrap_param(x, dtype="float32")', [T("x", (3, 2), "float16")], lambda x: x.astype(np.float32))
case("unary", "R.size(x)", [T("x", (3, 4))], lambda x: np.array(x.size, np.int64))
case("unary", "R.size(x)", [T("x", (5, 2))], lambda x: np.array(x.size, np.int64), sym={"x": ("n", 2)})

case("activation", "R.nn.relu(x)", [T("x", (3, 7))], lambda x: np.maximum(x, 0))
case("activation", "R.nn.relu(x)", [T("x", (5,), "int32")], lambda x: np.maximum(x, 0))
case("activation", "R.nn.relu(x)", [T("x", (2, 6))], lambda x: np.maximum(x, 0), sym={"x": ("b", "d")})
case("activation", "R.nn.gelu(x)", [T("x", (4, 6))],
     lambda x: (0.5 * x.astype(np.float64) * (1 + erf(x / np.sqrt(2)))).astype(np.float32))
case("activation", "R.nn.gelu_tanh(x)", [T("x", (4, 6))],
     lambda x: (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))).astype(np.float32))
case("activation", "R.nn.relu6(x)", [T("x", (3, 7), "float32", "wide")], lambda x: np.clip(x, 0, 6))
case("activation", "R.nn.silu(x)", [T("x", (4, 6))], lambda x: x / (1 + np.exp(-x)))
case("activation", "R.nn.gelu(x)", [T("x", (5,), "float16")],
     f32_via(lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))))
case("activation", "R.nn.prelu(x, a)", [T("x", (2, 3, 4)), T("a", (3,))],
     lambda x, a: np.where(x < 0, a[None, :, None] * x, x))
case("activation", "R.nn.leakyrelu(x, alpha=0.1)", [T("x", (3, 5))], lambda x: np.where(x > 0, x, x * np.float32(0.1)))
case("activation", "R.nn.leakyrelu(x)", [T("x", (4,), "float64")], lambda x: np.where(x > 0, x, x * 0.01))
case("activation", "R.nn.leakyrelu(x, 0.03)", [T("x", (2, 3))], lambda x: np.where(x > 0, x, x * np.float32(0.03)),
     sym={"x": ("n", 3)})
case("activation", "R.nn.selu(x)", [T("x", (3, 6), "float32", "wide")], lambda x: from_torch(torch.selu(tt(x)), np.float32))
case("activation", "R.nn.selu(x)", [T("x", (7,), "float16")], f32_via(lambda x: from_torch(torch.selu(tt(x)), np.float32)))
case("activation", "R.nn.softplus(x)", [T("x", (3, 6), "float32", "wide")],
     lambda x: from_torch(F.softplus(tt(x)), np.float32))
case("activation", "R.nn.softplus(x, beta=2.0, threshold=3.0)", [T("x", (4, 5), "float64", "wide")],
     lambda x: from_torch(F.softplus(tt(x), beta=2.0, threshold=3.0), np.float64))
case("activation", "R.nn.softplus(x)", [T("x", (5,), "float32", "huge")],
     lambda x: from_torch(F.softplus(tt(x)), np.float32), name="softplus_threshold")
case("activation", "R.ewise_fma(x, y, z)", [T("x", (3, 4)), T("y", (3, 4)), T("z", (3, 4))],
     lambda x, y, z: x * y + z)
case("activation", "R.where(c, x, y)", [T("c", (3, 1), "bool"), T("x", (3, 4)), T("y", (4,))], np.where)

# Chains of element-wise operators, which raxc run fuses into one kernel (backend/fuse): the
# calls nest, so the module binds each result once and passes it on.
def gelu64(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


case("fusion", "R.nn.relu(R.add(R.multiply(R.exp(x), y), z))",
     [T("x", (64, 300)), T("y", (64, 300)), T("z", (300,))],
     lambda x, y, z: np.maximum(np.exp(x.astype(np.float64)) * y + z, 0).astype(np.float32))
case("fusion", "R.nn.gelu(R.multiply(R.add(x, y), z))",
     [T("x", (8, 4096)), T("y", (8, 4096)), T("z", (4096,))],
     lambda x, y, z: gelu64((x.astype(np.float64) + y) * z).astype(np.float32), name="add multiply gelu")
case("fusion", "R.multiply(R.add(x, b), R.sigmoid(y))",
     [T("x", (3, 1, 5)), T("b", (4, 1)), T("y", (3, 4, 5))],
     lambda x, b, y: ((x.astype(np.float64) + b) / (1 + np.exp(-y.astype(np.float64)))).astype(np.float32),
     name="broadcast producers")
case("fusion", "R.add(R.exp(x), R.negative(y))", [T("x", (6, 7), "float16"), T("y", (6, 7), "float16")],
     lambda x, y: (np.exp(x.astype(np.float32)).astype(np.float16) - y), name="float16 intermediates")
case("fusion", "R.tanh(R.subtract(R.exp(x), y))", [T("x", (4, 33)), T("y", (4, 33))],
     lambda x, y: np.tanh(np.exp(x.astype(np.float64)) - y).astype(np.float32),
     sym={"x": ("n", "m"), "y": ("n", "m")}, name="symbolic shapes")
case("fusion", "R.astype(R.add(x, y), \"int32\")", [T("x", (5, 9)), T("y", (5, 9))],
     lambda x, y: (x + y).astype(np.int32), name="cast of a sum")

for op, fn in [("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min),
               ("mean", np.mean), ("variance", np.var), ("std", np.std)]:
    case("reduce", f"R.{op}(x, axis=[1])", [T("x", (3, 5, 4))], lambda x, fn=fn: fn(x, axis=1), reduction=True)
    case("reduce", f"R.{op}(x)", [T("x", (3, 4))], lambda x, fn=fn: np.asarray(fn(x), np.float32), reduction=True)
    case("reduce", f"R.{op}(x, axis=[-1, 0], keepdims=True)", [T("x", (2, 3, 5))],
         lambda x, fn=fn: fn(x, axis=(0, 2), keepdims=True), reduction=True)
case("reduce", "R.sum(x, axis=[0])", [T("x", (6, 3))], lambda x: x.sum(axis=0), sym={"x": ("n", 3)}, reduction=True)
case("reduce", "R.sum(x, axis=[1])", [T("x", (3, 0))], lambda x: x.sum(axis=1), reduction=True)
case("reduce", "R.sum(x, axis=[1])", [T("x", (4, 5), "int32")], lambda x: x.sum(axis=1).astype(np.int32))
case("reduce", "R.max(x, axis=[0])", [T("x", (4, 5), "int64")], lambda x: x.max(axis=0))
# Reductions long enough to run vectorized (partial sums and maxima in lanes, then combined).
case("reduce", "R.sum(x, axis=[1])", [T("x", (3, 301))], lambda x: x.sum(axis=1), reduction=True, name="sum vector")
case("reduce", "R.prod(x, axis=[1])", [T("x", (3, 301), "float32", "near_one")], lambda x: x.prod(axis=1), reduction=True, name="prod vector")
case("reduce", "R.max(x, axis=[1])", [T("x", (3, 301))], lambda x: x.max(axis=1), name="max vector")
case("reduce", "R.min(x, axis=[1])", [T("x", (3, 301))], lambda x: x.min(axis=1), name="min vector")
case("reduce", "R.max(x, axis=[1])", [T("x", (3, 301), "float32", "with_nan")], lambda x: x.max(axis=1), name="max NaN")
case("reduce", "R.mean(x, axis=[1])", [T("x", (3, 301))], lambda x: x.mean(axis=1), reduction=True, name="mean vector")
# The outer loop reduces: its iterations write the same outputs and must not run in parallel.
case("reduce", "R.sum(x, axis=[0])", [T("x", (256, 257))], lambda x: x.sum(axis=0), reduction=True, name="sum over the outer axis")
case("elementwise", "R.add(x, y)", [T("x", (256, 300)), T("y", (300,))], np.add, name="broadcast rows in parallel")
case("reduce", "R.mean(x, axis=[1])", [T("x", (3, 40), "float16")],
     f32_via(lambda x: x.mean(axis=1)), reduction=True)
case("reduce", "R.sum(x, axis=[1])", [T("x", (3, 100), "float16")],
     f32_via(lambda x: x.sum(axis=1)), reduction=True)
case("reduce", "R.argmax(x, axis=1)", [T("x", (4, 7))], lambda x: x.argmax(axis=1))
case("reduce", "R.argmin(x, axis=0, keepdims=True)", [T("x", (4, 7))], lambda x: x.argmin(axis=0)[None, :])
case("reduce", "R.argmax(x)", [T("x", (3, 5))], lambda x: np.asarray(x.argmax()))
case("reduce", "R.variance(x, axis=[1])", [T("x", (2, 64))],
     lambda x: (x + 1000).astype(np.float64).var(axis=1).astype(np.float32), reduction=True,
     name="variance_offset")


def softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    x = x.astype(np.float64)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


case("softmax", "R.nn.softmax(x)", [T("x", (4, 10))], lambda x: softmax(x).astype(np.float32), reduction=True)
case("softmax", "R.nn.softmax(x)", [T("x", (4, 300))], lambda x: softmax(x).astype(np.float32), reduction=True, name="softmax vector")
# Large enough that the rows run on the thread pool (row_loops.h: 32 Ki iterations and up).
case("softmax", "R.nn.softmax(x)", [T("x", (64, 1024))], lambda x: softmax(x).astype(np.float32), reduction=True, name="softmax rows in parallel")
case("softmax", "R.nn.softmax(x, axis=0)", [T("x", (5, 3))], lambda x: softmax(x, 0).astype(np.float32), reduction=True)
case("softmax", "R.nn.softmax(x, axis=-1)", [T("x", (2, 3, 9))], lambda x: softmax(x).astype(np.float32),
     sym={"x": ("b", "s", 9)}, reduction=True)
case("softmax", "R.nn.cross_entropy_with_logits(x, y)", [T("x", (3, 5)), T("y", (3, 5))],
     lambda x, y: np.asarray(-(x.astype(np.float64) * y).sum() / 3, np.float32), reduction=True)
case("softmax", "R.nn.cross_entropy_with_logits(x, y)", [T("x", (5,)), T("y", (5,))],
     lambda x, y: np.asarray(-(x.astype(np.float64) * y).sum(), np.float32), reduction=True)
def nll_loss(p, t, w=None, reduction="mean", ignore=-100):
    """torch.nn.functional.nll_loss (a 1-D input is one sample)."""
    inp, tgt = tt(p), torch.from_numpy(t.astype(np.int64))
    if p.ndim == 1:
        inp, tgt = inp[None], tgt.reshape(1)
    y = F.nll_loss(inp, tgt, None if w is None else tt(w), ignore_index=ignore, reduction=reduction)
    if p.ndim == 1 and reduction == "none":
        y = y[0]
    return from_torch(y, p.dtype)


case("softmax", "R.nn.nll_loss(p, t, w)", [T("p", (4, 5)), T("t", (4,), "int64", "below5"), T("w", (5,), "float32", "pos")],
     nll_loss, reduction=True)
case("softmax", 'R.nn.nll_loss(p, t, reduction="sum", ignore_index=1)', [T("p", (3, 4, 2)), T("t", (3, 2), "int64", "below4")],
     lambda p, t: nll_loss(p, t, reduction="sum", ignore=1), reduction=True)
case("softmax", 'R.nn.nll_loss(p, t, reduction="none")', [T("p", (4, 3)), T("t", (4,), "int64", "below3")],
     lambda p, t: nll_loss(p, t, reduction="none"))
case("softmax", "R.nn.log_softmax(x)", [T("x", (4, 10))], lambda x: log_softmax(x).astype(np.float32), reduction=True)
case("softmax", "R.nn.softmax(x)", [T("x", (3, 6), "float16")], lambda x: softmax(x).astype(np.float16), reduction=True)
case("softmax", "R.nn.softmax(x)", [T("x", (2, 4), "float32", "huge")], lambda x: softmax(x).astype(np.float32),
     name="softmax_large", reduction=True)


def layer_norm(x, g, b, axes=(-1,), eps=1e-5):
    x64 = x.astype(np.float64)
    m = x64.mean(axis=axes, keepdims=True)
    v = x64.var(axis=axes, keepdims=True)
    return ((x64 - m) / np.sqrt(v + eps) * g + b).astype(x.dtype)


def rms_norm(x, w, axes=(-1,), eps=1e-5):
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt((x64 ** 2).mean(axis=axes, keepdims=True) + eps) * w).astype(x.dtype)


case("norm", "R.nn.layer_norm(x, g, b, axes=[-1])", [T("x", (3, 8)), T("g", (8,)), T("b", (8,))],
     layer_norm, reduction=True)
case("norm", "R.nn.layer_norm(x, g, b, axes=[-1])", [T("x", (3, 300)), T("g", (300,)), T("b", (300,))],
     layer_norm, reduction=True, name="layer_norm vector")
case("norm", "R.nn.layer_norm(x, g, b, axes=[1, 2])", [T("x", (2, 3, 4)), T("g", (3, 4)), T("b", (3, 4))],
     lambda x, g, b: layer_norm(x, g, b, (1, 2)), reduction=True)
case("norm", "R.nn.layer_norm(x, g, b, axes=[-1], epsilon=0.01)", [T("x", (5, 6)), T("g", (6,)), T("b", (6,))],
     lambda x, g, b: layer_norm(x, g, b, eps=0.01), sym={"x": ("n", 6)}, reduction=True)
case("norm", "R.nn.layer_norm(x, g, b, axes=[-1])", [T("x", (3, 8), "float16"), T("g", (8,), "float16"),
                                                     T("b", (8,), "float16")], layer_norm, reduction=True)
def group_norm(x, g, b, groups, eps=1e-5):
    n, c = x.shape[:2]
    x64 = x.astype(np.float64).reshape(n, groups, -1)
    y = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (y.reshape(x.shape) * g.reshape(shape) + b.reshape(shape)).astype(x.dtype)


case("norm", "R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3])",
     [T("x", (2, 4, 3, 5)), T("g", (4,)), T("b", (4,))], lambda x, g, b: group_norm(x, g, b, 2), reduction=True)
case("norm", "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])",
     [T("x", (2, 3, 7)), T("g", (3,)), T("b", (3,))], lambda x, g, b: group_norm(x, g, b, 3), reduction=True)
case("norm", "R.nn.rms_norm(x, w, axes=[-1])", [T("x", (4, 16)), T("w", (16,))], rms_norm, reduction=True)
case("norm", "R.nn.rms_norm(x, w, axes=[-1])", [T("x", (2, 3, 16)), T("w", (16,))], rms_norm,
     sym={"x": ("b", "s", 16)}, reduction=True)

case("matmul", "R.matmul(a, b)", [T("a", (5, 7)), T("b", (7, 3))], np.matmul, reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (2, 5, 7)), T("b", (7, 3))], np.matmul, reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (2, 1, 5, 7)), T("b", (3, 7, 4))], np.matmul, reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (7,)), T("b", (7, 3))], np.matmul, reduction=True)
# B without batch axes of its own (all ones): one product over every row of A.
case("matmul", "R.matmul(a, b)", [T("a", (1, 3, 5, 7)), T("b", (1, 7, 4))], np.matmul, reduction=True,
     name="shared B, batch-1 axes")
case("matmul", "R.matmul(a, b)", [T("a", (8, 128, 256)), T("b", (256, 128))], np.matmul, reduction=True,
     name="shared B, rows split over threads")
case("matmul", "R.matmul(a, b)", [T("a", (2, 5, 7)), T("b", (7,))], np.matmul, reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (6, 7)), T("b", (7, 5))], np.matmul,
     sym={"a": ("n", "k"), "b": ("k", "m")}, reduction=True)
def attention(q, k, v, bias=None, scale=None, causal=None, window=None):
    """BSNH attention with torch in float64; query heads share key/value heads in groups. A
    window keeps the `window` key positions ending at the causal diagonal."""
    q64, k64, v64 = (tt(a).permute(0, 2, 1, 3) for a in (q, k, v))     # BNSH
    group = q.shape[2] // k.shape[2]
    k64, v64 = k64.repeat_interleave(group, dim=1), v64.repeat_interleave(group, dim=1)
    scale = 1 / np.sqrt(q.shape[3]) if scale is None else scale
    s = q64 @ k64.transpose(-1, -2) * scale
    if bias is not None:
        s = s + tt(bias)
    S, T = q.shape[1], k.shape[1]
    offset = 0 if causal in (None, "TopLeft") else T - S
    i, j = torch.arange(S)[:, None] + offset, torch.arange(T)[None, :]
    keep = torch.ones(S, T, dtype=torch.bool)
    if causal:
        keep &= j <= i
    if window:
        keep &= j > i - window
    s = s.masked_fill(~keep, -float("inf"))
    return from_torch((torch.softmax(s, dim=-1) @ v64).permute(0, 2, 1, 3), q.dtype)


case("attention", "R.nn.attention(q, k, v)", [T("q", (2, 3, 2, 4)), T("k", (2, 5, 2, 4)), T("v", (2, 5, 2, 3))],
     attention, reduction=True)
case("attention", "R.nn.attention(q, k, v, scale=0.25)", [T("q", (1, 4, 4, 8)), T("k", (1, 4, 2, 8)),
                                                          T("v", (1, 4, 2, 8))],
     lambda q, k, v: attention(q, k, v, scale=0.25), reduction=True)
case("attention", 'R.nn.attention(q, k, v, causal_mask="TopLeft")', [T("q", (1, 4, 2, 4)), T("k", (1, 6, 2, 4)),
                                                                     T("v", (1, 6, 2, 4))],
     lambda q, k, v: attention(q, k, v, causal="TopLeft"), reduction=True)
case("attention", 'R.nn.attention(q, k, v, causal_mask="BottomRight")', [T("q", (1, 3, 1, 4)), T("k", (1, 5, 1, 4)),
                                                                         T("v", (1, 5, 1, 4))],
     lambda q, k, v: attention(q, k, v, causal="BottomRight"), reduction=True)
case("attention", "R.nn.attention_bias(q, k, v, b)", [T("q", (2, 3, 2, 4)), T("k", (2, 5, 2, 4)), T("v", (2, 5, 2, 4)),
                                                 T("b", (1, 2, 3, 5))],
     lambda q, k, v, b: attention(q, k, v, bias=b), reduction=True)
case("attention", "R.nn.attention(q, k, v)", [T("q", (1, 5, 2, 4)), T("k", (1, 5, 2, 4)), T("v", (1, 5, 2, 4))],
     attention, sym={"q": (1, "s", 2, 4), "k": (1, "s", 2, 4), "v": (1, "s", 2, 4)}, reduction=True)

case("matmul", "R.outer(a, b)", [T("a", (4,)), T("b", (3,))], np.outer)
case("matmul", "R.linear(x, w, b)", [T("x", (2, 5, 7)), T("w", (3, 7)), T("b", (3,))],
     lambda x, w, b: x @ w.T + b, reduction=True)
case("matmul", "R.linear(x, w)", [T("x", (4, 6)), T("w", (5, 6))], lambda x, w: x @ w.T,
     sym={"x": ("n", 6)}, reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (4, 0)), T("b", (0, 3))], np.matmul)
case("matmul", "R.matmul(a, b)", [T("a", (3, 4), "int32"), T("b", (4, 2), "int32")], np.matmul)
# An empty reduction in the loop nests (not float32): zeros, not what the memory held.
case("matmul", "R.matmul(a, b)", [T("a", (4, 0), "int32"), T("b", (0, 3), "int32")], np.matmul)
case("matmul", "R.matmul(a, b)", [T("a", (2, 3), "float64"), T("b", (3, 2), "float64")], np.matmul,
     sym={"a": (2, "k"), "b": ("k", 2)})
case("matmul", "R.matmul(a, b)", [T("a", (2, 0), "float64"), T("b", (0, 2), "float64")], np.matmul,
     sym={"a": (2, "k"), "b": ("k", 2)})
case("matmul", "R.linear(x, w, b)", [T("x", (5, 0), "float64"), T("w", (3, 0), "float64"), T("b", (3,), "float64")],
     lambda x, w, b: x @ w.T + b)
case("conv", "R.nn.conv1d(x, w)", [T("x", (1, 0, 5), "float64"), T("w", (2, 0, 3), "float64")],
     lambda x, w: np.zeros((1, 2, 3)))
case("matmul", 'R.matmul(a, b, out_dtype="float32")', [T("a", (3, 4), "float16"), T("b", (4, 2), "float16")],
     lambda a, b: np.matmul(a.astype(np.float32), b.astype(np.float32)), reduction=True)
case("matmul", "R.matmul(a, b)", [T("a", (3, 40), "float16"), T("b", (40, 2), "float16")],
     lambda a, b: np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16), reduction=True)


def matmul64(a, b):
    """float32 matmul referenced in float64 (long sums: no second float32 rounding to compare)."""
    return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)


# The packed float32 kernel (backend/runtime/matmul.cpp): every edge of its tiling (MR=12/4,
# NR=32/16, KC=256, MC=120, NC=1024), empty axes, K=1, the unpacked path of M <= 4 rows, batch
# broadcast, symbolic axes, and each way it splits work over threads (whole products, column
# groups of a few rows, B's panels then blocks of rows; above 8M multiply-adds). The family "matmul_portable" runs the same cases on the portable
# micro-kernel (RAXC_MATMUL_GENERIC=1), which CPUs without AVX-512 take.
MATMUL_FAST = [
    ([T("a", (13, 37)), T("b", (37, 35))], None),            # one full 12-row tile + edges
    ([T("a", (12, 32)), T("b", (32, 32))], None),            # exactly one tile
    ([T("a", (130, 300)), T("b", (300, 1030))], None),       # past MC, KC and NC; row blocks
    ([T("a", (0, 5)), T("b", (5, 3))], None),                # M = 0
    ([T("a", (3, 4)), T("b", (4, 0))], None),                # N = 0
    ([T("a", (5, 1)), T("b", (1, 70))], None),               # K = 1
    ([T("a", (1, 300)), T("b", (300, 70))], None),           # GEMV, N not a multiple of 16
    ([T("a", (3, 37)), T("b", (37, 50))], None),             # 3 rows, unpacked
    ([T("a", (5, 2, 3)), T("b", (3, 6))], None),             # batch of 2-row products
    ([T("a", (2, 300)), T("b", (300, 14000))], None),        # unpacked, split by columns
    ([T("a", (3001, 60)), T("b", (60, 50))], None),          # tall and narrow, A read in place
    ([T("a", (4, 64, 64)), T("b", (4, 64, 600))], None),     # split by batch
    ([T("a", (3, 100, 200)), T("b", (3, 200, 150))], None),  # 3 products, each split
    ([T("a", (3, 1, 20, 9)), T("b", (1, 4, 9, 33))], None),  # both operands broadcast
    ([T("a", (300,)), T("b", (2, 300, 40))], None),          # 1-D left operand, batched right
    ([T("a", (2, 17, 300)), T("b", (300,))], None),          # 1-D right operand
    ([T("a", (37,)), T("b", (37,))], None),                  # vector dot: a scalar
    ([T("a", (2, 14, 33)), T("b", (2, 33, 45))], {"a": ("b", "n", "k"), "b": ("b", "k", "m")}),
]
# R.linear on the same kernel: the weight is packed from its rows (a transposed B), then the bias
# is added.
LINEAR_FAST = [
    ([T("x", (3, 130, 300)), T("w", (70, 300)), T("b", (70,))], None),  # split over threads
    ([T("x", (13, 300)), T("w", (1030, 300))], None),                   # packed A, narrow edge
    ([T("x", (1, 37)), T("w", (35, 37)), T("b", (35,))], None),          # one row
    ([T("x", (5, 0)), T("w", (3, 0)), T("b", (3,))], None),              # K = 0: the bias
    ([T("x", (0, 4)), T("w", (3, 4))], None),                            # no rows
    ([T("x", (2, 9, 40)), T("w", (17, 40)), T("b", (17,))], {"x": ("b", "s", 40)}),
]


def linear64(x, w, b=None):
    y = x.astype(np.float64) @ w.astype(np.float64).T
    return (y if b is None else y + b).astype(np.float32)


for family in ("matmul", "matmul_portable"):
    for inputs, sym in MATMUL_FAST:
        case(family, "R.matmul(a, b)", inputs, matmul64, sym=sym, reduction=True)
    for inputs, sym in LINEAR_FAST:
        call = "R.linear(x, w, b)" if len(inputs) == 3 else "R.linear(x, w)"
        case(family, call, inputs, linear64, sym=sym, reduction=True)

def conv_nd(x, w, strides=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv1d/2d/3d over NC... / OI... (symmetric padding per axis)."""
    fn = [None, F.conv1d, F.conv2d, F.conv3d][x.ndim - 2]
    pad = tuple(np.broadcast_to(padding, (x.ndim - 2,)).tolist())
    return from_torch(fn(tt(x), tt(w), stride=strides, padding=pad, dilation=dilation, groups=groups), x.dtype)


def pool_nd(x, size, strides, padding, kind, include_pad=False, ceil=False, dilation=1):
    """torch max_pool / avg_pool (1-D to 3-D, NC...), ceil_mode and count_include_pad as given."""
    n = x.ndim - 2
    if kind == "max":
        fn = [None, F.max_pool1d, F.max_pool2d, F.max_pool3d][n]
        y = fn(tt(x), size, strides, padding, dilation=dilation, ceil_mode=ceil)
    else:
        fn = [None, F.avg_pool1d, F.avg_pool2d, F.avg_pool3d][n]
        y = fn(tt(x), size, strides, padding, ceil_mode=ceil, count_include_pad=include_pad)
    return from_torch(y, x.dtype)


case("conv", "R.nn.conv2d(x, w)", [T("x", (2, 3, 6, 5)), T("w", (4, 3, 3, 3))], conv_nd, reduction=True)
case("conv", "R.nn.conv2d(x, w, strides=[2, 1], padding=[1, 2], dilation=[1, 2])",
     [T("x", (1, 2, 7, 7)), T("w", (3, 2, 3, 2))],
     lambda x, w: conv_nd(x, w, (2, 1), (1, 2), (1, 2)), reduction=True)
case("conv", "R.nn.conv2d(x, w, padding=[1, 1], groups=2)", [T("x", (1, 4, 5, 5)), T("w", (6, 2, 3, 3))],
     lambda x, w: conv_nd(x, w, 1, (1, 1), 1, 2), reduction=True)
case("conv", "R.nn.conv2d(x, w)", [T("x", (2, 3, 6, 5)), T("w", (4, 3, 3, 3))], conv_nd,
     sym={"x": ("n", 3, "h", "w")}, reduction=True)
# float32 NCHW / OIHW runs on the runtime's direct convolution kernel: the image in place (1x1),
# a strided 1x1, padding of four values, depthwise groups, a product split over the threads,
# and no input channels.
case("conv", "R.nn.conv2d(x, w)", [T("x", (2, 8, 5, 7)), T("w", (6, 8, 1, 1))], conv_nd, reduction=True)
case("conv", "R.nn.conv2d(x, w, strides=[2, 2])", [T("x", (1, 4, 7, 6)), T("w", (5, 4, 1, 1))],
     lambda x, w: conv_nd(x, w, 2), reduction=True)
case("conv", "R.nn.conv2d(x, w, padding=[1, 0, 2, 1])", [T("x", (1, 3, 6, 5)), T("w", (4, 3, 3, 2))],
     lambda x, w: conv_nd(np.pad(x, [(0, 0), (0, 0), (1, 2), (0, 1)]), w), reduction=True)
case("conv", "R.nn.conv2d(x, w, padding=[1, 1], groups=6)", [T("x", (2, 6, 7, 7)), T("w", (6, 1, 3, 3))],
     lambda x, w: conv_nd(x, w, 1, (1, 1), 1, 6), reduction=True)
case("conv", "R.nn.conv2d(x, w, padding=[1, 1])", [T("x", (1, 64, 28, 28)), T("w", (64, 64, 3, 3))],
     lambda x, w: conv_nd(x, w, 1, (1, 1)), reduction=True)
# A stride-2 3×3 convolution large enough for the threads (the phase-split copy shared by both,
# runs of 48 positions across output rows of 29).
case("conv", "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1])", [T("x", (1, 32, 58, 58)), T("w", (64, 32, 3, 3))],
     lambda x, w: conv_nd(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), w, strides=(2, 2)), reduction=True,
     name="stride 2 on the threads")
# Strides (2, 3), asymmetric padding and dilation: the phase-split, zero-padded copy's edges.
case("conv", "R.nn.conv2d(x, w, strides=[2, 3], padding=[1, 2, 2, 1], dilation=[1, 2])",
     [T("x", (1, 5, 9, 11)), T("w", (4, 5, 3, 3))],
     lambda x, w: conv_nd(np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1))), w, strides=(2, 3), dilation=(1, 2)),
     reduction=True, name="strided padded columns")
case("conv", "R.nn.conv2d(x, w)", [T("x", (1, 0, 5, 5)), T("w", (3, 0, 3, 3))],
     lambda x, w: np.zeros((1, 3, 3, 3), np.float32))
case("conv", "R.nn.conv1d(x, w, strides=[2], padding=[1])", [T("x", (2, 3, 9)), T("w", (4, 3, 3))],
     lambda x, w: conv_nd(x, w, 2, 1), reduction=True)
case("conv", "R.nn.conv3d(x, w)", [T("x", (1, 2, 4, 4, 4)), T("w", (2, 2, 2, 2, 2))], conv_nd, reduction=True)
case("conv", "R.nn.conv2d(x, w)", [T("x", (1, 2, 5, 5), "float16"), T("w", (3, 2, 3, 3), "float16")],
     conv_nd, reduction=True)
def conv_transpose_nd(x, w, strides=1, padding=0, output_padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv_transpose1d/2d/3d over NC... / IO..."""
    fn = [None, F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][x.ndim - 2]
    return from_torch(fn(tt(x), tt(w), stride=strides, padding=padding, output_padding=output_padding,
                         groups=groups, dilation=dilation), x.dtype)


case("conv", "R.nn.conv2d_transpose(x, w)", [T("x", (1, 2, 3, 4)), T("w", (2, 3, 2, 2))],
     conv_transpose_nd, reduction=True)
case("conv", "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1])", [T("x", (2, 2, 4, 3)), T("w", (2, 3, 3, 3))],
     lambda x, w: conv_transpose_nd(x, w, 2, 1), reduction=True)
case("conv", "R.nn.conv1d_transpose(x, w, strides=[2], dilation=[2], groups=2)", [T("x", (1, 4, 5)), T("w", (4, 1, 3))],
     lambda x, w: conv_transpose_nd(x, w, 2, 0, 0, 2, 2), reduction=True)
case("conv", "R.nn.conv3d_transpose(x, w)", [T("x", (1, 1, 2, 2, 2)), T("w", (1, 2, 2, 2, 2))],
     conv_transpose_nd, reduction=True)
case("conv", "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", [T("x", (2, 3, 7, 6))],
     lambda x: pool_nd(x, (3, 3), (2, 2), (1, 1), "max"))
case("conv", "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)", [T("x", (1, 2, 5, 5))],
     lambda x: pool_nd(x, (2, 2), (2, 2), (0, 0), "max", ceil=True))
case("conv", "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)", [T("x", (1, 2, 5, 5))],
     lambda x: pool_nd(x, (2, 2), (2, 2), (0, 0), "avg", ceil=True), reduction=True)
case("conv", "R.nn.max_pool1d(x, pool_size=[2], strides=[2])", [T("x", (1, 2, 8))],
     lambda x: pool_nd(x, (2,), (2,), (0,), "max"))
case("conv", "R.nn.max_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2])", [T("x", (1, 1, 4, 4, 4))],
     lambda x: pool_nd(x, (2, 2, 2), (2, 2, 2), (0, 0, 0), "max"))
case("conv", "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", [T("x", (2, 3, 7, 6))],
     lambda x: pool_nd(x, (3, 3), (2, 2), (1, 1), "avg"), reduction=True)
case("conv", "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)",
     [T("x", (1, 2, 7, 6))], lambda x: pool_nd(x, (3, 3), (2, 2), (1, 1), "avg", True), reduction=True)
case("conv", "R.nn.avg_pool1d(x, pool_size=[3], strides=[1], padding=[1])", [T("x", (1, 2, 6))],
     lambda x: pool_nd(x, (3,), (1,), (1,), "avg"), reduction=True)
case("conv", "R.nn.avg_pool3d(x, pool_size=[2, 2, 2], strides=[1, 1, 1])", [T("x", (1, 1, 3, 3, 3))],
     lambda x: pool_nd(x, (2, 2, 2), (1, 1, 1), (0, 0, 0), "avg"), reduction=True)

case("manipulate", "R.permute_dims(x)", [T("x", (2, 3, 4))], np.transpose)
case("manipulate", "R.permute_dims(x, axes=[0, 2, 1])", [T("x", (2, 3, 4))], lambda x: x.transpose(0, 2, 1))
case("manipulate", "R.permute_dims(x, axes=[-1, 0])", [T("x", (3, 5))], lambda x: x.T, sym={"x": ("n", "m")})
case("manipulate", "R.reshape(x, R.shape([4, 6]))", [T("x", (2, 3, 4))], lambda x: x.reshape(4, 6))
case("manipulate", "R.reshape(x, R.shape([-1]))", [T("x", (2, 3, 4))], lambda x: x.reshape(-1))
# A Python tuple where a shape or an int-list attribute goes (as TVM's own tests write them).
case("manipulate", "R.reshape(x, (8, 3))", [T("x", (1, 2, 3, 4))], lambda x: x.reshape(8, 3))
# Reshapes that split into runs of axes (a symbolic axis kept, constant axes merged or split,
# axes of extent 1 added or dropped) index each run on its own; the others go through the flat
# position.
case("manipulate", "R.reshape(x, (-1, 96))", [T("x", (5, 12, 8))], lambda x: x.reshape(-1, 96),
     sym={"x": ("n", 12, 8)}, name="reshape_merge_symbolic")
case("manipulate", "R.reshape(x, (2, -1, 3, 4))", [T("x", (2, 5, 12))], lambda x: x.reshape(2, -1, 3, 4),
     sym={"x": (2, "n", 12)}, name="reshape_split_symbolic")
case("manipulate", "R.reshape(x, (3, 1, 2, 4))", [T("x", (3, 8, 1))], lambda x: x.reshape(3, 1, 2, 4),
     name="reshape_unit_axes")
case("manipulate", "R.reshape(x, (4, 3, 2))", [T("x", (2, 3, 4))], lambda x: x.reshape(4, 3, 2),
     name="reshape_one_run")
case("manipulate", "R.tile(x, (2, 3))", [T("x", (2, 3, 4))], lambda x: np.tile(x, (2, 3)))
case("manipulate", "R.broadcast_to(x, (4, 2, 5, 3))", [T("x", (2, 1, 3))],
     lambda x: np.broadcast_to(x, (4, 2, 5, 3)))
case("manipulate", "R.expand_dims(x, axis=[0, -1])", [T("x", (3, 4))], lambda x: x[None, :, :, None])
case("manipulate", "R.squeeze(x, axis=[1])", [T("x", (3, 1, 4))], lambda x: x.squeeze(1))
case("manipulate", "R.squeeze(x)", [T("x", (1, 3, 1))], lambda x: x.squeeze())
case("manipulate", "R.flatten(x)", [T("x", (2, 3, 4))], lambda x: x.reshape(-1))
case("manipulate", "R.flatten(x)", [T("x", (3, 2))], lambda x: x.reshape(-1), sym={"x": ("n", 2)})
case("manipulate", "R.concat((x, y), axis=0)", [T("x", (2, 3)), T("y", (4, 3))], lambda x, y: np.concatenate([x, y]))
case("manipulate", "R.concat((x, y, z), axis=-1)", [T("x", (2, 3)), T("y", (2, 1)), T("z", (2, 2))],
     lambda x, y, z: np.concatenate([x, y, z], axis=-1))
case("manipulate", "R.concat((x, y), axis=0)", [T("x", (3,)), T("y", (2,))], lambda x, y: np.concatenate([x, y]),
     sym={"x": ("n",), "y": ("m",)})
case("manipulate", "R.split(x, indices_or_sections=3, axis=1)", [T("x", (2, 6))],
     lambda x: tuple(np.split(x, 3, axis=1)))
case("manipulate", "R.split(x, indices_or_sections=[2, 5], axis=0)", [T("x", (7, 2))],
     lambda x: tuple(np.split(x, [2, 5], axis=0)))
case("manipulate", "R.broadcast_to(x, R.shape([2, 3, 4]))", [T("x", (3, 1))],
     lambda x: np.broadcast_to(x, (2, 3, 4)))
case("manipulate", "R.tril(x)", [T("x", (4, 5))], np.tril)
case("manipulate", "R.triu(x, R.prim_value(1))", [T("x", (4, 5))], lambda x: np.triu(x, 1))

case("manipulate", "R.stack((x, y, z), axis=1)", [T("x", (2, 3)), T("y", (2, 3)), T("z", (2, 3))],
     lambda x, y, z: np.stack([x, y, z], axis=1))
case("manipulate", "R.flip(x, axis=-1)", [T("x", (3, 4))], lambda x: np.flip(x, -1))
case("manipulate", "R.tile(x, repeats=[2, 1, 3])", [T("x", (2, 3))], lambda x: np.tile(x, (2, 1, 3)))
case("manipulate", "R.repeat(x, repeats=2, axis=0)", [T("x", (2, 3))], lambda x: np.repeat(x, 2, axis=0))
case("manipulate", "R.repeat(x, repeats=3)", [T("x", (2, 2))], lambda x: np.repeat(x, 3))
case("manipulate", "R.collapse_sum_to(x, R.shape([3, 1]))", [T("x", (2, 3, 4))],
     lambda x: x.sum(axis=(0, 2)).reshape(3, 1), reduction=True)
case("manipulate", "R.collapse_sum_like(x, y)", [T("x", (2, 3, 4)), T("y", (4,))],
     lambda x, y: x.sum(axis=(0, 1)), reduction=True)
case("manipulate", "R.nn.pad(x, pad_width=[1, 2, 0, 1], pad_value=0.5)", [T("x", (2, 3))],
     lambda x: np.pad(x, [(1, 2), (0, 1)], constant_values=0.5))
case("manipulate", 'R.nn.pad(x, pad_width=[1, 2, 2, 0], pad_mode="reflect")', [T("x", (4, 3))],
     lambda x: np.pad(x, [(1, 2), (2, 0)], mode="reflect"))
case("manipulate", 'R.nn.pad(x, pad_width=[0, 0, 3, 1], pad_mode="replicate")', [T("x", (2, 3), "int32")],
     lambda x: np.pad(x, [(0, 0), (3, 1)], mode="edge"))
case("manipulate", 'R.nn.pad(x, pad_width=[2, 4, 1, 1], pad_mode="circular")', [T("x", (3, 2))],
     lambda x: x[np.arange(-2, 7) % 3][:, np.arange(-1, 3) % 2])  # periodic (numpy's wrap differs past one period)
case("manipulate", 'R.nn.pad(x, pad_width=[0, 0, 1, 2], pad_mode="reflect")', [T("x", (2, 5), "float16")],
     lambda x: np.pad(x, [(0, 0), (1, 2)], mode="reflect"), sym={"x": ("n", 5)})
case("manipulate", "R.nn.batch_flatten(x)", [T("x", (2, 3, 4))], lambda x: x.reshape(2, -1))
case("index", "R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=4, axis=-1)",
     [T("i", (3,), "int32", "small")], lambda i: np.eye(5, dtype=np.float32)[i][:, :4], name="one_hot")

case("manipulate", "R.layout_transform(x, index_map=lambda i, j: (j, i))", [T("x", (3, 4))], lambda x: x.T)
case("manipulate", "R.layout_transform(x, index_map=T.index_map(lambda a, b: (a, b // 4, b % 4), "
     'index_dtype="int32"), pad_value=0.5)', [T("x", (2, 10))],
     lambda x: np.pad(x, [(0, 0), (0, 2)], constant_values=0.5).reshape(2, 3, 4), name="layout_transform_pad")
case("create", "R.eye_like(x, R.prim_value(1))", [T("x", (3, 4))], lambda x: np.eye(3, 4, k=1, dtype=np.float32))

case("sort", "R.sort(x)", [T("x", (3, 7))], lambda x: np.sort(x, axis=-1))
case("sort", "R.sort(x, axis=0, descending=True)", [T("x", (5, 2), "int32", "small")],
     lambda x: -np.sort(-x, axis=0))
case("sort", "R.argsort(x)", [T("x", (2, 6), "int32", "small")],
     lambda x: np.argsort(x, axis=-1, kind="stable").astype(np.int32))
case("sort", 'R.argsort(x, axis=0, dtype="int64")', [T("x", (6, 3))],
     lambda x: np.argsort(x, axis=0, kind="stable"))
case("sort", "R.topk(x, k=3)", [T("x", (2, 8))],
     lambda x: (-np.sort(-x, axis=-1)[:, :3], np.argsort(-x, axis=-1, kind="stable")[:, :3].astype(np.int32)))
case("sort", 'R.topk(x, k=2, largest=False, ret_type="indices")', [T("x", (4, 5)), ],
     lambda x: np.argsort(x, axis=-1, kind="stable")[:, :2].astype(np.int32))
case("sort", "R.sort(x)", [T("x", (7,))], np.sort, sym={"x": ("n",)})

case("index", "R.gather_elements(x, i, axis=1)", [T("x", (3, 4)), T("i", (3, 2), "int64", "below4")],
     lambda x, i: np.take_along_axis(x, i, axis=1))
case("index", "R.gather_nd(x, i)", [T("x", (3, 4, 2)), T("i", (5, 2), "int64", "below3")],
     lambda x, i: x[i[:, 0], i[:, 1]])
case("index", "R.gather_nd(x, i, batch_dims=1)", [T("x", (2, 4, 3)), T("i", (2, 5, 1), "int64", "below4")],
     lambda x, i: np.stack([x[b][i[b, :, 0]] for b in range(2)]))
case("index", "R.gather_nd(x, i, batch_dims=1)", [T("x", (3, 4, 2, 5)), T("i", (3, 2), "int64", "below2")],
     lambda x, i: np.stack([x[b, i[b, 0], i[b, 1]] for b in range(3)]))

case("index", "R.take(x, i, axis=0)", [T("x", (5, 3)), T("i", (4,), "int64", "small")], lambda x, i: x[i])
case("index", "R.take(x, i, axis=1)", [T("x", (2, 5)), T("i", (2, 2), "int32", "small")],
     lambda x, i: np.take(x, i, axis=1))
case("index", "R.take(x, i, axis=-1)", [T("x", (3, 5)), T("i", (), "int64", "small")],
     lambda x, i: np.take(x, i, axis=-1))
case("index", 'R.take(x, i, axis=0, mode="clip")', [T("x", (3,)), T("i", (4,), "int64")],
     lambda x, i: np.take(x, i, mode="clip"))
case("index", 'R.take(x, i, axis=0, mode="wrap")', [T("x", (3,)), T("i", (4,), "int64")],
     lambda x, i: np.take(x, i, mode="wrap"))
case("index", "R.strided_slice(x, axes=[0], begin=[1], end=[4])", [T("x", (5, 3))], lambda x: x[1:4])
case("index", "R.strided_slice(x, axes=[1, 0], begin=[-3, 0], end=[5, 4], strides=[2, 3])", [T("x", (5, 6))],
     lambda x: x[0:4:3, -3:5:2])
case("index", "R.strided_slice(x, axes=[0], begin=[4], end=[0], strides=[-1])", [T("x", (6,))],
     lambda x: x[4:0:-1])

case("create", 'R.zeros(R.shape([2, 3]), "float32")', [], lambda: np.zeros((2, 3), np.float32))
case("create", 'R.ones(R.shape([4]), "int32")', [], lambda: np.ones((4,), np.int32))
case("create", "R.full(R.shape([2, 2]), v)", [T("v", ())], lambda v: np.full((2, 2), v))
case("create", 'R.full((2, 3), v, dtype="float32")', [T("v", (), "int32")],
     lambda v: np.full((2, 3), v, np.float32))
case("create", "R.full_like(x, v)", [T("x", (3,), "int32"), T("v", (), "int32")], lambda x, v: np.full_like(x, v))
case("create", "R.zeros_like(x)", [T("x", (2, 3))], np.zeros_like)
case("create", "R.ones_like(x)", [T("x", (3,))], np.ones_like, sym={"x": ("n",)})
case("create", 'R.arange(R.prim_value(2), R.prim_value(11), R.prim_value(3), dtype="int64")', [],
     lambda: np.arange(2, 11, 3))
case("create", 'R.arange(R.prim_value(0.5), R.prim_value(3.0), R.prim_value(0.5), dtype="float32")', [],
     lambda: np.arange(0.5, 3.0, 0.5, dtype=np.float32))


def batch_norm_ref(axis=1, eps=1e-5, momentum=0.1, training=True, center=True, scale=True):
    """TVM's topi.nn.batch_norm: biased batch variance, moving statistics blended by momentum."""
    def run(x, g, b, m, v):
        shape = [1] * x.ndim
        shape[axis] = -1
        x64 = x.astype(np.float64)
        if training:
            axes = tuple(d for d in range(x.ndim) if d != axis)
            mean, var = x64.mean(axis=axes), x64.var(axis=axes)
        else:
            mean, var = m.astype(np.float64), v.astype(np.float64)
        y = (x64 - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
        if scale:
            y = y * g.reshape(shape)
        if center:
            y = y + b.reshape(shape)
        if training:
            m2, v2 = (1 - momentum) * m + momentum * mean, (1 - momentum) * v + momentum * var
        else:
            m2, v2 = m, v
        return y.astype(x.dtype), m2.astype(m.dtype), v2.astype(v.dtype)
    return run


BN = lambda c, dt="float32": [T("g", (c,), dt), T("b", (c,), dt), T("m", (c,), dt), T("v", (c,), dt, "pos")]
case("layers", "R.nn.batch_norm(x, g, b, m, v, axis=1)", [T("x", (2, 3, 4, 5))] + BN(3), batch_norm_ref(),
     reduction=True)
case("layers", "R.nn.batch_norm(x, g, b, m, v, axis=1, training=False)", [T("x", (2, 3, 4))] + BN(3),
     batch_norm_ref(training=False))
case("layers", "R.nn.batch_norm(x, g, b, m, v, axis=-1, epsilon=0.001, momentum=0.3, center=False)",
     [T("x", (4, 6), "float64")] + BN(6, "float64"),
     batch_norm_ref(axis=1, eps=1e-3, momentum=0.3, center=False), reduction=True)
case("layers", "R.nn.batch_norm(x, g, b, m, v, axis=1, training=False, scale=False)",
     [T("x", (5, 2, 3))] + BN(2), batch_norm_ref(training=False, scale=False), sym={"x": ("n", 2, 3)})
case("layers", "R.nn.batch_norm(x, g, b, m, v, axis=1)", [T("x", (3, 2, 4), "float16")] + BN(2, "float16"),
     batch_norm_ref(), reduction=True)
case("layers", "R.nn.dropout(x, rate=0.3)", [T("x", (3, 4))], lambda x: (x, np.ones_like(x)))
case("layers", "R.nn.dropout(x)", [T("x", (5,), "float16")], lambda x: (x, np.ones_like(x)), sym={"x": ("n",)})
case("layers", "R.nn.pixel_shuffle(x, upscale_factor=2)", [T("x", (1, 8, 3, 2))],
     lambda x: from_torch(F.pixel_shuffle(tt(x), 2), np.float32))
case("layers", "R.nn.pixel_shuffle(x, upscale_factor=3)", [T("x", (2, 9, 2, 2), "int32")],
     lambda x: F.pixel_shuffle(torch.from_numpy(x), 3).numpy())
case("layers", "R.nn.pixel_shuffle(x, upscale_factor=2)", [T("x", (4, 3, 5))],
     lambda x: from_torch(F.pixel_shuffle(tt(x), 2), np.float32), sym={"x": (4, "h", "w")})
case("layers", "R.nn.adaptive_avg_pool2d(x, output_size=(3, 2))", [T("x", (1, 2, 7, 5))],
     lambda x: from_torch(F.adaptive_avg_pool2d(tt(x), (3, 2)), np.float32), reduction=True)
case("layers", "R.nn.adaptive_avg_pool2d(x, output_size=(4, 4), layout=\"NHWC\")", [T("x", (2, 6, 9, 3))],
     lambda x: from_torch(F.adaptive_avg_pool2d(tt(x).permute(0, 3, 1, 2), (4, 4)).permute(0, 2, 3, 1), np.float32),
     reduction=True)
case("layers", "R.nn.adaptive_avg_pool2d(x)", [T("x", (1, 2, 3, 4))], lambda x: x, reduction=True)
case("layers", "R.nn.adaptive_avg_pool1d(x, output_size=[4])", [T("x", (2, 3, 10))],
     lambda x: from_torch(F.adaptive_avg_pool1d(tt(x), 4), np.float32), reduction=True)
case("layers", "R.nn.adaptive_avg_pool3d(x, output_size=(2, 3, 2))", [T("x", (1, 2, 5, 4, 3), "float64")],
     lambda x: from_torch(F.adaptive_avg_pool3d(tt(x), (2, 3, 2)), np.float64), reduction=True)
case("layers", "R.nn.adaptive_avg_pool2d(x, output_size=(2, 2))", [T("x", (1, 3, 5, 7), "float16")],
     f32_via(lambda x: from_torch(F.adaptive_avg_pool2d(tt(x), (2, 2)), np.float32)), reduction=True)
case("layers", "R.nn.adaptive_avg_pool2d(x, output_size=(2, 3))", [T("x", (1, 2, 6, 7))],
     lambda x: from_torch(F.adaptive_avg_pool2d(tt(x), (2, 3)), np.float32), sym={"x": (1, 2, "h", "w")},
     reduction=True)

case("create", "R.eye(3, 4, 1)", [], lambda: np.eye(3, 4, k=1, dtype=np.float32))
case("create", 'R.eye(4, dtype="int32")', [], lambda: np.eye(4, dtype=np.int32))
case("create", 'R.eye(3, 5, -1, dtype="float16")', [], lambda: np.eye(3, 5, k=-1, dtype=np.float16))
case("create", "R.hamming_window(R.prim_value(8), R.prim_value(1), R.prim_value(0.54), R.prim_value(0.46))",
     [], lambda: torch.hamming_window(8, periodic=True, dtype=torch.float64).numpy().astype(np.float32))
case("create", 'R.hamming_window(R.prim_value(7), R.prim_value(0), R.prim_value(0.5), R.prim_value(0.5), dtype="float64")',
     [], lambda: torch.hamming_window(7, periodic=False, alpha=0.5, beta=0.5, dtype=torch.float64).numpy())
case("create", "R.hamming_window(R.prim_value(1), R.prim_value(1), R.prim_value(0.54), R.prim_value(0.46))",
     [], lambda: np.ones((1,), np.float32))
case("create", "R.meshgrid((x, y))", [T("x", (3,)), T("y", (4,))], lambda x, y: tuple(np.meshgrid(x, y, indexing="ij")))
case("create", 'R.meshgrid((x, y, z), indexing="xy")', [T("x", (3,), "int32"), T("y", (3,), "int32"), T("z", (2,), "int32")],
     lambda x, y, z: tuple(np.meshgrid(x, y, z, indexing="xy")))
case("create", "R.meshgrid((x, y))", [T("x", (3,)), T("y", (5,))], lambda x, y: tuple(np.meshgrid(x, y, indexing="ij")),
     sym={"x": ("n",), "y": ("m",)})


def index_put(x, idx, v, accumulate=False):
    t = torch.from_numpy(x.copy())
    return t.index_put_(tuple(torch.from_numpy(i.astype(np.int64)) for i in idx), torch.from_numpy(v),
                        accumulate=accumulate).numpy()


case("index", "R.index_tensor(x, (i,))", [T("x", (5, 3)), T("i", (4,), "int64", "negidx5")], lambda x, i: x[i])
case("index", "R.index_tensor(x, (i, j))", [T("x", (4, 5, 2)), T("i", (3, 1), "int32", "below4"),
                                            T("j", (2,), "int64", "below5")], lambda x, i, j: x[i, j])
case("index", "R.index_tensor(x, (i,))", [T("x", (6, 2), "int32"), T("i", (3,), "int64", "below4")],
     lambda x, i: x[i], sym={"x": ("n", 2), "i": ("k",)})
case("index", "R.index_put(x, (i,), v)", [T("x", (5, 3)), T("i", (2,), "int64", "negidx5"), T("v", (2, 3))],
     lambda x, i, v: index_put(x, (i,), v))
case("index", "R.index_put(x, (i, j), v, accumulate=True)",
     [T("x", (4, 5)), T("i", (6,), "int64", "below4"), T("j", (6,), "int64", "below5"), T("v", (6,))],
     lambda x, i, j, v: index_put(x, (i, j), v, accumulate=True), reduction=True)
case("index", "R.index_put(x, (i,), v)", [T("x", (4, 3), "int32"), T("i", (2,), "int64", "below4"), T("v", (3,), "int32")],
     lambda x, i, v: index_put(x, (i,), np.broadcast_to(v, (2, 3)).copy()), name="index_put_broadcast")
case("index", "R.slice_scatter(x, s, 0, 4, 2, axis=1)", [T("x", (3, 6)), T("s", (3, 2))],
     lambda x, s: torch.slice_scatter(torch.from_numpy(x), torch.from_numpy(s), 1, 0, 4, 2).numpy())
case("index", "R.slice_scatter(x, s, -6, -2, 2, axis=1)", [T("x", (2, 6, 2), "int64"), T("s", (2, 2, 2), "int64")],
     lambda x, s: torch.slice_scatter(torch.from_numpy(x), torch.from_numpy(s), 1, 0, 4, 2).numpy())
case("index", "R.slice_scatter(x, s, 1, 4, 1)", [T("x", (5, 3)), T("s", (3, 3))],
     lambda x, s: torch.slice_scatter(torch.from_numpy(x), torch.from_numpy(s), 0, 1, 4, 1).numpy())


case("index", "R.dynamic_strided_slice(x, b, e, s)",
     [T("x", (5, 6)), T("b", (2,), "int64", "const:1,-1"), T("e", (2,), "int64", "const:4,0"),
      T("s", (2,), "int64", "const:2,-2")], lambda x, b, e, s: x[1:4:2, -1:0:-2])
case("index", "R.dynamic_strided_slice(x, b, e, s)",
     [T("x", (4, 3, 2), "int32"), T("b", (3,), "int64", "const:-9,0,1"), T("e", (3,), "int64", "const:100,2,2"),
      T("s", (3,), "int64", "const:3,1,1")], lambda x, b, e, s: x[-9:100:3, 0:2, 1:2], sym={"x": ("n", 3, 2)})


def bucketize(x, bounds, right=False, dtype=np.int64):
    return torch.bucketize(torch.from_numpy(x), torch.from_numpy(bounds), right=right).numpy().astype(dtype)


case("index", "R.bucketize(x, bnd)", [T("x", (3, 4), "int32", "small"), T("bnd", (4,), "int32", "sorted")],
     lambda x, bnd: bucketize(x, bnd))
case("index", "R.bucketize(x, bnd, right=True, out_int32=True)",
     [T("x", (3, 4), "int32", "small"), T("bnd", (4,), "int32", "sorted")],
     lambda x, bnd: bucketize(x, bnd, right=True, dtype=np.int32))
case("index", "R.bucketize(x, bnd)", [T("x", (6,)), T("bnd", (5,), "float32", "sorted")],
     lambda x, bnd: bucketize(x, bnd), sym={"x": ("n",), "bnd": ("k",)})


def autograd(forward, x, og, *rest):
    """d(sum(forward(x) * og)) / dx by PyTorch's autograd, float64."""
    xt = tt(x).requires_grad_(True)
    out = forward(xt, *rest)
    out.backward(torch.from_numpy(np.asarray(og, np.float64)).reshape(out.shape))
    return xt.grad.numpy().astype(x.dtype)


def avg_pool_backward_np(g, x, k, s, pad):
    """Each window's gradient spread over its positions inside x (count_include_pad=False)."""
    out = np.zeros(x.shape, np.float64)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            h0, w0 = i * s - pad[0], j * s - pad[1]
            hs = [h for h in range(h0, h0 + k) if 0 <= h < x.shape[2]]
            ws = [w for w in range(w0, w0 + k) if 0 <= w < x.shape[3]]
            for h in hs:
                for w in ws:
                    out[:, :, h, w] += g[:, :, i, j] / (len(hs) * len(ws))
    return out.astype(x.dtype)


def nll_backward_ref(reduction="mean", ignore=-100):
    def run(og, p, t, w=None):
        wt = tt(w) if w is not None else None
        return autograd(lambda pt: F.nll_loss(pt, torch.from_numpy(t.astype(np.int64)), weight=wt,
                                               reduction=reduction, ignore_index=ignore), p, og)
    return run


case("grad", "R.grad.start_checkpoint(x)", [T("x", (2, 3))], lambda x: x)
case("grad", "R.grad.end_checkpoint(x)", [T("x", (4,), "int32")], lambda x: x)
case("grad", "R.grad.no_grad(x)", [T("x", (3, 2))], lambda x: x, sym={"x": ("n", 2)})
case("grad", "R.grad.take_backward(g, x, i, axis=1)", [T("g", (3, 4)), T("x", (3, 5)), T("i", (4,), "int64", "below5")],
     lambda g, x, i: autograd(lambda xt: torch.index_select(xt, 1, torch.from_numpy(i)), x, g), reduction=True)
case("grad", "R.grad.take_backward(g, x, i)", [T("g", (2, 3)), T("x", (4, 2)), T("i", (2, 3), "int64", "below8")],
     lambda g, x, i: autograd(lambda xt: xt.reshape(-1)[torch.from_numpy(i)], x, g), reduction=True)
case("grad", 'R.grad.nll_loss_backward(g, p, t, reduction="mean", ignore_index=1)',
     [T("g", ()), T("p", (4, 3)), T("t", (4,), "int64", "below3")], nll_backward_ref("mean", 1))
case("grad", 'R.grad.nll_loss_backward(g, p, t, w, "sum", -1)',
     [T("g", ()), T("p", (2, 3, 4, 5)), T("t", (2, 4, 5), "int64", "below3"), T("w", (3,), "float32", "pos")],
     lambda g, p, t, w: nll_backward_ref("sum", -1)(g, p, t, w))
case("grad", 'R.grad.nll_loss_backward(g, p, t, w, reduction="mean")',
     [T("g", ()), T("p", (5, 4), "float64"), T("t", (5,), "int64", "below4"), T("w", (4,), "float64", "pos")],
     lambda g, p, t, w: nll_backward_ref("mean")(g, p, t, w))
case("grad", 'R.grad.nll_loss_backward(g, p, t, reduction="none")',
     [T("g", (3, 2)), T("p", (3, 4, 2)), T("t", (3, 2), "int64", "below4")], nll_backward_ref("none"))
case("grad", 'R.grad.nll_loss_backward(g, p, t, w, "mean", -1)',
     [T("g", (3, 4)), T("p", (3, 5, 4)), T("t", (3, 4), "int64", "below5"), T("w", (5,), "float32", "pos")],
     lambda g, p, t, w: nll_backward_ref("none")(g / w[t].sum(), p, t, w), name="nll_loss_backward_broadcast_grad")
case("grad", "R.grad.max_pool2d_backward(g, x, (5, 5), (2, 2), (2, 1, 2, 1), (1, 1), True)",
     [T("g", (1, 2, 5, 4)), T("x", (1, 2, 8, 9))],
     lambda g, x: autograd(lambda xt: F.max_pool2d(F.pad(xt, (1, 1, 2, 2), value=-math.inf), 5, 2, ceil_mode=True), x, g))
case("grad", "R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2])",
     [T("g", (2, 1, 3, 2)), T("x", (2, 1, 6, 4), "float32", "small")],
     lambda g, x: autograd(lambda xt: F.max_pool2d(xt, 2, 2), x, g), name="max_pool_backward_ties")
case("grad", "R.grad.avg_pool2d_backward(g, x, (5, 5), (2, 2), (2, 1, 2, 1), (1, 1), True)",
     [T("g", (1, 2, 5, 4)), T("x", (1, 2, 8, 9))], lambda g, x: avg_pool_backward_np(g, x, 5, 2, (2, 1)),
     name="avg_pool_backward_ceil", reduction=True)
case("grad", "R.grad.avg_pool2d_backward(g, x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], count_include_pad=True)",
     [T("g", (1, 3, 3, 3)), T("x", (1, 3, 6, 5))],
     lambda g, x: autograd(lambda xt: F.avg_pool2d(xt, 3, 2, padding=1, count_include_pad=True), x, g), reduction=True)
case("grad", "R.grad.avg_pool2d_backward(g, x, pool_size=[2, 3], strides=[1, 2], padding=[1, 1, 1, 1])",
     [T("g", (2, 1, 6, 2)), T("x", (2, 1, 5, 4))],
     lambda g, x: autograd(lambda xt: F.avg_pool2d(xt, (2, 3), (1, 2), padding=1, count_include_pad=False), x, g),
     reduction=True)


# ------------------------------------------------------------------ scatter, scans, sequences
def scatter_elements_ref(reduction, axis=0):
    def run(x, i, u):
        if reduction == "mean":
            t = torch.from_numpy(x.copy()).scatter_reduce(axis, torch.from_numpy(np.where(i < 0, i + x.shape[axis], i).astype(np.int64)),
                                                          torch.from_numpy(u), "mean", include_self=True)
            return t.numpy()
        out = x.copy()
        for p in np.ndindex(*i.shape):
            at = list(p)
            at[axis] = i[p] + (x.shape[axis] if i[p] < 0 else 0)
            at = tuple(at)
            out[at] = {"update": lambda a, b: b, "add": np.add, "mul": np.multiply,
                       "max": np.maximum, "min": np.minimum}[reduction](out[at], u[p])
        return out
    return run


def scatter_nd_ref(reduction):
    def run(x, i, u):
        out = x.copy()
        m = i.shape[-1]
        for p in np.ndindex(*i.shape[:-1]):
            at = tuple(int(v) for v in i[p])
            out[at] = {"update": lambda a, b: b, "add": np.add, "mul": np.multiply,
                       "max": np.maximum, "min": np.minimum}[reduction](out[at], u[p])
        return out
    return run


for red, axis in [("update", 0), ("add", 1), ("mul", 0), ("max", -1), ("min", 1), ("mean", 0)]:
    case("scatter", f'R.scatter_elements(x, i, u, axis={axis}, reduction="{red}")',
         [T("x", (4, 5)), T("i", (3, 5) if axis == 0 else (4, 3), "int64", "below4"), T("u", (3, 5) if axis == 0 else (4, 3))],
         scatter_elements_ref(red, axis))
case("scatter", "R.scatter_elements(x, i, u, axis=1)", [T("x", (3, 4), "int32"), T("i", (3, 2), "int32", "below4"),
                                                       T("u", (3, 2), "int32")], scatter_elements_ref("update", 1))
case("scatter", "R.scatter_elements(x, i, u)", [T("x", (3, 2)), T("i", (0, 2), "int64"), T("u", (0, 2))],
     scatter_elements_ref("update"))
case("scatter", 'R.scatter_elements(x, i, u, reduction="add")', [T("x", (5, 2)), T("i", (3, 2), "int64", "below5"),
                                                                T("u", (3, 2))],
     scatter_elements_ref("add"), sym={"x": ("n", 2), "i": ("k", 2), "u": ("k", 2)})
case("scatter", "R.scatter_elements(x, i, u, axis=1)", [T("x", (2, 4)), T("i", (2, 2), "int64", "negidx4"), T("u", (2, 2))],
     scatter_elements_ref("update", 1), name="scatter_elements_negative")
for red in ["update", "add", "mul", "max", "min"]:
    case("scatter", f'R.scatter_nd(x, i, u, reduction="{red}")', [T("x", (4, 3)), T("i", (2, 1), "int64", "below4"), T("u", (2, 3))],
         scatter_nd_ref(red))
case("scatter", "R.scatter_nd(x, i, u)", [T("x", (3, 4, 2), "int32"), T("i", (5, 2), "int64", "below3"),
                                          T("u", (5, 2), "int32")], scatter_nd_ref("update"))
case("scatter", "R.scatter_nd(x, i, u)", [T("x", (4, 3)), T("i", (2, 1), "int64", "below4"), T("u", (2, 3))],
     scatter_nd_ref("update"), sym={"x": ("n", "m"), "u": (2, "m")})


def reverse_sequence(x, lengths, seq_axis=1, batch_axis=0):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch_axis], src[seq_axis] = b, slice(0, n)
        dst = list(src)
        out[tuple(dst)] = np.flip(x[tuple(src)], axis=seq_axis - (1 if batch_axis < seq_axis else 0))
    return out


case("scatter", "R.reverse_sequence(x, n)", [T("x", (3, 5, 2)), T("n", (3,), "int64", "below6")], reverse_sequence)
case("scatter", "R.reverse_sequence(x, n, seq_axis=0, batch_axis=1)", [T("x", (4, 3), "int32"), T("n", (3,), "int32", "below5")],
     lambda x, n: reverse_sequence(x, n, 0, 1))
case("scatter", "R.reverse_sequence(x, n)", [T("x", (2, 6)), T("n", (2,), "int64", "below7")], reverse_sequence,
     sym={"x": (2, "s")})


def exclusive(fn, identity):
    def run(x, axis=None):
        y = fn(x.reshape(-1) if axis is None else x, axis=0 if axis is None else axis)
        ax = 0 if axis is None else axis
        y = np.concatenate([np.full_like(np.take(y, [0], axis=ax), identity), np.delete(y, -1, axis=ax)], axis=ax)
        return y
    return run


case("scan", "R.cumsum(x, axis=1)", [T("x", (3, 5))], lambda x: np.cumsum(x, axis=1), reduction=True)
case("scan", "R.cumsum(x)", [T("x", (2, 3, 2))], lambda x: np.cumsum(x), reduction=True)
case("scan", "R.cumsum(x, axis=0, exclusive=True)", [T("x", (4, 2))], lambda x: exclusive(np.cumsum, 0)(x, 0),
     reduction=True)
case("scan", 'R.cumsum(x, axis=-1, dtype="int64")', [T("x", (2, 6), "int32")], lambda x: np.cumsum(x, axis=-1))
case("scan", "R.cumsum(x, axis=0)", [T("x", (5, 3))], lambda x: np.cumsum(x, axis=0), sym={"x": ("n", 3)},
     reduction=True)
case("scan", "R.cumsum(x, axis=1)", [T("x", (3, 0))], lambda x: np.cumsum(x, axis=1))
case("scan", "R.cumprod(x, axis=1)", [T("x", (3, 4), "float32", "unit")], lambda x: np.cumprod(x, axis=1),
     reduction=True)
case("scan", "R.cumprod(x, axis=0, exclusive=True)", [T("x", (4, 2), "int64", "small")],
     lambda x: exclusive(np.cumprod, 1)(x, 0))
case("scan", "R.cumsum(x, axis=0)", [T("x", (6,), "float16")], f32_via(lambda x: np.cumsum(x)), reduction=True)


def lower_median(x, axis=None, keepdims=False):
    """torch.median: the lower median and (one axis) its index."""
    if axis is None:
        v = torch.from_numpy(x.reshape(-1).copy()).median()
        v = v.numpy().reshape((1,) * x.ndim if keepdims else ())
        return v.astype(x.dtype)
    v, i = torch.from_numpy(x.copy()).median(dim=axis, keepdim=keepdims)
    return v.numpy(), i.numpy()


case("sort", "R.median(x, axis=[1])", [T("x", (3, 7))], lambda x: lower_median(x, 1))
case("sort", "R.median(x, axis=[0], keepdims=True)", [T("x", (4, 3), "float64")],
     lambda x: lower_median(x, 0, True))
case("sort", "R.median(x)", [T("x", (3, 5))], lambda x: lower_median(x))
case("sort", "R.median(x, keepdims=True)", [T("x", (2, 4), "int64")], lambda x: lower_median(x, None, True))
case("sort", "R.median(x, axis=[-1])", [T("x", (2, 6))], lambda x: lower_median(x, -1), sym={"x": (2, "n")})

case("einsum", 'R.einsum((a, b), "ij,jk->ik")', [T("a", (3, 4)), T("b", (4, 5))],
     lambda a, b: np.einsum("ij,jk->ik", a, b), reduction=True)
case("einsum", 'R.einsum((a, b), "bij,bjk->bik")', [T("a", (2, 3, 4)), T("b", (2, 4, 2))],
     lambda a, b: np.einsum("bij,bjk->bik", a, b), reduction=True)
case("einsum", 'R.einsum((a,), "ii->i")', [T("a", (4, 4))], lambda a: np.einsum("ii->i", a))
case("einsum", 'R.einsum((a,), "ij->")', [T("a", (3, 5))], lambda a: np.einsum("ij->", a), reduction=True)
case("einsum", 'R.einsum((a,), "ij->ji")', [T("a", (3, 5))], lambda a: np.einsum("ij->ji", a))
case("einsum", 'R.einsum((a, b), "ij,jk")', [T("a", (2, 3)), T("b", (3, 4))], lambda a, b: np.einsum("ij,jk", a, b),
     reduction=True)
case("einsum", 'R.einsum((a, b), "bij,jk->bik")', [T("a", (2, 3, 4)), T("b", (4, 2))],
     lambda a, b: np.einsum("bij,jk->bik", a, b), reduction=True)
case("einsum", 'R.einsum((a, b, c), "i,j,k->ijk")', [T("a", (2,)), T("b", (3,)), T("c", (2,))],
     lambda a, b, c: np.einsum("i,j,k->ijk", a, b, c))
case("einsum", 'R.einsum((a, b), "ij,jk->ik")', [T("a", (3, 8), "float16"), T("b", (8, 2), "float16")],
     f32_via(lambda a, b: np.einsum("ij,jk->ik", a, b)), reduction=True)
case("einsum", 'R.einsum((a, b), "ij,jk->ik")', [T("a", (3, 0)), T("b", (0, 2))], lambda a, b: np.einsum("ij,jk->ik", a, b))
case("einsum", 'R.einsum((a, b), "ij,jk->ik")', [T("a", (3, 4)), T("b", (4, 5))],
     lambda a, b: np.einsum("ij,jk->ik", a, b), sym={"a": ("n", "k"), "b": ("k", 5)}, reduction=True)
case("einsum", 'R.einsum((a, b), "ij,ij->i")', [T("a", (3, 4), "int32"), T("b", (3, 4), "int32")],
     lambda a, b: np.einsum("ij,ij->i", a, b).astype(np.int32))


def quantize(x, s, z, axis=-1, dtype="int8"):
    info = np.iinfo(dtype)
    shape = [1] * x.ndim
    if s.size > 1 or z.size > 1:
        shape[axis] = -1
    q = np.round(x.astype(np.float32) / s.astype(np.float32).reshape(shape if s.size > 1 else ())) \
        + z.astype(np.float32).reshape(shape if z.size > 1 else ())
    return np.clip(q, info.min, info.max).astype(dtype)


def dequantize(q, s, z, axis=-1, dtype="float32"):
    shape = [1] * q.ndim
    if s.size > 1 or z.size > 1:
        shape[axis] = -1
    return ((q.astype(np.float32) - z.astype(np.float32).reshape(shape if z.size > 1 else ()))
            * s.astype(np.float32).reshape(shape if s.size > 1 else ())).astype(dtype)


case("quantize", "R.quantize(x, s, z)", [T("x", (3, 4), "float32", "wide"), T("s", (), "float32", "pos"), T("z", (), "int8", "small")],
     quantize)
case("quantize", 'R.quantize(x, s, z, axis=0, out_dtype="uint8")',
     [T("x", (3, 4), "float32", "wide"), T("s", (3,), "float32", "pos"), T("z", (3,), "uint8", "small")],
     lambda x, s, z: quantize(x, s, z, 0, "uint8"))
case("quantize", "R.quantize(x, s, z)", [T("x", (2, 5), "float16", "wide"), T("s", (1,), "float16", "pos"),
                                         T("z", (1,), "int8", "small")], quantize)
case("quantize", "R.quantize(x, s, z, axis=-1)", [T("x", (4, 2), "float32", "halves"), T("s", (2,), "float32", "pos"),
                                                  T("z", (2,), "int8", "small")],
     quantize, sym={"x": ("n", 2)})
case("quantize", "R.dequantize(q, s, z)", [T("q", (3, 4), "int8"), T("s", (), "float32", "pos"), T("z", (), "int8", "small")],
     dequantize)
case("quantize", 'R.dequantize(q, s, z, axis=1, out_dtype="float16")',
     [T("q", (2, 3), "uint8"), T("s", (3,), "float32", "pos"), T("z", (3,), "uint8", "small")],
     lambda q, s, z: dequantize(q, s, z, 1, "float16"))
case("quantize", "R.dequantize(q, s, z)", [T("q", (0, 4), "int8"), T("s", (), "float32", "pos"), T("z", (), "int8", "small")],
     dequantize)

# Collectives over a group of one worker: the identity.
case("quantize", "R.ccl.allreduce(x)", [T("x", (2, 3))], lambda x: x)
case("quantize", 'R.ccl.allreduce(x, op_type="max")', [T("x", (3,), "int32")], lambda x: x)
case("quantize", "R.ccl.allgather(x, num_workers=1)", [T("x", (2, 3))], lambda x: x, sym={"x": ("n", 3)})
case("quantize", "R.ccl.broadcast_from_worker0(x)", [T("x", (4,), "float16")], lambda x: x)
case("quantize", "R.ccl.scatter_from_worker0(x, num_workers=1)", [T("x", (2, 2))], lambda x: x)


def unique(x, sorted=True, index=False, inverse=False, counts=False, axis=None):
    vals, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    inv = inv.reshape(-1)
    if not sorted:
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        vals = np.take(vals, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], rank[inv]
    out = [vals] + [a.astype(np.int64) for a, want in ((idx, index), (inv, inverse), (cnt, counts)) if want]
    return tuple(out) if len(out) > 1 else out[0]


case("unique", "R.unique(x)", [T("x", (3, 4), "int32", "small")], unique)
case("unique", "R.unique(x, return_index=True, return_inverse=True, return_counts=True)",
     [T("x", (10,), "float32", "halves")], lambda x: unique(x, True, True, True, True))
case("unique", "R.unique(x, sorted=False, return_inverse=True)", [T("x", (2, 5), "int64", "small")],
     lambda x: unique(x, False, inverse=True))
case("unique", "R.unique(x, return_counts=True, axis=0)", [T("x", (6, 2), "int32", "below2")],
     lambda x: unique(x, counts=True, axis=0))
case("unique", "R.unique(x)", [T("x", (0, 3))], unique)
case("unique", "R.unique(x)", [T("x", (7,), "int32", "small")], unique, sym={"x": ("n",)})
case("unique", "R.nonzero(x)", [T("x", (3, 4), "int32", "small")], lambda x: np.array(np.nonzero(x)))
case("unique", "R.nonzero(x)", [T("x", (5,), "bool")], lambda x: np.array(np.nonzero(x)))
case("unique", "R.nonzero(x)", [T("x", (2, 0, 3))], lambda x: np.array(np.nonzero(x)).reshape(3, 0))
case("unique", "R.nonzero(x)", [T("x", (2, 3, 2), "float32", "halves")], lambda x: np.array(np.nonzero(x)))


# ------------------------------------------------------------------ layouts, windows, resize
def nhwc(fn):
    """fn over channel-first data, for channel-last data (and a kernel given in `kernel` layout)."""
    def run(x, *rest, kernel=None):
        to_first = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
        y = fn(x.transpose(to_first), *rest)
        return y.transpose((0,) + tuple(range(2, y.ndim)) + (1,))
    return run


case("conv", 'R.nn.conv2d(x, w, padding=[1, 1], data_layout="NHWC", kernel_layout="HWIO")',
     [T("x", (2, 5, 6, 3)), T("w", (3, 3, 3, 4))],
     lambda x, w: nhwc(lambda xf: conv_nd(xf, w.transpose(3, 2, 0, 1), 1, (1, 1)))(x), reduction=True)
case("conv", 'R.nn.conv2d(x, w, strides=[2, 2], groups=2, data_layout="NHWC", kernel_layout="OHWI")',
     [T("x", (1, 7, 7, 4)), T("w", (6, 3, 3, 2))],
     lambda x, w: nhwc(lambda xf: conv_nd(xf, w.transpose(0, 3, 1, 2), 2, 0, 1, 2))(x), reduction=True)
case("conv", 'R.nn.conv1d(x, w, data_layout="NWC", kernel_layout="WIO")', [T("x", (2, 7, 3)), T("w", (3, 3, 2))],
     lambda x, w: nhwc(lambda xf: conv_nd(xf, w.transpose(2, 1, 0)))(x), reduction=True)
case("conv", 'R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")', [T("x", (1, 4, 5, 2)), T("w", (2, 2, 2, 3))],
     lambda x, w: nhwc(lambda xf: conv_nd(xf, w.transpose(3, 2, 0, 1)))(x),
     sym={"x": (1, "h", "w", 2)}, reduction=True)
case("conv", 'R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NHWC")',
     [T("x", (2, 7, 6, 3))], nhwc(lambda x: pool_nd(x, (3, 3), (2, 2), (1, 1), "max")))
case("conv", 'R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True, layout="NHWC")',
     [T("x", (1, 5, 5, 2))], nhwc(lambda x: pool_nd(x, (2, 2), (2, 2), (0, 0), "avg", ceil=True)), reduction=True)
case("conv", 'R.nn.max_pool2d(x, pool_size=[2, 2], dilation=[2, 2])', [T("x", (1, 2, 6, 6))],
     lambda x: pool_nd(x, (2, 2), (1, 1), (0, 0), "max", dilation=2))
case("conv", 'R.nn.conv2d_transpose(x, w, strides=[2, 2], output_padding=[1, 1])', [T("x", (1, 2, 3, 3)), T("w", (2, 2, 3, 3))],
     lambda x, w: conv_transpose_nd(x, w, 2, 0, 1), reduction=True)

def split_c(a, f, axis=1):
    """NCHW -> NCHW{f}c (the split axis's inner part last), as TVM's layout_transform does."""
    shape = a.shape[:axis] + (a.shape[axis] // f, f) + a.shape[axis + 1:]
    return np.moveaxis(a.reshape(shape), axis + 1, -1)


def join_c(a, axis=1):
    """NCHW{f}c -> NCHW."""
    a = np.moveaxis(a, -1, axis + 1)
    return a.reshape(a.shape[:axis] + (a.shape[axis] * a.shape[axis + 1],) + a.shape[axis + 2:])


# Sub-indexed layouts: data NCHW4c, kernel OIHW4o (and OIHW2i4o), output in another layout.
case("conv", 'R.nn.conv2d(x, w, padding=[1, 1], data_layout="NCHW4c", kernel_layout="OIHW4o")',
     [T("x", (1, 2, 5, 5, 4)), T("w", (3, 8, 3, 3, 4))],
     lambda x, w: split_c(conv_nd(join_c(x), join_c(w, 0), 1, (1, 1)), 4), reduction=True)
case("conv", 'R.nn.conv2d(x, w, strides=[2, 2], groups=2, data_layout="NCHW4c", kernel_layout="OIHW2i4o", '
     'out_layout="NCHW")',
     [T("x", (2, 2, 7, 6, 4)), T("w", (2, 2, 3, 3, 2, 4))],
     lambda x, w: conv_nd(join_c(x), join_c(np.moveaxis(w, 4, 2).reshape(2, 4, 3, 3, 4), 0), 2, 0, 1, 2),
     reduction=True)
case("conv", 'R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NCHW4c")',
     [T("x", (1, 2, 7, 6, 4))], lambda x: split_c(pool_nd(join_c(x), (3, 3), (2, 2), (1, 1), "max"), 4))
case("conv", 'R.nn.avg_pool2d(x, pool_size=[2, 2], layout="NCHW4c", out_layout="NCHW")',
     [T("x", (1, 1, 4, 4, 4))], lambda x: pool_nd(join_c(x), (2, 2), (1, 1), (0, 0), "avg"), reduction=True)
case("conv", 'R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3, i4: (i0, i1 * 4 + i4, i2, i3)))',
     [T("x", (1, 2, 3, 3, 4))], join_c)


case("attention", 'R.nn.attention(q, k, v, causal_mask="TopLeft", window_size=2)',
     [T("q", (1, 5, 2, 4)), T("k", (1, 5, 2, 4)), T("v", (1, 5, 2, 4))],
     lambda q, k, v: attention(q, k, v, causal="TopLeft", window=2), reduction=True)
case("attention", 'R.nn.attention(q, k, v, causal_mask="BottomRight", window_size=3)',
     [T("q", (1, 3, 1, 4)), T("k", (1, 6, 1, 4)), T("v", (1, 6, 1, 4))],
     lambda q, k, v: attention(q, k, v, causal="BottomRight", window=3), reduction=True)
case("attention", 'R.nn.attention(q, k, v, window_size=2)', [T("q", (1, 4, 1, 4)), T("k", (1, 4, 1, 4)), T("v", (1, 4, 1, 4))],
     lambda q, k, v: attention(q, k, v, window=2), reduction=True)


def interpolate(mode, align_corners=None, layout="NCHW"):
    def run(x):
        xf = x if layout == "NCHW" else x.transpose(0, 3, 1, 2)
        size = (7, 5) if layout == "NCHW" else (7, 5)
        y = from_torch(F.interpolate(tt(xf), size=size, mode=mode, align_corners=align_corners), x.dtype)
        return y if layout == "NCHW" else y.transpose(0, 2, 3, 1)
    return run


def nearest_np(x, out_hw, mode, rounding):
    """ONNX Resize nearest in numpy: coordinate transform, then the rounding, clamped."""
    def coords(n_in, n_out):
        o = np.arange(n_out, dtype=np.float64)
        c = {"asymmetric": o * n_in / n_out, "half_pixel": (o + 0.5) * n_in / n_out - 0.5,
             "align_corners": o * (n_in - 1) / max(n_out - 1, 1),
             "tf_half_pixel_for_nn": (o + 0.5) * n_in / n_out}[mode]
        r = {"floor": np.floor(c), "ceil": np.ceil(c), "round": np.round(c),
             "round_prefer_ceil": np.floor(c + 0.5), "round_prefer_floor": np.ceil(c - 0.5)}[rounding]
        return np.clip(r.astype(np.int64), 0, n_in - 1)
    ys, xs = coords(x.shape[2], out_hw[0]), coords(x.shape[3], out_hw[1])
    return x[:, :, ys][:, :, :, xs]


case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="nearest_neighbor", '
     'coordinate_transformation_mode="asymmetric", rounding_method="floor")', [T("x", (1, 2, 4, 3))],
     interpolate("nearest"))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="linear", coordinate_transformation_mode="half_pixel")',
     [T("x", (2, 3, 4, 6))], interpolate("bilinear", False))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="linear", coordinate_transformation_mode="align_corners")',
     [T("x", (1, 2, 3, 8))], interpolate("bilinear", True))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="cubic", coordinate_transformation_mode="half_pixel")',
     [T("x", (1, 2, 5, 4))], interpolate("bicubic", False), reduction=True)
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="cubic", coordinate_transformation_mode="align_corners")',
     [T("x", (1, 1, 4, 4))], interpolate("bicubic", True), reduction=True)
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), layout="NHWC", method="linear", '
     'coordinate_transformation_mode="pytorch_half_pixel")', [T("x", (1, 3, 9, 2))], interpolate("bilinear", False, "NHWC"))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="linear")', [T("x", (1, 2, 4, 3), "float16")],
     interpolate("bilinear", False))
for mode, rounding in [("half_pixel", "round_prefer_ceil"), ("tf_half_pixel_for_nn", "floor"),
                       ("align_corners", "round"), ("asymmetric", "ceil"), ("half_pixel", "round_prefer_floor")]:
    case("resize", f'R.image.resize2d(x, R.shape([7, 5]), method="nearest_neighbor", '
         f'coordinate_transformation_mode="{mode}", rounding_method="{rounding}")', [T("x", (1, 2, 4, 6))],
         lambda x, mode=mode, rounding=rounding: nearest_np(x, (7, 5), mode, rounding))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="nearest_neighbor", '
     'coordinate_transformation_mode="asymmetric", rounding_method="floor")', [T("x", (1, 2, 4, 3), "int32")],
     lambda x: nearest_np(x, (7, 5), "asymmetric", "floor"))
case("resize", 'R.image.resize2d(x, R.shape([7, 5]), method="linear", coordinate_transformation_mode="half_pixel")',
     [T("x", (1, 2, 4, 6))], interpolate("bilinear", False), sym={"x": (1, 2, "h", "w")})


def interpolate3d(mode, size, align_corners=None):
    return lambda x: from_torch(F.interpolate(tt(x), size=size, mode=mode, align_corners=align_corners), x.dtype)


case("resize", 'R.image.resize3d(x, R.shape([5, 4, 6]), method="linear", coordinate_transformation_mode="half_pixel")',
     [T("x", (1, 2, 3, 5, 4))], interpolate3d("trilinear", (5, 4, 6), False))
case("resize", 'R.image.resize3d(x, R.shape([4, 3, 7]), method="linear", coordinate_transformation_mode="align_corners")',
     [T("x", (2, 1, 3, 2, 4), "float64")], interpolate3d("trilinear", (4, 3, 7), True))
case("resize", 'R.image.resize3d(x, R.shape([6, 2, 5]), method="nearest_neighbor", '
     'coordinate_transformation_mode="asymmetric", rounding_method="floor")',
     [T("x", (1, 3, 3, 4, 2))], interpolate3d("nearest", (6, 2, 5)))
case("resize", 'R.image.resize3d(x, R.shape([4, 4, 4]), layout="NDHWC", method="linear", '
     'coordinate_transformation_mode="half_pixel")', [T("x", (1, 3, 2, 5, 2))],
     lambda x: interpolate3d("trilinear", (4, 4, 4), False)(x.transpose(0, 4, 1, 2, 3)).transpose(0, 2, 3, 4, 1))
case("resize", 'R.image.resize3d(x, R.shape([3, 3, 3]), method="linear", coordinate_transformation_mode="half_pixel")',
     [T("x", (1, 2, 2, 4, 3), "float16")], f32_via(interpolate3d("trilinear", (3, 3, 3), False)))


def affine_grid(theta, h, w, align_corners):
    g = F.affine_grid(tt(theta), (theta.shape[0], 1, h, w), align_corners=align_corners)
    return from_torch(g.permute(0, 3, 1, 2), theta.dtype)


def grid_sample(mode, padding, corners):
    """PyTorch's grid_sample of x at grid (N, 2, Ho, Wo) (R.image.grid_sample's layout)."""
    def run(x, g):
        gt = tt(g).permute(0, 2, 3, 1)
        y = F.grid_sample(tt(x), gt, mode=mode, padding_mode=padding, align_corners=corners)
        return from_torch(y, x.dtype)
    return run


# Grid values from a standard normal: some fall outside [-1, 1], so every padding mode matters.
for mode in ("bilinear", "nearest", "bicubic"):
    for padding in ("zeros", "border", "reflection"):
        for corners in (False, True):
            case("resize", f'R.image.grid_sample(x, g, method="{mode}", padding_mode="{padding}", '
                 f'align_corners={corners})', [T("x", (2, 3, 4, 5)), T("g", (2, 2, 3, 6))],
                 grid_sample(mode, padding, corners), reduction=mode == "bicubic")
case("resize", 'R.image.grid_sample(x, g, method="bilinear", padding_mode="zeros", align_corners=False)',
     [T("x", (1, 2, 3, 4), "float64"), T("g", (1, 2, 5, 2), "float64")],
     grid_sample("bilinear", "zeros", False), sym={"x": ("n", 2, "h", "w")})
case("resize", "R.image.affine_grid(t, (4, 5), align_corners=True)", [T("t", (2, 2, 3))],
     lambda t: affine_grid(t, 4, 5, True))
case("resize", "R.image.affine_grid(t, (3, 6))", [T("t", (1, 2, 3), "float64")],
     lambda t: affine_grid(t, 3, 6, False))
case("resize", "R.image.affine_grid(t, (2, 7))", [T("t", (3, 2, 3))], lambda t: affine_grid(t, 2, 7, False),
     sym={"t": ("n", 2, 3)})


def roi_align_np(x, rois, pooled, scale, ratio=-1, aligned=False, mode="avg", nhwc=False):
    """TVM's topi.vision.roi_align, element by element (float64)."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    n_roi, (_, ch, h, w) = rois.shape[0], x.shape
    out = np.zeros((n_roi, ch, pooled[0], pooled[1]))

    def sample(b, y, xx):
        if y < -1 or xx < -1 or y > h or xx > w:
            return np.zeros(ch)
        y, xx = min(max(y, 0.0), h - 1), min(max(xx, 0.0), w - 1)
        y0, y1, x0, x1 = math.floor(y), math.ceil(y), math.floor(xx), math.ceil(xx)
        ly, lx = y - y0, xx - x0
        top = x[b, :, y0, x0] + (x[b, :, y0, x1] - x[b, :, y0, x0]) * lx
        bottom = x[b, :, y1, x0] + (x[b, :, y1, x1] - x[b, :, y1, x0]) * lx
        return top + (bottom - top) * ly

    for i in range(n_roi):
        b = int(rois[i, 0])
        x1, y1, x2, y2 = (float(v) * scale for v in rois[i, 1:])
        rh, rw = y2 - y1, x2 - x1
        if not aligned:
            rh, rw = max(rh, 1.0), max(rw, 1.0)
        bh, bw = rh / pooled[0], rw / pooled[1]
        gh = ratio if ratio > 0 else math.ceil(bh)
        gw = ratio if ratio > 0 else math.ceil(bw)
        for ph in range(pooled[0]):
            for pw in range(pooled[1]):
                vals = [sample(b, y1 + ph * bh + (a + 0.5) * bh / gh, x1 + pw * bw + (c + 0.5) * bw / gw)
                        for a in range(gh) for c in range(gw)]
                out[i, :, ph, pw] = np.mean(vals, axis=0) if mode == "avg" else np.max(vals, axis=0)
    out = out.astype(x.dtype)
    return out.transpose(0, 2, 3, 1) if nhwc else out


def roi_pool_np(x, rois, pooled, scale):
    n_roi, (_, ch, h, w) = rois.shape[0], x.shape
    out = np.zeros((n_roi, ch, pooled[0], pooled[1]), x.dtype)
    for i in range(n_roi):
        b = int(rois[i, 0])
        sw, sh, ew, eh = (math.floor(float(v) * scale + 0.5) for v in rois[i, 1:])
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bh, bw = rh / pooled[0], rw / pooled[1]
        for ph in range(pooled[0]):
            for pw in range(pooled[1]):
                h0 = min(max(math.floor(ph * bh) + sh, 0), h)
                h1 = min(max(math.ceil((ph + 1) * bh) + sh, 0), h)
                w0 = min(max(math.floor(pw * bw) + sw, 0), w)
                w1 = min(max(math.ceil((pw + 1) * bw) + sw, 0), w)
                if h1 > h0 and w1 > w0:
                    out[i, :, ph, pw] = x[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def nms_np(boxes, scores, max_per_class, iou_thr, score_thr, fmt="onnx"):
    """ONNX NonMaxSuppression per (batch, class), TVM's all_class output layouts."""
    B, N, _ = boxes.shape
    C = scores.shape[1]

    def iou(a, b):
        ay1, ay2, ax1, ax2 = min(a[0], a[2]), max(a[0], a[2]), min(a[1], a[3]), max(a[1], a[3])
        by1, by2, bx1, bx2 = min(b[0], b[2]), max(b[0], b[2]), min(b[1], b[3]), max(b[1], b[3])
        inter = max(0.0, min(ay2, by2) - max(ay1, by1)) * max(0.0, min(ax2, bx2) - max(ax1, bx1))
        union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter
        return inter / union if union > 0 else 0.0

    kept = []
    for b in range(B):
        for c in range(C):
            order = sorted([n for n in range(N) if scores[b, c, n] > score_thr[0]], key=lambda n: -scores[b, c, n])
            chosen = []
            for n in order:
                if len(chosen) >= max_per_class[0]:
                    break
                if all(iou(boxes[b, n].astype(np.float64), boxes[b, k].astype(np.float64)) <= iou_thr[0] for k in chosen):
                    chosen.append(n)
                    kept.append((b, c, n, scores[b, c, n]))
    if fmt == "onnx":
        sel = np.zeros((B * C * N, 3), np.int64)
        for k, (b, c, n, _) in enumerate(kept):
            sel[k] = (b, c, n)
        return sel, np.array([len(kept)], np.int64)
    sel, sc, cnt = np.zeros((B, C * N, 2), np.int64), np.zeros((B, C * N), scores.dtype), np.zeros(B, np.int64)
    for b, c, n, v in kept:
        sel[b, cnt[b]], sc[b, cnt[b]] = (c, n), v
        cnt[b] += 1
    return sel, sc, cnt


BOXES = "const:0,0,1,1,0,0.1,1,1.1,0,-0.1,1,0.9,0,10,1,11,0,10.1,1,11.1,0,100,1,101"  # ONNX's six boxes
case("vision", 'R.vision.all_class_non_max_suppression(b, s, m, i, t, "onnx")',
     [T("b", (1, 6, 4), "float32", BOXES), T("s", (1, 2, 6), "float32", "const:0.9,0.75,0.6,0.95,0.5,0.3,0.1,0.2,0.3,0.4,0.5,0.6"),
      T("m", (1,), "int64", "const:3"), T("i", (1,), "float32", "const:0.5"), T("t", (1,), "float32", "const:0.0")],
     nms_np)
case("vision", 'R.vision.all_class_non_max_suppression(b, s, m, i, t, output_format="tensorflow")',
     [T("b", (2, 5, 4)), T("s", (2, 3, 5)), T("m", (1,), "int64", "const:2"), T("i", (1,), "float32", "const:0.3"),
      T("t", (1,), "float32", "const:-0.5")], lambda b, s, m, i, t: nms_np(b, s, m, i, t, "tensorflow"))
def get_valid_counts_np(data, threshold=0.0, id_index=0, score_index=1):
    B, N, L = data.shape
    count, out, idx = np.zeros(B, np.int32), np.full(data.shape, -1, data.dtype), np.full((B, N), -1, np.int32)
    for i in range(B):
        for j in range(N):
            if data[i, j, score_index] > threshold and (id_index < 0 or data[i, j, id_index] >= 0):
                out[i, count[i]], idx[i, count[i]] = data[i, j], j
                count[i] += 1
    return count, out, idx


case("vision", "R.vision.get_valid_counts(d, score_threshold=0.2, id_index=0, score_index=1)",
     [T("d", (2, 7, 6))], lambda d: get_valid_counts_np(d, 0.2, 0, 1))
case("vision", "R.vision.get_valid_counts(d, score_threshold=-0.5, id_index=-1, score_index=0)",
     [T("d", (1, 5, 5), "float64")], lambda d: get_valid_counts_np(d, -0.5, -1, 0))
def multibox_np(cls, loc, anc, variances=(0.1, 0.1, 0.2, 0.2), clip=True, threshold=0.01, keep_background=False):
    """TVM's topi multibox_transform_loc (TFLite's decode of centre-size boxes)."""
    B, C, N = cls.shape
    l = loc.reshape(B, N, 4).astype(np.float64)
    a = anc[0].astype(np.float64)
    ay, ax = (a[:, 1] + a[:, 3]) / 2, (a[:, 0] + a[:, 2]) / 2
    ah, aw = a[:, 3] - a[:, 1], a[:, 2] - a[:, 0]
    yc, xc = l[..., 1] * variances[1] * ah + ay, l[..., 0] * variances[0] * aw + ax
    hh, hw = 0.5 * np.exp(l[..., 3] * variances[3]) * ah, 0.5 * np.exp(l[..., 2] * variances[2]) * aw
    boxes = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    p = softmax(cls, axis=1)
    p = np.where(p >= threshold, p, 0)
    if not keep_background:
        p[:, 0, :] = 0
    return boxes.astype(cls.dtype), p.astype(cls.dtype)


case("vision", "R.vision.multibox_transform_loc(c, l, a)", [T("c", (2, 3, 5)), T("l", (2, 20)), T("a", (1, 5, 4), "float32", "pos")],
     multibox_np)
case("vision", "R.vision.multibox_transform_loc(c, l, a, clip=False, threshold=0.3, variances=(1.0, 1.0, 1.0, 1.0), "
     "keep_background=True)", [T("c", (1, 4, 3), "float64"), T("l", (1, 12), "float64"), T("a", (1, 3, 4), "float64", "pos")],
     lambda c, l, a: multibox_np(c, l, a, (1.0, 1.0, 1.0, 1.0), False, 0.3, True))
def classic_nms_np(data, valid, indices, max_out=-1, iou_thr=0.5, force=False, top_k=-1, cs=2, si=1, idi=0,
                   return_indices=True, to_bottom=False):
    """TVM's classic hard NMS (topi.vision.non_max_suppression), step for step."""
    B, N, L = data.shape
    out, box = np.zeros(data.shape), np.zeros((B, N), np.int64)
    for b in range(B):
        n = min(max(int(valid[b]), 0), N)
        if iou_thr > 0:
            order = sorted(range(n), key=lambda j: -data[b, j, si])
            keep = top_k if 0 < top_k < n else n
            for j in range(n):
                out[b, j], box[b, j] = (data[b, order[j]], order[j]) if j < keep else (-1, -1)
            kept = 0
            for j in range(n):
                if kept == max_out:
                    out[b, j], box[b, j] = -1, -1
                    continue
                if not out[b, j, si] > 0:
                    continue
                a = out[b, j, cs:cs + 4]
                ok = True
                for k in range(j):
                    if not out[b, k, si] > 0 or (idi >= 0 and out[b, k, idi] < 0):
                        continue
                    if not force and idi >= 0 and out[b, j, idi] != out[b, k, idi]:
                        continue
                    c = out[b, k, cs:cs + 4]
                    al, at, ar, ab = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
                    bl, bt, br, bb = min(c[0], c[2]), min(c[1], c[3]), max(c[0], c[2]), max(c[1], c[3])
                    area = max(0, min(ar, br) - max(al, bl)) * max(0, min(ab, bb) - max(at, bt))
                    u = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - area
                    if (0 if u <= 0 else area / u) >= iou_thr:
                        ok = False
                if ok:
                    kept += 1
                else:
                    out[b, j], box[b, j] = -1, -1
        else:
            out[b, :n], box[b, :n] = data[b, :n], np.arange(n)
        out[b, n:], box[b, n:] = -1, -1
        if return_indices:
            box[b, :n] = [indices[b, x] if x >= 0 else x for x in box[b, :n]]
    if return_indices:
        idx, cnt = np.full((B, N), -1, np.int32), np.zeros((B, 1), np.int32)
        for b in range(B):
            kept = [x for x in box[b] if x >= 0]
            idx[b, :len(kept)], cnt[b, 0] = kept, len(kept)
        return idx, cnt
    if to_bottom:
        res = np.full(data.shape, -1.0)
        for b in range(B):
            rows = [r for r in out[b] if r[0] >= 0]
            res[b, :len(rows)] = rows
        out = res
    return out.astype(data.dtype)


NMS_DATA = ("const:0,0.9,0,0,1,1, 0,0.8,0,0.1,1,1.1, 1,0.7,0,0,1,1, 0,0.6,5,5,6,6, 0,0.95,5.1,5,6.1,6, "
            "-1,0.5,0,0,1,1").replace(" ", "")
case("vision", "R.vision.non_max_suppression(d, v, i)",
     [T("d", (1, 6, 6), "float32", NMS_DATA), T("v", (1,), "int32", "const:5"), T("i", (1, 6), "int32", "const:0,1,2,3,4,5")],
     lambda d, v, i: classic_nms_np(d, v, i))
case("vision", "R.vision.non_max_suppression(d, v, i, max_output_size=2, iou_threshold=0.3, force_suppress=True, "
     "return_indices=False, invalid_to_bottom=True)",
     [T("d", (1, 6, 6), "float32", NMS_DATA), T("v", (1,), "int32", "const:6"), T("i", (1, 6), "int32", "const:5,4,3,2,1,0")],
     lambda d, v, i: classic_nms_np(d, v, i, max_out=2, iou_thr=0.3, force=True, return_indices=False, to_bottom=True))
case("vision", "R.vision.non_max_suppression(d, v, i, top_k=3, id_index=-1, return_indices=False)",
     [T("d", (2, 4, 6)), T("v", (2,), "int32", "const:4,2"), T("i", (2, 4), "int32", "const:0,1,2,3,0,1,2,3")],
     lambda d, v, i: classic_nms_np(d, v, i, top_k=3, idi=-1, return_indices=False))
def iou_np(a, c):
    al, at, ar, ab = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    bl, bt, br, bb = min(c[0], c[2]), min(c[1], c[3]), max(c[0], c[2]), max(c[1], c[3])
    area = max(0, min(ar, br) - max(al, bl)) * max(0, min(ab, bb) - max(at, bt))
    u = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - area
    return 0 if u <= 0 else area / u


def soft_nms_np(data, valid, indices, sigma, score_thr=0.0, max_out=-1, iou_thr=0.5, force=False, top_k=-1,
                cs=2, si=1, idi=0, return_indices=True):
    """TVM's soft NMS (topi.vision.non_max_suppression with soft_nms_sigma > 0, LiteRT's form)."""
    B, N, L = data.shape
    out, box = np.full(data.shape, -1.0), np.full((B, N), -1, np.int64)
    cnt = np.zeros((B, 1), np.int32)
    for b in range(B):
        n = min(max(int(valid[b]), 0), N)
        order = sorted(range(n), key=lambda j: -data[b, j, si])
        keep = top_k if 0 < top_k < n else n
        for j in range(keep):
            out[b, j], box[b, j] = data[b, order[j]], order[j]
        kept = 0
        for _ in range(keep):
            if 0 < max_out <= kept:
                break
            cand = [j for j in range(kept, keep) if box[b, j] >= 0 and out[b, j, si] > score_thr]
            if not cand:
                break
            best = max(cand, key=lambda j: (out[b, j, si], -j))
            out[b, [kept, best]], box[b, [kept, best]] = out[b, [best, kept]], box[b, [best, kept]]
            for j in range(kept + 1, keep):
                if box[b, j] < 0 or not out[b, j, si] > score_thr:
                    continue
                if not force and idi >= 0 and out[b, kept, idi] != out[b, j, idi]:
                    continue
                o = iou_np(out[b, kept, cs:cs + 4], out[b, j, cs:cs + 4])
                if o >= iou_thr:
                    box[b, j] = -1
                    continue
                out[b, j, si] *= np.exp(-0.5 / sigma * o * o)
                if out[b, j, si] <= score_thr:
                    box[b, j] = -1
            kept += 1
        out[b, kept:], box[b, kept:] = -1, -1
        cnt[b, 0] = kept
        box[b, :kept] = [indices[b, x] for x in box[b, :kept]]
    if return_indices:
        return out.astype(data.dtype), box.astype(np.int32), cnt
    return out.astype(data.dtype)


case("vision", "R.vision.non_max_suppression(d, v, i, soft_nms_sigma=0.5)",
     [T("d", (1, 6, 6), "float32", NMS_DATA), T("v", (1,), "int32", "const:5"), T("i", (1, 6), "int32", "const:0,1,2,3,4,5")],
     lambda d, v, i: soft_nms_np(d, v, i, 0.5))
case("vision", "R.vision.non_max_suppression(d, v, i, iou_threshold=0.95, soft_nms_sigma=0.3, score_threshold=0.4, "
     "force_suppress=True, max_output_size=3)",
     [T("d", (1, 6, 6), "float32", NMS_DATA), T("v", (1,), "int32", "const:6"), T("i", (1, 6), "int32", "const:5,4,3,2,1,0")],
     lambda d, v, i: soft_nms_np(d, v, i, 0.3, 0.4, max_out=3, iou_thr=0.95, force=True))
case("vision", "R.vision.non_max_suppression(d, v, i, top_k=3, id_index=-1, return_indices=False, soft_nms_sigma=1.0)",
     [T("d", (2, 4, 6)), T("v", (2,), "int32", "const:4,2"), T("i", (2, 4), "int32", "const:0,1,2,3,0,1,2,3")],
     lambda d, v, i: soft_nms_np(d, v, i, 1.0, top_k=3, idi=-1, return_indices=False))
ROIS = "const:0,1,1,6,5,1,0,2,3,7,0,-2,-1,3,2"  # (3, 5): batch, x1, y1, x2, y2 (one past the edge)
case("vision", "R.vision.roi_align(x, r, pooled_size=[2, 3], spatial_scale=1.0)",
     [T("x", (2, 3, 6, 8)), T("r", (3, 5), "float32", ROIS)], lambda x, r: roi_align_np(x, r, (2, 3), 1.0))
case("vision", 'R.vision.roi_align(x, r, pooled_size=[3, 3], spatial_scale=0.5, sample_ratio=2, mode="max")',
     [T("x", (2, 2, 5, 5)), T("r", (3, 5), "float32", ROIS)],
     lambda x, r: roi_align_np(x, r, (3, 3), 0.5, ratio=2, mode="max"))
case("vision", 'R.vision.roi_align(x, r, pooled_size=[2, 2], spatial_scale=1.0, aligned=True, layout="NHWC")',
     [T("x", (2, 6, 7, 3), "float64"), T("r", (3, 5), "float64", ROIS)],
     lambda x, r: roi_align_np(x, r, (2, 2), 1.0, aligned=True, nhwc=True))
case("vision", "R.vision.roi_pool(x, r, pooled_size=[2, 2], spatial_scale=1.0)",
     [T("x", (2, 3, 6, 8)), T("r", (3, 5), "float32", ROIS)], lambda x, r: roi_pool_np(x, r, (2, 2), 1.0))
case("vision", "R.vision.roi_pool(x, r, pooled_size=[3, 2], spatial_scale=0.5)",
     [T("x", (2, 1, 7, 5), "int32"), T("r", (3, 5), "float32", ROIS)], lambda x, r: roi_pool_np(x, r, (3, 2), 0.5))


# ------------------------------------------------------------------------------ the runner
def sinfo(shape, dtype):
    dims = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in shape)
    if len(shape) == 1:
        dims += ","
    return f'R.Tensor(({dims}), "{dtype}")'


def module(cases):
    lines = ["# from tvm.script import ir as I", "# from tvm.script import tir as T",
             "# from tvm.script import relax as R", "",
             "@I.ir_module", "class Module:"]
    main_params, main_calls = [], []
    for k, c in enumerate(cases):
        params = ", ".join(f"{n}: {sinfo(c.sym.get(n, s), dt)}" for n, s, dt, _ in c.inputs)
        lines += ["    @R.function", f"    def case{k}({params}):",
                  f"        r = {c.call}", "        return r", ""]
        args = []
        for n, s, dt, _ in c.inputs:
            main_params.append(f"c{k}_{n}: {sinfo(s, dt)}")
            args.append(f"c{k}_{n}")
        main_calls.append(f"        r{k} = cls.case{k}({', '.join(args)})")
    lines += ["    @R.function", f"    def main({', '.join(main_params)}):", "        cls = Module"]
    lines += main_calls
    lines += [f"        return ({', '.join(f'r{k}' for k in range(len(cases)))},)", ""]
    return "\n".join(lines)


def leaves(value, out_dir):
    if isinstance(value, list):
        return [x for v in value for x in leaves(v, out_dir)]
    if isinstance(value, dict) and "npy" in value:
        return [np.load(os.path.join(out_dir, value["npy"]))]
    raise ValueError(f"unexpected result {value}")


def compare(label, c, got, want):
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"{label}: shape {got.shape}, numpy {want.shape}"
    if got.dtype != want.dtype:
        if not (np.issubdtype(got.dtype, np.floating) and np.issubdtype(want.dtype, np.floating)):
            return f"{label}: dtype {got.dtype}, numpy {want.dtype}"
        want = want.astype(got.dtype)
    if got.dtype == bool or np.issubdtype(got.dtype, np.integer):
        bad = int(np.count_nonzero(got != want))
        return f"{label}: {bad} mismatches" if bad else None
    rtol, atol = TOLERANCE[str(got.dtype)]
    if c.reduction:
        rtol, atol = rtol * REDUCTION_SCALE, atol * REDUCTION_SCALE
    if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        return f"{label}: max abs difference {np.nanmax(diff)} (rtol {rtol}, atol {atol})"
    return None


# Environment of a family's raxc processes: the portable matmul micro-kernel for its family.
# Fused epilogues (backend/fuse/epilogue.cpp → "raxc.matmul_bias_gelu_f32" and the like): the
# product and the kernels after it run as one packed call, here on both micro-kernels (the
# portable one applies them with scalar code): a bias and GELU on a partial tile, a bias, ReLU
# and a residual past MC, KC and NC, and a scalar's scale on a batch (attention's 1/√d). Their
# own families, defined last: the inputs are drawn from one generator in family order, so
# cases added to an earlier family would change every later family's inputs.
def epilogue64(scale=False, bias=False, act=None, residual=False):
    def ref(a, b, *rest):
        rest = list(rest)
        y = np.matmul(a.astype(np.float64), b.astype(np.float64))
        if scale:
            y = y * rest.pop(0)
        if bias:
            y = y + rest.pop(0)
        if act == "gelu":
            y = F.gelu(torch.from_numpy(y)).numpy()
        if act == "relu":
            y = np.maximum(y, 0)
        if residual:
            y = y + rest.pop(0)
        return y.astype(np.float32)
    return ref


for family in ("matmul_epilogue", "matmul_epilogue_portable"):
    case(family, "R.nn.gelu(R.add(R.matmul(a, b), c))",
         [T("a", (13, 300)), T("b", (300, 70)), T("c", (70,))], epilogue64(bias=True, act="gelu"),
         reduction=True)
    case(family, "R.add(R.nn.relu(R.add(c, R.matmul(a, b))), d)",
         [T("a", (130, 300)), T("b", (300, 1030)), T("c", (1030,)), T("d", (130, 1030))],
         epilogue64(bias=True, act="relu", residual=True), reduction=True)
    case(family, "R.multiply(R.matmul(a, b), s)",
         [T("a", (3, 20, 64)), T("b", (3, 64, 20)), T("s", ())], epilogue64(scale=True),
         reduction=True)


# A convolution's fused epilogue ("raxc.conv2d_nchw_bias_residual_relu_f32" and the like): a bias
# per output channel in each shape that broadcasts along the channels, a residual, ReLU, on the
# channel-vectorised kernel (64 output channels) and the position-vectorised one (the others;
# the portable tiles in the _portable family); a bias along the width does not fuse.
def conv_epilogue64(bias=False, residual=False, relu=False):
    def ref(x, w, *rest):
        rest = list(rest)
        y = F.conv2d(tt(x).double(), tt(w).double(), padding=1).numpy()
        if bias:
            y = y + rest.pop(0)
        if residual:
            y = y + rest.pop(0)
        if relu:
            y = np.maximum(y, 0)
        return y.astype(np.float32)
    return ref


for family in ("conv_epilogue", "conv_epilogue_portable"):
    conv = "R.nn.conv2d(x, w, padding=[1, 1])"
    case(family, f"R.nn.relu(R.add(R.add({conv}, b), r))",
         [T("x", (2, 16, 9, 9)), T("w", (64, 16, 3, 3)), T("b", (64, 1, 1)), T("r", (2, 64, 9, 9))],
         conv_epilogue64(bias=True, residual=True, relu=True), reduction=True)
    case(family, f"R.nn.relu(R.add(b, {conv}))",
         [T("x", (1, 12, 10, 11)), T("w", (20, 12, 3, 3)), T("b", (1, 20, 1, 1))],
         conv_epilogue64(bias=True, relu=True), reduction=True)
    case(family, f"R.add({conv}, r)",
         [T("x", (1, 5, 7, 7)), T("w", (9, 5, 3, 3)), T("r", (1, 9, 7, 7))],
         conv_epilogue64(residual=True), reduction=True)
    case(family, f"R.add({conv}, b)", [T("x", (1, 4, 6, 6)), T("w", (3, 4, 3, 3)), T("b", (6,))],
         conv_epilogue64(bias=True), reduction=True)


FAMILY_ENV = {"matmul_portable": {"RAXC_MATMUL_GENERIC": "1"},
              "matmul_epilogue_portable": {"RAXC_MATMUL_GENERIC": "1"},
              "conv_epilogue_portable": {"RAXC_MATMUL_GENERIC": "1"}}


def family_env(family):
    return dict(os.environ, **FAMILY_ENV.get(family, {}))


def run_family(raxc, family, cases, rng, work, round_trip):
    path = os.path.join(work, f"{family}.rx")
    with open(path, "w") as f:
        f.write(module(cases))
    files, expected = [], []
    for k, c in enumerate(cases):
        arrays = [draw(rng, s, dt, v) for _, s, dt, v in c.inputs]
        for (n, _, _, _), a in zip(c.inputs, arrays):
            files.append(os.path.join(work, f"{family}_c{k}_{n}.npy"))
            np.save(files[-1], a)
        with np.errstate(all="ignore"):
            want = c.ref(*arrays)
        expected.append(list(want) if isinstance(want, tuple) else [want])
    out_dir = os.path.join(work, f"{family}_out")
    proc = subprocess.run([raxc, "run", path, *files, "--save", out_dir], env=family_env(family),
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return 0, [f"{family}: raxc run exit {proc.returncode}: {proc.stderr.strip()[:1500]}"]
    with open(os.path.join(out_dir, "outputs.json")) as f:
        results = json.load(f)["value"]
    failures, passed = [], 0
    for k, (c, value, want) in enumerate(zip(cases, results, expected)):
        got = leaves(value, out_dir)
        label = f"{family} case{k} {c.name or c.call} {[(s, dt) for _, s, dt, _ in c.inputs]}"
        problems = [f"{label}: {len(got)} results, numpy {len(want)}"] if len(got) != len(want) else []
        problems += [p for g, w in zip(got, want) if (p := compare(label, c, g, w))]
        failures += problems
        passed += not problems
    if round_trip:
        failures += lower_round_trip(raxc, family, path, files, out_dir, work)
    return passed, failures


def lower_round_trip(raxc, family, path, files, out_dir, work):
    """raxc lower, raxc check of its output, raxc run of it: identical results."""
    lowered = os.path.join(work, f"{family}.lowered.rx")
    proc = subprocess.run([raxc, "lower", path, "-o", lowered, "--quiet"], capture_output=True, text=True)
    if proc.returncode != 0:
        return [f"{family}: raxc lower exit {proc.returncode}: {proc.stderr.strip()[:800]}"]
    with open(lowered) as f:
        text = f.read()
    import re
    left = [m for m in re.findall(r"R\.([a-z_.]+)\(", text)
            if m not in ("call_tir", "call_pure_packed", "call_dps_packed", "function", "Tensor", "Tuple", "tuple", "shape", "prim_value", "dataflow",
                         "output", "Shape", "Prim")]
    problems = [f"{family}: operator calls left after lowering: {sorted(set(left))}"] if left else []
    proc = subprocess.run([raxc, "check", lowered], capture_output=True, text=True)
    if proc.returncode != 0:
        return problems + [f"{family}: raxc check of the lowered module: {proc.stderr.strip()[:1500]}"]
    out2 = os.path.join(work, f"{family}_lowered_out")
    proc = subprocess.run([raxc, "run", lowered, *files, "--save", out2], capture_output=True, text=True,
                          env=family_env(family))
    if proc.returncode != 0:
        return problems + [f"{family}: raxc run of the lowered module: {proc.stderr.strip()[:800]}"]
    with open(os.path.join(out_dir, "outputs.json")) as f:
        a = leaves(json.load(f)["value"], out_dir)
    with open(os.path.join(out2, "outputs.json")) as f:
        b = leaves(json.load(f)["value"], out2)
    if len(a) != len(b) or any(x.shape != y.shape or x.dtype != y.dtype or
                               not np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b)):
        problems.append(f"{family}: the lowered module gives different results")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc")
    ap.add_argument("--round-trip", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--family", action="append")
    ap.add_argument("--list-ops", action="store_true")
    args = ap.parse_args()
    if args.list_ops:
        print("\n".join(sorted({c.op() for c in CASES})))
        return 0
    # Every legalized operator has at least one case.
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "legalized_operators.txt")) as f:
        listed = {"R." + line.strip()[len("relax."):] for line in f if line.strip() and line[0] != "#"}
    missing = sorted(listed - {c.op() for c in CASES})
    if missing:
        print("FAIL operators without a case:", ", ".join(missing))
        return 1
    if not args.raxc:
        ap.error("--raxc is required")
    families = {}
    for c in CASES:
        families.setdefault(c.family, []).append(c)
    rng = np.random.default_rng(20261125)
    failures, passed = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        for family, cases in families.items():
            if args.family and family not in args.family:
                continue
            p, f = run_family(args.raxc, family, cases, rng, work, args.round_trip)
            passed += p
            failures += f
            print(f"{'ok  ' if not f else 'FAIL'} {family}: {p}/{len(cases)} cases")
    for f in failures:
        print("FAIL", f)
    print(f"{passed} cases passed, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
