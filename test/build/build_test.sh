#!/bin/sh
# raxc build: the C example (examples/c/mlp_main.c) builds against a library written from
# examples/mlp_tir.rx, runs, and prints the same numbers as `raxc run --output-format json` on
# the same inputs; a wrong shape at a built entry fails with RX5020 and the .rx location; the
# inspection outputs (--emit=obj|llvm|asm|header); usage and I/O errors (exit 2); a module with
# errors (exit 1, as raxc check); a construct the build does not compile (RX5040, exit 1); and
# an existing output file is never truncated by a failed build.
# Usage: build_test.sh RAXC ROOT
set -u
raxc=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
check() {  # NAME EXPECTED_STATUS EXPECTED_TEXT COMMAND...
  name=$1 want_status=$2 want_text=$3
  shift 3
  out=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne "$want_status" ] ||
     { [ -n "$want_text" ] && ! printf '%s' "$out" | grep -qF -- "$want_text"; }; then
    echo "FAIL $name: exit $status, output:"
    printf '%s\n' "$out"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}
absent() {  # NAME TEXT COMMAND...: the output must not contain TEXT
  name=$1 text=$2
  shift 2
  out=$("$@" 2>&1)
  if printf '%s' "$out" | grep -qF -- "$text"; then
    echo "FAIL $name: '$text' in:"
    printf '%s\n' "$out"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}
# Sanitizer builds link the library with the sanitizer runtimes; the program must have them too.
cflags=${RAXC_TEST_CFLAGS:-}

# The C example, exactly as README.md's "Building a library" shows it.
check "build mlp_tir" 0 "" "$raxc" build "$root/examples/mlp_tir.rx" -o "$tmp/libmlp.so"
check "header written" 0 "int32_t mlp_main(RaxcValue* const* args" cat "$tmp/libmlp.h"
check "header documents StructInfo" 0 'args[0] x: R.Tensor((n, 784), dtype="float32")' cat "$tmp/libmlp.h"
# shellcheck disable=SC2086
if ! cc $cflags "$root/examples/c/mlp_main.c" -I"$tmp" -L"$tmp" -lmlp -Wl,-rpath,"$tmp" \
    -o "$tmp/mlp_main"; then
  echo "FAIL: the C example does not compile"
  exit 1
fi
mkdir -p "$tmp/inputs"
"$tmp/mlp_main" "$tmp/inputs" > "$tmp/c.json" || { echo "FAIL: the C example failed"; cat "$tmp/c.json"; failures=$((failures + 1)); }
"$raxc" run "$root/examples/mlp_tir.rx" "$tmp/inputs/x.npy" "$tmp/inputs/w1.npy" \
    "$tmp/inputs/b1.npy" "$tmp/inputs/w2.npy" --output-format json > "$tmp/run.json"
# Equal to rounding: a reduction's partial sums are reassociated in vector lanes, and the JIT and
# the library may split them differently (each as accurate: the sums over 784 and 128 terms
# differ by a few float32 ulps).
check "C example equals raxc run" 0 "same" python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))["tensor"]["data"]
fa = [v for row in a for v in row]; fb = [v for row in b for v in row]
ok = len(fa) == len(fb) == 20 and all(abs(x - y) <= 1e-5 * max(abs(x), abs(y), 1e-30) for x, y in zip(fa, fb))
print("same" if ok else "different: %s vs %s" % (a, b))' "$tmp/c.json" "$tmp/run.json"
# RX5020 at a built entry: the message names the code, the .rx file, line and column.
check "RX5020 shape mismatch at a built entry" 1 \
  "error: RX5020: mlp_tir.rx:73:14: argument 'x' of 'main' does not match" "$tmp/mlp_main" --bad
# near miss (RX5020): the right shape runs cleanly.
absent "RX5020 near miss" "RX5020" "$tmp/mlp_main"

# examples/mlp.rx (tensor operators legalized first, as raxc run does) builds too.
check "build mlp.rx" 0 "" "$raxc" build "$root/examples/mlp.rx" -o "$tmp/libmlp2.so"
check "mlp.rx exports main" 0 "mlp2_main" nm -D "$tmp/libmlp2.so"
absent "no kernel symbols exported" "raxc_kernel" nm -D "$tmp/libmlp2.so"
absent "no LLVM needed" "libLLVM" ldd "$tmp/libmlp2.so"

# Inspection outputs.
check "--emit=llvm" 0 "i32 @m_main(" sh -c "'$raxc' build '$root/examples/mlp_tir.rx' --emit=llvm -o '$tmp/m.ll' && cat '$tmp/m.ll'"
check "--emit=asm" 0 "m_main:" sh -c "'$raxc' build '$root/examples/mlp_tir.rx' --emit=asm -o '$tmp/m.s' && cat '$tmp/m.s'"
check "--emit=obj" 0 "T m_main" sh -c "'$raxc' build '$root/examples/mlp_tir.rx' --emit=obj -o '$tmp/m.o' && nm '$tmp/m.o'"
check "--emit=header" 0 "int32_t x_main(" sh -c "'$raxc' build '$root/examples/mlp_tir.rx' --emit=header -o '$tmp/x.h' && cat '$tmp/x.h'"
check "--prefix" 0 "int32_t net_main(" sh -c "'$raxc' build '$root/examples/mlp_tir.rx' --emit=header --prefix net_ -o '$tmp/y.h' && cat '$tmp/y.h'"

# Usage and I/O errors: exit 2, coded.
check "missing file" 2 "RX1000" "$raxc" build "$tmp/none.rx" -o "$tmp/libx.so"
check "unknown entry" 2 "RX5001" "$raxc" build "$root/examples/mlp_tir.rx" --entry nope -o "$tmp/libx.so"
check "missing -o" 2 "RX1099" "$raxc" build "$root/examples/mlp_tir.rx"
check "bad --emit" 2 "RX1099" "$raxc" build "$root/examples/mlp_tir.rx" --emit=exe -o "$tmp/libx.so"
# RX5041: the library cannot be written (its directory does not exist).
check "RX5041 unwritable output" 2 "RX5041" "$raxc" build "$root/examples/mlp_tir.rx" -o "$tmp/no/such/dir/libx.so"
# near miss (RX5041): a directory that exists.
absent "RX5041 near miss" "RX5041" "$raxc" build "$root/examples/mlp_tir.rx" -o "$tmp/libok.so"

# A module with errors is not built: diagnostics as raxc check prints them, exit 1.
cat > "$tmp/bad.rx" <<'RX'
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    return undefined_name
RX
check "module with errors" 1 "RX1164" "$raxc" build "$tmp/bad.rx" -o "$tmp/libbad.so"

# RX5040: a construct raxc build does not compile yet (a float R.Prim computed, not a
# literal), at its location, exit 1; an existing file at the output path is left as it was.
cat > "$tmp/float_prim.rx" <<'RX'
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Prim("float32"):
    y = R.prim_value(T.float32(2.5) + T.float32(1.0))
    return y
RX
echo "keep me" > "$tmp/libfloat_prim.so"
check "RX5040 float R.Prim" 1 "error: raxc build does not compile a float R.Prim value that is not a literal yet [RX5040]" \
  "$raxc" build "$tmp/float_prim.rx" -o "$tmp/libfloat_prim.so" --color never
check "RX5040 located" 1 "float_prim.rx:3:9:" "$raxc" build "$tmp/float_prim.rx" -o "$tmp/libfloat_prim.so" --color never
check "failed build keeps the file" 0 "keep me" cat "$tmp/libfloat_prim.so"
# near miss (RX5040): the literal builds.
cat > "$tmp/plain.rx" <<'RX'
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Prim("float32"):
    y = R.prim_value(T.float32(3.5))
    return y
RX
absent "RX5040 near miss" "RX5040" "$raxc" build "$tmp/plain.rx" -o "$tmp/libplain.so"

# raxc_value_seal (test/build/seal/): a sealed weight's packing serves the second call even though
# the program changed the weights in between (breaking the promise on purpose), so the result is
# the first call's; unsealed, or passed to a library whose module may write into its arguments
# (a packed call in another function), the second call reads the new weights.
seal_case() {  # NAME MODULE SEAL_ARG EXPECTED
  mkdir -p "$tmp/$1"
  if ! "$raxc" build "$root/test/build/seal/$2" -o "$tmp/$1/libsealconv.so" ||
     ! cc $cflags "$root/test/build/seal/seal_main.c" -DENTRY=sealconv_conv -I"$tmp/$1" \
       -L"$tmp/$1" -lsealconv -Wl,-rpath,"$tmp/$1" -lm -o "$tmp/$1/main"; then
    echo "FAIL $1: not built"
    failures=$((failures + 1))
    return
  fi
  check "$1" 0 "$4" "$tmp/$1/main" $3
  check "$1: raxc_value_seal's results" 0 "seal: tuple 0, scalar -1, null -1" "$tmp/$1/main" $3
}
# shellcheck disable=SC2086
seal_case seal_kept conv.rx seal "same "
seal_case seal_absent conv.rx "" "changed "
seal_case seal_withdrawn conv_writes.rx seal "changed "

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
