#!/bin/sh
# Command-line behaviour of raxc: exit statuses, --help/--version, bad flags (RX1099),
# unreadable files (RX1000), fmt --check / -i, JSON diagnostics.
#   driver_cli_test.sh RAXC REPO_ROOT
set -u
raxc=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_status STATUS CMD... — runs CMD, output in $tmp/out and $tmp/err.
expect_status() {
  want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(head -3 "$tmp/err")"
}
expect_in() {  # expect_in FILE TEXT
  grep -qF -- "$2" "$1" || fail "expected '$2' in $(basename "$1"): $(head -3 "$1")"
}

expect_status 0 "$raxc" --version
expect_in "$tmp/out" "raxc "
for cmd in parse check fmt; do
  expect_status 0 "$raxc" "$cmd" --help
  expect_in "$tmp/out" "Usage"
done

# Bad usage is a coded error with exit status 2; near miss: valid flags are accepted.
expect_status 2 "$raxc" check --bogus-flag "$root/examples/mlp.rx"
expect_in "$tmp/err" "[RX1099]"
expect_status 2 "$raxc"
expect_in "$tmp/err" "[RX1099]"
expect_status 2 "$raxc" fmt --check -i "$root/examples/mlp.rx"
expect_in "$tmp/err" "[RX1099]"
expect_status 0 "$raxc" check --color=never --diagnostics-format=text "$root/examples/mlp.rx"
[ -s "$tmp/err" ] && fail "clean check printed: $(head -3 "$tmp/err")"

# Unreadable input: RX1000 with exit status 2, in both output formats.
expect_status 2 "$raxc" check "$tmp/does-not-exist.rx"
expect_in "$tmp/err" "[RX1000]"
expect_status 2 "$raxc" check "$tmp"
expect_in "$tmp/err" "[RX1000]"
expect_status 2 "$raxc" check --diagnostics-format=json "$tmp/does-not-exist.rx"
expect_in "$tmp/out" '"code": "RX1000"'

# fmt: stdout by default; --check exits 1 on a file that is not canonical and 0 on one that is.
cp "$root/examples/mlp.rx" "$tmp/a.rx"
expect_status 0 "$raxc" fmt "$tmp/a.rx"
cp "$tmp/out" "$tmp/canonical.rx"
expect_status 0 "$raxc" fmt --check "$tmp/canonical.rx"
printf '@R.function\ndef f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n    return x\n' >"$tmp/b.rx"
expect_status 1 "$raxc" fmt --check "$tmp/b.rx"
expect_in "$tmp/out" "would reformat"

cp "$tmp/b.rx" "$tmp/b.orig"
expect_status 0 "$raxc" fmt -i "$tmp/b.rx"
cmp -s "$tmp/b.rx" "$tmp/b.orig" && fail "fmt -i did not rewrite a non-canonical file"
expect_status 0 "$raxc" fmt --check "$tmp/b.rx"
ls "$tmp" | grep -q 'raxc-fmt' && fail "fmt -i left a temporary file behind"

# fmt keeps comments where they are around a dataflow block: before `with`, trailing it, and
# between it and the first binding (once moved above `with`).
cat >"$tmp/comments.rx" <<'RX'
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        # before with
        with R.dataflow():  # on with
            # first
            y = x  # y
            R.output(y)
        return y
RX
expect_status 0 "$raxc" fmt --check "$tmp/comments.rx"

# fmt -i never touches a file it cannot print.
printf '@R.function\ndef f(x: R.Tensor) -> R.Tensor:\n    y = R.add(x, x\n    return y\n' >"$tmp/bad.rx"
cp "$tmp/bad.rx" "$tmp/bad.orig"
expect_status 1 "$raxc" fmt -i "$tmp/bad.rx"
cmp -s "$tmp/bad.rx" "$tmp/bad.orig" || fail "fmt -i modified a file with a syntax error"

# check: exit 1 iff errors; JSON is one array with an object per file.
expect_status 1 "$raxc" check --diagnostics-format=json "$tmp/bad.rx" "$root/examples/mlp.rx"
expect_in "$tmp/out" '"file"'
[ "$(grep -c '"file"' "$tmp/out")" -eq 2 ] || fail "JSON output should hold one object per file"

# parse dumps.
expect_status 0 "$raxc" parse --dump=cst "$root/examples/mlp.rx"
expect_in "$tmp/out" "(source_file"
expect_status 0 "$raxc" parse --dump=ast "$root/examples/mlp.rx"
expect_in "$tmp/out" "(IRModule"

# The compiled-code cache of raxc run: the second run of an unchanged module loads the machine
# code; --no-cache and RAXC_CACHE_DIR="" compile; a damaged entry is compiled again and
# replaced, with the same results.
cache=$tmp/cache
mlp="$root/examples/mlp_tir.rx"
run_mlp() { "$raxc" run "$mlp" --random --bind n=2 --repeat 2 "$@"; }
RAXC_CACHE_DIR=$cache expect_status 0 run_mlp
expect_in "$tmp/err" "3 kernels:"
cp "$tmp/out" "$tmp/first"
RAXC_CACHE_DIR=$cache expect_status 0 run_mlp
expect_in "$tmp/err" "3 kernels, machine code cached:"
cmp -s "$tmp/out" "$tmp/first" || fail "the cached kernels gave other results"
RAXC_CACHE_DIR=$cache expect_status 0 run_mlp --no-cache
grep -q "machine code cached" "$tmp/err" && fail "--no-cache used the cache"
RAXC_CACHE_DIR= expect_status 0 run_mlp
grep -q "machine code cached" "$tmp/err" && fail "RAXC_CACHE_DIR= used the cache"
for entry in "$cache"/*.o; do printf 'not an object' >"$entry"; done
RAXC_CACHE_DIR=$cache expect_status 0 run_mlp
cmp -s "$tmp/out" "$tmp/first" || fail "a damaged cache entry changed the results"
RAXC_CACHE_DIR=$cache expect_status 0 run_mlp
expect_in "$tmp/err" "machine code cached:"

# raxc run --profile: per run, the time in each kernel (the MLP's 3) and what the interpreter
# took besides; the results are the same as without it.
expect_status 0 run_mlp --profile
expect_in "$tmp/err" "profile, per run (2 runs of"
for kernel in $(grep -o "def [a-z_0-9]*(" "$mlp" | sed 's/def \(.*\)(/\1/' | grep -v main); do
  grep -qE "^ +[0-9.]+ +[0-9.]+% +1  $kernel\$" "$tmp/err" || fail "--profile has no line for '$kernel'"
done
expect_in "$tmp/err" "(the interpreter: bindings, outputs, checks)"
cmp -s "$tmp/out" "$tmp/first" || fail "--profile changed the results"

# raxc lower --fuse: the element-wise chain of a run golden becomes one kernel, and the printed
# module checks; without --fuse the kernels stay apart (as TVM's LegalizeOps leaves them).
expect_status 0 "$raxc" lower --fuse "$root/test/cases/run/fusion.rx" -o "$tmp/fused.rx"
expect_in "$tmp/fused.rx" "def fused_add_multiply_subtract_relu"
expect_in "$tmp/fused.rx" "R.call_tir(cls.fused_add_bias_relu, (x, b)"
expect_in "$tmp/fused.rx" "def fused_exp_scale"
expect_in "$tmp/fused.rx" "r = R.call_tir(cls.fused_exp_multiply1_add2, (x, c, m)"
grep -A1 "def fused_exp_scale" "$tmp/fused.rx" | grep -q global_symbol &&
  fail "the fused kernel took over its consumer's global_symbol"
expect_status 0 "$raxc" check "$tmp/fused.rx"
expect_status 0 "$raxc" lower "$root/test/cases/run/fusion.rx" -o "$tmp/unfused.rx"
grep -q "fused_" "$tmp/unfused.rx" && fail "raxc lower without --fuse fused kernels"

# raxc lower --fuse: a product and the bias, activation and residual kernels after it become one
# packed call with the epilogue in its name (backend/fuse/epilogue.cpp); the near misses of the
# same golden keep the plain product (a bias along the rows; a product also used elsewhere) or
# fold only what comes in order (ReLU, then a bias add that stays a kernel).
expect_status 0 "$raxc" lower --fuse "$root/test/cases/run/epilogue_fusion.rx" -o "$tmp/epi.rx"
expect_in "$tmp/epi.rx" 'h = R.call_dps_packed("raxc.matmul_bias_gelu_f32", (x, w1, b1)'
expect_in "$tmp/epi.rx" 'r = R.call_dps_packed("raxc.matmul_bias_f32", (h, w2, b2)'
expect_in "$tmp/epi.rx" 'R.call_dps_packed("raxc.matmul_scale_bias_gelu_residual_f32", (x, w, R.const(0.5, "float32"), b, res)'
expect_in "$tmp/epi.rx" 'm = R.call_dps_packed("raxc.matmul_f32", (x, w)'
expect_in "$tmp/epi.rx" 'R.call_dps_packed("raxc.matmul_relu_f32", (x, w)'
expect_in "$tmp/epi.rx" 'r = R.call_dps_packed("raxc.linear_bias_gelu_f32", (x, w, b)'
expect_in "$tmp/epi.rx" 'r = R.call_dps_packed("raxc.matmul_bias_residual_f32", (x, w, b, res)'
expect_in "$tmp/epi.rx" 'r = R.call_dps_packed("raxc.matmul_residual_f32", (x, w1, lv1)'
grep -A3 "def row_bias" "$tmp/epi.rx" | grep -q 'R.call_dps_packed("raxc.matmul_f32", (x, w)' ||
  fail "row_bias: the product with a bias along the rows is not left as it is"
[ "$(grep -c '"raxc.matmul_f32"' "$tmp/epi.rx")" -eq 3 ] || fail "a near miss took an epilogue"
expect_status 0 "$raxc" check "$tmp/epi.rx"
expect_status 0 "$raxc" lower "$root/test/cases/run/epilogue_fusion.rx" -o "$tmp/epi_plain.rx"
grep -q "matmul_bias" "$tmp/epi_plain.rx" && fail "raxc lower without --fuse fused an epilogue"

# The same for a convolution: bias per output channel, residual, ReLU, in that order; the near
# misses fold only what comes in order, or nothing (a bias along the width).
expect_status 0 "$raxc" lower --fuse "$root/test/cases/run/conv_epilogue_fusion.rx" -o "$tmp/conv.rx"
expect_in "$tmp/conv.rx" 'y = R.call_dps_packed("raxc.conv2d_nchw_bias_residual_relu_f32", (x, w, b, r, R.prim_value(1)'
expect_in "$tmp/conv.rx" 'lv1 = R.call_dps_packed("raxc.conv2d_nchw_relu_f32", (x, w, R.prim_value(1)'
expect_in "$tmp/conv.rx" 'lv1 = R.call_dps_packed("raxc.conv2d_nchw_residual_f32", (x, w, r, R.prim_value(1)'
expect_in "$tmp/conv.rx" 'lv = R.call_dps_packed("raxc.conv2d_nchw_f32", (x, w, R.prim_value(1)'
[ "$(grep -c 'R.call_tir(cls.add' "$tmp/conv.rx")" -eq 3 ] || fail "a conv near miss took its bias"
expect_status 0 "$raxc" check "$tmp/conv.rx"

# A 2-D weight transposed for one product alone: the product reads it as R.linear reads its
# weight and the transpose kernel goes; the near misses (the transposed tensor also summed; the
# transposed tensor as A) keep it, as do the two products compared against the folded ones.
expect_status 0 "$raxc" lower --fuse "$root/test/cases/run/transposed_weight_fusion.rx" -o "$tmp/tw.rx"
expect_in "$tmp/tw.rx" 'y = R.call_dps_packed("raxc.linear_bias_f32", (x, w, b)'
expect_in "$tmp/tw.rx" 'y = R.call_dps_packed("raxc.linear_f32", (x, w)'
expect_in "$tmp/tw.rx" 'folded = R.call_dps_packed("raxc.linear_bias_gelu_f32", (x, w, b)'
expect_in "$tmp/tw.rx" 'y = R.call_dps_packed("raxc.matmul_f32", (lv, x)'
[ "$(grep -c 'R.call_tir(cls.transpose' "$tmp/tw.rx")" -eq 4 ] ||
  fail "a transpose near miss was folded, or a fold left its transpose"
expect_status 0 "$raxc" check "$tmp/tw.rx"

# Attention's gathers of q, k and v (a slice, a reshape, a transpose) for one product alone: the
# product reads them in place through views and the gather kernels go, and its context is
# written straight into the heads merged back (out_sinfo the merged shape); the compared
# attention's gathers (also summed), a broadcast A, a reversed A and a product with a residual
# keep theirs.
expect_status 0 "$raxc" lower --fuse "$root/test/cases/run/attention_views.rx" -o "$tmp/av.rx"
expect_in "$tmp/av.rx" 's = R.call_dps_packed("raxc.matmul_view_scale_f32", (q1, k1, R.const(0.5, "float32"), R.shape([1, 2, 2, 2]), R.shape([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1]), R.shape([1, 2, 2, 2]), R.shape([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0]), R.shape([]), R.shape([]))'
expect_in "$tmp/av.rx" 'a = R.call_dps_packed("raxc.matmul_view_f32", (p, v1, R.shape([]), R.shape([]), R.shape([1, 2, 2, 2])'
expect_in "$tmp/av.rx" 'R.shape([2, 3, 20, 37]), R.shape([0, 0, 60, 1, 0, 0, 0,'
expect_in "$tmp/av.rx" 'folded = R.call_dps_packed("raxc.matmul_view_f32", (p, qkv, R.shape([]), R.shape([]), R.shape([2, 3, 37, 20]), R.shape([0, 0, 120,'
expect_in "$tmp/av.rx" 'm = R.call_dps_packed("raxc.matmul_view_f32", (p, v1, R.shape([]), R.shape([]), R.shape([1, 2, 2, 2]), R.shape([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1]), R.shape([1, 2, 2, 2]), R.shape([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1])), out_sinfo=R.Tensor((1, 2, 4), dtype="float32"))'
expect_in "$tmp/av.rx" 'm = R.call_tir(cls.fused_transpose_reshape'
[ "$(grep -c 'matmul_view' "$tmp/av.rx")" -eq 6 ] || fail "a view near miss was folded"
[ "$(grep -c 'R.call_tir(cls.fused_strided_slice' "$tmp/av.rx")" -eq 3 ] ||
  fail "a gather used elsewhere was folded, or a fold left its gather"
expect_in "$tmp/av.rx" 'y = R.call_dps_packed("raxc.matmul_f32", (rows, w)'
expect_in "$tmp/av.rx" 'y = R.call_dps_packed("raxc.matmul_f32", (lv, w)'
expect_status 0 "$raxc" check "$tmp/av.rx"

if [ "$failures" -ne 0 ]; then
  echo "driver_cli_test: $failures failure(s)"
  exit 1
fi
echo "driver_cli_test: all passed"
