#!/bin/sh
# The code generator (libraxc-codegen.so, the one part of raxc that links LLVM) is loaded only
# when something is compiled: `raxc check`, `fmt`, `lsp` and a `raxc run` whose kernels are in
# the compiled-code cache never map LLVM (the dynamic loader's LD_DEBUG=files log lists every
# object a process loads). The cache holds linked shared objects: a damaged or truncated entry
# is compiled again and replaced; --no-cache and RAXC_CACHE_DIR= write nothing. A code generator
# that does not load is RX5034 (exit 2). Kernels are optimised with LLVM's O2 pipeline. The ONNX
# importer (libraxc-importer.so, with protobuf) is likewise never loaded by these commands.
# Usage: codegen_test.sh RAXC ROOT
set -u
raxc=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}
pass() { passes=$((passes + 1)); }
check() {  # NAME EXPECTED_STATUS EXPECTED_TEXT COMMAND...
  name=$1 want_status=$2 want_text=$3
  shift 3
  out=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne "$want_status" ] || ! printf '%s' "$out" | grep -qF -- "$want_text"; then
    echo "FAIL $name: exit $status, output:"
    printf '%s\n' "$out" | tail -20
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}
# NAME EXPECT PATTERN COMMAND...: the command runs (exit 0; `raxc lsp` without a client exits
# 1) and must (EXPECT=1) or must not (EXPECT=0) load an object whose path matches PATTERN, as
# the dynamic loader's log (LD_DEBUG=files, on stderr) lists them.
loads() {
  name=$1 expect=$2 pattern=$3
  shift 3
  LD_DEBUG=files "$@" > /dev/null 2> "$tmp/ld.log"
  status=$?
  if [ "$status" -gt 1 ]; then
    fail "$name: exit $status"
    return
  fi
  if sed -n 's/.*file=\([^ ]*\) .*/\1/p' "$tmp/ld.log" | grep -q -- "$pattern"; then
    got=1
  else
    got=0
  fi
  if [ "$got" -eq "$expect" ]; then pass; else fail "$name: loads '$pattern' = $got"; fi
}

export RAXC_CACHE_DIR="$tmp/cache"
rx=$tmp/add.rx
cat > "$rx" <<'RX'
@R.function
def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
    y = R.exp(x)
    z = R.add(y, x)
    return z
RX
want="[1.        3.7182817 9.389056 ]"

# Commands that compile nothing never load LLVM or the code generator.
loads "check: no LLVM" 0 libLLVM "$raxc" check "$rx"
loads "check: no code generator" 0 libraxc-codegen "$raxc" check "$rx"
loads "fmt: no LLVM" 0 libLLVM "$raxc" fmt "$rx"
loads "version: no LLVM" 0 libLLVM "$raxc" --version
loads "lsp: no LLVM" 0 libLLVM sh -c "\"$raxc\" lsp < /dev/null"
# Nor does anything but an import load the ONNX importer and its libraries (protobuf).
loads "check: no importer" 0 "libraxc-importer\|libprotobuf" "$raxc" check "$rx"
loads "version: no importer" 0 "libraxc-importer\|libprotobuf" "$raxc" --version

# A cold run compiles (loading LLVM: the test can see it) and stores one shared object.
loads "cold run: LLVM" 1 libLLVM "$raxc" run "$rx" "[0, 1, 2]"
entries=$(ls "$RAXC_CACHE_DIR" | grep -c '\.so$')
[ "$entries" -eq 1 ] && pass || fail "cold run: $entries cache entries, expected 1"
entry=$(ls "$RAXC_CACHE_DIR"/*.so | head -1)
# The warm run loads the cached kernels and neither LLVM nor the code generator.
loads "warm run: no LLVM" 0 libLLVM "$raxc" run "$rx" "[0, 1, 2]"
loads "warm run: no code generator" 0 libraxc-codegen "$raxc" run "$rx" "[0, 1, 2]"
loads "warm run: the cached kernels" 1 "$entry" "$raxc" run "$rx" "[0, 1, 2]"
loads "warm run: no importer" 0 "libraxc-importer\|libprotobuf" "$raxc" run "$rx" "[0, 1, 2]"
check "warm run: result" 0 "$want" "$raxc" run "$rx" "[0, 1, 2]"
check "warm run: cached" 0 "machine code cached" "$raxc" run "$rx" "[0, 1, 2]" --repeat 2
# Bounds checks are other code: another entry.
check "--check-bounds: its own entry" 0 "$want" "$raxc" run "$rx" "[0, 1, 2]" --check-bounds
entries=$(ls "$RAXC_CACHE_DIR" | grep -c '\.so$')
[ "$entries" -eq 2 ] && pass || fail "--check-bounds: $entries cache entries, expected 2"

# A damaged entry (not ELF), and a truncated one, are compiled again and replaced.
printf 'not a shared object' > "$entry"
check "damaged entry: result" 0 "$want" "$raxc" run "$rx" "[0, 1, 2]"
[ "$(head -c 4 "$entry" | od -An -c | tr -d ' ')" = "177ELF" ] && pass || fail "damaged entry not replaced"
loads "replaced entry: warm again" 0 libLLVM "$raxc" run "$rx" "[0, 1, 2]"
size=$(wc -c < "$entry")
head -c $((size / 2)) "$entry" > "$tmp/half" && cat "$tmp/half" > "$entry"
check "truncated entry: result" 0 "$want" "$raxc" run "$rx" "[0, 1, 2]"
[ "$(wc -c < "$entry")" -eq "$size" ] && pass || fail "truncated entry not replaced"
loads "truncated entry: warm again" 0 libLLVM "$raxc" run "$rx" "[0, 1, 2]"

# --no-cache and RAXC_CACHE_DIR= compile every time and write nothing.
rm -rf "$RAXC_CACHE_DIR"
check "--no-cache: result" 0 "$want" "$raxc" run "$rx" "[0, 1, 2]" --no-cache
[ ! -e "$RAXC_CACHE_DIR" ] || [ -z "$(ls "$RAXC_CACHE_DIR")" ] && pass || fail "--no-cache wrote an entry"
check "RAXC_CACHE_DIR=: result" 0 "$want" env RAXC_CACHE_DIR= "$raxc" run "$rx" "[0, 1, 2]"
[ ! -e "$RAXC_CACHE_DIR" ] || [ -z "$(ls "$RAXC_CACHE_DIR")" ] && pass || fail "RAXC_CACHE_DIR= wrote an entry"
loads "--no-cache: compiles" 1 libLLVM "$raxc" run "$rx" "[0, 1, 2]" --no-cache

# RX5034: the code generator is missing, or is not one.
check "missing code generator: RX5034" 2 "[RX5034]" \
  env RAXC_CODEGEN_LIB="$tmp/no_such_codegen.so" "$raxc" run "$rx" "[0, 1, 2]"
check "missing code generator, raxc build: RX5034" 2 "[RX5034]" \
  env RAXC_CODEGEN_LIB="$tmp/no_such_codegen.so" "$raxc" build "$rx" -o "$tmp/libadd.so"
printf 'int x;\n' > "$tmp/empty.c" && cc -shared -fPIC -o "$tmp/empty.so" "$tmp/empty.c"
check "not a code generator: RX5034" 2 "does not export raxc_codegen_api" \
  env RAXC_CODEGEN_LIB="$tmp/empty.so" "$raxc" run "$rx" "[0, 1, 2]"
# Near miss (RX5034): without the code generator, a module with no kernel to compile runs, and
# checking needs none.
cat > "$tmp/id.rx" <<'RX'
@R.function
def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
    return x
RX
check "no kernels: no code generator needed" 0 "[0. 1. 2.]" \
  env RAXC_CODEGEN_LIB="$tmp/no_such_codegen.so" "$raxc" run "$tmp/id.rx" "[0, 1, 2]"
out=$(env RAXC_CODEGEN_LIB="$tmp/no_such_codegen.so" "$raxc" check "$rx" 2>&1)
[ $? -eq 0 ] && ! printf '%s' "$out" | grep -q RX5034 && pass || fail "check needs the code generator: $out"

# NAME RX MUST MUST_NOT: `raxc run RX --emit-llvm` succeeds and its IR matches the grep pattern
# MUST and not MUST_NOT.
llvm_shape() {
  name=$1 rx=$2 must=$3 must_not=$4
  "$raxc" run "$rx" --emit-llvm > "$rx.ll" 2>&1
  if [ $? -ne 0 ] || ! grep -q -- "$must" "$rx.ll"; then
    fail "$name: no '$must' in the IR: $(tail -3 "$rx.ll")"
  elif grep -q -- "$must_not" "$rx.ll"; then
    fail "$name: '$must_not' in the IR"
  else
    pass
  fi
}

# Kernels are optimised at O2 (backend/jit/host_target.h): O3's non-trivial loop unswitching
# copies a softmax row loop over a symbolic length once per invariant condition (blocks named
# *.us: 8 of them here at O3) for a 2.7x longer compile and no faster kernel.
cat > "$tmp/softmax.rx" <<'RX'
@R.function
def main(x: R.Tensor(("m", "n"), "float32")):
    r = R.nn.softmax(x, axis=-1)
    return r
RX
llvm_shape "a softmax's loops vectorised, not unswitched (O3's pipeline?)" "$tmp/softmax.rx" \
  "vector.body" '\.us[0-9]*:'

# A buffer's constant extents are addressed as constants (backend/codegen/tir_entry.cpp): with
# the extent loaded from the tensor at run time, LLVM's vectorizer could not see that a head
# split's rows (8 × n × 12 × 64 → 8 × 12 × n × 64, n symbolic) are stored contiguously and
# scattered them element by element, 6-8x slower than the static shape.
cat > "$tmp/heads.rx" <<'RX'
@R.function
def main(x: R.Tensor((8, "n", 768), "float32")):
    with R.dataflow():
        h = R.reshape(x, (8, -1, 12, 64))
        r = R.permute_dims(h, axes=[0, 2, 1, 3])
        R.output(r)
    return r
RX
llvm_shape "a head split with a symbolic length stores its rows as vectors, not scatters" \
  "$tmp/heads.rx" "store <16 x float>" "llvm.masked.scatter"

echo "codegen_test: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
