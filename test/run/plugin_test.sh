#!/bin/sh
# raxc run --load: the example plugin (examples/plugin/scale.c) builds with the system C
# compiler, registers its packed functions and computes what it should; a failing plugin
# function is RX5032 at the call; a plugin that cannot be loaded is RX5033 (exit 2); a packed
# function nobody registered is RX5022; R.call_inplace_packed of a plugin function returns the
# argument it wrote. With RUNNER (raxc_build_runner), the same through libraries `raxc build`
# writes: the program registers the plugin with the library's raxc_load_plugin.
# Usage: plugin_test.sh RAXC ROOT [RUNNER]
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
  if [ "$status" -ne "$want_status" ] || ! printf '%s' "$out" | grep -qF -- "$want_text"; then
    echo "FAIL $name: exit $status, output:"
    printf '%s\n' "$out"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

cc -shared -fPIC -I"$root" -o "$tmp/scale.so" "$root/examples/plugin/scale.c" || {
  echo "FAIL: the example plugin does not build"
  exit 1
}
rx=$root/examples/plugin/scale.rx
# Near miss (RX5032, RX5033): the plugin loads and both of its functions succeed.
check "plugin result" 0 "[2.5 5.  7.5]" "$raxc" run "$rx" "[1, 2, 3]" 2.5 --load "$tmp/scale.so"
check "plugin scalar result" 0 "15" "$raxc" run "$rx" "[1, 2, 3]" 2.5 --load "$tmp/scale.so"
# RX5022 near miss: the same module with the plugin loaded runs (above); without it:
check "no plugin: RX5022" 1 "[RX5022]" "$raxc" run "$rx" "[1, 2, 3]" 2.5
check "missing plugin: RX5033" 2 "[RX5033]" "$raxc" run "$rx" "[1, 2, 3]" 2.5 --load "$tmp/nope.so"
printf 'int x;\n' > "$tmp/empty.c" && cc -shared -fPIC -o "$tmp/empty.so" "$tmp/empty.c"
check "not a plugin: RX5033" 2 "raxc_plugin_register" "$raxc" run "$rx" "[1]" 2.5 --load "$tmp/empty.so"
# A plugin function that fails (example.scale of a float64 tensor): RX5032 at the call.
cat > "$tmp/bad.rx" <<'RX'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float64")) -> R.Tensor((2,), dtype="float64"):
        y = R.call_dps_packed("example.scale", (x, R.prim_value(T.float64(2.0))), out_sinfo=R.Tensor((2,), dtype="float64"))
        return y
RX
check "failing plugin function: RX5032" 1 "[RX5032]" "$raxc" run "$tmp/bad.rx" "[1, 2]" --load "$tmp/scale.so"
# R.call_inplace_packed of a plugin function that writes its third argument and returns
# nothing: the result is that argument (inplace_indices=[2]), the caller's x, scaled in place.
# The tuple shows x and the result are one tensor. A -1 index asks the function for a new
# tensor, which one that returns nothing did not make: RX5032.
cat > "$tmp/inplace.rx" <<'RX'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        y = R.call_inplace_packed("example.scale", x, R.prim_value(T.float64(2.0)), x, inplace_indices=[2], sinfo_args=R.Tensor((3,), dtype="float32"))
        return (y, x)
RX
check "call_inplace_packed aliases its argument" 0 "[2. 4. 6.],
  [2. 4. 6.]" "$raxc" run "$tmp/inplace.rx" "[1, 2, 3]" --load "$tmp/scale.so"
cat > "$tmp/inplace_new.rx" <<'RX'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        y = R.call_inplace_packed("example.scale", x, R.prim_value(T.float64(2.0)), x, inplace_indices=[2, -1], sinfo_args=[R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")])
        return y
RX
check "call_inplace_packed -1 of a function returning nothing: RX5032" 1 "has no value [RX5032]" "$raxc" run "$tmp/inplace_new.rx" "[1, 2, 3]" --load "$tmp/scale.so"

# Built libraries: the runner calls only the library's exported C API, as a C program would.
if [ $# -ge 3 ]; then
  runner=$3
  lib() {  # FILE.rx NAME: builds lib NAME.so from FILE.rx
    "$raxc" build "$1" -o "$tmp/lib$2.so" || {
      echo "FAIL: raxc build $1"
      failures=$((failures + 1))
    }
  }
  lib "$rx" scale
  check "built: plugin result" 0 '"data":[2.5,5.0,7.5]' "$runner" "$tmp/libscale.so" "$rx" main "[1, 2, 3]" 2.5 --load "$tmp/scale.so"
  check "built: no plugin: RX5022" 1 "RX5022: scale.rx:11:13: packed function 'example.scale' is not registered" "$runner" "$tmp/libscale.so" "$rx" main "[1, 2, 3]" 2.5
  check "built: missing plugin: RX5033" 2 "RX5033: cannot load plugin" "$runner" "$tmp/libscale.so" "$rx" main "[1, 2, 3]" 2.5 --load "$tmp/nope.so"
  lib "$tmp/bad.rx" bad
  check "built: failing plugin function: RX5032" 1 "RX5032" "$runner" "$tmp/libbad.so" "$tmp/bad.rx" main "[1, 2]" --load "$tmp/scale.so"
  lib "$tmp/inplace.rx" inplace
  check "built: call_inplace_packed aliases its argument" 0 '{"tuple":[{"tensor":{"data":[2.0,4.0,6.0],"dtype":"float32","shape":[3]}},{"tensor":{"data":[2.0,4.0,6.0],"dtype":"float32","shape":[3]}}]}' "$runner" "$tmp/libinplace.so" "$tmp/inplace.rx" main "[1, 2, 3]" --load "$tmp/scale.so"
  lib "$tmp/inplace_new.rx" inplace_new
  check "built: call_inplace_packed -1: RX5032" 1 "has no value" "$runner" "$tmp/libinplace_new.so" "$tmp/inplace_new.rx" main "[1, 2, 3]" --load "$tmp/scale.so"
fi
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
