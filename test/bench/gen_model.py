#!/usr/bin/env python3
"""Writes a large, realistic Relax module: a transformer-like encoder in TVM's printed style.

Every layer has its own fused TIR kernels (as TVM's FuseOps + FuseTIR produce them) and a Relax
function with a dataflow block; `main` chains the layers. Batch and sequence length are symbolic
(`b`, `s`). Used by the frontend/analysis/LSP benchmarks; deterministic for a given --layers.

    gen_model.py [--layers N] [--hidden D] > model.rx
"""
import argparse
import sys

I64 = "T.int64({})".format


def elementwise(name, hidden, body, inputs=("x",), extra_params=""):
    """A (b*s, hidden) element-wise kernel over symbolic rows."""
    params = ", ".join(f"var_{i}: T.handle" for i in inputs)
    lines = [
        "    @T.prim_func(private=True)",
        f"    def {name}({params}{extra_params}, var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        rows = T.int64()",
    ]
    for i in inputs:
        lines.append(f"        {i} = T.match_buffer(var_{i}, (rows, {I64(hidden)}))")
    lines += [
        f"        out = T.match_buffer(var_out, (rows, {I64(hidden)}))",
        '        # with T.block("root"):',
        f"        for i, j in T.grid(rows, {I64(hidden)}):",
        f'            with T.block("{name}"):',
        '                v_i, v_j = T.axis.remap("SS", [i, j])',
        "                T.reads(" + ", ".join(f"{i}[v_i, v_j]" for i in inputs) + ")",
        "                T.writes(out[v_i, v_j])",
        f"                out[v_i, v_j] = {body}",
        "",
    ]
    return lines


def matmul(name, k, n):
    return [
        "    @T.prim_func(private=True)",
        f"    def {name}(var_x: T.handle, w: T.Buffer(({I64(k)}, {I64(n)}), \"float32\"), "
        f"bias: T.Buffer(({I64(n)},), \"float32\"), var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        rows = T.int64()",
        f"        x = T.match_buffer(var_x, (rows, {I64(k)}))",
        f"        out = T.match_buffer(var_out, (rows, {I64(n)}))",
        '        # with T.block("root"):',
        f"        acc = T.alloc_buffer((rows, {I64(n)}))",
        f"        for i, j, r in T.grid(rows, {I64(n)}, {I64(k)}):",
        '            with T.block("matmul"):',
        '                v_i, v_j, v_r = T.axis.remap("SSR", [i, j, r])',
        "                T.reads(x[v_i, v_r], w[v_r, v_j])",
        "                T.writes(acc[v_i, v_j])",
        "                with T.init():",
        "                    acc[v_i, v_j] = T.float32(0.0)",
        "                acc[v_i, v_j] = acc[v_i, v_j] + x[v_i, v_r] * w[v_r, v_j]",
        f"        for i, j in T.grid(rows, {I64(n)}):",
        '            with T.block("bias_add"):',
        '                v_i, v_j = T.axis.remap("SS", [i, j])',
        "                T.reads(acc[v_i, v_j], bias[v_j])",
        "                T.writes(out[v_i, v_j])",
        "                out[v_i, v_j] = acc[v_i, v_j] + bias[v_j]",
        "",
    ]


def layer_norm(name, hidden):
    h = I64(hidden)
    return [
        "    @T.prim_func(private=True)",
        f"    def {name}(var_x: T.handle, gamma: T.Buffer(({h},), \"float32\"), "
        f"beta: T.Buffer(({h},), \"float32\"), var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        rows = T.int64()",
        f"        x = T.match_buffer(var_x, (rows, {h}))",
        f"        out = T.match_buffer(var_out, (rows, {h}))",
        '        # with T.block("root"):',
        "        total = T.alloc_buffer((rows,))",
        "        total_sq = T.alloc_buffer((rows,))",
        f"        for i, j in T.grid(rows, {h}):",
        '            with T.block("moments"):',
        '                v_i, v_j = T.axis.remap("SR", [i, j])',
        "                T.reads(x[v_i, v_j])",
        "                T.writes(total[v_i], total_sq[v_i])",
        "                with T.init():",
        "                    total[v_i] = T.float32(0.0)",
        "                    total_sq[v_i] = T.float32(0.0)",
        "                total[v_i] = total[v_i] + x[v_i, v_j]",
        "                total_sq[v_i] = total_sq[v_i] + x[v_i, v_j] * x[v_i, v_j]",
        f"        for i, j in T.grid(rows, {h}):",
        '            with T.block("normalize"):',
        '                v_i, v_j = T.axis.remap("SS", [i, j])',
        "                T.reads(x[v_i, v_j], total[v_i], total_sq[v_i], gamma[v_j], beta[v_j])",
        "                T.writes(out[v_i, v_j])",
        f"                out[v_i, v_j] = (x[v_i, v_j] - total[v_i] * T.float32({1.0 / hidden!r})) "
        f"* T.rsqrt(total_sq[v_i] * T.float32({1.0 / hidden!r}) - total[v_i] * T.float32({1.0 / hidden!r}) "
        f"* (total[v_i] * T.float32({1.0 / hidden!r})) + T.float32(1.0000000000000001e-05)) "
        "* gamma[v_j] + beta[v_j]",
        "",
    ]


def softmax(name, heads):
    return [
        "    @T.prim_func(private=True)",
        f"    def {name}(var_x: T.handle, var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        b, s = T.int64(), T.int64()",
        f"        x = T.match_buffer(var_x, (b, {I64(heads)}, s, s))",
        f"        out = T.match_buffer(var_out, (b, {I64(heads)}, s, s))",
        '        # with T.block("root"):',
        f"        row_max = T.alloc_buffer((b, {I64(heads)}, s))",
        f"        row_sum = T.alloc_buffer((b, {I64(heads)}, s))",
        f"        for i0, i1, i2, k in T.grid(b, {I64(heads)}, s, s):",
        '            with T.block("row_max"):',
        '                v0, v1, v2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])',
        "                T.reads(x[v0, v1, v2, v_k])",
        "                T.writes(row_max[v0, v1, v2])",
        "                with T.init():",
        "                    row_max[v0, v1, v2] = T.float32(-340282346638528859811704183484516925440.0)",
        "                row_max[v0, v1, v2] = T.max(row_max[v0, v1, v2], x[v0, v1, v2, v_k])",
        f"        for i0, i1, i2, k in T.grid(b, {I64(heads)}, s, s):",
        '            with T.block("row_sum"):',
        '                v0, v1, v2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])',
        "                T.reads(x[v0, v1, v2, v_k], row_max[v0, v1, v2])",
        "                T.writes(row_sum[v0, v1, v2])",
        "                with T.init():",
        "                    row_sum[v0, v1, v2] = T.float32(0.0)",
        "                row_sum[v0, v1, v2] = row_sum[v0, v1, v2] + T.exp(x[v0, v1, v2, v_k] - row_max[v0, v1, v2])",
        f"        for i0, i1, i2, i3 in T.grid(b, {I64(heads)}, s, s):",
        '            with T.block("normalize"):',
        '                v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])',
        "                T.reads(x[v0, v1, v2, v3], row_max[v0, v1, v2], row_sum[v0, v1, v2])",
        "                T.writes(out[v0, v1, v2, v3])",
        "                out[v0, v1, v2, v3] = T.exp(x[v0, v1, v2, v3] - row_max[v0, v1, v2]) / row_sum[v0, v1, v2]",
        "",
    ]


def split_heads(name, heads, head_dim):
    hidden = heads * head_dim
    return [
        "    @T.prim_func(private=True)",
        f"    def {name}(var_x: T.handle, var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        b, s = T.int64(), T.int64()",
        f"        x = T.match_buffer(var_x, (b * s, {I64(hidden)}))",
        f"        out = T.match_buffer(var_out, (b, {I64(heads)}, s, {I64(head_dim)}))",
        '        # with T.block("root"):',
        f"        for i0, i1, i2, i3 in T.grid(b, {I64(heads)}, s, {I64(head_dim)}):",
        '            with T.block("split_heads"):',
        '                v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])',
        f"                T.reads(x[v0 * s + v2, v1 * {I64(head_dim)} + v3])",
        "                T.writes(out[v0, v1, v2, v3])",
        f"                out[v0, v1, v2, v3] = x[(v0 * s + v2) % (b * s), (v1 * {I64(head_dim)} + v3) % {I64(hidden)}]",
        "",
    ]


def attention_scores(name, heads, head_dim):
    return [
        "    @T.prim_func(private=True)",
        f"    def {name}(var_q: T.handle, var_k: T.handle, var_out: T.handle):",
        '        T.func_attr({"tir.noalias": True})',
        "        b, s = T.int64(), T.int64()",
        f"        q = T.match_buffer(var_q, (b, {I64(heads)}, s, {I64(head_dim)}))",
        f"        k = T.match_buffer(var_k, (b, {I64(heads)}, s, {I64(head_dim)}))",
        f"        out = T.match_buffer(var_out, (b, {I64(heads)}, s, s))",
        '        # with T.block("root"):',
        f"        for i0, i1, i2, i3, r in T.grid(b, {I64(heads)}, s, s, {I64(head_dim)}):",
        '            with T.block("scores"):',
        '                v0, v1, v2, v3, v_r = T.axis.remap("SSSSR", [i0, i1, i2, i3, r])',
        "                T.reads(q[v0, v1, v2, v_r], k[v0, v1, v3, v_r])",
        "                T.writes(out[v0, v1, v2, v3])",
        "                with T.init():",
        "                    out[v0, v1, v2, v3] = T.float32(0.0)",
        f"                out[v0, v1, v2, v3] = out[v0, v1, v2, v3] + q[v0, v1, v2, v_r] * k[v0, v1, v3, v_r] * T.float32({head_dim ** -0.5!r})",
        "",
    ]


def kernels(layer, hidden, heads):
    p = f"l{layer}_"
    head_dim = hidden // heads
    out = []
    out += layer_norm(p + "layer_norm", hidden)
    for proj in ("q_proj", "k_proj", "v_proj", "o_proj", "ffn_up", "ffn_down"):
        out += matmul(p + proj, hidden, hidden)
    out += split_heads(p + "split_heads", heads, head_dim)
    out += attention_scores(p + "scores", heads, head_dim)
    out += softmax(p + "softmax", heads)
    out += elementwise(p + "gelu", hidden,
                       "T.float32(0.5) * x[v_i, v_j] * (T.float32(1.0) + T.tanh(T.float32(0.79788456080286541) * "
                       "(x[v_i, v_j] + T.float32(0.044714999999999998) * x[v_i, v_j] * x[v_i, v_j] * x[v_i, v_j])))")
    out += elementwise(p + "residual", hidden, "x[v_i, v_j] + y[v_i, v_j]", inputs=("x", "y"))
    return out


def layer_function(layer, hidden, heads):
    p = f"l{layer}_"
    head_dim = hidden // heads
    t2 = f'R.Tensor((b * s, {hidden}), dtype="float32")'
    t4 = f'R.Tensor((b, {heads}, s, {head_dim}), dtype="float32")'
    ts = f'R.Tensor((b, {heads}, s, s), dtype="float32")'
    w = f'R.Tensor(({hidden}, {hidden}), dtype="float32")'
    v = f'R.Tensor(({hidden},), dtype="float32")'
    weights = ["gamma", "beta"] + [f"w_{n}" for n in ("q", "k", "v", "o", "up", "down")] + \
              [f"b_{n}" for n in ("q", "k", "v", "o", "up", "down")]
    params = [f'x: R.Tensor(("b * s", {hidden}), dtype="float32")', 'shape: R.Shape(["b", "s"])']
    for name in weights:
        params.append(f"{name}: {w if name.startswith('w_') else v}")
    lines = [
        "    @R.function(private=True)",
        f"    def layer{layer}({', '.join(params)}) -> R.Tensor((\"b * s\", {hidden}), dtype=\"float32\"):",
        "        b = T.int64()",
        "        s = T.int64()",
        "        cls = Module",
        "        with R.dataflow():",
        f"            ln = R.call_tir(cls.{p}layer_norm, (x, gamma, beta), out_sinfo={t2})",
    ]
    for proj in ("q", "k", "v"):
        lines.append(f"            {proj}2 = R.call_tir(cls.{p}{proj}_proj, (ln, w_{proj}, b_{proj}), out_sinfo={t2})")
        lines.append(f"            {proj}4 = R.call_tir(cls.{p}split_heads, ({proj}2,), out_sinfo={t4})")
    lines += [
        f"            scores = R.call_tir(cls.{p}scores, (q4, k4), out_sinfo={ts})",
        f"            probs = R.call_tir(cls.{p}softmax, (scores,), out_sinfo={ts})",
        f"            ctx: {t4} = R.matmul(probs, v4, out_dtype=\"void\")",
        f"            ctx_t: R.Tensor((b, s, {heads}, {head_dim}), dtype=\"float32\") = R.permute_dims(ctx, axes=[0, 2, 1, 3])",
        f"            merged: {t2} = R.reshape(ctx_t, R.shape([b * s, {hidden}]))",
        f"            attn = R.call_tir(cls.{p}o_proj, (merged, w_o, b_o), out_sinfo={t2})",
        f"            h = R.call_tir(cls.{p}residual, (x, attn), out_sinfo={t2})",
        f"            up = R.call_tir(cls.{p}ffn_up, (h, w_up, b_up), out_sinfo={t2})",
        f"            act = R.call_tir(cls.{p}gelu, (up,), out_sinfo={t2})",
        f"            down = R.call_tir(cls.{p}ffn_down, (act, w_down, b_down), out_sinfo={t2})",
        f"            y = R.call_tir(cls.{p}residual, (h, down), out_sinfo={t2})",
        f"            out: {t2} = R.nn.relu(y)",
        "            R.output(out)",
        "        return out",
        "",
    ]
    return lines, weights


def main_function(layers, hidden, all_weights):
    params = [f'x: R.Tensor(("b", "s", {hidden}), dtype="float32")']
    for layer in range(layers):
        for name in all_weights:
            shape = f"({hidden}, {hidden})" if name.startswith("w_") else f"({hidden},)"
            params.append(f'l{layer}_{name}: R.Tensor({shape}, dtype="float32")')
    t2 = f'R.Tensor((b * s, {hidden}), dtype="float32")'
    lines = [
        "    @R.function",
        f"    def main({', '.join(params)}) -> R.Tensor((\"b\", \"s\", {hidden}), dtype=\"float32\"):",
        "        b = T.int64()",
        "        s = T.int64()",
        '        R.func_attr({"num_input": 1})',
        "        cls = Module",
        f"        h0: {t2} = R.reshape(x, R.shape([b * s, {hidden}]))",
        "        shape: R.Shape([b, s]) = R.shape([b, s])",
    ]
    for layer in range(layers):
        args = ", ".join(f"l{layer}_{n}" for n in all_weights)
        lines.append(f"        h{layer + 1}: {t2} = cls.layer{layer}(h{layer}, shape, {args})")
    lines += [
        f"        y: R.Tensor((b, s, {hidden}), dtype=\"float32\") = R.reshape(h{layers}, R.shape([b, s, {hidden}]))",
        "        return y",
        "",
    ]
    return lines


def generate(layers, hidden, heads):
    out = ["# from tvm.script import ir as I", "# from tvm.script import tir as T",
           "# from tvm.script import relax as R", "", "@I.ir_module", "class Module:"]
    for layer in range(layers):
        out += kernels(layer, hidden, heads)
    weights = None
    for layer in range(layers):
        lines, weights = layer_function(layer, hidden, heads)
        out += lines
    out += main_function(layers, hidden, weights)
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=72)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    args = parser.parse_args()
    sys.stdout.write(generate(args.layers, args.hidden, args.heads))


if __name__ == "__main__":
    main()
