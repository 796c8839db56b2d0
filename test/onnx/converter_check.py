#!/usr/bin/python3
"""Converter forms ONNX's own test suite leaves out, each a small model run with `raxc run
model.onnx` and compared with a numpy reference written here from the ONNX operator text:
bidirectional and reverse RNN / GRU / LSTM with sequence_lens, initial states, clip,
linear_before_reset, peepholes, input_forget and other activations; ConvTranspose output_shape
with SAME_LOWER; Compress without an axis; MaxPool's Indices in 1-D and column-major; MaxUnpool
with pads; the integer matmul / convolution with per-row / per-channel zero points and
QLinearConv's per-channel scale and bias; DFT one-sided with dft_length, STFT of a complex
signal; Scan backwards along axis 1 with its outputs reversed; Loop over a body whose nodes are
not listed in order; TfIdfVectorizer's TFIDF and IDF modes with weights and trigrams. Tolerances are the conformance runner's.
  usage: converter_check.py --raxc build/raxc
Run with /usr/bin/python3 (numpy and onnx are Debian packages).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RTOL, ATOL = 1e-3, 1e-5
rng = np.random.default_rng(7)
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def model(nodes, inputs, outputs, opset=14):
    """inputs/outputs: [(name, array or (np dtype, shape))]."""
    def info(name, a):
        dt, shape = (a.dtype, a.shape) if isinstance(a, np.ndarray) else a
        return helper.make_tensor_value_info(name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)], shape)
    g = helper.make_graph(nodes, "m", [info(n, a) for n, a in inputs], [info(n, a) for n, a in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def run(raxc, tmp, m, inputs):
    path = os.path.join(tmp, "model.onnx")
    onnx.save(m, path)
    args = []
    for k, (name, a) in enumerate(inputs):
        p = os.path.join(tmp, f"input_{k}.pb")
        with open(p, "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
        args.append(p)
    out = os.path.join(tmp, "out")
    r = subprocess.run([raxc, "run", path, *args, "--save", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"raxc run failed: {r.stdout[:800]} {r.stderr[:800]}")
    with open(os.path.join(out, "outputs.json")) as f:
        value = json.load(f)["value"]
    leaves = value if isinstance(value, list) else [value]
    return [np.load(os.path.join(out, leaf["npy"])) for leaf in leaves]


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


ACT = {"Sigmoid": sigmoid, "Tanh": np.tanh, "Relu": lambda x: np.maximum(x, 0),
       "HardSigmoid": lambda x, a=0.2, b=0.5: np.clip(a * x + b, 0, 1),
       "LeakyRelu": lambda x, a=0.01: np.where(x > 0, x, a * x)}


def recurrent_ref(kind, x, w, r, b, lens, h0, c0, p, hidden, direction, acts, clip=None,
                  lbr=False, input_forget=False):
    """ONNX's RNN / GRU / LSTM equations, layout 0; returns Y, Y_h (and Y_c)."""
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    per = len(acts) // dirs
    Y = np.zeros((seq, dirs, batch, hidden), np.float32)
    Hs, Cs = [], []
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    for d in range(dirs):
        f = [ACT[a] for a in acts[d * per:(d + 1) * per]]
        W, R = w[d], r[d]
        Wb, Rb = (b[d][: b.shape[1] // 2], b[d][b.shape[1] // 2:]) if b is not None else (0, 0)
        H = h0[d].copy() if h0 is not None else np.zeros((batch, hidden), np.float32)
        C = c0[d].copy() if c0 is not None else np.zeros((batch, hidden), np.float32)
        steps = range(seq - 1, -1, -1) if (direction == "reverse" or d == 1) else range(seq)
        for t in steps:
            live = (t < lens)[:, None] if lens is not None else np.ones((batch, 1), bool)
            xt = x[t]
            if kind == "RNN":
                nh = f[0](cl(xt @ W.T + H @ R.T + Wb + Rb))
                nc = C
            elif kind == "GRU":
                Hn = hidden
                gx = xt @ W.T + Wb
                z = f[0](cl(gx[:, :Hn] + H @ R[:Hn].T + (Rb[:Hn] if b is not None else 0)))
                rr = f[0](cl(gx[:, Hn:2 * Hn] + H @ R[Hn:2 * Hn].T + (Rb[Hn:2 * Hn] if b is not None else 0)))
                rbh = Rb[2 * Hn:] if b is not None else 0
                if lbr:
                    hh = f[1](cl(gx[:, 2 * Hn:] + rr * (H @ R[2 * Hn:].T + rbh)))
                else:
                    hh = f[1](cl(gx[:, 2 * Hn:] + (rr * H) @ R[2 * Hn:].T + rbh))
                nh = (1 - z) * hh + z * H
                nc = C
            else:
                Hn = hidden
                g = xt @ W.T + H @ R.T + Wb + Rb
                pi, po, pf = (p[d][:Hn], p[d][Hn:2 * Hn], p[d][2 * Hn:]) if p is not None else (0, 0, 0)
                i = f[0](cl(g[:, :Hn] + pi * C))
                fg = 1 - i if input_forget else f[0](cl(g[:, 2 * Hn:3 * Hn] + pf * C))
                cc = f[1](cl(g[:, 3 * Hn:]))
                nc = fg * C + i * cc
                o = f[0](cl(g[:, Hn:2 * Hn] + po * nc))
                nh = o * f[2](nc)
            Y[t, d] = np.where(live, nh, 0)
            H = np.where(live, nh, H)
            C = np.where(live, nc, C)
        Hs.append(H)
        Cs.append(C)
    return Y, np.stack(Hs), np.stack(Cs)


def recurrent_case(raxc, tmp, kind, direction, acts, seq=4, batch=3, inp=2, hidden=3, clip=None,
                   lbr=False, input_forget=False, peep=False, lens=True, layout=0):
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    dirs = 2 if direction == "bidirectional" else 1
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.7
    x, w, r, b = f32(seq, batch, inp), f32(dirs, G * hidden, inp), f32(dirs, G * hidden, hidden), f32(dirs, 2 * G * hidden)
    sl = np.array([seq, 1, seq - 1][:batch], np.int32)
    h0 = f32(dirs, batch, hidden)
    ins = [("X", x), ("W", w), ("R", r), ("B", b), ("sequence_lens", sl), ("initial_h", h0)]
    c0 = f32(dirs, batch, hidden) if kind == "LSTM" else None
    p = f32(dirs, 3 * hidden) if peep else None
    if kind == "LSTM":
        ins.append(("initial_c", c0))
        if peep:
            ins.append(("P", p))
    if not lens:
        ins[4] = ("", None)
    attrs = dict(hidden_size=hidden, direction=direction, activations=acts, layout=layout)
    if clip:
        attrs["clip"] = clip
    if lbr:
        attrs["linear_before_reset"] = 1
    if input_forget:
        attrs["input_forget"] = 1
    outs = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    Y, Yh, Yc = recurrent_ref(kind, x, w, r, b, sl if lens else None, h0, c0, p, hidden, direction,
                              acts, clip, lbr, input_forget)
    feed = [(n, a) for n, a in ins if n]
    if layout:
        feed = [(n, a.transpose(1, 0, 2) if n in ("X", "initial_h", "initial_c") else a) for n, a in feed]
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    node = helper.make_node(kind, [n for n, _ in ins], outs, **attrs)
    expected = [Y, Yh] + ([Yc] if kind == "LSTM" else [])
    m = model([node], feed, [(n, (np.float32, e.shape)) for n, e in zip(outs, expected)])
    return run(raxc, tmp, m, feed), expected


@check
def lstm_bidirectional(raxc, tmp):
    return recurrent_case(raxc, tmp, "LSTM", "bidirectional", ["Sigmoid", "Tanh", "Tanh"] * 2, peep=True)


@check
def lstm_reverse_input_forget_clip(raxc, tmp):
    return recurrent_case(raxc, tmp, "LSTM", "reverse", ["HardSigmoid", "Tanh", "Relu"], clip=0.8,
                          input_forget=True, layout=1)


@check
def gru_bidirectional_linear_before_reset(raxc, tmp):
    return recurrent_case(raxc, tmp, "GRU", "bidirectional", ["Sigmoid", "Tanh", "Sigmoid", "LeakyRelu"],
                          lbr=True)


@check
def gru_reverse(raxc, tmp):
    return recurrent_case(raxc, tmp, "GRU", "reverse", ["Sigmoid", "Tanh"], lens=False)


@check
def rnn_bidirectional_relu(raxc, tmp):
    return recurrent_case(raxc, tmp, "RNN", "bidirectional", ["Relu", "Tanh"], layout=1)


@check
def conv_transpose_output_shape_same_lower(raxc, tmp):
    import torch
    x = rng.standard_normal((1, 2, 4, 3)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    # SAME_LOWER with output_shape (9, 7): total padding 2*3 + 3 - 9 = 0 rows, 2*2 + 3 - 7 = 0.
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[9, 7],
                            auto_pad="SAME_LOWER")
    y = torch.nn.functional.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), stride=2).numpy()
    # And output_shape (8, 6): one row and one column of padding, at the start for SAME_LOWER.
    node2 = helper.make_node("ConvTranspose", ["x", "w"], ["y2"], strides=[2, 2], output_shape=[8, 6],
                             auto_pad="SAME_LOWER")
    y2 = y[:, :, 1:, 1:]
    m = model([node, node2], [("x", x), ("w", w)], [("y", (np.float32, y.shape)), ("y2", (np.float32, y2.shape))])
    return run(raxc, tmp, m, [("x", x), ("w", w)]), [y, y2]


@check
def compress_flattened(raxc, tmp):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    cond = np.array([1, 0, 0, 1, 1, 0, 1], bool)
    node = helper.make_node("Compress", ["x", "c"], ["y"])
    y = np.compress(cond, x)
    m = model([node], [("x", x), ("c", cond)], [("y", (np.float32, y.shape))], opset=11)
    return run(raxc, tmp, m, [("x", x), ("c", cond)]), [y]


def maxpool_indices_ref(x, k, s, pads, column_major):
    """1-D or 2-D max pool with the flat index of each window's first maximum."""
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + n]) for i in range(n)], constant_values=-np.inf)
    out = [(xp.shape[2 + i] - k[i]) // s[i] + 1 for i in range(n)]
    Y = np.zeros(x.shape[:2] + tuple(out), x.dtype)
    I = np.zeros(Y.shape, np.int64)
    S = int(np.prod(x.shape[2:]))
    for idx in np.ndindex(*Y.shape):
        nb, c, o = idx[0], idx[1], idx[2:]
        best, where = -np.inf, None
        for off in np.ndindex(*k):
            pos = [o[i] * s[i] + off[i] for i in range(n)]
            v = xp[(nb, c, *pos)]
            if v > best:
                best, where = v, [pos[i] - pads[i] for i in range(n)]
        Y[idx] = best
        dims = x.shape[2:]
        flat = 0
        order = range(n - 1, -1, -1) if column_major else range(n)
        for i in order:
            flat = flat * dims[i] + where[i]
        I[idx] = (nb * x.shape[1] + c) * S + flat
    return Y, I


@check
def maxpool_indices_1d_and_column_major(raxc, tmp):
    x1 = rng.standard_normal((2, 3, 9)).astype(np.float32)
    x2 = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    n1 = helper.make_node("MaxPool", ["x1"], ["y1", "i1"], kernel_shape=[3], strides=[2], pads=[1, 1])
    n2 = helper.make_node("MaxPool", ["x2"], ["y2", "i2"], kernel_shape=[2, 3], strides=[1, 2],
                          pads=[0, 1, 1, 0], storage_order=1)
    y1, i1 = maxpool_indices_ref(x1, [3], [2], [1, 1], False)
    y2, i2 = maxpool_indices_ref(x2, [2, 3], [1, 2], [0, 1, 1, 0], True)
    outs = [("y1", y1), ("i1", i1), ("y2", y2), ("i2", i2)]
    m = model([n1, n2], [("x1", x1), ("x2", x2)], [(n, (a.dtype, a.shape)) for n, a in outs], opset=12)
    got = run(raxc, tmp, m, [("x1", x1), ("x2", x2)])
    return got, [y1, i1, y2, i2]


@check
def maxunpool_pads(raxc, tmp):
    v = rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
    idx = np.array([[[[0, 3], [8, 10]], [[12 + 1, 12 + 2], [12 + 7, 12 + 11]]]], np.int64)
    # (2 - 1) * 2 + 3 - 1 - 0 = 4 rows, (2 - 1) * 2 + 3 - 0 - 2 = 3 columns.
    node = helper.make_node("MaxUnpool", ["v", "i"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                            pads=[1, 0, 0, 2])
    y = np.zeros(1 * 2 * 4 * 3, np.float32)
    y[idx.ravel()] = v.ravel()
    y = y.reshape(1, 2, 4, 3)
    m = model([node], [("v", v), ("i", idx)], [("y", (np.float32, y.shape))], opset=11)
    return run(raxc, tmp, m, [("v", v), ("i", idx)]), [y]


@check
def matmul_integer_per_row(raxc, tmp):
    a = rng.integers(0, 255, (3, 4)).astype(np.uint8)
    b = rng.integers(-128, 127, (4, 2)).astype(np.int8)
    az = np.array([3, 100, 250], np.uint8)
    bz = np.array([-5, 7], np.int8)
    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    y = (a.astype(np.int32) - az.astype(np.int32)[:, None]) @ (b.astype(np.int32) - bz.astype(np.int32))
    feed = [("a", a), ("b", b), ("az", az), ("bz", bz)]
    m = model([node], feed, [("y", (np.int32, y.shape))], opset=10)
    return run(raxc, tmp, m, feed), [y]


@check
def qlinear_conv_per_channel_bias(raxc, tmp):
    import torch
    x = rng.integers(0, 255, (1, 2, 5, 5)).astype(np.uint8)
    w = rng.integers(0, 255, (3, 2, 3, 3)).astype(np.uint8)
    xs, xz = np.float32(0.02), np.uint8(120)
    ws = np.array([0.01, 0.03, 0.005], np.float32)
    wz = np.array([128, 100, 140], np.uint8)
    ys, yz = np.float32(0.4), np.uint8(90)
    bias = rng.integers(-500, 500, (3,)).astype(np.int32)
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                            pads=[1, 1, 1, 1])
    xi = torch.from_numpy(x.astype(np.int64) - int(xz)).double()
    wi = torch.from_numpy(w.astype(np.int64) - wz.astype(np.int64)[:, None, None, None]).double()
    acc = torch.nn.functional.conv2d(xi, wi, padding=1).numpy() + bias[None, :, None, None]
    real = acc.astype(np.float32) * (xs * ws)[None, :, None, None]
    y = np.clip(np.rint(real / ys) + int(yz), 0, 255).astype(np.uint8)
    feed = [("x", x), ("xs", np.array(xs)), ("xz", np.array(xz)), ("w", w), ("ws", ws), ("wz", wz),
            ("ys", np.array(ys)), ("yz", np.array(yz)), ("b", bias)]
    m = model([node], feed, [("y", (np.uint8, y.shape))], opset=10)
    return run(raxc, tmp, m, feed), [y]


@check
def dft_onesided_padded_and_truncated(raxc, tmp):
    x = rng.standard_normal((2, 3, 10, 1)).astype(np.float32)
    n12 = helper.make_node("Constant", [], ["n12"], value=numpy_helper.from_array(np.array(12, np.int64)))
    n6 = helper.make_node("Constant", [], ["n6"], value=numpy_helper.from_array(np.array(6, np.int64)))
    d1 = helper.make_node("DFT", ["x", "n12"], ["y1"], axis=2, onesided=1)
    d2 = helper.make_node("DFT", ["x", "n6"], ["y2"], axis=-2)
    f1 = np.fft.rfft(x[..., 0], n=12, axis=2)
    f2 = np.fft.fft(x[..., 0], n=6, axis=2)
    y1 = np.stack([f1.real, f1.imag], -1).astype(np.float32)
    y2 = np.stack([f2.real, f2.imag], -1).astype(np.float32)
    m = model([n12, n6, d1, d2], [("x", x)], [("y1", (np.float32, y1.shape)), ("y2", (np.float32, y2.shape))],
              opset=17)
    return run(raxc, tmp, m, [("x", x)]), [y1, y2]


@check
def stft_complex_two_sided(raxc, tmp):
    sig = rng.standard_normal((2, 20, 2)).astype(np.float32)
    win = np.hanning(8).astype(np.float32)
    node = helper.make_node("STFT", ["s", "step", "w"], ["y"], onesided=0)
    step = np.array(3, np.int64)
    z = sig[..., 0] + 1j * sig[..., 1]
    frames = [(z[:, f * 3:f * 3 + 8] * win) for f in range((20 - 8) // 3 + 1)]
    f = np.stack([np.fft.fft(fr, axis=-1) for fr in frames], axis=1)
    y = np.stack([f.real, f.imag], -1).astype(np.float32)
    feed = [("s", sig), ("step", step), ("w", win)]
    m = model([node], feed, [("y", (np.float32, y.shape))], opset=17)
    return run(raxc, tmp, m, feed), [y]


@check
def scan_reverse_input_axis_output_axis(raxc, tmp):
    s0 = rng.standard_normal((2,)).astype(np.float32)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "nx"], ["s_out"]),
         helper.make_node("Constant", [], ["k"], value=two),
         helper.make_node("Mul", ["s_out", "k"], ["z_out"])], "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("nx", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("z_out", TensorProto.FLOAT, [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["s", "z"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1],
                            scan_output_directions=[1])
    acc, zs = s0.copy(), []
    for t in range(3, -1, -1):
        acc = acc + x[:, t]
        zs.append(acc * 2)
    z = np.stack(zs[::-1], axis=1)
    feed = [("s0", s0), ("x", x)]
    m = model([node], feed, [("s", (np.float32, (2,))), ("z", (np.float32, z.shape))], opset=11)
    return run(raxc, tmp, m, feed), [acc, z]


@check
def loop_with_an_unsorted_body(raxc, tmp):
    a0 = rng.standard_normal((2,)).astype(np.float32)
    two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
    # The body's nodes are listed consumers first: its order comes from its edges alone, in every
    # unrolled iteration.
    body = helper.make_graph(
        [helper.make_node("Mul", ["t", "k"], ["a_out"]),
         helper.make_node("Add", ["a_in", "i_f"], ["t"]),
         helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
         helper.make_node("Constant", [], ["k"], value=two),
         helper.make_node("Identity", ["c_in"], ["c_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("a_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("a_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    m_node = helper.make_node("Constant", [], ["m"], value=numpy_helper.from_array(np.array(3, np.int64)))
    node = helper.make_node("Loop", ["m", "", "a0"], ["a", "ts"], body=body)
    a, ts = a0.copy(), []
    for i in range(3):
        t = a + i
        ts.append(t)
        a = t * 2
    ts = np.stack(ts)
    m = model([m_node, node], [("a0", a0)], [("a", (np.float32, (2,))), ("ts", (np.float32, ts.shape))],
              opset=13)
    return run(raxc, tmp, m, [("a0", a0)]), [a, ts]


def tfidf_ref(x, pool, counts, indexes, lo, hi, skip, mode, weights):
    """Counts of each pool n-gram over windows with 0..skip items skipped (unigrams once)."""
    grams = []
    for n in range(1, len(counts) + 1):
        end = counts[n] if n < len(counts) else len(pool)
        grams += [(n, tuple(pool[k:k + n])) for k in range(counts[n - 1], end, n)]
    rows = x.reshape(-1, x.shape[-1])
    out = np.zeros((rows.shape[0], max(indexes) + 1), np.float32)
    for r, row in enumerate(rows):
        for j, (n, g) in enumerate(grams):
            if not lo <= n <= hi:
                continue
            cnt = 0
            for s in range(skip + 1 if n > 1 else 1):
                for i in range(len(row) - (n - 1) * (s + 1)):
                    cnt += tuple(row[i + k * (s + 1)] for k in range(n)) == g
            v = {"TF": cnt, "IDF": float(cnt > 0) * weights[j], "TFIDF": cnt * weights[j]}[mode]
            out[r, indexes[j]] = v
    return out.reshape(x.shape[:-1] + (out.shape[-1],))


@check
def tfidf_trigrams_weighted(raxc, tmp):
    x = rng.integers(0, 4, (3, 9)).astype(np.int64)
    pool, counts = [1, 2, 3, 0, 1, 2, 1, 1, 2, 3, 0, 1], [0, 3, 9]
    indexes = [5, 0, 1, 2, 4, 3, 6]
    weights = [0.5, 2.0, 1.0, 3.0, 0.25, 1.5, 4.0]
    outs, nodes = [], []
    for mode, lo in (("TFIDF", 1), ("IDF", 2)):
        name = f"y_{mode}"
        nodes.append(helper.make_node("TfIdfVectorizer", ["x"], [name], mode=mode, min_gram_length=lo,
                                      max_gram_length=3, max_skip_count=2, ngram_counts=counts,
                                      ngram_indexes=indexes, pool_int64s=pool, weights=weights))
        outs.append((name, tfidf_ref(x, pool, counts, indexes, lo, 3, 2, mode, weights)))
    m = model(nodes, [("x", x)], [(n, (np.float32, a.shape)) for n, a in outs], opset=9)
    return run(raxc, tmp, m, [("x", x)]), [a for _, a in outs]


def close(got, want):
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if np.issubdtype(want.dtype, np.floating):
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            return f"max difference {np.max(np.abs(got - want))}"
    elif np.issubdtype(want.dtype, np.integer) and want.dtype == np.uint8:
        # Requantized values may differ by one where the scaled value sits on a rounding edge.
        if np.max(np.abs(got.astype(np.int64) - want.astype(np.int64))) > 1:
            return "values differ by more than 1"
    elif not np.array_equal(got, want):
        return "values differ"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raxc", required=True)
    args = ap.parse_args()
    failures = 0
    for fn in CHECKS:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                got, want = fn(args.raxc, tmp)
                problems = [close(g, w) for g, w in zip(got, want)]
                if len(got) != len(want):
                    problems.append(f"{len(got)} outputs, expected {len(want)}")
                problems = [p for p in problems if p]
            except AssertionError as e:
                problems = [str(e)]
        if problems:
            failures += 1
            print(f"FAIL {fn.__name__}: {'; '.join(problems)}")
        else:
            print(f"ok   {fn.__name__}")
    print(f"{len(CHECKS) - failures}/{len(CHECKS)} converter checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
