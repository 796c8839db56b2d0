#!/bin/sh
# `raxc import` and `raxc run model.onnx` from the command line (registered with ctest as
# `onnx_import_cli`): the imported module checks with no diagnostics and runs, weights go to a
# --params directory that `raxc run --params` binds, .pb inputs are read, and every RX14xx code
# has a model that triggers it and a near miss that imports cleanly. The models are written by
# make_models.py (Debian's python3-onnx) into a temporary directory.
#   usage: import_cli_test.sh RAXC SOURCE_DIR
set -u
RAXC=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect_exit STATUS PATTERN ARGS...: runs raxc ARGS, checks the status and that stdout+stderr
# match the grep -E PATTERN (empty: anything).
expect_exit() {
  want=$1 pattern=$2
  shift 2
  "$RAXC" "$@" >"$TMP/out" 2>&1
  got=$?
  [ "$got" -eq "$want" ] || fail "raxc $*: exit $got, expected $want: $(head -c 600 "$TMP/out")"
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$TMP/out"; then
    fail "raxc $*: output does not match /$pattern/: $(head -c 600 "$TMP/out")"
  fi
}

# absent CODE: the last command's output must not name CODE.
absent() {
  if grep -q "$1" "$TMP/out"; then fail "unexpected $1: $(head -c 600 "$TMP/out")"; fi
}

M=$TMP/m
mkdir -p "$M"
/usr/bin/python3 "$SRC/test/onnx/make_models.py" "$M" || { echo "FAIL: make_models.py" >&2; exit 1; }

# A model with a symbolic batch dimension: imported, checked clean, run on a literal.
expect_exit 0 'def main\(x: R.Tensor\(\("N", 3\), dtype="float32"\)\)' import "$M/add.onnx"
expect_exit 0 "" import "$M/add.onnx" -o "$TMP/add.rx"
expect_exit 0 "" check "$TMP/add.rx"
[ -s "$TMP/out" ] && fail "raxc check of the imported add.rx is not silent: $(head -c 400 "$TMP/out")"
grep -q 'R.Tensor((N, 3), dtype="float32") = R.add' "$TMP/add.rx" ||
  fail "add.rx: the binding is not annotated: $(cat "$TMP/add.rx")"
expect_exit 0 '\[\[2\.?,? +2\.?,? +4\.?\]\]|2\., 2\., 4\.' run "$TMP/add.rx" "[[1, 0, 1]]"
expect_exit 0 "" run "$M/add.onnx" "[[1, 0, 1]]"

# Weights: parameters after the inputs, a .npy each, bound by run --params; the same numbers
# as the in-memory import with a .npy and with a .pb input.
expect_exit 0 "2 weights in $TMP/mlp.params" import "$M/mlp.onnx" -o "$TMP/mlp.rx"
grep -q '"num_input": 1' "$TMP/mlp.rx" || fail "mlp.rx has no num_input attribute"
[ -f "$TMP/mlp.params/w1.npy" ] || fail "mlp.params/w1.npy was not written"
expect_exit 0 "" check "$TMP/mlp.rx"
[ -s "$TMP/out" ] && fail "raxc check of mlp.rx is not silent: $(head -c 400 "$TMP/out")"
expect_exit 0 "" run "$TMP/mlp.rx" "$M/mlp_x.npy" --params "$TMP/mlp.params" --output-format json
cp "$TMP/out" "$TMP/from_rx"
expect_exit 0 "" run "$M/mlp.onnx" "$M/mlp_x.npy" --output-format json
cmp -s "$TMP/out" "$TMP/from_rx" || fail "run mlp.onnx differs from run mlp.rx --params"
expect_exit 0 "" run "$M/mlp.onnx" "$M/mlp_x.pb" --output-format json
cmp -s "$TMP/out" "$TMP/from_rx" || fail "run mlp.onnx with a .pb input differs from the .npy one"
expect_exit 2 "RX5002|RX5030" run "$TMP/mlp.rx" "$M/mlp_x.npy"  # weights missing: no --params

# GELU and layer normalisation decomposed as PyTorch exports them import as R.nn.gelu and
# R.nn.layer_norm (importer/patterns.cpp); the near misses stay node by node. Both compute what
# numpy does (make_models.py).
expect_exit 0 "" import "$M/decomposed.onnx" -o "$TMP/dec.rx"
[ "$(grep -c 'R.nn.gelu(' "$TMP/dec.rx")" -eq 2 ] || fail "decomposed.rx: not two R.nn.gelu"
[ "$(grep -c 'R.nn.layer_norm(' "$TMP/dec.rx")" -eq 1 ] || fail "decomposed.rx: no R.nn.layer_norm"
grep -q 'R.erf\|R.sqrt\|R.mean' "$TMP/dec.rx" && fail "decomposed.rx: a decomposition was left"
expect_exit 0 "" import "$M/decomposed_near.onnx" -o "$TMP/near.rx"
grep -q 'R.nn.gelu\|R.nn.layer_norm' "$TMP/near.rx" && fail "decomposed_near.rx: a near miss fused"
for model in decomposed decomposed_near; do
  expect_exit 0 "" run "$M/$model.onnx" "$M/${model}_x.npy" --save "$TMP/$model.out"
  /usr/bin/python3 -c "import numpy as np, sys
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(0 if np.allclose(got, want, rtol=1e-4, atol=1e-5) else 1)" \
    "$TMP/$model.out/0.npy" "$M/${model}_y.npy" || fail "$model.onnx: not numpy's values"
done

# Gelu (opset 20): erf and tanh forms (torch's F.gelu values).
expect_exit 0 "\[-0\.15865529 +0\. +0\.8413447 +1\.9544997 *\]" run "$M/gelu_none.onnx" "[-1, 0, 1, 2]"
expect_exit 0 "\[-0\.158808 +0\. +0\.841192 +1\.9545977 *\]" run "$M/gelu_tanh.onnx" "[-1, 0, 1, 2]"

# RX1400: a truncated model and a text file; near miss RX1400: the complete model.
expect_exit 1 "truncated\.onnx.*not a readable ONNX model.*\[RX1400\]" import "$M/truncated.onnx"
expect_exit 1 "\[RX1400\]" import "$M/text.onnx"
expect_exit 1 "\[RX1400\]" run "$M/truncated.onnx" random
expect_exit 0 "" import "$M/mlp.onnx" --params "$TMP/p2"
absent RX1400
# RX1401: an operator without a conversion; near miss RX1401: a supported one.
expect_exit 1 "node 'y': operator 'Bernoulli' \(opset 15\) is not supported by raxc import \[RX1401\]" import "$M/bernoulli.onnx"
expect_exit 0 "" import "$M/bernoulli_ok.onnx"
absent RX1401
# RX1402: an attribute form outside the coverage (the last maximum of a dynamic shape);
# near miss RX1402: the same attribute on a static shape.
expect_exit 1 "operator 'ArgMax' \(opset 13\) is not supported with select_last_index=1 on an input whose shape is not static \[RX1402\]" import "$M/argmax_last.onnx"
expect_exit 0 "" import "$M/argmax_ok.onnx"
absent RX1402
# RX1403: a string input; near miss RX1403: a float input.
expect_exit 1 "graph input: tensor 'x' has type STRING.*\[RX1403\]" import "$M/string_input.onnx"
expect_exit 0 "" import "$M/string_input_ok.onnx"
absent RX1403
# RX1404: a node of a custom domain; near miss RX1404: the domain imported but not used.
expect_exit 1 "operator set domain 'com.example'.*\[RX1404\]" import "$M/custom_domain.onnx"
expect_exit 0 "" import "$M/custom_domain_ok.onnx"
absent RX1404
# RX1405: two nodes reading each other's output; near miss RX1405: the same nodes in a chain.
expect_exit 1 "cycle through node '(first|second)'.*\[RX1405\]" import "$M/cycle.onnx"
expect_exit 0 "" import "$M/cycle_ok.onnx"
absent RX1405
# RX1406: external data that is missing; near miss RX1406: the file beside the model.
expect_exit 1 "initializer 'w' keeps its data in external file 'weights.bin'.*\[RX1406\]" import "$M/external_missing/model.onnx"
expect_exit 0 "" import "$M/external_ok/model.onnx" --params "$TMP/p3"
absent RX1406
# RX1407: a .pb argument that is not a TensorProto; near miss RX1407: a valid one.
expect_exit 2 "garbage\.pb.*not a readable ONNX TensorProto.*\[RX1407\]" run "$M/mlp.onnx" "$M/garbage.pb"
expect_exit 0 "" run "$M/mlp.onnx" "$M/mlp_x.pb"
absent RX1407
# RX1408: operand types ONNX itself rejects; near miss RX1408: matching types.
expect_exit 1 "module imported from .*mixed_types\.onnx' does not check.*\[RX1408\]" import "$M/mixed_types.onnx"
expect_exit 0 "" import "$M/mixed_types_ok.onnx"
absent RX1408

# RX1409: the importer module does not load (missing; not a shared object), for `import` and for
# `run model.onnx` (exit 2); near miss RX1409: the module beside raxc, as in every import above.
export RAXC_IMPORTER_LIB="$TMP/missing.so"
expect_exit 2 "ONNX importer '.*missing\.so' does not load: it does not exist.*\[RX1409\]" import "$M/add.onnx"
expect_exit 2 "\[RX1409\]" run "$M/mlp.onnx" "$M/mlp_x.pb"
export RAXC_IMPORTER_LIB="$M/add.onnx"
expect_exit 2 "ONNX importer '.*add\.onnx' does not load: .*\[RX1409\]" import "$M/add.onnx"
unset RAXC_IMPORTER_LIB
expect_exit 0 "" import "$M/add.onnx"
absent RX1409
# An import loads the module (with protobuf); check, fmt and run of .rx files never do
# (test/run/codegen_test.sh).
LD_DEBUG=files "$RAXC" import "$M/add.onnx" >/dev/null 2>"$TMP/ld.log"
grep -q 'file=.*libraxc-importer\.so' "$TMP/ld.log" || fail "import: libraxc-importer.so not loaded"

# Usage: a missing model is RX1000 (exit 2).
expect_exit 2 "\[RX1000\]" import "$TMP/missing.onnx"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "import_cli: all checks passed"
