#!/bin/sh
# CLI robustness around syntax errors and bad input (registered with ctest as `syntax_cli`):
# exit codes (0 clean, 1 errors, 2 usage/IO), messages, and `raxc fmt -i` never touching a
# file with a syntax error.
#   usage: syntax_cli_test.sh RAXC SOURCE_DIR
set -u
RAXC=$1
SRC=$2
TMP=$(mktemp -d)
trap 'chmod -R u+rwx "$TMP"; rm -rf "$TMP"' EXIT
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
  [ "$got" -eq "$want" ] || fail "raxc $*: exit $got, expected $want: $(head -c 400 "$TMP/out")"
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$TMP/out"; then
    fail "raxc $*: output does not match /$pattern/: $(head -c 400 "$TMP/out")"
  fi
}

# A file with a syntax error, and a clean one.
printf 'from tvm.script import relax as R\n\n\n@R.function\ndef f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32")\n    return x\n' >"$TMP/bad.rx"
cp "$SRC/test/cases/syntax/valid_module.rx" "$TMP/good.rx"

# Inputs that are not readable files: exit 2 and RX1000 naming the file.
expect_exit 2 "cannot read file .*: is a directory \[RX1000\]" check "$TMP"
expect_exit 2 "missing\.rx.*No such file or directory \[RX1000\]" check "$TMP/missing.rx"
expect_exit 2 "RX1000" check "$TMP/good.rx" "$TMP/missing.rx"  # one bad file spoils the run
if [ "$(id -u)" -ne 0 ]; then
  cp "$TMP/good.rx" "$TMP/unreadable.rx"
  chmod 000 "$TMP/unreadable.rx"
  expect_exit 2 "unreadable\.rx.*\[RX1000\]" check "$TMP/unreadable.rx"
else
  echo "note: running as root, the unreadable-file check is skipped" >&2
fi

# Bad command lines: exit 2 with a message.
expect_exit 2 "" check --no-such-flag "$TMP/good.rx"
expect_exit 2 "diagnostics-format" check --diagnostics-format=xml "$TMP/good.rx"
expect_exit 2 "" check
expect_exit 2 "" no-such-command
expect_exit 2 "" fmt --check -i "$TMP/good.rx"

# Syntax errors: exit 1, a coded diagnostic at the right place, valid JSON shape.
expect_exit 0 "" check "$TMP/good.rx"
expect_exit 1 "bad\.rx:5:65: error: expected ':' after function signature \[RX1003\]" check "$TMP/bad.rx"
expect_exit 1 '"code": "RX1003"' check --diagnostics-format=json "$TMP/bad.rx"
expect_exit 1 "RX1003" parse --dump=ast "$TMP/bad.rx"

# fmt -i on a file with a syntax error leaves it byte-identical (and so does fmt --check).
cp "$TMP/bad.rx" "$TMP/bad.orig"
expect_exit 1 "RX1003" fmt -i "$TMP/bad.rx"
cmp -s "$TMP/bad.rx" "$TMP/bad.orig" || fail "fmt -i changed a file with a syntax error"
expect_exit 1 "RX1003" fmt --check "$TMP/bad.rx"
cmp -s "$TMP/bad.rx" "$TMP/bad.orig" || fail "fmt --check changed a file"
[ -z "$(ls "$TMP" | grep raxc-fmt)" ] || fail "fmt -i left a temporary file behind"

# Garbage in, diagnostics out: random bytes (fixed), NUL bytes, a 10,000-deep expression.
awk 'BEGIN { srand(42); for (i = 0; i < 20000; i++) printf "%c", int(rand() * 255) + 1 }' >"$TMP/random.rx"
expect_exit 1 "error" check "$TMP/random.rx"
printf 'x = 1\000\000\n' >"$TMP/nul.rx"
expect_exit 1 "RX1006" check "$TMP/nul.rx"
awk 'BEGIN { printf "x = "; for (i = 0; i < 10000; i++) printf "("; printf "1";
             for (i = 0; i < 10000; i++) printf ")"; print "" }' >"$TMP/deep.rx"
expect_exit 1 "RX1010" check "$TMP/deep.rx"
expect_exit 1 "RX1010" parse --dump=cst "$TMP/deep.rx"
expect_exit 1 "RX1010" fmt "$TMP/deep.rx"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "syntax_cli: all checks passed"
