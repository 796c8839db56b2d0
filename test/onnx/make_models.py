#!/usr/bin/python3
"""Writes the small ONNX models test/onnx/import_cli_test.sh imports into DIR (built with
Debian's python3-onnx, so no binary model is tracked): one valid model per feature and, for each
RX14xx code, a model that triggers it next to a near miss that must import cleanly."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]


def save(name, nodes, inputs, outputs, inits=(), opset=13, domains=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    return model


def tensor(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


F = TensorProto.FLOAT
# add: symbolic batch dimension, a small initializer inlined as R.const.
save("add", [helper.make_node("Add", ["x", "b"], ["y"])], [tensor("x", F, ["N", 3])],
     [tensor("y", F, ["N", 3])], [numpy_helper.from_array(np.array([1, 2, 3], np.float32), "b")])
# mlp: Gemm + Relu + Gemm + Softmax with weights large enough to become parameters.
rng = np.random.default_rng(0)
w1 = numpy_helper.from_array(rng.standard_normal((8, 32)).astype(np.float32), "w1")
b1 = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "b1")
w2 = numpy_helper.from_array(rng.standard_normal((32, 4)).astype(np.float32), "w2")
save("mlp", [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["a"]),
             helper.make_node("MatMul", ["a", "w2"], ["l"]),
             helper.make_node("Softmax", ["l"], ["y"], axis=-1)],
     [tensor("x", F, ["batch", 8])], [tensor("y", F, ["batch", 4])], [w1, b1, w2])
np.save(os.path.join(OUT, "mlp_x.npy"), rng.standard_normal((2, 8)).astype(np.float32))
with open(os.path.join(OUT, "mlp_x.pb"), "wb") as f:
    f.write(numpy_helper.from_array(np.load(os.path.join(OUT, "mlp_x.npy")), "x").SerializeToString())
# RX1401 and its near miss.
save("bernoulli", [helper.make_node("Bernoulli", ["x"], ["y"])], [tensor("x", F, [3, 3])],
     [tensor("y", F, [3, 3])], opset=15)
save("bernoulli_ok", [helper.make_node("Mul", ["x", "x"], ["y"])],
     [tensor("x", F, [3, 3])], [tensor("y", F, [3, 3])])
# RX1402 and its near miss: select_last_index=1 needs the reduced axis' static extent.
for name, rows in (("argmax_last", "N"), ("argmax_ok", 2)):
    save(name, [helper.make_node("ArgMax", ["x"], ["y"], axis=1, select_last_index=1)],
         [tensor("x", F, [rows, 3])], [tensor("y", TensorProto.INT64, [rows, 1])])
# RX1403 and its near miss.
save("string_input", [helper.make_node("Identity", ["x"], ["y"])],
     [tensor("x", TensorProto.STRING, [2])], [tensor("y", TensorProto.STRING, [2])])
save("string_input_ok", [helper.make_node("Identity", ["x"], ["y"])],
     [tensor("x", F, [2])], [tensor("y", F, [2])])
# RX1404 and its near miss.
save("custom_domain", [helper.make_node("Relu", ["x"], ["y"], domain="com.example")],
     [tensor("x", F, [2])], [tensor("y", F, [2])], domains=["com.example"])
save("custom_domain_ok", [helper.make_node("Relu", ["x"], ["y"])],
     [tensor("x", F, [2])], [tensor("y", F, [2])], domains=["com.example"])
# RX1405 and its near miss.
save("cycle", [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
               helper.make_node("Relu", ["a"], ["b"], name="second")],
     [tensor("x", F, [2])], [tensor("b", F, [2])])
save("cycle_ok", [helper.make_node("Relu", ["x"], ["a"], name="first"),
                  helper.make_node("Add", ["x", "a"], ["b"], name="second")],
     [tensor("x", F, [2])], [tensor("b", F, [2])])
# RX1406 and its near miss (the same model beside its data file).
os.makedirs(os.path.join(OUT, "external_ok"), exist_ok=True)
os.makedirs(os.path.join(OUT, "external_missing"), exist_ok=True)
weights = np.arange(100, dtype=np.float32)
with open(os.path.join(OUT, "external_ok", "weights.bin"), "wb") as f:
    f.write(weights.tobytes())
init = TensorProto(name="w", data_type=F, dims=[100], data_location=TensorProto.EXTERNAL)
init.external_data.add(key="location", value="weights.bin")
for sub in ("external_ok", "external_missing"):
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "ext",
                              [tensor("x", F, [100])], [tensor("y", F, [100])], [init])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(os.path.join(OUT, sub, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
# RX1408 and its near miss: operand types ONNX would reject.
save("mixed_types", [helper.make_node("Add", ["x", "i"], ["y"])],
     [tensor("x", F, [2]), tensor("i", TensorProto.INT32, [2])], [tensor("y", F, [2])])
save("mixed_types_ok", [helper.make_node("Add", ["x", "i"], ["y"])],
     [tensor("x", F, [2]), tensor("i", F, [2])], [tensor("y", F, [2])])
# RX1400: the first half of a valid model, and a text file.
with open(os.path.join(OUT, "mlp.onnx"), "rb") as f:
    data = f.read()
with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
with open(os.path.join(OUT, "text.onnx"), "w") as f:
    f.write("this is not a model\n")
# RX1407: a .pb argument that is not a TensorProto.
with open(os.path.join(OUT, "garbage.pb"), "wb") as f:
    f.write(b"\xff\xff\xff\xff not a tensor")
# GELU and layer normalisation decomposed as PyTorch exports them before opsets 20 and 17
# (importer/patterns.cpp): decomposed.onnx holds a layer normalisation (its γ reached through an
# Identity, as PyTorch shares equal weights), a GELU in PyTorch's order and one in the order
# x · 0.5 first, with x · (1/√2) for x / √2; each must import as one operator.
# decomposed_near.onnx holds near misses that must stay node by node: 1.5 where GELU adds 1, a
# normalisation whose centred value is also a graph output, one whose means are over axis 1, a
# fourth power for the square, a γ of shape (1, 8) (its outputs: the last and that centred
# value). The expected outputs are numpy's.
def const(name, value):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(value, np.float32), name))


def layer_norm(x, out, tag, gamma, beta, axes=(-1,), power=2.0):
    return [helper.make_node("ReduceMean", [x], [tag + "m"], axes=list(axes)),
            helper.make_node("Sub", [x, tag + "m"], [tag + "d"]),
            const(tag + "two", power),
            helper.make_node("Pow", [tag + "d", tag + "two"], [tag + "p"]),
            helper.make_node("ReduceMean", [tag + "p"], [tag + "v"], axes=list(axes)),
            const(tag + "eps", 1e-5),
            helper.make_node("Add", [tag + "v", tag + "eps"], [tag + "ve"]),
            helper.make_node("Sqrt", [tag + "ve"], [tag + "s"]),
            helper.make_node("Div", [tag + "d", tag + "s"], [tag + "n"]),
            helper.make_node("Mul", [tag + "n", gamma], [tag + "g"]),
            helper.make_node("Add", [tag + "g", beta], [out])]


def gelu_torch(x, out, tag, one=1.0):
    return [const(tag + "r2", np.sqrt(2.0)),
            helper.make_node("Div", [x, tag + "r2"], [tag + "q"]),
            helper.make_node("Erf", [tag + "q"], [tag + "e"]),
            const(tag + "one", one),
            helper.make_node("Add", [tag + "e", tag + "one"], [tag + "a"]),
            helper.make_node("Mul", [x, tag + "a"], [tag + "xa"]),
            const(tag + "half", 0.5),
            helper.make_node("Mul", [tag + "xa", tag + "half"], [out])]


def gelu_half_first(x, out, tag):
    return [const(tag + "r", np.sqrt(0.5)),
            helper.make_node("Mul", [x, tag + "r"], [tag + "q"]),
            helper.make_node("Erf", [tag + "q"], [tag + "e"]),
            const(tag + "one", 1.0),
            helper.make_node("Add", [tag + "one", tag + "e"], [tag + "a"]),
            const(tag + "half", 0.5),
            helper.make_node("Mul", [tag + "half", x], [tag + "h"]),
            helper.make_node("Mul", [tag + "h", tag + "a"], [out])]


def np_layer_norm(x, gamma, beta, axis=-1, power=2.0):
    d = x - x.mean(axis=axis, keepdims=True)
    return d / np.sqrt((d ** power).mean(axis=axis, keepdims=True) + np.float32(1e-5)) * gamma + beta


def np_gelu(x, one=1.0):
    from math import erf
    return x * (np.vectorize(erf)(x / np.sqrt(2.0)) + one) * 0.5


gamma = rng.standard_normal(8).astype(np.float32)
beta = rng.standard_normal(8).astype(np.float32)
weights = [numpy_helper.from_array(gamma, "gamma0"), numpy_helper.from_array(beta, "beta")]
x = rng.standard_normal((2, 3, 8)).astype(np.float32)
np.save(os.path.join(OUT, "decomposed_x.npy"), x)
save("decomposed",
     [helper.make_node("Identity", ["gamma0"], ["gamma"])] +
     layer_norm("x", "ln", "l_", "gamma", "beta") + gelu_torch("ln", "g1", "a_") +
     gelu_half_first("g1", "y", "b_"),
     [tensor("x", F, [2, 3, 8])], [tensor("y", F, [2, 3, 8])], weights)
np.save(os.path.join(OUT, "decomposed_y.npy"), np_gelu(np_gelu(np_layer_norm(x, gamma, beta))))
near = (gelu_torch("x", "g1", "a_", one=1.5) + layer_norm("g1", "ln2", "m_", "gamma0", "beta") +
        layer_norm("ln2", "ln3", "n_", "gamma0", "beta", axes=(1,)) +
        layer_norm("ln3", "ln4", "o_", "gamma0", "beta", power=4.0) +
        layer_norm("ln4", "y", "p_", "gamma_row", "beta"))
save("decomposed_near", near, [tensor("x", F, [2, 8, 8])],
     [tensor("y", F, [2, 8, 8]), tensor("m_d", F, [2, 8, 8])],
     weights + [numpy_helper.from_array(gamma.reshape(1, 8), "gamma_row")])
x8 = rng.standard_normal((2, 8, 8)).astype(np.float32)
np.save(os.path.join(OUT, "decomposed_near_x.npy"), x8)
ln2 = np_layer_norm(np_gelu(x8, one=1.5), gamma, beta)
ln4 = np_layer_norm(np_layer_norm(ln2, gamma, beta, axis=1), gamma, beta, power=4.0)
np.save(os.path.join(OUT, "decomposed_near_y.npy"), np_layer_norm(ln4, gamma.reshape(1, 8), beta))
# Gelu (opset 20), both forms.
for form in ("none", "tanh"):
    save("gelu_" + form, [helper.make_node("Gelu", ["x"], ["y"], approximate=form)],
         [tensor("x", F, [4])], [tensor("y", F, [4])], opset=20)
