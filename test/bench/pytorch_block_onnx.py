#!/usr/bin/python3
"""A transformer block as PyTorch exports it to ONNX, for timing `raxc import` + `raxc run`
against PyTorch eager on the same model (README, "Importing ONNX"). Writes into DIR:
block.onnx (nn.LayerNorm, nn.MultiheadAttention, nn.Linear, nn.GELU; d = 768, 12 heads,
sequence 128, batch 1, opset 14: GELU and layer normalisation decomposed, as PyTorch writes
them before opsets 20 and 17), x.npy and y.npy (PyTorch's output), and prints PyTorch's best
time of 20 calls on THREADS threads (default 1).

  /usr/bin/python3 test/bench/pytorch_block_onnx.py DIR [THREADS]
  build/raxc import DIR/block.onnx -o DIR/block.rx
  build/raxc run DIR/block.rx DIR/x.npy --params DIR/block.params --threads 1 --repeat 20
"""
import os
import sys
import time

# PyTorch's BLAS here is OpenBLAS, which starts as many threads as there are cores whatever
# torch.set_num_threads says: it is told before torch loads it (as test/bench/perf does).
# Without this, "1 thread" timed PyTorch with OpenBLAS on 2 (16.5 ms on one machine, 23–24
# with 1).
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 1
os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(THREADS)

import numpy as np  # noqa: E402 (after the environment is set)
import torch  # noqa: E402
from torch import nn


class Block(nn.Module):
    def __init__(self, d=768, heads=12):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.fc1, self.fc2, self.act = nn.Linear(d, 4 * d), nn.Linear(4 * d, d), nn.GELU()

    def forward(self, x):
        y = self.ln1(x)
        a, _ = self.attn(y, y, y, need_weights=False)
        x = x + a
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


def main():
    out = sys.argv[1]
    threads = THREADS
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(1, 128, 768)
    torch.onnx.export(model, x, os.path.join(out, "block.onnx"), opset_version=14,
                      input_names=["x"], output_names=["y"])
    torch.set_num_threads(threads)
    with torch.no_grad():
        np.save(os.path.join(out, "x.npy"), x.numpy())
        np.save(os.path.join(out, "y.npy"), model(x).numpy())
        for _ in range(3):
            model(x)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - start)
    print(f"PyTorch {torch.__version__} eager, {threads} thread(s): min {min(times) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
